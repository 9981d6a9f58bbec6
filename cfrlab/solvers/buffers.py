"""Replay memories for the neural solvers: a circular buffer and a reservoir buffer.

Both hold named fields in numpy arrays preallocated at construction (``capacity`` rows each),
take a seeded ``np.random.Generator`` and only ever sample among the first ``len(self)`` rows
(the trap of OpenSpiel's ``pytorch/deep_cfr.py``, whose preallocated buffers could be sampled
beyond their filled length).

* ``CircularBuffer`` keeps the ``capacity`` most recent rows (NFSP's reinforcement-learning
  memory, seed 001 Alg. 8: "circular buffer").
* ``ReservoirBuffer`` keeps a uniform sample of every row ever added (Vitter's algorithm R:
  the n-th row, counted from 0, replaces a uniformly chosen slot ``j`` in ``[0, n]`` when
  ``j < capacity``). NFSP's supervised memory (seed 001 Alg. 8, "reservoir sampling") and
  Deep CFR's advantage and strategy memories.

A field spec maps a name to ``(shape, dtype)`` of one row, e.g.
``{"obs": ((11,), np.float32), "action": ((), np.int64)}``. ``state_dict`` /
``load_state_dict`` give plain arrays, so the buffers checkpoint into ``.npz`` files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from cfrlab.seeding import SeedLike, as_generator

FieldSpec = Mapping[str, tuple[tuple[int, ...], DTypeLike]]


class _Buffer:
    """Shared storage: preallocated named arrays, a filled length and a seeded generator."""

    def __init__(self, capacity: int, fields: FieldSpec, rng: SeedLike = None) -> None:
        if int(capacity) <= 0:
            raise ValueError(f"capacity must be positive, got {capacity}")
        if not fields:
            raise ValueError("a buffer needs at least one field, e.g. {'obs': ((n,), np.float32)}")
        self.capacity = int(capacity)
        self.fields = {name: (tuple(int(s) for s in shape), np.dtype(dtype)) for name, (shape, dtype) in fields.items()}
        self.rng = as_generator(rng)
        self._data = {name: np.zeros((self.capacity, *shape), dtype=dtype)
                      for name, (shape, dtype) in self.fields.items()}
        self._size = 0
        self.seen = 0
        """Rows ever offered to the buffer (kept or not)."""

    def __len__(self) -> int:
        return self._size

    def _rows(self, rows: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], int]:
        missing = set(self.fields) - set(rows)
        extra = set(rows) - set(self.fields)
        if missing or extra:
            raise KeyError(f"buffer fields are {sorted(self.fields)}; missing {sorted(missing)}, "
                           f"unknown {sorted(extra)}")
        out: dict[str, np.ndarray] = {}
        m = None
        for name, (shape, dtype) in self.fields.items():
            value = np.asarray(rows[name], dtype=dtype)
            if value.shape[1:] != shape:
                raise ValueError(f"field {name!r}: rows of shape {shape} expected, got batch of shape {value.shape}")
            if m is None:
                m = value.shape[0]
            elif value.shape[0] != m:
                raise ValueError("all fields of a batch must have the same number of rows")
            out[name] = value
        return out, int(m or 0)

    def add(self, **row: Any) -> None:
        """Add one row (one value per field); the fast path of the per-step loops."""
        if row.keys() != self.fields.keys():
            self._rows({k: np.asarray(v)[None] for k, v in row.items()})  # raises with the details
        slot = self._slot()
        if slot >= 0:
            for name, value in row.items():
                self._data[name][slot] = value

    def _slot(self) -> int:  # pragma: no cover - overridden
        """Where the next single row goes (-1: dropped); updates the counters."""
        raise NotImplementedError

    def add_batch(self, rows: Mapping[str, Any]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def sample(self, batch_size: int, replace: bool = False) -> dict[str, np.ndarray]:
        """``batch_size`` rows drawn uniformly among the filled ones (copies).

        Without replacement (the default) the buffer must hold at least ``batch_size`` rows.
        """
        if self._size == 0:
            raise ValueError("cannot sample from an empty buffer")
        if not replace and batch_size > self._size:
            raise ValueError(f"asked for {batch_size} rows without replacement but the buffer holds {self._size}")
        idx = self.rng.choice(self._size, size=int(batch_size), replace=replace)
        return {name: arr[idx] for name, arr in self._data.items()}

    def data(self) -> dict[str, np.ndarray]:
        """Views of the filled rows (in storage order)."""
        return {name: arr[: self._size] for name, arr in self._data.items()}

    def clear(self) -> None:
        """Forget all rows (storage is kept)."""
        self._size = 0
        self.seen = 0
        self._clear_extra()

    def _clear_extra(self) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        """Filled rows, counters and RNG state (arrays plus JSON-able scalars)."""
        return {"arrays": {name: arr[: self._size].copy() for name, arr in self._data.items()},
                "size": self._size, "seen": self.seen, "rng": self.rng.bit_generator.state, **self._extra_state()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned (same capacity and fields)."""
        size = int(state["size"])
        if size > self.capacity:
            raise ValueError(f"state holds {size} rows but the capacity is {self.capacity}")
        for name, arr in self._data.items():
            src = np.asarray(state["arrays"][name])
            if src.shape != (size, *arr.shape[1:]):
                raise ValueError(f"field {name!r}: shape {src.shape} does not fit ({size}, {arr.shape[1:]})")
            arr[:size] = src
        self._size = size
        self.seen = int(state["seen"])
        self.rng.bit_generator.state = state["rng"]
        self._load_extra_state(state)

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        pass


