"""Online Outcome Sampling over full Koi-Koi rounds in numba: the conditioned deal and the targeted walk.

The numba twin of ``cfrlab.solvers.oos`` with ``ConditionedSampler`` on a single Koi-Koi round (Lisy, Lanctot &
Bowling 2015; seed 000 sec. 8 and 10.1), stepping the round with ``rules.flow`` (through ``infoset_hash``, which
records the players' information states). Every number comes from ``arithmetic`` and every draw from ``streams``, in
the order of ``sampling.Walker`` with ``ConditionedSampler``, so both paths give the same tables bit for bit for the
same seed (the targeting and mixture arithmetic, shared by every OOS walk, from ``cfrlab.solvers.mccfr.mixture``):

* a pass is targeted with probability delta; the opening chance nodes (the first-oya coin, the deals and redeals of
  the searcher's infoset) are drawn, for a targeted pass, from the proposal of ``rules.deal.KoiKoiDeal`` (the
  searcher's hand and field kept, the opponent's hand uniform among those holding the cards it played and none
  drawn later), for the others from the chance distribution f_c; each draw is reported with the mixture's
  probability over f_c, w_T sigma'_c / f_c + w_U (sec. 10.1's factor);
* past the opening, a targeted pass follows the infoset's recorded events while its history can still reach it
  (``track``), then samples as an untargeted one past it (``beyond``); the posterior weights (w_T, w_U) of the
  two schemes make every draw's probability delta q_T + (1 - delta) q_U, the importance-weight denominator;
* the tables (``oos_store``) are rows found by a 64-bit infoset hash: a pass stores at most one infoset not yet
  stored (the first it reached) and the searched one; elsewhere the players follow the playout policy (uniform;
  with ``Round.follow``, the network's policy past the new infoset) and nothing is kept. With ``Round.cut`` a pass
  stops instead at the first decision beyond the stored tree after the new infoset (off the path to the searched
  infoset, which it must reach): the network's value of that position for its mover (``oos_net``) is the pass's
  return, as a learned evaluation replaces the rollout at MCTS's leaves (Silver et al. 2016).
Sums of probabilities are ``numpy.sum``'s (``mixture.np_sum``): the targeted scheme's fallbacks match the Python path.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.games.koikoi.neural.weights import NetWeights
from cfrlab.games.koikoi.rules import flow, infoset_hash
from cfrlab.games.koikoi.rules.kernels import KernelRules, popcount
from cfrlab.games.koikoi.solvers.oos_net import NO_NET, leaf_value, net_policy
from cfrlab.games.koikoi.solvers.oos_store import keep_pass, lookup
from cfrlab.solvers.mccfr.arithmetic import (
    CHOSEN,
    RHO,
    SIG,
    child_value,
    descend,
    enter_other,
    follow,
    leave_traverser,
    start_walk,
)
from cfrlab.solvers.mccfr.mixture import draw_traverser_mixed, mix_draw, restrict, targeted_pass, traverser_policy
from cfrlab.solvers.mccfr.rules import rule_weight
from cfrlab.solvers.mccfr.streams import pick, stream_key, uniform
from cfrlab.tree import kernels

LEVELS = 256  # the deepest walk: a round has fewer than 100 nodes; the rest is room for redeals
_PASS, _TRAV = 0, 1


class Round(NamedTuple):
    """The rules of the round as the walk reads them (``kernels.kernel_rules`` and the deal's sizes)."""

    kr: KernelRules
    month: int
    deck: np.uint64
    deck_cards: NDArray[np.int64]
    hand: int
    field: int
    oya: int
    coin: bool
    scale: float
    win: NDArray[np.float64]
    """The match-win table (``MatchTable.win``) when a round of a match is valued by it; (0, 0, 0): by points."""
    max_lead: int = 0
    totals: tuple[int, int] = (0, 0)  # the match totals by seat before the round
    rounds_after: int = 0
    """Rounds of the match left after this one."""
    bust: bool = False
    """A total at or below zero ends the match (``RuleSet.bust_ends_match``)."""
    transfer: bool = False
    """The loser pays the winner's points (``RuleSet.scoring == 'transfer'``)."""
    cut: bool = False
    """Value a pass by the network ``net`` where it leaves the stored tree (module docstring) instead of playing
    the round out uniformly; rounds valued by points only."""
    net: NetWeights = NO_NET
    follow: int = -1
    """Beyond the stored tree, past the pass's new infoset and off the path to the searched one (where ``cut``
    would stop), the players follow ``net``'s policy (its head code, ``neural.act``; ``oos_net.net_policy``)
    instead of the uniform one; -1: uniform."""


class Aim(NamedTuple):
    """The searched infoset: delta, its player, hashes, the opening run (coin, one deal per misdeal and the deal,
    as ``KoiKoiDeal`` proposes them) and the recorded events after it. ``length`` -1: no target."""

    delta: float
    player: int
    h1: np.uint64
    h2: np.uint64
    length: int
    coin: int
    mine: NDArray[np.uint64]
    field: NDArray[np.uint64]
    required: NDArray[np.uint64]
    pool: NDArray[np.int64]
    """(deals, 48): the cards the opponent's hand may hold besides ``required``, ascending, -1 padded."""
    pool_n: NDArray[np.int64]
    allowed: NDArray[np.uint64]
    """``required`` | the pool, as masks."""
    ratio: NDArray[np.float64]
    """sigma'_c / f_c of a deal that fits."""
    events: NDArray[np.int64]


@njit(cache=True)
def match_value(net, next_oya, rules):
    """W_0 - W_1 after a round that ended with ``net`` points to seat 0 and ``next_oya`` dealing next
    (``MatchRoundGame.win_probability``: exact where the match ends there, by its last round or a bust)."""
    t0, t1 = rules.totals
    if net != 0:
        w, pts = (0, net) if net > 0 else (1, -net)
        if w == 0:
            t0 += pts
            t1 -= pts if rules.transfer else 0
        else:
            t1 += pts
            t0 -= pts if rules.transfer else 0
    lead = t0 - t1
    if rules.rounds_after <= 0 or (rules.bust and min(t0, t1) <= 0):
        w0 = 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
        w1 = 1.0 if lead < 0 else 0.0 if lead > 0 else 0.5
        return w0 - w1
    m = rules.max_lead
    w0 = rules.win[rules.rounds_after, min(max(lead, -m), m) + m, 1 if next_oya == 0 else 0]
    w1 = rules.win[rules.rounds_after, min(max(-lead, -m), m) + m, 1 if next_oya == 1 else 0]
    return w0 - w1


class Record(NamedTuple):
    """A pass's per-depth record, which ``oos_store.keep_pass`` adds to the tables: each depth's ``kind`` (a pass or
    the traverser's frame), importance ``ratio``, stored ``row`` (-1 new, -2 not kept, -3 chance), the mover's
    infoset ``hashes``, the ``mover``, its number of actions ``widths`` and its ``actions``, and the regret and
    strategy increments ``regret_inc`` and ``strategy_inc``."""

    kind: NDArray[np.int64]
    ratio: NDArray[np.float64]
    row: NDArray[np.int64]
    hashes: NDArray[np.uint64]
    mover: NDArray[np.int64]
    widths: NDArray[np.int64]
    actions: NDArray[np.int64]
    regret_inc: NDArray[np.float64]
    strategy_inc: NDArray[np.float64]


class Scratch(NamedTuple):
    """A pass's working arrays, made once per ``oos_koikoi_iterate``: the round's state and cards (``flow``), both
    players' infoset hashes ``h``, the walk's frames ``F`` (``arithmetic``), the ``record``, and rows of the legal
    actions, t_U and t_T, with ``regret_matching``'s offsets ``off2``."""

    st: NDArray[np.int64]
    cards: NDArray[np.uint64]
    h: NDArray[np.uint64]
    F: NDArray[np.float64]
    record: Record
    acts: NDArray[np.int64]
    tu: NDArray[np.float64]
    tt: NDArray[np.float64]
    off2: NDArray[np.int64]


@njit(cache=True)
def new_scratch(width):
    """``Scratch`` for rows of up to ``width`` actions, ``LEVELS`` deep."""
    record = Record(np.full(LEVELS, -1, dtype=np.int64), np.ones(LEVELS), np.full(LEVELS, -3, dtype=np.int64),
                    np.zeros((LEVELS, 2), dtype=np.uint64), np.zeros(LEVELS, dtype=np.int64),
                    np.zeros(LEVELS, dtype=np.int64), np.zeros((LEVELS, width), dtype=np.int64),
                    np.zeros((LEVELS, width)), np.zeros((LEVELS, width)))
    return Scratch(np.zeros(flow.STATE_SIZE, dtype=np.int64), np.zeros(flow.CARDS_SIZE, dtype=np.uint64),
                   np.zeros((2, 2), dtype=np.uint64), np.zeros((7, LEVELS, width)), record,
                   np.zeros(48, dtype=np.int64), np.zeros(48), np.zeros(48), np.zeros(2, dtype=np.int64))


@njit(cache=True, inline="always")
def _choose(cards, n, k, key, ctr):
    """``deal._choose``: ``k`` of ``cards[:n]`` in a random order (partial Fisher-Yates, in place); the counter."""
    for i in range(k):
        j = i + min(int(uniform(key, ctr) * (n - i)), n - i - 1)
        ctr += 1
        cards[i], cards[j] = cards[j], cards[i]
    return ctr


@njit(cache=True, inline="always")
def _mask(cards, lo, hi):
    m = np.uint64(0)
    for i in range(lo, hi):
        m |= np.uint64(1) << np.uint64(cards[i])
    return m


@njit(cache=True, inline="always")
def _targeted(wt, beyond, track, j, events, acts, na, tu, tt):
    """t_T over the ``na`` actions ``acts`` (``ConditionedSampler._allowed``, then ``mixture.restrict``): ``tu``
    restricted to the recorded event ``events[j]`` while on track (all actions beyond the infoset),
    renormalised. False where w_T = 0 (t_T unused)."""
    if wt == 0.0:
        return False
    nxt = events[j] if track and not beyond and 0 <= j < events.shape[0] else -1
    for a in range(na):
        tt[a] = 1.0 if beyond or acts[a] == nxt else 0.0
    restrict(tu, tt, na)
    return True


@njit(cache=True)
def oos_koikoi_pass(rules, aim, store, trav, pass_key, eps, scheme, scratch):
    """One outcome-sampling traversal of the round for ``trav`` (``Walker.walk`` with ``ConditionedSampler``);
    its per-depth increments in ``scratch.record``. Returns the depth reached.

    Long for a function: one numba loop over the round's nodes, its state (the draw counter, the weights w_T and
    w_U, the track) in registers; helpers returning tuples for each node's draw measured 20 % slower. Every
    number comes from ``arithmetic`` and ``mixture``, the cards' draws from ``_choose``."""
    st, cards, h, F, sc, acts, tu, tt, off2 = scratch
    kind, ratio, rowof, hs, who, nas, actd, rinc, sinc = sc
    kr = flow.borrow_rules(rules.kr)  # the rules' arrays without reference counts at every node
    key = stream_key(pass_key, np.int64(0))
    delta = aim.delta
    targeted, ctr = targeted_pass(delta, key)
    wt, wu = delta, 1.0 - delta
    length, events = aim.length, aim.events
    track, beyond = aim.length >= 0, False
    infoset_hash.start(st, cards, h, rules.oya, rules.coin, rules.month, rules.deck)
    start_walk(F)
    d = np.int64(0)  # int64 from the start: a literal 0 compiles the draws' helpers once more
    seen_new, leaf = False, np.nan
    while st[flow.S_PHASE] != flow.TERMINAL:
        phase = st[flow.S_PHASE]
        wt_next, wu_next = wt, wu
        if phase == flow.FIRST_OYA or phase == flow.DEAL:
            opening = d < length and track
            if phase == flow.FIRST_OYA:
                if opening and targeted:
                    a = aim.coin
                else:
                    tu[0], tu[1] = 0.5, 0.5
                    a = pick(tu[:2], uniform(key, ctr))
                    ctr += 1
                if opening:  # sigma'_c / f_c of the coin: 2 for the infoset's side
                    r = (2.0 if a == aim.coin else 0.0) if wt > 0.0 else 0.0
                    ratio[d], wt_next, wu_next = mix_draw(wt, wu, r, 1.0)
                else:  # ``TargetedSampler.chance`` over the listed coin
                    has_t = _targeted(wt, beyond, track, d - length, events, np.arange(2), np.int64(2), tu, tt)
                    m, wt_next, wu_next = mix_draw(wt, wu, tt[a] if has_t else 0.0, tu[a])
                    ratio[d] = m / tu[a]
                infoset_hash.coin(st, h, a)
            else:
                n = rules.deck_cards.shape[0]
                hand_size, field_size = rules.hand, rules.field
                if opening and targeted:  # the proposal sigma'_c of the infoset's deal number ``redeals``
                    i = st[flow.S_REDEALS]
                    pool_size = aim.pool_n[i]
                    for c in range(pool_size):
                        acts[c] = aim.pool[i, c]
                    need = hand_size - popcount(aim.required[i])
                    ctr = _choose(acts, pool_size, need, key, ctr)
                    mine = aim.mine[i]
                    opp = aim.required[i] | _mask(acts, 0, need)
                    field = aim.field[i]
                    if st[flow.S_OYA] == aim.player:
                        ko_hand, oya_hand = opp, mine
                    else:
                        ko_hand, oya_hand = mine, opp
                else:  # f_c: a uniform partition of the deck (``KoiKoiDeal.draw``)
                    for c in range(n):
                        acts[c] = rules.deck_cards[c]
                    ctr = _choose(acts, n, 2 * hand_size + field_size, key, ctr)
                    ko_hand = _mask(acts, 0, hand_size)
                    field = _mask(acts, hand_size, hand_size + field_size)
                    oya_hand = _mask(acts, hand_size + field_size, 2 * hand_size + field_size)
                if opening:  # sigma'_c / f_c of the deal: the deal's ratio where it fits the infoset, else 0
                    r = 0.0
                    i = st[flow.S_REDEALS]
                    if wt > 0.0 and i < aim.ratio.shape[0]:
                        mine, opp = (oya_hand, ko_hand) if st[flow.S_OYA] == aim.player else (ko_hand, oya_hand)
                        req = aim.required[i]
                        if mine == aim.mine[i] and field == aim.field[i] and opp & req == req and \
                                not opp & ~aim.allowed[i]:
                            r = aim.ratio[i]
                    ratio[d], wt_next, wu_next = mix_draw(wt, wu, r, 1.0)
                else:  # a deal off the infoset's opening run: t_T = t_U
                    track = False
                    ratio[d] = 1.0
                infoset_hash.deal(st, cards, h, ko_hand, field, oya_hand, kr)
            kind[d], rowof[d] = _PASS, -3
            descend(F, d, -1, 0, ratio[d])
        elif phase == flow.DRAW:
            na = flow.legal(st, cards, acts)
            p = 1.0 / na
            for c in range(na):
                tu[c] = p
            has_t = _targeted(wt, beyond, track, d - length, events, acts, na, tu, tt)
            c = pick(tt[:na] if targeted and has_t else tu[:na], uniform(key, ctr))
            ctr += 1
            m, wt_next, wu_next = mix_draw(wt, wu, tt[c] if has_t else 0.0, tu[c])
            ratio[d] = m / tu[c]
            a = acts[c]
            kind[d], rowof[d] = _PASS, -3
            descend(F, d, -1, 0, ratio[d])
            infoset_hash.step(st, cards, h, a, kr)
        else:  # a decision
            p = flow.mover(st)
            if d < length:  # a decision inside the infoset's opening run: this deal cannot lead there
                track = False
            na = flow.legal(st, cards, acts)
            row = lookup(store, h[p, 0], h[p, 1])
            far = row < 0 and seen_new and not (track and not beyond) and not (h[p, 0] == aim.h1 and h[p, 1] == aim.h2)
            if rules.cut and far:
                leaf = leaf_value(rules.net, st, cards, p)
                break
            seen_new = seen_new or row < 0
            rowof[d], hs[d, 0], hs[d, 1], who[d], nas[d] = row, h[p, 0], h[p, 1], p, na
            sig = F[SIG, d, :na]
            for b in range(na):
                actd[d, b] = acts[b]
                rinc[d, b] = 0.0
                sinc[d, b] = 0.0
                sig[b] = 1.0 / na
            if row >= 0:
                off2[1] = na
                kernels.regret_matching(store.regret[row, :na], off2, sig, np.bool_(False))
            elif rules.follow >= 0 and far:
                net_policy(rules.net, rules.follow, st, cards, p, acts, na, kr, rules.win, sig)
            if p == trav:
                q = traverser_policy(F, d, na, eps)
                has_t = _targeted(wt, beyond, track, d - length, events, acts, na, q, tt)
                c, rho_u, ctr = draw_traverser_mixed(F, d, na, eps, targeted and has_t, tt, key, ctr)
                F[RHO, d, c], wt_next, wu_next = mix_draw(wt, wu, tt[c] if has_t else 0.0, rho_u)
                kind[d] = _TRAV
                follow(F, d, p, c)
            else:
                enter_other(F, d, na, sinc[d, :na], trav, p, 2, True, scheme)
                has_t = _targeted(wt, beyond, track, d - length, events, acts, na, sig, tt)
                c = pick(tt[:na] if targeted and has_t else sig, uniform(key, ctr))
                ctr += 1
                m, wt_next, wu_next = mix_draw(wt, wu, tt[c] if has_t else 0.0, sig[c])
                ratio[d] = m / sig[c]
                kind[d] = _PASS
                descend(F, d, p, c, ratio[d])
            a = acts[c]
            infoset_hash.step(st, cards, h, a, kr)
        # ``ConditionedSampler._push``: still on the infoset's track, and past it
        if d < length:
            on = track and wt_next > 0.0
        else:
            j = d - length
            on = track and j < events.shape[0] and events[j] == a
        track = on
        wt, wu = wt_next, wu_next
        beyond = beyond or (on and d + 1 == length + events.shape[0])
        d += 1
        if d + 2 > LEVELS:
            raise ValueError("a Koi-Koi round deeper than LEVELS nodes")
    if leaf == leaf:
        net = leaf
    elif rules.win.shape[0] == 0:
        net = float(st[flow.S_NET])
    else:
        net = match_value(st[flow.S_NET], st[flow.S_NEXT], rules)
    ret = (net if trav == 0 else -net) / rules.scale
    for e in range(d - 1, -1, -1):
        if kind[e] == _PASS:
            ret = ret / ratio[e]
            continue
        na = nas[e]
        c = 0
        while F[CHOSEN, e, c] == 0.0:
            c += 1
        child_value(F, e, c, ret)
        ret = leave_traverser(F, e, na, rinc[e, :na], sinc[e, :na], trav, 2, True, scheme)
    return d


@njit(cache=True)
def oos_koikoi_iterate(rules, aim, store, t0, pass_keys, eps, scheme, rule, incremental):
    """Iterations t0+1 .. t0+len(pass_keys) of OOS (alternating traversers, one pass each, updates by ``rule``)."""
    scratch = new_scratch(max(store.regret.shape[1], 2))
    visited = 0
    for it in range(pass_keys.shape[0]):
        t = t0 + it + 1
        w = rule_weight(rule, t)
        for i in range(2):
            depth = oos_koikoi_pass(rules, aim, store, i, pass_keys[it, i], eps, scheme, scratch)
            visited += depth + 1
            keep_pass(store, scratch.record, depth, aim, incremental, rule, t, w)
    return visited
