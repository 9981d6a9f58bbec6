"""Cut playouts valued by the network: the search's continuation learned (issue 22, expert iteration).

Method: as ``rules.playout.play_actions`` (each root action played on each determinization with common random numbers),
but a playout stops at the start of half-turn ``turn + cutoff`` (``playout.play_on(..., until)``); a round that ended
before is valued by its points, a position left by the network: ``infer.value`` over ``features.encode`` of the
position seen by the seat to move there (the mover's expected round points), negated when that seat is not the
root's player (rounds are zero-sum). A learned value at a shallow depth in place of a long, biased rollout is the
evaluation of AlphaGo's and expert iteration's searches (Silver et al. 2016; Anthony, Tian and Barber 2017), the
features an NNUE-style sparse input (Nasu 2018).

Specification in cfrlab: ``SearchAgent(..., evaluator=NetEvaluator(weights))`` with ``SearchConfig.cutoff`` calls
``cut_values``; with ``SearchConfig.prune`` the policy head (``root_values``) keeps the root actions it ranks
first. The features only see what the mover may know, so the value of a determinization depends on
its hidden cards only through the moves played to reach it.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.neural.act import (
    HEAD_AFTER,
    HEAD_AFTER_MATCH,
    HEAD_POLICY,
    HEAD_Q,
    is_after,
    match_context,
    scores,
)
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.neural.playout import net_play_on, new_scratch
from cfrlab.games.koikoi.neural.weights import NetWeights, check_weights
from cfrlab.games.koikoi.rules.flow import TERMINAL, advance, load, with_hand
from cfrlab.games.koikoi.rules.information import Information, PlayoutRules, root_position
from cfrlab.games.koikoi.rules.kernels import kernel_rules
from cfrlab.games.koikoi.rules.match import NO_TABLE, win_table
from cfrlab.games.koikoi.rules.playout import borrow, play_on
from cfrlab.games.koikoi.rules.rules import RuleSet

ROUND_END = 1 << 20
"""A half-turn no round reaches: ``play_on`` with it plays to the round's end."""


@nb.njit(cache=True)
def cut_values(actions, root, root_cards, player, opp_hands, orders, u, pr, cutoff, round_index, lead, w, mix,
               out, head, after, table) -> None:
    """``out[i, j]``: the utility for ``player`` of action ``actions[i]`` on determinization ``j`` (``opp_hands[j]``
    as the other seat's hand, ``orders[j]`` the draws, ``u[j]`` the uniforms) with the playout cut ``cutoff``
    half-turns after the root's and valued by the network ``w`` there. ``round_index`` and ``lead`` (``player``'s
    match total minus the other's) are the features' match context. ``mix`` > 0: the playout goes on to the
    round's end from the cut, and its value is ``mix`` times the round's points plus ``1 - mix`` times the
    network's (the mixed leaf value of AlphaGo, Silver et al. 2016). BENCHMARKS.md measures it no stronger
    than ``mix`` 0, which the agents use. ``head`` (``act.HEADS``' code) >= 0: both seats play by the network's
    policy (``playout.net_play_on``; ``table``: the ``match.WinTable`` a file trained for the match reads) instead
    of ``pr.policy`` (-1); a ``cutoff`` of ``ROUND_END`` never cuts. ``after``:
    ``w``'s value head is an afterstate value (``neural.afterstate``), so the cut position, the start of a half-turn,
    is valued as seen by the seat that moved last (whose afterstates include such positions) and negated."""
    kr, policy = borrow(pr.rules, pr.policy)
    start = load(root, root_cards)
    until = start.turn + cutoff
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    no_log = np.empty(0, dtype=np.int16)
    scratch = new_scratch()
    for i in range(actions.shape[0]):
        for j in range(opp_hands.shape[0]):
            pos = advance(with_hand(start, 1 - player, opp_hands[j]), actions[i], kr)
            if head >= 0:
                pos, d, k = net_play_on(pos, 0, 0, orders[j], u[j], kr, until, w, head, player, round_index, lead,
                                        table, scratch)
            else:
                pos, d, k, _ = play_on(pos, 0, 0, orders[j], u[j], policy, kr, no_log, until)
            if pos.phase == TERMINAL:
                out[i, j] = _points(pos, player)
                continue
            seat = (pos.oya + pos.turn) & 1
            if after:
                seat = 1 - seat
            n = encode(pos, seat, round_index, lead if seat == player else -lead, idx)
            v = value(w, idx, n)
            out[i, j] = v if seat == player else -v
            if mix > 0.0:  # the cut playout's greedy end (the agents' playout policy, never the network's)
                end = play_on(pos, d, k, orders[j], u[j], policy, kr, no_log, ROUND_END)[0]
                out[i, j] = mix * _points(end, player) + (1.0 - mix) * out[i, j]


@nb.njit(cache=True, inline="always")
def _points(pos, player):
    """The round's points for ``player`` at a terminal position (rounds are zero-sum)."""
    return 0.0 if pos.winner < 0 else pos.points if pos.winner == player else -pos.points


