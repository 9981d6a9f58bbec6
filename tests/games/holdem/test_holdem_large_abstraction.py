"""The flop-by-flop E[HS^2] builder (large decks) against the exact tables on small decks."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from cfrlab.games.holdem.abstraction import abstract_game
from cfrlab.games.holdem.abstraction.abstraction import build_abstraction
from cfrlab.games.holdem.abstraction.large_abstraction import check_structure
from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction, load_large_abstraction
from cfrlab.registry import load_game

DECK10 = "holdem(ranks=5,suits=2,board_cards=[0,3,1,1])"  # the real rounds: 2 private, 3 + 1 + 1 board
DECK8 = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1,1],raise_sizes=[10,10,20,20])"
BUCKETS = {DECK10: [3, 3, 2, 2], DECK8: [2, 2, 2, 2]}


@pytest.fixture(scope="module", params=[DECK10, DECK8])
def pair(request: pytest.FixtureRequest):
    game = load_game(request.param)
    buckets = BUCKETS[request.param]
    return game, build_abstraction(game, buckets), build_large_abstraction(game, buckets, samples=0), buckets


def random_cards(game, rng: np.random.Generator):
    cards = [int(c) for c in rng.permutation(game.deck_size)]
    hole, cards = tuple(cards[: game.hole_cards]), cards[game.hole_cards :]
    flop = tuple(cards[: game.board_cards[1]])
    return hole, [(), flop, (cards[len(flop)],), (cards[len(flop) + 1],)]


def test_every_pair_gives_the_exact_tables(pair) -> None:
    game, exact, large, _ = pair
    assert not large.sampled and large.joint_error()["joint_l1"] == 0.0
    np.testing.assert_allclose(large.joint, exact.joint, atol=1e-12)
    np.testing.assert_allclose(large.showdown, exact.showdown, atol=1e-12)


def test_buckets_of_hands_equal_the_exact_classes(pair) -> None:
    """Counts computed from scratch for one hand, bucketed by the cuts, land where the class tables put them."""
    game, exact, large, _ = pair
    rng = np.random.default_rng(3)
    for _ in range(25):
        hole, boards = random_cards(game, rng)
        for k in range(4):
            assert large.bucket_sequence(hole, boards[: k + 1]) == exact.bucket_sequence(hole, boards[: k + 1])


def test_sampled_table_within_its_stated_error(pair) -> None:
    game, exact, _, buckets = pair
    sampled = build_large_abstraction(game, buckets, samples=12, replicates=8, seed=1)
    assert sampled.sampled
    error = sampled.joint_error()
    l1 = np.abs(sampled.joint - exact.joint).sum()
    assert 0 < l1 < 2.5 * error["joint_l1"]
    assert l1 > 0.4 * error["joint_l1"]  # the stated error is not vastly pessimistic either
    show = (exact.joint * np.abs(sampled.showdown - exact.showdown)).sum()
    assert 0.4 * error["showdown"] < show < 2.5 * error["showdown"]
    np.testing.assert_allclose(sampled.joint, sampled.joint.T, atol=1e-15)  # both seats counted
    np.testing.assert_allclose(sampled.showdown, -sampled.showdown.T, atol=1e-12)


def test_large_cache_round_trip_and_refusals(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    game = load_game(DECK10)
    first = load_large_abstraction(game, [3, 3, 2, 2], samples=4)
    again = load_large_abstraction(game, [3, 3, 2, 2], samples=4)
    np.testing.assert_array_equal(first.joint, again.joint)
    np.testing.assert_array_equal(first.replicate_result, again.replicate_result)
    for a, b in zip(first.cuts, again.cuts):
        np.testing.assert_array_equal(a, b)
    single = load_large_abstraction(game, [3, 3, 2, 2], samples=4, replicates=1)
    read = load_large_abstraction(game, [3, 3, 2, 2], samples=4, replicates=1)
    assert single.moments is not None and read.moments is None  # left in the file until the error is asked
    assert read.joint_error() == single.joint_error() and read.joint_error()["method"] == "moments"
    with pytest.raises(ValueError, match="board_cards"):
        check_structure(load_game("holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1])"))
    with pytest.raises(ValueError, match="one per round"):
        build_large_abstraction(game, [3, 3])


def test_abstract_game_over_a_large_deck_uses_the_sampled_table(tmp_path, monkeypatch) -> None:
    """Above the exact builder's deck limit the abstract game takes the flop-by-flop tables and says so."""
    from cfrlab.testing.games import check_game

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(abstract_game, "MAX_DECK", 8)
    game = abstract_game.with_abstraction(load_game(DECK10), "ehs2:2")
    assert game.abstraction.sampled
    assert "sampled" in game.table_note()
    check_game(game)


