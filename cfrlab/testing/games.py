"""Public conformance checks: every cfrlab game, built-in or user-written, must pass them.

``check_game(game)`` walks the game (the whole tree when it has at most
``max_states`` states, else random playouts) and raises ``AssertionError`` with
the offending history and a hint on the first broken rule of the protocol in
``cfrlab.game``:

1. ``current_player()`` is a player index, ``CHANCE`` or ``TERMINAL``.
2. Chance: ``chance_outcomes()`` probabilities are >= 0 and sum to 1, their
   actions are distinct and equal ``legal_actions()``. A huge chance node may
   instead offer ``sample_chance(rng) -> action`` (or ``(action, probability)``)
   and raise ``NotImplementedError`` or ``GameDefinitionError`` from
   ``chance_outcomes()`` (and ``legal_actions()``); the check then samples it.
3. Decisions: legal actions are sorted, distinct ints in ``[0, max_actions)``.
4. ``child()`` never mutates its parent (player, legal actions, every player's
   key, returns and ``repr`` compared before and after).
5. An illegal action raises ``IllegalActionError`` and leaves the state intact.
6. Information-state keys are strings, never shared by two players.
7. Perfect recall (unless ``info.perfect_recall`` is False): the sequence of a
   player's own (key, action) pairs along the path is determined by the key.
8. Same key => same legal actions (and same tensor size).
9. Terminals: no legal actions, ``num_players`` finite returns within
   ``[min_utility, max_utility]``, summing to ``utility_sum`` if ``zero_sum``.
10. ``spec()`` loads back through ``cfrlab.registry.load_game`` with the same
    fingerprint.

Like ``pgx.api_test`` and scikit-learn's ``check_estimator``: one public check
so user games are held to the same contract as the built-ins.

``assert_same_game`` (two implementations of one game compared) is in ``same_game``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, IllegalActionError, State
from cfrlab.seeding import SeedLike, as_generator

PROB_TOL = 1e-6
UTILITY_TOL = 1e-9

OwnHistory = tuple[tuple[str, int], ...]


@dataclass
class CheckReport:
    """What ``check_game`` visited (useful to assert a tree's size in tests)."""

    states: int = 0
    terminals: int = 0
    decision_nodes: int = 0
    chance_nodes: int = 0
    enumerated: bool = False
    """True when the whole tree was walked, False when random playouts were used."""
    infosets: dict[int, int] = field(default_factory=dict)
    """Number of distinct keys seen at each player's decision nodes."""


class _TooManyStates(Exception):
    pass


class _Checker:
    def __init__(self, game: Game, rng: np.random.Generator) -> None:
        self.game = game
        self.info = game.info
        self.n = game.info.num_players
        self.rng = rng
        self.tensor_size = game.information_state_tensor_size()
        self.key_player: dict[str, int] = {}
        self.key_legal: dict[str, tuple[int, ...]] = {}
        self.key_history: dict[str, OwnHistory] = {}
        self.report = CheckReport()

    # -- helpers -----------------------------------------------------------------

    def fail(self, path: tuple[int, ...], message: str) -> None:
        raise AssertionError(f"{self.game.spec()}: after actions {list(path)}: {message}")

    def snapshot(self, state: State) -> tuple[Any, ...]:
        """Everything observable about ``state``, to detect mutation."""
        keys = []
        for p in range(self.n):
            try:
                keys.append(state.information_state_key(p))
            except Exception as exc:  # some games define keys only once cards are dealt
                keys.append(f"<{type(exc).__name__}>")
        player = state.current_player()
        returns = tuple(state.returns()) if player == TERMINAL else ()
        return (player, self.legal_or_none(state), tuple(keys), returns, repr(state))

    def legal_or_none(self, state: State) -> tuple[int, ...] | None:
        """Legal actions, or None at a chance node that can only be sampled."""
        try:
            return tuple(state.legal_actions())
        except (NotImplementedError, GameDefinitionError):
            if state.current_player() == CHANCE and hasattr(state, "sample_chance"):
                return None
            raise

    def chance_children(self, state: State, path: tuple[int, ...]) -> list[int] | None:
        """Validated outcome actions of a chance node, or None if it can only be sampled."""
        try:
            outcomes = state.chance_outcomes()
        except (NotImplementedError, GameDefinitionError) as exc:
            if not hasattr(state, "sample_chance"):
                self.fail(path, f"chance_outcomes() failed ({exc}) and the state has no sample_chance(rng)")
            return None
        if not outcomes:
            self.fail(path, "a chance node has no outcomes")
        actions = [a for a, _ in outcomes]
        probs = [p for _, p in outcomes]
        if any(not math.isfinite(p) or p < 0 for p in probs):
            self.fail(path, f"chance probabilities must be finite and >= 0, got {probs}")
        if abs(sum(probs) - 1.0) > PROB_TOL:
            self.fail(path, f"chance probabilities must sum to 1, got {sum(probs)!r}")
        if len(set(actions)) != len(actions):
            self.fail(path, f"chance outcome actions must be distinct, got {actions}")
        if sorted(actions) != sorted(state.legal_actions()):
            self.fail(
                path,
                f"legal_actions() at a chance node must list the outcome actions: "
                f"outcomes {sorted(actions)} vs legal {sorted(state.legal_actions())}",
            )
        if len(outcomes) > self.info.max_chance_outcomes:
            self.fail(
                path,
                f"{len(outcomes)} chance outcomes exceed info.max_chance_outcomes={self.info.max_chance_outcomes}",
            )
        return actions

    def sample_chance(self, state: State) -> int:
        sampled = state.sample_chance(self.rng)  # type: ignore[attr-defined]
        return int(sampled[0] if isinstance(sampled, tuple) else sampled)

    # -- per-state checks ----------------------------------------------------------

    def check_state(
        self, state: State, path: tuple[int, ...], own: tuple[OwnHistory, ...]
    ) -> tuple[int, list[int] | None]:
        """Check everything local to ``state``; return its player and its actions (None: sample only)."""
        self.report.states += 1
        player = state.current_player()
        if player not in (CHANCE, TERMINAL) and not 0 <= player < self.n:
            self.fail(path, f"current_player() must be 0..{self.n - 1}, CHANCE or TERMINAL, got {player!r}")
        if player == CHANCE:
            self.report.chance_nodes += 1
            listed = self.chance_children(state, path)
            self.check_illegal(state, path, player, listed)
            return player, listed
        legal = state.legal_actions()
        if player == TERMINAL:
            self.report.terminals += 1
            self.check_terminal(state, path, legal)
        else:
            self.report.decision_nodes += 1
            self.check_decision(state, path, own, player, legal)
        self.check_illegal(state, path, player, legal)
        return player, legal

    def check_terminal(self, state: State, path: tuple[int, ...], legal: list[int]) -> None:
        if legal:
            self.fail(path, f"a terminal state must have no legal actions, got {legal}")
        returns = state.returns()
        if len(returns) != self.n:
            self.fail(path, f"returns() must have one value per player ({self.n}), got {returns}")
        if not all(isinstance(r, (int, float, np.floating, np.integer)) and math.isfinite(r) for r in returns):
            self.fail(path, f"returns() must be finite numbers, got {returns}")
        tol = UTILITY_TOL * max(1.0, abs(self.info.min_utility), abs(self.info.max_utility))
        if any(r < self.info.min_utility - tol or r > self.info.max_utility + tol for r in returns):
            self.fail(
                path,
                f"returns {returns} leave the declared bounds "
                f"[{self.info.min_utility}, {self.info.max_utility}]; fix GameInfo.min_utility/max_utility",
            )
        if self.info.zero_sum and abs(sum(returns) - self.info.utility_sum) > tol * self.n:
            self.fail(
                path,
                f"the game declares zero_sum with utility_sum={self.info.utility_sum} but returns {returns} "
                f"sum to {sum(returns)}; fix the returns or declare zero_sum=False",
            )

    def check_decision(
        self, state: State, path: tuple[int, ...], own: tuple[OwnHistory, ...], player: int, legal: list[int]
    ) -> None:
        if not legal:
            self.fail(path, f"player {player} must have at least one legal action")
        if any(not isinstance(a, (int, np.integer)) or isinstance(a, bool) for a in legal):
            self.fail(path, f"legal actions must be ints, got {legal!r}")
        if list(legal) != sorted(set(legal)):
            self.fail(path, f"legal actions must be sorted and distinct, got {legal}")
        if legal[0] < 0 or legal[-1] >= self.info.max_actions:
            self.fail(path, f"legal actions {legal} must lie in [0, info.max_actions={self.info.max_actions})")
        key = state.information_state_key(player)
        if not isinstance(key, str):
            self.fail(path, f"information_state_key must be a str, got {type(key).__name__}")
        owner = self.key_player.setdefault(key, player)
        if owner != player:
            self.fail(
                path,
                f"key {key!r} is used by players {owner} and {player}; "
                "keys must be distinct across players (prefix the player)",
            )
        seen_legal = self.key_legal.setdefault(key, tuple(legal))
        if seen_legal != tuple(legal):
            self.fail(path, f"key {key!r} has legal actions {list(seen_legal)} in one history and {legal} in another")
        if self.info.perfect_recall:
            seen_own = self.key_history.setdefault(key, own[player])
            if seen_own != own[player]:
                self.fail(
                    path,
                    f"perfect recall broken: key {key!r} is reached with own history {list(seen_own)} "
                    f"and with {list(own[player])}; the key must encode all of the player's own keys and actions",
                )
        if self.tensor_size:
            tensor = np.asarray(state.information_state_tensor(player))
            if tensor.size != self.tensor_size or not np.all(np.isfinite(tensor)):
                self.fail(
                    path,
                    f"information_state_tensor has {tensor.size} entries "
                    f"(all finite: {bool(np.all(np.isfinite(tensor)))}), "
                    f"information_state_tensor_size() says {self.tensor_size}",
                )

    def check_illegal(self, state: State, path: tuple[int, ...], player: int, legal: list[int] | None) -> None:
        """Illegal actions must raise IllegalActionError; ``legal`` None: a sample-only chance node."""
        legal_set = set(legal or [])
        candidates = [-1] if legal is None else [-1, (max(legal) + 1) if legal else 0]
        if player >= 0:
            candidates.append(self.info.max_actions)
            candidates.extend(a for a in range(self.info.max_actions) if a not in legal_set)
        before = self.snapshot(state)
        for action in candidates[:4]:
            if action in legal_set:
                continue
            try:
                state.child(action)
            except IllegalActionError:
                pass
            except Exception as exc:
                self.fail(
                    path,
                    f"illegal action {action} raised {type(exc).__name__}({exc}); "
                    "it must raise cfrlab.game.IllegalActionError",
                )
            else:
                self.fail(
                    path, f"illegal action {action} (legal: {legal}) was accepted; it must raise IllegalActionError"
                )
            if self.snapshot(state) != before:
                self.fail(path, f"trying illegal action {action} changed the state")

    def children(
        self, state: State, path: tuple[int, ...], own: tuple[OwnHistory, ...], player: int, actions: list[int]
    ) -> list[tuple[State, tuple[int, ...], tuple[OwnHistory, ...]]]:
        """Build the children for ``actions``, checking the parent is never mutated."""
        before = self.snapshot(state)
        key = state.information_state_key(player) if player >= 0 else ""
        out = []
        for action in actions:
            child = state.child(action)
            if child is state:
                self.fail(path, f"child({action}) returned the parent itself; it must return a new state")
            if player >= 0:
                new_own = own[:player] + (own[player] + ((key, action),),) + own[player + 1 :]
            else:
                new_own = own
            out.append((child, path + (action,), new_own))
            if self.snapshot(state) != before:
                self.fail(path, f"child({action}) mutated its parent; child() must return a new state")
        return out

    # -- walks -------------------------------------------------------------------

    def enumerate(self, max_states: int) -> None:
        empty: tuple[OwnHistory, ...] = ((),) * self.n
        stack: list[tuple[State, tuple[int, ...], tuple[OwnHistory, ...]]] = [
            (self.game.new_initial_state(), (), empty)]
        while stack:
            if self.report.states >= max_states:
                raise _TooManyStates
            state, path, own = stack.pop()
            player, actions = self.check_state(state, path, own)
            if player == TERMINAL:
                continue
            if actions is None:
                raise _TooManyStates  # a sample-only chance node: the tree cannot be listed
            stack.extend(reversed(self.children(state, path, own, player, actions)))

    def playout(self) -> None:
        state: State = self.game.new_initial_state()
        path: tuple[int, ...] = ()
        own: tuple[OwnHistory, ...] = ((),) * self.n
        while True:
            player, actions = self.check_state(state, path, own)
            if player == TERMINAL:
                return
            if player == CHANCE:
                if actions is None:
                    action = self.sample_chance(state)
                    try:
                        state.child(action)
                    except IllegalActionError as exc:
                        self.fail(path, f"sample_chance returned {action}, which child() rejects: {exc}")
                else:
                    probs = np.array([p for _, p in state.chance_outcomes()], dtype=np.float64)
                    action = actions[int(self.rng.choice(len(actions), p=probs / probs.sum()))]
                    if hasattr(state, "sample_chance"):
                        sampled = self.sample_chance(state)
                        if dict(state.chance_outcomes()).get(sampled, 0.0) <= 0.0:
                            self.fail(path, f"sample_chance returned {sampled}, not an outcome of positive probability")
                kids = self.children(state, path, own, player, [action])
            else:
                assert actions is not None
                kids = self.children(state, path, own, player, actions)
                kids = [kids[int(self.rng.integers(len(actions)))]]
            state, path, own = kids[0]

    def check_spec(self) -> None:
        from cfrlab.registry import load_game

        spec = self.game.spec()
        try:
            again = load_game(spec)
        except Exception as exc:
            raise AssertionError(
                f"spec() {spec!r} does not load with cfrlab.load_game ({type(exc).__name__}: {exc}); "
                "register the game with cfrlab.registry.register_game and make spec() list its parameters"
            ) from exc
        if again.fingerprint() != self.game.fingerprint():
            raise AssertionError(
                f"load_game({spec!r}) gives fingerprint {again.fingerprint()} instead of {self.game.fingerprint()}; "
                "spec() must carry every parameter that changes the game"
            )


def check_game(
    game: Game,
    max_states: int = 20_000,
    rng: SeedLike = 0,
    playouts: int = 200,
    check_spec: bool = True,
) -> CheckReport:
    """Check ``game`` against the protocol; raise ``AssertionError`` naming the first violation.

    The whole tree is walked when it has at most ``max_states`` states (and every
    chance node can list its outcomes); otherwise ``playouts`` random playouts
    from ``rng`` are checked on top of the states already walked.
    ``check_spec=False`` skips the ``load_game(spec())`` round trip, for games
    built on the fly that are not registered.
    """
    checker = _Checker(game, as_generator(rng))
    if check_spec:
        checker.check_spec()
    try:
        checker.enumerate(max_states)
        checker.report.enumerated = True
    except _TooManyStates:
        for _ in range(playouts):
            checker.playout()
    counts: dict[int, int] = {}
    for player in checker.key_player.values():
        counts[player] = counts.get(player, 0) + 1
    checker.report.infosets = dict(sorted(counts.items()))
    return checker.report
