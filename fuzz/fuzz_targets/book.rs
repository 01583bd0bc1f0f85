//! Fuzzes the opening-book readers: any bytes are read or refused without panicking; a
//! Polyglot book lists every entry under its key; a position set written back reads as
//! the same set; either kind answers a book query.
#![no_main]

use fairsight::{PolyglotBook, PositionSet, load_book};
use libfuzzer_sys::fuzz_target;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fuzz_target!(|data: &[u8]| {
    if let Ok(book) = PolyglotBook::from_bytes(data) {
        assert_eq!(book.len(), data.len() / 16);
        let mut keys: Vec<u64> = data
            .chunks_exact(16)
            .map(|e| u64::from_be_bytes(e[..8].try_into().expect("8 bytes")))
            .collect();
        keys.dedup();
        let listed: usize = keys.iter().map(|&k| book.moves(k).len()).sum();
        assert_eq!(listed, book.len(), "every entry is listed under its key");
        for &k in &keys {
            for (uci, _) in book.moves(k) {
                assert!(matches!(uci.len(), 4 | 5) && uci.is_ascii(), "{uci:?}");
            }
        }
    }
    if let Ok(set) = PositionSet::from_bytes(data) {
        assert_eq!(PositionSet::from_bytes(&set.to_bytes()).as_ref(), Ok(&set));
    }
    if let Ok(book) = load_book(data) {
        book.is_book_move(START, "e2e4");
        book.is_book_move(START, "e1g1");
    }
});
