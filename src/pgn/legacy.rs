//! The import before the one-pass reader (`read.rs`), kept for the tests only: the
//! movetext scan that found each move's line, then pgn-reader reading the game's slice
//! again with the moves matched against the scan's tokens. The tests compare the two on
//! every fixture, sample and fuzz corpus input (`read.rs`'s tests): same games, same
//! errors.

use std::borrow::Cow;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::san::{San, Suffix};

use crate::game::{Game, ImportError, ImportErrorKind};

use super::{
    movetext::{glued_promotion, is_token_end},
    replay::Replay,
    split::Segment,
};

/// Imports the game in `segment` (the old way); `None` when pgn-reader finds no game in it.
pub(super) fn import_segment(
    text: &[u8],
    segment: &Segment,
    index: usize,
) -> Option<Result<Game, ImportError>> {
    let slice = text.get(segment.start..segment.end)?;
    let body = segment.body_start.saturating_sub(segment.start);
    let scanned = scan_movetext(slice, body, segment.line);
    let mut importer = Importer {
        index,
        line: segment.line,
        next_token: 0,
        last_line: segment.line,
        partial_comment: Vec::new(),
        moves: &scanned.moves,
        tags: Vec::new(),
    };
    // Buffers as large as the game keep every comment and tag in one piece.
    let text: &[u8] = &scanned.reader_text;
    let len = text.len();
    // pgn-reader asks for a window of that size before every token and, short of it,
    // moves what it holds to the front of its buffer: a copy of the rest of the game
    // per token. Blank lines and spaces after a text that ends its last line (outside a
    // comment) keep the window full: the movetext ends at the first blank line, as it
    // ends at the end of the text, and no search that starts in the text finds anything
    // else in them before the text's own last `\n`.
    let pad = scanned.unterminated_comment.is_none() && text.last() == Some(&b'\n');
    let blank_lines: &[u8] = if pad { b"\n\n\n" } else { b"" };
    let spaces = if pad { len.max(255) + 2 } else { 0 };
    let source = text
        .chain(blank_lines)
        .chain(io::repeat(b' ').take(u64::try_from(spaces).unwrap_or(0)));
    let mut reader = Reader::build(source)
        .set_supported_tag_line_length(len)
        .set_supported_comment_length(len)
        .finish();
    match reader.read_game(&mut importer) {
        Ok(output) => output,
        Err(err) => Some(Err(ImportError {
            index,
            line: scanned.unterminated_comment.unwrap_or(segment.line),
            tags: importer.tags,
            kind: ImportErrorKind::Syntax {
                reason: err.to_string(),
            },
        })),
    }
}

/// The pgn-reader visitor for one game.
pub(super) struct Importer<'m> {
    pub(super) index: usize,
    /// Line where the game starts.
    pub(super) line: u32,
    /// The main-line moves as the scan found them (for lines and the text as written).
    pub(super) moves: &'m [MoveToken],
    /// The tags, kept for an error reported after pgn-reader gave up.
    pub(super) tags: Vec<(String, String)>,
    /// Index of the next unmatched scan token.
    pub(super) next_token: usize,
    /// Line of the last located move (the game's line before the first).
    pub(super) last_line: u32,
    pub(super) partial_comment: Vec<u8>,
}

/// How far ahead the scan's moves are searched when they disagree with pgn-reader's.
pub(super) const TOKEN_RESYNC_WINDOW: usize = 8;

impl<'m> Importer<'m> {
    /// The text and line of pgn-reader's next move, from the scan's tokens.
    pub(super) fn locate(&mut self, san: SanPlus) -> (Cow<'m, str>, u32) {
        let window = self
            .moves
            .iter()
            .enumerate()
            .skip(self.next_token)
            .take(TOKEN_RESYNC_WINDOW);
        for (k, token) in window {
            if token.san == san {
                self.next_token = k + 1;
                self.last_line = token.line;
                return (Cow::Borrowed(token.text.as_str()), token.line);
            }
        }
        (Cow::Owned(san.to_string()), self.last_line)
    }
}

impl Visitor for Importer<'_> {
    type Tags = Vec<(String, String)>;
    type Movetext = Replay;
    type Output = Result<Game, ImportError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        self.tags.clone_from(&tags);
        match Replay::new(tags, self.index, self.line) {
            Ok(mut replay) => {
                replay.game.plies.reserve(self.moves.len());
                replay.seen.reserve(self.moves.len());
                ControlFlow::Continue(replay)
            }
            Err((kind, _)) => ControlFlow::Break(Err(ImportError {
                index: self.index,
                line: self.line,
                tags: std::mem::take(&mut self.tags),
                kind,
            })),
        }
    }

    fn san(&mut self, replay: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        let (text, line) = self.locate(san);
        match replay.play(san, &text, line) {
            Ok(()) => ControlFlow::Continue(()),
            Err(kind) => ControlFlow::Break(Err(ImportError {
                index: self.index,
                line,
                tags: std::mem::take(&mut replay.game.tags),
                kind,
            })),
        }
    }

    fn nag(&mut self, replay: &mut Self::Movetext, nag: Nag) -> ControlFlow<Self::Output> {
        if let Some(ply) = replay.game.plies.last_mut()
            && nag.0 != 0
        {
            ply.nags.push(nag.0);
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        _replay: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        self.partial_comment.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        replay: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        if self.partial_comment.is_empty() {
            replay.comment(String::from_utf8_lossy(comment.as_bytes()).trim());
        } else {
            let mut bytes = std::mem::take(&mut self.partial_comment);
            bytes.extend_from_slice(comment.as_bytes());
            replay.comment(String::from_utf8_lossy(&bytes).trim());
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        replay: &mut Self::Movetext,
        outcome: Outcome,
    ) -> ControlFlow<Self::Output> {
        replay.game.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, replay: Self::Movetext) -> Self::Output {
        Ok(replay.finish())
    }
}

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
