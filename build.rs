//! Marks which of the tests' outside requirements are missing, so that the tests needing
//! one are ignored with the reason (`cargo test` counts and lists them as ignored)
//! instead of passing without running. Under CI (the `CI` variable set) nothing is
//! marked: a missing requirement fails its tests with a clear message. Only the tests
//! read these cfgs (`#[cfg_attr(no_node_stockfish, ignore = "...")]`).
//!
//! Also deflates the shipped move classifier (`models/move-classifier.json`, 1.0 MB of
//! JSON) into `OUT_DIR`, where `Classifier::builtin` embeds it: a fifth of the size in the
//! CLI and the page's wasm; and the quick screen's assessment
//! (`models/quick-assessment.json`, 5.3 MB, forests of its unrated variants), which the
//! CLI embeds.

use std::{env, fs, path::Path};

/// The shipped models built in deflated, and the names of their copies in `OUT_DIR`.
const DEFLATED: &[(&str, &str)] = &[
    (
        "models/move-classifier.json",
        "move-classifier.json.deflate",
    ),
    (
        "models/quick-assessment.json",
        "quick-assessment.json.deflate",
    ),
];

/// The cfg set when the path is missing.
const REQUIREMENTS: &[(&str, &str)] = &[
    // The default engine under node (`npm ci`).
    (
        "no_node_stockfish",
        "node_modules/stockfish/bin/stockfish-19-lite-single.js",
    ),
    // Debian's Stockfish, a second engine (`apt-get install stockfish`).
    ("no_debian_stockfish", "/usr/games/stockfish"),
    // The shared data beside the checkout.
    ("no_shared_test_pgns", "../shared/data/test-pgns"),
    ("no_shared_openings", "../shared/data/openings"),
];

fn main() {
    for (model, deflated) in DEFLATED {
        println!("cargo::rerun-if-changed={model}");
        // A missing model embeds nothing (`Classifier::builtin` is then `None`, the quick
        // assessment an error).
        let json = fs::read(model).unwrap_or_default();
        let out = Path::new(&env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join(deflated);
        fs::write(&out, miniz_oxide::deflate::compress_to_vec(&json, 10))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    }

    println!("cargo::rerun-if-env-changed=CI");
    let ci = env::var_os("CI").is_some();
    for (cfg, path) in REQUIREMENTS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo::rerun-if-changed={path}");
        if !ci && !Path::new(path).exists() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
