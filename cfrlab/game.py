"""The game protocol every cfrlab game implements, close to OpenSpiel's.

A ``Game`` builds immutable ``State`` objects. A state says who acts
(``current_player()``: a player index, ``CHANCE`` or ``TERMINAL``), which
actions are legal (small non-negative ints), what chance does
(``chance_outcomes()``: (action, probability) pairs summing to 1), and returns a
*new* state for an action (``child``). Solvers never mutate states.

``information_state_key(player)`` is a hashable string, equal for two histories
exactly when ``player`` cannot tell them apart (perfect recall: it encodes the
player's whole own history of observations and actions), and never equal
across players. ``returns()`` gives one float per player at a terminal state.

An illegal action raises ``IllegalActionError`` and leaves the state intact.
"""

from __future__ import annotations

import hashlib
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

CHANCE: int = -1
"""``current_player()`` at a chance node (OpenSpiel's kChancePlayerId)."""
TERMINAL: int = -4
"""``current_player()`` at a terminal state (OpenSpiel's kTerminalPlayerId)."""


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


class GameDefinitionError(ValueError):
    """A game built from invalid parameters, or one that breaks the protocol."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Static facts about a game, used by compilers, solvers and checks."""

    num_players: int
    max_actions: int
    """Upper bound on ``len(legal_actions())`` and on every action id + 1."""
    max_chance_outcomes: int
    min_utility: float
    max_utility: float
    zero_sum: bool
    """True when returns always sum to ``utility_sum``."""
    utility_sum: float = 0.0
    perfect_recall: bool = True


class State(ABC):
    """One history of a game. Immutable: ``child`` returns a new state."""

    @abstractmethod
    def current_player(self) -> int:
        """The acting player index, ``CHANCE`` or ``TERMINAL``."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal actions at a decision or chance node, sorted; [] at terminals."""

    @abstractmethod
    def _apply(self, action: int) -> State:
        """Return the successor for a legal ``action`` (legality already checked)."""

    @abstractmethod
    def information_state_key(self, player: int | None = None) -> str:
        """Perfect-recall key of what ``player`` (default: the acting one) knows."""

    @abstractmethod
    def returns(self) -> list[float]:
        """One utility per player; only meaningful at terminal states."""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) pairs at a chance node."""
        raise GameDefinitionError(f"{type(self).__name__} is not a chance node")

    def uniform_chance_outcomes(self) -> list[tuple[int, float]]:
        """Every legal action equally likely (a card dealt from the cards left); for ``chance_outcomes``."""
        if self.current_player() != CHANCE:
            return State.chance_outcomes(self)
        left = self.legal_actions()
        return [(a, 1.0 / len(left)) for a in left]

    def child(self, action: int) -> State:
        """The state after ``action``; raises ``IllegalActionError`` if not legal."""
        legal = self.legal_actions()
        if action not in legal:
            if self.is_terminal():
                raise IllegalActionError(f"no action is legal at a terminal state (got {action})")
            raise IllegalActionError(
                f"action {action!r} is not legal here; legal actions: "
                + ", ".join(f"{a}={self.action_to_string(a)}" for a in legal)
            )
        return self._apply(int(action))

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def action_to_string(self, action: int) -> str:
        """A short human-readable name of ``action`` at this state."""
        return str(action)

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        """A fixed-size float encoding of the information state (neural methods)."""
        raise NotImplementedError(f"{type(self).__name__} has no information_state_tensor")

    def public_state_key(self) -> str:
        """What every player sees of the history (optional): histories with equal keys form one public state,
        the unit of Online Outcome Sampling's public-subgame targeting (Lisy, Lanctot & Bowling 2015)."""
        raise NotImplementedError(f"{type(self).__name__} defines no public states")

    def __str__(self) -> str:
        return self.information_state_key(self.current_player()) if self.current_player() >= 0 else repr(self)