@nb.njit(cache=True)
def root_scores(root, root_cards, player, round_index, lead, w, head, kr, table, legal, out) -> None:
    """``out``: the file's scores of the root's legal actions (``act.scores``; the other seat's hand never read)."""
    scores(w, head, load(root, root_cards), player, round_index, lead, kr, table, legal, legal.shape[0],
           np.empty(MAX_ACTIVE, dtype=np.int32), np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32), out)


class NetEvaluator:
    """The network as the search's evaluator (``search.Evaluator``): cut playouts valued by its value head, root
    actions ranked by its policy head. A wrapper, since the search (package ``games.koikoi``) may not import this
    package, which imports it."""

    def __init__(self, weights: NetWeights, mix: float = 0.0, playout: int | None = None,
                 head: int = HEAD_POLICY, rules: RuleSet | None = None) -> None:
        """``mix``: the share of the full playout's points in a cut playout's value (``cut_values``); ``playout``:
        the head code (``act.HEAD_Q``, ``act.HEAD_POLICY``) by which the network's policy plays the playouts
        (``playout.net_play_on``), None: the search's playout policy plays them; ``head``: the file's head code,
        which says how its root ranking (``prune``) and its value at a cut are read (an afterstate head steps the
        root's actions by ``rules``, which it then needs; a file trained for the match, ``act.HEAD_AFTER_MATCH``,
        ranks and plays by the match-win probability of the match table of ``rules``, and its cut value is its
        first output, the round's points, as a points search needs). The weights are checked (``check_weights``):
        no output of theirs can be infinite or NaN."""
        if playout is not None and mix > 0.0:
            raise ValueError("a mixed cut value plays the cut playout on by the search's policy, not the network's")
        self.weights = check_weights(weights, "the network's weights")
        self.mix = mix
        self.head = -1 if playout is None else int(playout)
        self.file_head = int(head)
        if is_after(self.file_head) and rules is None:
            raise ValueError("an afterstate network ranks actions by stepping them: give the game's rules")
        self.kr = None if rules is None else kernel_rules(rules)
        self.table = NO_TABLE
        self.for_match = HEAD_AFTER_MATCH in (self.file_head, self.head)
        """Whether the file was trained for the match (it reads the match's round and lead: ``act.match_context``)."""
        if self.for_match:
            if rules is None:
                raise ValueError("a network trained for the match values actions by the match table: give the rules")
            self.table = win_table(rules)
        self.plays = playout is not None
        """The search hands this evaluator every playout, cut or not (``SearchAgent``)."""
        self.stochastic = playout is not None
        """Its playouts read uniforms (a policy head draws its actions)."""

    def playout_values(self, pr: PlayoutRules, info: Information, actions: tuple[int, ...],
                       opp_hands: NDArray[np.uint64], orders: NDArray[np.int8], u: NDArray[np.float64],
                       cutoff: int | None) -> NDArray[np.float64]:
        """``cut_values`` of ``actions`` at ``info`` as a new (actions, determinizations) array (``cutoff`` None:
        playouts to the round's end)."""
        out = np.empty((len(actions), len(opp_hands)), dtype=np.float64)
        cut_values(np.asarray(actions, dtype=np.int64), *root_position(info), info.player, opp_hands, orders, u, pr,
                   ROUND_END if cutoff is None else cutoff, *self._context(info), self.weights, self.mix, out,
                   self.head, is_after(self.file_head), self.table)
        return out

    def prune(self, info: Information, keep: int) -> tuple[int, ...]:
        """The ``keep`` legal actions of ``info`` the file's head scores highest (``act.scores``: Q, logit or
        afterstate value), ascending (ties: the lower action id)."""
        legal = np.asarray(info.legal, dtype=np.int64)
        best = np.argsort(-self.root_values(info, info.legal), kind="stable")[:keep]
        return tuple(int(a) for a in np.sort(legal[best]))

    def root_values(self, info: Information, actions: tuple[int, ...]) -> NDArray[np.float64]:
        """The file's scores of ``actions`` at ``info`` (``act.scores``): round points up to a term common to
        the actions for a Q head (its advantages) or an afterstate points head (exact), which ``in_points``
        says."""
        out = np.empty(len(actions), dtype=np.float64)
        root_scores(*root_position(info), info.player, *self._context(info), self.weights, self.file_head,
                    self.kr if self.kr is not None else kernel_rules(RuleSet()), self.table,
                    np.asarray(actions, dtype=np.int64), out)
        return out

    @property
    def in_points(self) -> bool:
        """Whether ``root_values`` are round points (a Q or afterstate points head), which a blend with the
        playouts' means needs (not a policy head's logits or a match file's probabilities)."""
        return self.file_head in (HEAD_Q, HEAD_AFTER)

    def _context(self, info: Information) -> tuple[int, int]:
        """The match round and lead the file reads at ``info`` (``act.match_context``)."""
        return match_context(self.for_match, info.round, info.totals[info.player] - info.totals[1 - info.player])
