"""The ``neural`` Koi-Koi agent: its spec, its weights (shipped, a file, a training folder; crafted ones refused in
one line), no peeking at the hidden cards, and play, arena, serve and bot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cfrlab.agents import make_agent, with_search_options
from cfrlab.agents.opponents import build_opponent
from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.cli.main import main
from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.neural.weights import random_weights, save_weights
from cfrlab.games.koikoi.players import neural
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.registry import load_game
from tests.games.koikoi.test_search import assert_same_search_on_other_completions, decision_states
from tests.games.koikoi.ui.test_cli_bot import _observations, run_bot


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training folder holding ``weights.npz`` (a small random network)."""
    folder = tmp_path_factory.mktemp("run")
    save_weights(folder / "weights.npz", random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(1), 0.2))
    return folder


def test_neural_spec_reads_budget_objective_and_weights(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("koikoi")
    agent = make_agent(f"neural:{run}", game)
    assert agent.config.rollouts == 200 and agent.config.cutoff == neural.CUTOFF and agent.name == f"neural:{run}"
    assert agent.evaluator.weights.w1.shape == (NUM_FEATURES, 16)
    timed = make_agent(f"neural:20ms:match:{run / 'weights.npz'}", load_game("koikoi(rounds=12)"))
    assert timed.config.seconds == 0.02 and timed.config.objective == "match"
    assert make_agent(f"neural:40:{run}", game).config.rollouts == 40
    assert with_search_options(f"neural:20ms:{run}", None, "match") == f"neural:20ms:match:{run}"
    assert with_search_options("neural:20ms", None, "match") == "neural:20ms:match"
    mini = make_agent(f"neural:8:{run}", load_game("koikoi_mini_tsukifuda"))  # every Koi-Koi game
    assert mini.config.rollouts == 8
    monkeypatch.setattr(neural, "SHIPPED", run / "none.npz")
    with pytest.raises(FileNotFoundError, match="no network weights ship"):
        make_agent("neural:20ms", game)
    monkeypatch.setattr(neural, "SHIPPED", run / "weights.npz")
    assert make_agent("neural:20ms", game).config.seconds == 0.02
    with pytest.raises(ValueError, match="Koi-Koi only"):
        make_agent(f"neural:{run}", load_game("kuhn"))


def test_neural_searches_with_the_cutoff_its_network_was_trained_with(tmp_path: Path) -> None:
    weights = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(1), 0.2)
    save_weights(tmp_path / "mini.npz", weights, cutoff=1)
    assert make_agent(f"neural:8:{tmp_path / 'mini.npz'}", load_game("koikoi_mini_tsukifuda")).config.cutoff == 1
    for bad in (0, 2.5, "4", 65):
        save_weights(tmp_path / "bad.npz", weights, cutoff=bad)
        with pytest.raises(ValueError, match="is not a number of half-turns"):
            make_agent(f"neural:8:{tmp_path / 'bad.npz'}", load_game("koikoi"))


def test_neural_never_reads_the_hidden_cards(run: Path) -> None:
    """Two true states that differ only in the opponent's hand and the stock get the same move and values."""
    game = load_game("koikoi")
    agent = make_agent(f"neural:12:{run}", game)
    assert assert_same_search_on_other_completions(game, [agent], decision_states(game, 15, seed=19), seed=3) >= 10


def _crafted(folder: Path) -> dict[str, Path]:
    """Weight files a user could pass that are not a network of these features."""
    good = folder / "weights.npz"
    arrays, meta = load_arrays(good)
    files = {"garbage": folder / "garbage.npz", "empty_dir": folder / "empty"}
    files["garbage"].write_bytes(b"not a zip file")
    files["empty_dir"].mkdir(exist_ok=True)
    edits = {"nan": ({"w2": np.full_like(arrays["w2"], np.nan)}, {}),
             "other_format": ({}, {"format": "cfrlab-blueprint"}),
             "other_version": ({}, {"version": 99}),
             "missing": ({"wp": None}, {}),
             "other_features": ({"w1": arrays["w1"][:-3]}, {"num_features": NUM_FEATURES - 3}),
             "float64": ({"b1": arrays["b1"].astype(np.float64)}, {})}
    for name, (array_edits, meta_edits) in edits.items():
        edited = {k: v for k, v in {**arrays, **array_edits}.items() if v is not None}
        save_arrays(folder / f"{name}.npz", edited, {**meta, **meta_edits})
        files[name] = folder / f"{name}.npz"
    files["truncated"] = folder / "truncated.npz"
    files["truncated"].write_bytes(good.read_bytes()[:200])
    return files


