"""Self-play rounds of a learned Koi-Koi policy on the numba flow, each decision of the learner a training row.

A shard of ``rounds`` single rounds (``play_shard``) is drawn from its own generator: deals and draw orders
(``batched.sample_inputs``, misdeals redealt), the dealer, the learner's seat and the opponent of each round: the
learner itself (``self_share`` of the rounds: both seats learn), ``greedy`` (the numba greedy rule of the playouts,
``GreedyAgent``'s) or a past network of the pool, uniformly; and with ``search_share`` that share of the rounds first
against a determinized search (``_deal_hidden``, ``_best_action``: ``search``'s method, ``search_rollouts``
determinizations of what the mover cannot see, every legal action played out by greedy on each, the largest mean points;
with ``search_decide``, a blueprint's koi-koi table, the playouts' koi-koi decisions follow it as the ``cfr`` agent's
do, so the opponent is ``cfr``'s method at that count without sequential halving). Every round is played in one numba
loop (``_play_rounds``): at each decision with 2+ legal actions the mover's information-state features
(``features.encode``: own hand, field, piles, calls, scores, never the opponent's hand or the stock) go through the
network (``neural.act``) and the behaviour draws its action (the learner explores with probability ``explore``; a pool
network plays its own policy). A learner's row keeps the features (an afterstate learner's: those of its action's
afterstate, ``neural.afterstate``; no row where the action ends the round), the legal mask, the action, the behaviour's
probability of it and, at the round's end, the mover's final points (``+points`` won, ``-points`` lost, 0 drawn): the
Monte Carlo return that DMC regresses its action values (or afterstate values) on and PPO its advantages (Zha et al.
2021; Schulman et al. 2017); and the mover's match-win probability after the round (``win``): where a run learns for the
match (``--objective match``), each round is given a place in a match (``match_contexts``: its index and the lead before
it, which the features hold), and the target is the match table's value of the match state the round leads to
(``match.win_after_round``; Guan et al. 2023's win-probability reward), read without playing the match out.

With ``td_lambda`` below 1 a row's points target is the lambda-return instead of the final points (Sutton and
Barto 2018, sec. 12.1; TD-Gammon's TD(lambda), Tesauro 1995): along one mover's rows of a round,
G_t = (1 - lambda) V_{t+1} + lambda G_{t+1}, ending in the final points, where V_{t+1} is the learner's value head
at the mover's next row (``value``, the network that played: the next afterstate's value for an afterstate
learner, the next state's for the others). What the round does after the next row is then read from the network
instead of from one playing out: less variance, some bias. ``points`` keeps the final points, ``target`` the
regression target (equal to ``points`` at lambda 1).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.neural.act import choose, is_after
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode
from cfrlab.games.koikoi.neural.infer import forward
from cfrlab.games.koikoi.neural.weights import NetWeights
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.batched import sample_inputs
from cfrlab.games.koikoi.rules.flow import advance
from cfrlab.games.koikoi.rules.kernels import (
    DECIDE,
    DRAW,
    KOIKOI,
    PLAY,
    STOP,
    kernel_rules,
    month_mask,
    popcount,
    score,
)
from cfrlab.games.koikoi.rules.match import NO_TABLE, MatchTable, win_after_round, win_table
from cfrlab.games.koikoi.rules.playout import play_actions
from cfrlab.games.koikoi.rules.playout_policy import greedy_capture, greedy_play, make_policy
from cfrlab.games.koikoi.rules.rules import RuleSet, month_of_round

SELF, GREEDY, SEARCH, POOL = 0, 1, 2, 3
"""Opponent kinds of a round; a pool opponent is ``POOL + i`` for the pool's network i."""
PLAYOUT_UNIFORMS = 256
"""Uniforms a search playout may read: two a decision, fewer than 128 decisions a round."""
ROW_FIELDS = ("features", "legal", "action", "prob", "points", "win", "mover", "value", "target", "round")
_GREEDY = make_policy("greedy")


