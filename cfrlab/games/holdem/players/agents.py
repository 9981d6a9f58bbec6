"""Agents for the real limit hold'em game: fixed rules, and an abstract (``holdem_ehs2``) strategy played on real cards.

* ``call``: always checks or calls; ``raise``: raises whenever allowed, else calls.
* ``strength``: a hand-strength rule: with the probability ``s`` of beating a
  uniform opponent hand on the current board (ties half, no board completion),
  raise if ``s >= 0.8``, check or call if ``s >= 0.5`` (and check whenever
  checking is free), else fold.
* ``AbstractionAgent``: looks up the player's bucket sequence
  (``EHS2Abstraction.bucket_sequence``) and the betting so far, and plays the
  abstract strategy's action probabilities at that key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cfrlab.games.holdem.abstraction.abstract_game import AbstractHoldem
from cfrlab.games.holdem.abstraction.abstract_rows import sequence_digits
from cfrlab.games.holdem.abstraction.strength import current_strength
from cfrlab.games.holdem.rules.evaluator import tables
from cfrlab.games.holdem.rules.game import CALL, FOLD, RAISE, HoldemState

RAISE_AT, CALL_AT = 0.8, 0.5


class AlwaysCall:
    name = "call"

    def act(self, state: HoldemState, rng: np.random.Generator) -> int:
        return CALL


class AlwaysRaise:
    name = "raise"

    def act(self, state: HoldemState, rng: np.random.Generator) -> int:
        return RAISE if RAISE in state.legal_actions() else CALL


def strength_now(state: HoldemState, player: int) -> float:
    """Probability that ``player``'s cards beat a uniform opponent hand on the current board (ties half)."""
    game = state.game
    seen = set(state.hole(player)) | set(state.board())
    rest = [c for c in range(game.deck_size) if c not in seen]
    absolute = game.absolute
    return float(current_strength(absolute[list(state.hole(player))], absolute[list(state.board())],
                                  absolute[rest], *tables()))


class HandStrengthAgent:
    name = "strength"

    def act(self, state: HoldemState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        s = strength_now(state, state.current_player())
        if s >= RAISE_AT and RAISE in legal:
            return RAISE
        if s >= CALL_AT or FOLD not in legal:
            return CALL
        return FOLD


BUCKET_MEMORY = 16384
"""Hands whose bucket sequences an ``AbstractionAgent`` remembers (a range of 1,326 hands over four rounds fits)."""


def betting_history(state: HoldemState) -> str:
    """The betting of ``state`` as the abstract game's keys write it: ``"cr/rc"`` (rounds separated by /)."""
    return "/".join("".join("fcr"[a] for a in seq) for seq in state.rounds)


class AbstractionAgent:
    """Plays a strategy of ``abstract`` (a ``TabularPolicy`` over its keys) in the real game."""

    def __init__(self, abstract: AbstractHoldem, policy: Any, name: str = "abstraction") -> None:
        self.abstract = abstract
        self.policy = policy
        self.name = name
        self._sequences: dict[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], int] = {}

    def key(self, state: HoldemState) -> str:
        """The abstract game's information-state key for the acting player of ``state``."""
        player = state.current_player()
        boards = state.board_by_round()
        digits = sequence_digits(self.bucket_sequence(state.hole(player), boards), self.abstract.buckets[: len(boards)])
        return f"{player}:{digits}:{betting_history(state)}"

    def bucket_sequence(self, hole: tuple[int, ...], boards: list[tuple[int, ...]]) -> int:
        """The abstraction's bucket sequence of ``hole`` on the boards of the rounds so far. The last few thousand
        hands' are remembered: Local Best Response asks for every hand of a range at each action of a round."""
        key = (hole, tuple(boards))
        found = self._sequences.get(key)
        if found is None:
            if len(self._sequences) > BUCKET_MEMORY:
                self._sequences.clear()
            found = self._sequences[key] = int(self.abstract.abstraction.bucket_sequence(hole, boards))
        return found

    def act(self, state: HoldemState, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        probs = self.policy.action_probabilities(self.key(state))
        p = np.array([probs.get(a, 0.0) for a in legal])
        return int(legal[int(rng.choice(len(legal), p=p / p.sum()))])


FIXED = {"call": AlwaysCall, "raise": AlwaysRaise, "strength": HandStrengthAgent}
"""The fixed-rule agents by kind."""


def fixed_agent(spec: Any, game: Any) -> Any:
    """``call``, ``raise`` or ``strength`` on the real game ``holdem``."""
    if game.name != "holdem":
        raise ValueError(f"the {spec.kind} agent plays the real limit hold'em game (holdem[...]), not {game.spec()}")
    return FIXED[spec.kind]()


def abstract_policy_agent(spec: Any, game: Any) -> Any:
    """``policy:PATH`` of a ``holdem_ehs2`` strategy, played on the real game ``holdem`` through its buckets; None
    for a strategy of ``game`` itself and on another game (the generic policy agent plays those)."""
    if game.name != "holdem":
        return None
    from cfrlab.policy import TabularPolicy
    from cfrlab.policy_file import read_policy_meta
    from cfrlab.registry import load_game

    path = spec.path
    abstract = load_game(read_policy_meta(path)["game"])
    if abstract.fingerprint() == game.fingerprint():
        return None  # a strategy of the real game itself: the generic policy agent plays it
    if not isinstance(abstract, AbstractHoldem) or abstract.real_game.fingerprint() != game.fingerprint():
        raise ValueError(f"{path} is a strategy for {abstract.spec()}, not for {game.spec()} under an abstraction")
    policy, _ = TabularPolicy.load(path, abstract)
    return AbstractionAgent(abstract, policy, name=f"policy:{path}")


def abstraction_action_probs(agent: AbstractionAgent,
                             max_actions: int = 3) -> Callable[[Sequence[HoldemState]], np.ndarray]:
    """``states -> probabilities`` of an abstract strategy on real states (for ``tabulate_policy``)."""

    def probs(states: Sequence[HoldemState]) -> np.ndarray:
        out = np.zeros((len(states), max_actions))
        for i, state in enumerate(states):
            for action, p in agent.policy.action_probabilities(agent.key(state)).items():
                out[i, action] = p
        return out

    return probs