def test_crafted_weights_are_refused_in_one_line(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, path in _crafted(run).items():
        before = path.read_bytes() if path.is_file() else None
        code = main(["arena", "koikoi", f"neural:4:{path}", "greedy", "-n", "1"])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, (name, err)
        assert before is None or path.read_bytes() == before
    for spec in ("neural:0", "neural:0ms", f"neural:99999999999:{run}"):
        assert main(["arena", "koikoi", spec, "greedy", "-n", "1"]) == 2
        assert "neural[:N|:Tms][:points|match][:PATH]" in capsys.readouterr().err


def test_neural_plays_in_play_arena_serve_and_bot(run: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from cfrlab.games.koikoi.ui.terminal import run_play

    spec = f"neural:6:{run}"
    assert main(["arena", "koikoi", spec, "greedy", "--rounds", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agent_a"] == spec
    answers = iter(["1"] * 40 + ["s"] * 5)
    lines: list[str] = []
    returns = run_play("koikoi", spec, seed=4, input_fn=lambda prompt: next(answers), print_fn=lines.append)
    assert "Game over" in "\n".join(lines) and returns[0] == -returns[1]
    assert build_opponent(load_game("koikoi"), spec).name == spec
    cases = _observations(6)
    code, lines_out, _ = run_bot(monkeypatch, capsys, [json.dumps(o) for o, _ in cases], "--agent",
                                 f"neural:6:match:{run}")
    assert code == 0 and [json.loads(x)["action"] in ok for x, (_, ok) in zip(lines_out, cases)] == [True] * 6


def test_neural_oos_reads_no_hidden_card_and_plays_rounds_and_matches(run: Path) -> None:
    """``neural:oos``: OOS with the network beyond its tree; the same move and tables on another completion of the
    hidden cards; each round's solver of a match gets the network; mini decks and a bad time are refused."""
    from cfrlab.eval.arena import arena
    from cfrlab.games.koikoi.rules.observation import observation, state_from_observation
    from tests.solvers.oos_reference import random_decision

    game = load_game("koikoi")
    state = random_decision(game, 7, earlier=5)
    player = state.current_player()
    other = state_from_observation(observation(state, player), game.rules, rng=3)
    agents = [neural.NetOOSAgent(game, neural.load_network(str(run)), samples=200) for _ in range(2)]
    moves = {agent.act(s, np.random.default_rng(11)) for agent, s in zip(agents, (state, other))}
    key = state.information_state_key(player)
    assert len(moves) == 1 and agents[0].solver.policy_at(key) == agents[1].solver.policy_at(key)
    assert agents[0].solver.store.round.cut
    timed = make_agent(f"neural:oos:0.002:{run}", game)
    assert timed.seconds == 0.002 and timed.name == f"neural:oos:0.002:{run}" and timed.solver.store.round.cut
    match = load_game("koikoi(rounds=3)")
    agent = make_agent(f"neural:oos:0.001:{run}", match)
    result = arena(match, agent, GreedyAgent(), deals=1, seed=1)
    assert result.rounds >= 2 and agent.solver.store.round.cut
    with pytest.raises(ValueError, match="full-deck"):
        make_agent(f"neural:oos:0.001:{run}", load_game("koikoi_mini"))
    assert with_search_options(f"neural:oos:0.1:{run}", None, "match") == f"neural:oos:0.1:{run}"
    for bad in ("neural:oos:0", f"neural:oos:1e9:{run}"):
        with pytest.raises((ValueError, OSError)):
            make_agent(bad, game)
