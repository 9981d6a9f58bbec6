"""Koi-Koi search agent: determinized Monte Carlo rollouts over the acting player's information set.

Method (perfect-information Monte Carlo, as in Ginsberg's GIB and Long et al. 2010 "Understanding the success of
perfect information Monte Carlo sampling in game tree search"; suzukiplan's Battle Hanafuda AI, koikoi-rules.md
sec. 12 [Z], and the case for search over sampled deals in seed 000 sec. 10-11):
1. Read only what the acting player may know (``information``): own hand, field, both capture piles, koi-koi calls,
   turn, oya, the pending card of a capture choice, and the *sizes* of the opponent's hand and of the stock. The
   unseen cards U = deck - own hand - field - piles - pending are the opponent's hand plus the stock.
2. Draw ``rollouts`` determinizations: a uniform random permutation of U, whose first h cards are the opponent's
   hand and whose rest is the draw-pile order. With the strategies ignored every h-subset of U is equally likely
   (sec. 10.1) and the deck order is uniform, so this is the chance posterior given the public history.
3. Play every legal action on every determinization and finish the round with a fast playout (a numba kernel that
   runs the engine's rules): both players follow the greedy heuristic of ``GreedyAgent`` (capture the largest score
   gain, then the most card value; KOI-KOI only on a small score with cards left and an opponent without yaku),
   with exploration ``epsilon`` on plays and capture choices. The same determinizations and the same uniforms are
   used for every action (common random numbers), so the comparison between actions has little sampling noise.
4. Pick the action with the highest mean round utility for the acting player (+points won, -points lost, 0 for a
   draw, as ``KoiKoiGame.returns`` defines it for a single round); ties go to the lowest action id. STOP and
   KOI-KOI are evaluated the same way: STOP's value is exact, KOI-KOI's comes from the playouts.

Known limits:
* Strategy fusion and non-locality (Frank and Basin 1998; Long et al. 2010): each determinization is played as if
  the hidden cards were known to both players, so the agent over-values actions that only pay off with information
  it does not have, and it never plays to hide or gather information.
* Beliefs are uniform over U: they ignore what the opponent's choices reveal about their hand, and that a dealt hand
  with teyaku would have ended the round at once.
* The playouts model both players as greedy, so values are those of greedy continuations, not of best play; against
  opponents far from greedy the estimates are biased.
* Matches are played round by round: the agent maximises this round's points, not the match-win probability.
* The playout kernel covers the rule sets of the batched simulator (``nintendo``, ``mini`` and Nintendo-shaped
  overrides, see ``batched.check_supported``); other presets raise ``NotImplementedError`` when the agent is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi import cards as C
from cfrlab.games.koikoi import engine as E
from cfrlab.games.koikoi.agents import CARD_VALUE
from cfrlab.games.koikoi.batched import _nth, _pc, _score, check_supported, scoring_arrays
from cfrlab.games.koikoi.rules import RuleSet

DEFAULT_ROLLOUTS = 200


@dataclass(frozen=True)
class SearchConfig:
    """Parameters of ``SearchAgent`` (stored as given)."""

    rollouts: int = DEFAULT_ROLLOUTS
    """Determinizations per decision; every legal action is played out once on each (the budget per move)."""
    epsilon: float = 0.0
    """Probability that a playout move (card or capture choice) is uniform random instead of greedy."""
    koikoi_below: int = 4
    """Playout koi-koi rule: KOI-KOI when the base score is below this, as ``GreedyAgent``."""
    min_hand: int = 3
    """Playout koi-koi rule: ... and at least this many cards remain in hand."""


class Information(NamedTuple):
    """What the acting player knows at a decision: everything the search may use."""

    player: int
    phase: int
    oya: int
    turn: int
    hand: int
    field: int
    piles: tuple[int, int]
    calls: tuple[int, int]
    pending: int
    """Card waiting for its capture choice (-1 if none); public."""
    s0: int
    """Mover's base score at the start of the turn (a function of the public pile at that time)."""
    opponent_hand_size: int
    unseen: int
    """Mask of the cards the player has not seen: the opponent's hand and the stock together."""
    legal: tuple[int, ...]