class CircularBuffer(_Buffer):
    """The ``capacity`` most recent rows; the oldest is overwritten first."""

    def __init__(self, capacity: int, fields: FieldSpec, rng: SeedLike = None) -> None:
        super().__init__(capacity, fields, rng)
        self._next = 0

    def _slot(self) -> int:
        slot = self._next
        self._next = (self._next + 1) % self.capacity
        self._size = min(self.capacity, self._size + 1)
        self.seen += 1
        return slot

    def add_batch(self, rows: Mapping[str, Any]) -> None:
        """Add rows in order (each one overwriting the oldest once the buffer is full)."""
        values, m = self._rows(rows)
        if m == 0:
            return
        if m > self.capacity:  # only the last ``capacity`` rows survive
            values = {k: v[-self.capacity:] for k, v in values.items()}
            self._next = (self._next + m - self.capacity) % self.capacity
            self.seen += m - self.capacity
            m = self.capacity
        idx = (self._next + np.arange(m)) % self.capacity
        for name, value in values.items():
            self._data[name][idx] = value
        self._next = int((self._next + m) % self.capacity)
        self._size = min(self.capacity, self._size + m)
        self.seen += m

    def _clear_extra(self) -> None:
        self._next = 0

    def _extra_state(self) -> dict[str, Any]:
        return {"next": self._next}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self._next = int(state["next"])


class ReservoirBuffer(_Buffer):
    """A uniform sample (without replacement) of all rows ever added (algorithm R)."""

    def _slot(self) -> int:
        n = self.seen  # 0-based number of this row
        self.seen += 1
        if self._size < self.capacity:
            self._size += 1
            return self._size - 1
        j = int(self.rng.integers(0, n + 1))
        return j if j < self.capacity else -1

    def add_batch(self, rows: Mapping[str, Any]) -> None:
        """Offer rows in order; the result is distributed as if they were added one by one."""
        values, m = self._rows(rows)
        if m == 0:
            return
        # Rows that still fit go straight in.
        free = min(self.capacity - self._size, m)
        if free > 0:
            for name, value in values.items():
                self._data[name][self._size:self._size + free] = value[:free]
            self._size += free
            self.seen += free
        rest = m - free
        if rest == 0:
            return
        # Row number n (0-based over all rows ever seen) replaces slot j ~ U{0..n} if j < capacity.
        n = self.seen + np.arange(rest)
        j = self.rng.integers(0, n + 1)
        keep = np.flatnonzero(j < self.capacity)
        if keep.size:
            slots = j[keep]
            # When a slot is hit twice the later row wins (as in one-by-one insertion).
            _, last = np.unique(slots[::-1], return_index=True)
            last = keep.size - 1 - last
            src = free + keep[last]
            for name, value in values.items():
                self._data[name][slots[last]] = value[src]
        self.seen += rest
