"""Self-play data for the learned evaluator: a search agent plays Koi-Koi against itself on the numba flow, and every
decision with two or more legal actions becomes a row of a shard (``dataset``).

Method (expert iteration, Anthony, Tian and Barber 2017: the search is the expert whose choices and values the
network learns): each game is a single round (``rules.rounds == 1``) or a match of ``rules.rounds`` rounds (the
``nintendo`` default: 12). Deals and draw orders come from ``batched.sample_inputs`` (misdeals redealt as the
engine does), the first dealer from a coin, and the round is stepped with ``flow.step`` (never the Python engine).
At each decision the mover's ``information.Information`` is built from the flow's arrays (``flow_information``,
equal to ``information.information`` of the engine state: tested) and handed to ``agent.search(info, rng)``, a
black box that returns the legal actions, their mean values and its choice. The row records the mover's features
(``features.encode``), the legal mask, the means, the choice and the mover; at the round's end the mover's final
points, at the match's end the match result.

Reproducibility: shard ``i`` of a run plays from its own generator (``SeedSequence(seed, spawn_key=(i,))``) whole
games until it holds at least ``shard_size`` decisions (the last shard: what is left of ``decisions``), so the files
are the same whatever the number of workers; ``workers > 1`` plays shards in processes (``multiprocessing``,
spawned once and kept for the next run: ``close_processes``) or, with ``ray``, on ``distributed.WorkerPool``; the
parent writes each shard as it arrives. Shards already
in ``out_dir`` from the same run are kept (a stopped run continues); shards of another run are refused.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cfrlab.games.koikoi.learn.dataset import FIELDS, read_shard, shard_name, write_shard
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, encode
from cfrlab.games.koikoi.players.search import SearchResult
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.batched import sample_inputs
from cfrlab.games.koikoi.rules.engine_state import NUM_ACTIONS
from cfrlab.games.koikoi.rules.information import Information
from cfrlab.games.koikoi.rules.kernels import DRAW, PLAY, kernel_rules
from cfrlab.games.koikoi.rules.rules import RuleSet, month_of_round

DEFAULT_SHARD_SIZE = 4096
"""Decisions per shard (about 1 MB)."""
_ALL_ACTIONS = np.arange(NUM_ACTIONS)


class ShardReport(NamedTuple):
    """One shard of a run: its file, decisions, games, and the CPU seconds of the process that played it (0 for a
    shard kept from an earlier run)."""

    path: Path
    decisions: int
    games: int
    cpu_seconds: float


def flow_information(st: np.ndarray, cards: np.ndarray, played: tuple[int, int], legal: Sequence[int], deck: int,
                     round_index: int = 0, totals: tuple[int, int] = (0, 0), new_yaku: bool = False) -> Information:
    """The ``information.Information`` of the mover of flow arrays ``st``, ``cards``: ``played`` the cards each seat has
    played from hand this round (the flow does not keep them), ``legal`` the mover's legal actions, ``deck`` the
    rules' deck, ``new_yaku`` whether the koi-koi trigger is 'new_yaku' (the engine keeps the yaku bits only then)."""
    p = int(flow.mover(st))
    hand, field = int(cards[flow.C_HANDS + p]), int(cards[flow.C_FIELD])
    piles = (int(cards[flow.C_PILES]), int(cards[flow.C_PILES + 1]))
    pending = int(st[flow.S_PENDING])
    seen = hand | field | piles[0] | piles[1] | (1 << pending if pending >= 0 else 0)
    return Information(
        p, int(st[flow.S_PHASE]), int(st[flow.S_OYA]), int(st[flow.S_TURN]), hand, field, piles,
        (int(st[flow.S_CALLS]), int(st[flow.S_CALLS + 1])), pending, int(st[flow.S_S0]),
        int(cards[flow.C_HANDS + 1 - p]).bit_count(), deck & ~seen, tuple(legal), played,
        int(st[flow.S_Y0]) if new_yaku else 0, int(st[flow.S_LAST]), int(st[flow.S_MONTH]), int(st[flow.S_BRIGHTS]),
        round_index, totals)


