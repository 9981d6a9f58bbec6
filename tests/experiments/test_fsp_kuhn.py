"""Seed 004's experiment on a small budget: the CLI writes where --out says, every run is traced, and the exact
learners' curves fall. That every curve, the neural learners' included, falls at the full ``--quick`` budget (17 CPU
seconds) is checked by ``benchmarks/bench_fsp_kuhn.py``; NFSP's learning by tests/solvers/neural."""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from cfrlab.cli.main import main
from cfrlab.eval import nash_conv
from cfrlab.experiments import fsp_kuhn
from cfrlab.registry import load_game

SMALL = fsp_kuhn.Budget(fsp_episodes=3_000, nfsp_episodes=100, cfr_iterations=50, checkpoints=4, decades=1.0)
"""``--quick``'s softmax FSP and CFR+ (enough for their curves to fall), NFSP's runs only traced (8 CPU seconds)."""
EXACT = ("fsp-softmax", "cfr+")
"""The methods whose curves must fall on ``SMALL``: NFSP's memories do not fill in 100 episodes."""


def test_small_run_writes_into_out_and_the_exact_curves_fall(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(fsp_kuhn, "QUICK", SMALL)
    out = tmp_path / "figures"
    assert main(["experiment", "fsp-kuhn", "--quick", "--out", str(out)]) == 0
    printed, _ = capsys.readouterr()
    names = {p.name for p in out.iterdir()}  # the files go into OUT itself, not OUT/fsp-kuhn
    assert {"results.csv", "summary.md"} <= names and sum(name.endswith(".png") for name in names) == 5
    assert "0.02" in (out / "summary.md").read_text() and str(out) in printed
    rows = list(csv.DictReader((out / "results.csv").open()))
    curves: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in rows:
        for metric in ("nash_conv", "loss_vs_cfr+"):
            if row[metric]:
                curves[row["game"], row["method"], metric].append(float(row[metric]))
    methods = {method for _, method, _ in curves}
    assert methods >= {"fsp-softmax", "cfr+", "nfsp", "nfsp-ppo"}
    assert len(curves) == 11  # NashConv: 4 methods x 2 games + 3 learners' loss against CFR+ in 3-player Kuhn
    for key, values in curves.items():
        assert len(values) == SMALL.checkpoints, (key, values)
        assert values[-1] < values[0] or key[1] not in EXACT, (key, values)
    # CFR+ is evaluated exactly: its final NashConv matches a fresh run
    from cfrlab.solvers.cfr import CFRPlus

    expected = nash_conv(load_game("kuhn"), CFRPlus(load_game("kuhn")).iterate(50).average_policy())
    final = [float(r["nash_conv"]) for r in rows if r["game"] == "kuhn" and r["method"] == "cfr+"][-1]
    assert final == pytest.approx(expected)
