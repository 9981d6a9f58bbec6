"""Replay memories: reservoir uniformity, sampling only filled rows, FIFO order, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.solvers.buffers import CircularBuffer, ReservoirBuffer

FIELDS = {"x": ((3,), np.float32), "id": ((), np.int64)}

# Upper 0.1% quantile of the chi-square distribution with 39 degrees of freedom.
CHI2_39_999 = 72.05


def _rows(start: int, stop: int) -> dict[str, np.ndarray]:
    ids = np.arange(start, stop)
    return {"x": np.repeat(ids[:, None], 3, axis=1).astype(np.float32), "id": ids}


def _inclusion_counts(batch: bool, trials: int = 3000, n: int = 40, capacity: int = 10) -> np.ndarray:
    rng = np.random.default_rng(123 if batch else 321)
    counts = np.zeros(n)
    for _ in range(trials):
        buf = ReservoirBuffer(capacity, FIELDS, rng)
        if batch:  # uneven batches cross the "full" boundary in the middle of a batch
            for start, stop in [(0, 7), (7, 19), (19, 20), (20, 40)]:
                buf.add_batch(_rows(start, stop))
        else:
            for i in range(n):
                buf.add(x=np.full(3, i, np.float32), id=i)
        assert len(buf) == capacity and buf.seen == n
        kept = buf.data()["id"]
        assert len(set(kept.tolist())) == capacity  # a sample without replacement
        counts[kept] += 1
    return counts


@pytest.mark.parametrize("batch", [False, True])
def test_reservoir_keeps_a_uniform_sample(batch: bool) -> None:
    trials, n, capacity = 3000, 40, 10
    counts = _inclusion_counts(batch, trials, n, capacity)
    expected = trials * capacity / n
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < CHI2_39_999, (chi2, counts)
    # A biased reservoir (e.g. one that never replaces, or favours late rows) fails badly:
    assert counts[:10].sum() / counts.sum() == pytest.approx(0.25, abs=0.03)


def test_reservoir_rows_stay_consistent_across_fields() -> None:
    buf = ReservoirBuffer(8, FIELDS, 0)
    buf.add_batch(_rows(0, 100))
    data = buf.data()
    np.testing.assert_array_equal(data["x"][:, 0], data["id"].astype(np.float32))


@pytest.mark.parametrize("cls", [ReservoirBuffer, CircularBuffer])
def test_never_samples_past_filled_length(cls: type) -> None:
    buf = cls(1000, FIELDS, 7)
    buf.add_batch({"x": np.ones((5, 3), np.float32), "id": np.arange(1, 6)})
    assert len(buf) == 5
    for _ in range(200):
        batch = buf.sample(5)
        assert np.all(batch["id"] >= 1) and np.all(batch["x"] == 1)
        assert sorted(batch["id"].tolist()) == [1, 2, 3, 4, 5]
    with_repl = buf.sample(500, replace=True)
    assert set(with_repl["id"].tolist()) <= {1, 2, 3, 4, 5}
    with pytest.raises(ValueError):
        buf.sample(6)


def test_empty_buffer_refuses_to_sample() -> None:
    with pytest.raises(ValueError):
        ReservoirBuffer(4, FIELDS, 0).sample(1, replace=True)


def test_circular_buffer_keeps_most_recent_rows() -> None:
    buf = CircularBuffer(5, FIELDS, 0)
    buf.add_batch(_rows(0, 3))
    buf.add_batch(_rows(3, 9))
    assert len(buf) == 5 and buf.seen == 9
    assert sorted(buf.data()["id"].tolist()) == [4, 5, 6, 7, 8]
    buf.add_batch(_rows(9, 30))  # a batch larger than the capacity
    assert sorted(buf.data()["id"].tolist()) == [25, 26, 27, 28, 29]
    for i in range(30, 33):
        buf.add(x=np.zeros(3), id=i)
    assert sorted(buf.data()["id"].tolist()) == [28, 29, 30, 31, 32]


@pytest.mark.parametrize("cls", [ReservoirBuffer, CircularBuffer])
def test_same_seed_same_content_and_samples(cls: type) -> None:
    def run(seed: int) -> tuple[np.ndarray, np.ndarray]:
        buf = cls(16, FIELDS, seed)
        for start in range(0, 200, 13):
            buf.add_batch(_rows(start, min(start + 13, 200)))
        return buf.data()["id"].copy(), buf.sample(8)["id"]

    a, b, c = run(5), run(5), run(6)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    if cls is ReservoirBuffer:
        assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize("cls", [ReservoirBuffer, CircularBuffer])
def test_state_dict_round_trip_continues_identically(cls: type) -> None:
    a = cls(16, FIELDS, 3)
    a.add_batch(_rows(0, 40))
    b = cls(16, FIELDS, 99)
    b.load_state_dict(a.state_dict())
    a.add_batch(_rows(40, 80))
    b.add_batch(_rows(40, 80))
    np.testing.assert_array_equal(a.data()["id"], b.data()["id"])
    np.testing.assert_array_equal(a.sample(4)["id"], b.sample(4)["id"])


def test_field_errors_are_clear() -> None:
    buf = ReservoirBuffer(4, FIELDS, 0)
    with pytest.raises(KeyError, match="missing"):
        buf.add(x=np.zeros(3))
    with pytest.raises(ValueError, match="shape"):
        buf.add(x=np.zeros(4), id=1)
