"""Observation tensors for the environments: what a seat knows, as a fixed-size float32 vector.

Every encoding reads the seat's information state only, never another seat's private cards. An ``Encoding`` has
``name``, ``size``, the bounds ``low`` / ``high`` of every entry, and ``encode(state, player)``; a player for whom
the game defines no information state at ``state`` (a Gambit file's keys exist at a player's own decisions only)
sees zeros. The ones a game can have (``observation=`` of the environments):

* ``family``: the encoding the game's family declares (``GameFamily.observation``): Koi-Koi's is its learned
  evaluator's features (``cfrlab.games.koikoi.neural.features``, 380 binary entries), hold'em's its cards and
  betting (``cfrlab.games.holdem.rules.observation``), Kuhn's and Leduc's their own tensor (``BinaryTensor``).
* ``tensor``: the game's own ``information_state_tensor`` (Kuhn's and Leduc's, OpenSpiel's layouts, documented in
  their modules; an OpenSpiel game's).
* ``infoset``: the information-state key's row in the compiled tree, one-hot (any game whose tree compiles:
  exact, one entry per infoset of the game; a key the tree lacks, a seat that does not act, is all zeros).
* ``key``: the information-state key itself, for any game: its UTF-8 bytes, entry i = byte i / 255, zeros past
  the key's end (``KEY_LENGTH`` entries; a longer key is refused with the length to ask for).
* ``auto`` (the default): the first of ``family``, ``tensor``, ``infoset`` (a tree of at most ``INFOSET_NODES``
  nodes), ``key`` the game has.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import Game, State
from cfrlab.registry import family_of, resolve

KEY_LENGTH = 256
"""Entries of the ``key`` encoding: keys up to this many UTF-8 bytes."""
INFOSET_NODES = 2_000_000
"""Largest tree ``auto`` compiles for the ``infoset`` encoding."""
ENCODINGS = ("auto", "family", "tensor", "infoset", "key")


class Encoding(Protocol):
    """What an environment needs of an observation encoding (module docstring)."""

    name: str
    size: int
    low: float
    high: float

    def encode(self, state: State, player: int) -> NDArray[np.float32]:
        """``player``'s information state at ``state`` as ``size`` float32 entries."""
        ...


class GameTensor:
    """The game's own ``information_state_tensor``."""

    name = "tensor"
    low, high = -np.inf, np.inf

    def __init__(self, game: Game) -> None:
        self.size = game.information_state_tensor_size()
        if self.size <= 0:
            raise ValueError(f"{game.spec()} has no information_state_tensor; use observation='infoset' or 'key'")

    def encode(self, state: State, player: int) -> NDArray[np.float32]:
        try:
            return np.asarray(state.information_state_tensor(player), dtype=np.float32)
        except ValueError:  # no information state for this player here
            return np.zeros(self.size, dtype=np.float32)


class BinaryTensor(GameTensor):
    """The game's own ``information_state_tensor`` where every entry is 0 or 1 (Kuhn's, Leduc's): bounded."""

    low, high = 0.0, 1.0

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.low, self.high = 0.0, 1.0


class InfosetOneHot:
    """One-hot of the key's row in the compiled tree (the game's infosets in breadth-first order)."""

    name = "infoset"
    low, high = 0.0, 1.0

    def __init__(self, game: Game, max_nodes: int = INFOSET_NODES) -> None:
        from cfrlab.tree import load_tree

        self.tree = load_tree(game, max_nodes=max_nodes)
        self.size = self.tree.num_infosets

    def encode(self, state: State, player: int) -> NDArray[np.float32]:
        out = np.zeros(self.size, dtype=np.float32)
        key = _key(state, player)
        try:
            out[self.tree.infoset_index(key or "")] = 1.0
        except KeyError:  # not a decision of this player's, or no information state here
            pass
        return out


class KeyBytes:
    """The key's UTF-8 bytes scaled to [0, 1], padded with zeros to ``length``."""

    name = "key"
    low, high = 0.0, 1.0

    def __init__(self, game: Game, length: int = KEY_LENGTH) -> None:
        self.size = length

    def encode(self, state: State, player: int) -> NDArray[np.float32]:
        out = np.zeros(self.size, dtype=np.float32)
        key = _key(state, player)
        if key is None:
            return out
        raw = np.frombuffer(key.encode(), dtype=np.uint8)
        if raw.shape[0] > self.size:
            raise ValueError(f"an information-state key of {raw.shape[0]} bytes does not fit the key encoding's "
                             f"{self.size}: ask for observation=KeyBytes(game, length={2 * raw.shape[0]})")
        out[: raw.shape[0]] = raw / 255.0
        return out


def _key(state: State, player: int) -> str | None:
    """``player``'s key at ``state``; None where the game defines none."""
    try:
        return state.information_state_key(player)
    except (ValueError, NotImplementedError):
        return None


def family_encoding(game: Game) -> Encoding | None:
    """The encoding ``game``'s family declares (``GameFamily.observation(game)``), or None."""
    family = family_of(game)
    if family is None or family.observation is None:
        return None
    encoding: Encoding | None = resolve(family.observation)(game)
    return encoding


def encoding_for(game: Game, observation: str | Encoding = "auto") -> Encoding:
    """The encoding named ``observation`` (module docstring) for ``game``, or ``observation`` itself when it is one;
    ``ValueError`` naming the choices for a name that is not one, or one the game lacks."""
    if not isinstance(observation, str):
        return observation
    if observation not in ENCODINGS:
        raise ValueError(f"unknown observation {observation!r}; choose {', '.join(ENCODINGS)} (cfrlab.envs.encoding)")
    if observation in ("auto", "family"):
        found = family_encoding(game)
        if found is not None:
            return found
        if observation == "family":
            raise ValueError(f"{game.spec()}'s family declares no observation encoding; use tensor, infoset or key")
    if observation == "tensor" or (observation == "auto" and game.information_state_tensor_size() > 0):
        return GameTensor(game)
    if observation == "infoset":
        return InfosetOneHot(game)
    if observation == "auto":
        return _infoset_or_key(game)
    return KeyBytes(game)


def _infoset_or_key(game: Game) -> Encoding:
    from cfrlab.game import GameDefinitionError

    try:
        return InfosetOneHot(game)
    except (GameDefinitionError, NotImplementedError, MemoryError):  # too large, or chance that cannot be listed
        return KeyBytes(game)


def describe(encoding: Any) -> str:
    """``"tensor (30 entries)"``: an encoding's name and size, for messages and ``repr``."""
    return f"{getattr(encoding, 'name', type(encoding).__name__)} ({encoding.size} entries)"
