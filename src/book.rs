//! Opening books: which plies of a game are opening theory (the `"book"` exclusion).
//!
//! Two kinds, behind the [`Book`] trait:
//! - [`PositionSet`]: a compact set of positions (Polyglot Zobrist keys, stored as sorted
//!   32-bit fingerprints, delta- and varint-encoded). fairsight ships one built from CC0
//!   sources (`models/opening-book.bin`, see `models/README.md`). A move is book when the
//!   position it leads to is in the set.
//! - [`PolyglotBook`]: a user's Polyglot `.bin` book. A move is book when the book lists
//!   it for the position it is played from.
//!
//! Keys are Polyglot's Zobrist hashes (shakmaty's `Zobrist64`), so both kinds agree on
//! positions whatever the move order that reached them.

use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Position, fen::Fen, uci::UciMove, zobrist::Zobrist64,
};

/// Decides which plies are opening book: the shipped position set or a user's Polyglot
/// file, or none.
pub trait Book {
    /// Whether playing `uci` from the position `fen` (before the move) is a book move.
    fn is_book_move(&self, fen: &str, uci: &str) -> bool;
}

/// A book that contains nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBook;

impl Book for NoBook {
    fn is_book_move(&self, _fen: &str, _uci: &str) -> bool {
        false
    }
}

/// Why a book file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    /// Not a fairsight position set (bad magic or version).
    NotAPositionSet,
    /// The data ends early or is corrupt.
    Truncated,
    /// A Polyglot file whose size is not a multiple of 16 bytes.
    BadPolyglotSize(usize),
    /// A Polyglot file whose entries are not sorted by key.
    PolyglotNotSorted,
}

impl std::fmt::Display for BookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BookError::NotAPositionSet => f.write_str("not a fairsight opening book (bad header)"),
            BookError::Truncated => f.write_str("the opening book is truncated or corrupt"),
            BookError::BadPolyglotSize(n) => write!(
                f,
                "not a Polyglot book: {n} bytes is not a multiple of 16-byte entries"
            ),
            BookError::PolyglotNotSorted => {
                f.write_str("not a Polyglot book: entries are not sorted by key")
            }
        }
    }
}

impl std::error::Error for BookError {}

/// The Polyglot key of a position given as FEN (`None` for a bad FEN).
pub fn polyglot_key(fen: &str) -> Option<u64> {
    let pos = position(fen)?;
    Some(key(&pos))
}

fn position(fen: &str) -> Option<Chess> {
    let fen: Fen = fen.parse().ok()?;
    match fen.clone().into_position(CastlingMode::Standard) {
        Ok(pos) => Some(pos),
        Err(_) => fen.into_position(CastlingMode::Chess960).ok(),
    }
}

fn key(pos: &Chess) -> u64 {
    let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    z.0
}

/// The key of the position after playing `uci` from `fen`.
pub fn polyglot_key_after(fen: &str, uci: &str) -> Option<u64> {
    let pos = position(fen)?;
    let m = uci.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
    let mut after = pos;
    after.play_unchecked(m);
    Some(key(&after))
}

const MAGIC: &[u8; 8] = b"FSBOOK1\n";

/// Reads a book file of either kind: a fairsight position set (by its header) or else a
/// Polyglot book.
pub fn load(bytes: &[u8]) -> Result<Box<dyn Book + Send + Sync>, BookError> {
    if bytes.starts_with(MAGIC) {
        Ok(Box::new(PositionSet::from_bytes(bytes)?))
    } else {
        Ok(Box::new(PolyglotBook::from_bytes(bytes)?))
    }
}

/// A set of positions, as sorted 32-bit fingerprints of their Polyglot keys (the high
/// half). A fingerprint collides with a random position with probability about
/// `len / 2^32` (5·10⁻⁵ for 200k positions); since a game only stays in book while every
/// move so far was book, a collision can at most extend a real book run by a ply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PositionSet {
    prints: Vec<u32>,
}

impl PositionSet {
    /// A set from Polyglot keys.
    pub fn from_keys(keys: impl IntoIterator<Item = u64>) -> PositionSet {
        let mut prints: Vec<u32> = keys.into_iter().map(|k| (k >> 32) as u32).collect();
        prints.sort_unstable();
        prints.dedup();
        PositionSet { prints }
    }

    /// Number of positions (fingerprints).
    pub fn len(&self) -> usize {
        self.prints.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.prints.is_empty()
    }

    /// Whether the position with this Polyglot key is in the set.
    pub fn contains_key(&self, key: u64) -> bool {
        self.prints.binary_search(&((key >> 32) as u32)).is_ok()
    }

    /// The binary form: magic, count (u32 LE), then the gaps between sorted fingerprints
    /// as LEB128 varints.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.prints.len() * 3);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.prints.len() as u32).to_le_bytes());
        let mut prev = 0u32;
        for &p in &self.prints {
            let mut gap = p - prev;
            prev = p;
            loop {
                let byte = (gap & 0x7f) as u8;
                gap >>= 7;
                if gap == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
        }
        out
    }

