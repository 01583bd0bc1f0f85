//! The UCI protocol as values: engine output lines and GUI commands, parsed and printed.
//!
//! Pure: no transport. [`EngineLine`] parses what an engine prints; [`Command`] prints what
//! we send. Both round-trip through `FromStr`/`Display` for the fields we use (fuzzed:
//! `fuzz/fuzz_targets/uci.rs`). (A private module: [`EngineLine`], [`Info`], [`Score`],
//! [`Bound`] and [`Limit`] are re-exported at the crate root; its example is the first
//! test below.)

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// An engine score, from the point of view stated by its context (raw UCI: side to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: getting mated). `Mate(0)`: the side is mated.
    Mate(i32),
}

impl Score {
    /// The same score from the other side's point of view (saturating: an engine may
    /// print any `i32`, and `-i32::MIN` overflows).
    pub fn flip(self) -> Score {
        match self {
            Score::Cp(cp) => Score::Cp(cp.saturating_neg()),
            Score::Mate(m) => Score::Mate(m.saturating_neg()),
        }
    }

    /// The score seen from `sign` (`+1` keeps it, `-1` flips it).
    pub fn with_sign(self, sign: i32) -> Score {
        if sign < 0 { self.flip() } else { self }
    }

    /// A total order key: mates beyond any cp, shorter mates better, being mated worst.
    pub fn order_key(self) -> i64 {
        const MATE: i64 = 1_000_000;
        match self {
            Score::Cp(cp) => i64::from(cp),
            Score::Mate(m) if m > 0 => MATE - i64::from(m),
            // Mate(0) means the side to move is mated: the worst possible value.
            Score::Mate(m) => -MATE - i64::from(m),
        }
    }

    /// Centipawns, with mates mapped to ±`mate_cp` (the usual convention for averages).
    pub fn to_cp(self, mate_cp: i32) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(m) if m > 0 => mate_cp,
            Score::Mate(_) => -mate_cp,
        }
    }

    /// Whether this is a mate score.
    pub fn is_mate(self) -> bool {
        matches!(self, Score::Mate(_))
    }
}

impl fmt::Display for Score {
    /// UCI form: `cp -13` or `mate 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// Whether a score is exact or only a bound (during aspiration windows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Bound {
    /// An exact score.
    #[default]
    Exact,
    /// `lowerbound`: the true score is at least this.
    Lower,
    /// `upperbound`: the true score is at most this.
    Upper,
}

/// One `info` line. Fields absent from the line are `None` / empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    /// Nominal depth.
    pub depth: Option<u32>,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// Line number (1-based) in MultiPV mode.
    pub multipv: Option<u32>,
    /// The score, from the side to move.
    pub score: Option<Score>,
    /// Whether the score is a bound.
    pub bound: Bound,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Milliseconds searched.
    pub time: Option<u64>,
    /// Hash fill in permille.
    pub hashfull: Option<u32>,
    /// Tablebase hits.
    pub tbhits: Option<u64>,
    /// The principal variation, UCI moves.
    pub pv: Vec<String>,
    /// The text after `string`, to the end of the line (`info string ...`).
    pub string: Option<String>,
}

/// A line printed by a UCI engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineLine {
    /// `id name ...`
    IdName(String),
    /// `id author ...`
    IdAuthor(String),
    /// `uciok`
    UciOk,
    /// `readyok`
    ReadyOk,
    /// `option name X type ...` (kept raw; we only need the name).
    Option {
        /// The option name.
        name: String,
        /// The rest after the name, verbatim.
        rest: String,
    },
    /// `info ...`
    Info(Info),
    /// `bestmove X [ponder Y]`; `None` for `(none)` / `0000` (no legal move).
    BestMove {
        /// The best move, UCI.
        best: Option<String>,
        /// The expected reply.
        ponder: Option<String>,
    },
    /// Anything else (banners, unknown commands): kept for logs, otherwise ignored.
    Other(String),
}

/// An engine line that claims a known form but is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseLineError {
    /// The offending line.
    pub line: String,
    /// What was wrong.
    pub reason: &'static str,
}

