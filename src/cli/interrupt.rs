//! Ctrl-C (SIGINT) and SIGTERM during `fairsight analyze`: the first one stops the run
//! after the searches under way, and the games finished by then are written as usual
//! (the report, the table); a second one ends the process at once. Slurm sends SIGTERM
//! at a job's time limit, so a shard that runs out of time still leaves its finished
//! games.
//!
//! A signal ignored when the process started (a background job of a non-interactive
//! shell ignores SIGINT) stays ignored.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the run to stop (0: none yet).
static STOP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    STOP.store(signal, Ordering::SeqCst);
    // SAFETY: `signal` is async-signal-safe; the next such signal takes its default
    // action (the process ends at once).
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
    }
}

/// Catches SIGINT and SIGTERM from now on (each unless ignored at start).
pub(crate) fn catch() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: installs a handler that only stores an atomic and resets the signal
        // (both async-signal-safe); an ignored signal is put back as it was.
        #[allow(unsafe_code)]
        unsafe {
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            let previous = libc::signal(signal, handler);
            if previous == libc::SIG_IGN {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
    }
}

/// The signal that asked the run to stop, if one did.
pub(crate) fn stopped() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name, for messages.
pub(crate) fn name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "Ctrl-C (SIGINT)",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}