class DealProposal(ABC):
    """The opening chance outcomes (the deal) drawn conditioned on one infoset of one player: seed 000 sec. 10.1.

    Where the deal has too many outcomes to list (Koi-Koi), a search from the root cannot find the histories of
    the infoset I it targets by walking the tree. A game offering this hook (``Game.conditioned_deal``) draws
    the outcome a of each opening chance node (the run of chance nodes before the first decision) from a
    proposal sigma'_c(a|h) that agrees with what the player knows at I, and reports sigma'_c(a|h) / f_c(a|h)
    for any outcome (0 where a contradicts I), so a sampler weighting by f_c / sigma'_c keeps every estimate
    unbiased (sec. 10.1's rewrite of the sampled counterfactual value). After the opening run every history of
    I continues one way given its deal (``continuation``): the player has seen every later action and outcome.
    Public-subgame targeting (``public=True`` to the builder) widens I to the histories of its public state:
    the proposal then agrees only with the public history (no player's private cards), and every history of
    the public state continues one way given its deal (the events are public).
    """

    length: int
    """Opening chance nodes (the run before the first decision) in every history of the infoset."""

    @abstractmethod
    def propose(self, state: State, uniform: Callable[[], float]) -> int:
        """An outcome of opening chance node ``state`` drawn from sigma'_c(.|state) with the uniforms given."""

    @abstractmethod
    def ratio(self, state: State, action: int) -> float:
        """sigma'_c(action|state) / f_c(action|state) at opening chance node ``state`` (0: contradicts the infoset)."""

    @abstractmethod
    def continuation(self, deal: tuple[int, ...]) -> tuple[int, ...]:
        """The actions from the first decision after the opening outcomes ``deal`` to the infoset's history."""

    @staticmethod
    def pick(actions: Sequence[int], weights: Sequence[float], uniform: Callable[[], float]) -> int:
        """One of ``actions`` drawn with probabilities proportional to ``weights`` (one uniform)."""
        cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
        i = int(np.searchsorted(cumulative, uniform() * cumulative[-1], side="right"))
        return int(actions[min(i, len(actions) - 1)])

    def reach(self, game: Game, key: str, player: int, tries: int = 32, public: str | None = None) -> State:
        """A history of infoset ``key`` of ``player`` (with ``public``: of that public state, where ``player``
        acts): a proposed deal and the continuation (a few deals are tried: some may end the game at once);
        ``ValueError`` if none gets there."""
        rng = np.random.default_rng(0)
        for _ in range(tries):
            state = game.new_initial_state()
            deal: list[int] = []
            try:
                while len(deal) < self.length and state.current_player() == CHANCE:
                    deal.append(self.propose(state, rng.random))
                    state = state.child(deal[-1])
                if len(deal) < self.length:
                    continue
                for a in self.continuation(tuple(deal)):
                    state = state.child(a)
            except IllegalActionError:
                continue
            if state.current_player() == player and (state.information_state_key(player) == key if public is None
                                                     else state.public_state_key() == public):
                return state
        raise ValueError(f"no history has infoset {key!r} for player {player}")

    def draw(self, state: State, uniform: Callable[[], float]) -> int:
        """An outcome of a chance node whose outcomes cannot be listed (``chance_outcomes`` raises), drawn from
        f_c with the uniforms given; games whose chance nodes all list their outcomes need not override it."""
        raise GameDefinitionError(f"{type(self).__name__} cannot draw at a chance node that lists no outcomes")


