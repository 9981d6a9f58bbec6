"""Two hold'em strategies' LBR compared deal by deal, from the logs `cfrlab eval --lbr N --lbr-log LOG` wrote.

    cfrlab eval cfr10.npz --lbr 6000 --lbr-log cfr10-lbr.jsonl
    cfrlab eval cfr5.npz --lbr 6000 --lbr-log cfr5-lbr.jsonl
    python benchmarks/bench_holdem_lbr.py cfr10-lbr.jsonl cfr5-lbr.jsonl

With the same seed, deal i gives LBR the same cards against both strategies, so the per-deal difference has a far
smaller variance than either return: the paired interval separates strategies that the two intervals alone do not.
Prints each strategy's LBR over the deals both logs hold (mb/h, 95 % interval) and the difference B - A.
"""

from __future__ import annotations

import argparse

import numpy as np

from cfrlab.eval.arena import Interval
from cfrlab.games.holdem.eval.lbr_log import read_deals
from cfrlab.registry import load_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log_a", help="LBR log of strategy A (`cfrlab eval --lbr-log`)")
    parser.add_argument("log_b", help="LBR log of strategy B, same seed and rollouts")
    args = parser.parse_args()
    (meta_a, deals_a), (meta_b, deals_b) = read_deals(args.log_a), read_deals(args.log_b)
    for key in ("seed", "rollouts"):
        if meta_a[key] != meta_b[key]:
            raise SystemExit(f"the logs differ in {key} ({meta_a[key]} and {meta_b[key]}): their deals are not paired")
    common = sorted(set(deals_a) & set(deals_b))
    if len(common) < 2:
        raise SystemExit("the logs share fewer than two deals")
    scale = load_game(meta_a["game"]).milli_bets_per_chip
    a = np.array([deals_a[i] for i in common]) * scale
    b = np.array([deals_b[i] for i in common]) * scale
    print(f"{len(common)} deals in both logs (seed {meta_a['seed']}, {meta_a['rollouts']} rollouts); LBR in mb/h, "
          "95 % intervals")
    for name, values, meta in (("A", a, meta_a), ("B", b, meta_b)):
        print(f"{name} {meta['game']}: {_text(Interval.of(values))}")
    print(f"B - A (paired): {_text(Interval.of(b - a))}   correlation {np.corrcoef(a, b)[0, 1]:.2f}")


def _text(interval: Interval) -> str:
    return f"{interval.mean:+.1f} [{interval.low:+.1f}, {interval.high:+.1f}]"


if __name__ == "__main__":
    main()
