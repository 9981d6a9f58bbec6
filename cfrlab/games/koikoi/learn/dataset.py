"""Self-play shards: the decisions the search made, written a few thousand at a time, read back as shuffled batches.

A shard is one ``.npz`` of ``checkpoint.save_arrays`` (written atomically, arrays stored uncompressed, metadata as
JSON inside; ``load_arrays`` refuses truncated files and headers that declare more than the file holds). One row per
decision with two or more legal actions, the arrays of ``FIELDS``:

* ``features`` int16 (n, ``MAX_ACTIVE``): the active ``features.encode`` indices of the mover's view, ascending,
  padded with -1;
* ``legal`` uint64: the legal actions as a bit mask (bit a for action a, ``engine.NUM_ACTIONS`` = 50);
* ``values`` float16 (n, 50): the search's mean value of each legal action (the round points it expects for the
  mover, or under the match objective at a koi-koi decision the match-win probability: ``meta["objective"]``),
  NaN where illegal, and at the legal actions a search pruned (``SearchConfig.prune``) without valuing them;
* ``choice`` int8: the action the search chose; ``mover`` int8: the seat that chose it;
* ``points`` float32: the round's final points from the mover's view (+ won, - lost, 0 void);
* ``match_win`` int8: 1 the mover won the match, 0 lost it, -1 unknown (single rounds) or drawn;
  ``match_score`` float32: 1, 0, 1/2 for a drawn match (as ``match.MatchTable`` counts it), NaN unknown.

The metadata holds ``format`` (``FORMAT``), ``version`` (``VERSION``), ``num_features``, ``max_active`` and
``decisions`` (checked on reading) and what made the shard (rules, agent, seed, shard index: ``selfplay``).
``read_shard`` checks every field before anything uses it: a crafted, truncated or foreign file is one
``ValueError`` line. ``batches`` streams shards through a bounded shuffle buffer: never the whole data in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import CheckpointError, load_arrays, save_arrays
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, NUM_FEATURES
from cfrlab.games.koikoi.rules.engine_state import NUM_ACTIONS

FORMAT = "cfrlab-koikoi-selfplay"
VERSION = 1
FIELDS: dict[str, tuple[type, tuple[int, ...]]] = {
    "features": (np.int16, (MAX_ACTIVE,)), "legal": (np.uint64, ()), "values": (np.float16, (NUM_ACTIONS,)),
    "choice": (np.int8, ()), "mover": (np.int8, ()), "points": (np.float32, ()), "match_win": (np.int8, ()),
    "match_score": (np.float32, ()),
}
"""Name: (dtype, shape of one row)."""
SHARD_GLOB = "shard-*.npz"
DEFAULT_BUFFER = 65536


def shard_name(index: int) -> str:
    """The file name of shard ``index`` in its folder."""
    return f"shard-{index:05d}.npz"


def write_shard(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Write one shard (atomically); ``arrays`` as ``FIELDS``, ``meta`` what made it (JSON)."""
    n = len(arrays["choice"])
    rows: dict[str, np.ndarray] = {name: np.ascontiguousarray(arrays[name], dtype=dtype).reshape((n, *shape))
            for name, (dtype, shape) in FIELDS.items()}
    save_arrays(path, rows, {**meta, "format": FORMAT, "version": VERSION, "num_features": NUM_FEATURES,
                             "max_active": MAX_ACTIVE, "decisions": n})


