//! Times the shipped move classifier on a real report, side by side in one run: the tree
//! walk of the file's nodes the classifier used before (kept here as the reference) and
//! smartcore's trees on an ndarray matrix of each game's candidate moves (what
//! `Classifier::classify_game` does now, natively and in wasm). Both include building the
//! moves' features; the probabilities must agree bit for bit.
//!
//!     fairsight corpus report --source tcec --source lichess-2025-05 --limit 20 --json r.json
//!     cargo run --release --example bench_classifier -- r.json
//!
//! See `models/README.md` ("Format").

use std::{hint::black_box, process::ExitCode, time::Instant};

use fairsight::{
    Classifier, Report,
    fit::{FEATURE_NAMES, Model, Node, move_vector},
};

fn walk(trees: &[Vec<Node>], x: &[f64]) -> f64 {
    let votes: f64 = trees
        .iter()
        .map(|nodes| {
            let mut n = nodes[0];
            while n[0] >= 0.0 {
                let next = if x[n[0] as usize] <= n[1] { n[2] } else { n[3] };
                n = nodes[next as usize];
            }
            n[1]
        })
        .sum();
    votes / trees.len() as f64
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bench_classifier REPORT.json");
        return ExitCode::from(2);
    };
    let report = match std::fs::read_to_string(&path).map(|s| Report::from_json(&s)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            eprintln!("{path}: not a report: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = include_str!("../models/move-classifier.json");
    let t = Instant::now();
    let fresh = Classifier::from_json(text).expect("the shipped model reads");
    let parse = t.elapsed();
    let Model::Forest { trees, .. } = &fresh.model else {
        eprintln!("the shipped model is not a forest");
        return ExitCode::FAILURE;
    };
    let t = Instant::now();
    // The first probability builds smartcore's trees from the nodes.
    black_box(fresh.probability(&vec![0.0; fresh.features.len()]));
    let convert = t.elapsed();
    let c = &fresh;
    let columns: Vec<usize> = c
        .features
        .iter()
        .map(|f| FEATURE_NAMES.iter().position(|n| n == f).unwrap())
        .collect();

    let before = |out: &mut Vec<Option<f64>>| {
        for g in &report.games {
            for i in 0..g.plies.len() {
                out.push(move_vector(&g.plies, i, g.variant, None).map(|v| {
                    let x: Vec<f64> = columns.iter().map(|&k| v.values[k]).collect();
                    walk(trees, &x)
                }));
            }
        }
    };
    let after = |out: &mut Vec<Option<f64>>| {
        for g in &report.games {
            let mut plies = g.plies.clone();
            c.classify_game(&mut plies, g.variant);
            out.extend(plies.iter().map(|p| p.engine_probability));
        }
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    before(&mut a);
    after(&mut b);
    let same = a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x.map(f64::to_bits) == y.map(f64::to_bits));
    let moves = a.iter().flatten().count();
    if !same || moves == 0 {
        eprintln!("the probabilities differ (or no candidate moves: {moves})");
        return ExitCode::FAILURE;
    }
    // Interleaved rounds, the best of each (the machine is shared).
    let (mut tb, mut ta) = (f64::MAX, f64::MAX);
    for _ in 0..15 {
        let mut out = Vec::new();
        let t = Instant::now();
        before(&mut out);
        tb = tb.min(t.elapsed().as_secs_f64());
        black_box(&out);
        let mut out = Vec::new();
        let t = Instant::now();
        after(&mut out);
        ta = ta.min(t.elapsed().as_secs_f64());
        black_box(&out);
    }
    println!(
        "{} games, {} plies, {moves} candidate moves; identical probabilities",
        report.games.len(),
        a.len()
    );
    println!(
        "tree walk (before): {:.2} ms; smartcore on ndarray (now): {:.2} ms; now / before = {:.2}",
        tb * 1e3,
        ta * 1e3,
        ta / tb
    );
    println!(
        "model load: parse {:.1} ms, smartcore trees built on first use {:.1} ms",
        parse.as_secs_f64() * 1e3,
        convert.as_secs_f64() * 1e3
    );
    ExitCode::SUCCESS
}
