#!/usr/bin/env python3
"""The depth study's slices (issue 10, item 5): games of the corpus's test split, written
back as PGN exactly as they were analysed (each record's cut game, starting from its
FEN), so that `fairsight corpus add` can analyse the same positions again at other
settings into `corpus/depth/SETTING/`, and `fairsight assess depth` can compare them with
the default analysis already in `corpus/`.

The first slice: the first --per games (by number) of the test split of each of four
sources: TCEC (top engines), self-play at UCI_Elo <= 2600 (weaker engines), lichess
2025-05 and TWIC 920 (humans):

    python3 scripts/depth-slice.py --per 20 --label engine --out corpus/depth/slice-engine.pgn
    python3 scripts/depth-slice.py --per 20 --label human --out corpus/depth/slice-human.pgn

The second slice (`--matched`): the weaker engines against humans of their strength.
Every self-play game at UCI_Elo <= 2600 of the given splits, and human games of the same
splits (lichess 2025-05, TWIC 920) taken --per from each 200-point band of their
players' mean rating from 1400 to 2599, so that the engines' tags and the humans'
ratings cover the same range; games already analysed in --exclude folders are left out
(no game is analysed twice at one setting):

    python3 scripts/depth-slice.py --matched --label engine --splits test,validation \
        --exclude corpus/depth/full14 --out corpus/depth/slice2-engine.pgn
    python3 scripts/depth-slice.py --matched --label human --splits test,validation --per 8 \
        --exclude corpus/depth/full14 --out corpus/depth/slice2-human.pgn

The third slice (`--switched`): the switched sides over the board against clean humans
of their strength, in the band where the switched sides are hardest to tell (players
rated 2,300-2,599). Switched TWIC games of the given splits whose switched side is rated
in the band, and TWIC 920 games of the same splits whose two players are both rated in
it; --per of each, spread evenly through them (a switched game has one scored side, a
human game two):

    python3 scripts/depth-slice.py --switched --label switched --splits test --per 60 \
        --out corpus/depth/slice3-switched.pgn
    python3 scripts/depth-slice.py --switched --label human --splits test --per 30 \
        --out corpus/depth/slice3-human.pgn

The fourth slice (session 76): the third's band, with the switched games of other
sources (`--source`, repeatable, in place of the third slice's switched TWIC sets): the
validation split's switches to Ethereal, an engine of another make than the judge's, read
against the third slice's humans (already analysed with the full network):

    python3 scripts/depth-slice.py --switched --label switched --splits validation \
        --source switched-twic-ethereal-val --per 100 --out corpus/depth/slice4-switched.pgn

Deterministic: it depends only on the manifest and the records.
"""

import argparse
import glob
import gzip
import json
import lzma
import os
import re

SOURCES = {"engine": ["tcec", "selfplay"], "human": ["lichess-2025-05", "twic-920"]}
MATCHED = {"engine": ["selfplay"], "human": ["lichess-2025-05", "twic-920"]}
BANDS = range(1400, 2600, 200)
SWITCHED = {"switched": ["switched-twic", "switched-twic-2", "switched-twic-3",
                         "switched-twic-4", "switched-twic-5", "switched-twic-6"],
            "human": ["twic-920"]}
BAND = (2300, 2600)


def elos(pgn):
    return [int(e) for e in re.findall(r'\[(?:White|Black)Elo "(\d+)"\]', pgn)]


def load(corpus, source, n):
    """A stored record: `NNNNN.json.xz`, or `.json.gz` in a corpus not yet compacted."""
    base = os.path.join(corpus, "games", source, f"{n:05}")
    if os.path.exists(base + ".json.xz"):
        return json.load(lzma.open(base + ".json.xz"))
    return json.load(gzip.open(base + ".json.gz"))


