#!/usr/bin/env bash
# Installs everything, builds fairsight and analyses the built-in sample game.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install.sh
cargo build --release
mkdir -p out
./target/release/fairsight analyze samples/opera-1858.pgn \
  --json out/sample-report.json --pgn out/sample-annotated.pgn "$@"
echo "reports: out/sample-report.json, out/sample-annotated.pgn" >&2