impl fmt::Display for ParseLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad engine line ({}): {}", self.reason, self.line)
    }
}

impl std::error::Error for ParseLineError {}

fn num<T: FromStr>(
    tokens: &mut std::str::SplitWhitespace<'_>,
    line: &str,
    reason: &'static str,
) -> Result<T, ParseLineError> {
    tokens
        .next()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| ParseLineError {
            line: line.to_owned(),
            reason,
        })
}

/// Keywords that may follow the `pv` moves on the same line (some engines put them after).
const INFO_KEYWORDS: &[&str] = &[
    "depth",
    "seldepth",
    "multipv",
    "score",
    "nodes",
    "nps",
    "time",
    "hashfull",
    "tbhits",
    "currmove",
    "currmovenumber",
    "cpuload",
    "refutation",
    "currline",
    "sbhits",
    "wdl",
    "string",
];

/// The text of `whole` after `part`, one of its subslices (a token of `split_whitespace`).
fn after<'a>(whole: &'a str, part: &str) -> &'a str {
    let end = part.as_ptr() as usize - whole.as_ptr() as usize + part.len();
    &whole[end..]
}

fn parse_info(line: &str, rest: &str) -> Result<Info, ParseLineError> {
    let mut info = Info::default();
    let mut t = rest.split_whitespace();
    while let Some(key) = t.next() {
        match key {
            "depth" => info.depth = Some(num(&mut t, line, "depth")?),
            "seldepth" => info.seldepth = Some(num(&mut t, line, "seldepth")?),
            "multipv" => info.multipv = Some(num(&mut t, line, "multipv")?),
            "nodes" => info.nodes = Some(num(&mut t, line, "nodes")?),
            "nps" => info.nps = Some(num(&mut t, line, "nps")?),
            "time" => info.time = Some(num(&mut t, line, "time")?),
            "hashfull" => info.hashfull = Some(num(&mut t, line, "hashfull")?),
            "tbhits" => info.tbhits = Some(num(&mut t, line, "tbhits")?),
            "currmovenumber" | "cpuload" | "sbhits" => {
                let _: u64 = num(&mut t, line, "counter")?;
            }
            "currmove" => {
                t.next();
            }
            "wdl" => {
                for _ in 0..3 {
                    let _: u64 = num(&mut t, line, "wdl")?;
                }
            }
            "score" => {
                let kind = t.next();
                let value: i32 = num(&mut t, line, "score value")?;
                info.score = Some(match kind {
                    Some("cp") => Score::Cp(value),
                    Some("mate") => Score::Mate(value),
                    _ => {
                        return Err(ParseLineError {
                            line: line.to_owned(),
                            reason: "score kind",
                        });
                    }
                });
            }
            "lowerbound" => info.bound = Bound::Lower,
            "upperbound" => info.bound = Bound::Upper,
            "string" => {
                info.string = Some(after(rest, key).trim().to_owned());
                break;
            }
            "pv" => {
                // The PV runs to the end of the line or to the next keyword.
                let mut pv = Vec::new();
                let mut rest_tokens = t.clone();
                while let Some(m) = rest_tokens.next() {
                    if INFO_KEYWORDS.contains(&m) {
                        break;
                    }
                    pv.push(m.to_owned());
                    t = rest_tokens.clone();
                }
                info.pv = pv;
            }
            "refutation" | "currline" => {
                // Rarely used, variable-length: ignore the rest of the line.
                break;
            }
            _ => {} // Unknown tokens are skipped, as the UCI spec asks.
        }
    }
    Ok(info)
}

