//! Kepler two-body orbits over a range of eccentricities with a per-sample end time, with
//! adaptive Fehlberg 7(8): eccentric orbits need more steps per period than round ones and
//! samples run different numbers of periods, so the samples of one ensemble live very
//! different lengths (the card's compaction workload).

use crate::methods::{AdaptiveState, FEHLBERG78, Settings, StepControl, adaptive_step_to};
use crate::prelude::*;

/// The Kepler right-hand side (`mu = 1`): `q' = p`, `p' = -q / |q|^3`.
#[inline(always)]
pub fn kepler_rhs<L: Lane>(_t: L, u: &[L; 4]) -> [L; 4] {
    let r2 = u[0] * u[0] + u[1] * u[1];
    let r3 = r2 * r2.sqrt();
    [u[2], u[3], -u[0] / r3, -u[1] / r3]
}

/// One attempted adaptive step of a Kepler orbit (position `qx, qy`, momentum `px, py`)
/// until the sample's own `t_end`; a sample whose step size collapses is flagged `failed`.
/// Steps land exactly on save times.
#[kernel(host_code = "where_used", steps = "auto", time = t)]
pub fn kepler_rk78(
    t_end: Scalar,
    rtol: Param,
    atol: Param,
    terminated: &mut Terminated,
    failed: &mut Failed,
    qx: &mut Scalar,
    qy: &mut Scalar,
    px: &mut Scalar,
    py: &mut Scalar,
    t: &mut Scalar,
    h: &mut Scalar,
    accepted: &mut Scalar,
    rejected: &mut Scalar,
    next_save: NextSave,
) {
    let mut s = AdaptiveState {
        t: *t,
        y: [*qx, *qy, *px, *py],
        h: *h,
        accepted: *accepted,
        rejected: *rejected,
    };
    let settings = Settings { rtol, atol, t_end };
    let ctl = StepControl::DEFAULT;
    let out = adaptive_step_to(&kepler_rhs, &FEHLBERG78, &mut s, &settings, &ctl, next_save);
    *qx = s.y[0];
    *qy = s.y[1];
    *px = s.y[2];
    *py = s.y[3];
    *t = s.t;
    *h = s.h;
    *accepted = s.accepted;
    *rejected = s.rejected;
    *terminated = out.terminated;
    *failed = out.collapsed;
}
