"""Double Neural CFR's sequence (GRU) networks on Kuhn: exploitability every 10 iterations, one process.

The suite checks that the GRU variant learns (``tests/solvers/neural/test_double_neural_cfr.py``: 20 iterations,
below a third of the uniform policy's 0.458); this is the longer run behind it, which falls below 0.05 by
iteration 50 with the test's settings (seed 0, one torch thread).
Usage: ``python benchmarks/bench_dncfr_kuhn.py [--iterations 60] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import time

import torch

from cfrlab.eval import exploitability
from cfrlab.registry import load_game
from cfrlab.solvers.neural.double_neural_cfr import DoubleNeuralCFR
from cfrlab.tree import load_tree

GRU = dict(network="gru", batch=32, hidden_size=32, hidden=(32,), rsn_steps=30, asn_steps=50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = load_game("kuhn")
    tree = load_tree(game)
    solver, started = DoubleNeuralCFR(game, seed=args.seed, **GRU), time.perf_counter()
    print("iteration  exploitability  seconds")
    for done in range(10, args.iterations + 1, 10):
        solver.iterate(10)
        print(f"{done:9d}  {exploitability(tree, solver.average_policy()):14.4f}  {time.perf_counter() - started:7.1f}")


if __name__ == "__main__":
    main()
