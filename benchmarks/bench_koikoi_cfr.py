"""The ``cfr`` Koi-Koi agent (search refined by the blueprint) against ``search``: arena scores and time per decision.

For each pairing ``A:B`` given, plays ``--deals`` duplicate deals (both seats, 95 % intervals; single rounds, or
12-round matches with ``--match``) through ``cfrlab.eval.arena`` and times every decision of each agent in CPU
seconds of the playing thread (``time.thread_time``: what one core gives, steady on a shared machine). Prints
one table row per pairing: A's points per round, A's win rate (rounds or matches), and ms per decision of A and B.

Usage: ``python benchmarks/bench_koikoi_cfr.py cfr:200,search:200 blueprint,greedy --deals 500 [--match]
[--seed 0] [--json out.json]`` (a pairing is two agent names joined by a comma). Besides ``make_agent``'s names,
ablations of the ``cfr`` agent: ``search-X:N`` or ``search-X:Tms`` (X: any of ``h`` sequential halving, ``t`` the
tuned playout policy, ``d`` the blueprint's koi-koi table; ``search-:Tms`` is plain search with T ms per decision;
``search-thd:Tms`` is ``cfr:Tms``); ``search-o:Tms`` is plain search told the opponent's hand (an upper bound for
beliefs, not an agent).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

import numpy as np


class Timed:
    """An agent whose decisions are timed (CPU seconds of this thread)."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.name, self.seconds, self.decisions = agent, agent.name, 0.0, 0

    def act(self, state: Any, rng: np.random.Generator) -> int:
        t = time.thread_time()
        action = self.agent.act(state, rng)
        self.seconds += time.thread_time() - t
        self.decisions += 1
        return action


def oracle_search(rules: Any, config: Any, name: str) -> Any:
    """Search that is told the opponent's hand (the stock's order still drawn at random): not a fair agent, an upper
    bound on what beliefs over the opponent's hand could give the search (``search-o``)."""
    from cfrlab.games.koikoi.players.search import SearchAgent, playout_values
    from cfrlab.games.koikoi.rules import cards as C
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.games.koikoi.rules.kernels import F_HALF_TURNS

    class OracleSearch(SearchAgent):
        def act(self, state: Any, rng: np.random.Generator) -> int:
            player = state.current_player()
            self._opponent_hand = state.es.hands[1 - player]
            return self.search(information(state.game.engine, state.es, player), rng).action

        def _values(self, info: Any, n: int, rng: np.random.Generator, match: Any, actions: Any = None) -> Any:
            stock = np.array(C.cards_of(info.unseen & ~self._opponent_hand), dtype=np.int8)
            orders = np.ascontiguousarray(stock[np.argsort(rng.random((n, len(stock))), axis=1)])
            opp = np.full(n, self._opponent_hand, dtype=np.uint64)
            u = np.ones((n, 8 * int(self._pr.rules.F[F_HALF_TURNS])))
            return playout_values(self._pr, info, info.legal if actions is None else actions, opp, orders, u, 0.0,
                                  match)

    return OracleSearch(rules, config, name=name)


def make(name: str, game: Any) -> Any:
    """``make_agent(name, game)``, or a ``search-X`` ablation (module docstring)."""
    from cfrlab.agents import make_agent

    if not name.startswith("search-"):
        return make_agent(name, game)
    from cfrlab.games.koikoi.players.blueprint import load_blueprint
    from cfrlab.games.koikoi.players.cfr import decide_table
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.playout_policy import TUNED_WEIGHTS

    kind, budget = name[len("search-"):].split(":")
    if budget.endswith("ms"):
        config = SearchConfig(seconds=float(budget[:-2]) / 1000.0, halving="h" in kind)
    else:
        config = SearchConfig(rollouts=int(budget), halving="h" in kind)
    if "o" in kind:
        return oracle_search(game.rules, config, name)
    decide = decide_table(load_blueprint(None)) if "d" in kind else None
    return SearchAgent(game.rules, config, name=name, decide=decide, weights=TUNED_WEIGHTS if "t" in kind else None)


def run(pair: str, deals: int, seed: int, match: bool) -> dict[str, Any]:
    from cfrlab.eval.arena import arena
    from cfrlab.registry import load_game

    game = load_game("koikoi(rounds=12,first_oya=coin)" if match else "koikoi")
    name_a, name_b = pair.split(",")
    a, b = Timed(make(name_a, game)), Timed(make(name_b, game))
    a.name, b.name = name_a, name_b
    for agent in (a, b):  # compile the kernels outside the timing
        arena(game if not match else load_game("koikoi"), agent.agent, agent.agent, deals=1, seed=seed + 1)
    t0 = time.perf_counter()
    res = arena(game, a, b, deals=deals, seed=seed)
    row = {"pair": pair, "deals": deals, "match": match, "seed": seed,
           "points_per_round": [res.points_per_round_a.mean, res.points_per_round_a.low, res.points_per_round_a.high],
           "win_rate": [res.win_rate_a.mean, res.win_rate_a.low, res.win_rate_a.high], "loss_rate": res.loss_rate_a,
           "ms_a": 1000 * a.seconds / max(a.decisions, 1), "ms_b": 1000 * b.seconds / max(b.decisions, 1),
           "wall_s": time.perf_counter() - t0, "load": os.getloadavg()[0],
           "points_per_deal": list(res.points_per_deal_a), "wins_per_deal": list(res.wins_per_deal_a)}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="+", help="A,B agent names, e.g. cfr:200,search:200")
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--match", action="store_true", help="12-round matches instead of single rounds")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'A,B':<28} {'deals':>6} {'A points/round [95 %]':>28} {'A wins':>7} {'B wins':>7} "
          f"{'ms/dec A':>9} {'ms/dec B':>9}")
    rows = []
    for pair in args.pairs:
        r = run(pair, args.deals, args.seed, args.match)
        p = r["points_per_round"]
        print(f"{pair:<28} {r['deals']:>6} {p[0]:+.3f} [{p[1]:+.3f}, {p[2]:+.3f}]{'':>5} {r['win_rate'][0]:>7.3f} "
              f"{r['loss_rate']:>7.3f} {r['ms_a']:>9.2f} {r['ms_b']:>9.2f}", flush=True)
        rows.append(r)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
