"""The strategy-file format: metadata schema, and the checks a file passes before its arrays are trusted.

A strategy file is an ``.npz`` with JSON metadata inside (``cfrlab.checkpoint``), never pickle. It holds
``keys``, ``probs`` and ``legal_mask``, or only the last two when its rows are the game's ``infoset_rows()``.
``TabularPolicy.save`` and ``TabularPolicy.load`` (``cfrlab.policy``) build on these functions; this module
knows arrays and metadata only, so that the in-memory policy can import it and not the reverse.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.checkpoint import CheckpointError, load_arrays, load_meta

if TYPE_CHECKING:
    from cfrlab.game import Game

FORMAT_VERSION = 1

META_SCHEMA: dict[str, tuple[type, ...]] = {
    "kind": (str,), "format_version": (int,), "game": (str,), "fingerprint": (str,), "game_identity": (dict,),
    "solver": (str,), "iterations": (int,), "exploitability": (int, float), "seconds": (int, float),
    "config": (dict,), "quotient": (dict,), "rows": (str,),
}
"""Types of the metadata entries a strategy file may hold (each may be absent or null, but kind, game and
fingerprint are required)."""


class PolicyFileError(ValueError):
    """A strategy file that is corrupt, truncated, or made for another game."""


def policy_meta(game: Game, quotient: bool, metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata ``TabularPolicy.save`` writes: format, ``game``'s spec, fingerprint and identity, then
    ``metadata``; with ``quotient`` also the spec and fingerprint of ``game.symmetry_quotient()``."""
    meta = {
        "kind": "policy",
        "format_version": FORMAT_VERSION,
        "game": game.spec(),
        "fingerprint": game.fingerprint(),
        "game_identity": game.identity(),
        **metadata,
    }
    if quotient:
        small = game.symmetry_quotient()
        if small is None:
            raise ValueError(f"{game.spec()} declares no symmetry quotient")
        meta["quotient"] = {"game": small.spec(), "fingerprint": small.fingerprint()}
    return meta


