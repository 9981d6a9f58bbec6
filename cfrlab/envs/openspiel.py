"""Any cfrlab game as an OpenSpiel Python game, so OpenSpiel's own algorithms (CFR, exploitability, best
response, MCCFR) run on it: ``name = register_in_openspiel("leduc(ranks=4)")``, then ``pyspiel.load_game(name)``.

Specification in cfrlab:
* The OpenSpiel game is ``"cfrlab_" + `` the spec made a name (``leduc(ranks=4)`` -> ``cfrlab_leduc_ranks_4``,
  or ``short_name``), registered once with ``pyspiel.register_game``; every ``load_game`` of it plays the
  cfrlab game given.
* Player ids, chance, legal actions, action strings and returns are the cfrlab game's (cfrlab uses OpenSpiel's
  ``CHANCE`` -1 and ``TERMINAL`` -4). ``information_state_string(p)`` is cfrlab's key of player p;
  ``information_state_tensor(p)`` its ``information_state_tensor`` where the game has one. No observation
  string or tensor is declared (cfrlab's keys have perfect recall).
* Chance is ``EXPLICIT_STOCHASTIC``: the game must list its chance outcomes (full Koi-Koi's deal is sampled:
  its mini variants play). ``max_game_length`` is the compiled tree's depth when the tree compiles, else 10000.
* States wrap cfrlab's immutable states, so OpenSpiel's clones share them.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from cfrlab.game import Game

UNKNOWN_LENGTH = 10_000
_registered: dict[str, str] = {}
"""OpenSpiel short name -> fingerprint of the cfrlab game registered under it."""


def openspiel_name(game: Game) -> str:
    """``cfrlab_`` + the game's spec as an identifier: ``cfrlab_kuhn``, ``cfrlab_leduc_ranks_4``."""
    return "cfrlab_" + re.sub(r"[^0-9A-Za-z]+", "_", game.spec()).strip("_")


def register_in_openspiel(game: Game | str, short_name: str | None = None) -> str:
    """Register ``game`` (or the game a spec names) with OpenSpiel; returns the name ``pyspiel.load_game`` takes.
    Registering the same game again returns the same name; another game under a taken name is refused."""
    from cfrlab.registry import load_game

    game = load_game(game) if isinstance(game, str) else game
    name = short_name or openspiel_name(game)
    taken = _registered.get(name)
    if taken is not None:
        if taken != game.fingerprint():
            raise ValueError(f"OpenSpiel already has a game named {name!r}; choose another short_name")
        return name
    import pyspiel

    game_type, game_info = _type_and_info(pyspiel, game, name)
    pyspiel.register_game(game_type, _game_class(pyspiel, game, game_type, game_info))
    _registered[name] = game.fingerprint()
    return name


def _type_and_info(pyspiel: Any, game: Game, name: str) -> tuple[Any, Any]:
    info = game.info
    utility = pyspiel.GameType.Utility
    kind = (utility.ZERO_SUM if info.utility_sum == 0.0 else utility.CONSTANT_SUM) if info.zero_sum \
        else utility.GENERAL_SUM
    game_type = pyspiel.GameType(
        short_name=name, long_name=f"cfrlab {game.spec()}", dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION, utility=kind,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=info.num_players,
        min_num_players=info.num_players, provides_information_state_string=True,
        provides_information_state_tensor=game.information_state_tensor_size() > 0,
        provides_observation_string=False, provides_observation_tensor=False, parameter_specification={})
    extra = {"utility_sum": info.utility_sum} if info.zero_sum else {}
    game_info = pyspiel.GameInfo(
        num_distinct_actions=info.max_actions, max_chance_outcomes=info.max_chance_outcomes,
        num_players=info.num_players, min_utility=info.min_utility, max_utility=info.max_utility,
        max_game_length=_max_length(game), **extra)
    return game_type, game_info


def _max_length(game: Game) -> int:
    from cfrlab.tree import load_tree

    tree = load_tree(game, or_none=True)
    return int(tree.depth.max()) if tree is not None else UNKNOWN_LENGTH


def _game_class(pyspiel: Any, game: Game, game_type: Any, game_info: Any) -> type:
    """The ``pyspiel.Game`` subclass playing ``game`` (its states and observer below)."""

    class CfrlabState(pyspiel.State):
        def __init__(self, os_game: Any, state: Any = None) -> None:
            super().__init__(os_game)
            self.inner = game.new_initial_state() if state is None else state

        def current_player(self) -> int:
            return int(self.inner.current_player())

        def _legal_actions(self, player: int) -> list[int]:
            return list(self.inner.legal_actions())

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return list(self.inner.chance_outcomes())

        def _apply_action(self, action: int) -> None:
            self.inner = self.inner.child(int(action))

        def _action_to_string(self, player: int, action: int) -> str:
            return str(self.inner.action_to_string(action))

        def is_terminal(self) -> bool:
            return bool(self.inner.is_terminal())

        def returns(self) -> list[float]:
            return [float(r) for r in self.inner.returns()] if self.inner.is_terminal() else [0.0] * game.num_players

        def __str__(self) -> str:
            return repr(self.inner)

    class CfrlabObserver:
        """OpenSpiel's observer protocol: the information-state key and tensor of a player."""

        def __init__(self) -> None:
            self.tensor = np.zeros(game.information_state_tensor_size(), dtype=np.float32)
            self.dict = {"info_state": self.tensor} if self.tensor.size else {}

        def set_from(self, state: Any, player: int) -> None:
            if self.tensor.size:
                self.tensor[:] = state.inner.information_state_tensor(player)

        def string_from(self, state: Any, player: int) -> str:
            return str(state.inner.information_state_key(player))

    class CfrlabGame(pyspiel.Game):
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self) -> Any:
            return CfrlabState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CfrlabObserver:
            if iig_obs_type is not None and not iig_obs_type.perfect_recall:
                raise ValueError(f"{game.spec()} offers OpenSpiel its information states only (perfect recall)")
            return CfrlabObserver()

    return CfrlabGame
