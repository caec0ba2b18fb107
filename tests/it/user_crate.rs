//! eagle as a user's dependency: `examples/user-crate` (a `no_std` Van der Pol kernel crate,
//! a `#[problem]` with an array plane and the same kernel by hand, and an app whose build.rs
//! calls eagle-build) copied out of this workspace, built and run
//! by `scripts/user-crate.sh`. Its PTX holds its own entries (and not hawk's built-in
//! kernels) and assembles without spills; the app checks host team == emulated device bit
//! for bit and the typed refusal of the built-in module; `cargo tree` shows a lean
//! dependency; a kernel crate without `#![no_std]` fails to build with the lines to add; a
//! ptxas installed after a first build is picked up by the next one.
//!
//! The first run compiles eagle's dependencies and the example into target/user-crate (a
//! few minutes); the test command starts that build before its own (`scripts/test.sh`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The user crate's builds: its target folder, the profile `scripts/user-crate.sh` builds
/// with (opt-level 1, no debug info) and the nested GPU build's folder it shares with this
/// workspace, so every build here reuses the others.
fn user_build(cmd: &mut Command) -> &mut Command {
    cmd.env("CARGO_TARGET_DIR", root().join("target/user-crate"))
        .env("EAGLE_PTX_TARGET_DIR", root().join("target/eagle-build"))
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
}

