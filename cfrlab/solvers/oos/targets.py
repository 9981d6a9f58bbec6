"""Which histories Online Outcome Sampling steers its samples through (``cfrlab.solvers.oos``).

``Target``: the histories of an infoset found by walking the game from the root (information-set targeting,
Lisy, Lanctot & Bowling 2015), or of every infoset of its public state (public-subgame targeting), guarded
by a node limit. ``ConditionedTarget``: for games whose deal cannot be listed, the game's ``DealProposal``
(seed 000 sec. 10.1) in place of the histories. ``find_target`` picks one; ``check_targetable`` refuses a
game OOS cannot target before play starts.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, DealProposal, Game, State

TARGET_MAX_NODES = 500_000
"""The walk that finds the histories of the target infoset visits at most this many nodes."""


def walkable_actions(game: Game, state: State) -> list[int]:
    """The actions (chance outcomes at chance nodes) a targeting walk follows from ``state``; ``ValueError`` for a
    chance node that can only be sampled (Koi-Koi's deal), where OOS cannot find a target's histories."""
    try:
        return [a for a, _ in state.chance_outcomes()] if state.current_player() == CHANCE else state.legal_actions()
    except Exception as exc:  # a deal that can only be sampled (sample_chance)
        raise ValueError(f"OOS cannot walk {game.spec()} to its target infoset ({exc}), and the game offers "
                         "no conditioned deal (Game.conditioned_deal)") from None


class Target:
    """The histories of one information set, as action sequences, and their prefixes (IST)."""

    def __init__(self, key: str, player: int, members: set[tuple[int, ...]]) -> None:
        if not members:
            raise ValueError(f"no history has infoset {key!r} for player {player}")
        self.key, self.player, self.members = key, player, members
        self.prefixes = {m[:j] for m in members for j in range(len(m) + 1)}


    @classmethod
    def find(cls, game: Game, key: str, player: int, max_nodes: int = TARGET_MAX_NODES) -> Target:
        """The target of infoset ``key`` of ``player``, its histories found by walking ``game`` from the root."""
        return cls.find_all(game, [(key, player)], max_nodes)[(key, player)]

    @classmethod
    def find_all(cls, game: Game, infosets: list[tuple[str, int]],
                 max_nodes: int = TARGET_MAX_NODES) -> dict[tuple[str, int], Target]:
        """Targets of several infosets ``(key, player)`` from one walk of ``game``."""
        members: dict[tuple[str, int], set[tuple[int, ...]]] = {i: set() for i in infosets}
        for state, path, p in decisions(game, max_nodes):
            found = members.get((state.information_state_key(p), p))
            if found is not None:
                found.add(path)
        return {i: cls(i[0], i[1], m) for i, m in members.items()}

    @classmethod
    def find_public(cls, game: Game, key: str, player: int, max_nodes: int = TARGET_MAX_NODES) -> Target:
        """Public-subgame targeting (PST): the target of infoset ``key`` of ``player`` widened to every history of
        its public state where ``player`` acts (``State.public_state_key``), found by one walk of ``game``."""
        by_public: dict[str, set[tuple[int, ...]]] = {}
        public = None
        try:
            for state, path, p in decisions(game, max_nodes):
                if p == player:
                    by_public.setdefault(state.public_state_key(), set()).add(path)
                    if public is None and state.information_state_key(p) == key:
                        public = state.public_state_key()
        except NotImplementedError:
            raise no_public_states(game) from None
        return cls(key, player, by_public.get(public, set()) if public is not None else set())


def decisions(game: Game, max_nodes: int = TARGET_MAX_NODES) -> Iterator[tuple[State, tuple[int, ...], int]]:
    """(state, action path, player) of every decision node of ``game``, walked depth first from the root; a
    ``ValueError`` past ``max_nodes`` nodes."""
    stack: list[tuple[State, tuple[int, ...]]] = [(game.new_initial_state(), ())]
    visited = 0
    while stack:
        state, path = stack.pop()
        visited += 1
        if visited > max_nodes:
            raise ValueError(f"targeting would walk more than {max_nodes} nodes of {game.spec()}: "
                             "OOS targets infosets of games whose tree can be walked")
        p = state.current_player()
        if p == TERMINAL:
            continue
        if p >= 0:
            yield state, path, p
        stack.extend((state.child(a), path + (a,)) for a in walkable_actions(game, state))


class ConditionedTarget:
    """One infoset, targeted through the game's ``DealProposal`` (no enumeration of its histories)."""

    members: frozenset = frozenset()  # no enumerated histories: the sampler follows ``deal``

    def __init__(self, key: str, player: int, deal: DealProposal) -> None:
        self.key, self.player, self.deal = key, player, deal


def find_target(game: Game, key: str, player: int, conditioned: bool = True,
                public: bool = False) -> Target | ConditionedTarget:
    """The target of infoset ``key`` of ``player`` (with ``public``: of its public state, PST): through the game's
    conditioned deal where it offers one (and ``conditioned``), else by walking the tree to the histories."""
    builder = game.conditioned_deal() if conditioned else None
    if builder is None:
        return Target.find_public(game, key, player) if public else Target.find(game, key, player)
    return ConditionedTarget(key, player, builder(key, player, public=public))


def check_targetable(game: Game, public: bool = False) -> None:
    """``ValueError`` now for a game OOS could not target (no conditioned deal, and a root it cannot walk; with
    ``public``, a game without public states)."""
    if game.conditioned_deal() is None:
        walkable_actions(game, game.new_initial_state())
    if public:
        state = game.new_initial_state()
        while state.current_player() == CHANCE:
            state = state.child(state.sample_chance(np.random.default_rng(0)) if hasattr(state, "sample_chance")
                                else state.chance_outcomes()[0][0])
        try:
            state.public_state_key()
        except NotImplementedError:
            raise no_public_states(game) from None


def no_public_states(game: Game) -> ValueError:
    """The error for public-subgame targeting on a game that defines no public states."""
    return ValueError(f"{game.spec()} defines no public states (State.public_state_key): "
                      "use information-set targeting (ist)")
