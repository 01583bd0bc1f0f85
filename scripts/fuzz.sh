#!/usr/bin/env bash
# Builds the PGN fuzz target and runs it briefly (FUZZ_SECONDS, default 20), seeded with
# our fixtures. cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain
# (the only one this machine has) accept them.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
mkdir -p fuzz/corpus/import
RUSTC_BOOTSTRAP=1 cargo fuzz run import fuzz/corpus/import tests/fixtures samples -- \
  -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=4096 2>&1 | tail -n 3
