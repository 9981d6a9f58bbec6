"""Training the network: same seed same weights on the CPU, and it learns a rule planted in the data."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.games.koikoi.learn.fit import batch_tensors, evaluate, fit, legal_rows, losses  # noqa: E402
from cfrlab.games.koikoi.learn.model import KoiKoiNet  # noqa: E402
from cfrlab.games.koikoi.neural import infer  # noqa: E402

F = 24


def planted(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Decisions in the dataset's layout where feature 0 makes the round +6 (else -6), feature 1 makes the
    choice KOIKOI (else STOP, both always legal beside a few cards), feature 2 wins the match; half the matches
    unknown."""
    features = np.full((n, 64), -1, dtype=np.int16)
    active = rng.random((n, F)) < 0.4
    legal = np.zeros(n, dtype=np.uint64)
    values = np.full((n, 50), np.nan, dtype=np.float16)
    choice = np.zeros(n, dtype=np.int8)
    for row in range(n):
        on = np.flatnonzero(active[row])
        features[row, :len(on)] = on
        actions = np.append(rng.choice(48, int(rng.integers(0, 4)), replace=False), [48, 49])
        legal[row] = np.bitwise_or.reduce(np.uint64(1) << actions.astype(np.uint64))
        choice[row] = 49 if active[row, 1] else 48
    points = np.where(active[:, 0], 6.0, -6.0).astype(np.float32)
    values[legal_rows(legal)] = np.repeat(points, [bin(int(m)).count("1") for m in legal])
    match_win = np.where(rng.random(n) < 0.5, -1, active[:, 2]).astype(np.int8)
    return {"features": features, "legal": legal, "values": values, "choice": choice, "points": points,
            "match_win": match_win}


def batches(seed: int, count: int, size: int = 64) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [planted(rng, size) for _ in range(count)]


def state(net: KoiKoiNet) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


def test_same_seed_same_weights_on_the_cpu() -> None:
    data = batches(0, 5)
    runs = []
    for _ in range(2):
        net = KoiKoiNet(F, (16, 8), generator=np.random.default_rng(1))
        report = fit(net, data, steps=5, lr=1e-2, seed=7, device="cpu")
        runs.append((state(net), report))
    for name, array in runs[0][0].items():
        np.testing.assert_array_equal(runs[1][0][name], array, err_msg=name)
    assert runs[0][1] == runs[1][1] and runs[0][1]["steps"] == 5


def test_the_seed_draws_the_rows_of_an_array_dataset() -> None:
    data = planted(np.random.default_rng(0), 300)
    finals = []
    for seed in (1, 1, 2):
        net = KoiKoiNet(F, (16, 8), generator=np.random.default_rng(1))
        fit(net, data, steps=3, lr=1e-2, seed=seed, batch_size=32, device="cpu")
        finals.append(state(net)["first.weight"])
    np.testing.assert_array_equal(finals[0], finals[1])
    assert not np.array_equal(finals[0], finals[2])


def test_fit_learns_the_planted_rules() -> None:
    net = KoiKoiNet(F, (32, 16), generator=np.random.default_rng(2))
    test = planted(np.random.default_rng(5), 200)
    before = evaluate(net, [test])
    report = fit(net, batches(4, 300), steps=300, lr=1e-2, seed=0, device="cpu", threads=1)
    after = evaluate(net, [{k: v[:150] for k, v in test.items()}, {k: v[150:] for k, v in test.items()}])
    with torch.no_grad():
        assert after == pytest.approx({k: float(v) for k, v in losses(net, batch_tensors(test)).items()}, rel=1e-5)
    assert report["steps"] == 300
    assert all(after[k] < before[k] / 10 for k in ("points", "search", "win")), (before, after)
    assert after["policy"] < before["policy"] / 10 and after["accuracy"] > 0.95
    values, logits = infer.forward_batch(net.to_weights(), test["features"])  # the exported network is judged
    assert np.mean(np.abs(values[:, 0] - test["points"])) < 1.0
    wins = test["match_win"] >= 0
    assert np.mean((values[wins, 1] > 0) == (test["match_win"][wins] == 1)) > 0.95
    masked = np.where(legal_rows(test["legal"]), logits, -np.inf)
    assert np.mean(masked.argmax(axis=1) == test["choice"]) > 0.95


def test_losses_by_hand_on_one_row() -> None:
    net = KoiKoiNet(F, (4, 4), generator=np.random.default_rng(0))
    batch = planted(np.random.default_rng(1), 1)
    batch["match_win"][:] = 1
    with torch.no_grad():
        terms = losses(net, batch_tensors(batch))
        values, logits = (x.numpy().astype(np.float64) for x in net(torch.from_numpy(batch["features"])))
    legal = legal_rows(batch["legal"])[0]
    logp = logits[0, legal] - np.log(np.exp(logits[0, legal]).sum())
    chosen = int(np.flatnonzero(np.flatnonzero(legal) == batch["choice"][0])[0])
    assert float(terms["policy"]) == pytest.approx(-logp[chosen], rel=1e-5)
    assert float(terms["points"]) == pytest.approx(((values[0, 0] - batch["points"][0]) / 8.0) ** 2, rel=1e-5)
    assert float(terms["search"]) == pytest.approx(float(terms["points"]), rel=1e-3)  # values = points here
    assert float(terms["win"]) == pytest.approx(float(np.log1p(np.exp(-values[0, 1]))), rel=1e-5)
    batch["match_win"][:] = -1
    with torch.no_grad():
        assert float(losses(net, batch_tensors(batch))["win"]) == 0.0


def test_runs_out_with_the_batches_and_refuses_bad_input() -> None:
    net = KoiKoiNet(F, (4, 4), generator=np.random.default_rng(0))
    assert fit(net, batches(0, 3), steps=10, device="cpu")["steps"] == 3
    bad = batches(0, 1)[0]
    bad["choice"][0] = 49 if not (int(bad["legal"][0]) >> 49) & 1 else 0
    with pytest.raises(ValueError, match="not one of its legal actions"):
        fit(net, [bad], steps=1, device="cpu")
    with pytest.raises(ValueError, match="steps must be >= 0"):
        fit(net, [], steps=-1)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")
def test_fit_on_a_gpu_exports_the_same_network_infer_reads() -> None:
    net = KoiKoiNet(F, (16, 8), generator=np.random.default_rng(1))
    fit(net, batches(0, 20), steps=20, lr=1e-2, seed=0)
    assert next(net.parameters()).is_cuda
    rows = batches(9, 1)[0]["features"]
    values, logits = infer.forward_batch(net.to_weights(), rows)
    with torch.no_grad():
        want_values, want_logits = net(torch.from_numpy(rows).cuda())
    np.testing.assert_allclose(values, want_values.cpu().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(logits, want_logits.cpu().numpy(), rtol=1e-4, atol=1e-4)
