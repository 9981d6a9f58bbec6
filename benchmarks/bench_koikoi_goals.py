"""Koi-Koi arena goals on many cores: each pairing's duplicate deals split over processes, then merged exactly.

Each pairing ``A,B,DEALS[,match]`` runs ``cfrlab arena koikoi A B -n DEALS/PROCS --seed S --json`` in ``--procs``
processes (seeds ``--seed``, ``--seed`` + 1, ...: disjoint deal streams), then pools every process's per-deal points
(``points_per_deal_a``, each deal played from both seats) and wins into one mean with a 95 % normal interval over
deals. Agents with a CPU-time budget (``cfr:20ms``) keep it per decision in every process, so the figure is the
one-process figure, sooner. Output: one JSON line a pairing (stdout, and ``--out`` with the per-deal values).

Usage: ``python benchmarks/bench_koikoi_goals.py --procs 14 net,search:20ms,2100 netsearch:20ms:prior,cfr:20ms,2100
net,search:20ms,480,match``
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

Z = 1.959963984540054


def interval(values: list[float]) -> list[float]:
    """Mean and its 95 % normal interval."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / max(n - 1, 1)
    half = Z * math.sqrt(var / n)
    return [round(mean, 4), round(mean - half, 4), round(mean + half, 4)]


def one(a: str, b: str, deals: int, seed: int, match: bool) -> dict:
    cmd = [sys.executable, "-m", "cfrlab.cli.main", "arena", "koikoi", a, b, "-n", str(deals), "--seed", str(seed),
           "--json", *(["--match"] if match else [])]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairings", nargs="+", help="A,B,DEALS[,match]")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--out", default=None, help="JSON lines with the per-deal values")
    args = ap.parse_args()
    for spec in args.pairings:
        a, b, deals, *rest = spec.split(",")
        match = rest == ["match"]
        share = max(1, math.ceil(int(deals) / args.procs))
        began = time.time()
        with ThreadPoolExecutor(args.procs) as pool:
            parts = list(pool.map(lambda s: one(a, b, share, s, match), range(args.seed, args.seed + args.procs)))
        points = [p for r in parts for p in r["points_per_deal_a"]]
        wins = [w for r in parts for w in r["wins_per_deal_a"]]
        line = {"a": a, "b": b, "match": match, "deals": len(points), "games": 2 * len(points),
                "points_per_round_a": interval(points), "win_rate_a": interval(wins),
                "wall_seconds": round(time.time() - began, 1)}
        print(json.dumps(line), flush=True)
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(json.dumps({**line, "points_per_deal_a": points, "wins_per_deal_a": wins}) + "\n")


if __name__ == "__main__":
    main()
