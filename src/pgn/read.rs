//! Reading a game in one pass: its tags and movetext as pgn-reader 0.29 would read them
//! (its `read_game`, `read_tags`, `read_movetext` and `skip_variation`, with the two
//! relaxations below), every main-line move handed, with its line, straight to the
//! replay (`replay.rs`), and the game's end found on the way (`scan_game`: the
//! pre-scan's rules checked at each line start). A game the one pass does not vouch
//! for is cut by the pre-scan (`split.rs`) and read from its slice (`import_segment`).
//!
//! The relaxations: blank lines and `[` lines inside the movetext do not end the game
//! (the pre-scan's rules decide where it ends), and a move glued to an annotation
//! (`Nf3N`, `exd6e.p.`) is still read as a move (a glued promotion letter, `e8q`, as
//! `=Q`). Lines are counted as the scan goes, only up to the moves that need one.

use std::ops::Range;

use pgn_reader::{RawTag, SanPlus};
use shakmaty::san::{San, Suffix};

use crate::game::{Game, ImportError, ImportErrorKind};

use super::{
    movetext::{glued_promotion, is_token_end},
    replay::{PLIES_RESERVED, Replay, Spare},
    split::{Segment, next_segment, starts_with_first_move},
};

/// Imports the game in `segment`; `None` when there is no game in it (only blanks and
/// escaped lines).
pub(super) fn import_segment(
    text: &str,
    segment: &Segment,
    index: usize,
) -> Option<Result<Game, ImportError>> {
    let t = text.get(segment.start..segment.end)?;
    let s = t.as_bytes();
    let mut read = GameReader {
        t,
        s,
        i: 0,
        padded: s.last() == Some(&b'\n'),
        body: segment.body_start.saturating_sub(segment.start),
        line: segment.line,
        counted: 0,
        last_line: segment.line,
        scan: false,
        has_moves: false,
        blank_after: false,
        outcome_seen: false,
        stopped: None,
    };
    let error = |line: u32, tags: Vec<(String, String)>, kind: ImportErrorKind| {
        Some(Err(ImportError {
            index,
            line,
            tags,
            kind,
        }))
    };
    // Before the game: a byte-order mark, blanks and `%` lines.
    if s.starts_with(b"\xef\xbb\xbf") {
        read.i = 3;
    }
    read.skip_whitespace(true);
    if read.i >= s.len() {
        return None;
    }
    let tags = match read.tags() {
        Ok(tags) => tags,
        Err(reason) => {
            return error(
                segment.line,
                Vec::new(),
                ImportErrorKind::Syntax {
                    reason: reason.to_owned(),
                },
            );
        }
    };
    let mut replay = match Replay::new(tags, index, segment.line) {
        Ok(replay) => replay,
        Err((kind, tags)) => return error(segment.line, tags, kind),
    };
    // Room for the moves, from the game's length (given back at the end if unused).
    replay.game.plies.reserve(s.len() / 20);
    replay.seen.reserve(s.len() / 20);
    match read.movetext(&mut replay) {
        Ok(()) => Some(Ok(replay.finish())),
        Err((line, kind)) => error(line, std::mem::take(&mut replay.game.tags), kind),
    }
}

/// What [`next_game`] found from an offset of the text read so far.
pub(super) enum Next {
    /// A game (or the error that stopped it), the offset where the search for the next
    /// starts, and its line.
    Game(Result<Game, ImportError>, usize, u32),
    /// A stretch with no game in it (only blank and escaped lines) up to this offset
    /// and line.
    Skip(usize, u32),
    /// No game is left (the text ends).
    End,
    /// The game may go on past the text read so far: read more, then ask again.
    NeedMore,
}

