"""Self-play shards (``learn.dataset``): written and read back unchanged, streamed as shuffled batches through a
bounded buffer, and every crafted or truncated file refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.games.koikoi.learn import dataset
from cfrlab.games.koikoi.learn.dataset import FIELDS, batches, read_shard, shard_name, write_shard
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, NUM_FEATURES


def _rows(n, rng, start=0):
    """``n`` valid rows; ``points`` numbers the rows from ``start`` (to follow them through the batches)."""
    features = np.full((n, MAX_ACTIVE), -1, dtype=np.int16)
    legal = np.zeros(n, dtype=np.uint64)
    values = np.full((n, 50), np.nan, dtype=np.float16)
    choice = np.empty(n, dtype=np.int8)
    for i in range(n):
        k = int(rng.integers(1, MAX_ACTIVE + 1))
        features[i, :k] = np.sort(rng.choice(NUM_FEATURES, k, replace=False))
        acts = np.sort(rng.choice(50, int(rng.integers(2, 9)), replace=False))
        legal[i] = sum(1 << int(a) for a in acts)
        values[i, acts] = rng.normal(size=len(acts))
        choice[i] = rng.choice(acts)
    win = rng.integers(-1, 2, n).astype(np.int8)
    score = np.where(win == 1, 1.0, np.where(win == 0, 0.0, np.where(rng.random(n) < 0.5, 0.5, np.nan)))
    return {"features": features, "legal": legal, "values": values, "choice": choice,
            "mover": rng.integers(0, 2, n).astype(np.int8), "points": np.arange(start, start + n, dtype=np.float32),
            "match_win": win, "match_score": score.astype(np.float32)}


def _shards(folder, sizes, rng):
    start = 0
    for i, n in enumerate(sizes):
        write_shard(folder / shard_name(i), _rows(n, rng, start), {"seed": 0})
        start += n
    return start


def test_a_shard_reads_back_as_written(tmp_path):
    rows = _rows(50, np.random.default_rng(0))
    write_shard(tmp_path / "shard-00000.npz", rows, {"seed": 3})
    arrays, meta = read_shard(tmp_path / "shard-00000.npz")
    assert meta["format"] == dataset.FORMAT and meta["version"] == dataset.VERSION and meta["seed"] == 3
    assert meta["decisions"] == 50
    for name, (dtype, shape) in FIELDS.items():
        assert arrays[name].dtype == dtype and arrays[name].shape == (50, *shape)
        assert np.array_equal(arrays[name], rows[name], equal_nan=arrays[name].dtype.kind == "f")


def test_batches_cover_every_row_once_an_epoch_in_a_seeded_order(tmp_path):
    total = _shards(tmp_path, [70, 33, 90, 5, 61], np.random.default_rng(1))
    runs = [list(batches(tmp_path, 16, seed=s, buffer=40, epochs=2)) for s in (4, 4, 5)]
    for run in runs:
        seen = np.concatenate([b["points"] for b in run])
        assert sorted(seen[:total]) == sorted(seen[total:]) == list(range(total))
        assert all(len(b["points"]) <= 16 for b in run) and sum(len(b["points"]) < 16 for b in run) <= 2
        assert not np.array_equal(seen[:total], seen[total:])  # each epoch in a new order
        row = run[0]  # the arrays of a row stay together
        assert set(row) == set(FIELDS) and all(len(v) == len(row["points"]) for v in row.values())
    a, b, c = (np.concatenate([x["points"] for x in run]) for run in runs)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    shuffled = np.concatenate([x["points"] for x in batches(tmp_path, 16, seed=0, buffer=10_000)])
    assert abs(np.corrcoef(shuffled, np.arange(total))[0, 1]) < 0.3  # a buffer of everything: a full shuffle


def test_batches_stream_the_shards(tmp_path, monkeypatch):
    """The first batch comes after a few shards are read, not all: the buffer bounds what is held."""
    _shards(tmp_path, [20] * 10, np.random.default_rng(2))
    reads = []
    original = dataset.read_shard
    monkeypatch.setattr(dataset, "read_shard", lambda path: reads.append(path) or original(path))
    stream = batches(tmp_path, 8, buffer=30)
    next(stream)
    assert len(reads) == 2
    assert sum(len(b["points"]) for b in stream) == 200 - 8 and len(reads) == 10


def _crafted(path, rows, meta):
    save_arrays(path, rows, {"format": dataset.FORMAT, "version": dataset.VERSION, "num_features": NUM_FEATURES,
                             "max_active": MAX_ACTIVE, "decisions": len(rows["choice"]), **meta})


def _broken(name, rows):
    """``rows`` with one field made wrong (``name``)."""
    rows = dict(rows)
    if name == "unsorted features":
        rows["features"] = rows["features"].copy()
        rows["features"][0, :2] = rows["features"][0, 1::-1]
    elif name == "feature too large":
        rows["features"] = rows["features"].copy()
        rows["features"][3, 0] = NUM_FEATURES
    elif name == "a hole in the features":
        rows["features"] = rows["features"].copy()
        rows["features"][2, 0] = -1
    elif name == "illegal choice":
        rows["choice"] = rows["choice"].copy()
        rows["choice"][1] = [a for a in range(50) if not int(rows["legal"][1]) >> a & 1][0]
    elif name == "value at an illegal action":
        rows["values"] = np.nan_to_num(rows["values"])
    elif name == "no value for the choice":
        rows["values"] = rows["values"].copy()
        rows["values"][0, rows["choice"][0]] = np.nan
    elif name == "one legal action":
        rows["legal"] = rows["legal"].copy()
        rows["legal"][0] = np.uint64(1) << np.uint64(int(rows["choice"][0]))
    elif name == "infinite points":
        rows["points"] = rows["points"].copy()
        rows["points"][0] = np.inf
    elif name == "match result out of range":
        rows["match_win"] = np.full_like(rows["match_win"], 2)
    elif name == "wrong dtype":
        rows["choice"] = rows["choice"].astype(np.int64)
    elif name == "missing array":
        del rows["mover"]
    elif name == "short array":
        rows["points"] = rows["points"][:-1]
    return rows


@pytest.mark.parametrize("name", ["unsorted features", "feature too large", "a hole in the features",
                                  "illegal choice", "value at an illegal action", "no value for the choice",
                                  "one legal action",
                                  "infinite points", "match result out of range", "wrong dtype", "missing array",
                                  "short array"])
def test_a_crafted_shard_is_refused_in_one_line(tmp_path, name):
    rows = _rows(12, np.random.default_rng(3))
    _crafted(tmp_path / "shard-00000.npz", _broken(name, rows), {})
    with pytest.raises(ValueError, match="is corrupt") as err:
        read_shard(tmp_path / "shard-00000.npz")
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="is corrupt"):
        next(batches(tmp_path, 4))


@pytest.mark.parametrize(("meta", "message"), [
    ({"format": "cfrlab-policy"}, "not a Koi-Koi self-play shard"), ({"version": 99}, "version 99"),
    ({"num_features": 12}, "another layout"), ({"decisions": 11}, "is corrupt"),
    ({"decisions": "12"}, "is corrupt")])
def test_a_shard_of_another_kind_or_version_is_refused(tmp_path, meta, message):
    _crafted(tmp_path / "x.npz", _rows(12, np.random.default_rng(4)), meta)
    with pytest.raises(ValueError, match=message) as err:
        read_shard(tmp_path / "x.npz")
    assert "\n" not in str(err.value)


def test_a_truncated_shard_and_a_stray_file_are_refused(tmp_path):
    write_shard(tmp_path / "a.npz", _rows(30, np.random.default_rng(5)), {})
    data = (tmp_path / "a.npz").read_bytes()
    for cut in (len(data) // 3, len(data) - 200):
        (tmp_path / "b.npz").write_bytes(data[:cut])
        with pytest.raises(ValueError, match="corrupt|truncated|not a cfrlab file") as err:
            read_shard(tmp_path / "b.npz")
        assert "\n" not in str(err.value)
    (tmp_path / "c.npz").write_text("hello")
    with pytest.raises(ValueError, match="corrupt"):
        read_shard(tmp_path / "c.npz")
    assert load_arrays(tmp_path / "a.npz")[1]["decisions"] == 30


def test_no_shards_and_bad_sizes_are_one_line(tmp_path):
    with pytest.raises(ValueError, match="no shards"):
        next(batches(tmp_path, 4))
    with pytest.raises(ValueError, match="does not exist"):
        next(batches(tmp_path / "nowhere", 4))
    with pytest.raises(ValueError, match="batch_size"):
        next(batches(tmp_path, 0))
