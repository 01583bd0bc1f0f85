//! Import from a [`Read`](std::io::Read) (a file, stdin): the text is read in blocks and
//! each game imported as it is read (its end found on the way), so only the game being
//! read is held, whatever the size of the input: a game that runs past the text read so
//! far is read again once the next block is in. The games are those [`super::import`]
//! finds in the whole text decoded lossily (Latin-1 files are common).

use std::io::{self, Read};

use crate::game::{Game, ImportError};

use super::read::{Next, next_game};
use super::replay::Spare;

/// Bytes asked of the source at a time.
const BLOCK: usize = 1 << 20;

/// The games of a PGN source, in order, each read when asked for: see [`Reader::new`].
#[derive(Debug)]
pub struct Reader<R> {
    source: R,
    /// Whole lines read and not yet imported (from a line start), decoded.
    text: String,
    /// Bytes read after the last `\n`.
    partial: Vec<u8>,
    /// Where the source's bytes are read to.
    block: Vec<u8>,
    /// Offset in `text` where the next game's search starts.
    pos: usize,
    /// 1-based line of `pos` in the input.
    line: u32,
    /// Index of the next game.
    index: usize,
    /// Room kept from one game to the next.
    spare: Spare,
    /// Whether the source is exhausted (all of it is in `text`).
    eof: bool,
    /// Whether the first bytes were read (a byte-order mark is dropped there).
    started: bool,
}

impl<R: Read> Reader<R> {
    /// Reads games from `source`; each `next` reads as much as the next game needs.
    ///
    /// ```
    /// let pgn = "[White \"Alice\"]\n\n1. e4 e5 *\n\n[White \"Bob\"]\n\n1. d4 *\n";
    /// let games: Vec<_> = fairsight::pgn::Reader::new(pgn.as_bytes())
    ///     .collect::<std::io::Result<_>>()
    ///     .expect("no read error");
    /// assert_eq!(games, fairsight::pgn::import(pgn));
    /// ```
    pub fn new(source: R) -> Reader<R> {
        Reader {
            source,
            text: String::new(),
            partial: Vec::new(),
            block: Vec::new(),
            pos: 0,
            line: 1,
            index: 0,
            spare: Spare::default(),
            eof: false,
            started: false,
        }
    }

    /// Reads the next block, moving its whole lines (all of it at the end) to `text`.
    fn fill(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            self.block = vec![0; BLOCK];
        }
        let n = loop {
            match self.source.read(&mut self.block) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.partial
            .extend_from_slice(self.block.get(..n).unwrap_or_default());
        self.eof = n == 0;
        // Lines are decoded whole: no UTF-8 sequence spans a `\n`, so decoding line by
        // line replaces exactly what decoding the whole text would.
        let whole = if self.eof {
            self.partial.len()
        } else {
            match self.partial.iter().rposition(|&c| c == b'\n') {
                Some(k) => k + 1,
                None => return Ok(()),
            }
        };
        let lines = self.partial.get(..whole).unwrap_or_default();
        // Valid UTF-8 is checked a word at a time; only a text with invalid bytes is
        // decoded lossily (character by character).
        let lossy;
        let mut decoded = match std::str::from_utf8(lines) {
            Ok(decoded) => decoded,
            Err(_) => {
                lossy = String::from_utf8_lossy(lines);
                &*lossy
            }
        };
        if !self.started {
            self.started = true;
            decoded = decoded.strip_prefix('\u{feff}').unwrap_or(decoded);
        }
        self.text.push_str(decoded);
        self.partial.drain(..whole);
        Ok(())
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = io::Result<Result<Game, ImportError>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match next_game(
                &self.text,
                self.pos,
                self.line,
                self.eof,
                self.index,
                &mut self.spare,
            ) {
                Next::Game(result, pos, line) => {
                    (self.pos, self.line) = (pos, line);
                    self.index += 1;
                    return Some(Ok(result));
                }
                Next::Skip(pos, line) => (self.pos, self.line) = (pos, line),
                Next::End => return None,
                Next::NeedMore => {
                    self.text.drain(..self.pos);
                    self.pos = 0;
                    if let Err(e) = self.fill() {
                        return Some(Err(e));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives at most `step` bytes a read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn read_all(bytes: &[u8], step: usize) -> Vec<Result<Game, ImportError>> {
        Reader::new(Trickle { bytes, step })
            .collect::<io::Result<_>>()
            .expect("no read error")
    }

    #[test]
    fn any_split_of_the_input_gives_the_games_of_the_whole_text() {
        // Games with and without tags and blank lines, CRLF, comments spanning lines, a
        // failed game, a byte-order mark, a Latin-1 byte and a multi-byte character.
        let mut text =
            b"\xef\xbb\xbf{ preamble\n[Event \"no\"] }\n[Event \"A\"]\r\n[White \"Ren\xe9\"]\r\n\
            1. e4 { a\n\n[Event \"fake\"]\nnote } e5 2. Nf3 1-0\r\n\
            [Event \"B\"]\n\n1. d4 d5 0-1\n1. c4 { caf\xc3\xa9 } *\n\n1. e4 e4 *\n\n\
            [Event \"C\"]\n\n1. Nf3 Nf6"
                .to_vec();
        let whole = crate::pgn::import(&String::from_utf8_lossy(&text));
        assert_eq!(whole.len(), 5, "{whole:?}");
        assert!(whole[3].is_err());
        for step in [1, 2, 3, 7, 64, BLOCK] {
            assert_eq!(read_all(&text, step), whole, "{step} bytes a read");
        }
        // Ending with a newline changes nothing.
        text.push(b'\n');
        assert_eq!(read_all(&text, 5), whole);
        assert!(read_all(b"", 1).is_empty());
        assert!(read_all(b"\n\n{ only a comment }\n", 3).is_empty());
    }

    #[test]
    fn games_read_in_one_pass_come_whole_from_any_split() {
        // Games the one-pass reader reads itself (whole tag lines, movetext from a line
        // start), one ending at the end of the text without a line break, one with a
        // comment over several lines and a variation, and a blank line inside the
        // movetext before a move number other than `1.`.
        let text = "[Event \"A\"]\n[White \"x \\\"y\\\"\"]\n\n1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] }\n\
            2. Nf3 { a\n[Event \"no\"]\n} (2. d4 d5\n3. c4) Nc6 1-0\n\n\n\
            [Event \"B\"]\r\n\r\n1. d4 d5\r\n\r\n2. c4 *\r\n\
            [Event \"C\"]\n\n1. e4 c5 2. Nf3 0-1";
        let whole = crate::pgn::import(text);
        assert_eq!(whole.len(), 3, "{whole:?}");
        let plies: Vec<usize> = whole
            .iter()
            .map(|g| g.as_ref().expect("legal").plies.len())
            .collect();
        assert_eq!(plies, [4, 3, 3]);
        assert_eq!(whole[2].as_ref().expect("legal").line, 16);
        for step in [1, 2, 5, 17, 100, BLOCK] {
            assert_eq!(
                read_all(text.as_bytes(), step),
                whole,
                "{step} bytes a read"
            );
        }
    }

    #[test]
    fn a_read_error_is_handed_on() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut r = Reader::new(Broken);
        let err = r.next().expect("an item").expect_err("the error");
        assert_eq!(err.to_string(), "disk on fire");
    }
}
