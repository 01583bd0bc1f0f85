#!/usr/bin/env bash
# Every text output of reports made by two builds of the CLI, compared byte for byte:
# the check that a restructuring changed no behaviour.
#
#   scripts/compare-outputs.sh OLD_BINARY NEW_BINARY [CACHE_DIR]
#
# Outputs: the JSON report rebuilt from the corpus's human sources (263 games, no
# engine), and `analyze` of the test fixtures and the sample in review, annotate and
# screening modes (JSON, annotated PGN, Crafty, Regan's log and results, the table),
# plus the assessment probabilities of the corpus report. Engine searches are cached in
# CACHE_DIR (default target/compare-cache), so the second binary searches nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 cache=${3:-target/compare-cache}
outputs() {
  local bin=$1 out=$2 c=(--cache "$cache" --jobs 1)
  mkdir -p "$out"
  "$bin" corpus report --source lichess-2025-05 --source twic-920 --json "$out/corpus.json" 2>/dev/null
  "$bin" analyze tests/fixtures/*.pgn samples/opera-1858.pgn "${c[@]}" \
    --json "$out/review.json" --pgn "$out/review.pgn" >"$out/review.table" 2>/dev/null || echo "rc=$?" >"$out/review.rc"
  "$bin" analyze samples/opera-1858.pgn tests/fixtures/rated.pgn --mode annotate "${c[@]}" \
    --json "$out/annotate.json" --pgn "$out/annotate.pgn" >"$out/annotate.table" 2>/dev/null
  "$bin" analyze tests/fixtures/rated.pgn --mode screening --depth 8 --slm-depth 9 --min-depth 5 "${c[@]}" \
    --json "$out/screen.json" --log "$out/screen.log" --results "$out/screen.results" >"$out/screen.table" 2>/dev/null
  "$bin" assess probabilities "$out/corpus.json" >"$out/assess.txt" 2>/dev/null
}
tmp=$(mktemp -d)
outputs "$old" "$tmp/old"
outputs "$new" "$tmp/new"
if diff -rq "$tmp/old" "$tmp/new"; then
  echo "identical: $(ls "$tmp/new" | wc -l) outputs, $(du -sh "$tmp/new" | cut -f1)"
  rm -rf "$tmp"
else
  echo "outputs differ: see $tmp" >&2
  exit 1
fi