impl FromStr for EngineLine {
    type Err = ParseLineError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let line = s.trim();
        let (head, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim_start();
        Ok(match head {
            "uciok" => EngineLine::UciOk,
            "readyok" => EngineLine::ReadyOk,
            "id" => match rest.split_once(char::is_whitespace) {
                Some(("name", v)) => EngineLine::IdName(v.trim().to_owned()),
                Some(("author", v)) => EngineLine::IdAuthor(v.trim().to_owned()),
                _ => EngineLine::Other(line.to_owned()),
            },
            "option" => {
                let body = match rest.split_once(char::is_whitespace) {
                    Some(("name", body)) => body,
                    None if rest == "name" => "",
                    _ => rest,
                };
                let (name, rest) = match body.find(" type ") {
                    Some(i) => (&body[..i], body[i + 1..].to_owned()),
                    None => (body, String::new()),
                };
                EngineLine::Option {
                    name: name.trim().to_owned(),
                    rest,
                }
            }
            "info" => EngineLine::Info(parse_info(line, rest)?),
            "bestmove" => {
                let mut t = rest.split_whitespace();
                let best = t.next().ok_or(ParseLineError {
                    line: line.to_owned(),
                    reason: "bestmove without a move",
                })?;
                let best = match best {
                    "(none)" | "0000" => None,
                    m => Some(m.to_owned()),
                };
                let ponder = match (t.next(), t.next()) {
                    (Some("ponder"), Some(p)) => Some(p.to_owned()),
                    _ => None,
                };
                EngineLine::BestMove { best, ponder }
            }
            _ => EngineLine::Other(line.to_owned()),
        })
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(v) = self.depth {
            write!(f, " depth {v}")?;
        }
        if let Some(v) = self.seldepth {
            write!(f, " seldepth {v}")?;
        }
        if let Some(v) = self.multipv {
            write!(f, " multipv {v}")?;
        }
        if let Some(v) = self.score {
            write!(f, " score {v}")?;
        }
        match self.bound {
            Bound::Exact => {}
            Bound::Lower => f.write_str(" lowerbound")?,
            Bound::Upper => f.write_str(" upperbound")?,
        }
        if let Some(v) = self.nodes {
            write!(f, " nodes {v}")?;
        }
        if let Some(v) = self.nps {
            write!(f, " nps {v}")?;
        }
        if let Some(v) = self.hashfull {
            write!(f, " hashfull {v}")?;
        }
        if let Some(v) = self.tbhits {
            write!(f, " tbhits {v}")?;
        }
        if let Some(v) = self.time {
            write!(f, " time {v}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        // Last: its text runs to the end of the line.
        if let Some(s) = &self.string {
            write!(f, " string {s}")?;
        }
        Ok(())
    }
}

impl fmt::Display for EngineLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineLine::IdName(n) => write!(f, "id name {n}"),
            EngineLine::IdAuthor(a) => write!(f, "id author {a}"),
            EngineLine::UciOk => f.write_str("uciok"),
            EngineLine::ReadyOk => f.write_str("readyok"),
            EngineLine::Option { name, rest } if rest.is_empty() => write!(f, "option name {name}"),
            EngineLine::Option { name, rest } => write!(f, "option name {name} {rest}"),
            EngineLine::Info(info) => info.fmt(f),
            EngineLine::BestMove { best, ponder } => {
                write!(f, "bestmove {}", best.as_deref().unwrap_or("(none)"))?;
                if let Some(p) = ponder {
                    write!(f, " ponder {p}")?;
                }
                Ok(())
            }
            EngineLine::Other(s) => f.write_str(s),
        }
    }
}

/// A search limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Limit {
    /// `go depth N`
    Depth(u32),
    /// `go nodes N`
    Nodes(u64),
}