    /// Reads [`PositionSet::to_bytes`]'s form.
    pub fn from_bytes(bytes: &[u8]) -> Result<PositionSet, BookError> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(BookError::NotAPositionSet)?;
        let (count, mut data) = rest.split_first_chunk::<4>().ok_or(BookError::Truncated)?;
        let count = u32::from_le_bytes(*count) as usize;
        if count > data.len() {
            return Err(BookError::Truncated);
        }
        let mut prints = Vec::with_capacity(count);
        let mut prev = 0u32;
        for _ in 0..count {
            let mut gap = 0u32;
            let mut shift = 0;
            loop {
                let (&byte, tail) = data.split_first().ok_or(BookError::Truncated)?;
                data = tail;
                if shift > 28 {
                    return Err(BookError::Truncated);
                }
                gap |= u32::from(byte & 0x7f) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            prev = prev.checked_add(gap).ok_or(BookError::Truncated)?;
            if !prints.is_empty() && gap == 0 {
                return Err(BookError::Truncated);
            }
            prints.push(prev);
        }
        if !data.is_empty() {
            return Err(BookError::Truncated);
        }
        Ok(PositionSet { prints })
    }
}

impl Book for PositionSet {
    fn is_book_move(&self, fen: &str, uci: &str) -> bool {
        polyglot_key_after(fen, uci).is_some_and(|k| self.contains_key(k))
    }
}

/// A Polyglot opening book (`.bin`): 16-byte big-endian entries (key, move, weight,
/// learn) sorted by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolyglotBook {
    entries: Vec<(u64, u16, u16)>,
}

