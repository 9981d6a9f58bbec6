"""`cfrlab eval` of a hold'em strategy in the real game: LBR below the exact real exploitability, head-to-head
play against the rule players in mb/h (the arena's duplicate deals), and one line for each mistake."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cfrlab.cli.common as common
from cfrlab.cli.main import main
from cfrlab.games.holdem.abstraction.abstract_game import with_abstraction
from cfrlab.games.holdem.eval.lbr import lbr_returns
from cfrlab.games.holdem.eval.real_game import RealGameStrategy
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.runlog import RECOMPUTED
from cfrlab.tree import load_tree
from tests.games.holdem.conftest import REAL


def _json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_lbr_from_the_cli_is_below_the_exact_real_exploitability(capsys, strategy_file) -> None:
    report = _json(capsys, ["eval", str(strategy_file), "--lbr", "300", "--real-exact", "--json"])
    real, lbr = report["real_mbb_per_hand"], report["lbr_mbb_per_hand"]
    assert report["real_exploitability"] * 100 == pytest.approx(real)  # 10-chip small bet: 100 mb/h a chip
    assert lbr["low"] <= real  # a lower bound
    assert lbr["mean"] > 0 and real > report["mbb_per_hand"]  # the coarse abstraction loses on real cards
    assert lbr["low"] < lbr["mean"] < lbr["high"]
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--lbr", "20"]) == 0
    assert "LBR (lower bound on the real exploitability, 20 deals x 2 seats)" in capsys.readouterr().out


def test_lbr_and_versus_show_progress(capsys, monkeypatch, strategy_file) -> None:
    """Off a terminal: plain lines with the deals done, deals/s and the time left, on stderr; none with --json."""
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--lbr", "6", "--versus", "call,raise", "--hands", "4"]) == 0
    err = capsys.readouterr().err
    lbr = [line for line in err.splitlines() if line.startswith("LBR: ") and "/6 deals" in line]
    assert len(lbr) == 6 and lbr[-1].startswith("LBR: 6/6 deals, ") and " deals/s, " in lbr[-1]
    assert " left, " in lbr[-1] and "elapsed" in lbr[-1]
    for name in ("call", "raise"):
        assert any(line.startswith(f"vs {name}: 4/4 deals, ") for line in err.splitlines())
    _json(capsys, ["eval", str(strategy_file), "--lbr", "3", "--json"])
    assert "deals/s" not in capsys.readouterr().err


def test_lbr_deals_do_not_depend_on_how_they_are_split() -> None:
    game = with_abstraction(load_game(REAL), "ehs2:2,3,2")
    strategy = RealGameStrategy(game, TabularPolicy.uniform(load_tree(game)))
    seeds = np.random.SeedSequence(4).spawn(6)
    whole = lbr_returns(strategy.real, strategy, seeds, rollouts=20)
    assert whole == lbr_returns(strategy.real, strategy, seeds[:2], 20) + lbr_returns(strategy.real, strategy,
                                                                                      seeds[2:], 20)


def test_versus_gives_the_arena_figures_in_mbb(capsys, strategy_file) -> None:
    report = _json(capsys, ["eval", str(strategy_file), "--versus", "call,raise,strength", "--hands", "150",
                            "--seed", "3", "--json"])
    assert list(report["versus_mbb_per_hand"]) == ["call", "raise", "strength"]
    arena = _json(capsys, ["arena", REAL, f"policy:{strategy_file}", "strength", "-n", "150", "--seed", "3",
                           "--json"])
    assert report["versus_mbb_per_hand"]["strength"] == pytest.approx(arena["mbb_per_hand_a"])
    assert report["versus_mbb_per_hand"]["call"]["mean"] > 0  # a calling station loses to a solved strategy


def test_no_exact_plays_the_same_deals_without_the_exact_evaluation(capsys, strategy_file) -> None:
    asked = ["--versus", "strength", "--hands", "40", "--lbr", "10", "--seed", "2"]
    full = _json(capsys, ["eval", str(strategy_file), *asked, "--json"])
    played = _json(capsys, ["eval", str(strategy_file), *asked, "--no-exact", "--json"])
    assert "exploitability" in full and "exploitability" not in played and "value" not in played
    for key in ("versus_mbb_per_hand", "lbr_mbb_per_hand", "abstraction_table", "iterations"):
        assert played[key] == full[key]
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--versus", "call", "--hands", "5", "--no-exact"]) == 0
    out = capsys.readouterr().out
    assert "strategy vs call (5 duplicate deals)" in out and "exploitability" not in out


def test_a_real_game_strategy_is_played_as_well(capsys, tmp_path) -> None:
    out = tmp_path / "real.npz"
    assert main(["solve", REAL, "--algo", "cfr+", "-n", "200", "--out", str(out), "--quiet"]) == 0
    report = _json(capsys, ["eval", str(out), "--lbr", "100", "--real-exact", "--versus", "call", "--hands", "50",
                            "--json"])
    assert report["real_exploitability"] == pytest.approx(report["exploitability"])
    assert report["lbr_mbb_per_hand"]["low"] <= report["real_mbb_per_hand"]
    played = _json(capsys, ["eval", str(out), "--versus", "call", "--hands", "50", "--no-exact", "--json"])
    assert "exploitability" not in played and played["versus_mbb_per_hand"] == report["versus_mbb_per_hand"]


@pytest.mark.parametrize("args, message", [
    (["--versus", "call,,raise"], "separated by commas"),
    (["--versus", "call,nobody"], "unknown agent 'nobody'; choose random, call, raise, strength"),
    (["--lbr", "0"], "--lbr"),
    (["--lbr", "5", "--rollouts", "0"], "--rollouts"),
    (["--versus", "call", "--hands", "0"], "--hands"),
    (["--versus", "call", "--workers", "0"], "--workers"),
    (["--no-exact"], "--no-exact leaves nothing to evaluate"),
])
def test_mistakes_are_one_line(capsys, strategy_file, args, message) -> None:
    capsys.readouterr()
    assert main(["eval", str(strategy_file), *args]) == 2
    out, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1 and out == ""


def test_other_games_are_refused(capsys, tmp_path) -> None:
    out = tmp_path / "kuhn.npz"
    assert main(["solve", "kuhn", "-n", "10", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    for args in (["--lbr", "5"], ["--real-exact"], ["--versus", "call"], ["--versus", "call", "--no-exact"]):
        assert main(["eval", str(out), *args]) == 2
        out_text, err = capsys.readouterr()
        assert f"{args[0]} is an option of hold'em games, not of kuhn" in err and out_text == ""


def test_too_many_local_workers_are_refused_before_the_exact_evaluation(capsys, strategy_file, monkeypatch) -> None:
    import cfrlab.distributed as distributed

    monkeypatch.setattr(distributed, "running_cluster", lambda: None)
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--lbr", "5", "--workers", "999"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "CPUs" in err and len(err.strip().splitlines()) == 1


def test_an_lbr_log_is_continued_not_replayed(capsys, monkeypatch, strategy_file, tmp_path) -> None:
    """``--lbr-log`` keeps each deal; a second run plays only the deals the log lacks (a torn last line is played
    again) and gives the figures of one uninterrupted run."""
    import cfrlab.games.holdem.eval.real_game as real_game

    log = tmp_path / "lbr.jsonl"
    whole = _json(capsys, ["eval", str(strategy_file), "--lbr", "10", "--seed", "2", "--json"])["lbr_mbb_per_hand"]
    first = _json(capsys, ["eval", str(strategy_file), "--lbr", "6", "--seed", "2", "--lbr-log", str(log), "--json"])
    lines = log.read_text().splitlines()
    assert len(lines) == 7 and [json.loads(line)["deal"] for line in lines[1:]] == list(range(6))
    log.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:9])  # the last deal's line torn by a kill
    played: list[int] = []
    play_one = real_game._lbr_one
    monkeypatch.setattr(real_game, "_lbr_one", lambda strategy, seed, rollouts: played.append(1) or play_one(
        strategy, seed, rollouts))
    monkeypatch.setattr("cfrlab.runlog.RECOMPUTE_SECONDS", 0.0)  # the logged deals played again: RECOMPUTED
    second = _json(capsys, ["eval", str(strategy_file), "--lbr", "10", "--seed", "2", "--lbr-log", str(log),
                            "--json"])["lbr_mbb_per_hand"]
    assert len(played) == 5 + RECOMPUTED  # deals 5 (torn) to 9, and a sample of the logged ones played again
    assert second == pytest.approx(whole, abs=1e-9) and first["lbr_mbb_per_hand"] != whole
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--lbr", "10", "--seed", "2", "--lbr-log", str(log)]) == 0
    assert "10 of 10 deals already in" in capsys.readouterr().err and len(played) == 5 + 2 * RECOMPUTED


def _edited_deals(log: Path, edit) -> str:  # type: ignore[no-untyped-def]
    lines = log.read_text().splitlines()
    records = [json.loads(line) for line in lines[1:]]
    return "\n".join([lines[0], *(json.dumps(r) for r in edit(records))]) + "\n"


@pytest.mark.parametrize("edit, says", [
    (lambda rs: [{**r, "chips": 1000.0} for r in rs], "beyond"),
    (lambda rs: [{**r, "chips": 1e300} for r in rs], "beyond"),
    (lambda rs: [*rs, rs[0]], "twice"),
    (lambda rs: [{**r, "chips": r["chips"] + 0.5} for r in rs], "recomputed now"),
    (lambda rs: [{**rs[0], "deal": -1}], "not one of"),
])
def test_an_edited_lbr_log_is_refused_in_one_line(capsys, strategy_file, tmp_path, edit, says) -> None:  # type: ignore[no-untyped-def]
    """Deals edited to 1,000 chips reported +100,000 mb/h, 1e300 chips 1.7e301 with a null interval, and a
    duplicated deal changed the result: each resumed deal is checked, a sample of them played again."""
    log = tmp_path / "lbr.jsonl"
    _json(capsys, ["eval", str(strategy_file), "--lbr", "3", "--lbr-log", str(log), "--json"])
    log.write_text(_edited_deals(log, edit))
    before = log.read_bytes()
    assert main(["eval", str(strategy_file), "--lbr", "3", "--lbr-log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert says in err and err.count("\n") == 1 and "Traceback" not in out + err, err
    assert log.read_bytes() == before


@pytest.mark.parametrize("make, message", [
    (lambda log: log.write_text('{"meta": {"lbr_log": 1}}\n'), "LBR deals of another run"),
    (lambda log: log.write_text('{"meta": {"iterations": 3}}\n{"iteration": 1}\n'), "not an LBR log"),
    (lambda log: log.write_bytes(b"\xff\xfe junk"), "not a run log"),
    (lambda log: None, "give --lbr too"),
])
def test_a_wrong_lbr_log_is_one_line_and_kept(capsys, strategy_file, tmp_path, make, message) -> None:
    log = tmp_path / "lbr.jsonl"
    make(log)
    before = log.read_bytes() if log.exists() else None
    args = ["--lbr", "3"] if message != "give --lbr too" else []
    capsys.readouterr()
    assert main(["eval", str(strategy_file), *args, "--lbr-log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1 and out == ""
    assert (log.read_bytes() if log.exists() else None) == before


def test_an_lbr_log_of_another_seed_is_refused(capsys, strategy_file, tmp_path) -> None:
    log = tmp_path / "lbr.jsonl"
    _json(capsys, ["eval", str(strategy_file), "--lbr", "2", "--lbr-log", str(log), "--json"])
    before = log.read_bytes()
    assert main(["eval", str(strategy_file), "--lbr", "2", "--seed", "1", "--lbr-log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert "its seed differ" in err and err.count("\n") == 1 and log.read_bytes() == before


def test_a_range_looked_up_at_once_equals_one_hand_at_a_time(strategy_file) -> None:
    """``RealGameStrategy.range_probs`` (row arithmetic over a whole range) gives each hand's ``strategy(state)``,
    and LBR's deals are the same with it as with one call per hand."""
    from itertools import combinations

    from cfrlab.games.holdem.eval.lbr import _with_hole

    game = with_abstraction(load_game(REAL), "ehs2:2,3,2")
    policy, _ = TabularPolicy.load(strategy_file, game)
    strategy = RealGameStrategy(game, policy)
    real, rng, checked = strategy.real, np.random.default_rng(0), 0
    holes = list(combinations(range(real.deck_size), real.hole_cards))
    for _ in range(40):
        state = real.new_initial_state()
        while not state.is_terminal():
            if state.current_player() < 0:
                outcomes = state.chance_outcomes()
                state = state.child(outcomes[rng.integers(len(outcomes))][0])
                continue
            live = np.array([not set(h) & set(state.board()) for h in holes]) & (rng.random(len(holes)) < 0.8)
            table = strategy.range_probs(state, holes, live)
            for i, hole in enumerate(holes):
                expected = strategy(_with_hole(state, state.current_player(), hole)) if live[i] else {}
                assert table[i].tolist() == [expected.get(a, 0.0) for a in range(3)]
            checked += 1
            legal = state.legal_actions()
            state = state.child(legal[rng.integers(len(legal))])
    assert checked > 50

    class OneAtATime:
        def __call__(self, state):
            return strategy(state)

    seeds = np.random.SeedSequence(3).spawn(20)
    assert lbr_returns(real, strategy, seeds, 20) == lbr_returns(real, OneAtATime(), seeds, 20)


