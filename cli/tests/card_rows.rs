//! The card's workloads on every host arm give exactly the baseline's final states (the
//! plain rayon + scalar loop; for the pendulum, whose scalar arm calls std's `sin`/`cos`,
//! close to them), and the card's bookkeeping is consistent.

use eagle::HostConfig;
use eagle::hawk::builtin::{LorenzRk4, Oscillator};
use eagle::hawk_host::count::flops_per_step;
use eagle_cli::card::{Arm, Card, Row, Workload};

#[test]
fn every_workload_and_host_arm_matches_the_baseline_bit_for_bit() {
    for w in Workload::ALL {
        // 203 samples: several chunks of every width with a ragged tail. A Kuramoto sample
        // (4,096 sines a step) costs this test about 170 Lorenz samples, a neural ODE's
        // about 16: fewer of theirs, with a ragged tail still.
        let n = match w {
            Workload::KuramotoRk4 => 21,
            Workload::NeuralOdeRk4 => 51,
            _ => 203,
        };
        for arm in Arm::HOST {
            for lanes in [1, 8] {
                let host = HostConfig {
                    lanes: Some(lanes),
                    ..HostConfig::default()
                };
                let mut case = w.case(arm, n, host).unwrap();
                let t = case.run_once();
                let row = case.row(t.as_secs_f64().max(1e-9));
                let what = format!("{} / {} / {lanes} lanes", w.name(), arm.name());
                let std_math = arm == Arm::RayonScalar
                    && matches!(w, Workload::PendulumRk4F64 | Workload::PendulumRk4F32);
                if std_math {
                    // The pendulum's scalar arm calls std's sin/cos (another algorithm): close
                    // to hawk::math's results (a chaotic system amplifies the last bits), not
                    // equal.
                    let tol = if w == Workload::PendulumRk4F64 {
                        1e-8
                    } else {
                        5e-2
                    };
                    let d = row.max_rel_diff_vs_baseline;
                    assert!(d < tol, "{what}: {d} from std's math");
                } else {
                    assert_eq!(row.max_rel_diff_vs_baseline, 0.0, "{what}");
                }
                assert_eq!(row.n, n, "{what}");
                assert!(row.useful_sample_steps >= n as u64, "{what}");
                assert!(row.flops_per_step > 0, "{what}");
                if arm != Arm::RayonScalar {
                    assert!(row.launches > 0 && row.issued_gbs.unwrap() > 0.0, "{what}");
                    assert_eq!(row.active_by_launch.last(), Some(&0), "{what}: done");
                    // Every host row says what bounds it, from its measured ceiling.
                    let c = row.ceiling_pct_of_peak.expect("a host row's ceiling");
                    assert!(c > 0.0 && c <= 100.0, "{what}: ceiling {c}% of peak");
                    assert!(row.pct_of_ceiling.unwrap() > 0.0, "{what}");
                    assert!(row.bound.is_some(), "{what}");
                } else {
                    assert_eq!(row.bound, None, "{what}: the baseline has no ceiling");
                }
            }
        }
    }
}

#[test]
fn flops_are_counted_from_the_kernel() {
    // x + dt*v (2), v - dt*omega*omega*x (4), t + dt (1).
    assert_eq!(
        flops_per_step::<Oscillator>(&[2.0], &[1.0, 1e-3], &[1.0, 0.0, 0.0]),
        7
    );
    // Four Lorenz evaluations (8 each), three stage states (2 per component), the update
    // (6 per component), h/2, h/6, the stage times t + h/2 (twice) and t + h, and the
    // `t += dt` and `t_end - dt * 0.5` of the kernel.
    let f = flops_per_step::<LorenzRk4>(
        &[10.0],
        &[10.0, 8.0 / 3.0, 1e-3, 1.0],
        &[1.0, 0.0, 0.0, 0.0],
    );
    assert_eq!(f, 4 * 8 + 3 * 3 * 2 + 3 * 6 + 2 + 3 + 1 + 2);
}

/// One run of `w` on `n` samples per arm, as card rows.
fn rows_of(w: Workload, arms: &[Arm], n: usize) -> Vec<Row> {
    rows_with(w, arms, n, HostConfig::default())
}

/// [`rows_of`] on a host team set up as `host`.
fn rows_with(w: Workload, arms: &[Arm], n: usize, host: HostConfig) -> Vec<Row> {
    arms.iter()
        .map(|&arm| {
            let mut case = w.case(arm, n, host.clone()).unwrap();
            let t = case.run_once();
            case.row(t.as_secs_f64().max(1e-9))
        })
        .collect()
}