@nb.njit(cache=True)
def _greedy_action(st, cards, kr, policy) -> int:
    """``GreedyAgent``'s action at the flow's decision (the rule ``playout.play_on`` plays greedy playouts by), with
    the koi-koi rule and card values of the greedy ``policy``."""
    pos = flow.load(st, cards)
    p = flow.mover(st)
    hand, pile, calls = (pos.hand0, pos.pile0, pos.calls0) if p == 0 else (pos.hand1, pos.pile1, pos.calls1)
    opp_pile, opp_calls = (pos.pile1, pos.calls1) if p == 0 else (pos.pile0, pos.calls0)
    if pos.phase == DECIDE:
        own = score(pile, pos.field, pos.month, calls, kr.P, kr.M)
        other = score(opp_pile, pos.field, pos.month, opp_calls, kr.P, kr.M)
        return KOIKOI if own < policy.koikoi_below and popcount(hand) >= policy.min_hand and other == 0 else STOP
    if pos.phase == PLAY:
        return greedy_play(hand, pos.field, pile, pos.month, calls, kr.P, kr.M, policy.value)
    return greedy_capture(pos.field & month_mask(pos.pending), pos.pending, pos.field, pile, pos.month, calls,
                          kr.P, kr.M, policy.value)


@nb.njit(cache=True)
def _seed(seed) -> None:
    """Seed numba's generator, which the search opponent's determinizations draw from (one per process)."""
    np.random.seed(seed)


@nb.njit(cache=True)
def _deal_hidden(hidden, rest, rollouts):
    """``rollouts`` uniform deals of the cards a mover cannot see, the opponent's hand ``hidden`` (a mask) and the
    draws left ``rest`` (ids): (the opponent's hands as masks, the draw orders), from numba's generator. Unlike
    ``information.determinize``, a deal the rules would have redealt is not rejected."""
    h = popcount(hidden)
    cards = np.empty(h + rest.shape[0], dtype=np.int8)
    n = 0
    for c in range(48):
        if hidden & (np.uint64(1) << np.uint64(c)):
            cards[n] = c
            n += 1
    cards[n:] = rest
    hands = np.zeros(rollouts, dtype=np.uint64)
    orders = np.empty((rollouts, rest.shape[0]), dtype=np.int8)
    for j in range(rollouts):
        for i in range(cards.shape[0] - 1, 0, -1):  # Fisher-Yates
            k = np.random.randint(0, i + 1)
            cards[i], cards[k] = cards[k], cards[i]
        for i in range(h):
            hands[j] |= np.uint64(1) << np.uint64(cards[i])
        orders[j] = cards[h:]
    return hands, orders


@nb.njit(cache=True)
def _best_action(st, cards, p, legal, m, hands, orders, u, kr, policy) -> int:
    """The index into ``legal[:m]`` of the largest mean points for mover ``p`` over the deals ``hands``, ``orders``
    of the opponent's hand and the draws, each action played out by ``policy`` (reading the uniforms ``u``, a row a
    deal) from the position ``st``, ``cards`` (the lowest index on a tie): ``players.search``'s choice on those deals
    (``search.playout_values``)."""
    shape = (m, hands.shape[0])
    winner, points, next_oya = np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.int64)
    play_actions(legal[:m], st, cards, 1 - p, hands, orders, u, kr, policy, winner, points, next_oya)
    best, most = 0, -np.inf
    for i in range(m):
        total = 0.0
        for j in range(hands.shape[0]):
            if winner[i, j] >= 0:
                total += points[i, j] if winner[i, j] == p else -points[i, j]
        if total > most:
            best, most = i, total
    return best


