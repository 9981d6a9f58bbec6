"""The network's weight file: a round trip, and every kind of bad file refused in one ValueError line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.neural.weights import (
    FORMAT,
    NetWeights,
    check_weights,
    load_weights,
    random_weights,
    save_weights,
)
from tests.forged_files import edited, with_declared_shape, write_npz

F, HIDDEN = 20, (8, 4)


@pytest.fixture
def weights() -> NetWeights:
    return random_weights(F, HIDDEN, np.random.default_rng(0))


@pytest.fixture
def saved(tmp_path: Path, weights: NetWeights) -> Path:
    path = tmp_path / "net.npz"
    save_weights(path, weights, generation=3, note="test")
    return path


def refused(path: Path, match: str, num_features: int | None = None) -> None:
    with pytest.raises(ValueError, match=match) as info:
        load_weights(path, num_features)
    assert "\n" not in str(info.value)


def test_round_trip_keeps_arrays_and_metadata(saved: Path, weights: NetWeights) -> None:
    back, meta = load_weights(saved, F)
    for name, array in weights._asdict().items():
        np.testing.assert_array_equal(getattr(back, name), array)
        assert getattr(back, name).dtype == np.float32 and getattr(back, name).flags.c_contiguous
    assert meta["generation"] == 3 and meta["note"] == "test" and meta["format"] == FORMAT
    assert meta["num_features"] == F and meta["hidden"] == list(HIDDEN) and meta["version"] == 1
    assert back.num_features == F and back.hidden == HIDDEN


def test_reserved_metadata_and_bad_weights_are_not_written(tmp_path: Path, weights: NetWeights) -> None:
    with pytest.raises(ValueError, match="reserved"):
        save_weights(tmp_path / "a.npz", weights, version=2)
    with pytest.raises(ValueError, match="non-finite"):
        save_weights(tmp_path / "b.npz", weights._replace(b2=np.array([np.nan, 0, 0, 0], np.float32)))
    assert not list(tmp_path.iterdir())


def test_other_feature_count_is_refused(saved: Path) -> None:
    refused(saved, "is for 20 features, these features have 21", num_features=21)
    with pytest.raises(ValueError, match=f"is for 20 features, these features have {NUM_FEATURES};"):
        load_weights(saved)  # by default, the count of ``features``


def test_other_format_or_version_is_refused(saved: Path, tmp_path: Path) -> None:
    refused(edited(saved, tmp_path / "f.npz", {"format": "cfrlab-policy"}), "not a Koi-Koi network")
    refused(edited(saved, tmp_path / "v.npz", {"version": 99}), "has version 99; this cfrlab reads version 1")


def test_non_finite_weights_are_refused(saved: Path, weights: NetWeights, tmp_path: Path) -> None:
    w1 = weights.w1.copy()
    w1[3, 2] = np.inf
    refused(edited(saved, tmp_path / "inf.npz", w1=w1), "w1 holds non-finite values")


def test_wrong_shapes_types_and_arrays_are_refused(saved: Path, weights: NetWeights, tmp_path: Path) -> None:
    refused(edited(saved, tmp_path / "s.npz", b1=np.zeros(9, np.float32)), r"b1 has shape \(9,\), expected \(8,\)")
    refused(edited(saved, tmp_path / "t.npz", wp=weights.wp.astype(np.float64)), "wp is float64, expected")
    refused(edited(saved, tmp_path / "x.npz", extra=np.zeros(1)), r"unexpected \['extra'\]")
    arrays = weights._asdict()
    del arrays["bp"]
    write_npz(tmp_path / "m.npz", arrays, {"format": FORMAT, "version": 1, "num_features": F, "hidden": [8, 4]})
    refused(tmp_path / "m.npz", r"missing \['bp'\]")
    refused(edited(saved, tmp_path / "d.npz", {"num_features": 19}), "declares 19 features")
    refused(edited(saved, tmp_path / "v.npz", w1=np.zeros(5, np.float32)), "not a network's first layers")


def test_crafted_and_truncated_files_are_refused(saved: Path, tmp_path: Path) -> None:
    (tmp_path / "text.npz").write_text("not a zip file")
    refused(tmp_path / "text.npz", "corrupt or truncated")
    raw = saved.read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    refused(tmp_path / "cut.npz", "corrupt or truncated")
    refused(with_declared_shape(saved, tmp_path / "big.npz", "w1", (10**6, 8)), "declares shape")
    np.savez(tmp_path / "plain.npz", w1=np.zeros((2, 2)))
    refused(tmp_path / "plain.npz", "not a cfrlab file")
    refused(tmp_path, "is a folder")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_weights(tmp_path / "absent.npz")


def test_check_weights_refuses_a_non_contiguous_array(weights: NetWeights) -> None:
    with pytest.raises(ValueError, match=r"w2 is float32 \(not C-contiguous\)"):
        check_weights(weights._replace(w2=np.asfortranarray(weights.w2)))


def test_the_modules_the_search_imports_leave_torch_out() -> None:
    code = ("import sys, cfrlab.games.koikoi.neural.infer, cfrlab.games.koikoi.neural.weights; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
