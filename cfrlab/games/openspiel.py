"""Any OpenSpiel (pyspiel) game as a cfrlab ``Game``.

``load_game("openspiel:leduc_poker")`` or ``OpenSpielGame("kuhn_poker", players=3)``
wraps a sequential pyspiel game so that cfrlab's compiler, solvers and checks
run on it, and so that cfrlab's own games can be compared with OpenSpiel's
state by state.

Specification in cfrlab:
* Action ids, chance outcomes (ids and probabilities), returns, action strings
  and ``information_state_tensor`` are pyspiel's, unchanged.
* Information-state key of player p: ``"{p}:" + information_state_string(p)``.
  The prefix makes keys distinct across players whatever the wrapped game
  writes (Kuhn's pyspiel strings, e.g. ``"0pb"``, do not name the player);
  ``split_key`` recovers the pyspiel string.
* ``fingerprint()`` hashes pyspiel's game name and full parameters (defaults
  filled in), so two specs that pyspiel considers the same game share their
  compiled tree.
* pyspiel is imported on first use; without ``open_spiel`` installed the error
  says how to install it. Simultaneous-move games must be converted to turn
  based first (see the error message); mean-field games are refused, with no
  conversion suggested (none exists).
* States never mutate: ``child`` uses ``pyspiel.State.child``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game, GameDefinitionError, GameInfo, State
from cfrlab.game_spec import parse_spec

if TYPE_CHECKING:
    import pyspiel

ADAPTER_VERSION = 1


def import_pyspiel() -> Any:
    """Import pyspiel (without the openspiel extra, the ``ModuleNotFoundError`` the CLI turns into its install
    hint, ``cfrlab.extras``)."""
    import pyspiel

    return pyspiel


def split_key(key: str) -> tuple[int, str]:
    """``"1:0pb"`` -> ``(1, "0pb")``: the player and pyspiel's information_state_string."""
    player, _, text = key.partition(":")
    return int(player), text


def openspiel_key(state: pyspiel.State, player: int) -> str:
    """cfrlab's key for a pyspiel state: ``"{player}:" + information_state_string(player)``."""
    return f"{player}:{state.information_state_string(player)}"