#[test]
fn card_writes_markdown_json_and_figure() {
    let rows = rows_of(Workload::Oscillator, &[Arm::Host, Arm::RayonScalar], 64);
    let card = Card::new(rows);
    let md = card.markdown();
    assert!(md.contains("## oscillator (n = 64, f64, 7 FLOPs/step, 64000 useful sample steps)"));
    assert!(md.contains("| host | rayon-scalar |"));
    let dir = std::env::temp_dir().join(format!("eagle-card-{}", std::process::id()));
    let paths = card.write(&dir).unwrap();
    assert_eq!(paths.len(), 4);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&paths[1]).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 2);
    assert!(
        std::fs::read_to_string(&paths[2])
            .unwrap()
            .starts_with("<svg")
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn device_arms_say_why_they_cannot_run_without_a_gpu() {
    if eagle::device_props().is_ok() {
        println!("skipped: a GPU is present, the device arms can run");
        return;
    }
    let err = Workload::Oscillator
        .case(Arm::DeviceGraph, 64, HostConfig::default())
        .err()
        .expect("no device team here");
    assert!(
        err.to_string().starts_with("device team unavailable"),
        "{err}"
    );
}

#[test]
fn slots_figure_draws_every_arm_of_a_varied_lifetime_workload() {
    // One fixed width for every launch (lanes: auto would probe other widths in the first
    // launches, and the bound below is for one width).
    let fixed = HostConfig {
        lanes: Some(8),
        ..HostConfig::default()
    };
    let rows = rows_with(
        Workload::Kepler,
        &[Arm::Host, Arm::HostNoCompaction],
        256,
        fixed,
    );
    // Without compaction every launch passes over every slot; with it the set shrinks.
    assert!(rows[1].slots_by_launch.iter().all(|&s| s == 256));
    assert!(rows[0].slots_by_launch.last() < rows[1].slots_by_launch.last());
    assert!(rows[0].lifetimes.compaction_bound > 1.05);
    // Without compaction each lane group steps exactly as long as its longest sample: the
    // issued steps the team counted are the bound's numerator. Compaction issues fewer.
    let issued = |r: &Row| r.issued_per_useful_step.unwrap();
    approx::assert_relative_eq!(
        issued(&rows[1]),
        rows[1].lifetimes.compaction_bound,
        epsilon = 1e-12
    );
    assert!(1.0 <= issued(&rows[0]) && issued(&rows[0]) < issued(&rows[1]));
    let dir = std::env::temp_dir().join(format!("eagle-slots-{}", std::process::id()));
    let paths = Card::new(rows).write(&dir).unwrap();
    let svg = std::fs::read_to_string(&paths[3]).unwrap();
    assert!(svg.contains("kepler-rk78: slots each launch passed over"));
    assert!(svg.contains("host / host-no-compaction"));
    std::fs::remove_dir_all(dir).ok();
}

/// Each contracted workload counts its plain workload's FLOPs, says how far its results are
/// from the plain kernel's (not the same bits, close to them), and the card puts the two
/// host rows side by side.
#[test]
fn contracted_workloads_sit_beside_their_plain_ones() {
    let mut rows = Vec::new();
    for w in Workload::ALL {
        let Some(plain) = w.plain() else {
            let row = &rows_of(w, &[Arm::RayonScalar], 16)[0];
            assert_eq!(row.vs_plain_max_rel_diff, None, "{}", w.name());
            continue;
        };
        let (p, c) = (
            rows_of(plain, &[Arm::Host], 64).remove(0),
            rows_of(w, &[Arm::Host], 64).remove(0),
        );
        assert_eq!(p.flops_per_step, c.flops_per_step, "{}", w.name());
        let d = c
            .vs_plain_max_rel_diff
            .expect("a contracted row's distance");
        let tol = if c.real == "f32" { 1e-2 } else { 1e-10 };
        assert!(
            d > 0.0 && d < tol,
            "{}: {d:e} from {}",
            w.name(),
            plain.name()
        );
        rows.extend([p, c]);
    }
    assert_eq!(rows.len(), 6);
    let md = Card::new(rows).markdown();
    assert!(
        md.contains("## Contracted kernels beside the plain ones (host arm)"),
        "{md}"
    );
    for w in ["oscillator", "lorenz-rk4-f64", "lorenz-rk4-f32"] {
        assert!(md.contains(&format!("\n| {w} | ")), "{w}: {md}");
    }
    assert!(md.contains("Contracted (`#[kernel(contract)]`): the kernel of `oscillator`"));
}