/// The next game of `text` from offset `pos` (a line start, on line `line`); `eof` says
/// whether the text is all there is. One pass: [`scan_game`] reads the game and finds
/// its end as it goes; only a game it does not vouch for (see there) is cut by the
/// pre-scan and read from its slice.
pub(super) fn next_game(
    text: &str,
    pos: usize,
    line: u32,
    eof: bool,
    index: usize,
    spare: &mut Spare,
) -> Next {
    if let Some(next) = scan_game(text, pos, line, eof, index, spare) {
        return next;
    }
    let bytes = text.as_bytes();
    match next_segment(bytes, pos, line) {
        // A game ends before the text read so far does: the line that starts the next
        // one was read whole, so more text cannot change where it ends.
        Some(segment) if segment.end < bytes.len() || eof => {
            match import_segment(text, &segment, index) {
                Some(result) => Next::Game(result, segment.end, segment.end_line),
                None => Next::Skip(segment.end, segment.end_line),
            }
        }
        None if eof => Next::End,
        _ => Next::NeedMore,
    }
}

/// Reads the game from `pos` in one pass, finding where it ends as the pre-scan would
/// (a tag line after the movetext, or `1.` after a blank line after moves), without
/// the pre-scan. It vouches for games whose tag section is whole tag lines
/// (`[Name "value"]`, one a line, blank lines between them allowed) followed by
/// movetext starting a line, and that import without error, where both read the same
/// text alike; any other game (`None`) is left to the pre-scan and the slice reader,
/// and so is a game whose end would hang on whether a result token ended it.
fn scan_game(
    text: &str,
    pos: usize,
    mut line: u32,
    eof: bool,
    index: usize,
    spare: &mut Spare,
) -> Option<Next> {
    let bytes = text.as_bytes();
    // Blank lines before the game.
    let mut p = pos;
    loop {
        let mut j = p;
        while matches!(bytes.get(j), Some(b' ' | b'\t' | b'\r')) {
            j += 1;
        }
        match bytes.get(j) {
            None => return Some(if eof { Next::End } else { Next::NeedMore }),
            Some(b'\n') => {
                p = j + 1;
                line = line.saturating_add(1);
            }
            Some(_) if j == p => break,
            Some(_) => return None,
        }
    }
    let start = p;
    let start_line = line;
    let t = text.get(start..)?;
    let s = t.as_bytes();
    // The tag lines.
    let mut tags = Vec::with_capacity(20);
    let mut q = 0;
    let body = loop {
        match s.get(q) {
            Some(b'[') => {
                let (name, value, escaped, next) = clean_tag_line(s, q)?;
                // The ranges start and end at ASCII bytes of the text: whole characters.
                let value = match (escaped, t.get(value.clone())) {
                    (false, Some(value)) => value.to_owned(),
                    _ => RawTag(s.get(value)?).decode_utf8_lossy().into_owned(),
                };
                tags.push((t.get(name)?.to_owned(), value));
                q = next;
            }
            None => break q,
            Some(&c) if !(0x20..0x80).contains(&c) || c == b'%' => return None,
            Some(_) if q == 0 => return None,
            Some(_) => break q,
        }
        // Blank lines after a tag line.
        loop {
            let mut j = q;
            while matches!(s.get(j), Some(b' ' | b'\t' | b'\r')) {
                j += 1;
            }
            match s.get(j) {
                Some(b'\n') => q = j + 1,
                None => {
                    q = j;
                    break;
                }
                Some(_) if j == q => break,
                Some(_) => return None,
            }
        }
    };
    let mut replay = Replay::new(tags, index, start_line).ok()?;
    replay.game.plies = std::mem::take(&mut spare.plies);
    replay.game.plies.reserve(PLIES_RESERVED);
    replay.seen = std::mem::take(&mut spare.seen);
    replay.seen.reserve(PLIES_RESERVED);
    let mut read = GameReader {
        t,
        s,
        i: body,
        padded: false,
        body,
        line: start_line,
        counted: 0,
        last_line: start_line,
        scan: true,
        has_moves: false,
        blank_after: false,
        outcome_seen: false,
        stopped: None,
    };
    read.movetext(&mut replay).ok()?;
    let end = match read.stopped {
        Some(Stopped::Fallback) => return None,
        Some(Stopped::End(end)) => end,
        None if eof => s.len(),
        None => return Some(Next::NeedMore),
    };
    let end_line = read.line_at(end);
    Some(Next::Game(
        Ok(replay.finish_into(spare)),
        start + end,
        end_line,
    ))
}

