"""On-disk cache of compiled trees, keyed by the game fingerprint and compiler version.

Location: ``$CFRLAB_CACHE_DIR`` or ``~/.cache/cfrlab/trees``. Writes are atomic;
a corrupt or stale entry is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Literal, overload

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.game import Game, GameDefinitionError
from cfrlab.tree.arrays import GameTree
from cfrlab.tree.compile import COMPILER_VERSION, DEFAULT_MAX_NODES, compile_tree

_SCALARS = ("game_spec", "fingerprint", "num_players", "max_actions", "utility_scale")


def cache_dir() -> Path:
    root = os.environ.get("CFRLAB_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "cfrlab" / "trees"


def cache_path(game: Game) -> Path:
    digest = hashlib.sha256(f"{game.fingerprint()}:{COMPILER_VERSION}".encode()).hexdigest()[:24]
    return cache_dir() / f"{game.name}-{digest}.npz"


def save_tree(tree: GameTree, path: str | os.PathLike[str]) -> None:
    """Write ``tree`` atomically as ``.npz`` with its scalars as metadata."""
    meta = {name: getattr(tree, name) for name in _SCALARS}
    meta["compiler_version"] = COMPILER_VERSION
    save_arrays(path, tree.arrays(), {**meta, "kind": "tree"})


def read_tree(path: str | os.PathLike[str]) -> GameTree:
    """Read a tree written by ``save_tree``."""
    arrays, meta = load_arrays(path, "tree file")
    if meta.get("kind") != "tree" or meta.get("compiler_version") != COMPILER_VERSION:
        raise CheckpointError(f"{path} is not a tree of compiler version {COMPILER_VERSION}")
    keys = [str(k) for k in arrays.pop("infoset_keys")]
    fields: dict[str, Any] = {**{k: meta[k] for k in _SCALARS}, **arrays}
    return GameTree(**fields, infoset_keys=keys)


@overload
def load_tree(game: Game, use_cache: bool = ..., *, max_nodes: int = ...,
              or_none: Literal[False] = ...) -> GameTree: ...
@overload
def load_tree(game: Game, use_cache: bool = ..., *, max_nodes: int = ..., or_none: bool) -> GameTree | None: ...


def load_tree(game: Game, use_cache: bool = True, *, max_nodes: int = DEFAULT_MAX_NODES,
              or_none: bool = False) -> GameTree | None:
    """The compiled tree of ``game``, from the cache when present and valid, else compiled and cached.

    A tree already cached is returned whatever its size; compiling one stops at ``max_nodes`` nodes
    (``TreeTooLarge``). With ``or_none=True`` a game that cannot be enumerated (too large, chance
    outcomes not listed, not a sequential game) gives None instead of an error.
    """
    try:
        return _load_or_compile(game, use_cache, max_nodes)
    except (GameDefinitionError, NotImplementedError, MemoryError):
        if or_none:
            return None
        raise


def _load_or_compile(game: Game, use_cache: bool, max_nodes: int) -> GameTree:
    if not use_cache:
        return compile_tree(game, max_nodes)
    path = cache_path(game)
    if path.exists():
        try:
            tree = read_tree(path)
            if tree.fingerprint == game.fingerprint():
                return tree
        except (CheckpointError, KeyError, TypeError, ValueError):
            pass  # stale or corrupt: rebuild below
    tree = compile_tree(game, max_nodes)
    try:
        save_tree(tree, path)
    except OSError:
        pass  # a read-only cache never stops a solve
    return tree
