"""The Koi-Koi blueprint: deterministic training, exact resume, its file, the ``blueprint`` agent and the CLI."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.checkpoint import load_arrays
from cfrlab.cli.main import main
from cfrlab.eval.arena import arena
from cfrlab.games.koikoi.learn.blueprint import train_blueprint
from cfrlab.games.koikoi.players.blueprint import (
    BLUEPRINT,
    CHECKPOINT,
    SHIPPED,
    Blueprint,
    BlueprintAgent,
    load_agent,
)
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.solvers.abstraction import AbstractKoiKoiGame
from cfrlab.games.koikoi.solvers.blueprint import BlueprintMCCFR
from cfrlab.registry import load_game


def _tables(solver: BlueprintMCCFR) -> dict:
    return {k: (v.tolist(), solver.store.table_strategy[k].tolist()) for k, v in solver.store.table_regret.items()}


def test_same_seed_same_blueprint_and_another_seed_differs() -> None:
    a, b, c = (BlueprintMCCFR(AbstractKoiKoiGame(), seed=s).iterate(30) for s in (4, 4, 5))
    assert _tables(a) == _tables(b)
    assert _tables(a) != _tables(c)
    assert len(a.store.table_regret) > 50


def test_resume_equals_uninterrupted(tmp_path) -> None:
    whole = train_blueprint(tmp_path / "whole", iterations=40, seed=2, eval_deals=0, slice_iterations=40)
    train_blueprint(tmp_path / "split", iterations=15, seed=2, eval_deals=0, slice_iterations=10)
    resumed = train_blueprint(tmp_path / "split", iterations=40, seed=2, eval_deals=0, slice_iterations=10,
                              resume=True)
    assert resumed.iterations == whole.iterations == 40
    assert _tables(resumed) == _tables(whole)
    one, _ = load_arrays(tmp_path / "whole" / CHECKPOINT)
    two, _ = load_arrays(tmp_path / "split" / CHECKPOINT)
    assert all(np.array_equal(one[k], two[k]) for k in one)


def test_blueprint_file_round_trip_and_agent_plays_legal_actions(tmp_path) -> None:
    solver = BlueprintMCCFR(AbstractKoiKoiGame(), seed=0).iterate(20)
    bp = Blueprint.from_solver(solver)
    bp.save(tmp_path / BLUEPRINT)
    back = Blueprint.load(tmp_path / BLUEPRINT)
    assert back.table.keys() == bp.table.keys()
    for k, (acts, probs) in bp.table.items():
        assert back.table[k][0] == acts and np.allclose(back.table[k][1], probs, atol=1e-6)
        assert abs(probs.sum() - 1.0) < 1e-9
    agent = load_agent(tmp_path)
    game, rng = load_game("koikoi"), np.random.default_rng(0)
    s = game.new_initial_state()
    while not s.is_terminal():
        s = s.child(s.sample_chance(rng) if s.is_chance_node() else agent.act(s, rng))


def test_short_training_beats_the_untrained_abstraction_on_duplicate_deals() -> None:
    """1000 iterations of external-sampling MCCFR (plays abstracted to greedy's card) against the same abstraction
    played uniformly: the 95 % interval of the blueprint's points per deal lies above zero. Beating ``greedy``
    itself needs far longer training than a test budget (BENCHMARKS.md, "Koi-Koi blueprint")."""
    solver = BlueprintMCCFR(AbstractKoiKoiGame(plays="greedy"), seed=0, sampling="external").iterate(1000)
    trained = Blueprint.from_solver(solver)
    uniform = Blueprint({k: (a, np.full(len(a), 1.0 / len(a))) for k, (a, _) in trained.table.items()},
                        dict(trained.meta))
    res = arena(load_game("koikoi"), BlueprintAgent(trained), BlueprintAgent(uniform, threshold=0.0), deals=300,
                seed=5)
    assert res.return_a.low > 0.0, str(res.return_a)


def test_shipped_blueprint_loads_and_plays() -> None:
    game = load_game("koikoi")
    agent = make_agent("blueprint", game)
    assert SHIPPED.exists() and agent.name == "blueprint" and agent.blueprint.meta["iterations"] > 0
    assert SHIPPED.stat().st_size < 4 * 2**20
    res = arena(game, agent, GreedyAgent(), deals=5, seed=0)
    assert res.games == 10


def test_blueprint_agent_refuses_other_games() -> None:
    with pytest.raises(ValueError, match="full Koi-Koi"):
        make_agent("blueprint", load_game("kuhn"))


def test_cli_train_writes_a_playable_blueprint_and_resumes(tmp_path, capsys) -> None:
    out = str(tmp_path / "bp")
    assert main(["train", "koikoi", "--method", "mccfr", "-n", "6", "--out", out, "--eval-deals", "2"]) == 0
    err = capsys.readouterr().err
    assert "traversals/s" in err and "vs greedy" in err
    assert main(["train", "koikoi", "-n", "8", "--out", out, "--eval-deals", "0", "--resume"]) == 0
    assert Blueprint.load(tmp_path / "bp" / BLUEPRINT).meta["iterations"] == 8
    assert make_agent(f"blueprint:{out}", load_game("koikoi")).name == f"blueprint:{out}"


@pytest.mark.parametrize("args, message", [
    (["-n", "5"], "exists: pass --resume"),
    (["--method", "deep"], "--method must be one of"),
    ([], "give a budget"),
    (["--hours", "0"], "'--hours': must be a finite number > 0"),
    (["-n", "0"], "'--iterations' / '-n': Input should be greater than or equal to 1"),
    (["-n", "5", "--plays", "all"], "--plays must be greedy or features"),
])
def test_cli_train_usage_errors(tmp_path, capsys, args, message) -> None:
    out = tmp_path / "bp"
    out.mkdir()
    (out / CHECKPOINT).write_bytes(b"")
    assert main(["train", "koikoi", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("agent", ["blueprint", "cfr:20"])
def test_bot_answers_observations_with_the_blueprint(monkeypatch, capsys, agent) -> None:
    import io
    import json
    import sys

    from cfrlab.games.koikoi.rules.observation import observation

    game, rng, greedy, lines, legal = load_game("koikoi(rounds=12)"), np.random.default_rng(3), GreedyAgent(), [], []
    s = game.new_initial_state()
    while len(lines) < 8:
        if s.is_chance_node():
            s = s.child(s.sample_chance(rng))
            continue
        lines.append(json.dumps(observation(s, s.current_player())))
        legal.append(s.legal_actions())
        s = s.child(greedy.act(s, rng))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["bot", "koikoi", "--agent", agent]) == 0
    answers = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [a["action"] in ok for a, ok in zip(answers, legal)] == [True] * 8
