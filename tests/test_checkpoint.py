"""Atomic writes: a crash while writing leaves the previous file intact."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.checkpoint import CheckpointError, atomic_write_bytes, load_checkpoint, save_checkpoint


def test_crash_during_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "c.npz"
    save_checkpoint(path, {"x": np.arange(3)}, {"iterations": 1})

    def explode(handle):
        handle.write(b"partial")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        atomic_write_bytes(path, explode)
    arrays, meta = load_checkpoint(path)
    np.testing.assert_array_equal(arrays["x"], np.arange(3))
    assert meta["iterations"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]  # no temp files left behind


def test_expectations_are_checked(tmp_path):
    path = tmp_path / "c.npz"
    save_checkpoint(path, {"x": np.zeros(2)}, {"algorithm": "cfr+", "config": {"delay": 0}})
    load_checkpoint(path, expect={"algorithm": "cfr+", "config": {"delay": 0}})
    with pytest.raises(CheckpointError, match="delay"):
        load_checkpoint(path, expect={"config": {"delay": 5}})
