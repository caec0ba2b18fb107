//! `hawk::methods::events`: a bouncing ball's bounce times against the closed form, with
//! RK4 (exact for the ball's quadratic path) and Tsitouras 5(4) steps as the continuous
//! extension, and bit-identical results between scalar and SIMD lanes.
#![feature(portable_simd)]

use hawk::methods::events::{Direction, locate};
use hawk::methods::{TSIT5, embedded_step, rk4_step, splat_f64};
use hawk::{Lane, Mask};
use std::simd::Simd;

const G: f64 = 9.81;
const H0: f64 = 1.0;
const BOUNCES: usize = 10;
/// The step: shorter than the shortest flight between two bounces (the 10th at e = 0.5,
/// 1.8 ms), so no step holds two crossings.
const DT: f64 = 1e-3;

/// The ball's height and velocity.
fn ball<L: Lane>(_t: L, y: &[L; 2]) -> [L; 2] {
    [y[1], splat_f64::<L>(-G)]
}

/// Bounce `k` (0-based) of a ball dropped from `H0` at rest, restitution `e`.
fn closed_form(e: f64, k: usize) -> f64 {
    let t1 = (2.0 * H0 / G).sqrt();
    let v1 = G * t1;
    t1 + (1..=k)
        .map(|j| 2.0 * e.powi(j as i32) * v1 / G)
        .sum::<f64>()
}

/// The bounce times of each lane's ball (restitution `e`), stepping with `method` (0: RK4,
/// 1: Tsitouras 5(4) at a fixed step) of length `dt`; at each bounce the height is set to
/// zero and the velocity to `-e` times its value.
fn bounce_times<L: Lane<Elem = f64>>(e: L, dt: f64, method: u8) -> Vec<Vec<f64>> {
    let step = |t: L, y: &[L; 2], h: L| match method {
        0 => rk4_step(&ball::<L>, t, y, h),
        _ => embedded_step(&ball::<L>, &TSIT5, t, y, h).y,
    };
    let g = |_t: L, y: &[L; 2]| y[0];
    let (mut t, mut y) = (
        splat_f64::<L>(0.0),
        [splat_f64::<L>(H0), splat_f64::<L>(0.0)],
    );
    let mut times = vec![Vec::new(); L::WIDTH];
    let h = splat_f64::<L>(dt);
    for _ in 0..100_000 {
        let done = L::Mask::from_fn(|l| times[l].len() >= BOUNCES);
        if done.all() {
            return times;
        }
        let y1 = step(t, &y, h);
        let (g0, g1) = (g(t, &y), g(t + h, &y1));
        let crossing = Direction::Falling.crossed(g0, g1) & !done;
        let at = locate(
            g,
            |tau| step(t, &y, tau),
            t,
            h,
            &y1,
            g0,
            g1,
            crossing,
            splat_f64::<L>(1e-13),
            100,
        );
        let t_new = t + at.tau;
        for (l, lane_times) in times.iter_mut().enumerate() {
            if crossing.test(l) {
                lane_times.push(t_new.lane(l));
            }
        }
        let bounced = [splat_f64::<L>(0.0), -e * at.y[1]];
        for n in 0..2 {
            let next = L::select(crossing, bounced[n], at.y[n]);
            y[n] = L::select(done, y[n], next);
        }
        t = L::select(done, t, t_new);
    }
    panic!("the balls did not bounce {BOUNCES} times");
}

#[test]
fn direction_fires_on_strict_start_signs_and_not_on_grazing() {
    let d = |dir: Direction, a: f64, b: f64| dir.crossed(a, b);
    assert!(d(Direction::Rising, -1.0, 0.0) && d(Direction::Rising, -1.0, 2.0));
    assert!(!d(Direction::Rising, 0.0, 1.0) && !d(Direction::Rising, 1.0, -1.0));
    assert!(d(Direction::Falling, 1.0, 0.0) && !d(Direction::Falling, 0.0, -1.0));
    assert!(d(Direction::Either, 1.0, -1.0) && d(Direction::Either, -1.0, 1.0));
    // -0.0 is zero: reaching it is a crossing.
    assert!(d(Direction::Rising, -1.0, -0.0));
    assert!(!d(Direction::Either, f64::NAN, 1.0) && !d(Direction::Either, -1.0, f64::NAN));
    // Grazing: negative at both ends (whatever happens between) fires nothing.
    assert!(!d(Direction::Either, -1e-300, -1e-300));
}

