#!/usr/bin/env python3
"""Engines of other makes for the corpus: Debian's chess engines playing each other.

Every weaker engine the detector was trained on is Stockfish with `UCI_LimitStrength`.
A cheater may use any engine, and a strength-limited Stockfish errs in a way of its own
(it picks among its few best moves with a random push), so the detector is measured, and
can be trained, on engines of other makes too: Fairy-Max, HoiChess, Glaurung, Ethereal,
Phalanx, GNU Chess and Toga II, all from Debian (`apt-get install fairymax hoichess
glaurung ethereal-chess phalanx gnuchess toga2`; GPL). Each engine plays at full strength with its own opening book off, on one
thread: a UCI engine `--movetime` ms a move (the `Movetime` tag), an xboard engine
(Fairy-Max, HoiChess, Phalanx) with `--clock` centiseconds left on a one-minute clock at
every move (a few tenths of a second a move), from the CC0 8-move starts of the Stockfish books
(`openings/stockfish-books/8moves_v3.pgn`, 16 plies: `BookPlies` 16, so `fairsight corpus
add --skip-tag BookPlies` leaves the given start out), until the game ends or
`--max-plies` plies have been played (result `*`). No clocks are written.

The engines come in two groups that never meet, so that a model can be trained on one
group's makes and measured on makes it never saw (`--group train`: Phalanx, GNU Chess,
Toga II; `--group train-long`: GNU Chess and Toga II, for a longer `--movetime`, with
`--tag` guesses until measured; `--group test`: Fairy-Max, HoiChess, Glaurung, Ethereal). Within a group every pairing and
colour comes in turn. The assessment scores a weaker engine's side against a rating
drawn from clean humans rated 200 or more below its Elo tag, so the tag must be the
engine's strength as played here: each make's tag puts it on the self-play ladder
(`scripts/selfplay.py`'s `UCI_Elo` levels, the same nominal scale) by its ACPL against
the corpus's judge, and by its intrinsic rating (IPR) where ACPL no longer tells the
levels apart (2,400 and up), both measured by `fairsight corpus report` on its stored
games (corpus/README.md, "Engines of other makes"). The test group's tags are so
measured (session 69: first guessed from CCRL's order, 1900 / 2100 / 2700 / 3000, which
put Glaurung and Ethereal 500-650 points above how they played at 0.1 s a move, and the
stored games retagged); the train group's too (session 70: first guessed 2300 / 2500 /
2800, all three played like the 2000-2100 levels).

Deterministic choice of starts and pairings (`--seed`); the moves need not be
reproducible (searches by time).

    pip install chess            # python-chess, to drive the engines
    python3 scripts/othermakes.py --group test --games 150 --out corpus/sources/othermakes-test.pgn \
        --book ../shared/data/openings/stockfish-books/8moves_v3.pgn
"""

import argparse
import queue
import random
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn

from selfplay import starts

# name, command line, protocol, UCI options (xboard: commands sent at start), Elo tag (as
# measured: see above)
MAKES = {
    "fairymax": ("Fairy-Max 5.0b", ["/usr/games/fairymax"], "xboard", {}, 1650),
    "hoichess": (
        "HoiChess 0.22.0",
        ["/usr/games/hoichess", "--xboard"],
        "xboard",
        {"commands": ["book close"]},  # its small book, opened at start
        1850,
    ),
    "glaurung": (
        "Glaurung 2.2",
        ["/usr/games/glaurung"],
        "uci",
        {"OwnBook": False, "Threads": 1, "Hash": 16},
        2050,
    ),
    "ethereal": (
        "Ethereal 12.00",
        ["/usr/games/ethereal-chess"],
        "uci",
        {"Threads": 1, "Hash": 16, "MoveOverhead": 10},
        2500,
    ),
    "phalanx": ("Phalanx XXV", ["/usr/games/phalanx", "-b-", "-l-"], "xboard", {}, 2000),
    "gnuchess": (
        "GNU Chess 6.2.7",
        ["/usr/games/gnuchess", "--uci"],
        "uci",
        {"OwnBook": False, "Hash": 16},
        2050,
    ),
    "toga2": ("Toga II 3.0", ["/usr/games/toga2"], "uci", {"OwnBook": False, "Hash": 16}, 2100),
}
GROUPS = {
    "train": ["phalanx", "gnuchess", "toga2"],
    # The train group's UCI engines again, meant for a longer --movetime: stronger play of
    # the same makes (the test group reaches 2,500 with Ethereal; the train group at
    # 0.1 s a move stops at 2,100).
    "train-long": ["gnuchess", "toga2"],
    "test": ["fairymax", "hoichess", "glaurung", "ethereal"],
}


