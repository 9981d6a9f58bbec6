"""Koi-Koi search agent: determinized Monte Carlo rollouts over the acting player's information set.

Method (perfect-information Monte Carlo, as in Ginsberg's GIB and Long et al. 2010 "Understanding the success of
perfect information Monte Carlo sampling in game tree search"; suzukiplan's Battle Hanafuda AI, koikoi-rules.md
sec. 12 [Z], and the case for search over sampled deals in seed 000 sec. 10-11):
1. Read only what the acting player may know (``information``): own hand, field, both capture piles, koi-koi calls,
   turn, oya, the pending card of a capture choice, and the *sizes* of the opponent's hand and of the stock. The
   unseen cards U = deck - own hand - field - piles - pending are the opponent's hand plus the stock.
2. Draw ``rollouts`` determinizations: a uniform random permutation of U, whose first h cards are the opponent's
   hand and whose rest is the draw-pile order. With the strategies ignored every h-subset of U is equally likely
   (sec. 10.1) and the deck order is uniform, except that the deal must have led to play: completions whose dealt
   hands the rules would have redealt or ended at once (teyaku) are rejected and drawn again (``determinize``).
   This is the chance posterior given the public history.
3. Play every legal action on every determinization and finish the round with a fast playout (a numba kernel that
   runs the engine's rules): both players follow the greedy heuristic of ``GreedyAgent`` (capture the largest score
   gain, then the most card value; KOI-KOI only on a small score with cards left and an opponent without yaku),
   with exploration ``epsilon`` on plays and capture choices; with a ``decide`` table (``SearchAgent(decide=...)``,
   what the ``cfr`` agent passes: ``cfrlab.games.koikoi.players.cfr``) the playouts' koi-koi/stop decisions follow a CFR
   blueprint instead. The same determinizations and the same uniforms are used for every action (common random
   numbers), so the comparison between actions has little sampling noise. ``rollouts`` fixes the number of
   determinizations; ``seconds`` draws batches of them until that much CPU time of the thread has passed. With
   ``weights`` (``playout_policy``) the playouts' card plays and captures follow a tuned rule instead of greedy's;
   with ``halving`` the budget goes to the root actions by sequential halving (Karnin et al. 2013) instead of
   evenly.
4. Pick the action with the highest mean round utility for the acting player (+points won, -points lost, 0 for a
   draw, as ``KoiKoiGame.returns`` defines it for a single round); ties go to the lowest action id. STOP and
   KOI-KOI are evaluated the same way: STOP's value is exact, KOI-KOI's comes from the playouts.

Known limits:
* Strategy fusion and non-locality (Frank and Basin 1998; Long et al. 2010): each determinization is played as if
  the hidden cards were known to both players, so the agent over-values actions that only pay off with information
  it does not have, and it never plays to hide or gather information.
* Beliefs follow chance only: they ignore what the opponent's choices reveal about their hand.
* The playouts model both players as greedy, so values are those of greedy continuations, not of best play; against
  opponents far from greedy the estimates are biased.
* With ``objective='points'`` matches are played round by round (this round's points); ``objective='match'``
  values the playouts of a koi-koi/stop decision by the match-win probability of ``match.MatchTable`` instead.
* The playouts (``playout.play_out``) play every ``RuleSet`` option and preset.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.information import (
    Information,
    PlayoutRules,
    determinize,
    information,
    playout_rules,
    root_position,
)
from cfrlab.games.koikoi.rules.kernels import F_HALF_TURNS
from cfrlab.games.koikoi.rules.match import MatchTable, match_table
from cfrlab.games.koikoi.rules.playout import play_actions
from cfrlab.games.koikoi.rules.rules import RuleSet

DEFAULT_ROLLOUTS = 200
TIME_BATCH = 32


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
    objective: str = "points"
    """'points': maximise this round's points; 'match': at koi-koi/stop decisions maximise the match-win
    probability after the round instead (``match.MatchTable``: rounds left, lead, next dealer)."""
    seconds: float | None = None
    """Time per decision instead of a fixed count: determinizations are drawn in batches of ``TIME_BATCH`` until
    this many CPU seconds of the searching thread have passed (at least one batch); ``rollouts`` is then unused."""
    halving: bool = False
    """Sequential halving over the root actions (Karnin, Koren and Somekh 2013) instead of every action on every
    determinization: the budget (``rollouts`` times the number of actions, or ``seconds``) is split into
    ceil(log2 K) equal stages; each stage plays the surviving actions on fresh determinizations and keeps the better
    half by their means over all determinizations so far (all survivors share them: common random numbers)."""
    cutoff: int | None = None
    """With an evaluator (``SearchAgent(evaluator=...)``): half-turns a playout plays after the root's before the
    network values the position (``neural.cut``); None: to the round's end. Koi-koi/stop decisions under the match
    objective keep full playouts (the match table values the round's end)."""
    prune: int | None = None
    """With an evaluator: search only the ``prune`` root actions of highest policy logit (``NetEvaluator.prune``);
    None: every legal action (the ``neural`` agent's choice, measured: ``players.neural.PRUNE``)."""
    blend: float = 0.0
    """With an evaluator whose root values are round points (``Evaluator.in_points``): rank the root actions by
    ``(1 - blend)`` times their playouts' mean plus ``blend`` times the network's own value of the action, two
    estimates with different errors mixed (AlphaGo mixes its value network and its rollouts half and half,
    Silver et al. 2016). Koi-koi/stop decisions under the match objective are ranked by the playouts alone."""
    objective_everywhere: bool = False
    """With 'match': value every decision (cards and captures too) by the match-win probability. Off by default:
    measured, it loses points and match wins (the win probability is too flat early in a match to rank cards
    through 100-200 playouts; BENCHMARKS.md)."""



def playout_values(pr: PlayoutRules, info: Information, actions: list[int] | tuple[int, ...],
                   opp_hands: NDArray[np.uint64], orders: NDArray[np.int8], u: NDArray[np.float64],
                   epsilon: float = 0.0, match: tuple[MatchTable, RuleSet] | None = None) -> NDArray[np.float64]:
    """Utility of each action (rows) on each determinization (columns) for the acting player: the round's points
    won or lost, or with ``match`` (a table and the rules) the match-win probability after the round."""
    acts = np.asarray(actions, dtype=np.int64)
    shape = (len(acts), len(opp_hands))
    winner, points, next_oya = (np.empty(shape, dtype=np.int64) for _ in range(3))
    if epsilon != pr.policy.epsilon:
        pr = pr._replace(policy=pr.policy._replace(epsilon=float(epsilon)))
    root, root_cards = root_position(info)
    play_actions(acts, root, root_cards, 1 - info.player, opp_hands, orders, u, pr.rules, pr.policy, winner, points,
                 next_oya)
    gain = np.where(winner < 0, 0, np.where(winner == info.player, points, -points))
    if match is None:
        return gain.astype(np.float64)
    table, rules = match
    lead = info.totals[info.player] - info.totals[1 - info.player]
    scale = 2 if rules.scoring == "transfer" else 1
    return table.value(rules.rounds - info.round - 1, lead + scale * gain, next_oya == info.player)


class Evaluator(Protocol):
    """A learned evaluator inside the search (``neural.cut.NetEvaluator``): it values the playouts cut at
    ``SearchConfig.cutoff``, and plays every playout when ``plays`` (its own playout policy; ``stochastic``: one
    that reads the playouts' uniforms)."""

    plays: bool
    stochastic: bool

    def playout_values(self, pr: PlayoutRules, info: Information, actions: tuple[int, ...],
                       opp_hands: NDArray[np.uint64], orders: NDArray[np.int8], u: NDArray[np.float64],
                       cutoff: int | None) -> NDArray[np.float64]: ...

    def prune(self, info: Information, keep: int) -> tuple[int, ...]: ...

    def root_values(self, info: Information, actions: tuple[int, ...]) -> NDArray[np.float64]: ...

    @property
    def in_points(self) -> bool: ...


class SearchResult(NamedTuple):
    """One decision: the legal actions, their mean playout utilities and standard errors, the choice."""

    actions: tuple[int, ...]
    means: NDArray[np.float64]
    stderrs: NDArray[np.float64]
    action: int
    samples: int = 0
    """Determinizations drawn (none when only one action is legal)."""
    counts: NDArray[np.int64] | None = None
    """Determinizations each action was played on (all the same without ``halving``)."""


class SearchAgent:
    """Determinized Monte Carlo search (module docstring); ``act`` reads only the acting player's information."""

    def __init__(self, rules: RuleSet, config: SearchConfig | None = None, name: str | None = None,
                 decide: NDArray[np.float64] | None = None, weights: NDArray[np.float64] | None = None,
                 evaluator: Evaluator | None = None) -> None:
        """``decide``: the playouts' koi-koi table (``playout_policy``; None: the greedy rule); ``weights``: their
        card-play weights (``playout_policy``; None: greedy's plays); ``evaluator``: values the playouts cut after
        ``config.cutoff`` half-turns and ranks the root actions for ``config.prune`` (``neural.cut.NetEvaluator``)."""
        self.rules = rules
        self.config = config or SearchConfig()
        self.evaluator = evaluator
        if self.config.cutoff is not None and (evaluator is None or self.config.cutoff < 1):
            raise ValueError(f"a playout cutoff needs an evaluator and at least 1 half-turn, got {self.config.cutoff}")
        if self.config.prune is not None and (evaluator is None or self.config.prune < 1):
            raise ValueError(f"pruning needs an evaluator and at least 1 action kept, got {self.config.prune}")
        if self.config.blend and (evaluator is None or not evaluator.in_points or not 0.0 < self.config.blend <= 1.0):
            raise ValueError(f"a blend in (0, 1] needs an evaluator that values actions in round points (a Q or "
                             f"afterstate points file), got {self.config.blend}")
        if self.config.rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {self.config.rollouts}")
        if self.config.seconds is not None and not 0.0 < self.config.seconds < float("inf"):
            raise ValueError(f"seconds per decision must be positive, got {self.config.seconds}")
        if not 0.0 <= self.config.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.config.epsilon}")
        if self.config.objective not in ("points", "match"):
            raise ValueError(f"objective must be 'points' or 'match', got {self.config.objective!r}")
        budget = f"{self.config.seconds * 1000:g}ms" if self.config.seconds is not None else self.config.rollouts
        self.name = name or f"search({budget}{', match' if self.config.objective == 'match' else ''})"
        self._pr = playout_rules(rules, self.config.koikoi_below, self.config.min_hand, decide, weights,
                                self.config.epsilon)
        self._match = (match_table(rules), rules) if self.config.objective == "match" else None

    def search(self, info: Information, rng: np.random.Generator) -> SearchResult:
        """Evaluate every legal action of ``info`` on ``rollouts`` determinizations drawn from ``rng``."""
        if self.config.prune is not None and self.evaluator is not None and len(info.legal) > self.config.prune:
            info = info._replace(legal=self.evaluator.prune(info, self.config.prune))
        legal = info.legal
        if len(legal) == 1:
            return SearchResult(legal, np.zeros(1), np.zeros(1), legal[0])
        match = self._match if info.phase == E.DECIDE or self.config.objective_everywhere else None
        prior = None
        if self.config.blend and self.evaluator is not None and match is None:
            prior = self.config.blend * self.evaluator.root_values(info, legal)
        if self.config.halving and len(legal) > 2:
            return self._halving(info, rng, match, prior)
        if self.config.seconds is None:
            values = self._values(info, self.config.rollouts, rng, match)
        else:
            start = time.thread_time()
            chunks: list[np.ndarray] = []
            while not chunks or time.thread_time() - start < self.config.seconds:
                chunks.append(self._values(info, TIME_BATCH, rng, match))
            values = np.concatenate(chunks, axis=1)
        n = values.shape[1]
        means = values.mean(axis=1)
        se = values.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full(len(legal), np.nan)
        return SearchResult(legal, means, se, int(legal[int(np.argmax(self._ranked(means, prior)))]), n,
                            np.full(len(legal), n))

    def _ranked(self, means: NDArray[np.float64], prior: NDArray[np.float64] | None) -> NDArray[np.float64]:
        """What the root's actions are ranked by: their playouts' means, blended with ``prior`` (the network's
        values times ``blend``) when given."""
        return means if prior is None else (1.0 - self.config.blend) * means + prior

    def _halving(self, info: Information, rng: np.random.Generator, match: tuple[MatchTable, RuleSet] | None,
                 prior: NDArray[np.float64] | None = None) -> SearchResult:
        """Sequential halving (``SearchConfig.halving``) over the legal actions of ``info`` (ranked by ``_ranked``
        with ``prior``)."""
        legal = np.asarray(info.legal)
        k = len(legal)
        stages = int(np.ceil(np.log2(k)))
        sums, sq, counts = np.zeros(k), np.zeros(k), np.zeros(k)
        alive = np.arange(k)
        seconds, start, drawn = self.config.seconds, time.thread_time(), 0
        for stage in range(stages):
            if seconds is None:  # this stage's share of rollouts * k playouts, spread over the survivors
                n = max(1, (self.config.rollouts * k) // (stages * len(alive)))
                chunks = [self._values(info, n, rng, match, tuple(legal[alive]))]
            else:  # batches until this stage's share of the time has passed
                chunks, end = [], start + seconds * (stage + 1) / stages
                while not chunks or time.thread_time() < end:
                    chunks.append(self._values(info, TIME_BATCH, rng, match, tuple(legal[alive])))
            values = np.concatenate(chunks, axis=1)
            drawn += values.shape[1]
            sums[alive] += values.sum(axis=1)
            sq[alive] += (values ** 2).sum(axis=1)
            counts[alive] += values.shape[1]
            means = self._ranked(sums[alive] / counts[alive], None if prior is None else prior[alive])
            order = np.argsort(-means, kind="stable")  # ties: the lower action id (legal is ascending)
            alive = alive[np.sort(order[:max(1, (len(alive) + 1) // 2)])] if stage < stages - 1 else alive[order[:1]]
        means = sums / counts
        var = np.maximum(sq / counts - means ** 2, 0.0) * counts / np.maximum(counts - 1, 1)
        return SearchResult(info.legal, means, np.sqrt(var / counts), int(legal[alive[0]]), drawn,
                            counts.astype(np.int64))

    def _values(self, info: Information, n: int, rng: np.random.Generator,
                match: tuple[MatchTable, RuleSet] | None,
                actions: tuple[int, ...] | None = None) -> NDArray[np.float64]:
        """Playout utilities of ``actions`` (default: every legal action) on ``n`` fresh determinizations."""
        opp, orders = determinize(info, n, rng, self.rules)
        width = 8 * int(self._pr.rules.F[F_HALF_TURNS])  # two uniforms a decision, at most four decisions a half-turn
        ev = self.evaluator
        random_moves = self.config.epsilon > 0 or self._pr.policy.decide.shape[1] > 0 or (ev is not None and
                                                                                         ev.stochastic)
        u = rng.random((n, width)) if random_moves else np.ones((n, width))
        actions = info.legal if actions is None else actions
        if ev is not None and (self.config.cutoff is not None or ev.plays) and match is None:
            return ev.playout_values(self._pr, info, actions, opp, orders, u, self.config.cutoff)
        return playout_values(self._pr, info, actions, opp, orders, u, self.config.epsilon, match)

    def act(self, state, rng: np.random.Generator) -> int:  # a KoiKoiState
        """The action with the best mean playout utility for the acting player of ``state``."""
        info = information(state.game.engine, state.es, state.current_player())
        return self.search(info, rng).action


def make_search_agent(game, rollouts: int = DEFAULT_ROLLOUTS, **options: Any) -> SearchAgent:
    """A ``SearchAgent`` for a Koi-Koi game (``make_agent("search")`` / ``"search:N"``)."""
    if not game.name.startswith("koikoi"):
        raise ValueError(f"the search agent plays Koi-Koi only, not {game.spec()}")
    return SearchAgent(game.rules, SearchConfig(rollouts=rollouts, **options))
