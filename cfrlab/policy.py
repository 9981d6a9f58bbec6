"""``TabularPolicy``: a behaviour strategy per infoset, held in memory, saved to and loaded from safe files.

Layout (as OpenSpiel's ``TabularPolicy``): ``keys[r]`` is the infoset key of row
``r``; ``probs[r, a]`` the probability of action id ``a``; ``legal_mask[r, a]``
whether ``a`` is legal there. The file format and its checks are ``cfrlab.policy_file``;
loading checks the file's game fingerprint against the game it is used with.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.checkpoint import save_arrays
from cfrlab.policy_file import (
    PolicyFileError,
    check_quotient,
    file_game,
    policy_meta,
    read_policy_arrays,
    read_policy_meta,
)

COVERAGE_CHECK_NODES = 2_000_000
"""Largest tree built only to check a strategy file's infosets and legal actions against its game."""

if TYPE_CHECKING:
    from cfrlab.game import Game
    from cfrlab.tree import GameTree


class TabularPolicy:
    """Action probabilities for a set of infosets, stored as a dense (infosets x max_actions) array."""

    def __init__(self, keys: Sequence[str], probs: NDArray[np.float64], legal_mask: NDArray[np.bool_]):
        """``keys`` is a list, or a game's ``infoset_rows()`` (keys by arithmetic, none held in memory)."""
        probs = np.asarray(probs, dtype=np.float64)
        legal_mask = np.asarray(legal_mask, dtype=bool)
        if probs.shape != legal_mask.shape or probs.ndim != 2 or probs.shape[0] != len(keys):
            raise ValueError(
                f"policy arrays disagree: {len(keys)} keys, probs {probs.shape}, legal_mask {legal_mask.shape}"
            )
        if (probs < -1e-12).any() or (probs[~legal_mask] > 1e-12).any():
            raise ValueError("policy probabilities must be >= 0 and zero on illegal actions")
        sums = probs.sum(axis=1)
        if keys and not np.allclose(sums, 1.0, atol=1e-6):
            bad = int(np.argmax(np.abs(sums - 1.0)))
            raise ValueError(f"policy row {keys[bad]!r} sums to {sums[bad]}, not 1")
        self.probs = probs
        self.legal_mask = legal_mask
        if hasattr(keys, "row_of"):
            self.keys: Sequence[str] = keys
            self.index: Mapping[str, int] = _RowIndex(keys)
            return
        self.keys = list(keys)
        self.index = {k: i for i, k in enumerate(self.keys)}
        if len(self.index) != len(self.keys):
            raise ValueError("policy keys must be unique")

    @property
    def game_rows(self) -> bool:
        """Whether the rows are a game's ``infoset_rows()`` (saved without keys)."""
        return isinstance(self.index, _RowIndex)

    # construction ------------------------------------------------------------------------------
    @classmethod
    def from_sequences(cls, tree: GameTree, seq_probs: NDArray[np.float64]) -> TabularPolicy:
        """Build from one probability per sequence of ``tree``."""
        seq_probs = np.asarray(seq_probs, dtype=np.float64)
        if seq_probs.shape != (tree.num_sequences,):
            raise ValueError(f"expected {tree.num_sequences} sequence probabilities, got {seq_probs.shape}")
        probs = np.zeros((tree.num_infosets, tree.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        probs[tree.sequence_infoset, tree.sequence_action] = seq_probs
        mask[tree.sequence_infoset, tree.sequence_action] = True
        return cls(tree.infoset_keys, probs, mask)

    @classmethod
    def uniform(cls, tree: GameTree) -> TabularPolicy:
        """The uniform random policy over ``tree``'s infosets."""
        counts = np.diff(tree.infoset_offset)
        return cls.from_sequences(tree, 1.0 / counts[tree.sequence_infoset])

    @classmethod
    def random(cls, tree: GameTree, rng: np.random.Generator) -> TabularPolicy:
        """A random policy (Dirichlet(1) rows), for tests."""
        raw = rng.exponential(size=tree.num_sequences)
        sums = np.bincount(tree.sequence_infoset, weights=raw, minlength=tree.num_infosets)
        return cls.from_sequences(tree, raw / sums[tree.sequence_infoset])

    # access ------------------------------------------------------------------------------------
    def to_sequences(self, tree: GameTree, missing: str = "error") -> NDArray[np.float64]:
        """One probability per sequence of ``tree``.

        An infoset of the tree that the policy lacks is an error, or uniform with
        ``missing="uniform"`` (sampling solvers only store the infosets they visited).
        """
        if self.keys is tree.infoset_keys or self.keys == tree.infoset_keys:
            row_of = np.arange(tree.num_infosets)
        else:
            row_of = np.array([self.index.get(k, -1) for k in tree.infoset_keys], dtype=np.int64)
            absent = np.flatnonzero(row_of < 0)
            if absent.size and missing != "uniform":
                raise KeyError(f"policy has no entry for infoset {tree.infoset_keys[absent[0]]!r} of {tree.game_spec}")
        if self.probs.shape[1] < tree.max_actions and tree.sequence_action.max() >= self.probs.shape[1]:
            raise ValueError("policy has fewer action columns than the game's actions")
        rows = row_of[tree.sequence_infoset]
        present = rows >= 0
        out = 1.0 / np.diff(tree.infoset_offset)[tree.sequence_infoset]
        out[present] = self.probs[rows[present], tree.sequence_action[present]]
        if not self.legal_mask[rows[present], tree.sequence_action[present]].all():
            raise ValueError("policy and tree disagree on legal actions")
        return out

    def action_probabilities(self, key: str) -> dict[int, float]:
        """{action: probability} over the legal actions of infoset ``key``."""
        try:
            row = self.index[key]
        except KeyError:
            raise KeyError(f"policy has no infoset {key!r}") from None
        actions = np.flatnonzero(self.legal_mask[row])
        return {int(a): float(self.probs[row, a]) for a in actions}

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: object) -> bool:
        return key in self.index

    def check_fits_game(self, game: Game, max_nodes: int = COVERAGE_CHECK_NODES) -> tuple[int, int] | None:
        """``check_fits`` on ``game``'s tree: (infosets the policy lacks, the tree's infosets), or None where the
        tree has more than ``max_nodes`` nodes (then nothing is checked)."""
        from cfrlab.tree import load_tree

        tree = load_tree(game, max_nodes=max_nodes, or_none=True)
        return None if tree is None else (self.check_fits(tree), tree.num_infosets)

    def check_fits(self, tree: GameTree) -> int:
        """Raise ``PolicyFileError`` unless every row is an infoset of ``tree`` with exactly the game's legal
        actions; return how many of the tree's infosets the policy lacks (they are played uniformly)."""
        width = max(tree.max_actions, self.probs.shape[1])
        game_mask = np.zeros((tree.num_infosets, width), dtype=bool)
        game_mask[tree.sequence_infoset, tree.sequence_action] = True
        row_of = np.array([self.index.get(k, -1) for k in tree.infoset_keys], dtype=np.int64)
        present = np.flatnonzero(row_of >= 0)
        if present.size != len(self.keys):
            extra = sorted(set(self.keys) - set(tree.infoset_keys))
            raise PolicyFileError(f"the strategy has {len(extra)} infosets that {tree.game_spec} does not have, "
                                  f"e.g. {extra[0]!r}")
        mask = np.zeros((len(present), width), dtype=bool)
        mask[:, : self.legal_mask.shape[1]] = self.legal_mask[row_of[present]]
        differs = np.flatnonzero((mask != game_mask[present]).any(axis=1))
        if differs.size:
            i = int(differs[0])
            raise PolicyFileError(
                f"the strategy's legal_mask differs from the game's at {differs.size} infosets, e.g. "
                f"{tree.infoset_keys[present[i]]!r}: legal actions {np.flatnonzero(mask[i]).tolist()} in the file, "
                f"{np.flatnonzero(game_mask[present[i]]).tolist()} in {tree.game_spec}"
            )
        return tree.num_infosets - len(self.keys)

    # symmetry ------------------------------------------------------------------------------------
    def expand(self, game: Game) -> TabularPolicy:
        """This policy of ``game.symmetry_quotient()`` as a policy of ``game``: each quotient row copied to every
        infoset it stands for (``Game.quotient_infosets``), with no tree of ``game`` built."""
        keys: list[str] = []
        rows: list[int] = []
        for row, key in enumerate(self.keys):
            members = game.quotient_infosets(key)
            keys += members
            rows += [row] * len(members)
        index = np.array(rows, dtype=np.int64)
        return TabularPolicy(keys, self.probs[index], self.legal_mask[index])

    def collapse(self, game: Game, atol: float = 1e-12) -> TabularPolicy | None:
        """This policy of ``game`` as a policy of ``game.symmetry_quotient()`` if it is symmetric (every
        infoset of a class present, with rows equal within ``atol``), else None. ``expand``'s inverse."""
        classes: dict[str, list[int]] = {}
        for row, key in enumerate(self.keys):
            classes.setdefault(game.quotient_key(key), []).append(row)
        first = np.array([rows[0] for rows in classes.values()], dtype=np.int64)
        for key, members in classes.items():
            if len(members) != len(game.quotient_infosets(key)):
                return None
        rows = np.concatenate([np.asarray(r, dtype=np.int64) for r in classes.values()])
        heads = np.repeat(first, [len(r) for r in classes.values()])
        if (self.legal_mask[rows] != self.legal_mask[heads]).any() or \
                not np.allclose(self.probs[rows], self.probs[heads], rtol=0.0, atol=atol):
            return None
        return TabularPolicy(list(classes), self.probs[first], self.legal_mask[first])

    # files ---------------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str], game: Game, *, quotient: bool = False, **metadata: Any) -> None:
        """Write the policy atomically with the game's fingerprint and ``metadata``.

        With ``quotient`` the rows are infosets of ``game.symmetry_quotient()`` (a solver that swept it):
        the file records that game too, and ``load`` expands the rows to ``game``'s infosets.
        """
        meta = policy_meta(game, quotient, metadata)
        arrays = {"probs": self.probs, "legal_mask": self.legal_mask}
        if self.game_rows:
            if self.keys != game.infoset_rows():
                raise ValueError(f"the policy's rows are not the infoset rows of {game.spec()}")
            meta["rows"] = "game"  # the keys are the game's infoset_rows(), in order
        else:
            arrays["keys"] = np.array(self.keys, dtype=np.str_)
        save_arrays(path, arrays, meta)

    @classmethod
    def load(cls, path: str | os.PathLike[str], game: Game | None = None,
             expand: bool = True) -> tuple[TabularPolicy, dict[str, Any]]:
        """Read a strategy file; if ``game`` is given, it must be the game the file was made for.

        The metadata is checked against ``policy_file.META_SCHEMA`` and the arrays' declared shapes against the
        file's bytes and the game's action count before any array is read. A file of a symmetry quotient (``save``'s
        ``quotient``) is expanded to the game's infosets (the game is loaded from the file's spec if not given),
        or with ``expand=False`` kept as the quotient's policy once the quotient it names is checked.
        """
        meta = read_policy_meta(path)
        game = file_game(path, meta, game)
        keys, probs, mask = read_policy_arrays(path, meta, game)
        try:
            policy = cls(keys, probs, mask)
        except ValueError as exc:
            raise PolicyFileError(f"{path} is corrupt: {exc}") from exc
        if meta.get("quotient") is not None and meta.get("rows") is None:  # a file of rows is the game's own
            assert game is not None
            check_quotient(path, meta["quotient"], game)
            if expand:
                try:
                    policy = policy.expand(game)
                except ValueError as exc:
                    raise PolicyFileError(f"{path} is corrupt: {exc}") from exc
        return policy, meta

    # OpenSpiel interop -----------------------------------------------------------------------
    def to_openspiel(self, os_game: Any = None, key_fn: Any = None, *, game: Game | None = None) -> Any:
        """This policy as an ``open_spiel.python.policy.TabularPolicy`` of ``os_game``.

        ``key_fn(pyspiel_state, player) -> key`` maps OpenSpiel states to this policy's keys (default: the cfrlab
        OpenSpiel adapter's keys, for a policy of ``openspiel:NAME``). For a policy of a native game, ``game`` is
        that game: each OpenSpiel state's history is replayed in it and keyed there, and ``os_game`` defaults to
        its twin (``Game.openspiel_twin``: Kuhn's ``kuhn_poker``, Leduc's ``leduc_poker``).
        """
        from open_spiel.python import policy as os_policy

        if game is not None:
            from cfrlab.games.openspiel import replayed_key_fn, twin_of

            os_game = twin_of(game) if os_game is None else os_game
            key_fn = key_fn or replayed_key_fn(game)
        if os_game is None:
            raise ValueError("to_openspiel needs the pyspiel game (os_game) or the cfrlab game of the policy (game=)")
        key_fn = key_fn or _adapter_key
        out = os_policy.TabularPolicy(os_game)
        for row in out.state_lookup.values():
            state = out.states[row]
            key = key_fn(state, state.current_player())
            try:
                probs = self.action_probabilities(key)
            except KeyError:
                raise KeyError(f"OpenSpiel's state {state.history()} has key {key!r}, which this policy lacks; for a "
                               "policy of a native cfrlab game pass game=GAME") from None
            out.action_probability_array[row, :] = 0.0
            for a, p in probs.items():
                out.action_probability_array[row, a] = p
        return out

    @classmethod
    def from_openspiel(cls, os_tabular: Any, tree: GameTree, key_fn: Any = None) -> TabularPolicy:
        """Import an OpenSpiel ``TabularPolicy`` onto ``tree`` (keys mapped by ``key_fn``)."""
        key_fn = key_fn or _adapter_key
        probs = np.zeros((tree.num_infosets, tree.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        mask[tree.sequence_infoset, tree.sequence_action] = True
        for row, state in enumerate(os_tabular.states):
            i = tree.infoset_index(key_fn(state, state.current_player()))
            probs[i] = np.where(mask[i], os_tabular.action_probability_array[row, : tree.max_actions], 0.0)
        return cls(tree.infoset_keys, probs, mask)


class _RowIndex(Mapping[str, int]):
    """``TabularPolicy.index`` over a game's ``infoset_rows()``: key -> row by the rows' arithmetic."""

    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def __getitem__(self, key: str) -> int:
        return int(self.rows.row_of(key))

    def __contains__(self, key: object) -> bool:
        try:
            self.rows.row_of(key)
        except (KeyError, TypeError, AttributeError):
            return False
        return True

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def _adapter_key(state: Any, player: int) -> str:
    from cfrlab.games.openspiel import openspiel_key

    return openspiel_key(state, player)
