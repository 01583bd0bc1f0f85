#!/usr/bin/env python3
"""Session 77's study: does the judge warm to the played move as it searches deeper?

A helper stronger than the judge, or of another make, may choose moves the judge ranks
below its first at a shallow depth and comes round to deeper; a human's second-best moves
are more often ones the judge likes less the deeper it looks. Read from the corpus's
records (every depth's lines, `corpus/README.md`), with no engine: for each searched move
of a side's later half (as the later-half signals take it), the gap between the judge's
first line and the played move's line at depths 6-9 (their mean, where the move is among
the 4 lines) and at depth 14; a position with a mate score is left out. Per side: the mean
fall of the gap (`trend`), the shares of moves whose gap shrank (`rises`) or grew
(`falls`) by more than 5 cp, their difference (`net`), and the share of moves among the
final depth's lines (`inlines14`). Each read against the split's clean sides with an Elo
tag, for the switches to Ethereal and to Stockfish apart (the switched side only).

    python3 scripts/depth-trend.py validation     # seconds; needs python-chess, sklearn
"""

import io
import json
import lzma
import sys
from multiprocessing import Pool

import chess.pgn
import numpy as np
from sklearn.metrics import roc_auc_score

CORPUS = "corpus"
FEATURES = ("trend", "rises", "falls", "net", "inlines14")


def record_path(game_id):
    source, number = game_id.split("/")
    return f"{CORPUS}/games/{source}/{int(number):05d}.json.xz"


def features(path):
    """The record's headers and, per side with an Elo tag and 10 or more searched moves,
    its later half's features."""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        record = json.load(f)
    game = chess.pgn.read_game(io.StringIO(record["pgn"]))
    board = game.board()
    plies = []
    for move in game.mainline_moves():
        plies.append((board.turn, move.uci()))
        board.push(move)
    out = {}
    for colour, turn in (("white", chess.WHITE), ("black", chess.BLACK)):
        elo = game.headers.get(colour.capitalize() + "Elo", "")
        if not elo.isdigit():
            continue
        moves = []
        for pos in record["positions"]:
            p, search = pos["p"], pos.get("s") or {}
            if p >= len(plies) or plies[p][0] != turn or "l" not in search:
                continue
            lines = {}
            for depth, index, kind, value, pv in search["l"]:
                if kind & 1:  # a mate score: no gap in centipawns
                    lines = None
                    break
                lines.setdefault(depth, {})[index] = (value, pv.split()[0])
            if not lines or 14 not in lines:
                continue
            gaps = {}
            for depth, by_index in lines.items():
                if 1 in by_index:
                    for value, first in by_index.values():
                        if first == plies[p][1]:
                            gaps[depth] = by_index[1][0] - value
            moves.append(gaps)
        if len(moves) < 10:
            continue
        half = moves[len(moves) // 2:]
        trend, rises, falls = [], 0, 0
        for gaps in half:
            early = [gaps[d] for d in (6, 7, 8, 9) if d in gaps]
            if 14 in gaps and early:
                trend.append(np.mean(early) - gaps[14])
                rises += gaps[14] < np.mean(early) - 5
                falls += gaps[14] > np.mean(early) + 5
        out[colour] = {
            "trend": float(np.mean(trend)) if trend else 0.0,
            "rises": rises / len(half), "falls": falls / len(half),
            "net": (rises - falls) / len(half),
            "inlines14": float(np.mean([14 in g for g in half])),
        }
    return game.headers, out


def sides(item):
    game_id, label = item
    headers, by_colour = features(record_path(game_id))
    if label == "switched":
        side = headers.get("Switched")
        make = "Ethereal" if "Ethereal" in headers.get("SwitchEngine", "") else "Stockfish"
        return [(make, by_colour[side])] if side in by_colour else []
    return [("clean", v) for v in by_colour.values()]


def main():
    split = sys.argv[1] if len(sys.argv) > 1 else "validation"
    with open(f"{CORPUS}/manifest.json", encoding="utf-8") as f:
        games = json.load(f)["games"]
    items = [(g, v["label"]) for g, v in sorted(games.items())
             if v["split"] == split and v["label"] in ("human", "switched")]
    with Pool(2) as pool:
        rows = [r for rs in pool.map(sides, items, chunksize=20) for r in rs]
    clean = [v for k, v in rows if k == "clean"]
    for make in ("Ethereal", "Stockfish"):
        pos = [v for k, v in rows if k == make]
        if not pos:
            continue
        print(f"{split}: switched to {make} ({len(pos)}) against clean sides ({len(clean)})")
        y = [1] * len(pos) + [0] * len(clean)
        for feat in FEATURES:
            a = roc_auc_score(y, [v[feat] for v in pos + clean])
            print(f"  {feat}: AUC {a:.3f}; median {np.median([v[feat] for v in pos]):.3f} "
                  f"against {np.median([v[feat] for v in clean]):.3f}")


if __name__ == "__main__":
    main()
