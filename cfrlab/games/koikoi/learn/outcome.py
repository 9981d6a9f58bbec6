"""Learning a Koi-Koi policy from the outcomes of self-play (``cfrlab train koikoi --method dmc|ppo``).

A run is a sequence of iterations (Zha et al. 2021, "DouZero", Algorithm 1, with its actors and learner taking
turns): iteration k plays ``rounds`` single rounds with the current network (``rollout.play_shard``: the learner
explores; its opponents are itself, ``greedy`` or a past snapshot from the pool, so it does not overfit itself), in
``SHARDS`` shards whose seeds are drawn from (seed, k, shard), then fits the network on the rows of those rounds
(``objective.Fitter``: DMC's action values or PPO's clipped policy, targets the rounds' final points or, with
``td_lambda`` below 1, their lambda-returns; with
``objective`` "match", afterstate values of the match-win probability, each round given a place in a match) with a
batch order drawn from (seed, k). Every ``pool_every`` iterations the network joins the pool
(``OUT/pool/it_KKKKKK.npz``; the ``pool_size`` newest are drawn, and of older ones every ``KEEP_EVERY``-th
iteration's file is kept). Every ``eval_seconds`` and at the end, the arena (``cfrlab.eval.arena``, duplicate deals,
95 % interval, the same deals each time) of the ``net`` agent against ``greedy`` on single rounds.

After every iteration the run writes ``OUT/weights.npz`` (the network: the exponential moving average of the fitted
weights over ``average`` iterations, or the fitted weights; ``net:OUT`` plays it), ``OUT/checkpoint.npz``
(the fitted network, the average, Adam's moments, where the run stands; atomic) and a line of
``OUT/progress.jsonl``. ``resume`` continues and gives bit for bit what an uninterrupted run gives (on the CPU:
the rows depend on the seed and the network only, never on the workers or the clock; the arena scores are not part
of the training).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from cfrlab.file_checks import output_folder, output_subfolder
from cfrlab.games.koikoi.learn.exit_config import koikoi_game, round_game, seed_of
from cfrlab.games.koikoi.learn.objective import HEAD_OF, Fitter, from_file, to_file, win_from_points
from cfrlab.games.koikoi.learn.outcome_config import SHARDS, OutcomeConfig, check_config
from cfrlab.games.koikoi.learn.rollout import ROW_FIELDS, play_shard
from cfrlab.games.koikoi.neural.act import HEAD_AFTER, file_head
from cfrlab.games.koikoi.neural.weights import NetWeights, load_weights, save_weights
from cfrlab.games.koikoi.rules.match import MatchTable, level_slope, match_rules, match_table

CHECKPOINT, WEIGHTS, PROGRESS, POOL = "checkpoint.npz", "weights.npz", "progress.jsonl", "pool"
FORMAT, VERSION = "cfrlab.koikoi.outcome", 1
EVAL_SEED = 1
FIT_STREAM = 1 << 20
"""The seed path's second entry of an iteration's fit (shards use 0 .. SHARDS - 1)."""
KEEP_EVERY = 100
"""Snapshots of iterations that are multiples of this stay in ``OUT/pool/`` after leaving the pool (a curve)."""
EVAL_SHARE = 0.25
"""The most of a timed run's budget kept for its final arena score."""
_NET_ARRAYS = tuple(f"net_{k}" for k in NetWeights._fields)
_AVG_ARRAYS = tuple(f"avg_{k}" for k in NetWeights._fields)


@dataclass
class State:
    """Where a run stands: what the checkpoint holds besides the arrays."""

    iteration: int = 0
    rounds: int = 0
    rows: int = 0
    play_seconds: float = 0.0
    fit_seconds: float = 0.0
    score_seconds: float = 0.0
    pool: list[int] = field(default_factory=list)
    """Iterations whose snapshot is in the pool (the ``pool_size`` newest), oldest first."""
    scores: dict[str, list[float]] = field(default_factory=dict)
    """Iteration -> arena [mean, low, high, deals] against greedy (points a round)."""
    losses: dict[str, float] = field(default_factory=dict)
    vs_greedy: float | None = None
    """The learner's mean points against greedy in the last iteration's rounds (exploring)."""
    vs_search: float | None = None
    """The same against the search opponent (``search_share``), None without it."""


