"""Before and after: the same solver calls timed on two commits of cfrlab, interleaved, in one run.

A refactoring must keep the speed: this checks out ``--base`` beside the working tree (``git worktree``),
then for each case runs one fresh process per side and repeat, alternating base and head so a change of
machine load hits both alike. Each process builds the solver, runs the iterations once to compile the
kernels, then times ``--iterations`` more with ``time.process_time`` (CPU seconds of this process, less
sensitive to other work on a shared machine than wall seconds). OOS cases search a decision of a random deal
(``target``: its seed). Printed: the median of each side and the
ratio head / base (below 1.05: no slowdown above 5 %).

    .venv/bin/python benchmarks/bench_ab.py --base 1e2978f --repeats 5
    .venv/bin/python benchmarks/bench_ab.py --base main --scale 4 --cases "external leduc (tree path)"
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES: dict[str, tuple[str, str, dict, int]] = {
    # name: (game, algorithm, config, iterations)
    "cfr+ leduc (full tree)": ("leduc", "cfr+", {}, 2000),
    "cfr leduc (full tree)": ("leduc", "cfr", {}, 1000),
    "external leduc (tree path)": ("leduc", "external", {"path": "tree"}, 20000),
    "outcome leduc (tree path)": ("leduc", "outcome", {"path": "tree"}, 50000),
    "external leduc (generic path)": ("leduc", "external", {"path": "generic"}, 3000),
    "outcome leduc (generic path)": ("leduc", "outcome", {"path": "generic"}, 6000),
    "mccfr+ leduc (tree path, k=1)": ("leduc", "mccfr+", {"path": "tree", "k": 1}, 5000),
    "oos leduc (tree path, IST)": ("leduc", "oos", {"path": "tree", "deal": "enumerated", "target": 3}, 300000),
    "oos leduc (generic path, IST)": ("leduc", "oos", {"path": "generic", "target": 3}, 3000),
    "oos koikoi round (numba, IST)": ("koikoi", "oos", {"target": 3}, 60000),
    "oos koikoi round (generic, IST)": ("koikoi", "oos", {"path": "generic", "target": 3}, 500),
}

SNIPPET = """
import json, sys, time
import numpy as np
from cfrlab.driver import make_solver
game, algo, config, n = json.loads(sys.argv[1])
target = config.pop("target", None)
solver = make_solver(game, algo, seed=0, **config)
if target is not None:  # OOS: targeted at a decision with two actions or more on a random path of seed ``target``
    rng, state = np.random.default_rng(target), solver.game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        chance = state.is_chance_node()
        state = state.child(state.legal_actions()[0] if not chance else state.sample_chance(rng)
                            if hasattr(state, "sample_chance") else state.chance_outcomes()[0][0])
    solver.set_target(state.information_state_key(state.current_player()), state.current_player())
solver.iterate(max(1, n // 20))
start = time.process_time()
solver.iterate(n)
print(json.dumps({"seconds": time.process_time() - start}))
"""


def run_side(root: Path, case: tuple, cache: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(root), "CFRLAB_CACHE_DIR": cache, "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", SNIPPET, json.dumps(case)], cwd=root, env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="1e2978f", help="the commit to compare the working tree with")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", nargs="*", default=list(CASES), help="names of CASES (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every case's iterations (longer timings)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cfrlab-ab-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base], check=True,
                       capture_output=True)
        try:
            print(f"{'case':32} {'base s':>9} {'head s':>9} {'head/base':>9}")
            for name in args.cases:
                times: dict[str, list[float]] = {"base": [], "head": []}
                for _ in range(args.repeats):
                    for side, root in (("base", base), ("head", ROOT)):
                        game, algorithm, config, n = CASES[name]
                        case = (game, algorithm, config, max(1, int(n * args.scale)))
                        times[side].append(run_side(root, case, str(Path(tmp) / f"cache-{side}")))
                b, h = statistics.median(times["base"]), statistics.median(times["head"])
                print(f"{name:32} {b:9.3f} {h:9.3f} {h / b:9.3f}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False,
                           capture_output=True)


if __name__ == "__main__":
    main()
