#!/usr/bin/env python3
"""How much of a gap between two kinds of switched sides is the judge's loss on their
moves, and how much is left at equal loss (session 75, models/README.md: "A switch to an
engine of another make: strength or make?").

It reads the per-side table of `fairsight assess eval --sides FILE` and, on the test split,
reads each side of two sources as the share of the clean test sides it scores above (ties
count half; the mean of these shares over a source's sides is its AUC against them). The
sides of both sources are put in bins of the later half's win-% loss (`lateLoss`, equal
counts of the two together), and the first source's bins are weighted to the second's
counts: the AUC the first would read if its moves lost on the judge as the second's do.

    fairsight assess eval --player-games 5,10,20 --sides sides.tsv
    python3 scripts/loss-matched.py sides.tsv switched-twic-7 switched-twic-ethereal
"""

import sys

import numpy as np
import pandas as pd


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: loss-matched.py SIDES.tsv REFERENCE-SOURCE OTHER-SOURCE")
    path, ref, other = sys.argv[1:]
    d = pd.read_csv(path, sep="\t")
    d["source"] = d.game.str.split("/").str[0]
    t = d[d.split == "Test"]
    clean = np.sort(t[t.kind == "Human"].probability.values)
    if not len(clean):
        sys.exit(f"{path}: no clean test sides")

    def above(p):
        lo = np.searchsorted(clean, p, "left")
        hi = np.searchsorted(clean, p, "right")
        return (lo + hi) / 2 / len(clean)

    sides = {}
    for name in (ref, other):
        x = t[(t.source == name) & (t.kind == "Switched") & t.lateLoss.notna()].copy()
        if not len(x):
            sys.exit(f"{path}: no switched test sides of {name}")
        x["above"] = above(x.probability.values)
        sides[name] = x
    r, o = sides[ref], sides[other]
    print(f"{len(clean)} clean test sides")
    for name, x in sides.items():
        print(f"{name}: {len(x)} sides, AUC {x.above.mean():.3f}, median lateLoss "
              f"{x.lateLoss.median():.2f}, median lateMatch {x.lateMatch.median():.2f}")
    for bins in (4, 6, 8):
        edges = np.unique(np.quantile(pd.concat([r.lateLoss, o.lateLoss]), np.linspace(0, 1, bins + 1)))
        edges[0], edges[-1] = -np.inf, np.inf
        rb, ob = pd.cut(r.lateLoss, edges), pd.cut(o.lateLoss, edges)
        ra = r.groupby(rb, observed=False).above.mean()
        oa = o.groupby(ob, observed=False).above.mean()
        w = ob.value_counts(sort=False)
        if ra[w > 0].isna().any():
            print(f"{bins} bins: a bin of {other} has no side of {ref}; skipped")
            continue
        weighted = (ra[w > 0] * w[w > 0]).sum() / w.sum()
        print(f"{bins} bins of lateLoss: {ref} weighted to {other}'s losses {weighted:.3f}; by bin "
              f"{ref} {' '.join(f'{v:.3f}' for v in ra)} ({' '.join(str(n) for n in rb.value_counts(sort=False))} sides), "
              f"{other} {' '.join(f'{v:.3f}' for v in oa)} ({' '.join(str(n) for n in w)})")


if __name__ == "__main__":
    main()
