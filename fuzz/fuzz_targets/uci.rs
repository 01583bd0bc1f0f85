//! Fuzzes the UCI line parser: any line parses or is refused without panicking, a parsed
//! line printed parses back to the same value, and a session in the middle of a search
//! takes any lines without panicking.
#![no_main]

use std::sync::OnceLock;

use fairsight::{EngineLine, Job, Session, Settings, pgn};
use libfuzzer_sys::fuzz_target;

/// The first chunk of a short game (its second position is Black's: scores flip).
fn job() -> Job {
    static JOB: OnceLock<Job> = OnceLock::new();
    JOB.get_or_init(|| {
        let game = pgn::import("1. e4 e5 2. Nf3 Nc6 *")
            .remove(0)
            .expect("a legal game");
        fairsight::jobs(&game, &Settings::default()).remove(0)
    })
    .clone()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        if let Ok(parsed) = line.parse::<EngineLine>() {
            let printed = parsed.to_string();
            let again = printed.parse::<EngineLine>();
            assert_eq!(
                again.as_ref(),
                Ok(&parsed),
                "{line:?} printed as {printed:?}"
            );
        }
    }

    // A session past its handshake, searching the first position of a short game.
    let mut session = Session::new(&Settings::default());
    session.take_commands();
    session.handle_line("uciok").expect("the handshake");
    session.handle_line("readyok").expect("the handshake");
    session.submit(job()).expect("an idle session");
    session.handle_line("readyok").expect("the new game's sync");
    assert!(session.is_searching());
    for line in text.lines() {
        let _ = session.handle_line(line);
        session.take_commands();
        session.take_result();
    }
});