def test_cli_solve_and_eval_say_the_table_is_sampled(tmp_path, monkeypatch, capsys) -> None:
    from cfrlab.cli.main import main

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(abstract_game, "MAX_DECK", 8)
    out = tmp_path / "s.npz"
    assert main(["solve", DECK10, "--abstraction", "ehs2:2", "--algo", "vector-cfr+", "-n", "3", "-q",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "mb/h in the abstract game" in printed and "joint table sampled (128 deals per board" in printed
    assert main(["eval", str(out)]) == 0
    assert "joint table sampled" in capsys.readouterr().out


def test_one_table_with_moments_equals_the_replicates_summed() -> None:
    """Without replicates (the tables of 10 buckets a round) the table is the replicates' sum, bit for bit."""
    game = load_game(DECK10)
    kept = build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=8, seed=1)
    single = build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=1, seed=1)
    assert kept.replicates == 8 and single.replicates == 0 and single.replicate_joint is None
    np.testing.assert_array_equal(single.joint, kept.joint)
    np.testing.assert_array_equal(single.showdown, kept.showdown)
    np.testing.assert_array_equal(single.moments, kept.moments)
    assert single.joint_error()["method"] == "moments" and kept.replicate_error()["joint_l1"] > 0


def test_moment_error_agrees_with_the_replicates_and_the_exact_table(pair) -> None:
    """The error from the samples' moments against the replicates' spread and against the exact table (8 seeds)."""
    game, exact, _, buckets = pair
    ratios = []
    for seed in range(8):
        sampled = build_large_abstraction(game, buckets, samples=12, replicates=8, seed=seed)
        moments, spread = sampled.moment_error(), sampled.replicate_error()
        l1 = np.abs(sampled.joint - exact.joint).sum()
        show = (exact.joint * np.abs(sampled.showdown - exact.showdown)).sum()
        ratios.append([l1 / moments["joint_l1"], show / moments["showdown"],
                       spread["joint_l1"] / moments["joint_l1"], spread["showdown"] / moments["showdown"]])
    mean = np.mean(ratios, axis=0)
    assert np.all(mean > 0.7) and np.all(mean < 1.3), mean


def test_large_tables_are_float32(monkeypatch) -> None:
    from cfrlab.games.holdem.abstraction import large_abstraction, large_builder

    monkeypatch.setattr(large_abstraction, "FLOAT32_CELLS", 10)
    monkeypatch.setattr(large_builder, "table_dtype", large_abstraction.table_dtype)
    game = load_game(DECK10)
    small = build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=1, seed=1)
    monkeypatch.undo()
    big = build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=1, seed=1)
    assert small.joint.dtype == np.float32 and big.joint.dtype == np.float64
    np.testing.assert_allclose(small.joint, big.joint, rtol=1e-6)


def test_flop_table_equals_the_enumeration(pair) -> None:
    """Every (private hand, flop) class once, and the looked-up count is the enumerated one."""
    game, exact, large, _ = pair
    table = large.flop_table
    assert table is not None and len(table.keys) == len(exact.rounds[1].keys)
    rng = np.random.default_rng(5)
    for _ in range(40):
        hole, boards = random_cards(game, rng)
        flop = boards[1]
        assert large._count(hole, flop) == large.enumerated_count(hole, flop)
        assert table.count(sum(1 << c for c in hole), sum(1 << c for c in flop)) == large.enumerated_count(hole, flop)


def test_cache_keeps_the_flop_table_and_reads_tables_without_moments(tmp_path, monkeypatch) -> None:
    """The flop table has its own file (shared by every bucket count); a table saved before moments were kept
    still loads, its error from the replicates."""
    import dataclasses

    from cfrlab.games.holdem.abstraction.flop_table import flop_table_path
    from cfrlab.games.holdem.abstraction.large_builder import save_large_abstraction

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    game = load_game(DECK10)
    built = build_large_abstraction(game, [3, 3, 2, 2], samples=8, replicates=8)
    save_large_abstraction(dataclasses.replace(built, moments=None), replicates=8)
    assert flop_table_path(game).exists()
    loaded = load_large_abstraction(game, [3, 3, 2, 2], samples=8)
    assert loaded.moments is None and loaded.joint_error()["method"] == "replicates"
    np.testing.assert_array_equal(loaded.flop_table.counts, built.flop_table.counts)
    other = load_large_abstraction(game, [2, 2, 2, 2], samples=8)
    assert other.flop_table is not None and other.joint_error()["method"] == "moments"


def test_turn_counts_of_a_whole_board_equal_the_enumeration(pair) -> None:
    game, _, large, _ = pair
    rng = np.random.default_rng(7)
    for _ in range(20):
        hole, boards = random_cards(game, rng)
        board = boards[1] + boards[2]
        counts = large.turn_counts(boards[1], boards[2][0])
        assert len(counts) == len(list(combinations(range(game.deck_size - len(board)), game.hole_cards)))
        assert large._count(hole, board) == large.enumerated_count(hole, board) == counts[sum(1 << c for c in hole)]


def test_replicates_only_where_they_fit() -> None:
    """CFR5 of 52 cards keeps its 8 replicates (and the cache name its tables were saved under); CFR10's
    1e8 cells get one table with moments."""
    from cfrlab.games.holdem.abstraction.large_abstraction import default_replicates
    from cfrlab.games.holdem.abstraction.large_builder import large_cache_path

    assert default_replicates([5, 5, 5, 5]) == 8 and default_replicates([10, 10, 10, 10]) == 1
    assert large_cache_path(load_game("holdem"), [5] * 4).name == "ehs2-large-9b2645fb1999163a.npz"