class _Rows:
    """The rows of one shard as they are played; a round's and a match's results filled in when they end."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Any]] = {name: [] for name in FIELDS}
        self.round_start = self.match_start = 0

    def __len__(self) -> int:
        return len(self.rows["choice"])

    def add(self, info: Information, result: SearchResult, features: np.ndarray) -> None:
        values = np.full(NUM_ACTIONS, np.nan, dtype=np.float16)
        values[list(result.actions)] = result.means
        r = self.rows
        r["features"].append(features.astype(np.int16))  # padded with -1
        r["legal"].append(sum(1 << a for a in info.legal))
        r["values"].append(values)
        r["choice"].append(result.action)
        r["mover"].append(info.player)

    def end_round(self, winner: int, points: int) -> None:
        for m in self.rows["mover"][self.round_start:]:
            self.rows["points"].append(0 if winner < 0 else points if winner == m else -points)
        self.round_start = len(self)

    def end_match(self, totals: tuple[int, int] | None) -> None:
        for m in self.rows["mover"][self.match_start:]:
            lead = None if totals is None else totals[m] - totals[1 - m]
            self.rows["match_win"].append(-1 if lead is None or lead == 0 else int(lead > 0))
            self.rows["match_score"].append(np.nan if lead is None else 0.5 if lead == 0 else float(lead > 0))
        self.match_start = len(self)

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.array(self.rows[name], dtype=dtype).reshape((len(self), *shape))
                for name, (dtype, shape) in FIELDS.items()}


def play_round(agent: Any, rules: RuleSet, deal: tuple[int, int, int, np.ndarray], oya: int, round_index: int,
               totals: tuple[int, int], rng: np.random.Generator,
               on_decision: Callable[[Information, SearchResult, np.ndarray], None]) -> tuple[int, int, int]:
    """Play one round on the flow: ``deal`` = (ko hand, field, oya hand, draw order) with seat ``oya`` dealing.
    Each decision with 2+ legal actions goes to ``agent.search`` and then to ``on_decision(info, result, features)``.
    Returns (winner or -1, points, next dealer)."""
    kr, deck = kernel_rules(rules), C.deck_mask(rules.months)
    new_yaku = rules.koikoi_trigger == "new_yaku"
    st, cards = flow.new_position()
    flow.begin(st, cards, oya, False, month_of_round(rules, round_index), np.uint64(0))
    ko, field, oya_hand, order = deal
    flow.deal(st, cards, np.uint64(ko), np.uint64(field), np.uint64(oya_hand), kr)
    legal, features = np.empty(48, dtype=np.int64), np.full(MAX_ACTIVE, -1, dtype=np.int32)
    played, drawn = [0, 0], 0
    while st[flow.S_PHASE] != flow.TERMINAL:
        phase = int(st[flow.S_PHASE])
        if phase == DRAW:
            a = int(order[drawn])
            drawn += 1
        else:
            n = flow.legal(st, cards, legal)
            a = int(legal[0])
            if n > 1:
                info = flow_information(st, cards, (played[0], played[1]), legal[:n].tolist(), deck, round_index,
                                        totals, new_yaku)
                result = agent.search(info, rng)
                features[:] = -1
                encode(flow.load(st, cards), info.player, round_index, totals[info.player] - totals[1 - info.player],
                       features)
                on_decision(info, result, features)
                a = int(result.action)
            if phase == PLAY:
                played[int(flow.mover(st))] |= 1 << a
        flow.step(st, cards, a, kr)
    return int(st[flow.S_WINNER]), int(st[flow.S_POINTS]), int(st[flow.S_NEXT])


def play_game(agent: Any, rules: RuleSet, rng: np.random.Generator,
              on_decision: Callable[[Information, SearchResult, np.ndarray], None],
              on_round: Callable[[int, int], None], on_match: Callable[[tuple[int, int] | None], None],
              first_oya: int | None = None) -> None:
    """A single round (``rules.rounds == 1``) or a match of ``rules.rounds`` rounds, the first dealer ``first_oya``
    (None: a coin); ``on_round(winner, points)`` after each round, ``on_match(final totals, or None for a single
    round)`` at the end."""
    inputs = sample_inputs(rules, rules.rounds, rng)
    coin = int(rng.integers(2))
    oya = coin if first_oya is None else first_oya
    totals = (rules.initial_points, rules.initial_points)
    for r in range(rules.rounds):
        deal = (int(inputs.ko[r]), int(inputs.field[r]), int(inputs.oya[r]), inputs.order[r])
        winner, points, oya = play_round(agent, rules, deal, oya, r, totals, rng, on_decision)
        on_round(winner, points)
        if winner >= 0:
            loss = points if rules.scoring == "transfer" else 0
            totals = (totals[0] + points, totals[1] - loss) if winner == 0 else (totals[0] - loss, totals[1] + points)
        if rules.bust_ends_match and min(totals) <= 0:
            break
    on_match(totals if rules.rounds > 1 else None)


def play_shard(agent_factory: Callable[[], Any], rules: RuleSet, seed: int, index: int,
               size: int) -> tuple[dict[str, np.ndarray], int, float]:
    """Shard ``index`` of run ``seed``: whole games until ``size`` decisions or more. Returns (arrays, games, CPU
    seconds of this process)."""
    start = time.process_time()
    agent = agent_factory()
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    rows, games = _Rows(), 0
    while len(rows) < size:
        play_game(agent, rules, rng, rows.add, rows.end_round, rows.end_match)
        games += 1
    return rows.arrays(), games, time.process_time() - start


def _run_meta(agent: Any, rules: RuleSet, seed: int, size: int) -> dict[str, Any]:
    """What makes a run's shards (a shard of another run is never mixed in); an agent for other rules is refused."""
    agent_rules = getattr(agent, "rules", rules)
    if agent_rules != rules:
        raise ValueError(f"the agent plays the rules {getattr(agent_rules, 'name', agent_rules)!r}, not "
                         f"{rules.name!r}; make it for the rules of the self-play")
    config = getattr(agent, "config", None)
    return {"rules": dataclasses.asdict(rules), "agent": getattr(agent, "name", type(agent).__name__),
            "objective": getattr(config, "objective", "points"), "seed": seed, "shard_size": size}


