//! What a launch loop checks at each launch boundary: cancellation, the wall-time limit,
//! and the optional progress bar.

use crate::report::Stop;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Stops a runner's current (or next) `run()`/`resume()` at its next launch boundary, from
/// any thread. The stopped run reports [`Stop::Cancelled`]; one cancel stops one run.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<AtomicBool>);

impl CancelHandle {
    /// Asks the run to stop at its next launch boundary.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    /// `true` while a cancel is pending (not yet consumed by a run).
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Consumes a pending cancel.
    fn take(&self) -> bool {
        self.0.swap(false, Ordering::Relaxed)
    }
}

/// One `run()`/`resume()` call's stop rules and progress bar.
pub(crate) struct Control {
    cancel: CancelHandle,
    limit: Option<Duration>,
    start: Instant,
    bar: Option<ProgressBar>,
}

impl Control {
    /// Starts the clock; shows a bar over `max_steps` steps when `progress` is set.
    pub fn new(
        cancel: &CancelHandle,
        limit: Option<Duration>,
        progress: bool,
        max_steps: u64,
    ) -> Self {
        let bar = progress.then(|| {
            let b = ProgressBar::with_draw_target(Some(max_steps), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} steps, {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            b
        });
        Control {
            cancel: cancel.clone(),
            limit,
            start: Instant::now(),
            bar,
        }
    }

    /// Checked before each launch: `Some(why)` when the run must stop here. The time limit
    /// only counts after the call's first launch, so every call makes progress.
    pub fn should_stop(&self, launches_this_call: u64) -> Option<Stop> {
        if self.cancel.take() {
            return Some(Stop::Cancelled);
        }
        match self.limit {
            Some(l) if launches_this_call > 0 && self.start.elapsed() >= l => Some(Stop::TimeLimit),
            _ => None,
        }
    }

    /// Updates the bar after a launch.
    pub fn progress(&self, steps: u64, active: usize, launches: u64) {
        if let Some(b) = &self.bar {
            b.set_position(steps);
            b.set_message(format!("{active} active, {launches} launches"));
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