def analysed(folders):
    """The records (by SliceOf) already analysed in these corpus folders."""
    done = set()
    for folder in folders:
        for path in glob.glob(os.path.join(folder, "games", "*", "*.json.[gx]z")):
            opener = lzma.open if path.endswith(".xz") else gzip.open
            done.update(re.findall(r'\[SliceOf "([^"]+)"\]', json.load(opener(path))["pgn"]))
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--per", type=int, default=20)
    ap.add_argument("--label", choices=["engine", "human", "switched"], required=True)
    ap.add_argument("--matched", action="store_true", help="the second slice (above)")
    ap.add_argument("--switched", action="store_true", help="the third slice (above)")
    ap.add_argument("--splits", default="test")
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("--source", action="append", default=[],
                    help="with --switched: these sources instead of its own")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.switched:
        return switched_slice(a)
    if a.label == "switched":
        ap.error("--label switched goes with --switched")
    manifest = json.load(open(os.path.join(a.corpus, "manifest.json")))["games"]
    splits = a.splits.split(",")
    skip = analysed(a.exclude)
    out = []
    taken = {}
    for source in (MATCHED if a.matched else SOURCES)[a.label]:
        ids = sorted(
            (int(k.split("/")[1]) for k, g in manifest.items()
             if k.split("/")[0] == source and g["split"] in splits),
        )
        per_source = 0
        for n in ids:
            if not a.matched and per_source == a.per:
                break
            if f"{source}/{n}" in skip:
                continue
            r = load(a.corpus, source, n)
            pgn = r["pgn"].strip()
            tags = elos(pgn)
            if source == "selfplay" and (not tags or max(tags) > 2600):
                continue
            if a.matched and a.label == "human":
                if len(tags) != 2:
                    continue
                band = next((b for b in BANDS if b <= sum(tags) / 2 < b + 200), None)
                if band is None or taken.get(band, 0) == a.per:
                    continue
                taken[band] = taken.get(band, 0) + 1
            # Where the game came from, for the record (the study matches games by it).
            pgn = pgn.replace("\n\n", f'\n[SliceOf "{r["id"]}"]\n\n', 1)
            out.append(pgn)
            per_source += 1
    with open(a.out, "w") as f:
        f.write("\n\n".join(out) + "\n")
    bands = ", ".join(f"{b}: {taken[b]}" for b in sorted(taken))
    print(f"{a.out}: {len(out)} games" + (f" (by band: {bands})" if bands else ""))


def in_band(elo):
    return BAND[0] <= elo < BAND[1]


def switched_slice(a):
    """The third slice: --per games of the label, spread evenly through the eligible."""
    manifest = json.load(open(os.path.join(a.corpus, "manifest.json")))["games"]
    splits = a.splits.split(",")
    skip = analysed(a.exclude)
    eligible = []
    for source in a.source or SWITCHED[a.label]:
        ids = sorted(int(k.split("/")[1]) for k, g in manifest.items()
                     if k.split("/")[0] == source and g["split"] in splits)
        for n in ids:
            if f"{source}/{n}" in skip:
                continue
            r = load(a.corpus, source, n)
            pgn = r["pgn"].strip()
            tags = elos(pgn)  # White's, then Black's
            if len(tags) != 2:
                continue
            white, black = tags
            if a.label == "switched":
                side = re.search(r'\[Switched "(\w+)"\]', pgn).group(1)
                if not in_band(white if side == "white" else black):
                    continue
            elif not (in_band(white) and in_band(black)):
                continue
            eligible.append(pgn.replace("\n\n", f'\n[SliceOf "{r["id"]}"]\n\n', 1))
    # Spread evenly, as `fairsight train sample` spreads its games.
    n = min(a.per, len(eligible))
    out = [eligible[i * len(eligible) // n] for i in range(n)] if n else []
    with open(a.out, "w") as f:
        f.write("\n\n".join(out) + "\n")
    print(f"{a.out}: {len(out)} games of {len(eligible)} eligible")


if __name__ == "__main__":
    main()
