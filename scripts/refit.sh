#!/usr/bin/env bash
# The shipped assessment's recipe, whole, in one command (models/README.md, "Kinds of
# position in the move odds ... (session 58)"): the move classifier's out-of-fold
# probabilities from the manifest it was trained on, the assessment fitted on the pinned
# corpus manifest, ten fold models, the thresholds and scaling set on the sides they did
# not see (a player's above the clean pseudo-players and, since session 62, the clean real
# players of those sides; since session 63 an unrated kind's scaling of a player's games
# fitted on the validation split's pseudo-players read without their rating; since
# session 67 every kind's with a games term, a player's pooled z-scores counting their
# games by their moves, `--side-moves`); then each output compared with the shipped file,
# byte for byte.
#
#   scripts/refit.sh [WORK]
#
# WORK (default target/refit) gets every intermediate file. The corpus folders are built
# from the committed records (symlinked) and a manifest taken from git:
#   CLASSIFIER_MANIFEST  commit whose corpus/manifest.json the classifier was trained on
#                        (default 1bff4bc)
#   ASSESS_MANIFEST      commit whose corpus/manifest.json the assessment was fitted on
#                        (default bd3131f)
#   ASSESS_MANIFEST_FILE a manifest file to fit the assessment on instead (a study of one
#                        change: e.g. bd3131f's with one source's games added)
#   CORPUS_DIR           where the assessment's corpus folder is made (default
#                        /tmp/c53/corpus: the shipped model's `source` names the folder it
#                        was fitted from, so another one gives a file that differs there)
#   JOBS                 fold models fitted at once (default 2)
#   THRESHOLDS_ARGS      more arguments for `assess thresholds`, for a study of another
#                        rule (e.g. --unrated-withheld); the shipped recipe has none
#   FOLDS_ARGS           more arguments for `assess folds` (e.g. --stable: folds that stay put
#                        as games are added, for comparing refits of two manifests); the
#                        shipped recipe has none
#   FIT_ARGS             more arguments for every `assess fit` (e.g. --logistic weaker); the
#                        shipped recipe has none
#   CLASSIFIER_FROM      a WORK folder of an earlier run whose classifier-oof.json and
#                        move-classifier.json to take instead of training them again (they
#                        depend only on CLASSIFIER_MANIFEST; saves 8-15 minutes)
#   THRESHOLDS_ONLY      1: WORK already holds an earlier run's fit and fold models and the
#                        classifier's file; only the thresholds step runs again (a change to
#                        that step alone: scripts/thresholds-bench.sh)
#   BIN                  the fairsight binary to run (default: target/release/fairsight, built
#                        first); a copy lets you rebuild while a refit runs
# About 45-60 minutes on two cores (the thresholds step about 7 of them since session 72,
# 20 before). Exit status 0 when both outputs equal the shipped files; 1 when either
# differs (the differing file is kept in WORK). Bash reads a script as it runs it: do not
# edit this file while a refit runs (edit a copy).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-target/refit}
CLASSIFIER_MANIFEST=${CLASSIFIER_MANIFEST:-1bff4bc}
ASSESS_MANIFEST=${ASSESS_MANIFEST:-bd3131f}
CORPUS_DIR=${CORPUS_DIR:-/tmp/c53/corpus}
JOBS=${JOBS:-2}
THRESHOLDS_ARGS=${THRESHOLDS_ARGS:-}
FOLDS_ARGS=${FOLDS_ARGS:-}
FIT_ARGS=${FIT_ARGS:-}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ -z "${BIN:-}" ]; then
  BIN=$ROOT/target/release/fairsight
  cargo build --release --quiet
fi
say() { echo "refit: $(date +%H:%M:%S) $*" >&2; }

# A corpus folder: the committed records and sources, and the manifest given.
corpus_with() { # DIR MANIFEST_FILE
  mkdir -p "$1"
  for f in games sources depth quick reserved.json; do ln -sfn "$ROOT/corpus/$f" "$1/$f"; done
  cp "$2" "$1/manifest.json"
}

