"""What every solver shares: one verb (``iterate``), policies, configs, checkpoints.

A solver's ``Config`` is a frozen dataclass holding parameters only; the CLI
builds its flags from it and the same dict goes into strategy files, run logs
and checkpoints. ``state_dict`` holds everything that changes while solving
(arrays and the RNG state), so "run N, save, load, run M" equals "run N+M".
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from cfrlab.checkpoint import CheckpointError, check_checkpoint_meta, load_checkpoint, load_meta, save_checkpoint
from cfrlab.distributed import small_batch_warning
from cfrlab.game import Game
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.finite import check_payoff_scale

if TYPE_CHECKING:
    from cfrlab.tree import GameTree


@dataclasses.dataclass(frozen=True)
class SolverConfig:
    """Base of all solver configs."""

    seed: int = 0
    """Seed of the solver's one random generator (same seed, same result)."""

    RUNTIME_FIELDS: ClassVar[frozenset[str]] = frozenset({"workers", "address"})
    """Fields that say where the work runs, not what it computes: a checkpoint may resume with others."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def result_dict(self) -> dict[str, Any]:
        """``to_dict`` without the ``RUNTIME_FIELDS``: what a checkpoint's result depends on."""
        return {k: v for k, v in self.to_dict().items() if k not in self.RUNTIME_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"{cls.__name__}: unknown option(s) {sorted(unknown)}; known: {sorted(names)}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values)

    def replace(self, **changes: Any) -> Self:
        return dataclasses.replace(self, **changes)

    def require(self, *, unit: tuple[str, ...] = (), positive: tuple[str, ...] = (),
                nonnegative: tuple[str, ...] = ()) -> None:
        """Raise ``ValueError`` naming the first field outside its range: [0, 1], > 0 or >= 0."""
        for names, ok, what in ((unit, lambda v: 0.0 <= v <= 1.0, "in [0, 1]"), (positive, lambda v: v > 0, "positive"),
                                (nonnegative, lambda v: v >= 0, ">= 0")):
            for name in names:
                value = getattr(self, name)
                if not ok(value):
                    raise ValueError(f"{name} must be {what}, got {value}")


class Solver(ABC):
    """A policy-producing solver. Subclasses implement ``_iterate_once`` and the state hooks.

    Besides the one verb, a solver declares what the driver and the CLI ask of it, each with a default
    that fits a tabular solver of the whole game: ``solved_game`` and ``tree`` (where its tables live and
    where exact evaluation runs), ``evaluates_itself`` / ``exact_evaluation`` (games too large to compile),
    and ``workers_warning`` (a worker split too small to pay).
    """

    algorithm: ClassVar[str] = "solver"
    citation: ClassVar[tuple[str, str] | None] = None
    """(what it is, the paper it comes from: authors, year), for ``cfrlab algorithms`` and help."""
    Config: ClassVar[type[SolverConfig]] = SolverConfig
    defaults: ClassVar[Mapping[str, Any]] = {}
    any_payoff_range: ClassVar[bool] = True
    """Whether the solver handles any finite payoff range (tabular ones divide by ``game.payoff_scale``);
    learned ones set False and refuse games outside ``game.NORMAL_PAYOFFS``."""
    """Preset overrides of ``Config``'s defaults (e.g. CFR+ = RM+, alternating, linear averaging)."""
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Named option sets applied over the defaults (``--preset paper``: the settings of the method's paper)."""
    default_iterations: ClassVar[int] = 1000
    """Iterations of ``cfrlab solve`` without ``-n``: enough for the defaults to converge on Kuhn."""
    first_compile_seconds: ClassVar[float | None] = None
    """CPU seconds a first run spends compiling the kernels (solver and evaluation) on a fresh install, as
    ``benchmarks/bench_first_compile.py`` measured them on Leduc: the estimate the progress line shows."""
    preset_sources: ClassVar[Mapping[str, str]] = {}
    """The source of each preset (authors, year, the experiment whose settings it copies)."""
    default_sources: ClassVar[Mapping[str, str]] = {}
    """Where each default comes from, by option name ("*": every option not named); ``--list-options`` shows it."""
    evaluates_itself: ClassVar[bool] = False
    """Whether ``exact_evaluation`` measures the average policy exactly without a compiled tree (a solver of
    a game too large to compile that computes best responses itself); if not, the driver evaluates
    ``solved_policy`` on the compiled tree of ``solved_game``."""
    tree: GameTree | None = None
    """The compiled tree the solver sweeps (None: it walks the game itself); exact evaluation reuses it."""

    def __init__(self, game: Game, config: SolverConfig | None = None, *, preset: str | None = None,
                 **overrides: Any) -> None:
        overrides = {**self.preset_options(preset), **overrides}
        if config is None:
            config = self.Config.from_dict({**self.defaults, **overrides})
        elif overrides:
            config = config.replace(**overrides)
        if not isinstance(config, self.Config):
            raise TypeError(f"{type(self).__name__} needs a {self.Config.__name__}, got {type(config).__name__}")
        check_payoff_scale(game, type(self), self.any_payoff_range)
        self.game = game
        self.solved_game: Game = game
        """The game whose infosets the solver's tables cover: ``game``, or a symmetry quotient it sweeps."""
        self.config = config
        self.iterations = 0

    @classmethod
    def preset_options(cls, name: str | None) -> Mapping[str, Any]:
        """The options of preset ``name`` (None: none); an unknown name raises ``ValueError``."""
        if name is None:
            return {}
        if name not in cls.presets:
            known = ", ".join(sorted(cls.presets)) or "none"
            raise ValueError(f"--algo {cls.algorithm} has no preset {name!r}; presets: {known}")
        return cls.presets[name]

    @classmethod
    def default_source(cls, name: str) -> str:
        """Where the default of option ``name`` comes from: "paper", "measured" (BENCHMARKS.md, "Learned
        defaults") or ours, with the paper's value where it differs."""
        paper = cls.presets.get("paper", {})
        if name in paper:
            default = cls.Config.from_dict(dict(cls.defaults)).to_dict()[name]
            if paper[name] == default or (isinstance(default, tuple) and tuple(paper[name]) == default):
                return "paper"
        label = cls.default_sources.get(name, "measured" if name in paper else cls.default_sources.get("*", "ours"))
        return f"{label} (paper: {paper[name]!r})" if name in paper else label

    def iterate(self, n: int = 1) -> Self:
        """Run ``n`` iterations. Solvers customise the hooks below, never this method."""
        with self._iteration_context():
            self._run_iterations(int(n))
        return self

    def _iteration_context(self) -> contextlib.AbstractContextManager[None]:
        """Entered around each call to ``iterate`` (e.g. the number of torch threads)."""
        return contextlib.nullcontext()

    def _run_iterations(self, n: int) -> None:
        """Run ``n`` iterations one by one; override to run them in batches (one numba call for many)."""
        for _ in range(n):
            self._iterate_once()
            self.iterations += 1

    @abstractmethod
    def _iterate_once(self) -> None: ...

    @abstractmethod
    def current_policy(self) -> TabularPolicy: ...

    @abstractmethod
    def average_policy(self) -> TabularPolicy:
        """The policy that converges (to a Nash equilibrium in two-player zero-sum games)."""

    def solved_policy(self) -> tuple[TabularPolicy, Game]:
        """``average_policy`` as the solver holds it, and the game whose infosets it covers: ``game``, or the
        symmetry quotient a solver swept (strategy files store that; exact evaluation runs on its tree)."""
        return self.average_policy(), self.game

    def exact_evaluation(self) -> dict[str, float]:
        """``{"exploitability": ..., other metrics}`` of the average policy, computed by the solver itself;
        only solvers with ``evaluates_itself`` provide it."""
        raise NotImplementedError(f"{self.algorithm} does not evaluate itself; evaluate its solved_policy exactly")

    def workers_warning(self) -> str | None:
        """A line saying when the worker split cannot pay (too little work per worker per pass), else None.
        The default reads the config's ``workers`` (a ``RUNTIME_FIELDS`` name) and ``batch`` (traversals per
        pass), where it has them."""
        options = self.config.to_dict()
        return small_batch_warning(options.get("workers", 1), options.get("batch"))

    @abstractmethod
    def _state_arrays(self) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None: ...

    def _extra_state(self) -> dict[str, Any]:
        """JSON-able state besides arrays (e.g. the RNG state)."""
        return {}

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        pass

    # state -------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything that changes while solving: ``{"arrays": {...}, "iterations": t, "extra": {...}}``."""
        return {"arrays": {k: v.copy() for k, v in self._state_arrays().items()}, "iterations": self.iterations,
                "extra": self._extra_state()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore ``state_dict``'s output, checked as a strategy file is: an iteration count >= 0, finite
        numbers, and the solver's own invariants (``_check_state_arrays``) before anything is changed."""
        iterations = state["iterations"]
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 0:
            raise ValueError(f"iterations must be an integer >= 0, got {iterations!r:.40}")
        arrays = state["arrays"]
        for name, value in arrays.items():
            value = np.asarray(value)
            if value.dtype.kind in "fc" and not np.isfinite(value).all():
                raise ValueError(f"{name} holds NaN or infinity")
        self._check_state_arrays(arrays)
        self._load_state_arrays(arrays)
        self.iterations = int(iterations)
        self._load_extra_state(state.get("extra", {}))

    def _check_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Raise ``ValueError`` where restored arrays break an invariant of the method (CFR+: regrets >= 0)."""

    def identity(self) -> dict[str, Any]:
        """What a checkpoint must match to be resumed by this solver."""
        return {"algorithm": self.algorithm, "config": self.config.result_dict(),
                "fingerprint": self.game.fingerprint()}

    def save_checkpoint(self, path: str | os.PathLike[str], **meta: Any) -> None:
        """Atomically write the solver state (resumable with ``load_checkpoint``)."""
        state = self.state_dict()
        save_checkpoint(path, state["arrays"], {**self.identity(), "game": self.game.spec(),
                                                "iterations": state["iterations"], "extra": state["extra"], **meta})

    def checkpoint_meta(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The metadata of checkpoint ``path`` (identity, iterations), read without loading its state."""
        meta = load_meta(path, "checkpoint")
        check_checkpoint_meta(path, meta)
        return meta

    def load_checkpoint(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Restore state from ``path``; the algorithm, config and game must match this solver's."""
        arrays, meta = load_checkpoint(path, expect=self.identity())
        try:
            self.load_state_dict({"arrays": arrays, "iterations": meta["iterations"], "extra": meta.get("extra", {})})
        except (KeyError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path} does not fit this solver: {exc}") from exc
        return meta

    def close(self) -> None:
        """Release what the solver holds outside this process (worker pools). ``cfrlab.driver.run`` calls it
        when a run ends, however it ends; the solver stays usable and starts its workers again if asked."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def metadata(self) -> dict[str, Any]:
        """Metadata for strategy files and logs."""
        return {"solver": self.algorithm, "config": self.config.to_dict(), "iterations": self.iterations}
