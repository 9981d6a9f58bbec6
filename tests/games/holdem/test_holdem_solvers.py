"""Abstract limit hold'em: the game protocol, exact exploitability, and the two solvers on a small deck."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.eval import exploitability
from cfrlab.games.holdem.abstraction.abstract_game import AbstractHoldem, with_abstraction
from cfrlab.games.holdem.solvers.cfr import ChanceSampledHoldemCFR
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.testing import check_game
from cfrlab.tree import load_tree

REAL = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def abstract() -> AbstractHoldem:
    return with_abstraction(load_game(REAL), "ehs2:2,3,2")


def test_abstract_game_passes_check_game(abstract: AbstractHoldem) -> None:
    report = check_game(abstract, max_states=20_000)
    assert report.enumerated and report.infosets == {0: 256, 1: 256}
    assert abstract.num_nodes() == report.states == load_tree(abstract).num_nodes


def test_fingerprint_follows_the_abstraction_version(abstract: AbstractHoldem, monkeypatch) -> None:
    """A compiled tree or strategy file of an older bucket rule is never reused (they are keyed by fingerprint)."""
    import cfrlab.games.holdem.abstraction.abstract_game as module
    from cfrlab.games.holdem.abstraction.abstraction import ABSTRACTION_VERSION

    before = abstract.fingerprint()
    monkeypatch.setattr(module.AbstractHoldem, "rules_version", f"ehs2-{ABSTRACTION_VERSION + 1}.1")
    assert load_game(abstract.spec()).fingerprint() != before


def test_too_large_abstract_game_is_refused_at_once() -> None:
    from cfrlab.tree.compile import TreeTooLarge, compile_tree

    game = with_abstraction(load_game("holdem(ranks=5,suits=2)"), "ehs2:3")
    assert game.num_nodes() > 20_000_000
    with pytest.raises(TreeTooLarge, match="nodes"):
        compile_tree(game)


def test_chance_follows_the_joint_table(abstract: AbstractHoldem) -> None:
    root = abstract.new_initial_state()
    outcomes = dict(root.chance_outcomes())
    marginal = abstract.joint_by_round[0]
    assert outcomes == pytest.approx({b0 * 2 + b1: marginal[b0, b1] for b0 in range(2) for b1 in range(2)})


def test_vectorised_best_response_equals_the_compiled_tree(abstract: AbstractHoldem) -> None:
    tree = load_tree(abstract)
    for solver in (VectorHoldemCFRPlus(abstract).iterate(7), ChanceSampledHoldemCFR(abstract, seed=3).iterate(500)):
        assert solver.exact_exploitability() == pytest.approx(exploitability(tree, solver.average_policy()), abs=1e-9)
        assert solver.exact_exploitability() > 1e-3


def test_both_solvers_reach_the_same_value(abstract: AbstractHoldem) -> None:
    """CFR+ to near zero; chance-sampled CFR below a stated bound; values within the two bounds."""
    vector = VectorHoldemCFRPlus(abstract).iterate(600)
    sampled = ChanceSampledHoldemCFR(abstract, seed=1).iterate(300_000)
    assert vector.exact_exploitability() < 0.01  # chips: 1 mb/h
    assert sampled.exact_exploitability() < 0.1  # chips: 10 mb/h
    bound = vector.exact_exploitability() + sampled.exact_exploitability()
    assert abs(vector.expected_value() - sampled.expected_value()) <= 2 * bound
    assert vector.exact_evaluation()["mbb_per_hand"] == pytest.approx(100 * vector.exact_exploitability())


def test_chance_sampled_resume_is_exact(abstract: AbstractHoldem, tmp_path) -> None:
    straight = ChanceSampledHoldemCFR(abstract, seed=5, batch=64).iterate(1000)
    first = ChanceSampledHoldemCFR(abstract, seed=5, batch=64).iterate(400)
    first.save_checkpoint(tmp_path / "c.npz")
    second = ChanceSampledHoldemCFR(abstract, seed=5, batch=64)
    second.load_checkpoint(tmp_path / "c.npz")
    second.iterate(600)
    np.testing.assert_array_equal(second.regret, straight.regret)
    np.testing.assert_array_equal(second.average, straight.average)


def test_solvers_refuse_other_games() -> None:
    with pytest.raises(ValueError, match="holdem_ehs2"):
        VectorHoldemCFRPlus(load_game("kuhn"))


def test_cli_solve_with_abstraction(capsys, tmp_path) -> None:
    out = tmp_path / "s.npz"
    assert main(["solve", REAL, "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "-n", "50",
                 "--out", str(out), "--quiet"]) == 0
    assert out.exists()
    capsys.readouterr()
    assert main(["eval", str(out), "--json"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    game = with_abstraction(load_game(REAL), "ehs2:2,3,2")
    tree_value = exploitability(load_tree(game), TabularPolicy.load(out, game)[0])
    assert report["exploitability"] == pytest.approx(tree_value, abs=1e-9)
    assert report["mbb_per_hand"] == pytest.approx(100 * tree_value)
    for bad, message in (("ehs3:5", "unknown abstraction"), ("ehs2:2,x", "integers"), ("ehs2:2,2", "one per round")):
        assert main(["solve", REAL, "--abstraction", bad, "--algo", "vector-cfr+", "-n", "5"]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err
    assert main(["solve", "leduc", "--abstraction", "ehs2:5", "-n", "5"]) == 2
    capsys.readouterr()
    # over 32 cards the flop-by-flop builder takes hold'em's rounds only (board_cards [0, F, 1, 1])
    assert main(["solve", "holdem(ranks=9,board_cards=[0,3,1],raise_sizes=[10,10,20],max_raises=[3,4,4])",
                 "--abstraction", "ehs2:5", "--algo", "pvt-cfr", "-n", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "board_cards [0, F, 1, 1]" in err and "\n" not in err


def test_split_by_first_round_betting_is_the_paper_order_with_one_deal_per_pass(abstract: AbstractHoldem) -> None:
    """Passes of one deal leave nothing held fixed: the one-process solver's tables, bit for bit."""
    straight = ChanceSampledHoldemCFR(abstract, seed=3).iterate(2000)
    split = ChanceSampledHoldemCFR(abstract, seed=3, pass_deals=1).iterate(2000)
    assert len(split.split.roots) == 3  # first-round sequences reaching the flop: cc, crc, rc
    for name, table in straight._state_arrays().items():
        if name != "snapshot":
            np.testing.assert_array_equal(split._state_arrays()[name], table)


