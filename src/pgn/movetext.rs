//! Step 2 of import: the movetext scan (pgn-reader's tokenizer, copied): the line of every
//! main-line move, and the relaxed copy pgn-reader reads.

use std::borrow::Cow;

use pgn_reader::SanPlus;
use shakmaty::san::{San, Suffix};
use shakmaty::{Rank, Role};

/// A main-line move token as the scan found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MoveToken {
    /// What pgn-reader reports for it.
    pub(super) san: SanPlus,
    /// The token as written.
    pub(super) text: String,
    /// 1-based line of the token.
    pub(super) line: u32,
}

/// The result of scanning one game's slice.
#[derive(Debug)]
pub(super) struct Scanned<'s> {
    /// The bytes pgn-reader reads (the slice with the relaxations applied; the slice
    /// itself when there are none).
    pub(super) reader_text: Cow<'s, [u8]>,
    /// The main-line move tokens, in order.
    pub(super) moves: Vec<MoveToken>,
    /// Line of a `{` that is never closed (pgn-reader fails the game there).
    pub(super) unterminated_comment: Option<u32>,
}

/// Whether pgn-reader ends a token at this byte (mirrors `pgn_reader::reader`).
pub(super) fn is_token_end(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

/// Walks a game's movetext exactly as pgn-reader 0.29's `read_movetext` and
/// `skip_variation` do, recording main-line moves and the bytes to insert into
/// pgn-reader's copy.
pub(super) struct MovetextScanner<'s> {
    pub(super) s: &'s [u8],
    pub(super) i: usize,
    /// (offset, bytes) to insert before the byte at offset, in increasing offset order.
    pub(super) inserts: Vec<(usize, &'static [u8])>,
    pub(super) moves: Vec<MoveToken>,
    pub(super) unterminated_comment: Option<u32>,
    /// Line counting: `line` is the line of offset `counted`.
    pub(super) line: u32,
    pub(super) counted: usize,
}

impl MovetextScanner<'_> {
    pub(super) fn line_at(&mut self, offset: usize) -> u32 {
        if let Some(between) = self.s.get(self.counted..offset) {
            let newlines = between.iter().filter(|&&c| c == b'\n').count();
            self.line = self
                .line
                .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            self.counted = offset;
        }
        self.line
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(super) fn eat(&mut self, bytes: &[u8]) -> bool {
        let found = self
            .s
            .get(self.i..)
            .is_some_and(|rest| rest.starts_with(bytes));
        if found {
            self.i += bytes.len();
        }
        found
    }

    pub(super) fn eat_dash(&mut self) -> bool {
        self.eat(b"-") || self.eat("\u{2013}".as_bytes()) || self.eat("\u{2014}".as_bytes())
    }

    pub(super) fn skip_digits_and_dots(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        while matches!(self.peek(), Some(b'.' | b' ')) {
            self.i += 1;
        }
    }

    /// Moves to the next `needle` (not consumed), or to the end.
    pub(super) fn skip_until(&mut self, needle: u8) {
        self.i = self
            .s
            .get(self.i..)
            .and_then(|rest| rest.iter().position(|&c| c == needle))
            .map_or(self.s.len(), |k| self.i + k);
    }

    pub(super) fn skip_token(&mut self) {
        self.i = self
            .s
            .get(self.i..)
            .and_then(|rest| rest.iter().position(|&c| is_token_end(c)))
            .map_or(self.s.len(), |k| self.i + k);
    }

    /// At a `\n`. pgn-reader would end the game at a following blank line or `[`; the
    /// copy gets a space there so it reads on (the pre-scan already decided where games
    /// end).
    pub(super) fn newline(&mut self) {
        self.i += 1;
        match self.peek() {
            Some(b'%') => {
                self.i += 1;
                self.skip_until(b'\n');
            }
            Some(b'[' | b'\n' | b'\r') => self.inserts.push((self.i, b" ")),
            _ => {}
        }
    }

    pub(super) fn run(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b'{' => {
                    let open = self.i;
                    self.i += 1;
                    self.skip_until(b'}');
                    if self.i >= self.s.len() {
                        self.unterminated_comment = Some(self.line_at(open));
                        return;
                    }
                    self.i += 1;
                }
                b'\n' => self.newline(),
                b';' => {
                    self.i += 1;
                    self.skip_until(b'\n');
                }
                b'0' => {
                    let start = self.i;
                    self.i += 1;
                    if self.eat_dash() && !self.eat(b"1") && self.eat(b"0") {
                        self.castling_with_zeros(start);
                    }
                }
                b'1' => {
                    self.i += 1;
                    if self.eat_dash() {
                        let _ = self.eat(b"0");
                    } else if !(self.eat(b"/2") && self.eat_dash() && self.eat(b"1/2")) {
                        self.skip_digits_and_dots();
                    }
                }
                0xc2 => {
                    self.i += 1;
                    let _ = self.eat(b"\xbd") && self.eat_dash() && self.eat("\u{bd}".as_bytes());
                }
                b'2'..=b'9' => {
                    self.i += 1;
                    self.skip_digits_and_dots();
                }
                b'(' => {
                    self.i += 1;
                    self.skip_variation();
                }
                b'$' => {
                    self.i += 1;
                    self.skip_token();
                }
                b'!' | b'?' => {
                    self.i += 1;
                    if matches!(self.peek(), Some(b'!' | b'?')) {
                        self.i += 1;
                    }
                }
                b')' | b'*' | b' ' | b'\t' | b'\r' | b'.' => self.i += 1,
                _ => self.san_token(),
            }
        }
    }

    /// After `0-0`: pgn-reader reads castling written with zeros.
    pub(super) fn castling_with_zeros(&mut self, start: usize) {
        let side = if self.eat_dash() && self.eat(b"0") {
            shakmaty::CastlingSide::QueenSide
        } else {
            shakmaty::CastlingSide::KingSide
        };
        let suffix = match self.peek() {
            Some(b'+') => Some(Suffix::Check),
            Some(b'#') => Some(Suffix::Checkmate),
            _ => None,
        };
        if suffix.is_some() {
            self.i += 1;
        }
        self.push_move(
            start,
            SanPlus {
                san: San::Castle(side),
                suffix,
            },
        );
    }

    pub(super) fn san_token(&mut self) {
        let start = self.i;
        let rest = self.s.get(start..).unwrap_or_default();
        let Ok((mut san, len)) = SanPlus::from_ascii_prefix(rest) else {
            self.i += 1;
            self.skip_token();
            return;
        };
        self.i = start + len;
        match self.peek() {
            None => {}
            Some(c) if is_token_end(c) => {}
            Some(_) => {
                // pgn-reader would drop a move glued to more text; read the move instead.
                let tail = self.s.get(self.i..).unwrap_or_default();
                if let Some((promoted, glued)) = glued_promotion(san, tail) {
                    self.inserts.push((self.i, b"="));
                    san = promoted;
                    self.i += glued;
                } else {
                    self.inserts.push((self.i, b" "));
                }
            }
        }
        self.push_move(start, san);
    }

    pub(super) fn push_move(&mut self, start: usize, san: SanPlus) {
        let text = self.s.get(start..self.i).unwrap_or_default();
        let line = self.line_at(start);
        self.moves.push(MoveToken {
            san,
            text: String::from_utf8_lossy(text).into_owned(),
            line,
        });
    }

    pub(super) fn skip_variation(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' => {
                    depth += 1;
                    self.i += 1;
                }
                b')' => match depth.checked_sub(1) {
                    Some(d) => {
                        depth = d;
                        self.i += 1;
                    }
                    None => break,
                },
                b'{' => {
                    self.i += 1;
                    self.skip_until(b'}');
                    self.i = (self.i + 1).min(self.s.len());
                }
                b';' => {
                    self.i += 1;
                    self.skip_until(b'\n');
                }
                b'\n' => self.newline(),
                _ => self.i += 1,
            }
        }
    }
}

