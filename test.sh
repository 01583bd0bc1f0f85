#!/usr/bin/env bash
# Installs everything and runs every test: formatting, lints (native and wasm), the fuzz
# targets (briefly, from their committed corpus), unit, doc, integration and corpus tests,
# the Slurm job array on a single-node cluster (scripts/slurm/test.sh), the wasm bindings
# in headless Chromium, and the page end to end (Playwright + Chromium + Stockfish in Web
# Workers).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install.sh
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --lib --tests --target wasm32-unknown-unknown --no-default-features -- -D warnings
scripts/build-web.sh
scripts/fuzz.sh
cargo test
scripts/slurm/test.sh
scripts/test-wasm.sh
node --test --test-concurrency=1 tests/browser/
