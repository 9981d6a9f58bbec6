"""A game whose payoffs are another game's times a factor (same strategies are optimal in both)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.game import Game, GameInfo, State


class ScaledState(State):
    """``inner``'s state with returns multiplied by ``factor``."""

    def __init__(self, inner: State, factor: float) -> None:
        self.inner, self.factor = inner, factor

    def current_player(self) -> int:
        return self.inner.current_player()

    def legal_actions(self) -> list[int]:
        return self.inner.legal_actions()

    def _apply(self, action: int) -> State:
        return ScaledState(self.inner.child(action), self.factor)

    def information_state_key(self, player: int | None = None) -> str:
        return self.inner.information_state_key(player)

    def information_state_tensor(self, player: int | None = None) -> Any:
        return self.inner.information_state_tensor(player)

    def returns(self) -> list[float]:
        with np.errstate(over="ignore"):  # Kuhn times 1e308 pays inf: compiling it must refuse that
            return [float(np.float64(r) * self.factor) for r in self.inner.returns()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def action_to_string(self, action: int) -> str:
        return self.inner.action_to_string(action)


class ScaledGame(Game):
    """``inner`` with every payoff multiplied by ``factor``."""

    name = "scaled"

    def __init__(self, inner: Game, factor: float) -> None:
        # the factor as text: the spec names it (a cache key), and factors beyond a game parameter's bounds (1e300,
        # nan) must reach the payoff checks these tests are about
        super().__init__(game=inner.spec(), factor=repr(float(factor)))
        self.inner, self.factor = inner, factor
        info = inner.info
        bounds = sorted((info.min_utility * factor, info.max_utility * factor))
        self._info = GameInfo(info.num_players, info.max_actions, info.max_chance_outcomes, bounds[0], bounds[1],
                              info.zero_sum, info.utility_sum * factor, info.perfect_recall)

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> State:
        return ScaledState(self.inner.new_initial_state(), self.factor)

    def information_state_tensor_size(self) -> int:
        return self.inner.information_state_tensor_size()