/// The tag line at `q` when the pre-scan and pgn-reader read it alike: `[`, a name
/// starting with a letter, digit or `_`, a space, a quoted value (`\` escapes a
/// character other than a line break), an optional `]`, blanks, then the line break or
/// the end of the text. The ranges of the name and the value, whether the value has a
/// `\`, and the offset after the line.
fn clean_tag_line(s: &[u8], q: usize) -> Option<(Range<usize>, Range<usize>, bool, usize)> {
    let name_start = q + 1;
    if !s
        .get(name_start)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return None;
    }
    let rest = s.get(name_start..)?;
    let left_quote = name_start
        + rest
            .iter()
            .position(|&c| matches!(c, b'"' | b']' | b'\n'))?;
    if s.get(left_quote) != Some(&b'"') {
        return None;
    }
    // pgn-reader drops one space before the quote.
    let name_end = if s.get(left_quote - 1) == Some(&b' ') {
        left_quote - 1
    } else {
        left_quote
    };
    let mut k = left_quote + 1;
    let mut escaped = false;
    let right_quote = loop {
        match s.get(k)? {
            b'"' => break k,
            b'\n' => return None,
            b'\\' => {
                if matches!(s.get(k + 1), None | Some(b'\n')) {
                    return None;
                }
                escaped = true;
                k += 2;
            }
            _ => k += 1,
        }
    };
    let mut k = right_quote + 1;
    while matches!(s.get(k), Some(b' ' | b'\t' | b'\r')) {
        k += 1;
    }
    if s.get(k) == Some(&b']') {
        k += 1;
        while matches!(s.get(k), Some(b' ' | b'\t' | b'\r')) {
            k += 1;
        }
    }
    let next = match s.get(k) {
        None => k,
        Some(b'\n') => k + 1,
        Some(_) => return None,
    };
    Some((
        name_start..name_end,
        left_quote + 1..right_quote,
        escaped,
        next,
    ))
}

/// A game's slice being read.
struct GameReader<'s> {
    /// The slice, and its bytes.
    t: &'s str,
    s: &'s [u8],
    i: usize,
    /// Whether the slice ends with a line break: pgn-reader read it followed by blank
    /// lines, which only tags can reach into (an escaped `"` before the last `\n`).
    padded: bool,
    /// Where the pre-scan saw the movetext start: the relaxations apply from there (before
    /// it, in text pgn-reader takes for movetext after a line that is no tag, its rules
    /// hold as they are).
    body: usize,
    /// Line counting: `line` is the line of offset `counted`.
    line: u32,
    counted: usize,
    /// Line of the last move read after `body` (the game's line before the first).
    last_line: u32,
    /// One-pass mode ([`scan_game`]): the slice runs to the end of the text read so far,
    /// and the game's end is found while reading it, by the pre-scan's rules checked at
    /// each line start outside comments.
    scan: bool,
    /// The pre-scan's state: whether the movetext had anything besides comments, and
    /// whether a blank line followed the last line that had.
    has_moves: bool,
    blank_after: bool,
    /// Whether the reader saw a result in the main line (the pre-scan's `ended` implies
    /// it; it does not imply `ended`, so a decision that needs `ended` falls back).
    outcome_seen: bool,
    /// Why one-pass reading stopped early.
    stopped: Option<Stopped>,
}

/// Why one-pass reading stopped before the end of the slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// The game ends at this offset (the start of the next game's first line).
    End(usize),
    /// The text is one the one-pass reader does not vouch for: the two steps read it.
    Fallback,
}

/// Why the reading stopped: the line and the error.
type Stop = (u32, ImportErrorKind);

