"""A Koi-Koi match searched by Online Outcome Sampling round by round (``cfrlab.agents.oos.OOSAgent``).

Koi-Koi matches deal again at every round: the agent searches the current round from its deal, as a game of its
own (``cfrlab.games.koikoi.rules.match_round``), with the round's ends valued by the round's points
(``objective='points'``) or by the match-win probability after the round (``'match'``: rounds left, score
difference, next dealer; ``match.MatchTable``); a round's points under rules that ignore the month are those of
the single round dealt by the same dealer. The numba round walk searches full-deck rounds under either objective.
It reads the round's part of the infoset key and the round's public position (round, dealer, totals); the
family registers it as ``GameFamily.rounds`` (``Rounds.search``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cfrlab.game import Game, State
from cfrlab.solvers.oos import OnlineOutcomeSampling, OOSConfig
from cfrlab.solvers.oos.targets import check_targetable


class RoundByRound:
    """The search of a Koi-Koi match's round in play: a solver per round, and the round's infoset keys."""

    def __init__(self, game: Any, objective: str, table: Any, config: OOSConfig) -> None:
        from cfrlab.games.koikoi.rules.match import match_table

        self.game, self.objective, self.config = game, objective, config
        self.table = table if table is not None or objective == "points" else match_table(game.rules)
        self._round: tuple[Any, str, str] | None = None

    @staticmethod
    def applies(game: Any, objective: str) -> bool:
        """A match of several rounds, or one round valued by the match-win probability."""
        return game.rules.rounds > 1 or objective == "match"

    def solver(self, state: State) -> OnlineOutcomeSampling:
        """A solver over the round ``state`` is in. For its points under rules whose scoring ignores the month,
        the round is the single round dealt by its dealer (the same game); else a ``MatchRoundGame``. The numba
        round walk serves a full-deck round whatever its value; the rest (mini decks) runs on the game protocol."""
        from cfrlab.games.koikoi.rules.match import month_matters
        from cfrlab.games.koikoi.rules.match_round import MatchRoundGame, round_position
        from cfrlab.games.koikoi.solvers.oos_search import fits

        position = round_position(state)  # type: ignore[arg-type]
        if self.objective == "points" and not month_matters(self.game.rules):
            game: Game = type(self.game)(**{**self.game.params, "rounds": 1, "first_oya": position.oya})
            config = self.config
        else:
            game = MatchRoundGame(self.game, position, self.objective, self.table)
            config = self.config if fits(game, self.config) else dataclasses.replace(self.config, path="generic")
        check_targetable(game, public=self.config.targeting == "pst")
        return OnlineOutcomeSampling(game, config)

    def infoset(self, state: State, key: str) -> tuple[str, bool]:
        """The round's infoset key of a match infoset ``key``, and whether ``state`` is in another round than the
        last move's (its position, the player's hands or the public history differ): then a fresh solver."""
        from cfrlab.games.koikoi.rules.match_round import round_key, round_position

        rkey = round_key(key)
        _, hands, public = rkey.split("|", 2)
        position = round_position(state)  # type: ignore[arg-type]
        last = self._round
        fresh = last is None or last[0] != position or last[1] != hands or not public.startswith(last[2])
        self._round = (position, hands, public)
        return rkey, fresh