@nb.njit(cache=True)
def _play_rounds(ko, field, oya_hand, order, oyas, seats, months, places, leads, deck, u, learner, head, opp, opp_head,
                 kind, explore, td_lambda, rollouts, kr, table, policy, features, legal_bits,
                 actions, probs_out, points, wins, movers, values, targets, round_of, net_out):
    """Play round i of the inputs (its month ``months[i]``, its index in a match ``places[i]``, seat 0's match lead
    before it ``leads[i]``) with the learner in seat ``seats[i]`` against ``kind`` (``SELF``: the learner,
    ``GREEDY``, ``SEARCH`` at ``rollouts`` determinizations with ``policy``'s playouts, else the network ``opp``);
    the learner's rows into the row arrays (``wins``: the mover's match-win probability after the round,
    ``match.win_after_round`` of the ``WinTable`` ``table``; ``values``, ``targets``: the learner's value at the
    row and its lambda-return, ``td_lambda``, module docstring). Returns the rows written; ``net_out[i]``: the
    learner's points in round i."""
    st, cards = np.zeros(flow.STATE_SIZE, dtype=np.int64), np.zeros(flow.CARDS_SIZE, dtype=np.uint64)
    legal = np.empty(48, dtype=np.int64)
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    probs = np.empty(48, dtype=np.float64)
    val, logits = np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32)
    rows = 0
    stochastic = policy.decide.shape[1] > 0  # a koi-koi table draws its decisions from the playouts' uniforms
    u_search = np.zeros((rollouts, PLAYOUT_UNIFORMS))
    for i in range(ko.shape[0]):
        flow.begin(st, cards, oyas[i], False, months[i], deck)
        flow.deal(st, cards, ko[i], field[i], oya_hand[i], kr)
        first, drawn, k = rows, 0, 0
        while st[flow.S_PHASE] != flow.TERMINAL:
            if st[flow.S_PHASE] == DRAW:
                a = np.int64(order[i, drawn])
                drawn += 1
            else:
                m = flow.legal(st, cards, legal)
                a = legal[0]
                p = flow.mover(st)
                learns = kind == SELF or p == seats[i]
                if m > 1 and (learns or kind == POOL):
                    pos = flow.load(st, cards)
                    w, h, eps = (learner, head, explore) if learns else (opp, opp_head, 0.0)
                    lead = leads[i] if p == 0 else -leads[i]
                    pick, prob = choose(w, h, pos, p, places[i], lead, kr, table, legal, m, eps, u[i, k], u[i, k + 1],
                                        idx, probs, val, logits)
                    k += 2
                    a = legal[pick]
                    if learns and is_after(head):  # the row is the afterstate's (none for a round's end)
                        pos = advance(pos, a, kr)
                    if learns and pos.phase != flow.TERMINAL:
                        n = encode(pos, p, places[i], lead, idx)
                        features[rows, :n] = idx[:n]
                        features[rows, n:] = -1
                        bits = np.uint64(0)
                        for j in range(m):
                            bits |= np.uint64(1) << np.uint64(legal[j])
                        legal_bits[rows], actions[rows], probs_out[rows], movers[rows] = bits, a, prob, p
                        values[rows], round_of[rows] = 0.0, i
                        if td_lambda < 1.0:
                            forward(learner, idx, n, val, logits)
                            values[rows] = val[0]
                        rows += 1
                elif m > 1 and kind == SEARCH:
                    hands, orders = _deal_hidden(cards[flow.C_HANDS + 1 - p], order[i, drawn:], rollouts)
                    if stochastic:
                        u_search = np.random.random((rollouts, PLAYOUT_UNIFORMS))
                    a = legal[_best_action(st, cards, p, legal, m, hands, orders, u_search, kr, policy)]
                elif m > 1:
                    a = _greedy_action(st, cards, kr, policy)
            flow.step(st, cards, a, kr)
        winner, pts = st[flow.S_WINNER], st[flow.S_POINTS]
        for r in range(first, rows):
            points[r] = 0.0 if winner < 0 else pts if winner == movers[r] else -pts
            lead = leads[i] if movers[r] == 0 else -leads[i]
            wins[r] = win_after_round(table, places[i], lead, points[r], st[flow.S_NEXT] == movers[r])
        _lambda_returns(points, values, movers, first, rows, td_lambda, targets)
        net_out[i] = 0.0 if winner < 0 else pts if winner == seats[i] else -pts
    return rows


@nb.njit(cache=True)
def _lambda_returns(points, values, movers, first, last, td_lambda, targets) -> None:
    """``targets[first:last]``: each row's lambda-return along its mover's rows of one round (module docstring)."""
    has = np.zeros(2, dtype=np.bool_)
    nxt_value, nxt_return = np.zeros(2), np.zeros(2)
    for r in range(last - 1, first - 1, -1):
        p = movers[r]
        g = points[r] if not has[p] else (1.0 - td_lambda) * nxt_value[p] + td_lambda * nxt_return[p]
        targets[r] = g
        has[p], nxt_value[p], nxt_return[p] = True, values[r], g


def draw_opponents(rng: np.random.Generator, rounds: int, pool_size: int, self_share: float,
                   search_share: float = 0.0) -> np.ndarray:
    """Each round's opponent: ``SEARCH`` with probability ``search_share`` (no draw at 0), else ``SELF`` with
    probability ``self_share``, else uniformly ``GREEDY`` or one of the ``pool_size`` pool networks
    (``POOL + i``)."""
    mine = rng.random(rounds) < self_share
    k = rng.integers(pool_size + 1, size=rounds)
    kinds = np.where(mine, SELF, np.where(k == 0, GREEDY, POOL + k - 1))
    if search_share > 0:
        kinds = np.where(rng.random(rounds) < search_share, SEARCH, kinds)
    return kinds.astype(np.int64)


