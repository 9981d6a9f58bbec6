"""Limit hold'em under the E[HS^2] card abstraction, as a cfrlab game (``holdem_ehs2``).

The betting is the real game's (``cfrlab.games.holdem.rules.betting``); the cards are
replaced by bucket sequences (``cfrlab.games.holdem.abstraction.abstraction``). Before each
round's first decision chance deals both players' buckets for the round, jointly,
with the probability the real deal has; a showdown pays the pot times the
expected showdown result of the real deals behind the two bucket sequences.

Specification in cfrlab:
* Parameters: every parameter of ``holdem`` plus ``buckets`` (one count per
  round, default 5 each). Decks up to 32 cards use the exact tables
  (``cfrlab.games.holdem.abstraction.abstraction``); larger decks with hold'em's rounds
  (the full 52 cards) exact buckets and a joint table estimated from sampled
  deals (``cfrlab.games.holdem.abstraction.large_abstraction``; ``table_note`` says which,
  with the estimate's standard error).
* Chance action at round k: ``b0 * buckets[k] + b1`` (both players' buckets),
  outcomes of probability 0 left out.
* Actions and returns (chips) as ``holdem``.
* Information-state key of player p: ``"{p}:{buckets so far, dot separated}:{betting}"``,
  e.g. ``"0:3.1:cr/c"`` (betting as in ``BettingTree.history``).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, GameDefinitionError, GameInfo, State, params_from_mapping
from cfrlab.games.holdem.abstraction.abstract_rows import AbstractRows
from cfrlab.games.holdem.abstraction.abstraction import (
    ABSTRACTION_VERSION,
    MAX_DECK,
    EHS2Abstraction,
    Progress,
    cache_path,
    load_abstraction,
)
from cfrlab.games.holdem.abstraction.build_estimate import BuildEstimate, exact_estimate, large_estimate
from cfrlab.games.holdem.abstraction.large_abstraction import (
    LARGE_VERSION,
    SAMPLES_PER_BOARD,
    LargeEHS2Abstraction,
    check_structure,
    default_replicates,
)
from cfrlab.games.holdem.abstraction.large_builder import default_threads, large_cache_path, load_large_abstraction
from cfrlab.games.holdem.rules.betting import DECISION, FOLDED, BettingTree, betting_tree
from cfrlab.games.holdem.rules.game import DEFAULTS as HOLDEM_DEFAULTS
from cfrlab.games.holdem.rules.game import LimitHoldem

DEFAULTS: dict[str, object] = {**HOLDEM_DEFAULTS, "buckets": 5, "table": "sampled"}
TABLES = ("sampled", "exact")
"""The joint table of a deck above ``MAX_DECK`` cards: sampled pairs of hands on every board, or every deal."""
MAX_BUCKET_SEQUENCES = 10**6
"""Most bucket sequences a player may have (a bound on the tables, checked before anything is built)."""


@dataclass(frozen=True, slots=True)
class AbstractState(State):
    game: AbstractHoldem
    node: int = 0
    deals: tuple[int, ...] = ()
    """Chance action of each round dealt: ``b0 * buckets[k] + b1``."""

    def sequences(self) -> tuple[int, int]:
        """Both players' bucket sequence ids after the rounds dealt."""
        s0 = s1 = 0
        for k, deal in enumerate(self.deals):
            n = self.game.buckets[k]
            s0, s1 = s0 * n + deal // n, s1 * n + deal % n
        return s0, s1

    def current_player(self) -> int:
        tree = self.game.tree
        if tree.kind[self.node] != DECISION:
            return TERMINAL
        if len(self.deals) <= tree.round[self.node]:
            return CHANCE
        return int(tree.player[self.node])

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if player == TERMINAL:
            return []
        return [a for a in range(3) if self.game.tree.child[self.node, a] >= 0]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return super().chance_outcomes()
        k = len(self.deals)
        n = self.game.buckets[k]
        s0, s1 = self.sequences()
        block = self.game.joint_by_round[k][s0 * n : (s0 + 1) * n, s1 * n : (s1 + 1) * n]
        probs = block.ravel() / block.sum()
        return [(int(a), float(probs[a])) for a in np.flatnonzero(probs > 0)]

    def _apply(self, action: int) -> AbstractState:
        if self.current_player() == CHANCE:
            return AbstractState(self.game, self.node, self.deals + (action,))
        return AbstractState(self.game, int(self.game.tree.child[self.node, action]), self.deals)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        tree = self.game.tree
        spent = tree.spent[self.node]
        if tree.kind[self.node] == FOLDED:
            folder = int(tree.player[self.node])
            u0 = -spent[0] if folder == 0 else spent[1]
        else:
            u0 = spent[0] * self.game.abstraction.showdown[self.sequences()]
        return [float(u0), float(-u0)]

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if not 0 <= player < 2:
            raise ValueError(f"information_state_key needs a player in 0..1, got {player}")
        mine = [str(d // n if player == 0 else d % n) for d, n in zip(self.deals, self.game.buckets)]
        return f"{player}:{'.'.join(mine)}:{self.game.tree.history[self.node]}"

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            n = self.game.buckets[len(self.deals)]
            return f"Buckets:{action // n},{action % n}"
        return ("Fold", "Call", "Raise")[action]


class AbstractHoldem(Game):
    """Limit hold'em with E[HS^2] buckets in place of cards (Zinkevich et al. 2008)."""

    name = "holdem_ehs2"
    default_params = DEFAULTS
    parameter_help = {
        **LimitHoldem.parameter_help,
        "buckets": "E[HS^2] buckets per round: one integer for every round, or a list, one entry per round",
        "table": "the joint bucket table of a deck above 32 cards: sampled (128 pairs of hands a board) or exact "
                 "(every deal; a first build of an hour or more on 52 cards, then cached)",
    }
    parameter_bounds = {**LimitHoldem.parameter_bounds, "buckets": (1, 10**6)}
    # in the fingerprint, so compiled trees and strategy files of an older bucket rule or table are not reused
    rules_version = f"ehs2-{ABSTRACTION_VERSION}.{LARGE_VERSION}"

    def __init__(self, **params: object) -> None:
        super().__init__(**params_from_mapping(DEFAULTS, params, self.name))
        real = {k: v for k, v in self.params.items() if k not in ("buckets", "table")}
        if self.params["table"] not in TABLES:
            raise GameDefinitionError(f"holdem_ehs2: table must be one of {', '.join(TABLES)}, got "
                                      f"{self.params['table']!r:.40}")
        self.real_game = LimitHoldem(**real)
        buckets = self.params["buckets"]
        rounds = self.real_game.num_rounds
        buckets = [buckets] * rounds if isinstance(buckets, int) and not isinstance(buckets, bool) else buckets
        if not isinstance(buckets, (list, tuple)) or len(buckets) != rounds or not all(
            isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in buckets
        ):
            raise GameDefinitionError(
                f"holdem_ehs2: buckets must be a positive integer or one per round ({rounds}), got {buckets!r}"
            )
        if np.prod([float(b) for b in buckets]) > MAX_BUCKET_SEQUENCES:
            raise GameDefinitionError(f"holdem_ehs2: at most {MAX_BUCKET_SEQUENCES:,} bucket sequences (the product of "
                                      f"the counts per round), got {buckets!r}")
        self.buckets: list[int] = list(buckets)
        most = self.real_game.info.max_utility
        self._info = GameInfo(num_players=2, max_actions=3,
                              max_chance_outcomes=max(b * b for b in self.buckets),
                              min_utility=-most, max_utility=most, zero_sum=True)

    @property
    def info(self) -> GameInfo:
        return self._info

    def identity(self) -> dict[str, Any]:
        """As ``Game.identity``, without ``table`` where it is the default: strategy files of the sampled table keep
        the fingerprint they were made with."""
        identity = super().identity()
        if self.params["table"] == DEFAULTS["table"]:
            identity["params"] = {k: v for k, v in self.params.items() if k != "table"}
        return identity

    @property
    def _large_table(self) -> tuple[int, int]:
        """``(samples, replicates)`` of the large builder's joint table: none (every deal) for ``table=exact``."""
        if self.params["table"] == "exact":
            return 0, 1
        return SAMPLES_PER_BOARD, default_replicates(self.buckets)

    @cached_property
    def abstraction(self) -> EHS2Abstraction | LargeEHS2Abstraction:
        return self._load_abstraction(None)

    def _load_abstraction(self, progress: Progress | None) -> EHS2Abstraction | LargeEHS2Abstraction:
        try:
            if self.real_game.deck_size <= MAX_DECK:
                return load_abstraction(self.real_game, self.buckets, progress=progress)
            return load_large_abstraction(self.real_game, self.buckets, *self._large_table, progress=progress)
        except ValueError as exc:
            raise GameDefinitionError(f"holdem_ehs2: {exc}") from exc

    def tables_cached(self) -> bool:
        """Whether the abstraction's tables are in memory or in the disk cache (else a first use builds them)."""
        real = self.real_game
        path = cache_path(real, self.buckets) if real.deck_size <= MAX_DECK else \
            large_cache_path(real, self.buckets, *self._large_table)
        return "abstraction" in self.__dict__ or path.exists()

    def build_estimate(self) -> BuildEstimate:
        """What building the tables will take (``cfrlab.games.holdem.abstraction.build_estimate``)."""
        real = self.real_game
        if real.deck_size <= MAX_DECK:
            return exact_estimate(real, self.buckets)
        try:
            check_structure(real)  # refused before anything is said of a build that cannot run
        except ValueError as exc:
            raise GameDefinitionError(f"holdem_ehs2: {exc}") from exc
        return large_estimate(real, self.buckets, *self._large_table, default_threads())

    def load_tables(self, progress: Progress | None = None) -> None:
        """Read or build the abstraction now, a build telling ``progress`` how far it is."""
        if "abstraction" not in self.__dict__:
            self.__dict__["abstraction"] = self._load_abstraction(progress)

    def with_table(self, joint: np.ndarray, showdown: np.ndarray) -> AbstractHoldem:
        """The same abstract game with another joint table (e.g. one replicate of a sampled table)."""
        other = copy.copy(self)
        other.__dict__.pop("joint_by_round", None)
        other.__dict__["abstraction"] = dataclasses.replace(self.abstraction, joint=joint, showdown=showdown)
        return other

    def table_note(self) -> str:
        """How the joint bucket-sequence table was obtained: exact, or sampled with its standard error."""
        abstraction = self.abstraction
        if not getattr(abstraction, "sampled", False):
            return "joint table exact (every deal)"
        error = abstraction.joint_error()  # type: ignore[union-attr]
        source = (f"{error['replicates']} replicates" if error["method"] == "replicates"
                  else "error from the samples' moments")
        return (f"joint table sampled ({abstraction.samples} deals per board, "  # type: ignore[union-attr]
                f"{source}): expected error: {error['joint_l1']:.4f} summed over the "
                f"probabilities, {error['showdown']:.4f} on an expected showdown result (+-1), probability-weighted")

    @cached_property
    def tree(self) -> BettingTree:
        return betting_tree(self.real_game)

    def infoset_rows(self) -> AbstractRows:
        """The infosets in the solvers' table order (``cfrlab.games.holdem.abstraction.abstract_rows``)."""
        return self._rows

    @cached_property
    def _rows(self) -> AbstractRows:
        return AbstractRows(self.tree, self.buckets)

    @cached_property
    def joint_by_round(self) -> list[np.ndarray]:
        """Joint probability of both players' bucket sequences after each round."""
        joint, out = self.abstraction.joint, []
        for k in range(len(self.buckets)):
            rest = int(np.prod(self.buckets[k + 1 :]))
            s = joint.shape[0] // rest
            out.append(joint if rest == 1 else joint.reshape(s, rest, s, rest).sum(axis=(1, 3)))
        return out

    @property
    def milli_bets_per_chip(self) -> float:
        """mb/h per chip per hand (the real game's)."""
        return self.real_game.milli_bets_per_chip

    def num_nodes(self) -> int:
        """Nodes of the abstract game tree: every betting node once per joint bucket sequence of positive
        probability up to its round, and a chance node before each round's deal."""
        tree = self.tree
        reachable = np.array([np.count_nonzero(j) for j in self.joint_by_round])
        parent_round = np.full(tree.num_nodes, -1)
        for a in range(3):
            kids = tree.child[:, a]
            parent_round[kids[kids >= 0]] = tree.round[kids >= 0]
        starts = np.flatnonzero((tree.kind == DECISION) & (parent_round < tree.round))  # the root and round starts
        before = np.concatenate([[1], reachable])[tree.round[starts]]
        return int(reachable[tree.round].sum() + before.sum())

    def tree_builder(self) -> tuple[int, Any] | None:
        """None (``compile_tree`` enumerates the states) unless the tree has more than 20 million nodes:
        then its size, so that the compiler refuses it at once instead of after enumerating 20 million states."""
        size = self.num_nodes()
        if size <= 20_000_000:
            return None

        def refuse() -> dict[str, Any]:
            raise GameDefinitionError(f"{self.spec()} has {size:,} nodes: solve it with pvt-cfr or vector-cfr+, "
                                      "which do not compile the tree")

        return size, refuse

    def new_initial_state(self) -> AbstractState:
        return AbstractState(self)


def with_abstraction(game: Game, text: str) -> AbstractHoldem:
    """``game`` (a ``holdem``) under the abstraction ``text``: ``ehs2:5`` (5 buckets a round) or ``ehs2:5,5,3,3``,
    with ``:exact`` for the joint table of every deal (``ehs2:10:exact``; decks above 32 cards)."""
    kind, _, counts = text.partition(":")
    counts, _, table = counts.partition(":")
    if kind != "ehs2" or not counts:
        raise GameDefinitionError(f"unknown abstraction {text!r}; use ehs2:N or ehs2:N1,N2,... (buckets per round)")
    if not isinstance(game, LimitHoldem):
        raise GameDefinitionError(f"the ehs2 abstraction applies to holdem games, not {game.spec()}")
    try:
        buckets = [int(c) for c in counts.split(",")]
    except ValueError:
        raise GameDefinitionError(f"bucket counts in {text!r} must be integers") from None
    if table not in ("", "exact"):
        raise GameDefinitionError(f"unknown joint table {table!r} in {text!r}; use ehs2:N or ehs2:N:exact")
    return AbstractHoldem(**game.params, buckets=buckets[0] if len(buckets) == 1 else buckets,
                          **({"table": "exact"} if table else {}))
