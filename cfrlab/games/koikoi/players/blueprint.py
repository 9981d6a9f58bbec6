"""The Koi-Koi blueprint: its file, the agent that plays it (``cfr``), and its training loop with progress.

* ``Blueprint``: the average strategy of ``BlueprintMCCFR`` per abstract key (``solvers.abstraction``),
  stored as arrays (keys, offsets, abstract actions, probabilities) with JSON metadata; one ships with the package
  (``SHIPPED``), trained on single ``nintendo`` rounds.
* ``BlueprintAgent``: reads the abstract key of the acting player's decision, drops actions below ``threshold``
  probability and renormalises (thresholding, Ganzfried & Sandholm 2012: it removes the noise sampled CFR leaves on
  rarely right actions), then samples; a key the blueprint never visited is played by ``GreedyAgent``.
* ``train_blueprint``: runs the solver in slices, checkpoints after each (``Solver.save_checkpoint``, so a run
  resumes exactly), and reports traversals/s, abstract infosets and, every ``eval_seconds``, the arena score against
  ``greedy`` on duplicate deals (``cfrlab.eval.arena``).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.file_checks import output_target
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.solvers.abstraction import ABSTRACTION_VERSION, DISCARD, AbstractKoiKoiGame, decide
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


FIRST_SLICE = 10
"""Iterations of a run's first slice: few, since it pays the first compile and the rate is not known yet."""
SLICE_SECONDS = 10.0
"""Seconds a later slice aims at (by the last slice's rate): progress, and a checkpoint, that often."""
PROBE_DEALS = 2
"""Deals of the first evaluation of a timed run, played to learn the time per deal before any is reserved."""
EVAL_SHARE = 0.25
"""The most of a timed run's budget kept for its final evaluation; fewer deals are played when more is needed."""


