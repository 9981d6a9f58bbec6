"""Every learned method's CLI defaults on 2-player Kuhn: the default budget reaches the threshold of its issue.

``cfrlab solve kuhn --algo A --no-eval --out A.npz`` (no option: the default budget, ``Solver.default_iterations``),
then ``cfrlab eval A.npz``; prints each exploitability against its threshold and the CPU seconds, exit status 1
when one misses. The test suite runs a tenth of each budget (tests/cli/test_cli_defaults.py).

    python benchmarks/bench_cli_defaults.py [--algos nfsp,deep-cfr]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

THRESHOLDS = {"nfsp": 0.1, "nfsp-ppo": 0.1, "nfsp-sac": 0.1, "fsp-softmax": 0.05, "fsp-table": 0.05,
              "deep-cfr": 0.05, "dncfr": 0.05, "mccfr+": 5e-3}
"""The exploitability each method's issue asks of its defaults on 2-player Kuhn."""


CLI = "import sys; from cfrlab.cli.main import main; sys.exit(main(sys.argv[1:]))"


def cli(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CLI, *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algos", default=",".join(THRESHOLDS))
    args = parser.parse_args()
    missed = []
    with tempfile.TemporaryDirectory() as folder:
        for algorithm in args.algos.split(","):
            out = str(Path(folder) / f"{algorithm}.npz")
            start = children_cpu()
            result = cli("solve", "kuhn", "--algo", algorithm, "--no-eval", "--out", out)
            value = cli("eval", out)["exploitability"]
            seconds = children_cpu() - start
            ok = value < THRESHOLDS[algorithm]
            missed += [] if ok else [algorithm]
            print(f"{algorithm:<12} {result['iterations']:>7} iterations  exploitability {value:.4f} "
                  f"(threshold {THRESHOLDS[algorithm]:g}){'' if ok else '  MISSED'}  {seconds:.1f} CPU s", flush=True)
    print("all reach their threshold" if not missed else f"missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
