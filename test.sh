#!/usr/bin/env bash
# Installs everything and runs every test: formatting, lints, the wasm build of the core,
# the fuzz target (briefly), unit, doc, integration and corpus tests.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install.sh
scripts/fuzz.sh
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo build --lib --target wasm32-unknown-unknown --no-default-features
cargo test