def read_policy_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata of strategy file ``path``, checked against ``META_SCHEMA`` (no array is read)."""
    try:
        meta = load_meta(path, "strategy file")
    except CheckpointError as exc:
        raise PolicyFileError(str(exc)) from exc
    if meta.get("kind") != "policy":
        raise PolicyFileError(f"{path} is not a strategy file (kind={meta.get('kind')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise PolicyFileError(f"{path} has format version {meta.get('format_version')!r}, expected {FORMAT_VERSION}")
    for name, types in META_SCHEMA.items():
        value = meta.get(name)
        if value is None and name not in ("game", "fingerprint"):
            continue
        if not isinstance(value, types) or isinstance(value, bool):
            wanted = " or ".join(t.__name__ for t in types)
            raise PolicyFileError(f"{path} has invalid metadata: {name} must be {wanted}, got {value!r:.80}")
    if not 0 < len(meta["game"]) <= 1000 or len(meta["fingerprint"]) > 64:
        raise PolicyFileError(f"{path} has invalid metadata: game spec or fingerprint of implausible length")
    return meta


def file_game(path: str | os.PathLike[str], meta: dict[str, Any], game: Game | None) -> Game | None:
    """The game to read the file with: ``game``, which must be the one the file was made for; if not given, the
    game its spec names when the file needs it (a quotient's or one of infoset rows), else None."""
    if (meta.get("quotient") is not None or meta.get("rows") is not None) and game is None:
        from cfrlab.registry import load_game

        game = load_game(meta["game"])
    if game is not None and meta["fingerprint"] != game.fingerprint():
        raise PolicyFileError(f"{path} holds a strategy for {meta['game']!r}, not for {game.spec()!r} "
                              f"({_identity_difference(meta, game)}); load it with the game it was computed for")
    return game


def read_policy_arrays(path: str | os.PathLike[str], meta: dict[str, Any],
                       game: Game | None) -> tuple[Sequence[str], NDArray[np.float64], NDArray[np.bool_]]:
    """The file's (keys, probs, legal_mask), checked for kind, dtype, finiteness and the game's action count;
    for a file of the game's infoset rows the keys are ``game.infoset_rows()``."""
    try:
        arrays, _ = load_arrays(path, "strategy file")
    except CheckpointError as exc:
        raise PolicyFileError(str(exc)) from exc
    keys, probs, mask = (arrays.get(name) for name in ("keys", "probs", "legal_mask"))
    if meta.get("rows") is not None:
        assert game is not None
        return _game_rows_arrays(path, game, meta, keys, probs, mask)
    if keys is None or probs is None or mask is None:
        raise PolicyFileError(f"{path} is corrupt: it needs the arrays keys, probs and legal_mask")
    if keys.ndim != 1 or keys.dtype.kind != "U" or probs.dtype.kind != "f" or mask.dtype != np.bool_:
        raise PolicyFileError(f"{path} is corrupt: keys must be text, probs floats and legal_mask booleans "
                              f"(got {keys.dtype}, {probs.dtype}, {mask.dtype})")
    if not np.isfinite(probs).all():
        raise PolicyFileError(f"{path} is corrupt: probs holds NaN or infinity")
    if game is not None and probs.ndim == 2 and probs.shape[1] != game.max_actions:
        raise PolicyFileError(f"{path} has {probs.shape[1]} action columns, but {game.spec()} has "
                              f"{game.max_actions} actions")
    return [str(k) for k in keys], probs, mask


def check_quotient(path: Any, quotient: dict[str, Any], game: Game) -> None:
    """Raise ``PolicyFileError`` unless the quotient a file names (its ``quotient`` metadata) is ``game``'s own."""
    small = game.symmetry_quotient()
    if small is None or quotient.get("fingerprint") != small.fingerprint():
        raise PolicyFileError(f"{path} holds a strategy of the quotient {quotient.get('game')!r}, which is not "
                              f"the symmetry quotient of {game.spec()}")


def _game_rows_arrays(path: Any, game: Game, meta: dict[str, Any], keys: Any, probs: Any,
                      mask: Any) -> tuple[Any, Any, Any]:
    """A file whose rows are ``game.infoset_rows()``: arrays checked against the game's rows and actions."""
    rows = game.infoset_rows()
    if meta["rows"] != "game" or rows is None:
        raise PolicyFileError(f"{path} is corrupt: rows={meta['rows']!r} (only 'game', for games with "
                              f"infoset rows; {game.spec()} has none)")
    if keys is not None or probs is None or mask is None:
        raise PolicyFileError(f"{path} is corrupt: a file of the game's infoset rows holds the arrays probs and "
                              "legal_mask, and no keys")
    expected = (len(rows), game.max_actions)
    if probs.shape != expected or mask.shape != expected or probs.dtype.kind != "f" or mask.dtype != np.bool_:
        raise PolicyFileError(f"{path} is corrupt: probs and legal_mask must be {expected[0]} x {expected[1]} "
                              f"floats and booleans for {game.spec()}, got {probs.shape} {probs.dtype} and "
                              f"{mask.shape} {mask.dtype}")
    if not np.isfinite(probs).all():
        raise PolicyFileError(f"{path} is corrupt: probs holds NaN or infinity")
    if not np.array_equal(mask, rows.legal_mask()):  # type: ignore[attr-defined]
        raise PolicyFileError(f"{path} is corrupt: its legal_mask differs from the legal actions of {game.spec()}")
    return rows, probs, mask


def _identity_difference(meta: dict[str, Any], game: Game) -> str:
    """What differs between the game a file was made for and ``game``: parameters, rules version or both."""
    from cfrlab.checkpoint import field_differences, json_default

    here = json.loads(json.dumps(game.identity(), default=json_default))
    file_identity = meta.get("game_identity")
    if isinstance(file_identity, dict):
        diffs = field_differences(file_identity, here)
        if diffs:
            return "; ".join(f"{name.removeprefix('params.')}: {old!r} in the file, {new!r} here"
                             for name, old, new in diffs)
    return (f"fingerprint {meta['fingerprint']} in the file, {game.fingerprint()} here: the file was made with "
            "other game parameters or another version of the game's rules, or was edited")
