"""Speed of the rules engine, as ratios measured in one run (a report, not a test).

(a) apply+undo pairs per second on legal actions from positions reached by random
    legal play, against python-chess ``board.push(move)`` + ``board.pop()`` pairs on
    legal moves of positions reached the same way (target: ours / chess >= 1.0);
(b) the per-action cost (apply one action + undo) on a game with 10 actions of
    history against one with 5,000, the long one loaded through JSON
    (``to_state``/``from_state``) as the service does and also kept in memory
    (target: long / short <= 1.2).

Measurements alternate, use this process's CPU time, and the medians of several
rounds are reported, so that noise from other processes hits every side alike. Run ``python bench/engine``
(``--quick`` for a short run). Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.engine.workload import DRAW, RECYCLE, UNDO, clock, engine_positions, random_play, time_engine  # noqa: E402
from service.engine import Game, GameCode  # noqa: E402


def chess_positions(rng: random.Random, games: int):
    import chess

    positions = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randrange(4, 60)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            board.push(rng.choice(moves))
            moves = list(board.legal_moves)
            if moves:
                positions.append((board.copy(), moves))
    return positions


def time_chess(positions, reps: int) -> float:
    pairs = 0
    start = clock()
    for _ in range(reps):
        for board, moves in positions:
            push, pop = board.push, board.pop
            for move in moves:
                push(move)
                pop()
            pairs += len(moves)
    return pairs / (clock() - start)


def short_and_long(rng: random.Random, short: int, history: int, draw: int) -> tuple[Game, Game]:
    """Two games in the same position, one with ``short`` actions of history, one with
    about ``history`` (random play, then whole passes of draws and recycles that bring
    the stock and waste back where they were), so that only the history differs."""
    while True:
        game = Game.from_code(GameCode(draw=draw, deal=rng.randrange(26**7)))
        random_play(game, rng, short, undo_share=0.1)
        if game.version != short or not (game.stock or game.waste):
            continue
        long = Game.from_state(game.to_state())
        while long.version < 3 * history:
            long.apply(DRAW if long.stock else RECYCLE)
            if long.version >= history and long.stock == game.stock and long.waste == game.waste:
                long.waste_fan = game.waste_fan
                return game, long


def per_action_seconds(game: Game, rounds: int) -> float:
    """Seconds per (apply one legal action + undo), over every legal action."""
    actions = [a for a in game.legal_actions() if a.kind != "undo"]
    apply = game.apply
    start = clock()
    for _ in range(rounds):
        for action in actions:
            apply(action)
            apply(UNDO)
    return (clock() - start) / (rounds * len(actions))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (fewer rounds)")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args(argv)
    rounds, reps, chunks = (5, 1, 30) if args.quick else (25, 1, 150)
    rng = random.Random(args.seed)

    # (a) ours against python-chess, alternating, medians of the rounds
    positions = engine_positions(rng, deals=12 if args.quick else 30)
    try:
        boards = chess_positions(random.Random(args.seed), games=8 if args.quick else 20)
    except ImportError:
        boards = None
    ours, theirs = [], []
    for turn in range(rounds):
        # alternate which side goes first; each round's two rates are measured
        # back to back, so their ratio sees the same machine conditions
        if boards is not None and turn % 2:
            theirs.append(time_chess(boards, reps))
        ours.append(time_engine(positions, reps))
        if boards is not None and not turn % 2:
            theirs.append(time_chess(boards, reps))
    ours_rate = statistics.median(ours)
    if boards is None:
        print(f"apply+undo: {ours_rate:.0f} pairs/s; python-chess not installed, no ratio")
    else:
        chess_rate = statistics.median(theirs)
        ratio = statistics.median(o / t for o, t in zip(ours, theirs, strict=True))
        print(
            f"apply+undo: {ours_rate:.0f} pairs/s; python-chess push+pop: {chess_rate:.0f} pairs/s; "
            f"ratio {ratio:.2f} (target >= 1.0; median of {rounds} back-to-back rounds)"
        )
    draw_game = Game.from_code("TF1-D1N-AAAAAAB")
    draw = DRAW
    start, count = clock(), 20000 if args.quick else 100000
    for _ in range(count // 20):
        for _ in range(20):
            draw_game.apply(draw)
            draw_game.apply(UNDO)
    print(f"draw+undo: {count / (clock() - start):.0f} pairs/s")

    # (b) per-action cost against history length: short chunks in rotation, so
    # that a burst of load from other processes hits every game alike
    for draw_mode in (1, 3):
        short, long_mem = short_and_long(rng, 10, 5000, draw_mode)
        history = long_mem.version
        long_json = Game.from_state(json.loads(json.dumps(long_mem.to_state())))
        assert long_json == long_mem
        games = (short, long_mem, long_json)
        times: list[list[float]] = [[], [], []]
        for turn in range(chunks):
            for i in range(3):
                k = (i + turn) % 3
                times[k].append(per_action_seconds(games[k], 20))
        s, m, j = (statistics.median(t) for t in times)
        print(
            f"draw {draw_mode}: per action (apply+undo) with 10 actions of history {s * 1e6:.2f} us; "
            f"with {history}: in memory {m * 1e6:.2f} us (ratio {m / s:.2f}), "
            f"from JSON {j * 1e6:.2f} us (ratio {j / s:.2f}) (target <= 1.2)"
        )
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a report, not a test: say what broke and exit 0
        print(f"benchmark failed: {error!r}")
    sys.exit(0)
