"""A lever tried for the ``net`` policy and left out: its afterstate values averaged over the next draw.

The ``net`` agent values each action by the network's value of its afterstate (``neural.afterstate``), which for a
card played is the position before the draw from the stock. This agent looks one chance event further, as
TD-Gammon's 1-ply search does (Tesauro 1995): for such an action it averages, over every card the mover has not
seen (the opponent's hand and the stock, uniformly), the value after that card is drawn (the best of the mover's
capture choice or KOI-KOI/STOP where the draw asks for one, the exact points where it ends the round), mixed with
the afterstate's own value by ``--mix`` (1: the lookahead alone). It plays the duplicate arena against the plain
``net`` of the same weights on single rounds and prints the lookahead's points a round (95 % interval) and the CPU
seconds. Measured in BENCHMARKS.md ("the next levers"): the lookahead loses, as the values it reads after a draw
are those of positions at the start of the opponent's half-turn, which the rows only hold after a capture choice
or KOI-KOI.

Usage: ``python benchmarks/bench_koikoi_lookahead.py [--weights PATH] [--deals 4000] [--mix 1.0] [--seed 11]``
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from cfrlab.games.koikoi.neural.afterstate import afterstate_values, terminal_points
from cfrlab.games.koikoi.neural.features import encode
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.players.net import NetAgent, load_net
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.flow import TERMINAL, advance
from cfrlab.games.koikoi.rules.information import information, root_position
from cfrlab.games.koikoi.rules.kernels import DECIDE, DRAW, DRAW_CAPTURE, KOIKOI, STOP, kernel_rules, month_mask

FULL = np.uint64((1 << 48) - 1)


@nb.njit(cache=True)
def best_after(w, pos, seat, rnd, lead, kr, idx, legal, out) -> float:
    """The mover's best afterstate value at a capture choice or KOI-KOI/STOP after a draw."""
    if pos.phase == DECIDE:
        legal[0], legal[1] = STOP, KOIKOI
        m = 2
    else:
        options, m = pos.field & month_mask(pos.pending), 0
        for c in range(48):
            if (options >> np.uint64(c)) & np.uint64(1):
                legal[m] = c
                m += 1
    afterstate_values(w, pos, seat, rnd, lead, legal, m, kr, idx, out)
    return out[:m].max()


@nb.njit(cache=True)
def lookahead_values(w, pos, seat, rnd, lead, legal, m, kr, idx, out, legal2, out2, mix) -> None:
    """``out[:m]``: each action's afterstate value, averaged over the next draw where one comes first."""
    for j in range(m):
        nxt = advance(pos, legal[j], kr)
        if nxt.phase == TERMINAL:
            out[j] = terminal_points(nxt, seat)
            continue
        base = value(w, idx, encode(nxt, seat, rnd, lead, idx))
        if nxt.phase != DRAW:
            out[j] = base
            continue
        unseen = FULL & ~((nxt.hand0 if seat == 0 else nxt.hand1) | nxt.field | nxt.pile0 | nxt.pile1)
        total, count = 0.0, 0
        for d in range(48):
            if (unseen >> np.uint64(d)) & np.uint64(1):
                after = advance(nxt, d, kr)
                if after.phase == TERMINAL:
                    total += terminal_points(after, seat)
                elif after.phase == DRAW_CAPTURE or after.phase == DECIDE:
                    total += best_after(w, after, seat, rnd, lead, kr, idx, legal2, out2)
                else:
                    total += value(w, idx, encode(after, seat, rnd, lead, idx))
                count += 1
        out[j] = mix * total / max(count, 1) + (1.0 - mix) * base


class LookaheadAgent(NetAgent):
    """``net`` with each action's value averaged over the next draw (module docstring)."""

    def __init__(self, weights, mix: float) -> None:
        super().__init__(weights, 2, f"lookahead:{mix:g}")
        self.mix = mix
        self._legal2, self._out2 = np.empty(48, np.int64), np.empty(48, np.float64)

    def action_probabilities(self, state, rng=None) -> dict[int, float]:
        engine, es, player = state.game.engine, state.es, state.current_player()
        if self._rules is None or self._rules[0] is not state.game.rules:
            self._rules = (state.game.rules, kernel_rules(state.game.rules))
        st, cards = root_position(information(engine, es, player))
        legal = np.asarray(state.legal_actions(), dtype=np.int64)
        out = np.empty(len(legal), np.float64)
        lead = es.totals[player] - es.totals[1 - player]
        lookahead_values(self.weights, flow.load(st, cards), player, es.round, lead, legal, len(legal), self._rules[1],
                         self._idx, out, self._legal2, self._out2, self.mix)
        best = int(np.argmax(out))
        return {int(a): float(i == best) for i, a in enumerate(legal)}


def main() -> None:
    from cfrlab.eval.arena import arena
    from cfrlab.games.koikoi.learn.exit_config import round_game
    from cfrlab.registry import load_game

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default=None)
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--mix", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    net = load_net(args.weights)
    began = time.process_time()
    res = arena(round_game(load_game("koikoi")), LookaheadAgent(net.weights, args.mix), net, deals=args.deals,
                seed=args.seed).points_per_round_a
    print(f"lookahead (mix {args.mix:g}) vs net: {res} points a round over {args.deals} duplicate deals, "
          f"{time.process_time() - began:.1f} CPU s")


if __name__ == "__main__":
    main()
