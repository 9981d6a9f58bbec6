"""Koi-Koi matches scored round by round: where in a match does agent A gain or lose its points?

Plays the duplicate matches of ``cfrlab arena koikoi A B -n DEALS --seed S --match`` (the same seeds, deals and
seatings, so the per-deal points equal the arena's for agents without a time budget; ``--check`` compares) and
keeps every round: its index, whether A dealt, A's lead before it and A's points in it (the change of A's net
points, the match's return). Prints A's points a round with 95 % intervals by round index, by dealer and by lead,
beside the whole match's figure, and the share of rounds A dealt (a single round's duplicate deal gives A the deal
half the time).

Usage: ``python benchmarks/bench_koikoi_match_rounds.py net search:20ms -n 240 --seed 300 --out rounds.jsonl``
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

from cfrlab.agents.names import make_agent
from cfrlab.eval.arena import Interval, play_game
from cfrlab.registry import load_game
from cfrlab.seeding import as_generator


def interval(values: list[float]) -> str:
    """Mean [95 % normal interval] (``cfrlab.eval.arena.Interval``) and the count."""
    return f"{Interval.of(values)} (n={len(values)})"


def _net(es, seat_a: int) -> int:
    """A's net points so far (the match's return to A at its end)."""
    return es.net if seat_a == 0 else -es.net


class RoundLog:
    """An observer of ``cfrlab.eval.arena.play_game`` on a match: A's side of every round that ends (``rounds``)."""

    def __init__(self, seat_a: int) -> None:
        self.seat_a, self.rounds = seat_a, []
        self.start: tuple[int, int, int] | None = None  # the open round: its index, dealer and A's lead before it

    def __call__(self, state) -> None:
        es = state.es
        if self.start is not None and es.round == self.start[0] and not state.is_terminal():
            self.start = (self.start[0], es.oya, self.start[2])  # the dealer is known once the round's coin fell
            return
        if self.start is not None:  # the round ``start[0]`` has ended
            gain = _net(es, self.seat_a) - self.start[2]
            self.rounds.append({"round": self.start[0], "a_deals": self.start[1] == self.seat_a,
                                "lead": self.start[2], "points": gain})
        self.start = None if state.is_terminal() else (es.round, es.oya, _net(es, self.seat_a))


def play_rounds(game, agents, chance_rng, rngs, seat_a: int) -> list[dict]:
    """One match to its end by ``cfrlab.eval.arena.play_game``; A's side of every round."""
    log = RoundLog(seat_a)
    play_game(game, agents, chance_rng, rngs, observe=log)
    return log.rounds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("-n", "--deals", type=int, default=240)
    ap.add_argument("--seed", type=int, default=300)
    ap.add_argument("--out", default=None, help="JSON lines, one per round")
    ap.add_argument("--check", default=None, help="an --out of bench_koikoi_goals.py whose first line's "
                    "points_per_deal_a begins with these deals")
    args = ap.parse_args()
    game = load_game("koikoi(rounds=12,first_oya=coin)")
    a, b = make_agent(args.a, game), make_agent(args.b, game)
    rows, per_deal = [], []
    for k, seq in enumerate(np.random.SeedSequence(args.seed).spawn(args.deals)):
        chance_seed, a_seed, b_seed = seq.spawn(3)
        total, played = 0.0, 0
        for seat_a, agents in enumerate([(a, b), (b, a)]):
            rngs = [as_generator(a_seed), as_generator(b_seed)]
            rngs = rngs[::-1] if seat_a == 1 else rngs
            for r in play_rounds(game, agents, as_generator(chance_seed), rngs, seat_a):
                rows.append({"deal": k, "seat_a": seat_a, **r})
                total += r["points"]
                played += 1
        per_deal.append(total / played)
        print(f"deal {k + 1}/{args.deals}: {per_deal[-1]:+.3f}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            for r in rows:
                fh.write(json.dumps({**r, "a_deals": bool(r["a_deals"])}) + "\n")
    if args.check:
        with open(args.check) as fh:
            theirs = json.loads(fh.readline())["points_per_deal_a"][: args.deals]
        print("equal to the arena's per-deal points:", np.allclose(per_deal, theirs, atol=1e-9))
    pts = [r["points"] for r in rows]
    print("all rounds:", interval(pts))
    print("A deals in", f"{np.mean([r['a_deals'] for r in rows]):.3f}", "of the rounds")
    for key, name in ((lambda r: r["a_deals"], "A deals"), (lambda r: r["round"], "round"),
                      (lambda r: (r["lead"] > 0) - (r["lead"] < 0), "sign of A's lead")):
        groups = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r["points"])
        for value in sorted(groups):
            print(f"{name} {value}: {interval(groups[value])}")


if __name__ == "__main__":
    main()
