#!/usr/bin/env python3
"""The depth study's slice (issue 10, item 5): games of the corpus's test split, written
back as PGN exactly as they were analysed (each record's cut game, starting from its
FEN), so that `fairsight corpus add` can analyse the same positions again at other
settings into `corpus/depth/SETTING/`, and `fairsight assess depth` can compare them with
the default analysis already in `corpus/`.

The slice: the first --per games (by number) of the test split of each of four sources:
TCEC (top engines), self-play at UCI_Elo <= 2600 (weaker engines), lichess 2025-05 and
TWIC 920 (humans). Deterministic: it depends only on the manifest and the records.

    python3 scripts/depth-slice.py --per 20 --label engine --out corpus/depth/slice-engine.pgn
    python3 scripts/depth-slice.py --per 20 --label human --out corpus/depth/slice-human.pgn
"""

import argparse
import gzip
import json
import os
import re

SOURCES = {"engine": ["tcec", "selfplay"], "human": ["lichess-2025-05", "twic-920"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="corpus")
    ap.add_argument("--per", type=int, default=20)
    ap.add_argument("--label", choices=sorted(SOURCES), required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    manifest = json.load(open(os.path.join(a.corpus, "manifest.json")))["games"]
    out = []
    for source in SOURCES[a.label]:
        ids = sorted(
            (int(k.split("/")[1]) for k, g in manifest.items()
             if k.split("/")[0] == source and g["split"] == "test"),
        )
        taken = 0
        for n in ids:
            if taken == a.per:
                break
            path = os.path.join(a.corpus, "games", source, f"{n:05}.json.gz")
            r = json.load(gzip.open(path))
            pgn = r["pgn"].strip()
            if source == "selfplay":
                elos = [int(e) for e in re.findall(r'\[(?:White|Black)Elo "(\d+)"\]', pgn)]
                if not elos or max(elos) > 2600:
                    continue
            # Where the game came from, for the record (the study matches games by it).
            pgn = pgn.replace("\n\n", f'\n[SliceOf "{r["id"]}"]\n\n', 1)
            out.append(pgn)
            taken += 1
    with open(a.out, "w") as f:
        f.write("\n\n".join(out) + "\n")
    print(f"{a.out}: {len(out)} games")


if __name__ == "__main__":
    main()