def test_split_passes_converge_and_resume_exactly_inside_a_pass(abstract: AbstractHoldem, tmp_path) -> None:
    options = dict(seed=5, pass_deals=300)
    assert ChanceSampledHoldemCFR(abstract, **options).iterate(100_000).exact_exploitability() < 0.2  # 20 mb/h
    straight = ChanceSampledHoldemCFR(abstract, **options).iterate(1000)
    first = ChanceSampledHoldemCFR(abstract, **options).iterate(450)  # stops inside the second pass
    first.save_checkpoint(tmp_path / "c.npz")
    second = ChanceSampledHoldemCFR(abstract, **options)
    second.load_checkpoint(tmp_path / "c.npz")
    second.iterate(550)
    for name in ("regret", "average", "snapshot"):
        np.testing.assert_array_equal(second._state_arrays()[name], straight._state_arrays()[name])
    assert not np.array_equal(straight.regret, ChanceSampledHoldemCFR(abstract, seed=5).iterate(1000).regret)


def test_split_options_are_checked(capsys) -> None:
    with pytest.raises(ValueError, match="pass_deals must be >= 0"):
        ChanceSampledHoldemCFR(with_abstraction(load_game(REAL), "ehs2:2,3,2"), pass_deals=-1)
    one_round = with_abstraction(load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0],raise_sizes=[10],"
                                           "max_raises=[1])"), "ehs2:2")
    with pytest.raises(ValueError, match="two or more betting rounds"):
        ChanceSampledHoldemCFR(one_round, pass_deals=10)
    for flag, value, message in (("--workers", "0", "workers must be positive"),
                                 ("--pass-deals", "-3", "--pass-deals must be a finite number >= 0")):
        assert main(["solve", REAL, "--abstraction", "ehs2:2,3,2", "--algo", "pvt-cfr", "-n", "5", flag,
                     value]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_cli_split_run_resumes_exactly(capsys, tmp_path) -> None:
    solve = ["solve", REAL, "--abstraction", "ehs2:2,3,2", "--algo", "pvt-cfr", "--pass-deals", "256", "--quiet"]
    straight, resumed = tmp_path / "straight.npz", tmp_path / "resumed.npz"
    assert main([*solve, "-n", "1000", "--out", str(straight)]) == 0
    assert main([*solve, "-n", "600", "--out", str(resumed), "--keep-checkpoint"]) == 0  # stops inside a pass
    assert main([*solve, "-n", "1000", "--out", str(resumed), "--resume"]) == 0
    a, b = np.load(straight), np.load(resumed)
    np.testing.assert_array_equal(a["probs"], b["probs"])


@pytest.mark.parametrize("rounds, subtrees", [(1, 3), (2, 9)])
def test_vector_cfr_plus_split_by_betting_sequence_is_the_one_process_solver_bit_for_bit(
        abstract: AbstractHoldem, tmp_path, rounds: int, subtrees: int) -> None:
    """The split's one replica in process (as each Ray worker runs its share of the subtrees below the first
    ``rounds`` rounds): same tables, exploitability and value as the one-process passes, bit for bit, through
    a checkpoint taken and resumed on either side."""
    from cfrlab.games.holdem.solvers.vector import VectorSplitRunner

    def split_solver() -> VectorHoldemCFRPlus:
        solver = VectorHoldemCFRPlus(abstract, split_rounds=rounds)
        solver.split = VectorSplitRunner(solver.layout)
        return solver

    straight = VectorHoldemCFRPlus(abstract, split_rounds=rounds).iterate(40)
    split = split_solver().iterate(15)
    assert len(split.split.roots) == subtrees and split.split.replicas.size == 1
    split.save_checkpoint(tmp_path / "split.npz")
    resumed = VectorHoldemCFRPlus(abstract, split_rounds=rounds)
    resumed.load_checkpoint(tmp_path / "split.npz")
    resumed.iterate(10).save_checkpoint(tmp_path / "one.npz")
    split.load_checkpoint(tmp_path / "one.npz")  # new tables under running replicas
    split.iterate(15)
    assert split.exact_exploitability() == straight.exact_exploitability() > 1e-3  # on the replicas, unfetched
    assert split.expected_value() == straight.expected_value()
    assert split._tables_behind
    for name, table in straight._state_arrays().items():
        np.testing.assert_array_equal(split._state_arrays()[name], table)
    assert not split._tables_behind
    assert not np.array_equal(straight.regret, VectorHoldemCFRPlus(abstract, split_rounds=rounds).iterate(39).regret)
    other = VectorHoldemCFRPlus(abstract, split_rounds=3 - rounds).iterate(40)  # other groups: rounding apart
    np.testing.assert_allclose(other.regret, straight.regret, rtol=1e-12, atol=1e-12 * np.abs(straight.regret).max())


def test_vector_cfr_plus_worker_options_are_checked(capsys) -> None:
    with pytest.raises(ValueError, match="workers must be positive"):
        VectorHoldemCFRPlus(with_abstraction(load_game(REAL), "ehs2:2,3,2"), workers=0)
    with pytest.raises(ValueError, match="split_rounds must be from 1 to 2 in a game of 3 betting rounds, got 3"):
        VectorHoldemCFRPlus(with_abstraction(load_game(REAL), "ehs2:2,3,2"), split_rounds=3)
    one_round = with_abstraction(load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0],raise_sizes=[10],"
                                           "max_raises=[1])"), "ehs2:2")
    assert VectorHoldemCFRPlus(one_round).iterate(3).iterations == 3
    with pytest.raises(ValueError, match="two or more betting rounds"):
        VectorHoldemCFRPlus(one_round, workers=2)
    for flag, value, message in (("--workers", "0", "workers must be positive"),
                                 ("--workers", "-1", "--workers must be a finite number >= 0"),
                                 ("--split-rounds", "0", "split_rounds must be positive"),
                                 ("--split-rounds", "5", "split_rounds must be from 1 to 2")):
        assert main(["solve", REAL, "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "-n", "5", flag,
                     value]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_float32_tables_give_the_float64_values(abstract: AbstractHoldem) -> None:
    """The large abstractions' float32 joint tables (10 buckets a round) leave the values within rounding."""
    from cfrlab.games.holdem.solvers.cfr import Layout

    solver = VectorHoldemCFRPlus(abstract).iterate(20)
    single = abstract.with_table(abstract.abstraction.joint.astype(np.float32),
                                 abstract.abstraction.showdown.astype(np.float32))
    exact, rounded = Layout(abstract), Layout(single)
    assert rounded.win.dtype == np.float32
    assert rounded.exploitability(solver.average) == pytest.approx(exact.exploitability(solver.average), rel=1e-5)
    assert rounded.expected_value(solver.average) == pytest.approx(exact.expected_value(solver.average), abs=1e-6)


def test_the_solvers_say_when_their_worker_split_cannot_pay(abstract: AbstractHoldem) -> None:
    """``Solver.workers_warning``, which ``cfrlab solve`` prints before a run: no Ray is started to say it."""
    assert VectorHoldemCFRPlus(abstract).workers_warning() is None
    assert "3 betting sequences to share, so 3 workers run" in (
        VectorHoldemCFRPlus(abstract, workers=12).workers_warning() or "")
    assert "--pass-deals 64 gives each worker 32 traversals" in (
        ChanceSampledHoldemCFR(abstract, workers=2, pass_deals=64).workers_warning() or "")
    assert ChanceSampledHoldemCFR(abstract, workers=2).workers_warning() is None  # 4096 deals a pass


@pytest.mark.parametrize("vector, full", [("vector-cfr+", "cfr+"), ("vector-pcfr+", "pcfr+"),
                                          ("vector-dcfr+", "dcfr+"), ("vector-pdcfr+", "pdcfr+")])
def test_vector_solvers_are_the_full_tree_family_iterate_for_iterate(abstract: AbstractHoldem, vector: str,
                                                                     full: str) -> None:
    """Each vectorised update equals the full-tree solver's on the compiled abstract game: the current and
    average strategies after every iteration (the full-tree solver accumulating a player's average in its own
    pass, as the vectorised passes do), up to the order of the sums."""
    from cfrlab.solvers import algorithms

    tree = load_tree(abstract)
    ours = algorithms()[vector](abstract)
    theirs = algorithms()[full](abstract, symmetric=False, average_in="own")
    for _ in range(12):
        ours.iterate(1)
        theirs.iterate(1)
        np.testing.assert_allclose(ours.current_policy().to_sequences(tree), theirs.sigma, rtol=0, atol=1e-10)
        np.testing.assert_allclose(ours.average_policy().to_sequences(tree), theirs._average(), rtol=0, atol=1e-10)
    assert ours.exact_exploitability() == pytest.approx(exploitability(tree, theirs.average_policy()), abs=1e-9)
    other = algorithms()["cfr+" if full != "cfr+" else "pcfr+"](abstract, symmetric=False, average_in="own")
    assert not np.allclose(other.iterate(12)._average(), theirs._average(), atol=1e-4)  # the variants differ


def test_vector_passes_on_two_threads_give_the_one_thread_tables(abstract: AbstractHoldem) -> None:
    """Threads share a node's bucket sequences, each writing its own entries: the same tables bit for bit."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba sees one core")
    for algorithm in ("vector-cfr+", "vector-pdcfr+"):
        from cfrlab.solvers import algorithms

        one, two = (algorithms()[algorithm](abstract, threads=n).iterate(15) for n in (1, 2))
        for name, table in one._state_arrays().items():
            np.testing.assert_array_equal(two._state_arrays()[name], table)
        assert one.exact_exploitability() == two.exact_exploitability() > 1e-3


def test_vector_variants_run_in_one_process_and_float32_keeps_the_result(abstract: AbstractHoldem, tmp_path) -> None:
    from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemPDCFRPlus

    with pytest.raises(ValueError, match="run the discounted, predictive or float32 updates in one process"):
        VectorHoldemPDCFRPlus(abstract, workers=2)
    exact = VectorHoldemPDCFRPlus(abstract).iterate(60)
    single = VectorHoldemPDCFRPlus(abstract, precision="float32").iterate(30)
    single.save_checkpoint(tmp_path / "c.npz")
    resumed = VectorHoldemPDCFRPlus(abstract, precision="float32")
    resumed.load_checkpoint(tmp_path / "c.npz")
    resumed.iterate(30)
    assert resumed.regret.dtype == resumed.average.dtype == resumed.prediction.dtype == np.float32
    np.testing.assert_array_equal(resumed.average, single.iterate(30).average)
    assert resumed.exact_exploitability() == pytest.approx(exact.exact_exploitability(), rel=1e-3)


def test_cli_runs_the_vector_variants_and_refuses_bad_options(capsys, tmp_path) -> None:
    solve = ["solve", REAL, "--abstraction", "ehs2:2,3,2", "-n", "5", "--quiet"]
    assert main([*solve, "--algo", "vector-pdcfr+", "--precision", "float32", "--threads", "2", "--out",
                 str(tmp_path / "s.npz")]) == 0
    capsys.readouterr()
    for flags, message in ((["--algo", "vector-dcfr+", "--precision", "float16"], "precision must be one of"),
                           (["--algo", "vector-pcfr+", "--workers", "2"], "in one process"),
                           (["--algo", "vector-cfr+", "--threads", "-1"], "--threads must be a finite number >= 0"),
                           (["--algo", "vector-cfr+", "--averaging", "cubic"], "averaging must be one of")):
        assert main([*solve, *flags]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("algorithm", ["vector-cfr+", "vector-pdcfr+"])
def test_update_passes_keep_the_unchanged_players_strategy_and_reach_exactly(abstract: AbstractHoldem,
                                                                              algorithm: str, tmp_path) -> None:
    """A pass recomputes the strategy and reach of the player the last pass updated only: the tables are those of
    passes that recompute both, bit for bit, through evaluations and a resume in between."""
    from cfrlab.solvers import algorithms

    kept = algorithms()[algorithm](abstract, precision="float32")
    full = algorithms()[algorithm](abstract, precision="float32")
    forget = full._update_strategy

    def recompute_both():
        full._probs = None
        return forget()

    full._update_strategy = recompute_both
    for chunk in (3, 4, 5):
        kept.iterate(chunk)
        full.iterate(chunk)
        kept.exact_exploitability()
        kept.save_checkpoint(tmp_path / "k.npz")
        kept = algorithms()[algorithm](abstract, precision="float32")
        kept.load_checkpoint(tmp_path / "k.npz")
        kept.iterate(2)
        full.iterate(2)
    for name, table in full._state_arrays().items():
        np.testing.assert_array_equal(kept._state_arrays()[name], table)
    assert kept._updated == 1 and kept._probs is not None
