"""Bucketing a real hold'em hand under the E[HS^2] abstraction: enumeration against the flop table.

A player's bucket after the flop needs E[HS^2] of the hand on that flop: on 52
cards every turn, river and opponent hand, about a million evaluations. The
large-deck builder keeps every (private hand, flop) class's count in the
game's flop table (``cfrlab.games.holdem.abstraction.flop_table``), so the flop becomes a
lookup; after the turn, one pass gives every private hand of the board its
count (``turn_counts``: Local Best Response asks a whole range). For
``--hands`` random deals this times, per round, the count by enumeration, by
the table after the flop and for the whole board after the turn, checks they
agree, and times
whole bucket sequences (the four rounds of a hand) with and without the tables;
after the turn also the game's turn table (``cfrlab.games.holdem.abstraction.turn_table``).
Needs the abstraction and the flop table in the cache (``--buckets``, default
5 a round: built by ``bench_holdem.py --abstraction`` or the first solve), or
``--build`` on a small deck (``--game 'holdem(ranks=8,suits=4)'``).

    .venv/bin/python benchmarks/bench_holdem_bucketing.py --hands 20
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def random_deal(game, rng: np.random.Generator) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    cards = [int(c) for c in rng.permutation(game.deck_size)]
    hole, rest = tuple(cards[: game.hole_cards]), cards[game.hole_cards :]
    nf = game.board_cards[1]
    return hole, [(), tuple(rest[:nf]), (rest[nf],), (rest[nf + 1],)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--buckets", default="5")
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--build", action="store_true", help="build the large-deck tables of --game here (a small "
                        "deck: no cache), with the flop and turn tables, instead of reading the cache")
    args = parser.parse_args()
    from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
    from cfrlab.registry import load_game

    game = with_abstraction(load_game(args.game), f"ehs2:{args.buckets}")
    if args.build:
        from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction

        folder = tempfile.TemporaryDirectory(prefix="cfrlab-bench-")  # removed when the run ends
        with_table = build_large_abstraction(game.real_game, game.buckets, samples=16, replicates=1, workers=2,
                                             turn_path=Path(folder.name) / "turn.npy")
    else:
        with_table = game.abstraction
    if getattr(with_table, "flop_table", None) is None:
        raise SystemExit("no flop table in the cache for this game: build the abstraction first")
    real, rng = game.real_game, np.random.default_rng(0)
    deals = [random_deal(real, rng) for _ in range(args.hands)]
    hole, boards = random_deal(real, rng)  # compile the kernels on another deal
    for k in (1, 2, 3):
        with_table.enumerated_count(hole, sum(boards[: k + 1], ()))
    with_table._count(hole, boards[1])
    per_round: dict[str, list[float]] = {"flop enumerated": [], "flop table": [], "turn enumerated": [],
                                         "turn, every hand of the board": [], "turn table": [],
                                         "turn table, every hand of the board": [],
                                         "river enumerated": []}
    turns = with_table.turn_table
    for hole, boards in deals:
        for k, name in ((1, "flop"), (2, "turn"), (3, "river")):
            board = sum(boards[: k + 1], ())
            t = time.perf_counter()
            counted = with_table.enumerated_count(hole, board)
            per_round[f"{name} enumerated"].append(time.perf_counter() - t)
            if k == 1:
                t = time.perf_counter()
                looked_up = with_table._count(hole, board)
                per_round["flop table"].append(time.perf_counter() - t)
                assert looked_up == counted, (hole, board)
            if k == 2:
                t = time.perf_counter()
                every = with_table.turn_counts(boards[1], boards[2][0])
                per_round["turn, every hand of the board"].append(time.perf_counter() - t)
                assert every[sum(1 << c for c in hole)] == counted, (hole, board)
                if turns is not None:
                    t = time.perf_counter()
                    looked_up = turns.count(hole, boards[1], boards[2][0])
                    per_round["turn table"].append(time.perf_counter() - t)
                    assert looked_up == counted, (hole, board)
                    t = time.perf_counter()
                    board_counts = turns.board_counts(boards[1], boards[2][0])
                    per_round["turn table, every hand of the board"].append(time.perf_counter() - t)
                    assert board_counts == every, (hole, board)
    enumerated = sum(np.median(per_round[f"{name} enumerated"]) for name in ("flop", "turn", "river"))
    sequences = {"every count enumerated": float(enumerated)}
    for name, turn_table in (("flop table, turn by board", None), ("flop and turn tables", turns)):
        if name.endswith("tables") and turns is None:
            continue
        fresh = dataclasses.replace(with_table, _recent={}, _turns={}, turn_table=turn_table)  # nothing remembered
        t = time.perf_counter()
        for hole, boards in deals:
            fresh.bucket_sequence(hole, boards)
        sequences[name] = (time.perf_counter() - t) / len(deals)
    report = {"game": real.spec(), "buckets": with_table.buckets, "hands": len(deals), "load": os.getloadavg(),
              "ms_per_count": {k: 1000 * float(np.median(v)) for k, v in per_round.items() if v},
              "ms_per_bucket_sequence": {k: 1000 * v for k, v in sequences.items()}}
    for name, ms in report["ms_per_count"].items():
        print(f"{name:>18}: {ms:9.3f} ms (median of {len(deals)})")
    for name, ms in report["ms_per_bucket_sequence"].items():
        print(f"bucket sequence of a hand (4 rounds), {name}: {ms:.1f} ms")
    print(f"every lookup equals the enumeration; load average {report['load']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