class XBoard:
    """A minimal xboard driver. python-chess's needs `setboard`, which Fairy-Max does not
    declare, and sends `st` in fractions of a second, which HoiChess refuses; here every
    move is asked for from the start position in force mode, with a clock of
    `clock_cs` centiseconds left in a game of one minute (the engines spend a few tenths
    of a second a move)."""

    def __init__(self, cmd, clock_cs):
        self.p = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.clock_cs = clock_cs
        self.out = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()
        self.send("xboard")
        self.send("protover 2")
        self.usermove = False
        for line in self.lines(3.0):
            self.usermove |= "usermove=1" in line
            if "done=1" in line:
                break

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self):
        for line in self.p.stdout:
            self.out.put(line.strip())
        self.out.put(None)

    def lines(self, seconds):
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                line = self.out.get(timeout=left)
            except queue.Empty:
                return
            if line is None:
                raise RuntimeError("engine exited")
            yield line

    def play(self, board):
        while not self.out.empty():  # anything left from the last move
            self.out.get_nowait()
        self.send("new")
        self.send("force")
        self.send("easy")
        for m in board.move_stack:
            self.send(("usermove " if self.usermove else "") + m.uci())
        self.send("level 0 1 0")
        self.send(f"time {self.clock_cs}")
        self.send(f"otim {self.clock_cs}")
        self.send("go")
        for line in self.lines(30.0):
            if line.startswith("move "):
                text = line.split()[1]
                try:
                    return board.parse_uci(text)
                except ValueError:
                    return board.parse_san(text)
        raise RuntimeError("no move in 30 s")

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


class Uci:
    def __init__(self, cmd, options, movetime):
        self.e = chess.engine.SimpleEngine.popen_uci(cmd, stderr=subprocess.DEVNULL)
        self.e.configure(options)
        self.limit = chess.engine.Limit(time=movetime / 1000)

    def play(self, board):
        return self.e.play(board, self.limit).move

    def quit(self):
        self.e.quit()


def open_engine(make, a):
    _, cmd, protocol, options, _ = MAKES[make]
    if protocol == "uci":
        return Uci(cmd, options, a.movetime)
    e = XBoard(cmd, a.clock)
    for line in options.get("commands", []):
        e.send(line)
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--book", required=True, help="8moves_v3.pgn")
    ap.add_argument("--group", required=True, choices=sorted(GROUPS))
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--first", type=int, default=0, help="number of the first game (a later batch)")
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--movetime", type=int, default=100, help="ms a move (UCI engines)")
    ap.add_argument("--clock", type=int, default=200, help="centiseconds on the clock at each move (xboard engines)")
    ap.add_argument("--max-plies", type=int, default=100)
    ap.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="MAKE=ELO",
        help="Elo tag for a make instead of the table's (a guess until measured: another move time, say)",
    )
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    tags = {make: entry[4] for make, entry in MAKES.items()}
    for t in a.tag:
        make, _, elo = t.partition("=")
        if make not in MAKES or not elo.isdigit():
            ap.error(f"--tag {t}: expected MAKE=ELO with MAKE one of {', '.join(MAKES)}")
        tags[make] = int(elo)

    book = list(starts(a.book))
    makes = GROUPS[a.group]
    pairings = [(w, b) for w in makes for b in makes if w != b]
    rng = random.Random(a.seed)
    # Every game's start is drawn up front so a later batch (--first) continues the
    # same sequence; pairings and colours come in turn.
    plan = [(rng.randrange(len(book)), pairings[i % len(pairings)]) for i in range(a.first + a.games)]
    plan = list(enumerate(plan, start=1))[a.first :]

    with open(a.out, "a", encoding="utf-8") as out:
        for n, (start, (w, b)) in plan:
            board = chess.Board()
            for m in book[start]:
                board.push(m)
            # Fresh processes each game: no hash, learning or state carried over.
            engines = {chess.WHITE: open_engine(w, a), chess.BLACK: open_engine(b, a)}
            try:
                while not board.is_game_over(claim_draw=True) and board.ply() < a.max_plies:
                    move = engines[board.turn].play(board)
                    if move is None or move not in board.legal_moves:
                        raise RuntimeError(f"{MAKES[w if board.turn else b][0]} gave no legal move")
                    board.push(move)
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, RuntimeError, ValueError) as e:
                print(f"game {n}: {w} vs {b}: {e}; left out", file=sys.stderr)
                continue
            finally:
                for e in engines.values():
                    try:
                        e.quit()
                    except Exception:
                        pass
            game = chess.pgn.Game.from_board(board)
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
            game.headers["Event"] = f"fairsight engines of other makes ({a.group} group)"
            game.headers["Site"] = "local"
            game.headers["Date"] = "????.??.??"
            game.headers["Round"] = str(n)
            game.headers["White"] = MAKES[w][0]
            game.headers["Black"] = MAKES[b][0]
            game.headers["Result"] = result
            game.headers["WhiteElo"] = str(tags[w])
            game.headers["BlackElo"] = str(tags[b])
            game.headers["BookPlies"] = str(len(book[start]))
            game.headers["Opening"] = f"8moves_v3 #{start + 1}"
            game.headers["Movetime"] = str(a.movetime)
            print(game, file=out, end="\n\n")
            out.flush()
            print(f"game {n}: {w} vs {b}, {board.ply()} plies, {result}", file=sys.stderr)


if __name__ == "__main__":
    main()
