//! Memory that runs out is an error, not an abort. A child process (this test binary, so
//! no other test runs under the limit) allocates a large ensemble, then caps its own
//! address space with `prlimit` so that the run's working copies of the mutable planes
//! cannot be allocated: the run is `Error::HostOutOfMemory` naming them and their size,
//! and the caller's planes are as they were, bit for bit.

use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
use eagle::{Error, HostConfig, Target};
use std::process::Command;

const CHILD: &str = "EAGLE_OOM_CHILD";

/// 40 million samples: 320 MB per plane, 960 MB of working copies.
const N: usize = 40_000_000;

#[test]
fn running_out_of_host_memory_is_an_error_and_the_planes_stay() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "out_of_memory::child",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .expect("could not start the child");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the child failed:\n{log}");
    for line in [
        "refused: out of host memory: the working copies of the mutable planes need 0.9 GiB",
        "your planes are as they were",
        "planes unchanged: 40000000 samples",
        "1 passed",
    ] {
        assert!(log.contains(line), "`{line}` not in:\n{log}");
    }
}

/// Run by the test above (`EAGLE_OOM_CHILD=1`) with its address space capped; does nothing
/// otherwise.
#[test]
#[ignore = "the child process of running_out_of_host_memory_is_an_error_and_the_planes_stay"]
fn child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let omega: Vec<f64> = (0..N).map(|i| 1.0 + (i % 1000) as f64 * 1e-3).collect();
    let (mut x, mut v, mut t) = (vec![1.0; N], vec![0.5; N], vec![0.0; N]);
    let host = HostConfig {
        threads: Some(1),
        lanes: Some(8),
        isa: None,
    };
    let deployed = eagle::deploy(Oscillator, Target::Host(host)).unwrap();
    let planes = OscillatorPlanes {
        omega: &omega,
        t_end: 1e-3,
        dt: 1e-3,
        x: &mut x,
        v: &mut v,
        t: &mut t,
    };
    let mut runner = eagle::until_done(&deployed, 10, planes).unwrap();
    // From here on, room for one more plane-sized buffer, not for three.
    let vm = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib: u64 = vm
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|s| s.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize");
    let limit = kib * 1024 + (400 << 20);
    let capped = Command::new("prlimit")
        .args([
            &format!("--pid={}", std::process::id()),
            &format!("--as={limit}:"),
        ])
        .status()
        .expect("prlimit (util-linux) is needed");
    assert!(capped.success(), "prlimit failed");
    let err = runner.run().expect_err("the working copies cannot fit");
    println!("refused: {err}");
    assert!(matches!(err, Error::HostOutOfMemory { .. }), "{err}");
    drop(runner);
    assert!(x.iter().all(|&a| a == 1.0) && v.iter().all(|&a| a == 0.5));
    assert!(t.iter().all(|&a| a == 0.0));
    println!("planes unchanged: {N} samples");
}
