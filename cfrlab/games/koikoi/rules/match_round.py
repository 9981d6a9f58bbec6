"""One round of a Koi-Koi match as a game of its own: what a search from the current round's deal plays.

A match deals again at the start of every round, in the middle of the history, so a search that starts from
the root of the match would have to walk through every earlier round. A round changes the match only through
the score difference and the next dealer (koikoi-rules.md sec. 6.5), so the round being played is a game of
its own once its end is valued: by its points (``objective='points'``), or by the probability of winning the
match from the position the round leaves (``objective='match'``, ``match.MatchTable``: rounds left, lead,
next dealer; the approach of Guan et al. 2023's win-probability reward). Online Outcome Sampling (Lisy,
Lanctot & Bowling 2015) then searches the round from its deal, conditioned on what the searcher knows, as for
a single round (``deal.KoiKoiDeal``, seed 000 sec. 10.1).

Specification in cfrlab:
* ``MatchRoundGame(match, position, objective)``: the round with index ``position.round`` of ``match`` (its
  month, for tsukifuda and seasonal viewing), dealt by ``position.oya``, the match totals ``position.totals``
  before it; its root is the round's deal, its terminal states are the round's ends. Returns: the round's net
  points (``'points'``), or for ``'match'`` the zero-sum u_0 = W_0 - W_1, where W_p is player p's match-win
  probability after the round (a draw counts 1/2; exact where the match ends there, by lead or by a bust).
* ``round_position(state)``: the position of the round a match state is in (public: round, dealer, totals).
* ``round_key(key)``: the current round's part of a match infoset key, which is the key of the same infoset
  in the ``MatchRoundGame`` (the player's hands of this round's deals, its dealt fields and events).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, NamedTuple, cast

from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.deal import KoiKoiDeal
from cfrlab.games.koikoi.rules.game import KoiKoiGame, KoiKoiState
from cfrlab.games.koikoi.rules.match import MatchTable

OBJECTIVES = ("points", "match")
_PRIVATE = re.compile(r"[xH][0-9a-f]+")
_LAST_REDEALS = re.compile(r"(?:X[0-9a-f]+)*$")


class RoundPosition(NamedTuple):
    """Where a round of a match starts: its index (0-based), its dealer, the totals by seat before it."""

    round: int
    oya: int
    totals: tuple[int, int]


class RoundEngine(E.Engine):
    """The match's engine, started at a round's deal and ended with that round."""

    def __init__(self, rules: Any, position: RoundPosition) -> None:
        super().__init__(rules, first_oya=position.oya)
        self.position = position

    def initial_state(self) -> E.EngineState:
        totals = cast(tuple[int, int], tuple(self.position.totals))
        return super().initial_state()._replace(round=self.position.round, totals=totals)

    def _finish_round(self, s: E.EngineState, winner: int, points: int, reason: str, next_oya: int,
                      yaku: tuple = (), steps: tuple = ()) -> E.EngineState:
        after = super()._finish_round(s, winner, points, reason, next_oya, yaku, steps)
        return after if after.phase == E.TERMINAL else after._replace(phase=E.TERMINAL)

    def match_over(self, s: E.EngineState) -> bool:
        """Whether the round's end ``s`` ends the match (last round, or a bust): the next round was not set up."""
        return s.round == self.position.round


class MatchRoundGame(KoiKoiGame):
    """The round of ``match`` at ``position``, its ends valued by ``objective`` (module docstring)."""

    engine: RoundEngine

    def __init__(self, match: KoiKoiGame, position: RoundPosition, objective: str = "points",
                 table: MatchTable | None = None) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be points or match, got {objective!r}")
        super().__init__(**{**match.params, "first_oya": position.oya})
        self.params.update(round=position.round, totals=list(position.totals), objective=objective)
        self.position, self.objective = position, objective
        self.engine = RoundEngine(self.rules, position)
        if objective == "match" and table is None:
            from cfrlab.games.koikoi.rules.match import match_table

            table = match_table(self.rules)
        self.table = table
        bound = 1.0 if objective == "match" else float(self.engine.max_points())
        self._info = dataclasses.replace(self._info, min_utility=-bound, max_utility=bound)

    def new_initial_state(self) -> RoundState:
        return RoundState(self, self.engine.initial_state())

    def conditioned_deal(self) -> Callable[..., KoiKoiDeal]:
        """The round's deal drawn given one player's infoset of the round (or its public state)."""
        return lambda key, player, public=False: KoiKoiDeal(self, key, player, public=public)

    def win_probability(self, s: E.EngineState, player: int) -> float:
        """``player``'s probability of winning the match from the end ``s`` of this round."""
        lead = s.totals[player] - s.totals[1 - player]
        if self.engine.match_over(s) or self.table is None:
            return 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
        return float(self.table.value(self.rules.rounds - s.round, lead, s.oya == player))


class RoundState(KoiKoiState):
    """A history of a ``MatchRoundGame``: returns by the game's objective."""

    __slots__ = ()
    game: MatchRoundGame

    def returns(self) -> list[float]:
        game, s = self.game, self.es
        if s.phase != E.TERMINAL:
            return [0.0, 0.0]
        if game.objective == "points":
            return [float(s.net), float(-s.net)]
        u = game.win_probability(s, 0) - game.win_probability(s, 1)
        return [u, -u]

    def _apply(self, action: int) -> RoundState:
        child = KoiKoiState._apply(self, action)
        return RoundState(self.game, child.es, child.pub, child.priv)


def round_position(state: KoiKoiState) -> RoundPosition:
    """The position of the round a match state is in (round index, dealer, totals before it: all public)."""
    es = state.es
    return RoundPosition(int(es.round), int(es.oya), (int(es.totals[0]), int(es.totals[1])))


def round_key(key: str) -> str:
    """The current round's part of a match infoset key ``"p|<own dealt hands>|<public history>"``: the hands of
    the round's deals (after the previous round's last dealt hand) and the public history from its first deal
    (misdeals shown as ``X``, then the dealt field ``|F``); the key of the same infoset in ``MatchRoundGame``."""
    owner, private, public = key.split("|", 2)
    hands = _PRIVATE.findall(private)
    last = max((i for i, h in enumerate(hands[:-1]) if h[0] == "H"), default=-1)
    start = public.rfind("|F")
    if start < 0 or not hands or hands[-1][0] != "H":
        raise ValueError(f"no round has been dealt in infoset {key!r}")
    redeals = _LAST_REDEALS.search(public, 0, start)
    assert redeals is not None  # the pattern also matches the empty string
    start = redeals.start()
    return f"{owner}|{''.join(hands[last + 1:])}|{public[start:]}"
