//! Clocks: `[%clk]` and `[%emt]` comments, the `TimeControl` tag and the time spent per
//! move.

use crate::game::{Game, Side};

/// Parses a PGN clock value like "1:02:03", "0:00:59.5", "12:34" into seconds.
pub fn parse_clock(s: &str) -> Option<f64> {
    let s = s.trim();
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

/// The argument of a `[%name arg]` command in a comment.
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