def generate(agent_factory: Callable[[], Any], rules: RuleSet | None, decisions: int, seed: int,
             out_dir: str | os.PathLike[str], workers: int = 1, shard_size: int = DEFAULT_SHARD_SIZE,
             ray: bool = False, address: str | None = None,
             on_shard: Callable[[ShardReport], None] | None = None) -> list[ShardReport]:
    """Play at least ``decisions`` recorded decisions of ``agent_factory()`` (a picklable callable returning a search
    agent for ``rules``; None: ``nintendo``, 12-round matches) into shards of ``out_dir`` (module docstring);
    ``on_shard`` hears of each shard as it is written. Returns the shards in order."""
    rules = rules or RuleSet()
    if decisions < 1 or shard_size < 1 or workers < 1:
        raise ValueError(f"decisions, shard_size and workers must be >= 1, got {decisions}, {shard_size}, {workers}")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"output folder {str(out)!r} is a file; give a folder")
    out.mkdir(parents=True, exist_ok=True)
    count = -(-decisions // shard_size)
    sizes = [min(shard_size, decisions - i * shard_size) for i in range(count)]
    run = _run_meta(agent_factory(), rules, seed, shard_size)
    metas = [{**run, "shard": i} for i in range(count)]
    reports: dict[int, ShardReport] = {}
    for i in range(count):
        kept = _kept(out / shard_name(i), metas[i])
        if kept is not None:
            reports[i] = kept
    todo = [i for i in range(count) if i not in reports]
    items = [(agent_factory, rules, seed, i, sizes[i]) for i in todo]
    for i, (arrays, games, cpu) in zip(todo, _run(items, workers, ray, address)):
        path = out / shard_name(i)
        write_shard(path, arrays, {**metas[i], "games": games})
        reports[i] = ShardReport(path, len(arrays["choice"]), games, cpu)
        if on_shard is not None:
            on_shard(reports[i])
    return [reports[i] for i in range(count)]


def _kept(path: Path, meta: dict[str, Any]) -> ShardReport | None:
    """The report of a shard already written by this run (None: not there yet); another run's shard is refused."""
    if not path.exists():
        return None
    arrays, found = read_shard(path)
    if json.loads(json.dumps({k: found.get(k) for k in meta})) != json.loads(json.dumps(meta)):
        raise ValueError(f"{str(path)!r} was written by another self-play run (other rules, agent, seed or shard "
                         "size); give a fresh folder")
    return ShardReport(path, len(arrays["choice"]), int(found.get("games", 0)), 0.0)


def _run(items: list[tuple], workers: int, ray: bool, address: str | None):  # an iterator
    """``play_shard(*item)`` for each item, in order: in process, in spawned processes, or on Ray."""
    if ray or address is not None:
        from cfrlab.distributed import WorkerPool

        pool = WorkerPool(workers, address)
        try:
            for start in range(0, len(items), workers):  # a round of shards at a time: results never pile up
                yield from pool.map(play_shard, items[start:start + workers])
        finally:
            pool.close()
    elif workers == 1 or len(items) <= 1:
        yield from (play_shard(*item) for item in items)
    else:
        try:
            yield from _processes(workers).map(play_shard, *zip(*items))
        except BrokenProcessPool:
            close_processes()  # a worker died (killed, out of memory): the next run starts fresh ones
            raise


_POOL: list[tuple[int, ProcessPoolExecutor]] = []
"""The kept worker processes, with their number (at most one entry)."""


def _processes(workers: int) -> ProcessPoolExecutor:
    """The worker processes, started once and kept for the next run (spawning one costs seconds: imports and numba's
    cache); a run with another number of workers replaces them."""
    if _POOL and _POOL[0][0] != workers:
        close_processes()
    if not _POOL:
        _POOL.append((workers, ProcessPoolExecutor(workers, mp_context=get_context("spawn"))))
    return _POOL[0][1]


def close_processes() -> None:
    """Stop the worker processes ``generate`` keeps between runs (they stop with the interpreter anyway)."""
    while _POOL:
        _POOL.pop()[1].shutdown(cancel_futures=True)
