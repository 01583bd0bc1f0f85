#!/usr/bin/env bash
# Peak memory and wall time of a refit's thresholds step (`assess thresholds` with the
# shipped recipe's arguments, on the fit and fold models a `scripts/refit.sh` run left in
# WORK) by two builds, one after the other in one run, and their ratios; the two models
# written must be the same byte for byte. For a change to how the thresholds read the
# corpus (session 72: the manifest's games read 250 at a time, and each reader's games
# rebuilt once for every pooling of pseudo-players and real players, not once a pooling).
#
#   scripts/thresholds-bench.sh OLD_BINARY NEW_BINARY WORK CORPUS_DIR
#
# WORK and CORPUS_DIR as the refit had them (CORPUS_DIR's manifest is WORK's
# assess-manifest.json; the model's `source` names the folder).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$(realpath "$1") NEW=$(realpath "$2") WORK=$(realpath "$3") CORPUS_DIR=$4
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "assess thresholds of $WORK ($(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['games']))" "$WORK/assess-manifest.json") games in its manifest)"
run() { # NAME BINARY
  mkdir -p "$OUT/$1"
  for f in "$WORK"/fit-W.json "$WORK"/fit-g*.json "$WORK"/folds "$WORK"/classifier-oof.json "$WORK"/move-classifier.json; do
    ln -s "$f" "$OUT/$1/"
  done
  THRESHOLDS_ONLY=1 BIN=$2 ASSESS_MANIFEST_FILE="$WORK/assess-manifest.json" CORPUS_DIR="$CORPUS_DIR" \
    /usr/bin/time -f "%M %e" -o "$OUT/$1.time" scripts/refit.sh "$OUT/$1" 2> "$OUT/$1.err" || true
  [ -s "$OUT/$1/assessment.json" ] || { echo "$1: no model written"; cat "$OUT/$1.err"; exit 1; }
  tail -1 "$OUT/$1.time"
}
read -r old_kb old_s < <(run old "$OLD")
read -r new_kb new_s < <(run new "$NEW")
cmp -s "$OUT/old/assessment.json" "$OUT/new/assessment.json" || { echo "the two models differ"; exit 1; }
awk -v ok="$old_kb" -v os="$old_s" -v nk="$new_kb" -v ns="$new_s" -v o="$OLD" -v n="$NEW" 'BEGIN {
  printf "  %-40s %10s %9s\n", "build", "peak RSS", "wall s"
  printf "  %-40s %7.0f MB %9.1f\n", o, ok/1024, os
  printf "  %-40s %7.0f MB %9.1f\n", n, nk/1024, ns
  printf "  new / old: memory %.2f, time %.2f (the models byte for byte the same)\n", nk/ok, ns/os }'
