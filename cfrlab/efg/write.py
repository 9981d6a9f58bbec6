"""Write any game whose tree can be listed as a Gambit ``.efg`` file (``cfrlab export GAME --efg out.efg``).

So an equilibrium cfrlab computes can be checked with Gambit's exact solvers (``lcp_solve``, ``lp_solve``).
The tree is walked depth first through the game protocol; Gambit's file lists nodes in that (prefix) order:

* a decision node becomes ``p "" PLAYER INFOSET "KEY" { "action" ... } 0``: infosets are numbered per player in
  the order first met, labelled with cfrlab's key (Gambit's reader wants the label and actions at every member);
  actions are listed in the order of ``legal_actions()``, named by ``action_to_string`` (a repeated name gets
  ``#k`` appended, as Gambit's profiles key actions by name);
* a chance node becomes ``c "" N "" { "outcome" PROB ... } 0`` with one chance infoset per node, outcomes in
  the order of their ids and the probabilities as exact fractions summing to 1;
* a terminal becomes ``t "" OUTCOME "" { PAYOFFS }``, one outcome per distinct payoff vector (payoffs
  repeated at every use, as Gambit's reader wants them after a label).

Action ids are renumbered 0..k-1 at each node, so a re-read game equals the original up to that renumbering
(``assert_same_game(..., by_rank=True)``).
"""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path
from typing import IO

import numpy as np

from cfrlab.checkpoint import atomic_write_bytes
from cfrlab.efg.parse import MAX_ACTIONS, MAX_DEPTH, MAX_NODES, MAX_PLAYERS, MAX_STRING_CHARS
from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, State


def write_efg(game: Game, path: str | Path, max_nodes: int = MAX_NODES) -> int:
    """Write ``game`` to ``path`` (whole or not at all); return the number of nodes written.

    ``GameDefinitionError`` for a game with more than ``max_nodes`` nodes or chance nodes that do not list
    their outcomes (such games do not compile either).
    """
    counted: list[int] = []

    def write(handle: IO[bytes]) -> None:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="\n")
        counted.append(_write(game, text, max_nodes))
        text.flush()
        text.detach()

    atomic_write_bytes(path, write)  # a temporary file of its own in the folder, renamed when whole
    return counted[0]


def estimate_nodes(game: Game, probes: int = 32, seed: int = 0) -> float:
    """Knuth's estimate of the number of nodes (Knuth 1975, "Estimating the efficiency of backtrack programs"):
    along a path of uniformly random actions, the product of the branching factors above each node is an
    unbiased estimate of the nodes at its depth; the mean over ``probes`` paths estimates the tree's size
    without walking it (so a huge game is refused at once). Chance nodes that list no outcomes count as huge."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(probes):
        state, weight = game.new_initial_state(), 1.0
        total += 1.0
        while state.current_player() != TERMINAL:
            try:
                actions = state.legal_actions()
            except (NotImplementedError, GameDefinitionError):
                return float("inf")
            weight *= len(actions)
            total += weight
            state = state.child(actions[int(rng.integers(len(actions)))])
    return total / probes


def _quote(text: str) -> str:
    if len(text) > MAX_STRING_CHARS:
        raise GameDefinitionError(f"a name of {len(text):,} characters, beyond the {MAX_STRING_CHARS:,} an .efg file "
                                  "may hold here")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _number(value: float) -> str:
    """A float exactly as Gambit reads it: its shortest decimal, or a fraction where that needs an exponent (every
    finite float64 so written fits ``MAX_NUMBER_CHARS``: 5e-324 is 1 over 324 digits)."""
    text = repr(float(value))
    if "inf" in text or "nan" in text:
        raise GameDefinitionError(f"a payoff of {text} cannot be written to an .efg file")
    return str(Fraction(text)) if "e" in text else text


def _probabilities(probs: list[float]) -> list[Fraction]:
    """Chance probabilities as fractions summing exactly to 1 (small denominators kept where they fit)."""
    out = []
    for p in probs:
        near = Fraction(p).limit_denominator(10**9)
        out.append(near if abs(float(near) - p) <= 1e-15 else Fraction(repr(p)))
    rest = 1 - sum(out[:-1], Fraction(0))
    if rest < 0 or abs(float(rest) - probs[-1]) > 1e-9:
        raise GameDefinitionError(f"chance probabilities {probs} do not sum to 1")
    out[-1] = rest
    return out


def _names(state: State, actions: list[int]) -> list[str]:
    names, seen = [], set()
    for action in actions:
        name = state.action_to_string(action) or str(action)
        unique, k = name, 2
        while unique in seen:
            unique, k = f"{name} #{k}", k + 1
        seen.add(unique)
        names.append(unique)
    return names


def _readable(game: Game, what: str, size: int, limit: int) -> None:
    """Refuse to write what cfrlab's reader would refuse (``efg.parse``'s limits): ``export`` never writes a file
    its own reader cannot read."""
    if size > limit:
        raise GameDefinitionError(f"{game.spec()}: {what} ({size:,}) beyond the {limit:,} an .efg file may hold here")


def _write(game: Game, out: IO[str], max_nodes: int) -> int:
    n = game.num_players
    _readable(game, "players", n, MAX_PLAYERS)
    names = list(getattr(game, "player_names", None) or [f"Player {p + 1}" for p in range(n)])
    out.write(f"EFG 2 R {_quote(game.spec())} {{ {' '.join(_quote(x) for x in names)} }}\n")
    out.write(f'{_quote("Written by cfrlab from " + game.spec())}\n\n')
    infosets: list[dict[str, int]] = [{} for _ in range(n)]
    outcomes: dict[tuple[float, ...], int] = {}
    chance_count = 0
    count = 0
    stack: list[tuple[State, int]] = [(game.new_initial_state(), 0)]
    while stack:
        state, depth = stack.pop()
        _readable(game, "a path's depth", depth, MAX_DEPTH)
        count += 1
        if count > max_nodes:
            raise GameDefinitionError(f"{game.spec()} has more than {max_nodes} nodes: too large for an .efg file")
        player = state.current_player()
        if player == TERMINAL:
            payoffs = tuple(float(r) for r in state.returns())
            number = outcomes.setdefault(payoffs, len(outcomes) + 1)
            out.write(f't "" {number} "" {{ {", ".join(_number(x) for x in payoffs)} }}\n')
            continue
        if player == CHANCE:
            try:
                outcomes_here = sorted(state.chance_outcomes())
            except (NotImplementedError, GameDefinitionError):
                raise GameDefinitionError(f"{game.spec()}: a chance node does not list its outcomes, so the game "
                                          "has no tree to write") from None
            actions = [a for a, _ in outcomes_here]
            probs = _probabilities([float(p) for _, p in outcomes_here])
            chance_count += 1
            moves = " ".join(f"{_quote(name)} {p}" for name, p in zip(_names(state, actions), probs))
            out.write(f'c "" {chance_count} "" {{ {moves} }} 0\n')
        else:
            actions = state.legal_actions()
            key = state.information_state_key(player)
            number = infosets[player].setdefault(key, len(infosets[player]) + 1)
            moves = " ".join(_quote(name) for name in _names(state, actions))
            out.write(f'p "" {player + 1} {number} {_quote(key)} {{ {moves} }} 0\n')
        _readable(game, "actions at a node", len(actions), MAX_ACTIONS)
        stack.extend((state.child(a), depth + 1) for a in reversed(actions))
    return count