/// A pawn move to the last rank followed directly by a promotion letter (`e8q`, `exd8Q`,
/// UCI's `e7e8q`): the move with that promotion, and how many bytes the letter (and a
/// check suffix) take.
pub(super) fn glued_promotion(san: SanPlus, tail: &[u8]) -> Option<(SanPlus, usize)> {
    let San::Normal {
        role: Role::Pawn,
        file,
        rank,
        capture,
        to,
        promotion: None,
    } = san.san
    else {
        return None;
    };
    if san.suffix.is_some() || !matches!(to.rank(), Rank::First | Rank::Eighth) {
        return None;
    }
    let promotion = match tail.first()?.to_ascii_lowercase() {
        b'q' => Role::Queen,
        b'r' => Role::Rook,
        b'b' => Role::Bishop,
        b'n' => Role::Knight,
        _ => return None,
    };
    let suffix = match tail.get(1) {
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Checkmate),
        _ => None,
    };
    let glued = 1 + usize::from(suffix.is_some());
    if tail.get(glued).is_some_and(|&c| !is_token_end(c)) {
        return None;
    }
    let san = San::Normal {
        role: Role::Pawn,
        file,
        rank,
        capture,
        to,
        promotion: Some(promotion),
    };
    Some((SanPlus { san, suffix }, glued))
}

/// Scans the movetext of a game's slice `s` (movetext from `body`, first line `line`).
pub(super) fn scan_movetext(s: &[u8], body: usize, line: u32) -> Scanned<'_> {
    let mut scanner = MovetextScanner {
        s,
        i: body,
        inserts: Vec::new(),
        moves: Vec::new(),
        unterminated_comment: None,
        line,
        counted: 0,
    };
    scanner.run();
    if scanner.inserts.is_empty() {
        return Scanned {
            reader_text: Cow::Borrowed(s),
            moves: scanner.moves,
            unterminated_comment: scanner.unterminated_comment,
        };
    }
    let extra: usize = scanner.inserts.iter().map(|(_, b)| b.len()).sum();
    let mut reader_text = Vec::with_capacity(s.len() + extra);
    let mut copied = 0;
    for &(at, bytes) in &scanner.inserts {
        reader_text.extend_from_slice(s.get(copied..at).unwrap_or_default());
        reader_text.extend_from_slice(bytes);
        copied = at;
    }
    reader_text.extend_from_slice(s.get(copied..).unwrap_or_default());
    Scanned {
        reader_text: Cow::Owned(reader_text),
        moves: scanner.moves,
        unterminated_comment: scanner.unterminated_comment,
    }
}