def train_blueprint(out: str | Path, iterations: int | None = None, seconds: float | None = None,
                    seed: int = 0, game: str = "koikoi", eval_seconds: float = 180.0, eval_deals: int = 200,
                    slice_iterations: int = 2000, resume: bool = False, plays: str = "greedy",
                    report: Callable[[dict[str, Any]], None] | None = None,
                    say: Callable[[str], None] | None = None,
                    clock: Callable[[], float] = time.monotonic) -> BlueprintMCCFR:
    """Train (or resume) a blueprint into directory ``out`` until ``iterations`` in total or ``seconds`` of this run
    (the final evaluation included); ``plays`` is the play abstraction (``abstraction.decide``).

    Writes ``out/checkpoint.npz`` after every slice (at most ``slice_iterations``, about ``SLICE_SECONDS`` each),
    ``out/blueprint.npz`` and a line per report in ``out/progress.jsonl``; ``say`` hears what a long step is.
    The tables depend only on the seed and the iteration count, never on the slicing, the evaluations or the time."""
    from cfrlab.registry import load_game

    started = clock()
    if iterations is None and seconds is None:
        raise ValueError("give a budget: iterations or seconds")
    inner = load_game(game)
    if inner.name != "koikoi":
        raise ValueError(f"the blueprint trains on full Koi-Koi rounds (koikoi[...]), not {game}")
    out = Path(out)
    if not out.parent.is_dir():
        raise FileNotFoundError(f"cannot write to {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    for name in (CHECKPOINT, BLUEPRINT, PROGRESS):  # a FIFO or device there would block or be replaced
        output_target(out / name, f"--out {out}'s")
    solver = BlueprintMCCFR(AbstractKoiKoiGame(plays=plays, **inner.params), seed=seed, sampling=SAMPLING[plays])
    if resume and (out / CHECKPOINT).exists():
        solver.load_checkpoint(out / CHECKPOINT)
        if iterations is not None and iterations < solver.iterations:
            raise ValueError(f"{out / CHECKPOINT} has {solver.iterations} iterations, more than the {iterations} "
                             "asked for: give a larger total")
    elif not resume and (out / CHECKPOINT).exists():
        raise ValueError(f"{out / CHECKPOINT} exists: pass --resume to continue it, or choose another --out")
    out.mkdir(exist_ok=True)
    _Training(solver, inner, out, iterations, seconds, eval_seconds, eval_deals, slice_iterations, report,
              say or (lambda message: None), clock, started).run()
    return solver


class _Training:
    """The slice loop of ``train_blueprint``: slices sized by the measured rate so that a time budget, the final
    evaluation included, is kept; an arena score against ``greedy`` every ``eval_seconds`` and at the end."""

    def __init__(self, solver: BlueprintMCCFR, inner: Any, out: Path, iterations: int | None, seconds: float | None,
                 eval_seconds: float, eval_deals: int, slice_iterations: int,
                 report: Callable[[dict[str, Any]], None] | None, say: Callable[[str], None],
                 clock: Callable[[], float], started: float) -> None:
        self.solver, self.inner, self.out, self.iterations, self.seconds = solver, inner, out, iterations, seconds
        self.eval_seconds, self.eval_deals, self.slice_iterations = eval_seconds, eval_deals, slice_iterations
        self.report, self.say, self.clock = report, say, clock
        self.start, self.last_eval = started, clock()
        self.done_before = solver.iterations
        self.rate: float | None = None  # iterations per second of the last slice
        self.per_deal: float | None = None  # seconds per evaluation deal, once measured

    def run(self) -> None:
        evaluated_last = False
        while (size := self._next_slice()) > 0:
            if self.rate is None:
                self.say(f"training the first {size} iterations (a first run compiles the kernels) ...")
            began = self.clock()
            self.solver.iterate(size)
            self.rate = size / max(self.clock() - began, 1e-9)
            self.solver.save_checkpoint(self.out / CHECKPOINT)
            evaluated_last = self._periodic_eval_due()
            self._emit(self.eval_deals if evaluated_last else 0)
        Blueprint.from_solver(self.solver).save(self.out / BLUEPRINT)
        if self.eval_deals > 0 and not evaluated_last:
            self._emit(self._final_deals())

    def _left(self) -> float:
        return math.inf if self.seconds is None else self.seconds - (self.clock() - self.start)

    def _reserve(self) -> float:
        """Seconds kept for the final evaluation (a timed run measures the time per deal first)."""
        if self.seconds is None or self.eval_deals == 0:
            return 0.0
        if self.per_deal is None:
            self._evaluate(PROBE_DEALS)
        return min(self.eval_deals * (self.per_deal or 0.0), EVAL_SHARE * self.seconds)

    def _next_slice(self) -> int:
        """Iterations of the next slice: 0 when the count is reached or the time left would not hold one."""
        solver = self.solver
        size = self.slice_iterations if self.iterations is None else \
            min(self.slice_iterations, self.iterations - solver.iterations)
        size = min(size, FIRST_SLICE if self.rate is None else max(1, int(self.rate * SLICE_SECONDS)))
        if self.seconds is not None and self.rate is not None:  # a run trains one slice at least
            size = min(size, int(self.rate * (self._left() - self._reserve())))
        return max(0, size)

    def _periodic_eval_due(self) -> bool:
        """An evaluation every ``eval_seconds``, unless it would eat into the final evaluation's time."""
        now = self.clock()
        if self.eval_deals == 0 or now - self.last_eval < self.eval_seconds:
            return False
        if self.per_deal is not None and self._left() < 2 * self.eval_deals * self.per_deal:
            return False
        self.last_eval = now
        return True

    def _final_deals(self) -> int:
        """The final evaluation's deals: all of ``eval_deals``, or as many as the time left holds (one at least)."""
        if self.seconds is None or self.per_deal is None:
            return self.eval_deals
        return max(1, min(self.eval_deals, int(self._left() / self.per_deal)))

    def _evaluate(self, deals: int) -> Any:
        from cfrlab.eval.arena import arena

        self.say(f"playing {deals} duplicate deals against greedy ...")
        began = self.clock()
        result = arena(self.inner, BlueprintAgent(Blueprint.from_solver(self.solver)), GreedyAgent(), deals=deals,
                       seed=1)
        self.per_deal = (self.clock() - began) / deals
        return result

    def _emit(self, deals: int) -> None:
        """A progress line (with an arena score on ``deals`` deals when > 0), to the file and to ``report``."""
        solver, elapsed = self.solver, self.clock() - self.start
        line: dict[str, Any] = {"iterations": solver.iterations, "seconds": round(elapsed, 1),
                                "traversals_per_s": round(2 * (solver.iterations - self.done_before)
                                                          / max(elapsed, 1e-9), 1),
                                "infosets": len(solver.store.table_regret)}
        if deals > 0:
            res = self._evaluate(deals).return_a
            line["vs_greedy"] = [round(res.mean, 3), round(res.low, 3), round(res.high, 3)]
            line["eval_deals"] = deals
            line["seconds"] = round(self.clock() - self.start, 1)
        with open(self.out / PROGRESS, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        if self.report is not None:
            self.report(line)
