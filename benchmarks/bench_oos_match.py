"""Online Outcome Sampling in Koi-Koi matches (a benchmark): samples per CPU second by objective, and arenas.

The OOS agent searches the current round of a match from its deal (``cfrlab.games.koikoi.rules.match_round``; Lisy,
Lanctot & Bowling 2015, the deal conditioned as in seed 000 sec. 10.1). The numba round walk searches the round for both
objectives: ``'points'`` (under month-free rules as the single round of its dealer, else as the
``MatchRoundGame``) and ``'match'`` (the match-win probability after the round, ``match.MatchTable``).

* samples per CPU second of both objectives, at decisions of random matches in round ``--round`` or later (after a
  warm-up move, so numba compiles before the clock);
* with ``--deals N``: 12-round matches against ``greedy`` for both objectives at ``--seconds`` CPU seconds a
  move, N duplicate deals (what ``cfrlab arena koikoi oos:S[:match] greedy --match --rounds N`` prints);
* with ``--objectives SPEC --deals N``: the match objective against the points objective at equal samples
  (``--samples-each``) in the matches of SPEC, N duplicate deals.

    .venv/bin/python benchmarks/bench_oos_match.py --samples 20000 1000 --round 3 --deals 5 --seconds 0.1
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cfrlab.agents import make_agent
from cfrlab.agents.oos import OOSAgent
from cfrlab.eval.arena import arena
from cfrlab.games.koikoi.rules.match import match_table
from cfrlab.registry import load_game


def later_decision(game, seed: int, round_index: int):  # a match and one of its states
    """A decision with two legal actions or more in round ``round_index`` or later, on a random path."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            if state.es.round >= round_index and len(legal) >= 2 and state.es.turn >= 3:
                return state
            state = state.child(legal[int(rng.integers(len(legal)))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="koikoi(rounds=12)")
    parser.add_argument("--samples", nargs=2, type=int, default=[20_000, 1_000],
                        help="samples per timed move for the points and the match objective")
    parser.add_argument("--round", type=int, default=3, help="decisions in this round (0-based) or later")
    parser.add_argument("--decisions", type=int, default=3)
    parser.add_argument("--deals", type=int, default=0, help="duplicate deals of the arenas (0: none)")
    parser.add_argument("--seconds", type=float, default=0.1, help="CPU seconds per move in the arenas")
    parser.add_argument("--objectives", help="a match spec: the two objectives head to head there, then stop")
    parser.add_argument("--samples-each", type=int, default=200, help="samples per move of each objective")
    args = parser.parse_args()
    if args.objectives:
        objectives(args.objectives, args.samples_each, args.deals)
        return
    game = load_game(args.spec)
    table = match_table(game.rules)
    for seed in range(1, args.decisions + 1):
        state = later_decision(game, seed, args.round)
        for objective, n in zip(("points", "match"), args.samples):
            OOSAgent(game, samples=n, objective=objective, table=table).act(state, np.random.default_rng(0))
            agent = OOSAgent(game, samples=n, objective=objective, table=table)
            start = time.thread_time()
            agent.act(state, np.random.default_rng(1))
            rate = n / (time.thread_time() - start)
            print(f"round {state.es.round + 1}, {objective}: {agent.solver.path} path, {rate:,.0f} samples per CPU "
                  "second", flush=True)
    if args.deals:
        match = load_game(args.spec, first_oya="coin")
        for name in (f"oos:{args.seconds:g}", f"oos:{args.seconds:g}:match"):
            start = time.perf_counter()
            result = arena(match, make_agent(name, match), make_agent("greedy", match), deals=args.deals, seed=0)
            r, w = result.points_per_round_a, result.win_rate_a
            print(f"{name} vs greedy, {args.deals} duplicate deals ({result.games} matches): {r.mean:+.2f} points "
                  f"per round [{r.low:+.2f}, {r.high:+.2f}], match wins {w.mean:.2f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)


def objectives(spec: str, samples: int, deals: int) -> None:
    """OOS for the match-win probability against OOS for the round's points, equal samples per move."""
    game = load_game(spec)
    table = match_table(game.rules)
    start = time.perf_counter()
    result = arena(game, OOSAgent(game, samples=samples, objective="match", table=table),
                   OOSAgent(game, samples=samples), deals=deals, seed=0)
    w, r = result.win_rate_a, result.points_per_round_a
    print(f"{spec}: oos:{samples}:match vs oos:{samples}, {result.games} matches: match wins {w.mean:.3f} "
          f"[{w.low:.3f}, {w.high:.3f}], draws {result.draw_rate:.3f}, points per round {r.mean:+.2f} "
          f"[{r.low:+.2f}, {r.high:+.2f}] ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
