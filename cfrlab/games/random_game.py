"""Seeded random finite extensive-form games, for brute-force tests.

Rules: a game is a sequence of at most ``depth`` steps. At each step either
chance or one player acts, choosing one of 2..``branching`` actions (half the
nodes have exactly ``branching``). Chance outcomes have random probabilities
and are seen by a random subset of the players (private observations); a
player's action is either public or hidden from everybody else. Some histories
stop early (never before step 2). Every terminal history pays a random integer
vector in ``[-max_payoff, max_payoff]`` (zero-sum: the last player pays the
others' sum).

Specification in cfrlab:
* Parameters: ``seed`` (0), ``players`` (2), ``depth`` (4), ``branching`` (3),
  ``zero_sum`` (true), ``chance`` (0.3: probability that a step is a chance
  node; the first step always is when ``chance > 0``), ``hidden`` (0.5:
  probability that each player misses a chance outcome, or that a player's
  action is hidden), ``stop`` (0.05: probability that a step from the third on
  ends the game early), ``max_payoff`` (10).
* Imperfect information with perfect recall and "same key => same legal
  actions": the *shape* of a node (who acts, how many actions, chance
  probabilities, who sees the action, whether the game stops) is drawn once
  per *public history* (the actors so far and the actions everyone saw), and
  every player sees all public information; only payoffs depend on the whole
  history.
* Information-state key of player p: ``"{p}:"`` followed by one token per step
  as p saw it: ``C2`` / ``C?`` (chance outcome seen / not seen), ``P1=0`` /
  ``P1=?`` (player 1's action seen / hidden), e.g. ``"0:C2 P1=? P0=1"``.
* Actions are ``0 .. n-1`` at every node, chance outcomes included. The whole
  game is generated at construction from ``np.random.default_rng(seed)``, so a
  seed names one game forever (``rules_version`` changes if generation does).
* Default size: about 60 nodes on average over seeds, at most 121 (depth 4,
  branching 3); ``depth`` and ``branching`` grow it geometrically.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.game import (
    CHANCE,
    MAX_PARAMETER,
    MAX_PLAYERS,
    TERMINAL,
    Game,
    GameDefinitionError,
    GameInfo,
    State,
    params_from_mapping,
)
from cfrlab.seeding import as_generator

DEFAULTS: dict[str, object] = {
    "seed": 0,
    "players": 2,
    "depth": 4,
    "branching": 3,
    "zero_sum": True,
    "chance": 0.3,
    "hidden": 0.5,
    "stop": 0.05,
    "max_payoff": 10,
}

MAX_PATHS = 10**6
"""Most paths (``branching ** depth``) a random game may have: its whole tree is drawn when it is built, and
``random_game(depth=100000)`` grew to 4 GB in a minute."""

PublicHistory = tuple[tuple[int, int], ...]
"""One (actor, action or -1 when not seen by everyone) pair per step."""


@dataclass(frozen=True, slots=True)
class RandomNode:
    """The shape of a non-terminal node, shared by all histories with its public history."""

    actor: int
    """A player index or ``CHANCE``."""
    num_actions: int
    probs: tuple[float, ...]
    """Chance probabilities (empty at decision nodes)."""
    seen_by: tuple[bool, ...]
    """Per player: whether that player observes the action taken here."""

    def public_token(self, action: int) -> tuple[int, int]:
        return (self.actor, action if all(self.seen_by) else -1)


@dataclass(frozen=True, slots=True)
class RandomGameState(State):
    game: RandomGame
    history: tuple[int, ...] = ()

    def _node(self) -> RandomNode | None:
        return self.game.nodes.get(self.history)

    def current_player(self) -> int:
        node = self._node()
        return TERMINAL if node is None else node.actor

    def is_terminal(self) -> bool:
        return self.history in self.game.terminal_returns

    def legal_actions(self) -> list[int]:
        node = self._node()
        return [] if node is None else list(range(node.num_actions))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self._node()
        if node is None or node.actor != CHANCE:
            return super().chance_outcomes()
        return list(enumerate(node.probs))

    def _apply(self, action: int) -> RandomGameState:
        return RandomGameState(self.game, self.history + (action,))

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < self.game.players:
            raise ValueError(f"information_state_key needs a player in 0..{self.game.players - 1}, got {player}")
        tokens = []
        for i, action in enumerate(self.history):
            node = self.game.nodes[self.history[:i]]
            seen = str(action) if node.seen_by[player] else "?"
            tokens.append(f"C{seen}" if node.actor == CHANCE else f"P{node.actor}={seen}")
        return f"{player}:" + " ".join(tokens)

    def returns(self) -> list[float]:
        result = self.game.terminal_returns.get(self.history)
        return list(result) if result is not None else [0.0] * self.game.players

    def action_to_string(self, action: int) -> str:
        return f"chance {action}" if self.current_player() == CHANCE else f"action {action}"


class RandomGame(Game):
    """``RandomGame(seed=3, players=3, depth=5)``: a reproducible random imperfect-information game."""

    name = "random_game"
    default_params = DEFAULTS
    parameter_help = {
        "seed": "seed of the generated tree: an integer",
        "players": "number of players: an integer >= 2",
        "depth": "decisions along a path: an integer >= 1 (branching ** depth at most 1,000,000)",
        "branching": "actions per decision: an integer >= 2",
        "zero_sum": "whether payoffs sum to zero (two players)",
        "chance": "probability that a node is a chance node: 0-1",
        "hidden": "probability that an action is hidden from the other players: 0-1",
        "stop": "probability that a path ends early: 0-1",
        "max_payoff": "largest payoff in absolute value: a positive number",
    }
    parameter_bounds = {"seed": (0, MAX_PARAMETER), "players": (2, MAX_PLAYERS), "depth": (1, 64),
                        "branching": (1, 64), "max_payoff": (0, 10**6), "chance": (0, 1), "hidden": (0, 1),
                        "stop": (0, 1)}
    rules_version = 1

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(DEFAULTS, params, self.name))
        p = self.params
        for label, low in (("seed", 0), ("players", 2), ("depth", 1), ("branching", 1), ("max_payoff", 0)):
            value = p[label]
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise GameDefinitionError(f"random_game: {label} must be an integer >= {low}, got {value!r}")
        for label in ("chance", "hidden", "stop"):
            value = p[label]
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= value <= 1.0:
                raise GameDefinitionError(f"random_game: {label} must be a probability in [0, 1], got {value!r}")
        if not isinstance(p["zero_sum"], bool):
            raise GameDefinitionError(f"random_game: zero_sum must be true or false, got {p['zero_sum']!r}")
        if p["branching"] ** p["depth"] > MAX_PATHS:
            raise GameDefinitionError(f"random_game: branching ** depth must be at most {MAX_PATHS:,} paths (the "
                                      f"whole tree is drawn when the game is built), got {p['branching']} ** "
                                      f"{p['depth']}")
        self.players: int = p["players"]
        self.depth: int = p["depth"]
        self.branching: int = p["branching"]
        self.zero_sum: bool = p["zero_sum"]
        self.max_payoff: int = p["max_payoff"]
        self.nodes: dict[tuple[int, ...], RandomNode] = {}
        self.terminal_returns: dict[tuple[int, ...], tuple[float, ...]] = {}
        self._generate(as_generator(p["seed"]))
        bound = float(self.max_payoff * (self.players - 1 if self.zero_sum else 1))
        self._info = GameInfo(
            num_players=self.players,
            max_actions=self.branching,
            max_chance_outcomes=self.branching,
            min_utility=-bound,
            max_utility=bound,
            zero_sum=self.zero_sum,
        )

    def _shape(self, rng: np.random.Generator, step: int) -> RandomNode | None:
        """Draw the shape of a node at a new public history (None: terminal)."""
        p = self.params
        if step == self.depth or (step >= 2 and rng.random() < p["stop"]):
            return None
        chance = float(p["chance"])
        is_chance = chance > 0 and (step == 0 or rng.random() < chance)
        # Half the nodes use the full branching, the others 2 .. branching - 1 actions.
        full = self.branching <= 2 or rng.random() < 0.5
        num_actions = self.branching if full else int(rng.integers(2, self.branching))
        if is_chance:
            probs = rng.dirichlet(np.ones(num_actions))
            probs = probs / probs.sum()
            seen = tuple(bool(s) for s in rng.random(self.players) >= float(p["hidden"]))
            return RandomNode(CHANCE, num_actions, tuple(float(x) for x in probs), seen)
        actor = int(rng.integers(self.players))
        public = bool(rng.random() >= float(p["hidden"]))
        seen = tuple(public or q == actor for q in range(self.players))
        return RandomNode(actor, num_actions, (), seen)

    def _payoff(self, rng: np.random.Generator) -> tuple[float, ...]:
        draws = rng.integers(-self.max_payoff, self.max_payoff + 1, size=self.players)
        if self.zero_sum:
            draws[-1] = -int(draws[:-1].sum())
        return tuple(float(x) for x in draws)

    def _generate(self, rng: np.random.Generator) -> None:
        """Depth-first over full histories; shapes are drawn once per public history."""
        shapes: dict[PublicHistory, RandomNode | None] = {}
        stack: list[tuple[tuple[int, ...], PublicHistory]] = [((), ())]
        while stack:
            history, public = stack.pop()
            if public not in shapes:
                shapes[public] = self._shape(rng, len(history))
            node = shapes[public]
            if node is None:
                self.terminal_returns[history] = self._payoff(rng)
                continue
            self.nodes[history] = node
            for action in reversed(range(node.num_actions)):
                stack.append((history + (action,), public + (node.public_token(action),)))

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> RandomGameState:
        return RandomGameState(self)

    @property
    def num_histories(self) -> int:
        """Number of states (decision, chance and terminal) in the tree."""
        return len(self.nodes) + len(self.terminal_returns)
