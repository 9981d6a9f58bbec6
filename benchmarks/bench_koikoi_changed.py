"""How often the network changes the Koi-Koi search's decision, against how often the search changes its own.

Positions: every decision with two or more legal actions of ``--positions`` worth of single ``nintendo`` rounds
played by ``--players`` (``search:16`` by default) in self-play. At each, ``search:Tms`` decides twice (two
independent searches: at a fixed budget its choice is itself noisy) and ``neural:Tms`` once (the shipped network
unless ``--neural`` names another). A decision is *changed* by the network when the neural agent's choice differs
from the first search's; the search's disagreement with itself is the share that noise alone would change. Shares
with 95 % intervals, overall and by kind of decision (a card to play, a capture choice, koi-koi or stop).

Usage: ``python benchmarks/bench_koikoi_changed.py --positions 2000 --ms 20 --workers 16 [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
from multiprocessing import Pool
from typing import Any

import numpy as np

KINDS = ("play", "capture", "koikoi")


def kind_of(state: Any) -> str:
    from cfrlab.games.koikoi.rules import engine_state as E

    phase = state.es.phase
    return "play" if phase == E.PLAY else "koikoi" if phase == E.DECIDE else "capture"


def positions(game: Any, players: str, count: int, seed: int) -> list[Any]:
    """``count`` decision states (2+ legal actions) of ``players``' self-play, round after round."""
    from cfrlab.agents.base import make_agent

    agent, rng, found = make_agent(players, game), np.random.default_rng(seed), []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            if len(state.legal_actions()) >= 2:
                found.append(state)
            state = state.child(agent.act(state, rng))
    return found


def measure(task: tuple[int, int, dict[str, Any]]) -> list[tuple[str, int, int]]:
    """Per position of one worker: its kind, whether ``neural`` differs from ``search``, and ``search`` from
    ``search`` run again."""
    worker, count, args = task
    from cfrlab.agents.base import make_agent
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    search, neural = make_agent(f"search:{args['ms']}ms", game), make_agent(args["neural"], game)
    rng = np.random.default_rng(10_000 + worker)
    rows = []
    for state in positions(game, args["players"], count, seed=worker):
        first, again, net = search.act(state, rng), search.act(state, rng), neural.act(state, rng)
        rows.append((kind_of(state), int(net != first), int(again != first)))
    return rows


def share(flags: list[int]) -> dict[str, float]:
    n = len(flags)
    p = sum(flags) / n if n else math.nan
    half = 1.96 * math.sqrt(p * (1 - p) / n) if n else math.nan
    return {"n": n, "share": p, "low": p - half, "high": p + half}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--ms", type=float, default=20.0, help="CPU milliseconds per decision of both agents")
    ap.add_argument("--players", default="search:16", help="the self-play agent whose positions are scored")
    ap.add_argument("--neural", default=None, help="neural agent spec (default: neural:MSms, shipped weights)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    ms = f"{args.ms:g}"
    options = {"ms": ms, "players": args.players, "neural": args.neural or f"neural:{ms}ms"}
    per = -(-args.positions // args.workers)
    with Pool(args.workers) as pool:
        rows = [r for part in pool.map(measure, [(w, per, options) for w in range(args.workers)]) for r in part]
    result: dict[str, Any] = {"machine": platform.processor() or platform.machine(), "workers": args.workers,
                              **options}
    for kind in ("all", *KINDS):
        picked = [r for r in rows if kind in ("all", r[0])]
        result[kind] = {"changed_by_network": share([r[1] for r in picked]),
                        "search_against_itself": share([r[2] for r in picked])}
        net, own = result[kind]["changed_by_network"], result[kind]["search_against_itself"]
        print(f"{kind:8s} n={net['n']:5d}  network changes {net['share']:.3f} [{net['low']:.3f}, {net['high']:.3f}]"
              f"  search against itself {own['share']:.3f} [{own['low']:.3f}, {own['high']:.3f}]")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
