"""What each ``netsearch`` lever costs the search: determinizations a decision at a fixed time per decision.

On every decision with 2+ legal actions of ``--rounds`` greedy self-play rounds (nintendo rules), each agent
(``search:Tms`` and ``netsearch:Tms:LEVER:WEIGHTS`` for the playout, prior and cut levers) searches once with
``--ms`` milliseconds of its thread's CPU; the table gives the mean determinizations drawn a decision
(``SearchResult.samples``) and the mean playouts (determinizations times the actions each was played for). A
network's playout calls the network at each decision with a choice (about 10 a playout), the greedy rule is a few
bit operations, so the playout lever buys a better continuation with fewer playouts.

Usage: ``python benchmarks/bench_koikoi_netsearch.py --weights PATH [--rounds 4] [--ms 20]``.
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    from benchmarks.bench_koikoi_net import decisions
    from cfrlab.agents import make_agent
    from cfrlab.games.koikoi.rules.information import information
    from cfrlab.registry import load_game

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--ms", type=int, default=20)
    args = ap.parse_args()
    game = load_game("koikoi")
    states = [s for s in decisions(args.rounds) if len(s.legal_actions()) > 1]
    specs = [f"search:{args.ms}ms"] + [f"netsearch:{args.ms}ms:{lever}:{args.weights}"
                                       for lever in ("playout", "prior", "cut")]
    print(f"{len(states)} decisions, {args.ms} ms each")
    for spec in specs:
        agent = make_agent(spec, game)
        agent.search(information(game.engine, states[0].es, states[0].current_player()), np.random.default_rng(0))
        samples, playouts = [], []
        for i, s in enumerate(states):
            res = agent.search(information(game.engine, s.es, s.current_player()), np.random.default_rng(i))
            samples.append(res.samples)
            playouts.append(int(np.sum(res.counts)) if res.counts is not None else 0)
        print(f"{spec.split(':' + args.weights)[0]:28s} determinizations {np.mean(samples):7.1f}  "
              f"playouts {np.mean(playouts):8.1f}")


if __name__ == "__main__":
    main()
