"""The network inside the Koi-Koi search and inside Online Outcome Sampling, measured by play: variants of the
``neural`` agent (cut depth, pruning by the policy head, sequential halving) against ``search`` at equal CPU time
per decision, and OOS with the network beyond its tree against today's OOS.

Weights: ``--weights PATH`` (a file or a training folder), or ``--train DIR`` makes early ones first: ``search:16``
self-play of ``--decisions`` single ``nintendo`` rounds (``learn.selfplay.generate``), ``--steps`` Adam steps of
``learn.fit`` on them (``KoiKoiNet`` 128 x 32), written to ``DIR/weights.npz`` (generation 1 of expert iteration).
Each row: ``--deals`` duplicate deals (each from both seats), points per round of the variant minus its opponent's,
95 % interval; every decision timed in CPU seconds of the searching thread (``--ms``). Variants (``--variants``):
``cutK`` (cut after K half-turns), ``cutK-pruneP`` (the policy head keeps P root actions), ``cutK-halving``,
``full-pruneP`` (full playouts, policy pruning only), ``mixL-cutK`` (the playout goes on to the round's end and
its points count L % beside the network's value at the cut: the mixed leaf value of AlphaGo, Silver et al. 2016),
``oos-net`` (OOS with the network, against plain OOS).

Usage: ``python benchmarks/bench_koikoi_neural_search.py --train /tmp/gen1 --decisions 200000 --steps 3000
--ms 5 --deals 200 [--variants cut2 cut4 ...] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np


def train(out: Path, decisions: int, steps: int, seed: int) -> Path:
    """Generation 1: ``search:16`` self-play data and a network fitted to it; the weights file."""
    import torch

    from cfrlab.games.koikoi.learn.dataset import batches
    from cfrlab.games.koikoi.learn.fit import fit
    from cfrlab.games.koikoi.learn.model import KoiKoiNet
    from cfrlab.games.koikoi.learn.selfplay import generate
    from cfrlab.games.koikoi.neural.weights import save_weights
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.games.koikoi.rules.rules import RuleSet

    rules = RuleSet(rounds=1)
    start = time.time()
    generate(partial(SearchAgent, rules, SearchConfig(rollouts=16)), rules, decisions, seed, out / "data")
    print(f"self-play: {decisions:,} decisions in {time.time() - start:.0f} s")
    torch.manual_seed(seed)
    net = KoiKoiNet(generator=np.random.default_rng(seed))
    start = time.time()
    losses = fit(net, batches(out / "data", 256, seed=seed, epochs=1000), steps, lr=1e-3, seed=seed, device="cpu")
    print(f"fit: {steps} steps in {time.time() - start:.0f} s, losses {losses}")
    save_weights(out / "weights.npz", net.to_weights(), generation=1, decisions=decisions, steps=steps)
    return out / "weights.npz"


def variant(name: str, rules: Any, seconds: float, weights: Any) -> Any:
    """The search agent of a variant name (module docstring)."""
    from cfrlab.games.koikoi.neural.cut import NetEvaluator
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig

    parts = name.split("-")
    mix = int(parts.pop(0)[3:]) / 100 if parts[0].startswith("mix") else 0.0
    cut, *rest = parts
    cutoff = None if cut == "full" else int(cut[3:])
    prune = next((int(r[5:]) for r in rest if r.startswith("prune")), None)
    config = SearchConfig(seconds=seconds, cutoff=cutoff, prune=prune, halving="halving" in rest)
    return SearchAgent(rules, config, name=name, evaluator=NetEvaluator(weights, mix))


def oos_row(game: Any, weights: Any, seconds: float, deals: int, seed: int) -> Any:
    """OOS with the network beyond its tree against plain OOS, ``seconds`` a move."""
    from cfrlab.agents.oos import OOSAgent
    from cfrlab.eval.arena import arena

    with_net = OOSAgent(game, seconds=seconds)
    with_net.solver.store.set_evaluator(weights)  # kept by ``reset`` (the tables are cleared, the walk's rules kept)
    with_net.name = "oos-net"
    return arena(game, with_net, OOSAgent(game, seconds=seconds), deals=deals, seed=seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default=None)
    ap.add_argument("--train", default=None, help="folder for generation-1 data and weights")
    ap.add_argument("--decisions", type=int, default=200_000)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--ms", type=float, default=5.0)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--variants", nargs="+", default=["cut2", "cut4", "cut8", "cut4-prune4", "cut4-halving"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from cfrlab.eval.arena import arena
    from cfrlab.games.koikoi.players.neural import load_network
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
    from cfrlab.registry import load_game

    path = train(Path(args.train), args.decisions, args.steps, args.seed) if args.train else Path(args.weights)
    weights = load_network(str(path))
    game, seconds = load_game("koikoi"), args.ms / 1000.0
    rows: dict[str, Any] = {}
    for name in args.variants:
        start = time.time()
        if name == "oos-net":
            result = oos_row(game, weights, seconds, args.deals, args.seed)
        else:
            opponent = SearchAgent(game.rules, SearchConfig(seconds=seconds), name=f"search:{args.ms:g}ms")
            result = arena(game, variant(name, game.rules, seconds, weights), opponent, deals=args.deals,
                           seed=args.seed)
        r = result.return_a
        rows[name] = {"mean": r.mean, "low": r.low, "high": r.high, "wall_s": time.time() - start}
        print(f"{name:>14} vs {result.agent_b}: {r.mean:+.3f} [{r.low:+.3f}, {r.high:+.3f}] points per round "
              f"({args.deals} duplicate deals, {time.time() - start:.0f} s)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "ms": args.ms, "deals": args.deals, "weights": str(path),
                       "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (loaded by others)"}, f, indent=2)


if __name__ == "__main__":
    main()
