//! Builds fairsight's shipped opening book, `models/opening-book.bin`, from CC0 sources:
//! the positions most often reached on lichess (official-stockfish/books
//! `popularpos_lichess_v3.epd`) and every position along the lichess named openings
//! (lichess-org/chess-openings `*.tsv`).
//!
//!     cargo run --release --example build_book -- ../shared/data/openings models/opening-book.bin
//!
//! See `models/README.md` for what the book is and how it is used.

use std::{collections::BTreeSet, path::PathBuf, process::ExitCode};

use fairsight::{PositionSet, pgn, polyglot_key, polyglot_key_after};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out] = args.as_slice() else {
        eprintln!("usage: build_book OPENINGS_DIR OUT.bin");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    let mut keys = BTreeSet::new();

    let epd = dir.join("stockfish-books/popularpos_lichess_v3.epd");
    let text = match std::fs::read_to_string(&epd) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", epd.display());
            return ExitCode::from(1);
        }
    };
    let (mut epd_ok, mut epd_bad) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        // EPD: the first four FEN fields, then operations; add the move counters.
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        match polyglot_key(&format!("{} 0 1", fields.join(" "))) {
            Some(k) => {
                keys.insert(k);
                epd_ok += 1;
            }
            None => epd_bad += 1,
        }
    }
    eprintln!(
        "{}: {epd_ok} positions ({epd_bad} unreadable)",
        epd.display()
    );

    let (mut lines, mut named) = (0, 0);
    for letter in ["a", "b", "c", "d", "e"] {
        let tsv = dir.join(format!("lichess-chess-openings/{letter}.tsv"));
        let Ok(text) = std::fs::read_to_string(&tsv) else {
            eprintln!("cannot read {}", tsv.display());
            return ExitCode::from(1);
        };
        for row in text.lines().skip(1) {
            let Some(moves) = row.split('\t').nth(2) else {
                continue;
            };
            let Some(Ok(game)) = pgn::import(&format!("{moves} *")).into_iter().next() else {
                eprintln!("{}: cannot replay {moves}", tsv.display());
                continue;
            };
            lines += 1;
            for p in &game.plies {
                if let Some(k) = polyglot_key_after(&p.fen_before, &p.uci) {
                    named += usize::from(keys.insert(k));
                }
            }
        }
    }
    eprintln!("named openings: {lines} lines, {named} positions not in the popular set");

    let set = PositionSet::from_keys(keys.iter().copied());
    let bytes = set.to_bytes();
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("cannot write {out}: {e}");
        return ExitCode::from(1);
    }
    eprintln!(
        "{out}: {} positions ({} distinct fingerprints), {} bytes",
        keys.len(),
        set.len(),
        bytes.len()
    );
    ExitCode::SUCCESS
}