def information(engine: E.Engine, es: E.EngineState, player: int) -> Information:
    """The player's information at decision state ``es``: own hand and public data, never the hidden cards.

    The opponent's hand and the stock enter only through their sizes and their union ``unseen``."""
    if es.phase not in (E.PLAY, E.PLAY_CAPTURE, E.DRAW_CAPTURE, E.DECIDE):
        raise ValueError(f"no decision of player {player} in phase {E.PHASE_NAMES[es.phase]}")
    if engine.mover(es) != player:
        raise ValueError(f"player {player} is not to act (player {engine.mover(es)} is)")
    opp = 1 - player
    hand = es.hands[player]
    pending_bit = 1 << es.pending if es.pending >= 0 else 0
    unseen = engine.deck & ~(hand | es.field | es.piles[0] | es.piles[1] | pending_bit)
    return Information(player, es.phase, es.oya, es.turn, hand, es.field, es.piles, es.calls, es.pending, es.s0,
                       es.hands[opp].bit_count(), unseen, tuple(engine.legal_actions(es)))


def determinize(info: Information, n: int, rng: np.random.Generator) -> tuple[NDArray[np.uint64], NDArray[np.int8]]:
    """``n`` uniform completions of ``info``: the opponent's hand masks and the draw-pile orders (top first)."""
    cards = np.array(C.cards_of(info.unseen), dtype=np.int8)
    h = info.opponent_hand_size
    if h > len(cards):
        raise ValueError(f"the opponent holds {h} cards but only {len(cards)} are unseen")
    perm = cards[np.argsort(rng.random((n, len(cards))), axis=1)]
    bits = np.left_shift(np.uint64(1), perm[:, :h].astype(np.uint64))
    opp = np.bitwise_or.reduce(bits, axis=1) if h else np.zeros(n, dtype=np.uint64)
    return opp.astype(np.uint64), np.ascontiguousarray(perm[:, h:])


class KernelRules(NamedTuple):
    """A rule set as the arrays the playout kernel reads."""

    P: NDArray[np.int64]
    masks: NDArray[np.uint64]
    cfg: NDArray[np.int64]
    value: NDArray[np.int64]


def kernel_rules(rules: RuleSet, koikoi_below: int = 4, min_hand: int = 3) -> KernelRules:
    """The yaku values, card sets and flow options of ``rules`` for the kernel (raises if it cannot play them)."""
    check_supported(rules)
    r = rules
    P, masks = scoring_arrays(rules)
    draw_mode = {"nothing_oya_passes": 0, "nothing_oya_stays": 0, "oya_ken": 1, "oya_plus_one": 1}[r.exhaustive_draw]
    draw_pts = r.oya_ken_points if r.exhaustive_draw == "oya_ken" else 1
    # cfg: half_turns seven_double threshold limit opp_double forced minpts draw_mode draw_pts koikoi_below min_hand
    cfg = np.array([2 * r.hand_size, r.seven_plus_double, r.double_threshold, r.koikoi_limit,
                    r.opponent_koikoi_multiplier == "double", r.forced_stop_on_empty_hand, r.koikoi_min_points,
                    draw_mode, draw_pts, koikoi_below, min_hand], dtype=np.int64)
    return KernelRules(P, masks, cfg, np.array(CARD_VALUE, dtype=np.int64))


# ---------------------------------------------------------------------------------------------------- playout kernel
@nb.njit(cache=True, inline="always")
def _month(card: int) -> np.uint64:
    return np.uint64(0xF) << np.uint64(card & ~3)


@nb.njit(cache=True)
def _value_of(mask: np.uint64, value: NDArray[np.int64]) -> int:
    v = 0
    for c in range(48):
        if (mask >> np.uint64(c)) & np.uint64(1):
            v += value[c]
    return v


