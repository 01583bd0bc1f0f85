//! Fuzzes PGN import: any text imports without panicking, and every imported game,
//! written back as PGN (tags and SAN moves), imports again with the same moves.
#![no_main]

use fairsight::pgn;
use fairsight::{Game, Side, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for game in pgn::import(&text).into_iter().flatten() {
        let written = write_pgn(&game);
        let again = pgn::import(&written);
        let [Ok(again)] = again.as_slice() else {
            panic!("re-import of\n{written}\ngave {again:?}");
        };
        assert_eq!(sans(again), sans(&game), "{written}");
        assert_eq!(again.start_fen, game.start_fen, "{written}");
        assert_eq!(again.variant, game.variant, "{written}");
    }
});

fn sans(game: &Game) -> Vec<&str> {
    game.plies.iter().map(|p| p.san.as_str()).collect()
}

/// The game as PGN: its plain tags, the tags that set up the start, and the moves.
fn write_pgn(game: &Game) -> String {
    let mut pgn = String::new();
    for (name, value) in &game.tags {
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain && !matches!(name.as_str(), "FEN" | "SetUp" | "Variant") {
            pgn.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
        }
    }
    if game.variant == Variant::Chess960 {
        pgn.push_str("[Variant \"Chess960\"]\n");
    }
    if !game.is_standard_start() {
        pgn.push_str(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", game.start_fen));
    }
    pgn.push('\n');
    for (i, ply) in game.plies.iter().enumerate() {
        match ply.side {
            Side::White => pgn.push_str(&format!("{}. ", ply.move_number)),
            Side::Black if i == 0 => pgn.push_str(&format!("{}... ", ply.move_number)),
            Side::Black => {}
        }
        pgn.push_str(&ply.san);
        pgn.push(' ');
    }
    pgn.push_str("*\n");
    pgn
}

/// A tag value between quotes: backslash escapes, and no line breaks.
fn escape(value: &str) -> String {
    value
        .chars()
        .flat_map(|c| match c {
            '\\' | '"' => vec!['\\', c],
            c if c.is_control() => vec![' '],
            c => vec![c],
        })
        .collect()
}
