"""A Gambit ``.efg`` file as a cfrlab ``Game``: ``load_game("efg:PATH")``, ``load_game("game.efg")``.

cfrlab reads the file itself (``cfrlab.efg.parse``) rather than through ``pygambit``: Gambit is GPL-2.0
while cfrlab is Apache-2.0, so it stays an optional reference; the reader refuses a crafted file (sizes,
depth, imperfect recall) with the file's line in one message and bounded memory; and it adds no compiled
dependency to loading a game. The test suite holds this reader to pygambit's (``tests/games/test_efg.py``).

Specification in cfrlab:
* Players are the file's, in order (player 1 is cfrlab's player 0); any number of players.
* Actions at a node are 0..k-1 in the file's order; ``action_to_string`` gives the file's label.
* Information-state key of the acting player p: ``"{p}:{number}"`` (the file's infoset number), followed by
  ``" {label}"`` when the infoset is labelled. Under perfect recall (the reader refuses any other) the infoset
  determines the player's own history, so the key is what the protocol asks. Only the acting player has a key.
* Returns: the sum of the outcomes' payoffs on the path (Gambit's convention), as floats.
* ``information_state_tensor``: a one-hot vector over the game's decision infosets (for the neural solvers),
  offered up to ``MAX_TENSOR_INFOSETS`` infosets.
* ``spec()`` is ``efg:`` and the file's absolute path; ``fingerprint()`` hashes the file's bytes, so a strategy
  file is tied to the game's content and an edited file is a different game.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.efg.parse import CHANCE_KIND, EfgTree, read_efg
from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, GameInfo, State

MAX_TENSOR_INFOSETS = 4_096


class EfgState(State):
    """A node of the file's tree."""

    __slots__ = ("game", "node")

    def __init__(self, game: EfgGame, node: int) -> None:
        self.game = game
        self.node = node

    def current_player(self) -> int:
        return int(self.game.node_player[self.node])

    def legal_actions(self) -> list[int]:
        infoset = int(self.game.tree.node_infoset[self.node])
        return list(range(len(self.game.tree.infosets[infoset].actions))) if infoset >= 0 else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return super().chance_outcomes()
        infoset = self.game.tree.infosets[self.game.tree.node_infoset[self.node]]
        return [(a, float(p)) for a, p in enumerate(infoset.probs)]

    def _apply(self, action: int) -> EfgState:
        tree = self.game.tree
        return EfgState(self.game, int(tree.children[tree.child_offset[self.node] + action]))

    def information_state_key(self, player: int | None = None) -> str:
        acting = self.current_player()
        player = acting if player is None else player
        if player != acting or player < 0:
            raise ValueError(f"an .efg game defines information sets at a player's own decisions only: "
                             f"player {player} does not act here")
        return self.game.infoset_keys[self.game.tree.node_infoset[self.node]]

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        size = self.game.information_state_tensor_size()
        if not size:
            raise NotImplementedError(f"{self.game.spec()} has more than {MAX_TENSOR_INFOSETS} infosets: no tensor")
        self.information_state_key(player)  # the same check of the player
        tensor = np.zeros(size, dtype=np.float32)
        tensor[self.game.decision_index[self.game.tree.node_infoset[self.node]]] = 1.0
        return tensor

    def returns(self) -> list[float]:
        row = int(self.game.tree.payoff_row[self.node])
        return self.game.tree.payoff_table[row].tolist() if row >= 0 else [0.0] * self.game.num_players

    def action_to_string(self, action: int) -> str:
        infoset = int(self.game.tree.node_infoset[self.node])
        if infoset < 0 or not 0 <= action < len(self.game.tree.infosets[infoset].actions):
            return str(action)
        return self.game.tree.infosets[infoset].actions[action]

    def __repr__(self) -> str:
        return f"<EfgState node {self.node} of {self.game.spec()}>"


class EfgGame(Game):
    """``EfgGame("game.efg")``: the extensive-form game in a Gambit file."""

    name = "efg"

    def __init__(self, path: str | Path, **params: Any) -> None:
        if params:
            raise GameDefinitionError(f"an .efg game takes no parameters, got {sorted(params)}")
        super().__init__()
        self.tree: EfgTree = read_efg(Path(path).expanduser())  # refuses a symbolic link loop in one line
        self.path = Path(path).expanduser().resolve()
        self._digest = self.tree.digest[:16]
        tree = self.tree
        infoset_player = np.array([s.player for s in tree.infosets] + [TERMINAL], dtype=np.int16)
        self.node_player = np.where(tree.kind == CHANCE_KIND, np.int16(CHANCE), infoset_player[tree.node_infoset])
        self.infoset_keys = [f"{s.player}:{s.number}" + (f" {s.label}" if s.label else "") if s.player >= 0 else ""
                             for s in tree.infosets]
        decisions = [i for i, s in enumerate(tree.infosets) if s.player >= 0]
        self.decision_index = {infoset: row for row, infoset in enumerate(decisions)}
        payoffs = tree.payoff_table
        sums = payoffs.sum(axis=1)
        tolerance = 1e-9 * max(1.0, float(np.abs(payoffs).max()))
        constant = bool(np.all(np.abs(sums - sums[0]) <= tolerance))
        self._info = GameInfo(
            num_players=len(tree.players),
            max_actions=max([len(tree.infosets[i].actions) for i in decisions], default=1),
            max_chance_outcomes=max([len(s.actions) for s in tree.infosets if s.player < 0], default=1),
            min_utility=float(payoffs.min()),
            max_utility=float(payoffs.max()),
            zero_sum=constant,
            utility_sum=float(sums[0]) if constant else 0.0,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> EfgState:
        return EfgState(self, 0)

    def information_state_tensor_size(self) -> int:
        return len(self.decision_index) if len(self.decision_index) <= MAX_TENSOR_INFOSETS else 0

    @cached_property
    def player_names(self) -> list[str]:
        return list(self.tree.players)

    def spec(self) -> str:
        return f"efg:{self.path}"

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self._digest}

    def fingerprint(self) -> str:
        return self._digest
