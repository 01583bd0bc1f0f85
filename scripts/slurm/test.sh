#!/usr/bin/env bash
# The Slurm path for real (issue 14, item 4): on the single-node cluster of
# scripts/slurm/local-cluster.sh, the README's two commands (a 3-task array of
# scripts/slurm/fairsight-array.sbatch, then `fairsight merge` as a job depending on it)
# over samples/club-blitz.pgn (6 games, 2 a shard) at depth 4, the shipped models moved to
# that depth so that the merge rebuilds the classifier's, calibration's and assessment's
# results; the merged JSON report and annotated PGN must equal a single run's byte for
# byte; then the same array streamed (FAIRSIGHT_STREAM=1, --ndjson shards) and merged,
# equal to the single run's streamed report. Run by ./test.sh after `cargo test` (it uses the debug binary). GPL-3.0-or-later.
#
# Starts the cluster if it is not running and stops it again at the end (a cluster that
# was already running is left running). Outside CI a missing requirement (Slurm, munge,
# root, node's Stockfish) skips the test with the reason; under CI (`CI` set) it fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

skip() {
  if [ -n "${CI+set}" ]; then
    echo "slurm test: FAILED: $1 (CI is set, so a missing requirement is a failure)" >&2
    exit 1
  fi
  echo "slurm test: SKIP: $1"
  exit 0
}
fail() { echo "slurm test: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root to run a local Slurm cluster"
PATH=$PATH:/usr/sbin
for t in sbatch scontrol squeue slurmctld slurmd munged; do
  command -v "$t" >/dev/null || skip "$t not found: run scripts/install.sh (Debian's slurm-wlm and munge)"
done
[ -f node_modules/stockfish/bin/stockfish-19-lite-single.js ] \
  || skip "needs node_modules/stockfish: run npm ci"
command -v node >/dev/null || skip "needs node"

# The debug binary (`cargo test` has just built it under ./test.sh; this is then a no-op).
cargo build --quiet --bin fairsight
bin_dir=${CARGO_TARGET_DIR:-$root/target}/debug
[ -x "$bin_dir/fairsight" ] || fail "no $bin_dir/fairsight after cargo build"
# `fairsight` on the PATH, as the README's commands have it; sbatch passes the PATH on.
export PATH=$bin_dir:$PATH
unset FAIRSIGHT FAIRSIGHT_CACHE
started_at=$SECONDS

ran_cluster=
work=$(mktemp -d /tmp/fairsight-slurm-test.XXXXXX)
jobs=()
cleanup() {
  local rc=$?
  if [ ${#jobs[@]} -gt 0 ] && [ $rc != 0 ]; then scancel "${jobs[@]}" 2>/dev/null || true; fi
  if [ -n "$ran_cluster" ]; then "$root/scripts/slurm/local-cluster.sh" stop || true; fi
  if [ $rc = 0 ]; then rm -rf "$work"; else echo "slurm test: files kept in $work" >&2; fi
}
trap cleanup EXIT

if ! scripts/slurm/local-cluster.sh status >/dev/null 2>&1; then
  ran_cluster=1
  scripts/slurm/local-cluster.sh start
fi
cluster_s=$((SECONDS - started_at))

# The shipped models with their analysis depth set to the test's (as tests/cli.rs's
# model_at_depth), so that they apply to a depth-4 run.
node - "$root/models" "$work" 4 <<'EOF'
const fs = require("fs");
const [models, out, depth] = process.argv.slice(2);
for (const name of ["regan-calibration", "move-classifier", "assessment"]) {
  const m = JSON.parse(fs.readFileSync(`${models}/${name}.json`));
  m.settings.limit = { depth: Number(depth) };
  for (const k of ["name", "source"]) if (k in m) m[k] += ` (test copy at depth ${depth})`;
  fs.writeFileSync(`${out}/${name}.json`, JSON.stringify(m));
}
EOF
games=$root/samples/club-blitz.pgn
settings=(--depth 4)
models=(--calibration "$work/regan-calibration.json" --model "$work/move-classifier.json"
  --assessment "$work/assessment.json")

# Waits for an array job and its merge job to leave the queue, polling every half second
# (`sbatch --wait` sleeps 2, then 8, then 32 s between its polls: the jobs took 17 s, the
# test 43 s with it), then requires its 3 tasks and the merge to have completed with exit
# code 0 (Slurm keeps ended jobs' records for MinJobAge, 300 s). $3: the jobs' kind, for
# messages ("" or "streamed ").
await_jobs() {
  local array=$1 merge=$2 what=$3 deadline=$((SECONDS + 150)) records done_ok f k
  while [ -n "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] \
      || fail "${what}jobs $array and $merge still queued or running after 150 s"
    sleep 0.5
  done
  records=$( (scontrol -o show job "$array"; scontrol -o show job "$merge") 2>&1 || true)
  echo "$records" | awk '{ s = ""; for (i = 1; i <= NF; i++)
    if ($i ~ /^(JobId|ArrayTaskId|JobState|ExitCode)=/) s = s " " $i; print "slurm test:" s }'
  done_ok=$(echo "$records" | grep -c 'JobState=COMPLETED .*ExitCode=0:0' || true)
  for k in 1 2 3; do
    f=fairsight-${array}_$k.out
    [ -f "$f" ] || fail "task $k of ${what}array $array left no $f: did it run?"
    if [ -s "$f" ]; then echo "--- $f"; cat "$f"; fi
  done
  if [ "$done_ok" != 4 ]; then
    [ -f "merge-$merge.out" ] && cat "merge-$merge.out" >&2
    fail "only $done_ok of the 4 ${what}jobs (3 tasks, the merge) completed with exit code 0"
  fi
  tail -n1 "merge-$merge.out"
}

# The README's commands, run from $work: the array, then the merge once it succeeded.
cd "$work"
jid=$(sbatch --parsable --array=1-3 "$root/scripts/slurm/fairsight-array.sbatch" \
  "$games" out "${settings[@]}" "${models[@]}")
jobs+=("$jid")
echo "slurm test: array job $jid submitted (3 tasks)"
# --kill-on-invalid-dep: a failed task cancels the merge instead of leaving it pending.
merge_cmd="fairsight merge out/shard-*-of-3.json --json out/report.json --pgn out/report.pgn ${models[*]}"
mid=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok:"$jid" \
  --output=merge-%j.out --wrap "$merge_cmd")
jobs+=("$mid")
echo "slurm test: merge job $mid submitted (after $jid)"
await_jobs "$jid" "$mid" ""
jobs=()
for k in 1 2 3; do [ -s "out/shard-$k-of-3.json" ] || fail "no out/shard-$k-of-3.json"; done
entries=$(find out/cache -type f ! -name '*.tmp.*' | wc -l)
[ "$entries" -gt 0 ] || fail "the shared cache out/cache is empty"
slurm_s=$((SECONDS - started_at - cluster_s))

# The same batch streamed (FAIRSIGHT_STREAM=1: each task writes its --ndjson shard), its
# chunks from the first array's cache, merged a game at a time into the streamed report.
jid2=$(FAIRSIGHT_STREAM=1 FAIRSIGHT_CACHE="$work/out/cache" sbatch --parsable --array=1-3 \
  "$root/scripts/slurm/fairsight-array.sbatch" "$games" out2 "${settings[@]}" "${models[@]}")
jobs+=("$jid2")
mid2=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok:"$jid2" \
  --output=merge-%j.out --wrap "fairsight merge out2/shard-*-of-3.ndjson --ndjson out2/report.ndjson ${models[*]}")
jobs+=("$mid2")
echo "slurm test: streamed array job $jid2 and its merge job $mid2 submitted"
await_jobs "$jid2" "$mid2" "streamed "
jobs=()
for k in 1 2 3; do [ -s "out2/shard-$k-of-3.ndjson" ] || fail "no out2/shard-$k-of-3.ndjson"; done

# One run over the whole file, outside Slurm and with no cache, with the same flags.
fairsight analyze "$games" "${settings[@]}" "${models[@]}" --jobs 2 --quiet \
  --json whole.json --pgn whole.pgn --ndjson whole.ndjson
cmp out/report.json whole.json || fail "the merged JSON report differs from the single run's"
cmp out/report.pgn whole.pgn || fail "the merged annotated PGN differs from the single run's"
cmp out2/report.ndjson whole.ndjson \
  || fail "the merged streamed report differs from the single run's"
node -e '
  const r = JSON.parse(require("fs").readFileSync("whole.json"));
  if (r.games.length !== 6 || !r.assessment || !r.classifier || !r.calibration)
    throw new Error("the single run is not the 6-game report with models it should be");
'
echo "slurm test: ok: 3 array tasks ($entries cache entries shared) and the merge job on Slurm" \
  "equal a single run byte for byte ($(wc -c <whole.json) bytes of JSON," \
  "$(wc -c <whole.pgn) of PGN), and so do 3 streamed tasks and their merge" \
  "($(wc -c <whole.ndjson) bytes); cluster start ${cluster_s}s, Slurm jobs ${slurm_s}s," \
  "in all $((SECONDS - started_at))s"
