"""The betting tree of a limit hold'em game: every action sequence, the same for every deal.

Built by walking ``HoldemState`` on one fixed deal (the rules live only in
``cfrlab.games.holdem.rules.game``), with chance nodes skipped: the child of a
round-ending call is the next round's first decision. Nodes are numbered
breadth first, so children come after their parent and a backward loop over
node ids visits children first (the order the solvers' passes rely on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL
from cfrlab.games.holdem.rules.game import HoldemState, LimitHoldem, first_player

FOLDED, SHOWDOWN, DECISION = 0, 1, 2


@dataclass(frozen=True)
class BettingTree:
    """Arrays over betting nodes (root = 0)."""

    kind: NDArray[np.int8]
    """``DECISION``, ``FOLDED`` (a terminal after a fold) or ``SHOWDOWN``."""
    round: NDArray[np.int64]
    player: NDArray[np.int64]
    """Acting player at decisions; at a fold, the player who folded; -1 at a showdown."""
    child: NDArray[np.int64]
    """``child[n, a]`` for actions 0 fold, 1 call, 2 raise; -1 where illegal."""
    spent: NDArray[np.float64]
    """Chips each player has in the pot at the node."""
    history: list[str]
    """Actions per round, e.g. ``"cr/c"``; round separators where a round began."""

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    def decision_nodes(self) -> NDArray[np.int64]:
        return np.flatnonzero(self.kind == DECISION)


def _skip_chance(state: HoldemState) -> HoldemState:
    while state.current_player() == CHANCE:
        state = cast(HoldemState, state.child(state.legal_actions()[0]))
    return state


def betting_tree(game: LimitHoldem) -> BettingTree:
    """Enumerate the betting tree of ``game``."""
    kind, rounds, player, child, spent, history = [], [], [], [], [], []
    frontier: list[tuple[HoldemState, str]] = [(_skip_chance(game.new_initial_state()), "")]
    head = 0
    while head < len(frontier):
        state, text = frontier[head]
        head += 1
        rounds.append(len(state.rounds) - 1)
        spent.append(state.contributions())
        history.append(text)
        row = [-1, -1, -1]
        if state.current_player() == TERMINAL:
            folded = state.folded()
            kind.append(FOLDED if folded else SHOWDOWN)
            last = state.rounds[-1]
            player.append((first_player(len(state.rounds) - 1) + len(last) - 1) % 2 if folded else -1)
        else:
            kind.append(DECISION)
            player.append(state.current_player())
            for action in state.legal_actions():
                nxt = _skip_chance(cast(HoldemState, state.child(action)))
                sep = "/" if len(nxt.rounds) > len(state.rounds) and not nxt.is_terminal() else ""
                row[action] = len(frontier)
                frontier.append((nxt, text + "fcr"[action] + sep))
        child.append(row)
    return BettingTree(
        kind=np.array(kind, dtype=np.int8),
        round=np.array(rounds, dtype=np.int64),
        player=np.array(player, dtype=np.int64),
        child=np.array(child, dtype=np.int64),
        spent=np.array(spent, dtype=np.float64),
        history=history,
    )
