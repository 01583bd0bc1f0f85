//! Step 1 of import: the pre-scan that cuts a PGN text into games.

use super::movetext::is_token_end;

/// One game's slice of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Segment {
    /// Byte offset of the game's first line.
    pub(super) start: usize,
    /// Byte offset where the movetext starts (`end` when there is none).
    pub(super) body_start: usize,
    /// Byte offset just past the game (the start of the next game's first line).
    pub(super) end: usize,
    /// 1-based line of `start`.
    pub(super) line: u32,
    /// 1-based line of `end`.
    pub(super) end_line: u32,
}

/// What the pre-scan knows about the game it is reading.
#[derive(Debug, Default, Clone)]
pub(super) struct SegmentScan {
    /// Offset and line of the game's first line.
    pub(super) start: Option<(usize, u32)>,
    /// Offset of the first movetext byte (a comment counts).
    pub(super) body_start: Option<usize>,
    pub(super) has_tags: bool,
    /// Whether the movetext has anything besides comments.
    pub(super) has_moves: bool,
    /// Whether a result token stood in the main line (the game is over).
    pub(super) ended: bool,
    /// Whether a blank line followed the last line with moves.
    pub(super) blank_after_moves: bool,
    pub(super) in_brace: bool,
    /// Variation depth.
    pub(super) depth: usize,
}

impl SegmentScan {
    pub(super) fn mark_body(&mut self, line_start: usize, line: u32, at: usize, is_move: bool) {
        self.start.get_or_insert((line_start, line));
        self.body_start.get_or_insert(at);
        self.has_moves |= is_move;
    }

    /// Scans movetext bytes of one line (without its `\n`), tracking comments,
    /// variations and result tokens. Returns whether the line has anything besides
    /// comments.
    pub(super) fn scan_body(
        &mut self,
        text: &[u8],
        from: usize,
        line_start: usize,
        line: u32,
    ) -> bool {
        let mut moves = false;
        let mut k = from;
        while let Some(&c) = text.get(k) {
            let at = line_start + k;
            k += 1;
            if self.in_brace {
                self.in_brace = c != b'}';
                continue;
            }
            match c {
                b' ' | b'\t' | b'\r' => continue,
                b'{' => self.in_brace = true,
                b';' => {}
                b'(' => self.depth += 1,
                b')' => self.depth = self.depth.saturating_sub(1),
                b'*' => self.ended |= self.depth == 0,
                _ => {
                    let token_start = k - 1;
                    while text.get(k).is_some_and(|&c| !is_token_end(c)) {
                        k += 1;
                    }
                    let token = text.get(token_start..k).unwrap_or_default();
                    self.ended |= self.depth == 0 && is_result(token);
                }
            }
            let is_move = !matches!(c, b'{' | b';');
            moves |= is_move;
            self.mark_body(line_start, line, at, is_move);
            if c == b';' {
                break;
            }
        }
        moves
    }

    pub(super) fn into_segment(self, end: usize, end_line: u32) -> Option<Segment> {
        let (start, line) = self.start?;
        (self.has_tags || self.has_moves).then_some(Segment {
            start,
            body_start: self.body_start.unwrap_or(end),
            end,
            line,
            end_line,
        })
    }
}

/// Whether a movetext token is a game result.
pub(super) fn is_result(token: &[u8]) -> bool {
    if token.len() > 16 || !matches!(token.first(), Some(b'0' | b'1' | 0xc2)) {
        return false;
    }
    let token = String::from_utf8_lossy(token).replace(['\u{2013}', '\u{2014}'], "-");
    matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "\u{bd}-\u{bd}")
}

/// Whether a line starts with White's first move number (`1.` but not `1...`).
pub(super) fn starts_with_first_move(line: &[u8]) -> bool {
    let line = line.trim_ascii_start();
    line.starts_with(b"1.") && line.get(2) != Some(&b'.')
}

/// Finds the next game from byte offset `pos` (at a line start, on line `line`).
///
/// A game ends where a tag line follows its movetext, where movetext follows its result
/// token on a later line, or where a blank line and then `1.` follow its moves (games
/// without tags, as pgn-reader would split them). Comments that stand before a game's
/// tags with no moves (a file's preamble) belong to no game and are dropped.
pub(super) fn next_segment(text: &[u8], mut pos: usize, mut line: u32) -> Option<Segment> {
    let mut scan = SegmentScan::default();
    while let Some(rest) = text.get(pos..).filter(|rest| !rest.is_empty()) {
        let len = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        let content = rest.get(..len).unwrap_or(rest);
        let mut scan_from = Some(0);
        if !scan.in_brace {
            // pgn-reader skips `%` escape lines; before the movetext it also allows
            // leading whitespace.
            let escape = if scan.body_start.is_none() {
                content.trim_ascii_start().first() == Some(&b'%')
            } else {
                content.first() == Some(&b'%')
            };
            if escape {
                scan_from = None;
            } else if let Some(tags_len) = tag_prefix_len(content) {
                if scan.body_start.is_some() {
                    if scan.has_tags || scan.has_moves {
                        return scan.into_segment(pos, line);
                    }
                    scan = SegmentScan::default();
                }
                scan.start.get_or_insert((pos, line));
                scan.has_tags = true;
                scan_from = Some(tags_len);
            } else if content.trim_ascii().is_empty() {
                scan.blank_after_moves |= scan.has_moves;
            } else if scan.has_moves
                && (scan.ended || (scan.blank_after_moves && starts_with_first_move(content)))
            {
                let mut probe = scan.clone();
                if probe.scan_body(content, 0, pos, line) {
                    return scan.into_segment(pos, line);
                }
                scan = probe;
                scan_from = None;
            }
        }
        if let Some(from) = scan_from
            && scan.scan_body(content, from, pos, line)
        {
            scan.blank_after_moves = false;
        }
        pos = pos.saturating_add(len + 1);
        line = line.saturating_add(1);
    }
    let end = text.len();
    scan.into_segment(end, line)
}

/// If the line starts with one or more tags (`[Name "value"]`, or pgn-reader's lenient
/// `[Name ...]`), the length of that prefix; the rest of the line is movetext.
pub(super) fn tag_prefix_len(line: &[u8]) -> Option<usize> {
    let mut i = skip_blanks(line, 0);
    let mut found = false;
    while line.get(i) == Some(&b'[')
        && line
            .get(i + 1)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        found = true;
        i += 1;
        let rest = line.get(i..).unwrap_or_default();
        match rest.iter().position(|&c| c == b'"' || c == b']') {
            None => return Some(line.len()),
            Some(k) if rest.get(k) == Some(&b']') => i += k + 1,
            Some(k) => {
                i += k + 1;
                loop {
                    match line.get(i) {
                        None => return Some(line.len()),
                        Some(b'\\') => i += 2,
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                i = skip_blanks(line, i);
                if line.get(i) == Some(&b']') {
                    i += 1;
                }
            }
        }
        i = skip_blanks(line, i);
    }
    found.then_some(i.min(line.len()))
}

pub(super) fn skip_blanks(line: &[u8], mut i: usize) -> usize {
    while matches!(line.get(i), Some(b' ' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}