@nb.njit(cache=True)
def _lay(c: int, field: np.uint64, pile: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Card ``c`` meets the field with no choice to make: it stays there (no month match) or takes its
    month's cards (one, or three) to ``pile``. Returns the new (field, pile)."""
    m = field & _month(c)
    if _pc(m) == 0:
        return field | (np.uint64(1) << np.uint64(c)), pile
    return field & ~m, pile | m | (np.uint64(1) << np.uint64(c))


@nb.njit(cache=True)
def _random_card(mask: np.uint64, y: float) -> int:
    """The card of ``mask`` picked by a uniform draw ``y`` in [0, 1)."""
    return _nth(mask, int(y * _pc(mask)))


@nb.njit(cache=True)
def _greedy_play(hand: np.uint64, field: np.uint64, pile: np.uint64, P, masks, value) -> int:
    """``GreedyAgent``'s card: key (score gain, captured value, 1) for a capture, (-1, -value, 0) otherwise."""
    one = np.uint64(1)
    base = _score(pile, P, masks)
    best, b0, b1, b2 = -1, 0, 0, 0
    for c in range(48):
        if not (hand >> np.uint64(c)) & one:
            continue
        m = field & _month(c)
        k = _pc(m)
        if k == 0:
            k0, k1, k2 = -1, -value[c], 0
        else:
            got = m
            if k == 2:  # the more valuable of the two (the lower id on a tie)
                take, tv = -1, -1
                for x in range(48):
                    if (m >> np.uint64(x)) & one and value[x] > tv:
                        take, tv = x, value[x]
                got = one << np.uint64(take)
            gained = got | (one << np.uint64(c))
            k0, k1, k2 = _score(pile | gained, P, masks) - base, _value_of(gained, value), 1
        if best < 0 or k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            best, b0, b1, b2 = c, k0, k1, k2
    return best


@nb.njit(cache=True)
def _greedy_capture(options: np.uint64, pending: int, pile: np.uint64, P, masks, value) -> int:
    """``GreedyAgent``'s capture target: key (score gain, card value, -id)."""
    one = np.uint64(1)
    base = _score(pile, P, masks)
    pend = one << np.uint64(pending)
    best, b0, b1 = -1, 0, 0
    for c in range(48):
        if (options >> np.uint64(c)) & one:
            k0 = _score(pile | pend | (one << np.uint64(c)), P, masks) - base
            k1 = value[c]
            if best < 0 or k0 > b0 or (k0 == b0 and k1 > b1):
                best, b0, b1 = c, k0, k1
    return best


@nb.njit(cache=True)
def _rollout(first, me, phase, oya, turn, hand0, hand1, field, pile0, pile1, calls0, calls1, pending, s0, order,
             u, eps, P, masks, cfg, value) -> float:
    """Play the round on from a decision of player ``me`` with ``first`` as its action; ``me``'s utility."""
    one = np.uint64(1)
    hands = np.empty(2, dtype=np.uint64)
    piles = np.empty(2, dtype=np.uint64)
    calls = np.empty(2, dtype=np.int64)
    hands[0], hands[1] = hand0, hand1
    piles[0], piles[1] = pile0, pile1
    calls[0], calls[1] = calls0, calls1
    H = cfg[0]
    action = first
    d = 0  # next card of the draw pile
    k = 0  # next uniform
    winner, points = -1, 0
    while True:
        p = (oya + turn) & 1
        end_turn = False
        if phase == 2:  # PLAY
            if action >= 0:
                c = action
            else:
                x, y = u[k], u[k + 1]
                k += 2
                c = _random_card(hands[p], y) if x < eps else _greedy_play(hands[p], field, piles[p], P, masks, value)
            action = -1
            hands[p] &= ~(one << np.uint64(c))
            if _pc(field & _month(c)) == 2:
                phase, pending = 3, c
                continue
            field, piles[p] = _lay(c, field, piles[p])
            phase = 4
        elif phase == 3 or phase == 5:  # PLAY_CAPTURE / DRAW_CAPTURE
            opts = field & _month(pending)
            if action >= 0:
                t = action
            else:
                x, y = u[k], u[k + 1]
                k += 2
                t = _random_card(opts, y) if x < eps else _greedy_capture(opts, pending, piles[p], P, masks, value)
            action = -1
            field &= ~(one << np.uint64(t))
            piles[p] |= (one << np.uint64(t)) | (one << np.uint64(pending))
            pending = -1
            if phase == 3:
                phase = 4
            else:
                end_turn = True
        elif phase == 4:  # DRAW from the sampled pile order
            c = int(order[d])
            d += 1
            if _pc(field & _month(c)) == 2:
                phase, pending = 5, c
                continue
            field, piles[p] = _lay(c, field, piles[p])
            end_turn = True
        else:  # DECIDE
            s1 = _score(piles[p], P, masks)
            if action >= 0:
                stop = action == 48
            else:
                k += 2  # same consumption as the other decisions
                stop = not (s1 < cfg[9] and _pc(hands[p]) >= cfg[10] and _score(piles[1 - p], P, masks) == 0)
            action = -1
            if stop:
                winner, points = p, s1
                break
            calls[p] += 1
            turn += 1
            if turn >= H:
                winner = -2
                break
            s0 = _score(piles[(oya + turn) & 1], P, masks)
            phase = 2
            continue
        if end_turn:
            s1 = _score(piles[p], P, masks)
            if s1 > s0 and s1 > 0 and s1 >= cfg[6]:
                if (cfg[3] > 0 and calls[0] + calls[1] >= cfg[3]) or (cfg[5] and hands[p] == 0):
                    winner, points = p, s1
                    break
                phase = 6
                continue
            turn += 1
            if turn >= H:
                winner = -2
                break
            s0 = _score(piles[(oya + turn) & 1], P, masks)
            phase = 2
    if winner == -2:  # exhaustive draw
        if cfg[7] == 0:
            return 0.0
        winner, pts = oya, cfg[8]
        return float(pts) if winner == me else -float(pts)
    if cfg[1] and points >= cfg[2]:
        points *= 2
    if cfg[4] and calls[1 - winner] > 0:
        points *= 2
    return float(points) if winner == me else -float(points)


@nb.njit(cache=True)
def _evaluate(actions, me, phase, oya, turn, my_hand, opp_hands, field, pile0, pile1, calls0, calls1, pending, s0,
              orders, u, eps, P, masks, cfg, value, out) -> None:
    n = opp_hands.shape[0]
    for i in range(actions.shape[0]):
        for j in range(n):
            h0 = my_hand if me == 0 else opp_hands[j]
            h1 = opp_hands[j] if me == 0 else my_hand
            out[i, j] = _rollout(actions[i], me, phase, oya, turn, h0, h1, field, pile0, pile1, calls0, calls1,
                                 pending, s0, orders[j], u[j], eps, P, masks, cfg, value)


def playout_values(kr: KernelRules, info: Information, actions: list[int] | tuple[int, ...],
                   opp_hands: NDArray[np.uint64], orders: NDArray[np.int8], u: NDArray[np.float64],
                   epsilon: float = 0.0) -> NDArray[np.float64]:
    """Utility of each action (rows) on each determinization (columns) for the acting player."""
    acts = np.asarray(actions, dtype=np.int64)
    out = np.empty((len(acts), len(opp_hands)), dtype=np.float64)
    _evaluate(acts, info.player, info.phase, info.oya, info.turn, np.uint64(info.hand), opp_hands,
              np.uint64(info.field), np.uint64(info.piles[0]), np.uint64(info.piles[1]), info.calls[0], info.calls[1],
              info.pending, info.s0, orders, u, float(epsilon), kr.P, kr.masks, kr.cfg, kr.value, out)
    return out


class SearchResult(NamedTuple):
    """One decision: the legal actions, their mean playout utilities and standard errors, the choice."""

    actions: tuple[int, ...]
    means: NDArray[np.float64]
    stderrs: NDArray[np.float64]
    action: int


class SearchAgent:
    """Determinized Monte Carlo search (module docstring); ``act`` reads only the acting player's information."""

    def __init__(self, rules: RuleSet, config: SearchConfig | None = None, name: str | None = None) -> None:
        self.rules = rules
        self.config = config or SearchConfig()
        if self.config.rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {self.config.rollouts}")
        if not 0.0 <= self.config.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.config.epsilon}")
        self.name = name or f"search({self.config.rollouts})"
        self._kr = kernel_rules(rules, self.config.koikoi_below, self.config.min_hand)

    def search(self, info: Information, rng: np.random.Generator) -> SearchResult:
        """Evaluate every legal action of ``info`` on ``rollouts`` determinizations drawn from ``rng``."""
        legal = info.legal
        if len(legal) == 1:
            return SearchResult(legal, np.zeros(1), np.zeros(1), legal[0])
        n = self.config.rollouts
        opp, orders = determinize(info, n, rng)
        width = 8 * int(self._kr.cfg[0])  # two uniforms per decision, at most four decisions per half-turn
        u = rng.random((n, width)) if self.config.epsilon > 0 else np.ones((n, width))
        values = playout_values(self._kr, info, legal, opp, orders, u, self.config.epsilon)
        means = values.mean(axis=1)
        se = values.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full(len(legal), np.nan)
        return SearchResult(legal, means, se, int(legal[int(np.argmax(means))]))

    def act(self, state, rng: np.random.Generator) -> int:  # noqa: ANN001 - a KoiKoiState
        """The action with the best mean playout utility for the acting player of ``state``."""
        info = information(state.game.engine, state.es, state.current_player())
        return self.search(info, rng).action


def make_search_agent(game, rollouts: int = DEFAULT_ROLLOUTS, **options: float) -> SearchAgent:  # noqa: ANN001
    """A ``SearchAgent`` for a Koi-Koi game (``make_agent("search")`` / ``"search:N"``)."""
    if not game.name.startswith("koikoi"):
        raise ValueError(f"the search agent plays Koi-Koi only, not {game.spec()}")
    return SearchAgent(game.rules, SearchConfig(rollouts=rollouts, **options))
