//! Progress of a long run: a bar on a terminal, a line a minute off one.

use std::{
    io::IsTerminal,
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressStyle};

/// Progress when stderr is not a terminal (a log file, a CI job): a line a minute.
pub(crate) struct ProgressLog {
    pub(crate) enabled: bool,
    pub(crate) total: u64,
    pub(crate) done: u64,
    pub(crate) searched: u64,
    pub(crate) started: Instant,
    pub(crate) last: Instant,
}

impl ProgressLog {
    pub(crate) const EVERY: Duration = Duration::from_secs(60);

    pub(crate) fn new(total: u64, done: u64) -> ProgressLog {
        ProgressLog {
            enabled: !std::io::stderr().is_terminal(),
            total,
            done,
            searched: 0,
            started: Instant::now(),
            last: Instant::now(),
        }
    }

    pub(crate) fn add(&mut self, positions: u64) {
        self.done += positions;
        self.searched += positions;
        if !self.enabled || self.last.elapsed() < Self::EVERY {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.searched as f64 / secs.max(1e-9);
        let eta = (self.total.saturating_sub(self.done)) as f64 / rate.max(1e-9);
        eprintln!(
            "fairsight: {}/{} positions, {rate:.2}/s, ETA {}:{:02}",
            self.done,
            self.total,
            (eta / 60.0) as u64,
            (eta % 60.0) as u64
        );
    }
}

pub(crate) fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} positions  {per_sec}  ETA {eta}",
        )
        .expect("invariant: the template is valid"),
    );
    bar
}
