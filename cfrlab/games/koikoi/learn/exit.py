"""Expert iteration for Koi-Koi (``cfrlab train koikoi --method exit``): the search teaches a network that then
guides the search (Anthony, Tian and Barber 2017, "Thinking fast and slow with deep learning and tree search";
Silver et al. 2017 for the self-play loop).

A run is a sequence of generations. Generation 0 plays the plain determinized search (``players.search``, with
``rollouts`` playouts per action, full playouts); generation k >= 1 plays the same search whose playouts are cut
after ``cutoff`` half-turns and valued by network k. Each generation:

1. **plays** ``decisions`` self-play decisions of the game (single rounds, or matches: ``koikoi(rounds=12)``)
   (``selfplay.generate``) in chunks of ``chunk`` decisions, each chunk into its own folder
   ``OUT/shards/gGGG/cCCC`` with a seed drawn from (seed, generation, chunk): the shards do not depend on the
   workers, the chunking of a resumed run or the clock;
2. **fits** network k + 1, starting from network k's weights (a fresh network for k = 0), on the shards of the last
   ``window`` generations (``dataset``'s shuffled batches, ``fit.fit`` with a seed drawn from (seed, generation)),
   and writes it to ``OUT/gen_K.npz``;
3. **scores** it, every ``eval_seconds`` and at the end: the arena (``cfrlab.eval.arena``, duplicate deals, 95 %
   interval, the same deals for every generation) of the network's search against the plain search at the same
   budget (``eval_budget``: ``20ms`` CPU time of the searching thread per decision, or a number of playouts).

The run checkpoints (``OUT/checkpoint.npz``, atomic) after every chunk and every fit; ``resume`` continues where it
stopped and gives what an uninterrupted run gives (the chunk under way when it stopped is played again from its
start). ``OUT/weights.npz`` holds the best generation by its arena score (the latest until one is scored), which the
``neural`` agent reads; ``OUT/progress.jsonl`` a line per step. With a count ``eval_budget`` the whole run depends
only on the seed; with a time budget the arena scores, and so the choice of the best generation, depend on the
machine's speed (the generations' weights do not).

The loop is its own rather than ``driver.run``'s: a generation is play, fit and score, not a solver's iteration, and
its evaluation is an arena score rather than the exact exploitability the driver computes on a compiled tree.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from cfrlab.file_checks import output_folder, output_subfolder
from cfrlab.games.koikoi.learn.exit_config import (
    ExitConfig,
    check_config,
    koikoi_game,
    parse_budget,
    round_game,
    search_agent,
    seed_of,
)

CHECKPOINT = "checkpoint.npz"
WEIGHTS = "weights.npz"
PROGRESS = "progress.jsonl"
SHARDS = "shards"
EVAL_SEED = 1
"""Seed of every generation's arena deals: all generations are scored on the same deals."""
FORMAT = "cfrlab.koikoi.exit"
VERSION = 1
FIT_THREADS = 1
"""Torch's CPU threads in a fit: on a loaded machine two threads ran ten times slower than one (measured)."""
SHARDS_PER_CHUNK = 4
"""Shards a chunk is written in (played in parallel by the workers); fixed, so the data never depend on them."""
FIT_STREAM = 1 << 20
"""The seed path's second entry of a generation's fit (chunks use 0, 1, ...)."""
EVAL_SHARE = 0.25
"""The most of a timed run's budget kept for its final arena score; fewer deals are played when more is needed."""


@dataclass
class State:
    """Where a run stands: what the checkpoint holds."""

    generation: int = 0
    """The generation playing now (network ``generation`` plays; 0: the plain search)."""
    chunks: int = 0
    """Chunks of this generation played."""
    decisions: int = 0
    """Self-play decisions in all."""
    play_seconds: float = 0.0
    fit_seconds: float = 0.0
    score_seconds: float = 0.0
    scores: dict[str, list[float]] = field(default_factory=dict)
    """Generation (as a string) -> arena [mean, low, high, deals] against the plain search."""
    losses: dict[str, float] = field(default_factory=dict)
    """The last fit's losses."""

    def best(self) -> int | None:
        """The scored generation with the best mean (the earliest on a tie), None before any."""
        order = sorted(self.scores, key=int)
        return int(max(order, key=lambda g: self.scores[g][0])) if order else None


