#!/usr/bin/env python3
"""Weaker engines for the corpus: Stockfish limited to an Elo, playing itself.

Each game starts from one of the CC0 8-move opening starts of the Stockfish books
(`openings/stockfish-books/8moves_v3.pgn`, 16 plies), then two native Stockfish
processes play with `UCI_LimitStrength` at `UCI_Elo` levels from 1400 to 2800 (steps of
200; Debian's Stockfish 15.1 accepts 1350-2850) or at full strength, tagged 3000 (an
estimate for 0.1 s a move on one core); the two sides at most 400 apart, each move searched for `--movetime` ms, until the
game ends or `--max-plies` plies have been played (result `*`). The Elo tags are the
nominal `UCI_Elo` levels (Stockfish calibrates them at longer time controls, so at 0.1 s
a move the true strength is somewhat lower); `BookPlies` is 16, so `fairsight corpus add
--skip-tag BookPlies` leaves the given start out. No clocks are written: a fixed move
time would be an artefact for the time statistics to learn.

Deterministic choice of starts and pairings (`--seed`); the moves are not reproducible
(Stockfish's strength limit picks among moves at random).

    pip install chess            # python-chess, to drive the engines
    python3 scripts/selfplay.py --games 150 --out /tmp/selfplay.pgn \
        --book ../shared/data/openings/stockfish-books/8moves_v3.pgn
    # a later batch of the weaker engines only (games 281-560 of the same sequence, those
    # whose two levels are at most 2600):
    python3 scripts/selfplay.py --first 280 --games 280 --max-elo 2600 --out ... --book ...
"""

import argparse
import random
import sys

import chess
import chess.engine
import chess.pgn

LEVELS = list(range(1400, 3001, 200))


def starts(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                return
            yield [m for m in g.mainline_moves()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--book", required=True, help="8moves_v3.pgn")
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--first", type=int, default=0, help="number of the first game (a later batch)")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--movetime", type=int, default=100, help="ms a move")
    ap.add_argument("--max-plies", type=int, default=100)
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument(
        "--max-elo",
        type=int,
        default=None,
        help="play only the planned games whose two levels are at most this (the others are "
        "skipped, keeping their numbers: the sequence is the same with or without it)",
    )
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    book = list(starts(a.book))
    rng = random.Random(a.seed)
    # Draw every game's start and pairing up front so a later batch (--first) continues
    # the same sequence.
    plan = []
    for _ in range(a.first + a.games):
        start = rng.randrange(len(book))
        w = rng.choice(LEVELS)
        b = rng.choice([x for x in LEVELS if abs(x - w) <= 400])
        plan.append((start, w, b))
    plan = list(enumerate(plan, start=1))[a.first:]
    if a.max_elo is not None:
        plan = [p for p in plan if max(p[1][1], p[1][2]) <= a.max_elo]

    engines = [chess.engine.SimpleEngine.popen_uci(a.engine) for _ in range(2)]
    for e in engines:
        e.configure({"Threads": 1, "Hash": 16})
    with open(a.out, "a", encoding="utf-8") as out:
        for n, (start, w, b) in plan:
            board = chess.Board()
            for m in book[start]:
                board.push(m)
            for e, elo in zip(engines, (w, b)):
                if elo >= 3000:
                    e.configure({"UCI_LimitStrength": False})
                else:
                    e.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
            for e in engines:
                e.protocol.send_line("ucinewgame")
            while not board.is_game_over(claim_draw=True) and board.ply() < a.max_plies:
                e = engines[0] if board.turn == chess.WHITE else engines[1]
                r = e.play(board, chess.engine.Limit(time=a.movetime / 1000))
                board.push(r.move)
            game = chess.pgn.Game.from_board(board)
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
            game.headers["Event"] = "fairsight self-play (Stockfish UCI_LimitStrength)"
            game.headers["Site"] = "local"
            game.headers["Date"] = "????.??.??"
            game.headers["Round"] = str(n)
            game.headers["White"] = f"Stockfish Elo {w}"
            game.headers["Black"] = f"Stockfish Elo {b}"
            game.headers["Result"] = result
            game.headers["WhiteElo"] = str(w)
            game.headers["BlackElo"] = str(b)
            game.headers["BookPlies"] = str(len(book[start]))
            game.headers["Opening"] = f"8moves_v3 #{start + 1}"
            game.headers["Movetime"] = str(a.movetime)
            print(game, file=out, end="\n\n")
            out.flush()
            print(f"game {n}: {w} vs {b}, {board.ply()} plies, {result}", file=sys.stderr)
    for e in engines:
        e.quit()


if __name__ == "__main__":
    main()
