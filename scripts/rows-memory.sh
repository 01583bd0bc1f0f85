#!/usr/bin/env bash
# Peak memory and wall time of one `fairsight assess rows` (every scored side of a corpus
# folder rebuilt from its records, written as CSV: what `assess fit`, `folds`,
# `thresholds` and `eval` read first) by two builds, one after the other in one run, and
# their ratios; the two CSVs must be the same byte for byte. For a change to how `assess`
# reads the corpus (session 71: the manifest's games rebuilt 250 at a time instead of
# every stored record at once).
#
#   scripts/rows-memory.sh OLD_BINARY NEW_BINARY [CORPUS]     # CORPUS default: corpus
set -euo pipefail
OLD=$1 NEW=$2 CORPUS=${3:-corpus}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
games=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['games']))" "$CORPUS/manifest.json")
stored=$(find -L "$CORPUS/games" -name '*.json.?z' | wc -l)
echo "assess rows --corpus $CORPUS ($games games in its manifest, $stored records stored)"
run() { # NAME BINARY
  /usr/bin/time -f "%M %e" -o "$OUT/$1.time" "$2" assess rows --corpus "$CORPUS" --out "$OUT/$1.csv" 2> "$OUT/$1.err"
  cat "$OUT/$1.time"
}
read -r old_kb old_s < <(run old "$OLD")
read -r new_kb new_s < <(run new "$NEW")
cmp -s "$OUT/old.csv" "$OUT/new.csv" || { echo "the two CSVs differ"; exit 1; }
awk -v ok="$old_kb" -v os="$old_s" -v nk="$new_kb" -v ns="$new_s" -v o="$OLD" -v n="$NEW" \
  -v sides="$(($(wc -l < "$OUT/new.csv") - 1))" 'BEGIN {
  printf "  %-40s %10s %9s\n", "build", "peak RSS", "wall s"
  printf "  %-40s %7.0f MB %9.1f\n", o, ok/1024, os
  printf "  %-40s %7.0f MB %9.1f\n", n, nk/1024, ns
  printf "  new / old: memory %.2f, time %.2f (%d sides, the CSVs byte for byte the same)\n", nk/ok, ns/os, sides }'
