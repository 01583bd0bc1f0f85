//! Clocks: `[%clk]` and `[%emt]` comments, the `TimeControl` tag and the time spent per
//! move.

use crate::game::{Game, Side};

/// Parses a PGN clock value like "1:02:03", "0:00:59.5", "12:34" into seconds.
pub fn parse_clock(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Some(seconds) = whole_clock(s.as_bytes()) {
        return Some(seconds);
    }
    if s.bytes().filter(|&b| b == b':').count() > 2 {
        return None;
    }
    let (whole, last) = match s.rsplit_once(':') {
        Some((whole, last)) => (Some(whole), last),
        None => (None, s),
    };
    let mut seconds = 0.0;
    for field in whole.into_iter().flat_map(|whole| whole.split(':')) {
        if !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        seconds = seconds * 60.0 + parse_seconds(field)?;
    }
    Some(seconds * 60.0 + parse_seconds(last)?)
}

/// A clock of up to three fields of digits only ("0:05:00"), the common case: the value
/// `parse_clock` computes, without its string searches.
fn whole_clock(s: &[u8]) -> Option<f64> {
    let mut fields = [0.0f64; 3];
    let mut count = 0;
    for field in s.split(|&b| b == b':') {
        if field.is_empty() || field.len() > 15 || !field.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = field
            .iter()
            .fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
        #[allow(clippy::cast_precision_loss)]
        let value = n as f64;
        *fields.get_mut(count)? = value;
        count += 1;
    }
    let (last, whole) = fields.get(..count)?.split_last()?;
    let seconds = whole.iter().fold(0.0, |seconds, &f| seconds * 60.0 + f);
    Some(seconds * 60.0 + last)
}

/// Parses a TimeControl tag ("300+3", "40/7200:3600", "-", "?") into (base seconds,
/// increment seconds) of the first period; None when unknown.
pub fn parse_time_control(tc: &str) -> Option<(f64, f64)> {
    // Periods are separated by ':'; a period is "[moves/]seconds[+increment]". Unknown
    // ("?"), untimed ("-") and sandclock ("*seconds") controls give no base to count from.
    let period = tc.trim().split(':').next()?.trim();
    let timed = match period.split_once('/') {
        Some((moves, timed)) if !moves.is_empty() && moves.bytes().all(|b| b.is_ascii_digit()) => {
            timed
        }
        Some(_) => return None,
        None => period,
    };
    match timed.split_once('+') {
        Some((base, increment)) => Some((parse_seconds(base)?, parse_seconds(increment)?)),
        None => Some((parse_seconds(timed)?, 0.0)),
    }
}

/// A non-negative decimal number of seconds ("59", "0.05"); no signs, exponents or "inf".
pub(super) fn parse_seconds(s: &str) -> Option<f64> {
    // Whole numbers of up to 15 digits are exact in an f64: the value `parse` gives.
    if !s.is_empty() && s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit()) {
        let n = s.bytes().fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
        #[allow(clippy::cast_precision_loss)]
        return Some(n as f64);
    }
    let digits = s.bytes().filter(u8::is_ascii_digit).count();
    let dots = s.bytes().filter(|&b| b == b'.').count();
    if digits == 0 || dots > 1 || digits + dots != s.len() {
        return None;
    }
    s.parse().ok().filter(|v: &f64| v.is_finite())
}

/// Fills `time_spent` where `%emt` did not: the same side's previous clock (or the
/// `TimeControl` base before its first move) minus this clock, plus the increment.
pub(super) fn fill_time_spent(game: &mut Game) {
    let control = game.tag("TimeControl").and_then(parse_time_control);
    let base = control.map(|(base, _)| base);
    let increment = control.map_or(0.0, |(_, increment)| increment);
    let mut previous = [base, base];
    for ply in &mut game.plies {
        let side = usize::from(ply.side == Side::Black);
        let Some(before) = previous.get_mut(side) else {
            continue;
        };
        if ply.time_spent.is_none()
            && let (Some(before), Some(after)) = (*before, ply.clock)
        {
            ply.time_spent = Some((before - after + increment).max(0.0));
        }
        *before = ply.clock;
    }
}

