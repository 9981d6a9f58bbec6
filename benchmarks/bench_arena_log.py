"""The head-to-head figure of an arena log, recomputed from the file (`cfrlab arena --log`, hold'em's
`cfrlab eval --versus --versus-log`).

    cfrlab arena holdem policy:cfr10.npz policy:cfr5.npz -n 10000 --log h2h.jsonl
    python benchmarks/bench_arena_log.py h2h.jsonl

Prints agent A's mean return per deal (both seats with duplicate deals) with its 95 % interval, in mb/h for poker
(thousandths of a small bet per hand), else in the game's points: what the command printed, from the log alone.
"""

from __future__ import annotations

import argparse

import numpy as np

from cfrlab.eval.arena import Interval
from cfrlab.eval.arena_log import read_arena_log
from cfrlab.registry import load_game


def figure(path: str) -> tuple[dict, int, Interval, str]:
    """The log's first line, its deals, A's mean return per deal with its interval, and the unit."""
    meta, rows = read_arena_log(path)
    if sorted(rows) != list(range(len(rows))):
        raise SystemExit(f"{path!r} lacks deals below {max(rows)}: an interrupted run; continue it first")
    values = np.array([(r[0] + r[1]) / 2 if meta["duplicate"] else r[0] for _, r in sorted(rows.items())])
    scale = getattr(load_game(meta["game"]), "milli_bets_per_chip", None)
    unit = "points" if scale is None else "mb/h"
    return meta, len(rows), Interval.of(values * (1.0 if scale is None else scale)), unit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", help="arena logs (`cfrlab arena --log`, `cfrlab eval --versus-log`)")
    for path in parser.parse_args().logs:
        meta, deals, interval, unit = figure(path)
        print(f"{path}: {meta['agent_a']} vs {meta['agent_b']} on {meta['game']}, {deals} deals (seed "
              f"{meta['seed']}): {interval.mean:+.1f} [{interval.low:+.1f}, {interval.high:+.1f}] {unit} (95 %)")


if __name__ == "__main__":
    main()