@pytest.mark.parametrize("logged", [False, True])
def test_ctrl_c_during_lbr_is_one_line_and_exit_130(capsys, monkeypatch, strategy_file, tmp_path, logged) -> None:
    """A Ctrl-C (KeyboardInterrupt) in the middle of the deals: exit 130 and one line, which with --lbr-log says
    how many deals the log keeps; the same command then plays only the others."""
    import cfrlab.games.holdem.eval.real_game as real_game

    play_one, played = real_game._lbr_one, []

    def interrupted_at_the_fourth(strategy, seed, rollouts):
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(1)
        return play_one(strategy, seed, rollouts)

    monkeypatch.setattr(real_game, "_lbr_one", interrupted_at_the_fourth)
    log = tmp_path / "lbr.jsonl"
    capsys.readouterr()
    assert main(["eval", str(strategy_file), "--lbr", "8", *(["--lbr-log", str(log)] if logged else [])]) == 130
    lines = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("LBR: ")]
    assert lines == ([f"interrupted: 3 deals kept in '{log}'; the same command continues them"] if logged else
                     ["interrupted (Ctrl-C): stopped at once; what was already written is kept"])
    if logged:
        monkeypatch.setattr(real_game, "_lbr_one", play_one)
        report = _json(capsys, ["eval", str(strategy_file), "--lbr", "8", "--lbr-log", str(log), "--json"])
        assert report["lbr_mbb_per_hand"] == _json(capsys, ["eval", str(strategy_file), "--lbr", "8",
                                                            "--json"])["lbr_mbb_per_hand"]