/// A command sent to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`
    Uci,
    /// `isready`
    IsReady,
    /// `setoption name N value V`
    SetOption {
        /// Option name.
        name: String,
        /// Option value.
        value: String,
    },
    /// `ucinewgame`
    UciNewGame,
    /// `position startpos|fen F [moves ...]`
    Position {
        /// `None` for `startpos`.
        fen: Option<String>,
        /// Moves played from it, UCI.
        moves: Vec<String>,
    },
    /// `go depth|nodes N [nodes CAP] [searchmoves ...]`
    Go {
        /// The limit.
        limit: Limit,
        /// With a depth limit, a node cap too (`go depth D nodes CAP`: whichever comes
        /// first). Single-threaded search stops at a node count deterministically.
        max_nodes: Option<u64>,
        /// Restrict the search to these moves (empty: all).
        searchmoves: Vec<String>,
    },
    /// `stop`
    Stop,
    /// `quit`
    Quit,
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => f.write_str("uci"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::UciNewGame => f.write_str("ucinewgame"),
            Command::Position { fen, moves } => {
                match fen {
                    None => f.write_str("position startpos")?,
                    Some(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.join(" "))?;
                }
                Ok(())
            }
            Command::Go {
                limit,
                max_nodes,
                searchmoves,
            } => {
                match limit {
                    Limit::Depth(d) => write!(f, "go depth {d}")?,
                    Limit::Nodes(n) => write!(f, "go nodes {n}")?,
                }
                if let (Limit::Depth(_), Some(cap)) = (limit, max_nodes) {
                    write!(f, " nodes {cap}")?;
                }
                if !searchmoves.is_empty() {
                    write!(f, " searchmoves {}", searchmoves.join(" "))?;
                }
                Ok(())
            }
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

/// A command line that we could not read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCommandError(pub String);

impl fmt::Display for ParseCommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad uci command: {}", self.0)
    }
}

impl std::error::Error for ParseCommandError {}

impl FromStr for Command {
    type Err = ParseCommandError;