/// A comment without its embedded commands (`[%clk …]`, `[%eval …]`, any `[%name …]`;
/// with `only`, just the `[%only …]` ones), whitespace collapsed: what a reader sees. The
/// page shows the clocks and evaluations on their own; the annotated PGN replaces the
/// original `[%eval]` with the analysis's.
pub fn strip_commands(comment: &str, only: Option<&str>) -> String {
    let mut rest = comment;
    let mut out = String::with_capacity(comment.len());
    while let Some(start) = rest.find("[%") {
        let Some(len) = rest[start..].find(']') else {
            break;
        };
        let name = &rest[start + 2..start + len];
        let strip = only.is_none_or(|n| {
            name.strip_prefix(n)
                .is_some_and(|args| args.is_empty() || args.starts_with(char::is_whitespace))
        });
        out.push_str(&rest[..if strip { start } else { start + len + 1 }]);
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The arguments of the first `[%clk ...]` and the first `[%emt ...]` of a comment: what
/// `command_arg` finds for each, in one pass.
pub(super) fn clock_commands(comment: &str) -> (Option<&str>, Option<&str>) {
    let bytes = comment.as_bytes();
    let (mut clk, mut emt) = (None, None);
    let mut from = 0;
    while let Some(at) = find_command(bytes, from) {
        from = at + 2;
        let Some(rest) = comment.get(from..) else {
            break;
        };
        let (slot, name) = match rest.as_bytes().first() {
            Some(b'c') => (&mut clk, "clk"),
            Some(b'e') => (&mut emt, "emt"),
            _ => continue,
        };
        if slot.is_none()
            && let Some(args) = rest.strip_prefix(name)
            && args.starts_with(char::is_whitespace)
        {
            let end = args.bytes().position(|b| b == b']').unwrap_or(args.len());
            *slot = args.get(..end).map(str::trim);
            if clk.is_some() && emt.is_some() {
                break;
            }
        }
    }
    (clk, emt)
}

/// The offset of the first `[%` from `from`: a search for `[` (most comments hold one,
/// before their command), faster than comparing every pair of bytes.
fn find_command(bytes: &[u8], from: usize) -> Option<usize> {
    let mut k = from;
    loop {
        let at = k + bytes.get(k..)?.iter().position(|&b| b == b'[')?;
        if bytes.get(at + 1) == Some(&b'%') {
            return Some(at);
        }
        k = at + 1;
    }
}

/// The argument of a `[%name arg]` command in a comment.
#[cfg(test)]
pub(super) fn command_arg<'c>(comment: &'c str, name: &str) -> Option<&'c str> {
    let bytes = comment.as_bytes();
    let mut from = 0;
    while let Some(at) = bytes.get(from..)?.windows(2).position(|w| w == b"[%") {
        from += at + 2;
        let rest = comment.get(from..)?;
        if let Some(args) = rest.strip_prefix(name)
            && args.starts_with(char::is_whitespace)
        {
            return args.split(']').next().map(str::trim);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_over_the_commands_finds_what_each_search_finds() {
        for comment in [
            "[%clk 0:01:00]",
            "[%eval 0.2] [%clk 0:00:59.5]",
            "[%emt 0:00:03.2] [%clk 0:04:59]",
            "x [%clkx 1] [%clk  2 ] y [%emt\t3] [%clk 4]",
            "[%clk",
            "[%clk 1:00",
            "[%[%clk 5] [%e] [%emt] [%emt 7",
            "clk 1 emt 2",
            "[%c\u{e9} 1] [%clk\u{a0}9]",
            "",
        ] {
            assert_eq!(
                clock_commands(comment),
                (command_arg(comment, "clk"), command_arg(comment, "emt")),
                "{comment}"
            );
        }
    }

    #[test]
    fn whole_clocks_are_what_the_general_parse_gives() {
        for clock in [
            "0:05:00",
            "1:02:03",
            "12:34",
            "7",
            "0",
            "999999999999999",
            "1:2:3",
            "00:00:01",
        ] {
            let general = {
                let (whole, last) = match clock.rsplit_once(':') {
                    Some((whole, last)) => (Some(whole), last),
                    None => (None, clock),
                };
                let mut seconds = 0.0;
                for field in whole.into_iter().flat_map(|whole| whole.split(':')) {
                    seconds = seconds * 60.0 + parse_seconds(field).expect("digits");
                }
                seconds * 60.0 + parse_seconds(last).expect("digits")
            };
            assert_eq!(whole_clock(clock.as_bytes()), Some(general), "{clock}");
        }
        for other in ["", ":", "1::2", "0:00:59.5", "1:2:3:4", "a", " 1"] {
            assert_eq!(whole_clock(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn comments_lose_their_commands_and_keep_their_words() {
        let c = "[%eval 0.10] [%clk 0:01:00]  good move [%emt 0:00:03]";
        assert_eq!(strip_commands(c, None), "good move");
        assert_eq!(
            strip_commands(c, Some("eval")),
            "[%clk 0:01:00] good move [%emt 0:00:03]"
        );
        // Only whole command names; text in brackets that is no command stays.
        assert_eq!(
            strip_commands("[%evaluation x] [note]", Some("eval")),
            "[%evaluation x] [note]"
        );
        assert_eq!(strip_commands("[%clk 0:00:45]", None), "");
        // An unclosed command is left as it is.
        assert_eq!(strip_commands("ok [%clk 0:0", None), "ok [%clk 0:0");
    }
}