class ExpertIteration:
    """The generation loop (module docstring) writing into ``out``; ``run`` plays until the budget is spent."""

    def __init__(self, out: str | Path, config: ExitConfig, seed: int = 0, workers: int = 1,
                 report: Callable[[dict[str, Any]], None] | None = None,
                 say: Callable[[str], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        check_config(config)
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.out, self.config, self.seed, self.workers = Path(out), config, seed, workers
        self.game = koikoi_game(config.game)
        self.round_game = round_game(self.game)
        self.report, self.say, self.clock = report, say or (lambda message: None), clock
        self.state = State()
        self.step_seconds: dict[str, float] = {}
        self.per_deal: float | None = None
        self.last_eval = -math.inf

    # files -------------------------------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "seed": self.seed, "config": self.config.to_dict()}

    def prepare(self, resume: bool) -> None:
        """Check ``out`` and load the checkpoint on ``resume``; refuse to overwrite a run without it."""
        out = self.out
        output_folder(out, (CHECKPOINT, WEIGHTS, PROGRESS))
        if (out / CHECKPOINT).exists():
            if not resume:
                raise ValueError(f"{out / CHECKPOINT} exists: pass --resume to continue it, or choose another --out")
            self.state = self._load()
        out.mkdir(exist_ok=True)

    def _load(self) -> State:
        path = self.out / CHECKPOINT
        arrays, meta = load_checkpoint(path, self.identity())
        try:
            state = State(**meta["state"])
            ok = (type(state.generation) is int and type(state.chunks) is int and type(state.decisions) is int
                  and 0 <= state.chunks <= self.chunks_per_generation() and state.generation >= 0
                  and all((self.out / self.weights_name(g)).is_file() for g in range(1, state.generation + 1)))
        except (KeyError, TypeError) as exc:
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt: {exc}") from None
        if not ok:
            raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or its generations' weights are missing")
        return state

    def _save(self) -> None:
        save_checkpoint(self.out / CHECKPOINT, {}, {**self.identity(), "state": asdict(self.state)})

    @staticmethod
    def weights_name(generation: int) -> str:
        return f"gen_{generation:03d}.npz"

    def chunk_dir(self, generation: int, chunk: int) -> Path:
        return self.out / SHARDS / f"g{generation:03d}" / f"c{chunk:03d}"

    def chunks_per_generation(self) -> int:
        return -(-self.config.decisions // self.config.chunk)

    # steps -------------------------------------------------------------------------------------------------

    def play_chunk(self) -> None:
        """Self-play one chunk of the current generation into its folder (``generate`` keeps the shards a stopped
        run of the same chunk wrote)."""
        from cfrlab.games.koikoi.learn.selfplay import generate

        st, cfg = self.state, self.config
        size = min(cfg.chunk, cfg.decisions - st.chunks * cfg.chunk)
        net = None if st.generation == 0 else str(self.out / self.weights_name(st.generation))
        factory = partial(search_agent, self.game.rules, {"rollouts": cfg.rollouts}, cfg.cutoff, net)
        self.say(f"generation {st.generation}: playing {size:,} decisions ...")
        began = self.clock()
        played = [0]

        def on_shard(shard: Any) -> None:  # a line per shard: generation 0 has no network step to report
            played[0] += shard.decisions
            rate = played[0] / max(self.clock() - began, 1e-9)
            self.say(f"generation {st.generation}: {played[0]:,}/{size:,} decisions played, {rate:.1f} decisions/s")

        folder = output_subfolder(self.out, self.chunk_dir(st.generation, st.chunks))
        shards = generate(factory, self.game.rules, size, seed_of(self.seed, st.generation, st.chunks),
                          folder, workers=self.workers,
                          shard_size=-(-size // SHARDS_PER_CHUNK), on_shard=on_shard)
        seconds = self.clock() - began
        st.decisions += sum(int(shard[1]) for shard in shards)
        st.play_seconds += seconds
        st.chunks += 1
        self.step_seconds["play"] = seconds

    def training_folders(self) -> list[Path]:
        """The chunk folders of the last ``window`` generations, oldest first."""
        first = max(0, self.state.generation - self.config.window + 1)
        return [self.chunk_dir(g, c) for g in range(first, self.state.generation + 1)
                for c in range(self.chunks_per_generation()) if self.chunk_dir(g, c).is_dir()]

    def fit_next(self) -> None:
        """Fit network generation + 1 from network generation (fresh for 0) on the window's shards."""
        from cfrlab.games.koikoi.learn.dataset import batches
        from cfrlab.games.koikoi.learn.fit import fit
        from cfrlab.games.koikoi.learn.model import KoiKoiNet
        from cfrlab.games.koikoi.neural.features import NUM_FEATURES
        from cfrlab.games.koikoi.neural.weights import load_weights, save_weights

        st, cfg = self.state, self.config
        fit_seed = seed_of(self.seed, st.generation, FIT_STREAM)
        if st.generation == 0:
            net = KoiKoiNet(NUM_FEATURES, cfg.hidden, generator=np.random.default_rng(fit_seed))
        else:
            net = KoiKoiNet.from_weights(load_weights(self.out / self.weights_name(st.generation))[0])
        self.say(f"fitting generation {st.generation + 1} ({cfg.steps:,} steps) ...")
        began = self.clock()
        data = batches(self.training_folders(), cfg.batch, seed=fit_seed, epochs=cfg.steps)  # steps bound it
        losses = fit(net, data, cfg.steps, cfg.lr, fit_seed, batch_size=cfg.batch, threads=FIT_THREADS)
        seconds = self.clock() - began
        st.generation += 1
        st.chunks = 0
        save_weights(self.out / self.weights_name(st.generation), net.to_weights(), game=self.game.spec(),
                     generation=st.generation, cutoff=cfg.cutoff, decisions=st.decisions)
        st.losses = {k: round(float(v), 5) for k, v in losses.items() if k != "steps"}
        st.fit_seconds += seconds
        self.step_seconds["fit"] = seconds

    def score(self, deals: int) -> None:
        """The arena of the current generation's search against the plain search at ``eval_budget``."""
        from cfrlab.eval.arena import arena

        st, cfg = self.state, self.config
        budget = parse_budget(cfg.eval_budget)
        net = str(self.out / self.weights_name(st.generation))
        a = search_agent(self.game.rules, budget, cfg.cutoff, net)
        b = search_agent(self.game.rules, budget, None, None)
        a.name, b.name = f"generation {st.generation}", f"search:{cfg.eval_budget}"
        self.say(f"scoring generation {st.generation}: {deals} duplicate deals against search:{cfg.eval_budget} ...")
        began = self.clock()
        res = arena(self.round_game, a, b, deals=deals, seed=EVAL_SEED).points_per_round_a
        self.per_deal = (self.clock() - began) / deals
        st.score_seconds += self.clock() - began
        st.scores[str(st.generation)] = [round(res.mean, 4), round(res.low, 4), round(res.high, 4), deals]
        self.last_eval = self.clock()

    def publish(self) -> None:
        """``OUT/weights.npz``: the best scored generation, or the latest before any is scored."""
        best = self.state.best()
        generation = best if best is not None else self.state.generation
        if generation >= 1:
            shutil.copyfile(self.out / self.weights_name(generation), self.out / WEIGHTS)


def train_exit(out: str | Path, config: ExitConfig | None = None, generations: int | None = None,
               seconds: float | None = None, seed: int = 0, workers: int = 1, resume: bool = False,
               eval_seconds: float = 180.0, report: Callable[[dict[str, Any]], None] | None = None,
               say: Callable[[str], None] | None = None,
               clock: Callable[[], float] = time.monotonic) -> State:
    """Run (or resume) expert iteration into ``out`` until ``generations`` networks are fitted or ``seconds`` of
    this run have passed (the final arena score included); returns where the run stands."""
    started = clock()
    if generations is None and seconds is None:
        raise ValueError("give a budget: --hours H or --iterations N")
    if generations is not None and generations < 1:
        raise ValueError(f"--iterations must be >= 1 generation, got {generations}")
    run = ExpertIteration(out, config or ExitConfig(), seed, workers, report, say, clock)
    run.prepare(resume)
    if generations is not None and run.state.generation > generations:
        raise ValueError(f"{run.out / CHECKPOINT} has {run.state.generation} generations, more than the "
                         f"{generations} asked for: give a larger total")
    _Loop(run, generations, seconds, eval_seconds, started).go()
    return run.state


@dataclass
class _Loop:
    """The steps of ``train_exit`` and when to stop: before a step the time left would not hold (by its last
    measured length), keeping time for the final score."""

    run: ExpertIteration
    generations: int | None
    seconds: float | None
    eval_seconds: float
    started: float
    start_decisions: int = 0

    def go(self) -> None:
        run, st = self.run, self.run.state
        self.start_decisions = st.decisions
        while True:
            if self.generations is not None and st.generation >= self.generations:
                break
            if st.chunks < run.chunks_per_generation():
                if not self._fits("play"):
                    break
                run.play_chunk()
                run._save()
                self._emit()
                continue
            if not self._fits("fit"):
                break
            run.fit_next()
            if self._eval_due():
                run.score(self._deals())
            run.publish()
            run._save()
            self._emit()
        if st.generation >= 1 and str(st.generation) not in st.scores and run.config.eval_deals > 0:
            run.score(self._deals())
            run.publish()
            run._save()
            self._emit()
        run.publish()

    def _left(self) -> float:
        return math.inf if self.seconds is None else self.seconds - (self.run.clock() - self.started)

    def _per_deal(self) -> float | None:
        """Seconds an arena deal takes: measured in this run, else by the checkpoint's totals (a resumed run knows
        its steps' lengths before it takes one), else unknown."""
        st = self.run.state
        scored = sum(int(score[3]) for score in st.scores.values())
        if self.run.per_deal is not None:
            return self.run.per_deal
        return st.score_seconds / scored if scored and st.score_seconds > 0 else None

    def _step_seconds(self, step: str) -> float:
        """Seconds the next ``step`` ('play' a chunk or 'fit' a generation) takes: its last length in this run, else
        the checkpoint's mean (a resumed run ran a whole chunk past its budget without one), else 0."""
        known = self.run.step_seconds.get(step)
        if known is not None:
            return known
        st, cfg = self.run.state, self.run.config
        if step == "play" and st.decisions:
            return st.play_seconds / st.decisions * min(cfg.chunk, cfg.decisions - st.chunks * cfg.chunk)
        return st.fit_seconds / st.generation if step == "fit" and st.generation else 0.0

    def _reserve(self) -> float:
        """Seconds kept for the final arena score (unknown before one: a share of the budget)."""
        if self.seconds is None or self.run.config.eval_deals == 0:
            return 0.0
        per = self._per_deal()
        need = EVAL_SHARE * self.seconds if per is None else self.run.config.eval_deals * per
        return min(need, EVAL_SHARE * self.seconds)

    def _fits(self, step: str) -> bool:
        if self.seconds is None:
            return True
        return self._left() - self._reserve() > self._step_seconds(step)

    def _eval_due(self) -> bool:
        run = self.run
        if run.config.eval_deals == 0 or run.clock() - run.last_eval < self.eval_seconds:
            return False
        return self.seconds is None or self._left() >= 2 * self._reserve()

    def _deals(self) -> int:
        deals, per = self.run.config.eval_deals, self._per_deal()
        if self.seconds is None or per is None:
            return deals
        return max(1, min(deals, int(self._left() / per)))

    def _emit(self) -> None:
        run, st = self.run, self.run.state
        elapsed = run.clock() - self.started
        line: dict[str, Any] = {"generation": st.generation, "chunks": st.chunks, "decisions": st.decisions,
                                "seconds": round(elapsed, 1),
                                "decisions_per_s": round(st.decisions / max(st.play_seconds, 1e-9), 1),
                                "play_seconds": round(st.play_seconds, 1), "fit_seconds": round(st.fit_seconds, 1),
                                "score_seconds": round(st.score_seconds, 1),
                                "losses": st.losses}
        score = st.scores.get(str(st.generation))
        if score is not None:
            line["vs_search"] = score[:3]
            line["eval_deals"] = score[3]
        best = st.best()
        if best is not None:
            line["best"] = best
        with open(run.out / PROGRESS, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        if run.report is not None:
            run.report(line)