class OpenSpielState(State):
    """A pyspiel state behind cfrlab's immutable State interface."""

    __slots__ = ("game", "_state")

    def __init__(self, game: OpenSpielGame, state: pyspiel.State) -> None:
        self.game = game
        self._state = state

    @property
    def pyspiel_state(self) -> pyspiel.State:
        """The wrapped pyspiel state; treat it as read-only (use ``child`` to move on)."""
        return self._state

    def current_player(self) -> int:
        return int(self._state.current_player())

    def legal_actions(self) -> list[int]:
        if self._state.is_terminal():
            return []
        return [int(a) for a in self._state.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self._state.is_chance_node():
            return super().chance_outcomes()
        return [(int(a), float(p)) for a, p in self._state.chance_outcomes()]

    def _apply(self, action: int) -> OpenSpielState:
        return OpenSpielState(self.game, self._state.child(action))

    def is_terminal(self) -> bool:
        return bool(self._state.is_terminal())

    def is_chance_node(self) -> bool:
        return bool(self._state.is_chance_node())

    def _player(self, player: int | None, what: str) -> int:
        player = self.current_player() if player is None else player
        if not 0 <= player < self.game.info.num_players:
            raise ValueError(f"{what} needs a player in 0..{self.game.info.num_players - 1}, got {player}")
        return player

    def information_state_key(self, player: int | None = None) -> str:
        player = self._player(player, "information_state_key")
        return openspiel_key(self._state, player)

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        player = self._player(player, "information_state_tensor")
        if not self.game.pyspiel_game.get_type().provides_information_state_tensor:
            raise NotImplementedError(f"pyspiel game {self.game.pyspiel_game} has no information_state_tensor")
        return np.asarray(self._state.information_state_tensor(player), dtype=np.float32)

    def returns(self) -> list[float]:
        return [float(r) for r in self._state.returns()]

    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        return str(self._state.action_to_string(player, action))

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return f"<OpenSpielState {self.game.spec()} history={self._state.history()}>"


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Silence file descriptor 2 for a call into pyspiel: its C++ prints every exception to stderr before raising
    it (for an unknown game, the names of all 90 games), and the error raised here says it in one line."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class OpenSpielGame(Game):
    """``OpenSpielGame("leduc_poker")``: a sequential pyspiel game as a cfrlab Game."""

    def __init__(self, name: str, **params: Any) -> None:
        pyspiel = import_pyspiel()
        if "(" in name:  # "kuhn_poker(players=3)" given whole
            name, parsed = parse_spec(name)
            params = {**parsed, **params}
        self.short_name: str = name
        self.name = f"openspiel:{name}"
        super().__init__(**params)
        # pyspiel's own string form, so nested games (``game=goofspiel(imp_info=true)``) work too.
        text = self.spec().split(":", 1)[1]
        try:
            with _native_stderr_silenced():
                self.pyspiel_game = pyspiel.load_game(text)
        except Exception as exc:  # pyspiel raises SpielError / RuntimeError
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GameDefinitionError(
                f"OpenSpiel could not load {text!r}: {first_line} "
                "(pyspiel.registered_names() lists the games; see the game's docs for its parameters)"
            ) from exc
        game_type = self.pyspiel_game.get_type()
        if game_type.dynamics == pyspiel.GameType.Dynamics.MEAN_FIELD:
            raise GameDefinitionError(
                f"{text} is a mean-field game (a population's distribution, not a finite game of players): no "
                "conversion makes it one that cfrlab can load; OpenSpiel's own mean-field algorithms "
                "(open_spiel.python.mfg) solve it"
            )
        if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            inner = text if "(" in text else f"{text}()"
            raise GameDefinitionError(
                f"{text} is not a sequential game; load its turn-based form instead: "
                f'load_game("openspiel:turn_based_simultaneous_game(game={inner})")'
            )
        if not game_type.provides_information_state_string:
            raise GameDefinitionError(
                f"{name} provides no information_state_string, which cfrlab needs for infostate keys"
            )
        utility = game_type.utility
        zero_sum = utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)
        utility_sum = 0.0
        if utility == pyspiel.GameType.Utility.CONSTANT_SUM:
            utility_sum = float(self.pyspiel_game.utility_sum())
        self._info = GameInfo(
            num_players=self.pyspiel_game.num_players(),
            max_actions=self.pyspiel_game.num_distinct_actions(),
            max_chance_outcomes=self.pyspiel_game.max_chance_outcomes(),
            min_utility=float(self.pyspiel_game.min_utility()),
            max_utility=float(self.pyspiel_game.max_utility()),
            zero_sum=zero_sum,
            utility_sum=utility_sum,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self, self.pyspiel_game.new_initial_state())

    def information_state_tensor_size(self) -> int:
        if not self.pyspiel_game.get_type().provides_information_state_tensor:
            return 0
        return int(np.prod(self.pyspiel_game.information_state_tensor_shape()))

    def fingerprint(self) -> str:
        # pyspiel's parameters with defaults filled in: "kuhn_poker" and "kuhn_poker(players=2)" agree.
        canonical = {
            "game": self.pyspiel_game.get_type().short_name,
            "params": self.pyspiel_game.get_parameters(),
            "adapter": ADAPTER_VERSION,
        }
        blob = "openspiel|" + json.dumps(canonical, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def twin_of(game: Game) -> Any:
    """The pyspiel game ``game.openspiel_twin()`` names; ``ValueError`` where OpenSpiel has none."""
    twin = game.openspiel_twin()
    if twin is None:
        raise ValueError(f"OpenSpiel has no game equal to {game.spec()} (Game.openspiel_twin); pass the pyspiel game "
                         "and a key_fn, or register the cfrlab game in OpenSpiel (cfrlab.envs.openspiel)")
    name, params = twin
    return import_pyspiel().load_game(name, params)


def replayed_key_fn(game: Game) -> Any:
    """``key_fn(pyspiel_state, player)``: ``game``'s key of the history of a state of ``game``'s OpenSpiel twin,
    replayed action by action (``IllegalActionError`` where the two disagree)."""
    cache: dict[tuple[int, ...], State] = {}

    def key_fn(state: pyspiel.State, player: int) -> str:
        history = tuple(int(a) for a in state.history())
        found = cache.get(history)
        if found is None:
            found = game.new_initial_state()
            for action in history:
                found = found.child(action)
            cache[history] = found
        return found.information_state_key(player)

    return key_fn
