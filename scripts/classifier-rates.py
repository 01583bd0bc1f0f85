#!/usr/bin/env python3
"""Positive rates of the move classifier per game side in fairsight JSON reports.

Usage: scripts/classifier-rates.py REPORT.json...
Prints, per report, the game sides with classified moves, their mean positive rate
(share of candidate moves flagged engine-like), its quartiles and the share of sides at
or above 0.5. Reports must have been made with the settings the model applies to
(their "classifier" field names it)."""
import json
import statistics
import sys

for path in sys.argv[1:]:
    report = json.load(open(path, encoding="utf-8"))
    if not report.get("classifier"):
        print(f"{path}: no classifier applied (other settings or engine)")
        continue
    rates = []
    for game in report["games"]:
        for side in ("white", "black"):
            c = ((game.get("sides") or {}).get(side) or {}).get("classifier")
            if c and c.get("classified", 0) >= 10:
                rates.append(c["positiveRate"])
    if not rates:
        print(f"{path}: no side with 10 classified moves")
        continue
    q = statistics.quantiles(rates, n=4) if len(rates) > 1 else [rates[0]] * 3
    high = sum(r >= 0.5 for r in rates) / len(rates)
    print(
        f"{path}: {len(rates)} sides, mean positive rate {statistics.mean(rates):.3f}, "
        f"quartiles {q[0]:.2f}/{q[1]:.2f}/{q[2]:.2f}, sides >= 0.5: {high:.0%}"
    )
