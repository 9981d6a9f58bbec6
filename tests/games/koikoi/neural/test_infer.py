"""The numba forward pass equals the PyTorch network's on random inputs (issue 22: to 1e-5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.games.koikoi.learn.model import KoiKoiNet  # noqa: E402
from cfrlab.games.koikoi.neural import infer  # noqa: E402
from cfrlab.games.koikoi.neural.weights import random_weights  # noqa: E402


def random_rows(rng: np.random.Generator, num_features: int, rows: int, width: int = 64) -> np.ndarray:
    """Rows of distinct active indices (0 to ``width`` of them, sorted), padded with -1, as the dataset stores."""
    out = np.full((rows, width), -1, dtype=np.int16)
    for row in range(rows):
        k = int(rng.integers(0, min(width, num_features) + 1))
        out[row, :k] = np.sort(rng.choice(num_features, k, replace=False))
    return out


def torch_forward(net: KoiKoiNet, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with torch.no_grad():
        values, logits = net(torch.from_numpy(rows))
    return values.numpy(), logits.numpy()


@pytest.mark.parametrize(("num_features", "hidden"), [(7, (3, 2)), (90, (16, 8)), (330, (64, 32)), (330, (256, 32))])
def test_numba_forward_equals_torch(num_features: int, hidden: tuple[int, int]) -> None:
    rng = np.random.default_rng(num_features + hidden[0])
    net = KoiKoiNet(num_features, hidden, generator=rng)
    # trained weights are larger than the initial ones: scale them up so that the clips cut on both sides
    net.load_state_dict({k: v * 4 if k != "value_scale" else v for k, v in net.state_dict().items()})
    rows = random_rows(rng, num_features, 40)
    values, logits = infer.forward_batch(net.to_weights(), rows)
    want_values, want_logits = torch_forward(net, rows)
    np.testing.assert_allclose(values, want_values, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-5)
    assert np.ptp(want_values[:, 0]) > 0.1 and np.ptp(want_logits) > 0.1  # the inputs reach the outputs


def test_value_is_the_points_output_and_reads_only_n_indices() -> None:
    rng = np.random.default_rng(3)
    w = random_weights(50, (32, 16), rng)
    out_value, out_logits = np.empty(2, np.float32), np.empty(50, np.float32)
    for n in (0, 1, 5, 20):
        idx = np.full(30, 49, dtype=np.int32)  # entries past n would change the sum if read
        idx[:n] = np.sort(rng.choice(49, n, replace=False))
        infer.forward(w, idx, n, out_value, out_logits)
        assert infer.value(w, idx, n) == pytest.approx(float(out_value[0]), abs=1e-5)
        values, logits = infer.forward_batch(w, np.where(np.arange(30) < n, idx, -1)[None])
        np.testing.assert_allclose(out_logits, logits[0], atol=1e-6)


def test_empty_input_is_the_biases_through_the_layers() -> None:
    w = random_weights(10, (4, 3), np.random.default_rng(4))
    h1 = np.clip(w.b1, 0, 1)
    h2 = np.clip(h1 @ w.w2 + w.b2, 0, 1)
    values, logits = infer.forward_batch(w, np.full((1, 5), -1))
    np.testing.assert_allclose(values[0], h2 @ w.wv + w.bv, atol=1e-6)
    np.testing.assert_allclose(logits[0], h2 @ w.wp + w.bp, atol=1e-6)


def test_forward_batch_refuses_an_index_beyond_the_features() -> None:
    w = random_weights(10, (4, 3), np.random.default_rng(5))
    with pytest.raises(ValueError, match="feature index 10 is out of range for 10 features"):
        infer.forward_batch(w, np.array([[1, 10, -1]]))


def test_weights_round_trip_through_the_network_exactly() -> None:
    w = random_weights(30, (8, 4), np.random.default_rng(6))
    back = KoiKoiNet.from_weights(w).to_weights()
    for name, array in w._asdict().items():
        np.testing.assert_array_equal(getattr(back, name), array, err_msg=name)


def test_the_default_network_fits_the_shipped_file_budget(tmp_path: Path) -> None:
    from cfrlab.games.koikoi.learn.model import DEFAULT_HIDDEN
    from cfrlab.games.koikoi.neural.features import NUM_FEATURES
    from cfrlab.games.koikoi.neural.weights import save_weights

    w = KoiKoiNet(generator=np.random.default_rng(0)).to_weights()
    assert w.num_features == NUM_FEATURES and w.hidden == DEFAULT_HIDDEN
    save_weights(tmp_path / "net.npz", w)
    assert (tmp_path / "net.npz").stat().st_size <= 2 * 10**6