class OutcomeRun:
    """The iterations of a run writing into ``out`` (module docstring)."""

    def __init__(self, out: str | Path, config: OutcomeConfig, seed: int = 0, workers: int = 1,
                 say: Callable[[str], None] | None = None, device: str | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        check_config(config)
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.out, self.config, self.seed, self.workers = Path(out), config, seed, workers
        self.game = koikoi_game(config.game)
        self.say = say or (lambda message: None)
        self.state = State()
        self.device, self.clock = device, clock
        self.fitter: Fitter | None = None
        self.average: NetWeights | None = None
        self._pool: dict[int, NetWeights] = {}
        self.head = file_head(HEAD_OF[config.method], config.objective)
        """The head code the run's files are played by (``neural.act``)."""
        self.match: MatchTable | None = None
        """The match table whose values a run for the match learns (``prepare`` builds it)."""
        self.search_decide: np.ndarray | None = None
        """The search opponent's koi-koi table (``search_agent`` cfr: the shipped blueprint's; ``prepare``)."""

    def identity(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "seed": self.seed, "config": self.config.to_dict()}

    def prepare(self, resume: bool) -> None:
        """Check ``out``; load the checkpoint on ``resume`` (refuse to overwrite a run without it); build the net."""
        from cfrlab.games.koikoi.learn.model import KoiKoiNet
        from cfrlab.games.koikoi.neural.features import NUM_FEATURES

        out = self.out
        if self.config.search_agent == "cfr":
            from cfrlab.games.koikoi.players.blueprint import load_blueprint
            from cfrlab.games.koikoi.players.cfr import decide_table

            if self.game.name != "koikoi":
                raise ValueError(f"--search-agent cfr plays full Koi-Koi (koikoi[...]), not {self.game.name!r}")
            self.search_decide = decide_table(load_blueprint(None, self.game))
        output_folder(out, (CHECKPOINT, WEIGHTS, PROGRESS))
        arrays: dict[str, np.ndarray] = {}
        if (out / CHECKPOINT).exists():
            if not resume:
                raise ValueError(f"{out / CHECKPOINT} exists: pass --resume to continue it, or choose another --out")
            arrays = self._load()
        elif resume:
            raise ValueError(f"--resume: {out / CHECKPOINT} does not exist; start the run without --resume")
        output_subfolder(out, out / POOL)
        if self.config.objective == "match":
            self.match = match_table(match_rules(self.game.rules))
        if arrays:
            net = from_file(NetWeights(*(arrays[k] for k in _NET_ARRAYS)), self.config.method)
        elif self.config.init is not None:
            net = from_file(initial_weights(self.config, self.match), self.config.method)
        else:
            net = KoiKoiNet(NUM_FEATURES, self.config.hidden, generator=np.random.default_rng(seed_of(self.seed)))
        self.fitter = Fitter(net, self.config.method, self.config.lr, self.device, objective=self.config.objective)
        self.fitter.restore(arrays)
        if self.config.average:
            self.average = self._resumed_average(arrays) if arrays else NetWeights(*map(np.copy, self.live()))

    def _load(self) -> dict[str, np.ndarray]:
        path = self.out / CHECKPOINT
        arrays, meta = load_checkpoint(path, self.identity())
        try:
            state = State(**meta["state"])
            ok = type(state.iteration) is int and state.iteration >= 0 and all(
                (self.out / POOL / pool_name(k)).is_file() for k in state.pool)
        except (KeyError, TypeError) as exc:
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: {exc}") from None
        if not ok or not set(_NET_ARRAYS) <= set(arrays):
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or its pool's snapshots are missing")
        self.state = state
        return arrays

    def _resumed_average(self, arrays: dict[str, np.ndarray]) -> NetWeights:
        """The checkpoint's moving average, refused in one line unless it has the live network's shapes."""
        live = self.live()
        if not set(_AVG_ARRAYS) <= set(arrays) or any(
                arrays[k].shape != v.shape or arrays[k].dtype != v.dtype for k, v in zip(_AVG_ARRAYS, live)):
            raise CheckpointError(f"checkpoint {str(self.out / CHECKPOINT)!r} is corrupt: its weights' average is "
                                  "missing or of another network")
        return NetWeights(*(arrays[k] for k in _AVG_ARRAYS))

    def live(self) -> NetWeights:
        """The network being fitted, as its file holds it (self-play acts with it); arrays may share the
        parameters' memory, which the next fit changes."""
        assert self.fitter is not None
        return to_file(self.fitter.net, self.config.method)

    def weights(self) -> NetWeights:
        """The run's network: the moving average of the live weights (``OutcomeConfig.average``), or them."""
        return self.average if self.average is not None else self.live()

    def _average(self) -> None:
        """One step of the weights' moving average, its decay warmed up over the first iterations (``(1 + k) /
        (10 + k)``, as common EMA schedules do) so that the initial weights fade within a few iterations."""
        if self.average is None:
            return
        k = self.state.iteration
        decay = np.float32(min(1.0 - 1.0 / self.config.average, (1.0 + k) / (10.0 + k)))
        self.average = NetWeights(*(decay * a + (np.float32(1.0) - decay) * b
                                    for a, b in zip(self.average, self.live(), strict=True)))

    def _save(self) -> None:
        assert self.fitter is not None
        w = self.weights()
        meta = {"head": HEAD_OF[self.config.method], "method": self.config.method, "objective": self.config.objective,
                "game": self.game.spec(), "iteration": self.state.iteration}
        save_weights(self.out / WEIGHTS, w, **meta)
        if self.state.pool and self.state.pool[-1] == self.state.iteration:  # a file planted there is replaced
            save_weights(self.out / POOL / pool_name(self.state.iteration), w, **meta)
        arrays = {**{f"net_{k}": v for k, v in self.live()._asdict().items()}, **self.fitter.state()}
        if self.average is not None:
            arrays.update({f"avg_{k}": v for k, v in self.average._asdict().items()})
        save_checkpoint(self.out / CHECKPOINT, arrays, {**self.identity(), "state": asdict(self.state)})

    def pool(self) -> list[tuple[NetWeights, int]]:
        """The opponents' networks of the pool's ``pool_size`` newest snapshots."""
        members = self.state.pool
        for k in members:
            if k not in self._pool:
                self._pool[k] = load_weights(self.out / POOL / pool_name(k))[0]
        return [(self._pool[k], self.playing()) for k in members]

    def playing(self) -> int:
        """The head code the networks play by in this iteration: the points values during ``warmup``."""
        return HEAD_AFTER if self.state.iteration < self.config.warmup else self.head

    def iterate(self) -> None:
        """Play one iteration's rounds, fit on their rows, snapshot into the pool when due, checkpoint."""
        assert self.fitter is not None
        st, cfg = self.state, self.config
        began = self.clock()
        learner, pool = self.live(), self.pool()
        sizes = [cfg.rounds // SHARDS + (i < cfg.rounds % SHARDS) for i in range(SHARDS)]
        items = [(self.game.rules, learner, self.playing(), pool, sizes[i], seed_of(self.seed, st.iteration, i),
                  float(cfg.explore or 0.0), cfg.self_share, self.match, cfg.td_lambda, cfg.search_share,
                  cfg.search_rollouts, self.search_decide)
                 for i in range(SHARDS) if sizes[i]]
        results = list(_map(items, self.workers))
        rows = {k: np.concatenate([r[0][k] for r in results]) for k in ROW_FIELDS}
        greedy = [r[1]["vs_greedy"] for r in results if "vs_greedy" in r[1]]
        search = [r[1]["vs_search"] for r in results if "vs_search" in r[1]]
        played = self.clock()
        rng = np.random.default_rng(seed_of(self.seed, st.iteration, FIT_STREAM))
        losses = self.fitter.fit(rows, cfg.batch, cfg.epochs, rng)
        st.play_seconds += played - began
        st.fit_seconds += self.clock() - played
        st.iteration += 1
        self._average()
        st.rounds += cfg.rounds
        st.rows += len(rows["action"])
        st.losses = {k: round(v, 5) for k, v in losses.items()}
        st.vs_greedy = round(float(np.mean(greedy)), 4) if greedy else None
        st.vs_search = round(float(np.mean(search)), 4) if search else None
        if st.iteration % cfg.pool_every == 0:
            st.pool.append(st.iteration)
        left = st.pool[:-cfg.pool_size]
        st.pool = st.pool[-cfg.pool_size:]
        self._save()
        for k in left:  # out of the pool: its file goes, but for one every KEEP_EVERY iterations (the curve)
            self._pool.pop(k, None)
            if k % KEEP_EVERY:
                (self.out / POOL / pool_name(k)).unlink(missing_ok=True)

    def score(self, deals: int) -> None:
        """The arena of the network against greedy on ``deals`` duplicate single rounds."""
        from cfrlab.eval.arena import arena
        from cfrlab.games.koikoi.players.greedy import GreedyAgent
        from cfrlab.games.koikoi.players.net import NetAgent

        began = self.clock()
        agent = NetAgent(self.weights(), self.head, f"iteration {self.state.iteration}")
        res = arena(round_game(self.game), agent, GreedyAgent(), deals=deals, seed=EVAL_SEED).points_per_round_a
        seconds = self.clock() - began
        st = self.state
        st.score_seconds += seconds
        st.scores[str(st.iteration)] = [round(res.mean, 4), round(res.low, 4), round(res.high, 4), deals]
        self._save()


def initial_weights(config: OutcomeConfig, match: MatchTable | None = None) -> NetWeights:
    """The weights ``config.init`` names, refused in one line unless they are of the run's head and widths; a points
    file starting a run for the match (``match``: its table) has its win output set from its points output
    (``objective.win_from_points``)."""
    from cfrlab.games.koikoi.players.net import weights_file

    assert config.init is not None
    weights, meta = load_weights(weights_file(config.init))
    head = HEAD_OF[config.method]
    if meta.get("head") != head or tuple(weights.hidden) != tuple(config.hidden):
        raise ValueError(f"--init {config.init}: its network has head {meta.get('head')!r:.20} and widths "
                         f"{list(weights.hidden)}, --method {config.method} needs head {head!r} and widths "
                         f"{list(config.hidden)} (--hidden)")
    if match is not None and meta.get("objective", "points") == "points":
        weights = win_from_points(weights, level_slope(match))
    return weights


def pool_name(iteration: int) -> str:
    return f"it_{iteration:06d}.npz"


def _map(items: list[tuple], workers: int):  # an iterator
    """``play_shard(*item)`` for each item, in order: in this process or in the kept worker processes."""
    if workers == 1 or len(items) <= 1:
        yield from (play_shard(*item) for item in items)
        return
    from cfrlab.games.koikoi.learn.selfplay import _processes

    yield from _processes(workers).map(play_shard, *zip(*items))


def train_outcomes(out: str | Path, config: OutcomeConfig | None = None, iterations: int | None = None,
                   seconds: float | None = None, seed: int = 0, workers: int = 1, resume: bool = False,
                   eval_seconds: float = 180.0, report: Callable[[dict[str, Any]], None] | None = None,
                   say: Callable[[str], None] | None = None, device: str | None = None,
                   clock: Callable[[], float] = time.perf_counter) -> State:
    """Run (or resume) into ``out`` until ``iterations`` in all or ``seconds`` of this run have passed by ``clock``
    (the final arena score included); returns where the run stands."""
    started = clock()
    if iterations is None and seconds is None:
        raise ValueError("give a budget: --hours H or --iterations N")
    run = OutcomeRun(out, config or OutcomeConfig(), seed, workers, say, device, clock)
    run.prepare(resume)
    if iterations is not None and run.state.iteration > iterations:
        raise ValueError(f"{run.out / CHECKPOINT} has {run.state.iteration} iterations, more than the {iterations} "
                         "asked for: give a larger total")
    _Loop(run, iterations, seconds, eval_seconds, started, report).go()
    return run.state


@dataclass
class _Loop:
    """The iterations of ``train_outcomes`` and when to stop: before an iteration that the time left would not hold
    (by the last one's length), keeping time for the final score."""

    run: OutcomeRun
    iterations: int | None
    seconds: float | None
    eval_seconds: float
    started: float
    report: Callable[[dict[str, Any]], None] | None
    per_deal: float | None = None
    last_eval: float = -math.inf
    step: float = 0.0

    def go(self) -> None:
        run, st, deals = self.run, self.run.state, self.run.config.eval_deals
        while self.iterations is None or st.iteration < self.iterations:
            if self.seconds is not None and self._left() - self._reserve() < self.step:
                break
            began = self.run.clock()
            run.say(f"iteration {st.iteration + 1}: {run.config.rounds} rounds of self-play, then a fit ...")
            run.iterate()
            if deals and self.run.clock() - self.last_eval >= self.eval_seconds and (
                    self.seconds is None or self._left() >= 2 * self._reserve()):
                self._score()
            self._emit()
            self.step = self.run.clock() - began  # the whole step, its bookkeeping (and a score when one fell due)
        if deals and st.iteration >= 1 and str(st.iteration) not in st.scores:
            self._score()
            self._emit()

    def _score(self) -> None:
        deals = self.run.config.eval_deals
        if self.seconds is not None and self.per_deal is not None:
            deals = max(1, min(deals, int(self._left() / self.per_deal)))
        self.run.say(f"scoring iteration {self.run.state.iteration}: {deals} duplicate deals against greedy ...")
        began = self.run.clock()
        self.run.score(deals)
        self.last_eval = self.run.clock()
        self.per_deal = (self.last_eval - began) / deals

    def _left(self) -> float:
        return math.inf if self.seconds is None else self.seconds - (self.run.clock() - self.started)

    def _reserve(self) -> float:
        if self.seconds is None or self.run.config.eval_deals == 0:
            return 0.0
        need = EVAL_SHARE * self.seconds if self.per_deal is None else self.run.config.eval_deals * self.per_deal
        return min(need, EVAL_SHARE * self.seconds)

    def _emit(self) -> None:
        st = self.run.state
        line: dict[str, Any] = {"iteration": st.iteration, "rounds": st.rounds, "rows": st.rows,
                                "seconds": round(self.run.clock() - self.started, 1),
                                "rows_per_s": round(st.rows / max(st.play_seconds + st.fit_seconds, 1e-9), 1),
                                "play_seconds": round(st.play_seconds, 1), "fit_seconds": round(st.fit_seconds, 1),
                                "losses": st.losses, "train_vs_greedy": st.vs_greedy}
        if st.vs_search is not None:
            line["train_vs_search"] = st.vs_search
        score = st.scores.get(str(st.iteration))
        if score is not None:
            line["vs_greedy"], line["eval_deals"] = score[:3], score[3]
        with open(self.run.out / PROGRESS, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        if self.report is not None:
            self.report(line)