impl GameReader<'_> {
    fn line_at(&mut self, offset: usize) -> u32 {
        if let Some(between) = self.s.get(self.counted..offset) {
            let newlines = between.iter().filter(|&&c| c == b'\n').count();
            self.line = self
                .line
                .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            self.counted = offset;
        }
        self.line
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, bytes: &[u8]) -> bool {
        let found = self
            .s
            .get(self.i..)
            .is_some_and(|rest| rest.starts_with(bytes));
        if found {
            self.i += bytes.len();
        }
        found
    }

    fn eat_dash(&mut self) -> bool {
        self.eat(b"-") || self.eat("\u{2013}".as_bytes()) || self.eat("\u{2014}".as_bytes())
    }

    fn skip_digits_and_dots(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        while matches!(self.peek(), Some(b'.' | b' ')) {
            self.i += 1;
        }
    }

    /// The offset of the next `needle` from `from`, if any.
    fn find(&self, from: usize, needle: u8) -> Option<usize> {
        self.s
            .get(from..)
            .and_then(|rest| rest.iter().position(|&c| c == needle))
            .map(|k| from + k)
    }

    /// Moves to the next `needle` (not consumed), or to the end.
    fn skip_until(&mut self, needle: u8) {
        self.i = self.find(self.i, needle).unwrap_or(self.s.len());
    }

    /// The offset of the next token end from `from`, if any.
    fn token_end(&self, from: usize) -> Option<usize> {
        self.s
            .get(from..)
            .and_then(|rest| rest.iter().position(|&c| is_token_end(c)))
            .map(|k| from + k)
    }

    fn skip_token(&mut self) {
        self.i = self.token_end(self.i).unwrap_or(self.s.len());
    }

    /// pgn-reader's `skip_whitespace`: blanks, line breaks and `%` lines.
    fn skip_whitespace(&mut self, mut is_new_line: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    is_new_line = true;
                    self.i += 1;
                }
                b'%' if is_new_line => {
                    self.i = self.find(self.i + 1, b'\n').map_or(self.s.len(), |k| k + 1);
                }
                _ => return,
            }
        }
    }

    /// pgn-reader's `skip_ket`: the rest of a tag line.
    fn skip_ket(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return self.skip_whitespace(false);
                }
                b'\n' => {
                    self.i += 1;
                    return self.skip_whitespace(true);
                }
                _ => return,
            }
        }
    }

    /// The byte at `k` of what pgn-reader read: the slice, then blank lines when padded.
    fn padded_byte(&self, k: usize) -> Option<u8> {
        match self.s.get(k) {
            Some(&c) => Some(c),
            None if self.padded => Some(if k - self.s.len() < 3 { b'\n' } else { b' ' }),
            None => None,
        }
    }

    /// The offset of the first of `needles` from `from` in what pgn-reader read.
    fn find_padded(&self, from: usize, needles: &[u8]) -> Option<usize> {
        let mut k = from;
        while let Some(c) = self.padded_byte(k) {
            if needles.contains(&c) {
                return Some(k);
            }
            k += 1;
        }
        None
    }

    /// pgn-reader's `read_tags`.
    fn tags(&mut self) -> Result<Vec<(String, String)>, &'static str> {
        let mut tags = Vec::new();
        while self.peek() == Some(b'[') {
            let name_start = self.i + 1;
            let left_quote = match self.find_padded(name_start, b"\"\n]") {
                Some(k) if self.s.get(k) == Some(&b'"') => k,
                Some(k) => {
                    self.i = k + 1;
                    self.skip_ket();
                    continue;
                }
                None => return Err("unterminated tag"),
            };
            let name_end = if left_quote > name_start && self.s.get(left_quote - 1) == Some(&b' ') {
                left_quote - 1
            } else {
                left_quote
            };
            let value_start = left_quote + 1;
            let mut right_quote = value_start;
            let consumed = loop {
                match self.find_padded(right_quote, b"\\\"\n") {
                    Some(k) if self.padded_byte(k) == Some(b'"') => {
                        right_quote = k;
                        break k + 1;
                    }
                    Some(k) if self.padded_byte(k) == Some(b'\n') => {
                        right_quote = k;
                        break k;
                    }
                    // An escaped character is skipped.
                    Some(k) => right_quote = k + 2,
                    None => return Err("unterminated tag"),
                }
            };
            let name = self.s.get(name_start..name_end).unwrap_or_default();
            // (The slice ends with a line break when padded, so the value ends in it.)
            let value = self
                .s
                .get(value_start..right_quote.min(self.s.len()))
                .unwrap_or_default();
            tags.push((
                String::from_utf8_lossy(name).into_owned(),
                RawTag(value).decode_utf8_lossy().into_owned(),
            ));
            self.i = consumed.min(self.s.len());
            self.skip_ket();
        }
        Ok(tags)
    }

    /// pgn-reader's `read_movetext`, relaxed: to the end of the slice.
    fn movetext(&mut self, replay: &mut Replay) -> Result<(), Stop> {
        while let Some(c) = self.peek() {
            if !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'{' | b';') {
                self.has_moves = true;
                self.blank_after = false;
            }
            match c {
                b'{' => {
                    let open = self.i;
                    let Some(close) = self.find(open + 1, b'}') else {
                        let line = if open < self.body {
                            self.line
                        } else {
                            self.line_at(open)
                        };
                        return Err((
                            line,
                            ImportErrorKind::Syntax {
                                reason: "unterminated comment".to_owned(),
                            },
                        ));
                    };
                    // Braces are ASCII, so the comment is whole characters.
                    replay.comment(self.t.get(open + 1..close).unwrap_or_default().trim());
                    self.i = close + 1;
                }
                b'\n' => {
                    if self.ends_movetext() {
                        return Ok(());
                    }
                    self.outcome_seen = replay.game.outcome.is_some();
                    if self.scan && self.game_ends_after_newline() {
                        return Ok(());
                    }
                    self.newline();
                }
                b';' => {
                    self.i += 1;
                    self.skip_until(b'\n');
                }
                b'0' => {
                    let start = self.i;
                    self.i += 1;
                    if self.eat_dash() {
                        if self.eat(b"1") {
                            replay.game.outcome = Some("0-1".to_owned());
                        } else if self.eat(b"0") {
                            self.castling_with_zeros(start, replay)?;
                        }
                    }
                }
                b'1' => {
                    self.i += 1;
                    if self.eat_dash() {
                        if self.eat(b"0") {
                            replay.game.outcome = Some("1-0".to_owned());
                        }
                    } else if self.eat(b"/2") && self.eat_dash() && self.eat(b"1/2") {
                        replay.game.outcome = Some("1/2-1/2".to_owned());
                    } else {
                        self.skip_digits_and_dots();
                    }
                }
                0xc2 => {
                    self.i += 1;
                    if self.eat(b"\xbd") && self.eat_dash() && self.eat("\u{bd}".as_bytes()) {
                        replay.game.outcome = Some("1/2-1/2".to_owned());
                    }
                }
                b'2'..=b'9' => {
                    self.i += 1;
                    self.skip_digits_and_dots();
                }
                b'(' => {
                    self.i += 1;
                    self.outcome_seen = replay.game.outcome.is_some();
                    self.skip_variation();
                    if self.stopped.is_some() {
                        return Ok(());
                    }
                }
                b'$' => {
                    self.i += 1;
                    // Without a token end before the end of the text pgn-reader drops it.
                    match self.token_end(self.i) {
                        Some(end) => {
                            if let Some(nag) =
                                parse_nag(self.s.get(self.i..end).unwrap_or_default())
                            {
                                nag_to(replay, nag);
                            }
                            self.i = end;
                        }
                        None => self.i = self.s.len(),
                    }
                }
                b'!' | b'?' => {
                    self.i += 1;
                    let nag = match (c, self.peek()) {
                        (b'!', Some(b'!')) => 3,
                        (b'!', Some(b'?')) => 5,
                        (b'!', _) => 1,
                        (_, Some(b'!')) => 6,
                        (_, Some(b'?')) => 4,
                        _ => 2,
                    };
                    if matches!(self.peek(), Some(b'!' | b'?')) {
                        self.i += 1;
                    }
                    nag_to(replay, nag);
                }
                b'*' => {
                    self.i += 1;
                    replay.game.outcome = Some("*".to_owned());
                }
                b')' | b' ' | b'\t' | b'\r' | b'.' => self.i += 1,
                _ => self.san_token(replay)?,
            }
        }
        Ok(())
    }

    /// At a `\n` before `body`: whether pgn-reader's movetext ends there (at a blank line
    /// or a `[`).
    fn ends_movetext(&self) -> bool {
        self.i < self.body
            && match self.s.get(self.i + 1) {
                Some(b'[' | b'\n') => true,
                Some(b'\r') => self.s.get(self.i + 2) == Some(&b'\n'),
                _ => false,
            }
    }

    /// At a `\n`: an escaped line after it is skipped.
    fn newline(&mut self) {
        self.i += 1;
        if self.peek() == Some(b'%') {
            self.i += 1;
            self.skip_until(b'\n');
        }
    }

    /// After `0-0`: castling written with zeros.
    fn castling_with_zeros(&mut self, start: usize, replay: &mut Replay) -> Result<(), Stop> {
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
        let san = SanPlus {
            san: San::Castle(side),
            suffix,
        };
        self.play(start, san, replay)
    }

    fn san_token(&mut self, replay: &mut Replay) -> Result<(), Stop> {
        let start = self.i;
        let rest = self.s.get(start..).unwrap_or_default();
        let Ok((mut san, len)) = SanPlus::from_ascii_prefix(rest) else {
            self.i += 1;
            self.skip_token();
            return Ok(());
        };
        self.i = start + len;
        if self.peek().is_some_and(|c| !is_token_end(c)) {
            if start < self.body {
                // Before the movetext the pre-scan saw, pgn-reader's rule: dropped.
                return Ok(());
            }
            // pgn-reader would drop a move glued to more text; read the move instead.
            let tail = self.s.get(self.i..).unwrap_or_default();
            if let Some((promoted, glued)) = glued_promotion(san, tail) {
                san = promoted;
                self.i += glued;
            }
        }
        self.play(start, san, replay)
    }

    /// Plays the move whose token starts at `start` and ends here.
    fn play(&mut self, start: usize, san: SanPlus, replay: &mut Replay) -> Result<(), Stop> {
        if start < self.body {
            // Text pgn-reader read as movetext before the pre-scan's: as written by
            // shakmaty, on the line of the last move (the old import found no token there).
            let line = self.last_line;
            return replay
                .play(san, &san.to_string(), line)
                .map_err(|kind| (line, kind));
        }
        let line = self.line_at(start);
        self.last_line = line;
        // A token starts at an ASCII byte and ends before one (or at the end).
        let text = self.t.get(start..self.i).unwrap_or_default();
        replay.play(san, text, line).map_err(|kind| (line, kind))
    }

    /// pgn-reader's `skip_variation` (after the `(`).
    fn skip_variation(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' => {
                    depth += 1;
                    self.blank_after = false;
                    self.i += 1;
                }
                b')' => match depth.checked_sub(1) {
                    Some(d) => {
                        depth = d;
                        self.blank_after = false;
                        self.i += 1;
                    }
                    None => break,
                },
                b'{' => {
                    self.i = self.find(self.i + 1, b'}').map_or(self.s.len(), |k| k + 1);
                }
                b';' => {
                    self.i += 1;
                    self.skip_until(b'\n');
                }
                b'\n' => {
                    if self.ends_movetext() || (self.scan && self.game_ends_after_newline()) {
                        break;
                    }
                    self.newline();
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                _ => {
                    self.blank_after = false;
                    self.i += 1;
                }
            }
        }
    }

    /// One-pass mode, at a `\n` outside comments: the pre-scan's decision on the line
    /// after it (`split::next_segment`, with the movetext started and tags read). Returns
    /// whether reading stops here: the game ends after the `\n`, or the decision needs
    /// what this reader does not track and the two steps read the game instead.
    fn game_ends_after_newline(&mut self) -> bool {
        let k = self.i + 1;
        let s = self.s;
        // At the end of the text read so far: the caller reads on (and runs out).
        let Some(&first) = s.get(k) else {
            return false;
        };
        if first == b'%' {
            return false;
        }
        let mut j = k;
        while matches!(s.get(j), Some(b' ' | b'\t' | b'\r')) {
            j += 1;
        }
        // A tag line (as `split::tag_prefix_len` starts one) ends the game.
        if s.get(j) == Some(&b'[')
            && s.get(j + 1)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.stopped = Some(Stopped::End(k));
            return true;
        }
        // A blank line (as `trim_ascii` sees one).
        while matches!(s.get(j), Some(b' ' | b'\t' | b'\r' | b'\x0c')) {
            j += 1;
        }
        if matches!(s.get(j), None | Some(b'\n')) {
            self.blank_after |= self.has_moves;
            return false;
        }
        if !self.has_moves {
            return false;
        }
        let line = s.get(k..).unwrap_or_default();
        if self.blank_after && starts_with_first_move(line) {
            // `1.` is no comment: the line has moves, so a new game starts on it.
            self.stopped = Some(Stopped::End(k));
            return true;
        }
        if self.outcome_seen {
            // The pre-scan would ask whether a result token ended the game.
            self.stopped = Some(Stopped::Fallback);
            return true;
        }
        false
    }
}

