#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/fuzz_targets/): import (PGN), uci (engine lines and a
# session mid-search), book (Polyglot books and position sets), with debug assertions
# (integer overflow is a crash).
#
#   scripts/fuzz.sh          CI's short run: FUZZ_SECONDS (default 21) shared among the
#                            targets, each starting from its committed corpus
#                            (fuzz/corpus/TARGET/) and seeds; what it finds goes to
#                            target/fuzz-new/ and is not kept.
#   scripts/fuzz.sh --long   The long run: 10 minutes (FUZZ_SECONDS=600) shared among the
#                            targets, writing into fuzz/corpus/TARGET/, then each corpus
#                            minimised (libFuzzer's -set_cover_merge: the fewest inputs
#                            with every feature); commit fuzz/corpus/ after it.
#
# A crash stops the run with the failing input in fuzz/artifacts/TARGET/. cargo-fuzz
# needs nightly flags; RUSTC_BOOTSTRAP lets the stable toolchain (the only one this
# machine has) accept them.
set -euo pipefail
cd "$(dirname "$0")/.."

long=0
if [[ "${1:-}" == "--long" ]]; then
  long=1
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/fuzz.sh [--long]" >&2
  exit 2
fi
targets=(import uci book)
total="${FUZZ_SECONDS:-$((long ? 600 : 21))}"
each=$((total / ${#targets[@]}))

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
export RUSTC_BOOTSTRAP=1
cargo fuzz build --debug-assertions

seeds() {
  case "$1" in
    import) echo tests/fixtures samples ;;
    *) echo "fuzz/seeds/$1" ;;
  esac
}

for t in "${targets[@]}"; do
  corpus="fuzz/corpus/$t"
  mkdir -p "$corpus"
  if ((long)); then
    dirs=("$corpus")
  else
    dirs=("target/fuzz-new/$t" "$corpus")
    rm -rf "${dirs[0]}"
    mkdir -p "${dirs[0]}"
  fi
  dict=()
  if [[ -f "fuzz/dicts/$t.dict" ]]; then dict=(-dict="fuzz/dicts/$t.dict"); fi
  # The first folder gets what the run finds.
  # shellcheck disable=SC2046 # the seed folders are words
  cargo fuzz run --debug-assertions "$t" "${dirs[@]}" $(seeds "$t") -- \
    -max_total_time="$each" -rss_limit_mb=4096 -print_final_stats=1 "${dict[@]}" \
    >"target/fuzz-$t.log" 2>&1 || {
    tail -n 40 "target/fuzz-$t.log"
    exit 1
  }
  stats=$(grep -E '^Done|^stat::number_of_executed_units|^stat::peak_rss_mb' "target/fuzz-$t.log" | tr '\n' ' ')
  cov=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "target/fuzz-$t.log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  if ((long)); then
    # Minimise: the fewest inputs with every feature the corpus reaches.
    rm -rf "$corpus.old"
    mv "$corpus" "$corpus.old"
    mkdir "$corpus"
    cargo fuzz run --debug-assertions "$t" "$corpus" "$corpus.old" -- -set_cover_merge=1 \
      >"target/fuzz-$t-merge.log" 2>&1
    rm -rf "$corpus.old"
  fi
  echo "fuzz $t: ${each}s, $cov, corpus $(find "$corpus" -type f | wc -l) files; $stats"
done
