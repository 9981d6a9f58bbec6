"""LBR's deals kept as they are played: a run log with one record per deal (``cfrlab eval --lbr-log``).

Deal i of an LBR run depends only on the seed and i, so a log lets a long run (thousands of deals, hours on the
full deck) continue where an interrupted one stopped, and lets two strategies' runs with the same seed be
compared deal by deal (the same cards for both: the paired difference has a far narrower interval than the two
means). The first line records what the deals depend on: the game, a digest of the strategy's probabilities,
the seed and the rollouts; a log of another run is refused rather than mixed in.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from cfrlab.runlog import RunLog, read_runlog, recompute_sample, resumed_records, strategy_digest, unique_index

LOG_VERSION = 1
NOT_LBR_LOG = "is not an LBR log (the .jsonl file `cfrlab eval --lbr-log` writes)"


def log_meta(game_spec: str, probs: np.ndarray, seed: int, rollouts: int) -> dict[str, Any]:
    """What an LBR log's deals depend on (its first line)."""
    return {"lbr_log": LOG_VERSION, "game": game_spec, "strategy_digest": strategy_digest(probs), "seed": seed,
            "rollouts": rollouts}


def read_deals(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[int, float]]:
    """An LBR log's first line and its deals' returns (chips, the mean of both seats) by deal index."""
    meta, records = read_runlog(path)
    if meta.get("lbr_log") != LOG_VERSION:
        raise ValueError(f"{str(path)!r} {NOT_LBR_LOG}")
    return meta, _deals(path, records)


MAX_DEAL_INDEX = 10**9
"""Deals a log may number (as many as a command may be asked to play)."""


def _deals(path: str | os.PathLike[str], records: list[dict[str, Any]]) -> dict[int, float]:
    """The deals of a log by index, each once (a duplicated deal changed the result)."""
    deals: dict[int, float] = {}
    for record in records:
        deal, chips = record.get("deal"), record.get("chips")
        if isinstance(chips, bool) or not isinstance(chips, (int, float)) or not math.isfinite(chips):
            raise ValueError(f"{str(path)!r} holds a record that is not an LBR deal ({str(record)[:60]}): "
                             "not a log `cfrlab eval --lbr-log` wrote")
        deals[unique_index(path, deal, MAX_DEAL_INDEX, deals, "deal")] = float(chips)
    return deals


def check_deals(path: str | os.PathLike[str], done: dict[int, float], bound: float,
                recompute: Callable[[int], float]) -> None:
    """Refuse resumed deals beyond the game's payoff ``bound`` (chips a deal can win; 1e300 chips reported
    1.7e301 mb/h with a null interval), and the log if ``RECOMPUTED`` of them played again differ."""
    for deal, chips in done.items():
        if abs(chips) > bound:
            raise ValueError(f"{str(path)!r} holds deal {deal} worth {chips:.6g} chips, beyond the {bound:g} a deal "
                             "can win: an edited log; give a new file")
    recompute_sample(path, done, recompute, lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), "deal")


class DealLog:
    """The deals already in ``path`` (when it holds this run's: ``meta`` equal) and the appender of new ones."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any]) -> None:
        self.done = _deals(path, resumed_records(path, meta, "LBR deals", "give --lbr-log a new file, or the log "
                                                "of this strategy, seed and rollouts", NOT_LBR_LOG))
        self.path = path
        self.verified = False
        """Whether ``real_game.verify_deals`` has checked the resumed deals."""
        self.log = RunLog(path, meta, append=True)

    def add(self, deal: int, chips: float) -> None:
        """Record one deal's return (flushed at once: an interrupted run keeps every deal it finished)."""
        self.done[deal] = chips
        self.log.log(deal=deal, chips=chips)
