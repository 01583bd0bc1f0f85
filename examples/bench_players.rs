//! How much faster a view of a run in progress makes its players when Regan's fits of
//! the players whose games did not change are kept (`Stream::snapshot`): a report's games
//! added `COPIES` times to a stream under new player names, then three snapshots in one
//! run: the first (every fit made), the same again (none), and with 20 games in progress
//! (only their players'). The README's figures come from
//!
//!     fairsight corpus report --label human --split validation --json target/h-validation.json
//!     cargo run --release --example bench_players -- target/h-validation.json 4
use std::time::Instant;

use fairsight::{ModelOverrides, Report, Stream};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let report: Report = serde_json::from_slice(&std::fs::read(&args[1]).unwrap()).unwrap();
    let copies: usize = args[2].parse().unwrap();
    let mut stream = Stream::new(
        report.settings.clone(),
        report.engine.clone(),
        ModelOverrides::default(),
    );
    let mut n = 0;
    for c in 0..copies {
        for g in &report.games {
            let mut g = g.clone();
            g.sides.white.player = format!("{} {c}", g.sides.white.player);
            g.sides.black.player = format!("{} {c}", g.sides.black.player);
            g.index = n;
            n += 1;
            stream.push_report(g);
        }
    }
    let t = Instant::now();
    let snap = stream.snapshot(std::iter::empty());
    let cold = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let again = stream.snapshot(std::iter::empty());
    let warm = t.elapsed().as_secs_f64();
    assert!(again == snap, "a kept fit changed a summary");
    let mut more: Vec<_> = report.games.iter().take(20).cloned().collect();
    let t = Instant::now();
    let with = stream.snapshot(more.iter_mut());
    let during = t.elapsed().as_secs_f64();
    println!(
        "{n} games, {} players: first view {cold:.2} s; again {warm:.2} s ({:.0}x faster); \
         with 20 games in progress ({} players) {during:.2} s ({:.0}x faster)",
        snap.players.len(),
        cold / warm,
        with.players.len(),
        cold / during
    );
}
