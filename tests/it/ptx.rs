//! The embedded PTX assembles with `ptxas -arch=sm_90 -v` and no built-in kernel spills
//! (but Lorenz-96, whose state does not fit a thread's registers).
//!
//! ptxas comes from pip (`nvidia-cuda-nvcc-cu12`, see `scripts/setup.sh`). It is looked up
//! in `$PTXAS`, then in the project's `.venv`, then on `PATH`; when it is missing this test
//! FAILS (it is never silently skipped).

use crate::common;

#[test]
fn embedded_ptx_assembles_for_sm_90_without_spills() {
    let ptx = eagle::ptx::PTX.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    assert!(
        ptx.contains(".entry hawk_oscillator("),
        "oscillator entry missing"
    );
    for entry in [
        "hawk_oscillator_indexed",
        "hawk_count_chunks",
        "hawk_scan_counts",
        "hawk_write_chunks",
        "hawk_gather_b8",
        "hawk_scatter_b8",
        "hawk_gather_b1",
        "hawk_scatter_b1",
        "hawk_while_condition",
    ] {
        assert!(
            ptx.contains(&format!(".entry {entry}(")),
            "{entry} entry missing"
        );
    }
    assert!(ptx.contains(&format!(".target {}", eagle::ptx::ARCH)));
    // The build assembled the cubin with `ptxas -v` (the same ptxas this test would find):
    // its report, not a second run. Lorenz-96's 40 sites in RK4 (state and stages: over 300
    // values a thread) cannot fit 255 registers, and the neural ODE's 292-value table is
    // copied into each thread's local memory: they run from local memory, as the docs say.
    // HIRES in f64 with Rodas5P (8 states, their 8 x 8 Jacobian and its LU, 8 stages) fills
    // the 255 registers and spills some of them (printed below).
    assert!(
        common::ptxas::find_ptxas().is_some(),
        "ptxas not found: run scripts/setup.sh or set PTXAS"
    );
    let report = eagle::ptx::PTXAS_REPORT.expect("build.rs found no ptxas or ptxas failed");
    let funcs = common::ptxas::check_report(
        report,
        ptx,
        &[
            "lorenz96_rk4",
            "neural_ode",
            "hires_rodas5p",
            "HiresRodas5p",
        ],
    );
    assert!(
        funcs.iter().any(|f| f.0 == "hawk_oscillator"),
        "ptxas reported no hawk_oscillator"
    );
}

#[test]
fn embedded_cubin_is_the_ptx_assembled_for_arch() {
    // The build assembles the cubin with the same ptxas this file finds (scripts/setup.sh
    // installs it), so with a ptxas here there must be a cubin.
    assert!(
        common::ptxas::find_ptxas().is_some(),
        "ptxas not found: run scripts/setup.sh or set PTXAS"
    );
    let cubin = eagle::ptx::CUBIN.expect("build.rs found no ptxas or ptxas failed (see warnings)");
    // A 64-bit little-endian ELF for NVIDIA CUDA (e_machine 190).
    assert_eq!(&cubin[..4], b"\x7fELF");
    assert_eq!((cubin[4], cubin[5]), (2, 1), "ELF64, little endian");
    assert_eq!(u16::from_le_bytes([cubin[18], cubin[19]]), 190, "EM_CUDA");
    let has = |s: &str| cubin.windows(s.len()).any(|w| w == s.as_bytes());
    for entry in [
        "hawk_oscillator",
        "hawk_count_chunks",
        "hawk_while_condition",
    ] {
        assert!(has(entry), "{entry} missing from the cubin");
    }
    let module = eagle::ptx::MODULE.unwrap();
    assert_eq!(module.cubin, Some(cubin));
    assert_eq!(module.arch, eagle::ptx::ARCH);
    assert_eq!(module.ptx, eagle::ptx::PTX.unwrap());
}

/// Every entry a device team launches is declared in the PTX with exactly the parameters
/// its description (`hawk::device_entry!`) lists: the same count and sizes, in order (f32
/// params are 4 bytes, f64 params and pointers 8).
#[test]
fn every_entry_declares_the_parameters_of_its_description() {
    use hawk::Kernel;
    use hawk::device::{EntryArgs, EntryDesc, HELPERS};
    fn steps<K: Kernel>() -> [EntryDesc; 2] {
        [
            <K::Step as EntryArgs>::DESC,
            <K::StepIndexed as EntryArgs>::DESC,
        ]
    }
    let module = eagle::ptx::MODULE.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    let all = HELPERS
        .into_iter()
        .chain(steps::<hawk::builtin::Oscillator>())
        .chain(steps::<hawk::builtin::LorenzRk4F32>())
        .chain(steps::<hawk::builtin::KeplerRk78>());
    let mut checked = 0;
    for e in all {
        let sizes: Vec<u16> = e.params.iter().map(|p| p.1).collect();
        assert_eq!(module.entry_params(e.symbol), Some(sizes), "{}", e.symbol);
        checked += 1;
    }
    assert_eq!(checked, HELPERS.len() + 6);
    // The f32 kernel's params are 4 bytes in both.
    let lorenz = <<hawk::builtin::LorenzRk4F32 as Kernel>::Step as EntryArgs>::PARAMS;
    assert!(lorenz.iter().any(|p| p.0.starts_with("plane_") && p.1 == 4));
}

