"""How the learned policy's own values and the 20 ms search's means disagree at the root, judged by longer searches.

On decision states of real play (``bench_koikoi_search_noise.decision_states``: whole rounds of ``search`` against
``search``), ``netsearch:20ms:prior:cut`` searches once (its 4 root actions and their means) and the shipped ``net``
file values every legal action (``NetEvaluator.root_values``). Two references, each given ``--long`` of CPU: the
same cut search over every legal action (``netsearch:LONG:cut``) and the plain search (``search:LONG``). For each
weight w of the blend, the choice among the 4 is the largest (1 - w) * mean + w * the network's value; reported,
its regret under each reference (the reference's best mean minus its mean of the choice, per decision and summed
over one player's decisions of a round), and how often it differs from w = 0. A reference that is itself a search
favours w = 0 by construction (it shares the search's errors), so only play measures a blend
(``cfrlab arena koikoi netsearch:20ms:prior:cut:blend netsearch:20ms:prior:cut``); this shows how far apart the two
estimates are and how little the 20 ms search gives up to its own noise.

Usage: ``python benchmarks/bench_koikoi_blend.py --states 200 --seeds 0 7 [--long 400] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from bench_koikoi_search_noise import decision_states

WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)


def collect(states: int, seed: int, long_ms: float) -> tuple[list[dict], int]:
    """Per decision state: the legal actions, the network's values, the short search's actions, means and choice,
    and each reference's means; and the rounds played."""
    from cfrlab.agents import make_agent
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.registry import load_game

    game = load_game("koikoi")
    short = make_agent("netsearch:20ms:prior:cut", game)
    refs = {"netsearch cut": make_agent(f"netsearch:{long_ms:g}ms:cut", game),
            "search": make_agent(f"search:{long_ms:g}ms", game)}
    found, rounds = decision_states(states, seed)
    rng = np.random.default_rng(seed + 1)
    rows = []
    for state in found:
        info = information(state.game.engine, state.es, state.current_player())
        s = short.search(info, rng)
        row = {"legal": list(info.legal), "v": short.evaluator.root_values(info, info.legal).tolist(),
               "actions": list(s.actions), "means": s.means.tolist(), "choice": s.action}
        for name, agent in refs.items():
            r = agent.search(info, rng)
            row[name] = dict(zip(map(int, r.actions), r.means.tolist()))
        rows.append(row)
    return rows, rounds


def regrets(rows: list[dict], rounds: int, reference: str) -> dict[str, dict[str, float]]:
    """For the short search's own choice and each blend weight: regret per decision (mean, 95 % half-width), per
    player-round, and the share of decisions whose choice differs from w = 0."""
    out: dict[str, dict[str, float]] = {}
    plain = [max(r["actions"], key=dict(zip(r["actions"], r["means"])).__getitem__) for r in rows]
    for label in ("search's choice", *(f"w = {w:g}" for w in WEIGHTS)):
        lost, moved = [], 0
        for row, base in zip(rows, plain):
            q, v = row[reference], dict(zip(row["legal"], row["v"]))
            mean = dict(zip(row["actions"], row["means"]))
            if label == "search's choice":
                pick = row["choice"]
            else:
                w = float(label[4:])
                pick = max(row["actions"], key=lambda a: (1.0 - w) * mean[a] + w * v[a])
            moved += pick != base
            lost.append(max(q.values()) - q[pick])
        x = np.array(lost)
        out[label] = {"per_decision": float(x.mean()), "half_width": float(1.96 * x.std(ddof=1) / np.sqrt(len(x))),
                      "per_player_round": float(x.sum() / (2 * rounds)), "changed": moved / len(rows)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=200, help="decision states per seed")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--long", type=float, default=400.0, help="ms of CPU per decision of the references")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    began, rows, rounds = time.perf_counter(), [], 0
    for seed in args.seeds:
        more, r = collect(args.states, seed, args.long)
        rows, rounds = rows + more, rounds + r
    report = {"states": len(rows), "rounds": rounds, "long_ms": args.long, "seeds": args.seeds,
              "wall_s": round(time.perf_counter() - began, 1), "load": os.getloadavg()[0],
              "regrets": {ref: regrets(rows, rounds, ref) for ref in ("netsearch cut", "search")}}
    print(f"{len(rows)} decision states of {rounds} rounds; references at {args.long:g} ms")
    for ref, table in report["regrets"].items():
        print(f"against {ref}:{args.long:g}ms")
        for label, r in table.items():
            print(f"  {label:16s} regret {r['per_decision']:.4f} +- {r['half_width']:.4f} a decision, "
                  f"{r['per_player_round']:.3f} a player's round; changed {r['changed']:.1%}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
