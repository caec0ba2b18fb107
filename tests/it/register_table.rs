//! How large an array-plane state fits a GPU thread: `ptxas -v` (sm_90) on the test
//! kernels' ring problems (Lorenz-96 on N sites, tests/kernels), from the report the build
//! keeps. Prints the table the guide quotes (chapter 9); RK4 must not spill at N = 8 in
//! f64 and N = 16 in f32.

use crate::common::ptxas::{find_ptxas, parse_ptxas};

#[test]
fn ring_problems_fit_a_thread_up_to_the_documented_sizes() {
    assert!(
        find_ptxas().is_some(),
        "ptxas not found: run scripts/setup.sh or set PTXAS"
    );
    let report = eagle_test_support::PTXAS_REPORT;
    assert!(!report.is_empty(), "the test kernels' build ran no ptxas");
    let funcs = parse_ptxas(report);
    let mut rows: Vec<_> = funcs
        .iter()
        .filter(|f| f.0.starts_with("hawk_ring_") && !f.0.ends_with("_indexed"))
        .collect();
    rows.sort();
    assert_eq!(rows.len(), 11, "{funcs:?}");
    println!("| entry | registers | stack (B) | spill stores (B) | spill loads (B) |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, regs, stack, stores, loads) in &rows {
        println!("| {name} | {regs} | {stack} | {stores} | {loads} |");
    }
    for must in ["hawk_ring_rk4_f64_8", "hawk_ring_rk4_f32_16"] {
        for entry in [must.to_owned(), format!("{must}_indexed")] {
            let f = funcs.iter().find(|f| f.0 == entry).expect("entry reported");
            assert_eq!((f.3, f.4), (0, 0), "{entry} spills: {f:?}");
        }
    }
}

/// The entries of the test kernels with events (tests/kernels: `ball`, `neuron`,
/// `kepler_passages`, `kepler_watched` in f64 and f32): registers and spills, printed;
/// the 4-state RK4 ones must not spill in either element type.
#[test]
fn event_entries_fit_a_thread() {
    let names = [
        "hawk_ball",
        "hawk_neuron",
        "hawk_kepler_passages",
        "hawk_kepler_watched",
        "hawk_kepler_watched_f32",
    ];
    entry_table(&names, |name| name.starts_with("hawk_kepler_watched"));
}

/// The stochastic problems' entries (Philox, Box-Muller and the method in one thread) fit a
/// GPU thread without spilling.
#[test]
fn stochastic_entries_fit_a_thread() {
    let names = [
        "hawk_gbm_em",
        "hawk_gbm_milstein",
        "hawk_gbm_milstein_free",
        "hawk_ou",
    ];
    entry_table(&names, |_| true);
}

/// The type of entry `name`'s kernel as its mangled name spells it (`hawk_hires_f32` ->
/// `8HiresF32E`): what the entry's step function (`step_thread`, when ptxas keeps it apart)
/// is named after.
fn mangled_kernel(name: &str) -> String {
    let camel: String = name
        .trim_start_matches("hawk_")
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect();
    format!("{}{camel}E", camel.len())
}

/// Prints the ptxas table of `names` (each with its `_indexed` entry; the spills include
/// those of the entry's step function where ptxas reports it apart) and checks that the
/// entries `no_spills` picks do not spill.
fn entry_table(names: &[&str], no_spills: impl Fn(&str) -> bool) {
    assert!(
        find_ptxas().is_some(),
        "ptxas not found: run scripts/setup.sh or set PTXAS"
    );
    let funcs = parse_ptxas(eagle_test_support::PTXAS_REPORT);
    println!("| entry | registers | stack (B) | spill stores (B) | spill loads (B) |");
    println!("| --- | --- | --- | --- | --- |");
    for &name in names {
        for entry in [name.to_owned(), format!("{name}_indexed")] {
            let f = funcs
                .iter()
                .find(|f| f.0 == entry)
                .unwrap_or_else(|| panic!("{entry} not in the report: {funcs:?}"));
            let (_, regs, stack, mut stores, mut loads) = *f;
            let thread = if entry.ends_with("_indexed") {
                "step_indexed_thread"
            } else {
                "step_thread"
            };
            let kernel = mangled_kernel(name);
            for g in funcs
                .iter()
                .filter(|g| g.0.contains(thread) && g.0.contains(&kernel))
            {
                stores += g.3;
                loads += g.4;
            }
            println!("| {entry} | {regs} | {stack} | {stores} | {loads} |");
            if no_spills(name) {
                assert_eq!((stores, loads), (0, 0), "{entry} spills: {f:?}");
            }
        }
    }
}

/// The stiff problems' entries (Rodas5P at N = 3 and N = 8 in f64 and f32, Rosenbrock23 at
/// N = 3: the Jacobian on duals, the LU and the stages in one thread), printed; the N = 3
/// ones must not spill (HIRES in f64 does: 580 B of spill stores in its step function).
#[test]
fn stiff_entries_fit_a_thread() {
    let names = [
        "hawk_robertson",
        "hawk_robertson_f32",
        "hawk_robertson23",
        "hawk_hires",
        "hawk_hires_f32",
    ];
    entry_table(&names, |name| name.starts_with("hawk_robertson"));
}