if [ "${THRESHOLDS_ONLY:-}" = 1 ]; then
  say "thresholds only: the fit and fold models already in $WORK"
elif [ -n "${CLASSIFIER_FROM:-}" ]; then
  say "the classifier's out-of-fold probabilities: taken from $CLASSIFIER_FROM"
  cp "$CLASSIFIER_FROM/classifier-oof.json" "$CLASSIFIER_FROM/move-classifier.json" "$WORK/"
else
  say "the classifier's out-of-fold probabilities (manifest of $CLASSIFIER_MANIFEST)"
  git show "$CLASSIFIER_MANIFEST:corpus/manifest.json" > "$WORK/classifier-manifest.json"
  corpus_with "$WORK/classifier/corpus" "$WORK/classifier-manifest.json"
  "$BIN" train fit --corpus "$WORK/classifier/corpus" --full-strength-only --max-depth 10 --min-leaf 10 \
    --source "the train split of the committed corpus (corpus/README.md)" \
    --oof "$WORK/classifier-oof.json" --out "$WORK/move-classifier.json" > "$WORK/classifier.log" 2>&1
fi

say "the assessment (manifest of ${ASSESS_MANIFEST_FILE:-$ASSESS_MANIFEST}, in $CORPUS_DIR)"
if [ -n "${ASSESS_MANIFEST_FILE:-}" ]; then
  cp "$ASSESS_MANIFEST_FILE" "$WORK/assess-manifest.json"
else
  git show "$ASSESS_MANIFEST:corpus/manifest.json" > "$WORK/assess-manifest.json"
fi
corpus_with "$CORPUS_DIR" "$WORK/assess-manifest.json"
LO=top:lateGain,top:seenLines,top:zSeenLines,switched:lateGain,switched:seenLines,switched:zSeenLines
LO=$LO,top:switchOdds,weaker:switchOdds,top:switchOddsAll,weaker:switchOddsAll
fit() { # CORPUS OUT
  "$BIN" assess fit --corpus "$1" --classifier-oof "$WORK/classifier-oof.json" \
    --balance-experts --leave-out "$LO" $FIT_ARGS --out "$2" > "$2.log" 2>&1
}
if [ "${THRESHOLDS_ONLY:-}" != 1 ]; then
  fit "$CORPUS_DIR" "$WORK/fit-W.json"
  "$BIN" assess folds --corpus "$CORPUS_DIR" --k 10 $FOLDS_ARGS --out "$WORK/folds" > /dev/null

  say "ten fold models, $JOBS at a time"
  for n in $(seq 1 10); do
    corpus_with "$WORK/fold-$n/corpus" "$WORK/folds/fold-$n.json"
    fit "$WORK/fold-$n/corpus" "$WORK/fit-g$n.json" &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  done
  wait
fi

say "thresholds and scaling"
"$BIN" assess thresholds --corpus "$CORPUS_DIR" --model "$WORK/fit-W.json" \
  --fitted-manifest "$CORPUS_DIR/manifest.json" \
  $(for n in $(seq 1 10); do echo --cross "$WORK/fit-g$n.json=$WORK/folds/fold-$n.json"; done) \
  --classifier-oof "$WORK/classifier-oof.json" --players --band-apart \
  --lower-rated 1600,1900,2200 --band-rate 0.005 --calibrate \
  --clocks-scale --clocks-experts top,weaker --real-players --unrated-player-scale \
  --player-games-scale all --side-moves $THRESHOLDS_ARGS \
  --out "$WORK/assessment.json" > "$WORK/thresholds.log" 2>&1

status=0
for f in move-classifier.json assessment.json; do
  if cmp -s "$WORK/$f" "models/$f"; then
    say "$f: the shipped file, byte for byte"
  else
    say "$f: differs from models/$f (kept in $WORK)"
    status=1
  fi
done
exit $status