/// `cmd` in `dir` with the user crate's target folder, without the variables cargo sets
/// for this test (the user's cargo sets its own).
fn user_cargo(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    user_build(cmd.current_dir(dir).args(args)).env("VIRTUAL_ENV", root().join(".venv"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_PKG_") || k == "CARGO_MANIFEST_DIR" || k == "CARGO_CRATE_NAME" {
            cmd.env_remove(k);
        }
    }
    cmd.output().expect("could not run cargo")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn a_user_crate_outside_the_workspace_builds_its_module_and_runs_on_every_team() {
    // The script's own folder (target/user-crate-src): the test command builds the example
    // there in the background while the workspace builds, so this run finds it built.
    let out = user_build(&mut Command::new(root().join("scripts/user-crate.sh")))
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .expect("could not run scripts/user-crate.sh");
    let log = text(&out);
    assert!(out.status.success(), "the user crate failed:\n{log}");
    for line in [
        "module `vdp_kernels` for sm_90",
        "host team == emulated device: bit for bit, 2000 samples",
        "saved points at t = 1..5: on the times exactly, host == emulated device",
        "#[problem] == the kernel written by hand: bit for bit, 2000 samples",
        "with the built-in module: kernel `van_der_pol` cannot run from GPU module `hawk`: it \
         lacks the entries hawk_van_der_pol, hawk_van_der_pol_indexed",
        "oscillator, built-in module: GPU module `hawk` holds another kernel named \
         `oscillator`",
        "oscillator, own module: host team == emulated device: bit for bit",
        "bouncing balls: host team == emulated device: bit for bit",
        "langevin particles: host team == emulated device: bit for bit",
        "best team: ",
    ] {
        assert!(log.contains(line), "`{line}` not in:\n{log}");
    }
    // ptxas is there (scripts/setup.sh), so the builder made a cubin.
    assert!(
        common::ptxas::find_ptxas().is_some(),
        "run scripts/setup.sh"
    );
    assert!(
        log.contains("cubin: ") && !log.contains("cubin: none"),
        "{log}"
    );

    // The module: its own kernels, hawk's helpers, no built-in kernel; no spills. Its
    // `oscillator` is its own (another identity than eagle's built-in of that name).
    let ptx_path = log
        .lines()
        .find_map(|l| l.strip_prefix("ptx: "))
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| panic!("no ptx path in:\n{log}"));
    let ptx = std::fs::read_to_string(ptx_path).unwrap();
    let module = eagle::Module::ptx(&ptx, "sm_90");
    let entries: Vec<&str> = module.entries().collect();
    for e in [
        "hawk_van_der_pol",
        "hawk_van_der_pol_indexed",
        "hawk_count_chunks",
    ] {
        assert!(entries.contains(&e), "{e} not in {entries:?}");
    }
    assert!(entries.contains(&"hawk_oscillator"), "{entries:?}");
    assert!(
        !entries.iter().any(|e| e.starts_with("hawk_lorenz")),
        "{entries:?}"
    );
    let own = module.kernel_identity("oscillator");
    assert!(own.is_some_and(
        |id| id != <eagle::hawk::builtin::Oscillator as eagle::hawk::Kernel>::IDENTITY
    ));
    assert!(module.kernel_identity("van_der_pol").is_some());
    assert_ne!(
        module.kernel_identity("van_der_pol"),
        module.kernel_identity("van_der_pol_by_hand")
    );
    let funcs = common::ptxas::assemble_without_spills(&ptx, "vdp_kernels");
    assert!(funcs.iter().any(|f| f.0 == "hawk_van_der_pol"));

    // A lean dependency: no CLI, plotting or JSON crates in the app's normal graph.
    // The folder the script built in, as it says (`user crate in <folder> (target: ...)`).
    let built = log
        .lines()
        .find_map(|l| l.strip_prefix("user crate in "))
        .and_then(|l| l.split(" (target: ").next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no `user crate in` line in:\n{log}"));
    let tree = user_cargo(&built, &["tree", "-e", "normal", "-p", "vdp-app"]);
    let tree_log = text(&tree);
    assert!(tree.status.success(), "{tree_log}");
    assert!(
        tree_log.contains("eagle v") && tree_log.contains("rayon v"),
        "{tree_log}"
    );
    for heavy in ["clap", "plotters", "serde_json", "criterion"] {
        assert!(
            !tree_log.contains(&format!("{heavy} v")),
            "{heavy} in:\n{tree_log}"
        );
    }

    // The checks below change the example: in a copy of it (its sources; the builds share
    // the target folder).
    let dir = tempfile::tempdir().unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(built.join("."))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(copied.success(), "could not copy {}", built.display());

    // A kernel crate without #![no_std]: a build error naming the lines to add.
    let lib = dir.path().join("kernels/src/lib.rs");
    let src = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, src.replace("#![no_std]\n", "")).unwrap();
    let bad = user_cargo(dir.path(), &["build", "--release"]);
    let bad_log = text(&bad);
    assert!(
        !bad.status.success(),
        "built without #![no_std]:\n{bad_log}"
    );
    assert!(
        bad_log.contains("lacks `#![no_std]`; add these lines at the top of it"),
        "{bad_log}"
    );
    std::fs::write(&lib, &src).unwrap();

    // Built without a ptxas: PTX only; a ptxas installed afterwards (pip into a .venv next
    // to the app) is picked up by the next build, with nothing touched. Each of these builds
    // rebuilds the app that embeds the module; the example's app compiles its kernels for
    // every host lane shape (minutes), so the app here is a small one in the same
    // workspace: it embeds the kernel crate's module and says whether it has a cubin.
    let probe = dir.path().join("probe");
    std::fs::create_dir_all(probe.join("src")).unwrap();
    let root_s = root().display().to_string();
    std::fs::write(
        probe.join("Cargo.toml"),
        format!(
            "[package]\nname = \"ptxas-probe\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\neagle = {{ path = \"{root_s}\" }}\n\n\
             [build-dependencies]\neagle-build = {{ path = \"{root_s}/builder\" }}\n"
        ),
    )
    .unwrap();
    std::fs::copy(dir.path().join("app/build.rs"), probe.join("build.rs")).unwrap();
    std::fs::write(
        probe.join("src/main.rs"),
        "fn main() {\n    let m = eagle::include_module!();\n    println!(\"cubin: {}\", \
         m.cubin.map_or(\"none (no ptxas)\".to_owned(), |c| format!(\"{} bytes\", c.len())));\n}\n",
    )
    .unwrap();
    let workspace = dir.path().join("Cargo.toml");
    let members = std::fs::read_to_string(&workspace).unwrap().replace(
        r#"members = ["kernels", "app"]"#,
        r#"members = ["kernels", "app", "probe"]"#,
    );
    assert!(members.contains("\"probe\""), "{members}");
    std::fs::write(&workspace, members).unwrap();
    let app = root().join("target/user-crate/release/ptxas-probe");
    let first_line = |o: &Output| text(o).lines().next().unwrap_or_default().to_owned();
    let no_ptxas = |cmd: &mut Command| {
        let path: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .filter(|d| !d.join("ptxas").exists())
            .collect();
        cmd.env("PATH", std::env::join_paths(path).unwrap())
            .env("VIRTUAL_ENV", dir.path().join("no-venv"))
            .env("HOME", dir.path())
            .env_remove("EAGLE_PTXAS")
            .env_remove("CUDA_HOME")
            .env_remove("CUDA_PATH");
    };
    let build = |label: &str| {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        user_build(cmd.current_dir(dir.path())).args(["build", "--release", "-p", "ptxas-probe"]);
        no_ptxas(&mut cmd);
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{label}:\n{}", text(&o));
        text(&o)
    };
    let log = build("build without ptxas");
    assert!(log.contains("no ptxas found"), "{log}");
    let run = Command::new(&app).output().unwrap();
    assert!(
        first_line(&run).contains("cubin: none (no ptxas)"),
        "{}",
        text(&run)
    );
    let ptxas = common::ptxas::find_ptxas().unwrap().canonicalize().unwrap();
    let pip_bin = dir
        .path()
        .join("probe/.venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin");
    std::fs::create_dir_all(&pip_bin).unwrap();
    std::os::unix::fs::symlink(&ptxas, pip_bin.join("ptxas")).unwrap();
    let log = build("build after installing ptxas");
    assert!(!log.contains("no ptxas found"), "{log}");
    let run = Command::new(&app).output().unwrap();
    let line = first_line(&run);
    assert!(
        line.contains("cubin: ") && !line.contains("cubin: none"),
        "{}",
        text(&run)
    );
}

/// The guide's chapter "Your own kernel crate" shows the example's files verbatim (`<!--
/// file: PATH -->` before a code block) and lines of them (`<!-- excerpt: PATH -->`), so
/// what a user copies is what the test above builds.
#[test]
fn the_guide_shows_the_example_as_it_is() {
    let readme = std::fs::read_to_string(root().join("docs/guide/05-your-crate.md")).unwrap();
    let mut checked = 0;
    for (marker, exact) in [("<!-- file: ", true), ("<!-- excerpt: ", false)] {
        for part in readme.split(marker).skip(1) {
            let (path, rest) = part
                .split_once(" -->\n```")
                .expect("a code block after the marker");
            let block = rest
                .split_once('\n')
                .unwrap()
                .1
                .split("\n```")
                .next()
                .unwrap();
            let file = std::fs::read_to_string(root().join(path))
                .unwrap_or_else(|e| panic!("the guide names {path}: {e}"));
            if exact {
                assert_eq!(
                    block,
                    file.trim_end(),
                    "the guide's copy of {path} differs from the file"
                );
            } else {
                for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    let found = file.lines().any(|l| l.trim() == line);
                    assert!(found, "the guide's excerpt line `{line}` is not in {path}");
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 6, "the guide's example blocks");
}
