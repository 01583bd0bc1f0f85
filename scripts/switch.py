#!/usr/bin/env python3
"""The realistic cheater for the corpus: real human games in which one side hands its
moves to an engine part-way through.

For each taken game (rated, at least `--min-plies` long; spread evenly through the file
as `fairsight train sample` spreads them) one side, alternately White and Black, plays
its real moves up to a switch ply drawn between full moves 10 and 25 (`--from-move`,
`--to-move`; never past the game's last third), and from there every move of that side
is Stockfish's at full strength (`--movetime` ms a move, one thread), or, with
`--assisted-above LO,HI`, Stockfish limited to the side's own rating plus a gap drawn
between LO and HI points (`UCI_Elo`, clamped to 1350-2850): an online player who turns a
weaker engine on after the opening; with `--assisted-engine PATH`, another UCI engine at
full strength, its own book off (an engine of another make than the judge's Stockfish,
e.g. Debian's `/usr/games/ethereal-chess`, or a command line such as `"/usr/games/gnuchess
--uci"`). The opponent continues as Stockfish limited to its
own rating (`UCI_Elo`, clamped to the engine's 1350-2850), so the game goes on as a game
between a human-rated opponent and an assisted player would. Play stops
at the end of the game or at `--max-plies` plies.

Tags added: `Switched` (the assisted side: "white" or "black"), `SwitchPly` (the 1-based
ply of its first engine move), `SwitchEngine`, `SourceGame` (the number of the game in
the input file), and with `--assisted-above` `SwitchElo` (the assisted engine's level).
The original clocks are kept on every ply the original game had (a cheater who keeps a
human rhythm; no clock is invented), so a detector cannot tell a
switched game by its clocks being missing. Names and ratings stay: only the switched
side is scored, against its own rating.

Which source games: `fairsight corpus add` assigns a switched game the split of its
players, which are the players of the source game, so a player's clean and switched
games are always in the same split. To grow one split, `--manifest corpus/manifest.json
--split validation` takes only games whose players are all in that split or not yet in
the corpus (then `fairsight corpus add --split validation`), and `--exclude
corpus/sources/switched-twic*.pgn` leaves out source games another switched file used.

    pip install chess
    python3 scripts/switch.py ../shared/data/human/online/lichess_2025-05_clk.pgn \
        --games 100 --out corpus/sources/switched-lichess.pgn
"""

import argparse
import json
import random
import re
import shlex
import sys

import chess
import chess.engine
import chess.pgn