/// A NAG's number (`btoi::btou::<u8>`, as pgn-reader parses it).
fn parse_nag(digits: &[u8]) -> Option<u8> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u8, |n, &c| {
        if !c.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(c - b'0')
    })
}

/// A NAG after the last move (none before the first; `$0` is no NAG).
fn nag_to(replay: &mut Replay, nag: u8) {
    if let Some(ply) = replay.game.plies.last_mut()
        && nag != 0
    {
        ply.nags.push(nag);
    }
}

/// Fuzz corpus inputs read differently from the old import (see the test).
#[cfg(test)]
const KNOWN_DIFFERENCES: usize = 20;

#[cfg(test)]
mod tests {
    use super::super::legacy;
    use super::*;

    /// The games of a text as the old three-pass import read them.
    fn legacy_import(text: &str) -> Vec<Result<Game, ImportError>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let bytes = text.as_bytes();
        let (mut pos, mut line, mut index) = (0, 1, 0);
        let mut games = Vec::new();
        while let Some(segment) = next_segment(bytes, pos, line) {
            pos = segment.end;
            line = segment.end_line;
            if let Some(result) = legacy::import_segment(bytes, &segment, index) {
                index += 1;
                games.push(result);
            }
        }
        games
    }

    /// The games of a text as the pre-scan and the slice reader read them (two steps).
    fn two_step_import(text: &str) -> Vec<Result<Game, ImportError>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (mut pos, mut line, mut index) = (0, 1, 0);
        let mut games = Vec::new();
        while let Some(segment) = next_segment(text.as_bytes(), pos, line) {
            pos = segment.end;
            line = segment.end_line;
            if let Some(result) = import_segment(text, &segment, index) {
                index += 1;
                games.push(result);
            }
        }
        games
    }

    /// How many games of a text the one-pass reader reads itself (the others fall back
    /// to the two steps).
    fn scanned(text: &str) -> usize {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (mut pos, mut line, mut index, mut n) = (0, 1, 0, 0);
        loop {
            if let Some(Next::Game(_, end, end_line)) =
                scan_game(text, pos, line, true, index, &mut Spare::default())
            {
                n += 1;
                (pos, line) = (end, end_line);
                index += 1;
                continue;
            }
            match next_game(text, pos, line, true, index, &mut Spare::default()) {
                Next::Game(_, end, end_line) => {
                    (pos, line) = (end, end_line);
                    index += 1;
                }
                Next::Skip(end, end_line) => (pos, line) = (end, end_line),
                Next::End | Next::NeedMore => return n,
            }
        }
    }

    #[test]
    fn the_one_pass_scan_gives_what_the_pre_scan_and_the_slice_reader_gave() {
        let mut inputs = files("tests/fixtures");
        inputs.extend(files("samples"));
        inputs.extend(shared_pgn_files());
        let (mut games, mut scanned_games) = (0, 0);
        for (name, bytes) in &inputs {
            let text = String::from_utf8_lossy(bytes);
            let new = crate::pgn::import(&text);
            assert_eq!(new, two_step_import(&text), "{name}");
            games += new.len();
            scanned_games += scanned(&text);
        }
        eprintln!("{scanned_games} of {games} games read in one pass");
        assert!(games > 300, "{games} games compared");
        // Most games are read in one pass (the others: games that fail, other readers'
        // test files, games with no move whose movetext starts with blanks).
        assert!(scanned_games * 10 > games * 8, "{scanned_games} of {games}");
        // Garbled inputs, with and without their last line break, and cut anywhere:
        // exactly the same games and errors.
        let corpus = files("fuzz/corpus/import");
        assert!(corpus.len() >= 500, "{}", corpus.len());
        for (name, bytes) in &corpus {
            let text = String::from_utf8_lossy(bytes);
            let cut = text.strip_suffix('\n').unwrap_or(&text);
            assert_eq!(crate::pgn::import(&text), two_step_import(&text), "{name}");
            assert_eq!(crate::pgn::import(cut), two_step_import(cut), "{name}");
        }
    }

    /// The shared data's PGN files (test files gathered from other readers, games
    /// played by people and engines) when they are beside the checkout.
    fn shared_pgn_files() -> Vec<(String, Vec<u8>)> {
        let mut inputs = Vec::new();
        let mut dirs =
            vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let small = entry.metadata().is_ok_and(|m| m.len() < 30_000_000);
                if path.is_dir() {
                    dirs.push(path);
                } else if small && path.extension().is_some_and(|e| e == "pgn") {
                    let bytes = std::fs::read(&path).expect("readable");
                    inputs.push((path.display().to_string(), bytes));
                }
            }
        }
        inputs.sort();
        inputs
    }

    /// Every file of a directory (none when it is absent).
    fn files(dir: &str) -> Vec<(String, Vec<u8>)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| {
                let bytes = std::fs::read(e.path()).expect("readable");
                (e.path().display().to_string(), bytes)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_one_pass_reader_gives_what_the_three_passes_gave() {
        let mut inputs = files("tests/fixtures");
        inputs.extend(files("samples"));
        inputs.extend(shared_pgn_files());
        let mut games = 0;
        for (name, bytes) in &inputs {
            let text = String::from_utf8_lossy(bytes);
            let new = crate::pgn::import(&text);
            assert_eq!(
                new,
                crate::pgn::Reader::new(text.as_bytes())
                    .map(|g| g.expect("read"))
                    .collect::<Vec<_>>(),
                "{name}"
            );
            assert_eq!(new, legacy_import(&text), "{name}");
            games += new.len();
        }
        assert!(games > 300, "{games} games compared");
        // The fuzz corpus: garbled inputs, with and without their last line break.
        let corpus = files("fuzz/corpus/import");
        assert!(
            corpus.len() >= 500,
            "the fuzz corpus: {} inputs",
            corpus.len()
        );
        let mut differ = Vec::new();
        for (name, bytes) in &corpus {
            let text = String::from_utf8_lossy(bytes);
            let cut = text.strip_suffix('\n').unwrap_or(&text);
            if crate::pgn::import(&text) != legacy_import(&text)
                || crate::pgn::import(cut) != legacy_import(cut)
            {
                differ.push(name.rsplit('/').next().unwrap_or(name).to_owned());
            }
        }
        eprintln!(
            "{} of {} corpus inputs differ: {differ:?}",
            differ.len(),
            corpus.len()
        );
        assert!(differ.len() <= KNOWN_DIFFERENCES, "{differ:?}");
    }
}