class Game(ABC):
    """A finite game with a name and parameters that fingerprint it."""

    name: str = "game"
    default_params: Mapping[str, Any] = {}
    """Parameter defaults; ``spec()`` leaves out parameters equal to them (``leduc`` not ``leduc(ranks=3,...)``)."""
    parameter_help: Mapping[str, str] = {}
    """What each parameter means and which values it takes (``cfrlab games`` shows it)."""
    parameter_bounds: Mapping[str, tuple[float, float]] = {}
    """Smallest and largest value of each numeric parameter (of each entry of a list), such that building and
    playing the game fits in memory and time (``check_parameters``; ``cfrlab games`` shows them)."""

    def __init__(self, **params: Any) -> None:
        check_parameters(self.name, params, self.parameter_bounds)
        self.params: dict[str, Any] = dict(params)

    @property
    @abstractmethod
    def info(self) -> GameInfo:
        """Static facts about the game."""

    @abstractmethod
    def new_initial_state(self) -> State:
        """The root of the game tree."""

    @property
    def num_players(self) -> int:
        return self.info.num_players

    @property
    def max_actions(self) -> int:
        return self.info.max_actions

    def information_state_tensor_size(self) -> int:
        """Length of ``State.information_state_tensor`` (0 if unsupported)."""
        return 0

    def tree_builder(self) -> tuple[int, Callable[[], dict[str, Any]]] | None:
        """(number of nodes, a function building the breadth-first tree arrays directly), or None.

        For games regular enough to skip state-by-state enumeration (Leduc variants): the arrays must be
        exactly those ``compile_tree`` would produce (``cfrlab.tree.compile.assemble_tree``'s arguments).
        """
        return None

    def conditioned_deal(self) -> Callable[..., DealProposal] | None:
        """``builder(key, player, public=False)``: the ``DealProposal`` of infoset ``key`` of ``player`` (with
        ``public``: of its public state); None where the game offers none (Online Outcome Sampling then finds
        the infoset's histories by walking the tree)."""
        return None

    def infoset_rows(self) -> Sequence[str] | None:
        """Every infoset key in one fixed order, as a sequence that also has ``row_of(key) -> int`` (``KeyError``
        for a key the game lacks), ``legal_mask() -> (rows, max_actions) bool array``, ``player(row) -> int`` and
        ``action_name(action) -> str``; or None.

        For games too large for a string key per row in memory (abstract hold'em: 5.7e7 infosets): a
        ``TabularPolicy`` over these rows is saved and loaded as its probability array alone.
        """
        return None

    def symmetry_quotient(self) -> Game | None:
        """A smaller game equivalent to this one under a symmetry it declares, or None.

        Chance outcomes that are images of each other under the symmetry (e.g. Leduc's suits) are merged
        into one, with their probabilities summed; each of this game's infosets maps to the quotient's
        infoset ``quotient_key(key)``, with the same legal actions, and CFR's iterates on the quotient equal
        this game's (the merged infosets' regrets are scaled copies of each other).
        """
        return None

    def quotient_key(self, key: str) -> str:
        """The ``symmetry_quotient()`` infoset holding this game's infoset ``key``."""
        raise NotImplementedError(f"{self.spec()} declares no symmetry")

    def quotient_infosets(self, key: str) -> list[str]:
        """This game's infosets that ``quotient_key`` maps to the quotient's infoset ``key`` (its inverse), so a
        quotient strategy expands to this game without enumerating its tree; ``ValueError`` for no such key."""
        raise NotImplementedError(f"{self.spec()} declares no symmetry")

    def openspiel_twin(self) -> tuple[str, dict[str, Any]] | None:
        """The same game in OpenSpiel, as ``(name, parameters)`` for ``pyspiel.load_game``: the same action and
        chance ids, histories and returns, so a state of either is the other's replayed
        (``TabularPolicy.to_openspiel(game=...)``); None where OpenSpiel has no such game."""
        return None

    def table_note(self) -> str | None:
        """One line on precomputed tables the game is built on (how an abstraction's table was obtained,
        with its error), shown beside results; None when there are none."""
        return None

    def spec(self) -> str:
        """Canonical text form, loadable with ``cfrlab.load_game``: ``kuhn(players=3)``."""
        shown = {k: v for k, v in self.params.items()
                 if k not in self.default_params or self.default_params[k] != v}
        if not shown:
            return self.name
        args = ",".join(f"{k}={_format_param(v)}" for k, v in sorted(shown.items()))
        return f"{self.name}({args})"

    def identity(self) -> dict[str, Any]:
        """What makes two games the same: name, parameters and rules version (``fingerprint`` hashes it)."""
        return {"name": self.name, "params": self.params, "version": getattr(self, "rules_version", 1)}

    def fingerprint(self) -> str:
        """Stable hash of the game's identity (name, parameters, rules version)."""
        blob = json.dumps(self.identity(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def __str__(self) -> str:
        return self.spec()

    def __repr__(self) -> str:
        return f"<Game {self.spec()}>"


def _format_param(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_format_param(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


NORMAL_PAYOFFS = (2.0**-20, 2.0**20)
"""Largest |payoff| for which solvers use the game's payoffs as they are."""


def payoff_scale(info: GameInfo) -> float:
    """What solvers and evaluation divide payoffs by: 1.0 when the largest |payoff| (from ``info``'s bounds) is
    within ``NORMAL_PAYOFFS`` (or unusable), else that largest |payoff| itself.

    So any finite payoff range behaves like one near 1: no overflow to inf near 1e308, no underflow or
    absolute tolerance swallowing payoffs near 1e-300. Games in the normal range keep their exact bits, and a
    game whose payoffs are another's times a factor becomes exactly that game (Kuhn times 1e-300 divided by
    its largest payoff 2e-300 is Kuhn / 2, bit for bit).
    """
    largest = max(abs(info.min_utility), abs(info.max_utility))
    if not np.isfinite(largest) or largest == 0.0 or NORMAL_PAYOFFS[0] <= largest <= NORMAL_PAYOFFS[1]:
        return 1.0
    return float(largest)


def params_from_mapping(defaults: Mapping[str, Any], given: Mapping[str, Any], game: str) -> dict[str, Any]:
    """Merge ``given`` into ``defaults``, rejecting unknown names with a clear message."""
    unknown = set(given) - set(defaults)
    if unknown:
        raise GameDefinitionError(
            f"{game}: unknown parameter(s) {sorted(unknown)}; known: {sorted(defaults)}"
        )
    return {**defaults, **given}


MAX_PARAMETER = 2**32 - 1
"""Largest magnitude of a number in any game's parameters that declares no bound of its own (a seed holds 32
bits): ``leduc(raise_sizes=[1e300,4])`` was taken and its payoffs overflowed the solvers' sums."""
MAX_PARAMETER_ENTRIES = 64
"""Most entries of a list parameter (hold'em's rounds)."""
MAX_PLAYERS = 64
"""Most players a game may have (the compiled trees store a player in 8 bits; ``random_game(players=100000)``
overflowed them)."""


def check_parameters(game: str, params: Mapping[str, Any], bounds: Mapping[str, tuple[float, float]]) -> None:
    """``GameDefinitionError`` in one line unless every number in ``params`` (every entry of a list) is finite and
    within its ``bounds`` (``Game.parameter_bounds``), else within ``MAX_PARAMETER``, and no list holds more than
    ``MAX_PARAMETER_ENTRIES``: a game refuses, before building anything, a size that would take minutes or all
    memory (``leduc(ranks=100000)``, ``random_game(depth=100000)``)."""
    for key, value in params.items():
        low, high = bounds.get(key, (-MAX_PARAMETER, MAX_PARAMETER))
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, (list, tuple)):
                if len(item) > MAX_PARAMETER_ENTRIES:
                    raise GameDefinitionError(f"{game}: {key} has {len(item)} entries, more than "
                                              f"{MAX_PARAMETER_ENTRIES}")
                stack.extend(item)
            elif isinstance(item, (int, float)) and not isinstance(item, bool) and not (
                    low <= item <= high and (isinstance(item, int) or math.isfinite(item))):
                shown = (f"{item:.3g}" if isinstance(item, float) else str(item) if abs(item) <= 10**12
                         else f"an integer of {item.bit_length()} bits")
                raise GameDefinitionError(f"{game}: {key} must be from {_bound(low)} to {_bound(high)} (the bounds "
                                          f"keep a game within memory and time; cfrlab games lists them), got {shown}")


def _bound(value: float) -> str:
    return f"{int(value):,}" if value == int(value) else f"{value:g}"