/// One PTX entry's arithmetic in `real` (`f64` or `f32`): how many of each instruction.
#[derive(Debug, Default, PartialEq)]
struct Arith {
    fma: i64,
    mul: i64,
    add_sub: i64,
    /// Additions and subtractions with an operand a `mul` of the entry wrote.
    mul_then_add: i64,
}

impl Arith {
    fn of(ptx: &str, entry: &str, real: &str) -> Arith {
        let start = ptx
            .find(&format!(".entry {entry}("))
            .unwrap_or_else(|| panic!("{entry} missing"));
        let body = &ptx[start..];
        let body = &body[..body.find("\n}\n").expect("the entry's end")];
        let mut a = Arith::default();
        let mut products = std::collections::HashSet::new();
        for line in body.lines() {
            let mut words = line.split_whitespace();
            let Some(op) = words.next() else { continue };
            let regs: Vec<&str> = words.map(|w| w.trim_end_matches([',', ';'])).collect();
            if op == format!("fma.rn.{real}") {
                a.fma += 1;
            } else if op == format!("mul.rn.{real}") {
                a.mul += 1;
                products.insert(regs[0].to_owned());
            } else if op == format!("add.rn.{real}") || op == format!("sub.rn.{real}") {
                a.add_sub += 1;
                a.mul_then_add +=
                    regs[1..].iter().filter(|r| products.contains(**r)).count() as i64;
            }
        }
        a
    }
}

/// A contracted entry (`#[kernel(contract)]`) fuses exactly the multiply-adds of its
/// source: against the plain entry, each fused pair is one `fma.rn` in place of one
/// `add.rn` or `sub.rn` and its `mul.rn` (kept where the plain entry shares that product
/// with another use: Lorenz's `t_end - dt * 0.5` and RK4's `h * 0.5`), and nothing else
/// changes. The contracted oscillator's step is its two `fma.rn` and `t += dt` (copies of
/// the step are unrolled), and none of its products is then added.
#[test]
fn contracted_entries_fuse_the_multiply_adds_of_their_source() {
    let ptx = eagle::ptx::PTX.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    for (plain, real) in [
        ("hawk_oscillator", "f64"),
        ("hawk_oscillator_indexed", "f64"),
        ("hawk_lorenz_rk4", "f64"),
        ("hawk_lorenz_rk4_f32", "f32"),
    ] {
        let fused_name = match plain.strip_suffix("_indexed") {
            Some(p) => format!("{p}_contracted_indexed"),
            None => format!("{plain}_contracted"),
        };
        let (p, c) = (
            Arith::of(ptx, plain, real),
            Arith::of(ptx, &fused_name, real),
        );
        let pairs = c.fma - p.fma;
        assert!(pairs > 0, "{fused_name}: {c:?} against {p:?}");
        let products_gone = p.mul - c.mul;
        assert!(
            products_gone > 0 && products_gone <= pairs,
            "{fused_name}: {c:?} against {p:?}"
        );
        assert_eq!(
            p.add_sub - c.add_sub,
            pairs,
            "{fused_name}: {c:?} against {p:?}"
        );
        if plain.starts_with("hawk_oscillator") {
            assert_eq!(p.fma, 0, "{plain}: Rust never fuses");
            assert_eq!(products_gone, pairs, "{fused_name}: {c:?} against {p:?}");
            assert!(p.mul_then_add > 0, "{plain}: {p:?}");
            assert_eq!(c.fma, 2 * c.add_sub, "{fused_name}: {c:?}");
            assert_eq!(c.mul_then_add, 0, "{fused_name}: {c:?}");
        }
    }
}

#[test]
fn step_entries_count_active_samples_once_per_warp_at_device_scope() {
    // Every sample still running after a launch adds to one counter: one `red` per warp at
    // device scope (`hawk::device::count_one`), never an atomic at system scope per sample.
    let ptx = eagle::ptx::PTX.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    assert!(
        !ptx.contains(".sys."),
        "an operation at system scope in eagle's module"
    );
    let mut steps = 0;
    for line in ptx.lines().filter(|l| l.starts_with(".visible .entry ")) {
        let name = line[".visible .entry ".len()..].split('(').next().unwrap();
        let start = ptx.find(line).unwrap();
        let body = &ptx[start..];
        let body = &body[..body.find("\n}\n").expect("the entry's end")];
        let counts = body.matches("red.relaxed.gpu.add.u32").count();
        if hawk::device::HELPERS.iter().any(|h| h.symbol == name) {
            assert_eq!(counts, 0, "{name}");
            continue;
        }
        assert_eq!(counts, 1, "{name}: one counting reduction");
        assert!(body.contains("activemask.b32"), "{name}");
        assert!(!body.contains("atom."), "{name}");
        steps += 1;
    }
    assert!(steps >= 60, "{steps} step entries in eagle's module");
}