impl PolyglotBook {
    /// Parses a Polyglot book.
    pub fn from_bytes(bytes: &[u8]) -> Result<PolyglotBook, BookError> {
        if !bytes.len().is_multiple_of(16) {
            return Err(BookError::BadPolyglotSize(bytes.len()));
        }
        let entries: Vec<(u64, u16, u16)> = bytes
            .chunks_exact(16)
            .map(|e| {
                let key = u64::from_be_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
                let mv = u16::from_be_bytes([e[8], e[9]]);
                let weight = u16::from_be_bytes([e[10], e[11]]);
                (key, mv, weight)
            })
            .collect();
        if entries.windows(2).any(|w| w[0].0 > w[1].0) {
            return Err(BookError::PolyglotNotSorted);
        }
        Ok(PolyglotBook { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book moves of a position (Polyglot key) as UCI in Polyglot's own notation
    /// (castling king-takes-rook, e.g. `e1h1`), with their weights, in file order.
    pub fn moves(&self, key: u64) -> Vec<(String, u16)> {
        let start = self.entries.partition_point(|e| e.0 < key);
        self.entries[start..]
            .iter()
            .take_while(|e| e.0 == key)
            .map(|&(_, mv, weight)| (polyglot_move(mv), weight))
            .collect()
    }
}

/// Decodes a Polyglot move: to-file bits 0-2, to-rank 3-5, from-file 6-8, from-rank
/// 9-11, promotion 12-14 (none, n, b, r, q).
fn polyglot_move(mv: u16) -> String {
    let sq = |file: u16, rank: u16| {
        format!(
            "{}{}",
            char::from(b'a' + file as u8),
            char::from(b'1' + rank as u8)
        )
    };
    let promo = match (mv >> 12) & 7 {
        1 => "n",
        2 => "b",
        3 => "r",
        4 => "q",
        _ => "",
    };
    format!(
        "{}{}{promo}",
        sq((mv >> 6) & 7, (mv >> 9) & 7),
        sq(mv & 7, (mv >> 3) & 7)
    )
}

/// A standard-chess UCI castling move in Polyglot's king-takes-rook form.
fn to_polyglot_castling(fen: &str, uci: &str) -> String {
    let is_king_move = position(fen)
        .and_then(|p| {
            let from = uci.get(..2)?.parse::<shakmaty::Square>().ok()?;
            Some(p.board().role_at(from) == Some(shakmaty::Role::King))
        })
        .unwrap_or(false);
    match (is_king_move, uci) {
        (true, "e1g1") => "e1h1".to_owned(),
        (true, "e1c1") => "e1a1".to_owned(),
        (true, "e8g8") => "e8h8".to_owned(),
        (true, "e8c8") => "e8a8".to_owned(),
        _ => uci.to_owned(),
    }
}

impl Book for PolyglotBook {
    fn is_book_move(&self, fen: &str, uci: &str) -> bool {
        let Some(key) = polyglot_key(fen) else {
            return false;
        };
        let wanted = to_polyglot_castling(fen, uci);
        self.moves(key)
            .iter()
            .any(|(m, _)| *m == wanted || m == uci)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{pgn, plan};

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn keys_are_polyglots() {
        // Reference values from the Polyglot specification.
        assert_eq!(polyglot_key(START), Some(0x463b_9618_1691_fc9c));
        assert_eq!(
            polyglot_key_after(START, "e2e4"),
            Some(0x823c_9b50_fd11_4196),
            "1. e4"
        );
        assert_eq!(polyglot_key("not a fen"), None);
        assert_eq!(polyglot_key_after(START, "e2e5"), None, "illegal move");
    }

    #[test]
    fn position_sets_round_trip_and_reject_corruption() {
        let keys = [
            0u64,
            1 << 40,
            0x823c_9b50_fd11_4196,
            u64::MAX,
            0x823c_9b50_0000_0000,
        ];
        let set = PositionSet::from_keys(keys);
        assert_eq!(set.len(), 4, "two keys share a fingerprint");
        let bytes = set.to_bytes();
        assert_eq!(PositionSet::from_bytes(&bytes), Ok(set.clone()));
        assert!(set.contains_key(0x823c_9b50_fd11_4196));
        assert!(!set.contains_key(0x823c_9b51_0000_0000));
        for n in 0..bytes.len() {
            assert!(PositionSet::from_bytes(&bytes[..n]).is_err(), "prefix {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(PositionSet::from_bytes(&longer), Err(BookError::Truncated));
        assert_eq!(
            PositionSet::from_bytes(b"PK\x03\x04 zip"),
            Err(BookError::NotAPositionSet)
        );
        let empty = PositionSet::default();
        assert_eq!(PositionSet::from_bytes(&empty.to_bytes()), Ok(empty));
    }

    #[test]
    fn the_book_run_ends_at_the_first_move_out_of_book() {
        let g = pgn::import("1. e4 e5 2. Nf3 Nc6 3. Nc3 *")
            .remove(0)
            .unwrap();
        // The book knows 1. e4 e5 2. Nf3 and the position after 3. Nc3 (as if reached by
        // another order), but not 2... Nc6.
        let keys = [0usize, 1, 2, 4]
            .map(|i| polyglot_key_after(&g.plies[i].fen_before, &g.plies[i].uci).unwrap());
        let set = PositionSet::from_keys(keys);
        assert_eq!(plan::book_run(&g, &set), 3);
        assert_eq!(plan::book_run(&g, &NoBook), 0);
        let s = plan::Settings::default();
        assert_eq!(
            plan::pre_exclusion(&g, 2, &s, 3),
            Some(plan::Exclusion::Book)
        );
        assert_eq!(
            plan::pre_exclusion(&g, 4, &s, 3),
            None,
            "back in theory: still play"
        );
        let jobs = plan::jobs_with_book(&g, &s, &set);
        let searched: Vec<usize> = jobs
            .iter()
            .flat_map(|j| j.tasks.iter().map(|t| t.ply_index))
            .collect();
        assert_eq!(searched, [3, 4]);
    }

    fn entry(key: u64, mv: u16, weight: u16) -> Vec<u8> {
        let mut e = key.to_be_bytes().to_vec();
        e.extend_from_slice(&mv.to_be_bytes());
        e.extend_from_slice(&weight.to_be_bytes());
        e.extend_from_slice(&[0; 4]);
        e
    }

    /// Polyglot move encoding of a from/to pair: files and ranks 0-based.
    fn mv(from: (u16, u16), to: (u16, u16)) -> u16 {
        to.0 | (to.1 << 3) | (from.0 << 6) | (from.1 << 9)
    }

    #[test]
    fn polyglot_books_are_read_and_castling_is_translated() {
        let castle_fen = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
        let castle_key = polyglot_key(castle_fen).unwrap();
        let mut keyed = [
            (0x463b_9618_1691_fc9c, mv((4, 1), (4, 3)), 10), // e2e4
            (0x463b_9618_1691_fc9c, mv((3, 1), (3, 3)), 5),  // d2d4
            (castle_key, mv((4, 0), (7, 0)), 1),             // e1h1 = O-O
            (castle_key, 4 << 12 | mv((1, 6), (1, 7)), 1),   // b7b8q (nonsense, decodes)
        ];
        keyed.sort_by_key(|e| e.0);
        let bytes: Vec<u8> = keyed.iter().flat_map(|&(k, m, w)| entry(k, m, w)).collect();
        let book = PolyglotBook::from_bytes(&bytes).unwrap();
        assert_eq!(book.len(), 4);
        assert_eq!(
            book.moves(0x463b_9618_1691_fc9c),
            [("e2e4".to_owned(), 10), ("d2d4".to_owned(), 5)]
        );
        assert!(book.moves(castle_key).iter().any(|(m, _)| m == "b7b8q"));
        assert!(book.is_book_move(START, "e2e4"));
        assert!(!book.is_book_move(START, "g1f3"));
        assert!(book.is_book_move(castle_fen, "e1g1"), "O-O in standard UCI");
        assert!(!book.is_book_move("bad fen", "e2e4"));

        assert_eq!(
            PolyglotBook::from_bytes(&bytes[..20]),
            Err(BookError::BadPolyglotSize(20))
        );
        let mut unsorted = entry(2, 0, 0);
        unsorted.extend(entry(1, 0, 0));
        assert_eq!(
            PolyglotBook::from_bytes(&unsorted),
            Err(BookError::PolyglotNotSorted)
        );
        assert!(PolyglotBook::from_bytes(&[]).unwrap().is_empty());
    }
}
