"""An agent's table kept row by row as it is computed (``cfrlab eval GAME --agent A --agent-log FILE``).

Row i of an agent's table depends only on the game, the agent, the seed and i (``tabulate.agent_row``), so a long
tabulation (``oos:1`` on ``koikoi_mini_tsukifuda``: 41,572 searches of a CPU-second) continues where an
interrupted one stopped, from the same command. The first line records what the rows depend on; a log of another
run is refused rather than mixed in, and a last line a kill left unfinished is dropped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.runlog import RunLog, recompute_sample, resumed_records, unique_index

LOG_VERSION = 1


def log_meta(game_spec: str, agent_name: str, seed: int, infosets: int, width: int) -> dict[str, Any]:
    """What an agent log's rows depend on (its first line)."""
    return {"agent_log": LOG_VERSION, "game": game_spec, "agent": agent_name, "seed": seed, "infosets": infosets,
            "width": width}


class RowLog:
    """The rows already in ``path`` (when it holds this run's: ``meta`` equal) and the appender of new ones.

    Each resumed row is checked against what it claims: its index one of the table's, not twice, its mass on the
    infoset's ``legal`` actions only and summing to 1; and ``RECOMPUTED`` of them made again by ``recompute(index)``
    must agree (``runlog.recompute_sample``)."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any], legal: NDArray[np.bool_],
                 recompute: Callable[[int], NDArray[np.float64]]) -> None:
        records = resumed_records(path, meta, "rows of an agent's table", "give --agent-log a new file, or the "
                                  "log of this game, agent and seed",
                                  "is not an agent log (the .jsonl file `cfrlab eval --agent-log` writes)")
        self.done: dict[int, NDArray[np.float64]] = {}
        for record in records:
            index, row = _row(path, record, meta["infosets"], meta["width"])
            unique_index(path, index, meta["infosets"], self.done, "row")
            if row[~legal[index]].any() or abs(row.sum() - 1.0) > NORMALIZED:
                raise ValueError(f"{str(path)!r} holds row {index} with mass on an illegal action or not summing to "
                                 f"1 ({_short(row)}): an edited log; give a new file")
            self.done[index] = row
        recompute_sample(path, self.done, recompute, lambda a, b: bool(np.allclose(a, b, rtol=0, atol=1e-12)), "row")
        self.log = RunLog(path, meta, append=True)

    def add(self, indices: list[int], rows: NDArray[np.float64]) -> None:
        """Record computed rows (flushed at once: an interrupted run keeps every row it finished)."""
        for i, row in zip(indices, rows, strict=True):
            self.done[i] = row
            self.log.log(infoset=i, row=[float(p) for p in row])


NORMALIZED = 1e-6
"""How far a logged row's probabilities may sum from 1 (written as the agent gave them: a float32 table's rows sum
to 1 within 1e-7)."""


def _short(row: NDArray[np.float64]) -> str:
    return "[" + ", ".join(f"{p:.3g}" for p in row[:6]) + (", ...]" if len(row) > 6 else "]")


def _row(path: str | os.PathLike[str], record: dict[str, Any], infosets: int,
         width: int) -> tuple[Any, NDArray[np.float64]]:
    index, row = record.get("infoset"), record.get("row")
    if (not isinstance(row, list) or len(row) != width
            or not all(isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p) and p >= 0
                       for p in row)):
        raise ValueError(f"{str(path)!r} holds a record that is not a row of this table ({str(record)[:60]}): "
                         "not a log `cfrlab eval --agent-log` wrote")
    return index, np.array(row, dtype=np.float64)