#[test]
fn bounce_times_match_the_closed_form_with_rk4_and_tsit5_steps() {
    for method in [0u8, 1] {
        for e in [0.5, 0.7, 0.9] {
            let got = &bounce_times::<f64>(e, DT, method)[0];
            assert_eq!(got.len(), BOUNCES);
            for (k, &t) in got.iter().enumerate() {
                let want = closed_form(e, k);
                assert!(
                    (t - want).abs() < 1e-9,
                    "method {method}, e = {e}, bounce {k}: {t} vs {want}"
                );
            }
        }
    }
}

#[test]
fn simd_lanes_give_the_scalar_bounce_times_bit_for_bit() {
    let es = [0.5, 0.6, 0.75, 0.9];
    for method in [0u8, 1] {
        let lanes = bounce_times(Simd::<f64, 4>::from_array(es), DT, method);
        for (l, &e) in es.iter().enumerate() {
            let scalar = &bounce_times::<f64>(e, DT, method)[0];
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&lanes[l]), bits(scalar), "lane {l}, method {method}");
        }
    }
}

#[test]
fn a_crossing_at_the_step_end_is_located_there_without_iterating() {
    // g = t - 1 crosses zero exactly at the end of the step [0.5, 1].
    let at = locate(
        |t: f64, _y: &[f64; 1]| t - 1.0,
        |tau| [0.5 + tau],
        0.5,
        0.5,
        &[1.0],
        -0.5,
        0.0,
        true,
        1e-12,
        50,
    );
    assert_eq!((at.tau, at.y, at.iterations), (0.5, [1.0], 0));
    // Lanes without a crossing are left at the step's end.
    let at = locate(
        |t: f64, _y: &[f64; 1]| t - 0.75,
        |tau| [0.5 + tau],
        0.5,
        0.5,
        &[1.0],
        -0.25,
        0.25,
        false,
        1e-12,
        50,
    );
    assert_eq!((at.tau, at.y, at.iterations), (0.5, [1.0], 0));
}

/// Three conditions on `y = t` over the step [0, 1]: `t - 0.7` (rising), `t - 0.3`
/// (falling: it rises, so it never fires) and `0.3 - t` (falling, at 0.3): the earliest
/// that fires acts; the step ends there, with its state; a tie goes to the lower index.
#[test]
fn check_step_picks_the_earliest_event_and_breaks_ties_by_index() {
    use hawk::methods::events::{Action, Event, check_step};
    let ev = |direction| Event {
        direction,
        action: Action::Count,
    };
    let events = [
        ev(Direction::Rising),
        ev(Direction::Falling),
        ev(Direction::Falling),
    ];
    let g = |t: f64, y: &[f64; 1]| [y[0] - 0.7, y[0] - 0.3, 0.3 - t];
    let step = |tau: f64| [tau];
    let c = check_step(
        &events,
        g,
        step,
        0.0,
        &[0.0],
        1.0,
        1.0,
        &[1.0],
        true,
        1e-14,
        64,
    );
    assert!(c.fired && !c.nan);
    assert_eq!(c.which, 2.0);
    assert!((c.t - 0.3).abs() < 1e-14 && c.t >= 0.3, "{}", c.t);
    assert_eq!(c.y, [c.t]);
    // Two conditions with the same root: the first declared acts.
    let g = |t: f64, _y: &[f64; 1]| [t - 0.5, t - 0.5, 1.0];
    let events = [
        ev(Direction::Either),
        ev(Direction::Rising),
        ev(Direction::Rising),
    ];
    let c = check_step(
        &events,
        g,
        step,
        0.0,
        &[0.0],
        1.0,
        1.0,
        &[1.0],
        true,
        1e-14,
        64,
    );
    assert_eq!(c.which, 0.0);
    // Nothing fires: the step's own end; an inactive lane fires nothing.
    let g = |t: f64, _y: &[f64; 1]| [t - 2.0, t + 1.0, 1.0];
    let c = check_step(
        &events,
        g,
        step,
        0.0,
        &[0.0],
        1.0,
        1.0,
        &[1.0],
        true,
        1e-14,
        64,
    );
    assert!(!c.fired && c.t == 1.0 && c.y == [1.0]);
    let g = |t: f64, _y: &[f64; 1]| [t - 0.5, t - 0.5, 1.0];
    let c = check_step(
        &events,
        g,
        step,
        0.0,
        &[0.0],
        1.0,
        1.0,
        &[1.0],
        false,
        1e-14,
        64,
    );
    assert!(!c.fired && c.t == 1.0);
    // A NaN condition at the step's end: no event, the lane is marked.
    let g = |t: f64, _y: &[f64; 1]| [t - 0.5, f64::NAN, 1.0];
    let c = check_step(
        &events,
        g,
        step,
        0.0,
        &[0.0],
        1.0,
        1.0,
        &[1.0],
        true,
        1e-14,
        64,
    );
    assert!(c.nan && !c.fired);
}
