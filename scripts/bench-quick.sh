#!/bin/sh
# Quick screen then full test, against the full analysis of every game, in one run.
#
#   scripts/bench-quick.sh [N] [E] [K]
#
# A tournament of N games: the first N-E games of one TWIC 920 event
# (../shared/data/human/otb/twic0920_minus_holdout.pgn, EVENT, default "3rd Forni di
# Sopra Open", 142 games) and the first E games of corpus/sources/switched-twic.pgn (real TWIC games
# in which one side hands its moves to Stockfish part-way), so that something is flagged. Then, one after the other with JOBS engines (default 2):
#   1. fairsight analyze (the defaults: depth 14, 4 lines) of every game;
#   2. fairsight analyze --mode quick --full-for K: the quick pass over every game, then
#      the full analysis of the games of the K players ranked highest by the quick
#      assessment;
# and prints the time of each, the ratio, and whether the K flagged players are the K
# players the full run ranks highest (by the full assessment's probability).
# Defaults: N=100, E=4, K=3. FAIRSIGHT: the binary (target/release/fairsight).
# Prints; asserts nothing. No cache: every position is searched.
set -eu
N=${1:-100}
E=${2:-4}
K=${3:-3}
BIN=${FAIRSIGHT:-target/release/fairsight}
JOBS=${JOBS:-2}
EVENT=${EVENT:-3rd Forni di Sopra Open}
OUT=${OUT:-target/bench-quick}
mkdir -p "$OUT"
python3 - "$N" "$E" "$EVENT" "$OUT/tournament.pgn" <<'EOF'
import re, sys
n, e, event, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def games(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return [g.strip() + "\n\n" for g in re.split(r"\n(?=\[Event )", text) if g.strip()]
human = [g for g in games("../shared/data/human/otb/twic0920_minus_holdout.pgn")
         if g.startswith('[Event "%s"]' % event)][: n - e]
engine = games("corpus/sources/switched-twic.pgn")[:e]
if len(human) < n - e:
    sys.exit("only %d games of %s" % (len(human), event))
# The engine games first would be found first: spread them through the tournament.
mixed = list(human)
for i, g in enumerate(engine):
    mixed.insert((i + 1) * len(mixed) // (len(engine) + 1), g)
open(out, "w").write("".join(mixed))
print("tournament: %d games (%d of %s, %d switched)" % (len(mixed), len(human), event, len(engine)))
EOF
now() { date +%s.%N; }
t0=$(now)
"$BIN" analyze "$OUT/tournament.pgn" --jobs "$JOBS" --json "$OUT/full.json" --quiet
t1=$(now)
# The quick model given as a file: the one built in, unless QUICK_MODEL names another.
"$BIN" analyze "$OUT/tournament.pgn" --jobs "$JOBS" --mode quick --full-for "$K" \
    --assessment "${QUICK_MODEL:-models/quick-assessment.json}" \
    --json "$OUT/quick-full.json" > "$OUT/quick-full.txt"
t2=$(now)
python3 - "$OUT" "$K" "$t0" "$t1" "$t2" <<'EOF'
import json, sys
out, k = sys.argv[1], int(sys.argv[2])
t0, t1, t2 = map(float, sys.argv[3:6])
full = json.load(open(out + "/full.json"))
qf = json.load(open(out + "/quick-full.json"))
def prob(p):
    a = p.get("assessment")
    return a["probability"] if a else -1.0
ranked = sorted(full["players"], key=lambda p: (-prob(p), p["name"].lower()))
top = [p["name"] for p in ranked[:k]]
flagged = [p["name"] for p in qf["quickScreen"]["players"] if p["fullTest"]]
full_games = len(qf["games"])
print("full analysis of all %d games: %.1f s" % (len(full["games"]), t1 - t0))
print("quick of all + full of the flagged (%d games): %.1f s" % (full_games, t2 - t1))
print("ratio (full of all / quick then full): %.2f" % ((t1 - t0) / (t2 - t1)))
print("top %d of the full run:   %s" % (k, ", ".join("%s (%.3f)" % (p["name"], prob(p)) for p in ranked[:k])))
print("flagged by the quick pass: %s" % ", ".join(
    "%s (%.3f)" % (p["name"], p["probability"] if p["probability"] is not None else -1)
    for p in qf["quickScreen"]["players"] if p["fullTest"]))
same = {n.lower() for n in top} == {n.lower() for n in flagged}
common = len({n.lower() for n in top} & {n.lower() for n in flagged})
print("same players: %s (%d of %d in common)" % ("yes" if same else "no", common, k))
EOF
