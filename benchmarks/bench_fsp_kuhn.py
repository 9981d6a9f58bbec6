"""``cfrlab experiment fsp-kuhn --quick``: its CPU seconds, and whether every curve falls (README's promise).

The test suite runs the experiment on a smaller budget (tests/experiments/test_fsp_kuhn.py: the neural learners
only traced); this checks the ``--quick`` budget itself: each of the 11 curves (NashConv of softmax FSP, NFSP,
NFSP-PPO and CFR+ on 2- and 3-player Kuhn, and the learners' loss against CFR+) ends below where it starts.
Exit status 1 when one does not.

    python benchmarks/bench_fsp_kuhn.py [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="where the experiment writes (default: a temporary folder)")
    args = parser.parse_args()
    from cfrlab.experiments.fsp_kuhn import run

    out = Path(args.out or tempfile.mkdtemp(prefix="fsp-kuhn-"))
    start = time.process_time()
    run(out, quick=True)
    seconds = time.process_time() - start
    curves: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in csv.DictReader((out / "results.csv").open()):
        for metric in ("nash_conv", "loss_vs_cfr+"):
            if row[metric]:
                curves[row["game"], row["method"], metric].append(float(row[metric]))
    flat = [key for key, values in curves.items() if not values[-1] < values[0]]
    for (game, method, metric), values in curves.items():
        print(f"{game:<6} {method:<12} {metric:<13} {values[0]:.4f} -> {values[-1]:.4f}"
              f"{'' if values[-1] < values[0] else '  does not fall'}")
    print(f"{len(curves)} curves, {len(curves) - len(flat)} fall; {seconds:.1f} CPU seconds; {out}")
    return 1 if flat or len(curves) != 11 else 0


if __name__ == "__main__":
    sys.exit(main())
