"""The Koi-Koi blueprint: its file and the agent that plays it (``cfr``); ``learn.blueprint`` trains it.

* ``Blueprint``: the average strategy of ``BlueprintMCCFR`` per abstract key (``solvers.abstraction``),
  stored as arrays (keys, offsets, abstract actions, probabilities) with JSON metadata; one ships with the package
  (``SHIPPED``), trained on single ``nintendo`` rounds.
* ``BlueprintAgent``: reads the abstract key of the acting player's decision, drops actions below ``threshold``
  probability and renormalises (thresholding, Ganzfried & Sandholm 2012: it removes the noise sampled CFR leaves on
  rarely right actions), then samples; a key the blueprint never visited is played by ``GreedyAgent``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.solvers.abstraction import ABSTRACTION_VERSION, DISCARD, decide
from cfrlab.games.koikoi.solvers.blueprint import BlueprintMCCFR

SHIPPED = Path(__file__).parent / "data" / "koikoi_blueprint.npz"
CHECKPOINT = "checkpoint.npz"
BLUEPRINT = "blueprint.npz"
PROGRESS = "progress.jsonl"
DEFAULT_THRESHOLD = 0.15
SAMPLING = {"greedy": "external", "features": "outcome"}
"""MCCFR scheme per play abstraction: external sampling where the traverser has few decisions per round (card
plays collapsed), outcome sampling where every play is a decision (external sampling would be exponential)."""


@dataclass
class Blueprint:
    """Abstract key -> (abstract actions, average-strategy probabilities)."""

    table: dict[str, tuple[tuple[int, ...], np.ndarray]]
    meta: dict[str, Any]

    @classmethod
    def from_solver(cls, solver: BlueprintMCCFR) -> Blueprint:
        table = {}
        for key, s in solver.store.table_strategy.items():
            total = s.sum()
            probs = s / total if total > 0 else np.full(len(s), 1.0 / len(s))
            table[key] = (solver.store.table_actions[key], probs)
        meta = {"abstraction_version": ABSTRACTION_VERSION, "game": solver.game.inner.spec(),
                "plays": solver.game.plays,
                "iterations": solver.iterations, "config": solver.config.to_dict()}
        return cls(table, meta)

    def save(self, path: str | Path) -> None:
        keys = sorted(self.table)
        sizes = [len(self.table[k][0]) for k in keys]
        arrays = {"keys": np.array(keys, dtype=np.str_),
                  "offset": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                  "actions": np.array([a for k in keys for a in self.table[k][0]], dtype=np.int8),
                  "probs": np.array([p for k in keys for p in self.table[k][1]], dtype=np.float32)}
        save_arrays(path, arrays, self.meta)

    @classmethod
    def load(cls, path: str | Path) -> Blueprint:
        arrays, meta = load_arrays(path, "blueprint")
        if "abstraction_version" not in meta or any(name not in arrays for name in BLUEPRINT_ARRAYS):
            raise ValueError(f"{str(path)!r} is not a Koi-Koi blueprint (written by `cfrlab train koikoi`)")
        version = meta["abstraction_version"]
        if type(version) is not int or version != ABSTRACTION_VERSION:
            raise ValueError(f"blueprint {str(path)!r} was trained on abstraction version "
                             f"{version!r}, this cfrlab uses {ABSTRACTION_VERSION}; retrain it")
        _check_arrays(path, arrays, meta)
        off, acts, probs = arrays["offset"], arrays["actions"], arrays["probs"]
        table = {str(k): (tuple(int(a) for a in acts[off[i]:off[i + 1]]), probs[off[i]:off[i + 1]].astype(np.float64))
                 for i, k in enumerate(arrays["keys"])}
        return cls(table, meta)


BLUEPRINT_ARRAYS = ("keys", "offset", "actions", "probs")
_FEATURES = r"(\d{1,2}(?:,\d{1,2})*)"
_KEY = re.compile(rf"P|P[0-2][01][01]:{_FEATURES}|C[35][0-2][01][01]:{_FEATURES}|D\d[0-3][01][0-2][01](s?)")
"""Every key ``abstraction.decide`` writes: the greedy plays' ``P``, PLAY, capture choice, KOI-KOI/STOP."""


def key_actions(key: str, plays: str) -> tuple[int, ...] | None:
    """The abstract actions a row with ``key`` must hold (``abstraction``'s docstring; None: any one card, the
    greedy plays' ``P``); ValueError for a key the abstraction with ``plays`` never writes."""
    m = _KEY.fullmatch(key)
    if m is None or (key[0] == "P" and (key == "P") != (plays == "greedy")):
        raise ValueError(f"key {key!r} is not one the abstraction (plays={plays}) writes")
    if key == "P":
        return None
    if key[0] == "D":
        return (E.STOP,) if m.group(3) else (E.STOP, E.KOIKOI)
    features = tuple(int(f) for f in (m.group(1) or m.group(2)).split(","))
    limit = DISCARD + 4 if key[0] == "P" else DISCARD
    if any(f >= limit for f in features) or list(features) != sorted(set(features)):
        raise ValueError(f"key {key!r} lists features outside 0-{limit - 1} or not in increasing order")
    return features