def read_shard(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata of a shard, every field checked (``ValueError``, one line, naming the file)."""
    arrays, meta = load_arrays(path, "shard")
    where = f"shard {str(path)!r}"
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{where} is not a Koi-Koi self-play shard (format {meta.get('format')!r:.40})")
    if meta.get("version") != VERSION:
        raise CheckpointError(f"{where} has version {meta.get('version')!r:.20}; this cfrlab reads version {VERSION}")
    layout = (meta.get("num_features"), meta.get("max_active"))
    if layout != (NUM_FEATURES, MAX_ACTIVE):
        raise CheckpointError(f"{where} holds features of another layout ({layout[0]!r:.20} features, "
                              f"{layout[1]!r:.20} active; this cfrlab: {NUM_FEATURES}, {MAX_ACTIVE})")
    problem = _problem(arrays, meta.get("decisions"))
    if problem:
        raise CheckpointError(f"{where} is corrupt: {problem}")
    return arrays, meta


def _problem(arrays: Mapping[str, np.ndarray], decisions: Any) -> str | None:
    """What is wrong with the arrays of a shard (None: nothing)."""
    if set(arrays) != set(FIELDS):
        return f"its arrays are {sorted(arrays)}, not {sorted(FIELDS)}"
    if type(decisions) is not int:
        return f"decisions is {decisions!r:.40}, not an integer"
    for name, (dtype, shape) in FIELDS.items():
        a = arrays[name]
        if a.dtype != dtype or a.shape != (decisions, *shape):
            return f"{name} is {a.dtype}{list(a.shape)}, not {np.dtype(dtype)}{[decisions, *shape]}"
    f, legal, choice = arrays["features"].astype(np.int64), arrays["legal"], arrays["choice"].astype(np.int64)
    active = f >= 0
    if f.min(initial=0) < -1 or f.max(initial=0) >= NUM_FEATURES or not active[:, 0].all() or (
            active[:, 1:] & ~active[:, :-1]).any() or ((np.diff(f, axis=1) <= 0) & active[:, 1:]).any():
        return "features are not ascending indices below NUM_FEATURES padded with -1"
    bits = (legal[:, None] >> np.arange(NUM_ACTIONS, dtype=np.uint64)) & np.uint64(1)
    if (legal >> np.uint64(NUM_ACTIONS)).any() or (bits.sum(axis=1) < 2).any():
        return "a legal mask has fewer than two actions or actions above 49"
    if (choice < 0).any() or (choice >= NUM_ACTIONS).any() or not bits[np.arange(decisions), choice.clip(0)].all():
        return "a choice is not a legal action"
    finite = np.isfinite(arrays["values"])
    if (finite & ~bits.astype(bool)).any() or not finite[np.arange(decisions), choice.clip(0)].all() or (
            np.isinf(arrays["values"])).any():
        return "values are set at illegal actions, or the choice's value is missing"
    win, score = arrays["match_win"], arrays["match_score"]
    expected = np.where(win == 1, 1.0, np.where(win == 0, 0.0, np.nan))
    drawn = score == 0.5
    if ~np.isin(arrays["mover"], (0, 1)).all() or not np.isfinite(arrays["points"]).all() or \
            ~np.isin(win, (-1, 0, 1)).all() or not np.array_equal(np.where(drawn, np.nan, score), expected,
                                                                  equal_nan=True) or (drawn & (win != -1)).any():
        return "mover, points or match results out of range"
    return None


def shard_paths(folders: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[Path]:
    """The shards of ``folders`` (one folder or several), sorted by folder then name."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    paths: list[Path] = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"shard folder {str(folder)!r} does not exist or is not a folder")
        paths += sorted(folder.glob(SHARD_GLOB))
    return paths


def batches(folders: Iterable[str | os.PathLike[str]] | str | os.PathLike[str], batch_size: int, seed: int = 0,
            buffer: int = DEFAULT_BUFFER, epochs: int = 1) -> Iterator[dict[str, np.ndarray]]:
    """Batches (dicts of ``FIELDS`` arrays, ``batch_size`` rows; the last of each epoch may be smaller) of every
    decision in the shards of ``folders``, ``epochs`` times, each epoch in a new order: shards in a shuffled order
    stream into a buffer of at most ``buffer`` rows (plus one shard); when it is full, it is shuffled and all but
    half of it goes out. Same seed, same batches."""
    if batch_size < 1 or buffer < 1 or epochs < 0:
        raise ValueError(f"batch_size and buffer must be >= 1 and epochs >= 0, got {batch_size}, {buffer}, {epochs}")
    paths = shard_paths(folders)
    if not paths:
        raise ValueError(f"no shards ({SHARD_GLOB}) in the folders given")
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        pool: dict[str, np.ndarray] | None = None
        for i in rng.permutation(len(paths)):
            rows = read_shard(paths[i])[0]
            pool = rows if pool is None else {k: np.concatenate([pool[k], rows[k]]) for k in FIELDS}
            if len(pool["choice"]) >= buffer:
                pool = _shuffled(pool, rng)
                out = (len(pool["choice"]) - buffer // 2) // batch_size * batch_size
                yield from _split(pool, 0, out, batch_size)
                pool = {k: v[out:] for k, v in pool.items()}
        if pool is not None:
            pool = _shuffled(pool, rng)
            yield from _split(pool, 0, len(pool["choice"]), batch_size)


def _shuffled(pool: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, np.ndarray]:
    order = rng.permutation(len(pool["choice"]))
    return {k: v[order] for k, v in pool.items()}


def _split(pool: dict[str, np.ndarray], start: int, stop: int, size: int) -> Iterator[dict[str, np.ndarray]]:
    for s in range(start, stop, size):
        yield {k: v[s:min(s + size, stop)] for k, v in pool.items()}
