"""Head-to-head deals kept as they are played: a run log with one record per deal (``cfrlab arena --log``,
hold'em's ``cfrlab eval --versus --versus-log``).

Deal i of an arena depends only on the seed and i (``cfrlab.eval.arena``), so a log lets a long match continue
where an interrupted one stopped, and lets anyone recompute the published figure from the file
(``benchmarks/bench_arena_log.py``). The first line records what the deals depend on: the game, both agents
(a digest of a strategy's probabilities, whatever its file's name), the seed and whether deals are duplicated;
a log of another match is refused rather than mixed in, as ``--lbr-log``'s are (``lbr_log``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from cfrlab.runlog import RunLog, read_runlog, recompute_sample, resumed_records, strategy_digest, unique_index

LOG_VERSION = 1
NOT_ARENA_LOG = "is not an arena log (the .jsonl file `cfrlab arena --log` or `cfrlab eval --versus-log` writes)"
MAX_DEAL_INDEX = 10**9

Row = tuple[float, float, float, float, int, int]
"""One deal: A's return in seat 0, in seat 1 (nan without duplicate deals), A's share of games won and lost,
rounds and games played (``arena._play_deals``)."""


def agent_identity(agent: Any) -> str:
    """An agent's name, with a digest of its strategy's probabilities where it plays one."""
    name = str(getattr(agent, "name", type(agent).__name__))
    policy = getattr(agent, "policy", None)
    probs = getattr(policy, "probs", None)
    return name if not isinstance(probs, np.ndarray) else f"{name}#{strategy_digest(probs)}"


def arena_meta(spec: str, agent_a: Any, agent_b: Any, seed: int | None, duplicate: bool) -> dict[str, Any]:
    """What an arena log's deals depend on (its first line)."""
    return {"arena_log": LOG_VERSION, "game": spec, "agent_a": agent_identity(agent_a),
            "agent_b": agent_identity(agent_b), "seed": seed, "duplicate": duplicate}


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _row(path: str | os.PathLike[str], record: dict[str, Any], bound: float) -> Row:
    """A record as a deal's row, refused in one line unless it is one a run could have written."""
    returns: Any = record.get("returns")
    win: Any = record.get("win")
    loss: Any = record.get("loss")
    rounds: Any = record.get("rounds")
    games: Any = record.get("games")
    ok = isinstance(returns, list) and len(returns) == 2 and _number(returns[0]) and \
        (returns[1] is None or _number(returns[1])) and _number(win) and _number(loss) and \
        type(rounds) is int and type(games) is int and 1 <= games <= 2 and rounds >= games
    if not ok:
        raise ValueError(f"{str(path)!r} holds a record that is not an arena deal ({str(record)[:60]}): not a log "
                         "`cfrlab arena --log` wrote")
    if any(abs(r) > bound for r in returns if r is not None) or not 0 <= win + loss <= 1 or min(win, loss) < 0:
        raise ValueError(f"{str(path)!r} holds deal {record.get('deal')!r:.20} with returns {returns} beyond the "
                         f"{bound:g} a game can pay, or rates outside [0, 1]: an edited log; give a new file")
    second = float("nan") if returns[1] is None else float(returns[1])
    return float(returns[0]), second, float(win), float(loss), rounds, games


def rows_of(path: str | os.PathLike[str], records: list[dict[str, Any]], bound: float) -> dict[int, Row]:
    """The deals of a log by index, each once."""
    rows: dict[int, Row] = {}
    for record in records:
        rows[unique_index(path, record.get("deal"), MAX_DEAL_INDEX, rows, "deal")] = _row(path, record, bound)
    return rows


def read_arena_log(path: str | os.PathLike[str], bound: float = math.inf) -> tuple[dict[str, Any], dict[int, Row]]:
    """An arena log's first line and its deals' rows by deal index."""
    meta, records = read_runlog(path)
    if meta.get("arena_log") != LOG_VERSION:
        raise ValueError(f"{str(path)!r} {NOT_ARENA_LOG}")
    return meta, rows_of(path, records, bound)


def same_row(a: Row, b: Row) -> bool:
    return all((math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
               for x, y in zip(a, b))


def payoff_bound(game: Any) -> float:
    """The most a game of ``game`` can pay a player (a resumed deal beyond it is refused); unbounded if unknown."""
    info = getattr(game, "info", None)
    try:
        return float(max(abs(info.min_utility), abs(info.max_utility)))  # type: ignore[union-attr]
    except (AttributeError, TypeError):
        return math.inf


def open_arena_log(path: str | os.PathLike[str] | None, game: Any, agent_a: Any, agent_b: Any, seed: int | None,
                   duplicate: bool) -> ArenaLog | None:
    """The log of this match at ``path`` (None: none asked for)."""
    if path is None:
        return None
    return ArenaLog(path, arena_meta(game.spec(), agent_a, agent_b, seed, duplicate), payoff_bound(game))


class ArenaLog:
    """The deals already in ``path`` (when it holds this match's: ``meta`` equal) and the appender of new ones;
    ``bound`` is what a game can pay (a resumed return beyond it is refused)."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any], bound: float) -> None:
        records = resumed_records(path, meta, "deals", "give the log a new file, or the log of these agents, game "
                                  "and seed", NOT_ARENA_LOG)
        self.done = rows_of(path, records, bound)
        self.path = path
        self.log = RunLog(path, meta, append=True)

    def check(self, recompute: Callable[[int], Row], deals: int) -> None:
        """Play ``RECOMPUTED`` resumed deals (of the first ``deals``) again: refuse the log if one differs."""
        done = {i: row for i, row in self.done.items() if i < deals}
        if done:
            recompute_sample(self.path, done, recompute, same_row, "deal")

    def add(self, deal: int, row: Row) -> None:
        """Record one deal (flushed at once: an interrupted match keeps every deal it finished)."""
        self.done[deal] = row
        second = None if math.isnan(row[1]) else row[1]
        self.log.log(deal=deal, returns=[row[0], second], win=row[2], loss=row[3], rounds=row[4], games=row[5])