def _check_arrays(path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Refuse a blueprint file unless every field is what ``Blueprint.save`` writes: the metadata's types, the
    arrays' shapes and dtypes, offsets that cut rows, keys the abstraction writes (once each), each row's actions
    exactly its key's and its probabilities finite, non-negative and summing to 1."""
    def corrupt(why: str) -> ValueError:
        return ValueError(f"blueprint {str(path)!r} is corrupt: {why}")

    plays = meta.get("plays", "features")
    if not isinstance(plays, str) or plays not in SAMPLING:
        raise ValueError(f"blueprint {str(path)!r} has plays={plays!r}; expected one of {', '.join(SAMPLING)}")
    for field, kind in (("game", str), ("iterations", int), ("config", dict)):
        value: Any = meta.get(field, kind())
        other_type = type(value) is not kind  # (apart, so that value stays Any below)
        if other_type or (kind is int and value < 0) or (kind is str and not value.startswith("koikoi")):
            raise corrupt(f"its metadata has {field}={value!r}")
    if "game" in meta:
        blueprint_game(path, meta)
    keys, off, acts, probs = (arrays[name] for name in BLUEPRINT_ARRAYS)
    rows_ok = (keys.ndim == 1 and keys.dtype.kind == "U" and off.ndim == acts.ndim == probs.ndim == 1
               and off.dtype.kind in "iu" and acts.dtype.kind in "iu" and probs.dtype.kind == "f"
               and len(off) == len(keys) + 1 and len(acts) == len(probs) and len(off) > 0 and off[0] == 0
               and off[-1] == len(probs) and bool((np.diff(off) >= 1).all()))
    if not rows_ok:
        raise corrupt("its keys, offset, actions and probs do not line up")
    if not any(str(key).startswith("P") for key in keys.tolist()):  # every round opens with a play: any run has one
        raise corrupt(f"it holds {len(keys)} keys and no play decision (P...), which the shortest training visits; "
                      "it was cut or edited")
    sums = np.add.reduceat(probs.astype(np.float64), off[:-1]) if len(keys) else np.zeros(0)
    if not np.isfinite(probs).all() or (probs < 0).any() or not np.allclose(sums, 1.0, atol=1e-3):
        raise corrupt("a row of probabilities is negative, not finite or does not sum to 1")
    if len(set(keys.tolist())) != len(keys):
        raise corrupt("a key appears twice")
    for i, key in enumerate(keys.tolist()):
        try:
            expected = key_actions(key, plays)
        except ValueError as exc:
            raise corrupt(f"row {i}: {exc}") from None
        row = tuple(int(a) for a in acts[off[i]:off[i + 1]])
        if row != expected and not (expected is None and len(row) == 1 and 0 <= row[0] < C.NUM_CARDS):
            want = "one card 0-47" if expected is None else list(expected)
            raise corrupt(f"row {i} (key {key!r}) has actions {list(row)}; that key's actions are {want}")


class BlueprintAgent:
    """Plays a ``Blueprint`` (module docstring); ``unseen`` counts decisions left to the greedy fallback."""

    def __init__(self, blueprint: Blueprint, threshold: float = DEFAULT_THRESHOLD, name: str = "blueprint") -> None:
        self.blueprint = blueprint
        self.threshold = threshold
        self.name = name
        self.fallback = GreedyAgent()
        self.unseen = 0

    def act(self, state: Any, rng: np.random.Generator) -> int:
        d = decide(state, self.blueprint.meta.get("plays", "features"))
        if len(d.actions) == 1:
            return d.concrete[0]
        row = self.blueprint.table.get(d.key)
        if row is None or row[0] != d.actions:
            self.unseen += 1
            return self.fallback.act(state, rng)
        probs = np.where(row[1] >= self.threshold, row[1], 0.0)
        probs = probs / probs.sum() if probs.sum() > 0 else row[1]
        return d.concrete[int(rng.choice(len(probs), p=probs))]


def blueprint_game(path: str | Path, meta: dict[str, Any]) -> Any:
    """The Koi-Koi game a blueprint's metadata names; ``ValueError`` for a spec that is no Koi-Koi game."""
    from cfrlab.registry import load_game

    try:
        game = load_game(meta.get("game", "koikoi"))
    except ValueError as exc:
        raise ValueError(f"blueprint {str(path)!r} is corrupt: its game {meta.get('game')!r:.60} is not one "
                         f"cfrlab knows ({exc})") from None
    if not hasattr(game, "rules"):
        raise ValueError(f"blueprint {str(path)!r} is corrupt: its game {game.spec()} is not Koi-Koi")
    return game


def load_blueprint(path: str | Path | None = None, game: Any = None) -> Blueprint:
    """Blueprint ``path`` (a directory written by ``cfrlab train`` or a file; None: the shipped one), which must
    have been trained under ``game``'s rules when a game is given (rounds may differ: a match plays rounds)."""
    path = SHIPPED if path is None else Path(path)
    file = path / BLUEPRINT if path.is_dir() else path
    blueprint = Blueprint.load(file)
    trained = blueprint_game(file, blueprint.meta)
    if game is not None and trained.params.get("rules") != game.params.get("rules"):
        raise ValueError(f"blueprint {str(file)!r} was trained under the {trained.params.get('rules')} rules; "
                         f"{game.spec()} plays the {game.params.get('rules')} rules: train one for them "
                         "(cfrlab train GAME)")
    return blueprint


def load_agent(path: str | Path | None = None, game: Any = None) -> BlueprintAgent:
    """The agent of blueprint ``path`` (None: the one shipped with the package) for ``game``'s rules."""
    return BlueprintAgent(load_blueprint(path, game), name="blueprint" if path is None else f"blueprint:{path}")
