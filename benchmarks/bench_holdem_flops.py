"""Multiply-adds of one vector CFR+ iteration on abstract hold'em, counted from the betting tree.

    python benchmarks/bench_holdem_flops.py --buckets 10

``VectorTree.backward`` multiplies, at every terminal of round k, the other player's reach vector over the
``nseq_k`` bucket sequences by the round's ``nseq_k x nseq_k`` chance table (the joint table after a fold, joint
times showdown at a showdown): ``nseq_k ** 2`` multiply-adds a terminal, in each of an iteration's two passes (one per
player; ``vector_cfr._iterate_once``). An exact evaluation (two best-response passes) costs the same again. The
element-wise work of the tree is counted apart (a few operations per node and bucket sequence): it is far smaller.
"""

from __future__ import annotations

import argparse

import numpy as np

from cfrlab.games.holdem.rules.betting import DECISION, FOLDED, SHOWDOWN, betting_tree
from cfrlab.registry import load_game


def count(spec: str, buckets: int) -> dict[str, float]:
    """Terminals per round and kind, and the multiply-adds of an iteration's products and of its tree walk."""
    tree = betting_tree(load_game(spec))  # type: ignore[arg-type]
    rounds = int(tree.round.max()) + 1
    nseq = [buckets ** (k + 1) for k in range(rounds)]
    out: dict[str, float] = {}
    products = 0.0
    for k in range(rounds):
        for name, what in (("folds", FOLDED), ("showdowns", SHOWDOWN)):
            n = int(np.count_nonzero((tree.kind == what) & (tree.round == k)))
            out[f"round {k} {name}"] = n
            products += n * float(nseq[k]) ** 2
    decisions = [int(np.count_nonzero((tree.kind == DECISION) & (tree.round == k))) for k in range(rounds)]
    out["decision nodes"] = sum(decisions)
    out["multiply-adds per pass"] = products
    out["multiply-adds per iteration"] = 2 * products
    out["flops per iteration"] = 4 * products
    out["bucket-sequence entries per pass (the tree walk)"] = float(sum(d * s for d, s in zip(decisions, nseq)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--buckets", type=int, default=10, help="E[HS^2] buckets a round (CFR10: 10)")
    args = parser.parse_args()
    for name, value in count(args.game, args.buckets).items():
        print(f"{name}: {value:,.0f}" if value < 1e9 else f"{name}: {value:.3e}")


if __name__ == "__main__":
    main()
