#!/usr/bin/env python3
"""Session 76's study: do simple shapes of a side's losses on the judge tell a switch to
an engine of another make from clean play better than the corpus's signals do?

For each scored side of two reports rebuilt from the corpus (the clean sides of one, the
switched sides of the other), the later half of its analysed moves (as the later-half
signals take them): the share losing more than 2, 5 and 10 win-% points, the mean and
90th percentile and largest loss, the share of the judge's first moves and of its first
three, and, of the judge's search, the share of moves it found at depth 8 or deeper
(`seenAt`), the share it found at all, the mean depth found, the mean count of its
changes of mind (`bestChanges`) and of good alternatives. Each read against the clean
sides, all pairs and within 200-point bins of the side's Elo tag, for the switches to
Ethereal and to Stockfish apart.

    fairsight corpus report --split validation --label human --json valhuman.json
    fairsight corpus report --split validation --label switched --json valsw.json
    python3 scripts/loss-shape.py valhuman.json valsw.json
"""

import json
import sys

import numpy as np
from sklearn.metrics import roc_auc_score


def sides(path, switched):
    """One dict a scored side with a numeric Elo tag and at least 10 analysed moves."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    out = []
    for g in report["games"]:
        tags = g["tags"]
        for side in [tags.get("Switched")] if switched else ["white", "black"]:
            elo = tags.get("WhiteElo" if side == "white" else "BlackElo", "")
            moves = [p for p in g["plies"] if p["side"] == side and p.get("searched")
                     and p.get("winLoss") is not None]
            if not elo.isdigit() or len(moves) < 10:
                continue
            half = moves[len(moves) // 2:]
            loss = np.array([p["winLoss"] for p in half])
            rank = np.array([p["rank"] or 99 for p in half])
            seen = [p.get("seenAt") for p in half]
            found = [s for s in seen if s is not None]
            out.append({
                "make": "Ethereal" if "Ethereal" in tags.get("SwitchEngine", "") else "other",
                "elo": int(elo),
                "loss > 2": (loss > 2).mean(), "loss > 5": (loss > 5).mean(),
                "loss > 10": (loss > 10).mean(), "mean loss": loss.mean(),
                "90th pct loss": np.percentile(loss, 90), "largest loss": loss.max(),
                "first move": (rank == 1).mean(), "first three": (rank <= 3).mean(),
                "found at 8+": np.mean([s is not None and s >= 8 for s in seen]),
                "found": np.mean([s is not None for s in seen]),
                "depth found": np.mean(found) if found else 0.0,
                "changes of mind": np.mean([p.get("bestChanges") or 0 for p in half]),
                "alternatives": np.mean([p.get("alternatives") or 0 for p in half]),
            })
    return out


def auc(pos, neg, key, sign):
    return roc_auc_score([1] * len(pos) + [0] * len(neg),
                         [sign * p[key] for p in pos] + [sign * h[key] for h in neg])


def within(pos, neg, key, sign):
    num = den = 0.0
    for b in {p["elo"] // 200 for p in pos}:
        pp = [p for p in pos if p["elo"] // 200 == b]
        hh = [h for h in neg if h["elo"] // 200 == b]
        if pp and hh:
            num += auc(pp, hh, key, sign) * len(pp) * len(hh)
            den += len(pp) * len(hh)
    return num / den


def main():
    clean = sides(sys.argv[1], False)
    switched = sides(sys.argv[2], True)
    eth = [s for s in switched if s["make"] == "Ethereal"]
    sf = [s for s in switched if s["make"] != "Ethereal"]
    print(f"{len(clean)} clean sides, {len(eth)} switched to Ethereal, {len(sf)} to Stockfish")
    print(f"{'signal (engine-like way)':28s} Ethereal: all / bins   Stockfish: all / bins")
    for key, sign in [("loss > 2", -1), ("loss > 5", -1), ("loss > 10", -1),
                      ("mean loss", -1), ("90th pct loss", -1), ("largest loss", -1),
                      ("first move", 1), ("first three", 1), ("found at 8+", 1),
                      ("found", 1), ("depth found", 1), ("changes of mind", 1),
                      ("alternatives", 1)]:
        print(f"{key + (' (low)' if sign < 0 else ' (high)'):28s} "
              f"{auc(eth, clean, key, sign):.3f} / {within(eth, clean, key, sign):.3f}"
              f"          {auc(sf, clean, key, sign):.3f} / {within(sf, clean, key, sign):.3f}")


if __name__ == "__main__":
    main()
