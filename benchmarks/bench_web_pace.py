"""How long a person waits for the opponent on the web page: wall-clock seconds of each of the person's moves, the
opponent's replies included, as the page's server computes them (``cfrlab.web.sessions.GameSession.act``, what
``POST /api/sessions/{id}/actions`` runs), with the person playing uniformly random legal moves.

Usage: ``python benchmarks/bench_web_pace.py koikoi cfr:200ms cfr:500ms cfr:1000ms --hands 4 [--seed 0]``. Prints,
per opponent: the seconds to build it and to open a session (its first moves included), then the median, 90th
percentile and largest wait per move, the CPU seconds of the serving thread per move (median and 90th
percentile: the wait on an idle core), and the opponent's decisions per move of the person.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from cfrlab.agents import make_agent
from cfrlab.registry import load_game
from cfrlab.web.sessions import GameSession
from cfrlab.web.views import table_view


class Counted:
    """An agent whose decisions are counted."""

    def __init__(self, agent: object) -> None:
        self.agent, self.name, self.decisions = agent, agent.name, 0  # type: ignore[attr-defined]

    def act(self, state: object, rng: np.random.Generator) -> int:
        self.decisions += 1
        return int(self.agent.act(state, rng))  # type: ignore[attr-defined]


def pace(spec: str, opponent: str, hands: int, seed: int) -> dict[str, float]:
    """Play ``hands`` hands of ``spec`` against ``opponent``; the waits in seconds."""
    game = load_game(spec)
    t = time.perf_counter()
    agent = Counted(make_agent(opponent, game))
    built = time.perf_counter() - t
    t = time.perf_counter()
    session = GameSession("bench", game, table_view(game), agent, seat=0, seed=seed)  # type: ignore[arg-type]
    opened = time.perf_counter() - t
    rng = np.random.default_rng(seed)
    waits: list[float] = []
    cpu: list[float] = []
    moves = 0
    for hand in range(hands):
        if hand:
            session.new_hand()
        while not session.finished:
            legal = session.state.legal_actions()
            t, c = time.perf_counter(), time.thread_time()
            session.act(int(rng.choice(legal)))
            waits.append(time.perf_counter() - t)
            cpu.append(time.thread_time() - c)
            moves += 1
    w = np.array(waits)
    return {"built": built, "opened": opened, "moves": moves, "median": float(np.median(w)),
            "p90": float(np.quantile(w, 0.9)), "max": float(w.max()),
            "cpu": float(np.median(cpu)), "cpu_p90": float(np.quantile(cpu, 0.9)),
            "per_move": agent.decisions / max(moves, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("opponents", nargs="+")
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print("| opponent | moves | build s | open s | median s | p90 s | max s | CPU s median, p90 | decisions / move |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for opponent in args.opponents:
        r = pace(args.game, opponent, args.hands, args.seed)
        print(f"| {opponent} | {r['moves']:.0f} | {r['built']:.2f} | {r['opened']:.2f} | {r['median']:.2f} | "
              f"{r['p90']:.2f} | {r['max']:.2f} | {r['cpu']:.2f}, {r['cpu_p90']:.2f} | {r['per_move']:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