def fmt_clock(seconds):
    s = max(0, int(round(seconds)))
    return f"{s // 3600}:{s // 60 % 60:02}:{s % 60:02}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--min-plies", type=int, default=40)
    ap.add_argument("--max-elo", type=int, help="only games whose two players are rated at most this")
    ap.add_argument("--max-plies", type=int, default=100)
    ap.add_argument("--movetime", type=int, default=100, help="ms a move")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--out", required=True)
    ap.add_argument("--manifest", help="corpus manifest whose player splits --split reads")
    ap.add_argument("--split", help="only games whose players are in this split or new")
    ap.add_argument("--exclude", nargs="*", default=[], help="switched files whose SourceGame numbers to skip")
    ap.add_argument("--from-move", type=int, default=10, help="earliest full move of the switch")
    ap.add_argument("--to-move", type=int, default=25, help="latest full move of the switch")
    ap.add_argument("--assisted-above", help="LO,HI: the assisted engine limited to the side's rating + a gap drawn in [LO, HI]")
    ap.add_argument("--assisted-engine", help="another UCI engine for the assisted side, at full strength (the opponent stays --engine)")
    a = ap.parse_args()
    if not 1 <= a.from_move <= a.to_move:
        ap.error("--from-move must be at least 1 and at most --to-move")
    above = None
    if a.assisted_above:
        try:
            above = tuple(int(x) for x in a.assisted_above.split(","))
        except ValueError:
            above = ()
        if len(above) != 2 or above[0] > above[1]:
            ap.error("--assisted-above takes LO,HI with LO <= HI, e.g. 300,900")
    if a.assisted_engine and a.assisted_above:
        ap.error("--assisted-engine plays at full strength: it does not take --assisted-above")
    if (a.manifest is None) != (a.split is None):
        ap.error("--manifest and --split go together")
    players = {}
    if a.manifest:
        with open(a.manifest, encoding="utf-8") as f:
            players = json.load(f)["players"]
    used = set()
    for path in a.exclude:
        with open(path, encoding="utf-8") as f:
            used |= {int(n) for n in re.findall(r'^\[SourceGame "(\d+)"\]', f.read(), re.M)}

    eligible = []
    with open(a.file, encoding="utf-8", errors="replace") as f:
        number = 0
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            number += 1
            h = g.headers
            if number in used:
                continue
            if a.split and any(
                players.get(h.get(t, "").strip().lower(), a.split) != a.split
                for t in ("White", "Black")
            ):
                continue
            if g.errors or "FEN" in h or h.get("Variant", "Standard") not in ("Standard", ""):
                continue
            try:
                elos = int(h.get("WhiteElo", "")), int(h.get("BlackElo", ""))
            except ValueError:
                continue
            if a.max_elo is not None and max(elos) > a.max_elo:
                continue
            nodes = list(g.mainline())
            if len(nodes) < a.min_plies:
                continue
            eligible.append((number, g, elos, nodes))
    take = min(a.games, len(eligible))
    picked = sorted({(j * len(eligible) // take + a.offset) % len(eligible) for j in range(take)})
    print(f"{a.file}: {len(eligible)} eligible games, taking {len(picked)}", file=sys.stderr)

    rng = random.Random(a.seed)

    def open_assisted():
        e = chess.engine.SimpleEngine.popen_uci(shlex.split(a.assisted_engine or a.engine))
        if a.assisted_engine:
            settings = (("Threads", 1), ("Hash", 16), ("OwnBook", False))
            e.configure({o: v for o, v in settings if o in e.options})
        else:
            e.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": above is not None})
        return e

    assisted = open_assisted()
    opponent = chess.engine.SimpleEngine.popen_uci(shlex.split(a.engine))
    engines = [assisted, opponent]
    assisted_name = assisted.id.get("name", a.assisted_engine) if a.assisted_engine else "Stockfish 15.1"
    opponent.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": True})
    with open(a.out, "a", encoding="utf-8") as out:
        for k, i in enumerate(picked):
            number, g, elos, nodes = eligible[i]
            side = chess.WHITE if (k + a.offset) % 2 == 0 else chess.BLACK
            last = len(nodes) * 2 // 3
            lo = 2 * a.from_move - (1 if side == chess.WHITE else 0) - 1  # ply index of the first move
            hi = min(2 * a.to_move - 1, last)
            candidates = [p for p in range(lo, hi + 1) if (p % 2 == 0) == (side == chess.WHITE)]
            if not candidates:
                continue
            switch = rng.choice(candidates)  # 0-based ply index of the first engine move
            opp_elo = min(2850, max(1350, elos[1] if side == chess.WHITE else elos[0]))
            opponent.configure({"UCI_Elo": opp_elo})
            own_elo = elos[0] if side == chess.WHITE else elos[1]
            assisted_elo = None
            if above is not None:
                assisted_elo = min(2850, max(1350, own_elo + rng.randint(*above)))
                assisted.configure({"UCI_Elo": assisted_elo})
            for e in engines:
                e.protocol.send_line("ucinewgame")
            clocks = [n.clock() for n in nodes]
            board = g.board()
            game = chess.pgn.Game()
            for key, value in g.headers.items():
                game.headers[key] = value
            node = game
            ply = 0
            while not board.is_game_over(claim_draw=True) and ply < a.max_plies:
                if ply < switch:
                    move = nodes[ply].move
                elif board.turn == side:
                    # GNU Chess 6.2.7 can die on its own long output (an assertion in
                    # engine.cc): a helper that dies is started again and asked again.
                    try:
                        move = assisted.play(board, chess.engine.Limit(time=a.movetime / 1000)).move
                    except chess.engine.EngineTerminatedError as err:
                        print(f"game {number}: the assisted engine died ({err}); started again", file=sys.stderr)
                        try:
                            assisted.close()  # the dead one's event loop, or the script never exits
                        except Exception:
                            pass
                        assisted = engines[0] = open_assisted()
                        if above is not None:
                            assisted.configure({"UCI_Elo": assisted_elo})
                        move = assisted.play(board, chess.engine.Limit(time=a.movetime / 1000)).move
                else:
                    move = opponent.play(board, chess.engine.Limit(time=a.movetime / 1000)).move
                board.push(move)
                node = node.add_variation(move)
                if ply < len(clocks) and clocks[ply] is not None:
                    node.comment = f"[%clk {fmt_clock(clocks[ply])}]"
                ply += 1
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
            game.headers["Result"] = result
            game.headers["Switched"] = "white" if side == chess.WHITE else "black"
            game.headers["SwitchPly"] = str(switch + 1)
            strength = f", UCI_Elo {assisted_elo}" if assisted_elo is not None else ""
            game.headers["SwitchEngine"] = f"{assisted_name}{strength}, {a.movetime} ms a move"
            if assisted_elo is not None:
                game.headers["SwitchElo"] = str(assisted_elo)
            game.headers["SourceGame"] = str(number)
            print(game, file=out, end="\n\n")
            out.flush()
            print(
                f"game {number}: {game.headers['Switched']} switches at ply {switch + 1}, "
                f"opponent {opp_elo}, assisted {assisted_elo or 'full strength'}, {ply} plies, {result}",
                file=sys.stderr,
            )
    for e in engines:
        e.quit()


if __name__ == "__main__":
    main()
