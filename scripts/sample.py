#!/usr/bin/env python3
"""The page's built-in sample: two players of a club, one clean, one engine-assisted.

A newcomer presses "Analyse the sample games" and sees what the tool is for: the
summary puts a player who used an engine beside one who did not, each over several
games with Elo tags and clocks, long enough for an assessment. Every game says in its
opening comment what it is, so nobody is misled about where the moves came from.

- "Ada" is a pseudo-player (as the assessment's own evaluation pools them): the sides of
  `--games` real CC0 lichess blitz games (`--min-plies` to `--max-plies` long) (lichess's database, May 2025) of players rated
  `--elo-min` to `--elo-max`, alternately White and Black, renamed Ada. Every move and
  clock is the real game's; the opponents keep their names; Site links the game.
- "Eve" plays `--games` other games of the same file the same way up to her move
  `--switch` (a real player's moves and clocks), then every move of hers is Stockfish's
  at full strength (`--movetime` ms a move, one thread) and the opponent continues as
  Stockfish limited to the opponent's rating (`UCI_Elo`), named for what it is
  ("Stockfish 1900"). Play stops at the end of the game or at `--max-plies`. The real
  game's clocks stay on every ply (its source games are at least that long, so every
  ply has one, as in `scripts/switch.py`). Tags `Switched`,
  `SwitchPly`, `SwitchEngine` and `SourceGame` say what was done.

The games are taken in file order among the eligible ones, so the choice is
deterministic; Stockfish's moves are not (its strength limit picks at random), so a new
run gives other games: check the sample with `fairsight analyze` at the defaults before
committing it (the README says what it showed).

    pip install chess
    python3 scripts/sample.py ../shared/data/human/online/lichess_2025-05_clk.pgn \
        --out samples/club.pgn
"""

import argparse
import sys

import chess
import chess.engine
import chess.pgn


def fmt_clock(seconds):
    s = max(0, int(round(seconds)))
    return f"{s // 3600}:{s // 60 % 60:02}:{s % 60:02}"


def eligible_games(path, a):
    with open(path, encoding="utf-8", errors="replace") as f:
        number = 0
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                return
            number += 1
            h = g.headers
            if g.errors or "FEN" in h or "Blitz" not in h.get("Event", ""):
                continue
            try:
                elos = int(h["WhiteElo"]), int(h["BlackElo"])
            except (KeyError, ValueError):
                continue
            nodes = list(g.mainline())
            if not all(a.elo_min <= e <= a.elo_max for e in elos):
                continue
            if len(nodes) < a.min_plies or any(n.clock() is None for n in nodes):
                continue
            yield number, g, elos, nodes


def copy_headers(src, dst, keep=("Event", "Site", "Date", "Round", "White", "Black", "Result",
                                 "WhiteElo", "BlackElo", "ECO", "Opening", "TimeControl")):
    for key in keep:
        if key in src.headers:
            dst.headers[key] = src.headers[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", required=True)
    ap.add_argument("--games", type=int, default=3, help="games of each player")
    ap.add_argument("--elo-min", type=int, default=1800)
    ap.add_argument("--elo-max", type=int, default=2100)
    ap.add_argument("--min-plies", type=int, default=36)
    ap.add_argument("--max-plies", type=int, default=60)
    ap.add_argument("--switch", type=int, default=8, help="Eve's first engine move (full move)")
    ap.add_argument("--skip", type=int, default=0, help="eligible games to pass over first")
    ap.add_argument("--movetime", type=int, default=100, help="ms a move")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    a = ap.parse_args()

    games = list(eligible_games(a.file, a))[a.skip:]
    # Ada's games whole (no longer than --max-plies); Eve's long enough to keep the real
    # game's clocks on every ply she plays.
    ada = [x for x in games if len(x[3]) <= a.max_plies][: a.games]
    eve = [x for x in games if len(x[3]) >= a.max_plies and x not in ada][: a.games]
    if len(ada) < a.games or len(eve) < a.games:
        sys.exit(f"{a.file}: too few eligible games")

    out = []
    for k, (number, g, elos, nodes) in enumerate(ada):
        side = "White" if k % 2 == 0 else "Black"
        game = chess.pgn.Game()
        copy_headers(g, game)
        game.headers[side] = "Ada"
        game.comment = (
            f"Sample: a real game (CC0, {g.headers['Site']}); Ada stands for its "
            f"{side.lower()} player, every move and clock is theirs."
        )
        node = game
        for n in nodes:
            node = node.add_variation(n.move)
            node.comment = f"[%clk {fmt_clock(n.clock())}]"
        out.append(game)
        print(f"Ada: game {number}, {side}, {len(nodes)} plies", file=sys.stderr)

    assisted = chess.engine.SimpleEngine.popen_uci(a.engine)
    opponent = chess.engine.SimpleEngine.popen_uci(a.engine)
    assisted.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": False})
    opponent.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": True})
    for k, (number, g, elos, nodes) in enumerate(eve):
        side = chess.WHITE if k % 2 == 0 else chess.BLACK
        name = "White" if side == chess.WHITE else "Black"
        other = "Black" if side == chess.WHITE else "White"
        switch = 2 * (a.switch - 1) + (0 if side == chess.WHITE else 1)  # 0-based ply
        opp_elo = min(2850, max(1350, elos[1] if side == chess.WHITE else elos[0]))
        opponent.configure({"UCI_Elo": opp_elo})
        for e in (assisted, opponent):
            e.protocol.send_line("ucinewgame")
        board = g.board()
        game = chess.pgn.Game()
        copy_headers(g, game, keep=("Date", "Round", "WhiteElo", "BlackElo", "ECO", "TimeControl"))
        game.headers["Event"] = "Blitz game (generated)"
        game.headers["Site"] = "fairsight sample"
        game.headers[name] = "Eve"
        game.headers[other] = f"Stockfish {opp_elo}"
        game.comment = (
            f"Sample, generated: the first {a.switch - 1} moves of each side are a real CC0 "
            f"lichess game's; from move {a.switch} Eve's moves are Stockfish's at full "
            f"strength and her opponent is Stockfish limited to {opp_elo}. The clocks are "
            "the real game's."
        )
        node = game
        ply = 0
        while not board.is_game_over(claim_draw=True) and ply < a.max_plies:
            if ply < switch:
                move = nodes[ply].move
            else:
                e = assisted if board.turn == side else opponent
                move = e.play(board, chess.engine.Limit(time=a.movetime / 1000)).move
            board.push(move)
            node = node.add_variation(move)
            if ply < len(nodes):
                node.comment = f"[%clk {fmt_clock(nodes[ply].clock())}]"
            ply += 1
        game.headers["Result"] = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
        game.headers["Switched"] = name.lower()
        game.headers["SwitchPly"] = str(switch + 1)
        game.headers["SwitchEngine"] = f"Stockfish, {a.movetime} ms a move"
        game.headers["SourceGame"] = str(number)
        out.append(game)
        print(f"Eve: game {number}, {name}, {ply} plies, {game.headers['Result']}", file=sys.stderr)
    assisted.quit()
    opponent.quit()

    # Ada's and Eve's games alternate, so the list shows both from the start.
    order = [x for pair in zip(out[: a.games], out[a.games:]) for x in pair]
    with open(a.out, "w", encoding="utf-8") as f:
        for game in order:
            print(game, file=f, end="\n\n")


if __name__ == "__main__":
    main()