    /// Parses the commands we print (used by recorded transcripts and tests).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseCommandError(s.to_owned());
        let s = s.trim();
        let (head, rest) = s.split_once(' ').unwrap_or((s, ""));
        Ok(match head {
            "uci" => Command::Uci,
            "isready" => Command::IsReady,
            "ucinewgame" => Command::UciNewGame,
            "stop" => Command::Stop,
            "quit" => Command::Quit,
            "setoption" => {
                let body = rest.strip_prefix("name ").ok_or_else(bad)?;
                let (name, value) = body.split_once(" value ").ok_or_else(bad)?;
                Command::SetOption {
                    name: name.to_owned(),
                    value: value.to_owned(),
                }
            }
            "position" => {
                let (pos, moves) = match rest.split_once(" moves ") {
                    Some((p, m)) => (p, m.split_whitespace().map(str::to_owned).collect()),
                    None => (rest.strip_suffix(" moves").unwrap_or(rest), Vec::new()),
                };
                let fen = if pos == "startpos" {
                    None
                } else {
                    Some(pos.strip_prefix("fen ").ok_or_else(bad)?.to_owned())
                };
                Command::Position { fen, moves }
            }
            "go" => {
                let mut t = rest.split_whitespace();
                let limit = match (t.next(), t.next()) {
                    (Some("depth"), Some(n)) => Limit::Depth(n.parse().map_err(|_| bad())?),
                    (Some("nodes"), Some(n)) => Limit::Nodes(n.parse().map_err(|_| bad())?),
                    _ => return Err(bad()),
                };
                let mut next = t.next();
                let mut max_nodes = None;
                if let (Limit::Depth(_), Some("nodes")) = (limit, next) {
                    max_nodes = Some(t.next().ok_or_else(bad)?.parse().map_err(|_| bad())?);
                    next = t.next();
                }
                let searchmoves = match next {
                    Some("searchmoves") => t.map(str::to_owned).collect(),
                    None => Vec::new(),
                    Some(_) => return Err(bad()),
                };
                Command::Go {
                    limit,
                    max_nodes,
                    searchmoves,
                }
            }
            _ => return Err(bad()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_example() {
        let line: EngineLine = "info depth 3 multipv 1 score cp -13 nodes 1328 pv e7e5 g1f3"
            .parse()
            .unwrap();
        let EngineLine::Info(info) = line else {
            panic!()
        };
        assert_eq!(info.score, Some(Score::Cp(-13)));
        assert_eq!(info.pv, ["e7e5", "g1f3"]);
    }

    fn info(s: &str) -> Info {
        match s.parse::<EngineLine>() {
            Ok(EngineLine::Info(i)) => i,
            other => panic!("not info: {other:?}"),
        }
    }

    #[test]
    fn parses_stockfish_info() {
        let i = info(
            "info depth 10 seldepth 17 multipv 1 score cp -33 nodes 29808 nps 134270 hashfull 9 time 222 pv e7e5 g1f3 b8c6",
        );
        assert_eq!(i.depth, Some(10));
        assert_eq!(i.seldepth, Some(17));
        assert_eq!(i.multipv, Some(1));
        assert_eq!(i.score, Some(Score::Cp(-33)));
        assert_eq!(i.bound, Bound::Exact);
        assert_eq!(i.nodes, Some(29808));
        assert_eq!(i.nps, Some(134270));
        assert_eq!(i.hashfull, Some(9));
        assert_eq!(i.time, Some(222));
        assert_eq!(i.pv, ["e7e5", "g1f3", "b8c6"]);
    }

    #[test]
    fn parses_mate_bounds_wdl_and_strings() {
        let i = info("info depth 20 score mate -3 upperbound wdl 0 0 1000 nodes 5 pv a1a2");
        assert_eq!(i.score, Some(Score::Mate(-3)));
        assert_eq!(i.bound, Bound::Upper);
        assert_eq!(i.nodes, Some(5));
        assert_eq!(i.pv, ["a1a2"]);
        let i = info("info depth 5 score cp 10 lowerbound");
        assert_eq!(i.bound, Bound::Lower);
        let i = info("info string NNUE evaluation using nn-61e7af4bb97d.nnue");
        assert_eq!(
            i.string.as_deref(),
            Some("NNUE evaluation using nn-61e7af4bb97d.nnue")
        );
        let i = info("info depth 0 score mate 0");
        assert_eq!(i.score, Some(Score::Mate(0)));
        let i = info("info depth 3 currmove e2e4 currmovenumber 1");
        assert_eq!(i.depth, Some(3));
        assert!(i.pv.is_empty());
    }

    #[test]
    fn pv_stops_at_a_following_keyword() {
        let i = info("info depth 2 pv e2e4 e7e5 nodes 100");
        assert_eq!(i.pv, ["e2e4", "e7e5"]);
        assert_eq!(i.nodes, Some(100));
    }

    #[test]
    fn malformed_lines_are_errors() {
        assert!("info depth x".parse::<EngineLine>().is_err());
        assert!("info score cp".parse::<EngineLine>().is_err());
        assert!("info score foo 3".parse::<EngineLine>().is_err());
        assert!("bestmove".parse::<EngineLine>().is_err());
    }

    #[test]
    fn parses_other_lines() {
        assert_eq!("uciok".parse(), Ok(EngineLine::UciOk));
        assert_eq!(" readyok \r".parse(), Ok(EngineLine::ReadyOk));
        assert_eq!(
            "id name Stockfish 17".parse(),
            Ok(EngineLine::IdName("Stockfish 17".into()))
        );
        assert_eq!(
            "bestmove e2e4 ponder e7e5".parse(),
            Ok(EngineLine::BestMove {
                best: Some("e2e4".into()),
                ponder: Some("e7e5".into())
            })
        );
        assert_eq!(
            "bestmove (none)".parse(),
            Ok(EngineLine::BestMove {
                best: None,
                ponder: None
            })
        );
        match "option name MultiPV type spin default 1 min 1 max 256".parse() {
            Ok(EngineLine::Option { name, .. }) => assert_eq!(name, "MultiPV"),
            other => panic!("{other:?}"),
        }
        match "option name Clear Hash type button".parse() {
            Ok(EngineLine::Option { name, .. }) => assert_eq!(name, "Clear Hash"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            "Stockfish 19 by the Stockfish developers".parse(),
            Ok(EngineLine::Other(
                "Stockfish 19 by the Stockfish developers".into()
            ))
        );
    }

    #[test]
    fn engine_lines_round_trip() {
        for s in [
            "info depth 10 seldepth 17 multipv 1 score cp -33 nodes 29808 nps 134270 hashfull 9 time 222 pv e7e5 g1f3",
            "info depth 20 score mate -3 upperbound nodes 5 pv a1a2",
            "info depth 4 score cp 7 lowerbound",
            "info string hello world",
            // Found by fuzzing: a string after other fields kept only the string, a
            // bound without a score was lost.
            "info depth 2 string NNUE evaluation using nn-ad9b42354671.nnue enabled",
            "info lowerbound",
            "uciok",
            "option name ",
            "readyok",
            "id name Stockfish 19",
            "id author the Stockfish developers",
            "option name MultiPV type spin default 1 min 1 max 256",
            "bestmove e2e4 ponder e7e5",
            "bestmove e2e4",
            "bestmove (none)",
        ] {
            let parsed: EngineLine = s.parse().unwrap();
            assert_eq!(parsed.to_string(), s);
            assert_eq!(parsed.to_string().parse::<EngineLine>().unwrap(), parsed);
        }
    }

    #[test]
    fn any_score_flips_without_overflow() {
        assert_eq!(Score::Mate(i32::MIN).flip(), Score::Mate(i32::MAX));
        assert_eq!(Score::Cp(i32::MIN).flip(), Score::Cp(i32::MAX));
        assert_eq!(Score::Cp(-13).flip(), Score::Cp(13));
    }

    #[test]
    fn a_string_is_the_text_after_its_own_token() {
        // Found by fuzzing: the text was taken after the first "string" anywhere.
        let i = info("info pv a1a2 nodestring 3 string hi there");
        assert_eq!(i.string.as_deref(), Some("hi there"));
        assert_eq!(i.pv, ["a1a2", "nodestring", "3"]);
    }

    #[test]
    fn commands_round_trip() {
        let cmds = [
            Command::Uci,
            Command::IsReady,
            Command::UciNewGame,
            Command::Stop,
            Command::Quit,
            Command::SetOption {
                name: "Clear Hash".into(),
                value: "true".into(),
            },
            Command::SetOption {
                name: "MultiPV".into(),
                value: "4".into(),
            },
            Command::Position {
                fen: None,
                moves: vec![],
            },
            Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()],
            },
            Command::Position {
                fen: Some("8/8/8/8/8/8/k7/K7 w - - 0 1".into()),
                moves: vec!["a1b1".into()],
            },
            Command::Go {
                limit: Limit::Depth(12),
                max_nodes: None,
                searchmoves: vec![],
            },
            Command::Go {
                limit: Limit::Nodes(100000),
                max_nodes: None,
                searchmoves: vec!["g1f3".into()],
            },
            Command::Go {
                limit: Limit::Depth(14),
                max_nodes: Some(4_000_000),
                searchmoves: vec![],
            },
            Command::Go {
                limit: Limit::Depth(14),
                max_nodes: Some(9),
                searchmoves: vec!["e2e4".into(), "d2d4".into()],
            },
        ];
        for c in cmds {
            let s = c.to_string();
            assert_eq!(s.parse::<Command>(), Ok(c), "{s}");
        }
        assert_eq!(
            Command::Go {
                limit: Limit::Depth(3),
                max_nodes: Some(500),
                searchmoves: vec!["e2e4".into()]
            }
            .to_string(),
            "go depth 3 nodes 500 searchmoves e2e4"
        );
        assert!("go depth 3 nodes".parse::<Command>().is_err());
        assert!("go depth 3 nodes x".parse::<Command>().is_err());
        assert!("go".parse::<Command>().is_err());
        assert!("position fen".parse::<Command>().is_err());
    }

    #[test]
    fn score_order_and_flip() {
        let mut v = [
            Score::Cp(30),
            Score::Mate(-2),
            Score::Mate(3),
            Score::Cp(-500),
            Score::Mate(1),
            Score::Mate(0),
        ];
        v.sort_by_key(|s| std::cmp::Reverse(s.order_key()));
        assert_eq!(
            v,
            [
                Score::Mate(1),
                Score::Mate(3),
                Score::Cp(30),
                Score::Cp(-500),
                Score::Mate(-2),
                Score::Mate(0)
            ]
        );
        assert_eq!(Score::Mate(3).flip(), Score::Mate(-3));
        assert_eq!(Score::Cp(3).with_sign(-1), Score::Cp(-3));
        assert_eq!(Score::Mate(-1).to_cp(1000), -1000);
    }
}