def match_contexts(table: MatchTable, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Where ``n`` rounds stand in a match (``table.rounds`` rounds): each one's index, uniform, and seat 0's lead
    before it, the sum of the earlier rounds' lead changes, each drawn from the table's measured outcomes of that
    round (greedy self-play, ``match.round_outcomes``) with its dealer either seat; a lead the rules would have
    ended the match at (``bust_lead``) is held just short of it."""
    places = rng.integers(table.rounds, size=n)
    leads = np.zeros(n, dtype=np.int64)
    for k in range(table.rounds - 1):
        o = table.outcomes[k % len(table.outcomes)]
        delta = o.delta[rng.choice(len(o.prob), size=n, p=o.prob)] * (2 * rng.integers(2, size=n) - 1)
        leads += np.where(k < places, delta, 0)
    if table.bust_lead:
        leads = np.clip(leads, 1 - table.bust_lead, table.bust_lead - 1)
    return places.astype(np.int64), leads


def play_shard(rules: RuleSet, learner: NetWeights, head: int, pool: list[tuple[NetWeights, int]], rounds: int,
               seed: int, explore: float, self_share: float, match: MatchTable | None = None,
               td_lambda: float = 1.0, search_share: float = 0.0, search_rollouts: int = 32,
               search_decide: np.ndarray | None = None) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """``rounds`` rounds from generator ``seed`` (module docstring): (the learner's rows, in round order within
    each opponent, the opponents in order; stats: the learner's mean points against greedy and the pool).
    ``match``: each round is one of a match valued by this table, at a place drawn by ``match_contexts``; None:
    single rounds (the first of a match at level scores, valued by a one-round match). ``td_lambda``: the
    targets' lambda (1: the final points); ``search_share``, ``search_rollouts``, ``search_decide``: the rounds
    against the search, its determinizations and its playouts' koi-koi table (None: greedy's rule; module
    docstring)."""
    rng = np.random.default_rng(seed)
    inputs = sample_inputs(rules, rounds, rng, policy="greedy")
    oyas = rng.integers(2, size=rounds)
    seats = rng.integers(2, size=rounds)
    opponents = draw_opponents(rng, rounds, len(pool), self_share, search_share)
    if search_share > 0:
        _seed(int(rng.integers(2**31)))
    zero = np.zeros(rounds, dtype=np.int64)
    places, leads = (zero, zero) if match is None else match_contexts(match, rounds, rng)
    table = NO_TABLE if match is None else win_table(rules, match)
    months = np.array([month_of_round(rules, int(r)) for r in places], dtype=np.int64)
    kr = kernel_rules(rules)
    policy = _GREEDY if search_decide is None else make_policy("greedy", decide=search_decide)
    width = 8 * rules.hand_size
    parts: list[dict[str, np.ndarray]] = []
    stats: dict[str, float] = {}
    for kind in (int(k) for k in np.unique(opponents)):
        sel = np.flatnonzero(opponents == kind)
        room = len(sel) * width
        out: dict[str, np.ndarray] = {
            "features": np.empty((room, MAX_ACTIVE), dtype=np.int16), "legal": np.empty(room, dtype=np.uint64),
            "action": np.empty(room, dtype=np.int64), "prob": np.empty(room, dtype=np.float64),
            "points": np.empty(room, dtype=np.float32), "win": np.empty(room, dtype=np.float32),
            "mover": np.empty(room, dtype=np.int64), "value": np.empty(room, dtype=np.float32),
            "target": np.empty(room, dtype=np.float32), "round": np.empty(room, dtype=np.int64)}
        net = np.empty(len(sel), dtype=np.float64)
        opp, opp_head = pool[kind - POOL] if kind >= POOL else (learner, head)
        n = _play_rounds(inputs.ko[sel], inputs.field[sel], inputs.oya[sel], inputs.order[sel], oyas[sel],
                         seats[sel], months[sel], places[sel], leads[sel], np.uint64(C.deck_mask(rules.months)),
                         inputs.u[sel], learner, head, opp, opp_head, min(kind, POOL), explore, float(td_lambda),
                         int(search_rollouts), kr, table, policy, out["features"], out["legal"], out["action"],
                         out["prob"], out["points"], out["win"], out["mover"], out["value"], out["target"],
                         out["round"], net)
        out["round"][:n] = sel[out["round"][:n]]  # the round's index in the shard
        parts.append({k: v[:n] for k, v in out.items()})
        if kind in (GREEDY, SEARCH):
            stats["vs_greedy" if kind == GREEDY else "vs_search"] = float(net.mean())
    rows = {k: np.concatenate([p[k] for p in parts]) for k in ROW_FIELDS}
    stats["rows"] = float(len(rows["action"]))
    return rows, stats
