"""The first build of the E[HS^2] tables: the same tables as before its memory was cut, its progress, its estimate."""

from __future__ import annotations

import hashlib
import os
import tracemalloc

import numpy as np
import pytest

import cfrlab.cli.common as common
from cfrlab.cli.main import main
from cfrlab.games.holdem.abstraction import abstract_game, large_builder
from cfrlab.games.holdem.abstraction.abstraction import build_abstraction, canonical_flops, tie_buckets
from cfrlab.games.holdem.abstraction.build_estimate import BASE_BYTES, exact_estimate, large_estimate
from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction
from cfrlab.registry import load_game

DECK10 = "holdem(ranks=5,suits=2,board_cards=[0,3,1,1])"
DECK8 = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1,1],raise_sizes=[10,10,20,20])"
TINY = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1],raise_sizes=[10,20],max_raises=[1,1])"


def digest(abstraction) -> str:
    h = hashlib.sha256()
    for name in ("preflop_bucket", "joint", "showdown", "replicate_joint", "replicate_result", "moments"):
        value = getattr(abstraction, name)
        if value is not None:
            h.update(name.encode())
            h.update(np.ascontiguousarray(value).tobytes())
    for cuts in abstraction.cuts:
        h.update(np.ascontiguousarray(cuts).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("spec, buckets, options, expected", [
    (DECK10, [3, 3, 2, 2], {"samples": 0}, "8ef74efde89b91e6"),
    (DECK10, [3, 3, 2, 2], {"samples": 12, "replicates": 8, "seed": 1}, "416356e99718cd1d"),
    (DECK10, [3, 3, 2, 2], {"samples": 12, "replicates": 1, "seed": 2, "workers": 2}, "3f5b709bad88c993"),
    (DECK8, [2, 2, 2, 2], {"samples": 5, "replicates": 1, "seed": 3}, "99f94850a618d274"),
])
def test_tables_are_bit_for_bit_those_of_the_builder_before_its_memory_was_cut(spec, buckets, options,
                                                                              expected) -> None:
    """Digests of the tables the builder gave before the strengths file was read by offset, the turn buckets
    grouped and the threads' tables shared (code of 55e7539): every array and cut equal, bit for bit."""
    assert digest(build_large_abstraction(load_game(spec), buckets, **options)) == expected


def test_one_thread_or_two_give_the_same_tables() -> None:
    game = load_game(DECK10)
    one = build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=8, seed=4, workers=1)
    assert digest(one) == digest(build_large_abstraction(game, [3, 3, 2, 2], samples=12, replicates=8, seed=4,
                                                         workers=2))


def test_turn_buckets_by_group_equal_tie_buckets_over_every_item() -> None:
    """The grouped turn buckets give each item the bucket, and each group the cuts, of ``tie_buckets`` over all
    items at once (the former way: several arrays of every item)."""
    game, buckets = load_game(DECK10), [2, 3, 3, 2]
    b = large_builder._Builder(game, buckets, 1)
    pre, after_flop, after_turn = b.values()
    b.close()
    flop_seq = np.arange(after_flop.size).reshape(after_flop.shape) % 6  # any groups will do
    turn_seq, cuts = b.turn_buckets(after_turn, flop_seq)
    valid = after_turn >= 0
    group = np.broadcast_to(flop_seq[:, None, :], after_turn.shape)[valid]
    weight = np.broadcast_to(b.flop_weight[:, None, None].astype(np.float64), after_turn.shape)[valid]
    bucket, expected = tie_buckets(after_turn[valid].astype(np.int64), weight, group, 6, 3)
    np.testing.assert_array_equal(cuts, expected)
    np.testing.assert_array_equal(turn_seq[valid], group * 3 + bucket)
    assert (turn_seq[~valid] == 0).all() and turn_seq.dtype == np.int32 and after_turn.dtype == np.int32


def test_the_strengths_file_has_no_name_so_a_killed_build_leaves_nothing_behind() -> None:
    """Pass 1's strengths file (up to 8 GB on 52 cards) is nameless: the system frees it when the process ends,
    even by SIGKILL, which a temporary folder's clean-up cannot survive."""
    b = large_builder._Builder(load_game(DECK8), [2, 2, 2, 2], 1)
    b.values()
    assert b.kept is not None and os.fstat(b.kept).st_nlink == 0 and os.fstat(b.kept).st_size > 0
    b.close()
    assert b.kept is None


def test_each_builder_reports_the_progress_of_its_stages() -> None:
    heard: list[tuple[str, int, int, str]] = []
    build_large_abstraction(load_game(DECK10), [3, 3, 2, 2], samples=4, progress=lambda *a: heard.append(a))
    flops = len(canonical_flops(load_game(DECK10))[0])
    for stage in ("values after the flop and turn", "river buckets", "joint table"):
        assert [d for s, d, _, _ in heard if s == stage] == list(range(1, flops + 1))
        assert {(t, u) for s, _, t, u in heard if s == stage} == {(flops, "flops")}
    heard.clear()
    build_abstraction(load_game(DECK8), [2, 2, 2, 2], progress=lambda *a: heard.append(a))
    stages = list(dict.fromkeys(s for s, *_ in heard))
    assert stages == ["river hand strengths", "round 0 values", "round 1 values", "round 2 values", "round 3 values",
                      "joint table"]
    last = [a for a in heard if a[0] == "joint table"][-1]
    assert last[1] == last[2] > 0 and last[3] == "boards"


@pytest.mark.parametrize("large", [False, True])
def test_cli_says_the_estimate_then_shows_the_build_progress(tmp_path, monkeypatch, capsys, large) -> None:
    """A first build (either builder) says its time, memory and cache folder, then plain progress lines off a
    terminal (done of total, the rate, the time left); the second run reads the cache without a word."""
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(common, "PLAIN_PROGRESS_SECONDS", 0.0)
    if large:
        monkeypatch.setattr(abstract_game, "MAX_DECK", 8)
    spec, stage, unit = (DECK10, "joint table", "flops") if large else (TINY, "joint table", "boards")
    argv = ["solve", spec, "--abstraction", "ehs2:2", "--algo", "vector-cfr+", "-n", "2", "-q"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    said = out + err
    assert "building the E[HS^2] abstraction of" in said and "GB of memory at peak" in said
    assert "quiet thread" in said and str(tmp_path) in said and "abstraction built in" in said
    lines = [line for line in err.splitlines() if line.startswith(f"E[HS^2] tables: {stage}: ")]
    assert lines and f" {unit}/s, " in lines[-1] and " left, " in lines[-1]
    done, total = lines[-1].split(": ")[2].split(" ")[0].split("/")
    assert done == total
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "building the E[HS^2]" not in out + err and "E[HS^2] tables" not in err


def test_estimate_gives_the_measured_full_deck_build_and_bounds_a_small_one() -> None:
    """The full deck's CFR10 build: 545 CPU seconds on 2 threads (BENCHMARKS.md, 2026-11-26) and a 9.7 GB
    temporary file; its memory now about 3.5 GB (17.8 GB resident before). A small build's traced peak stays
    within the estimate (less the interpreter's base)."""
    full = large_estimate(load_game("holdem"), [10] * 4, 128, 1, 2)
    assert 450 < full.cpu_seconds < 700 and 240 < full.seconds < 350
    assert full.disk_bytes == pytest.approx(9.7e9, rel=0.01) and 3e9 < full.peak_bytes < 5e9
    cfr5 = large_estimate(load_game("holdem"), [5] * 4, 128, 8, 2)
    assert cfr5.peak_bytes < full.peak_bytes and "GB of memory at peak" in cfr5.text()
    game = load_game("holdem(ranks=5,suits=4)")
    build_large_abstraction(game, [6, 6, 6, 6], samples=16, replicates=1)  # kernels compiled before measuring
    tracemalloc.start()
    build_large_abstraction(game, [6, 6, 6, 6], samples=16, replicates=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = large_estimate(game, [6, 6, 6, 6], 16, 1, 1).peak_bytes  # 61 MB of arrays and the base
    assert 0.8 * (estimate - BASE_BYTES) < peak < estimate
    assert exact_estimate(load_game("holdem(ranks=6,suits=4)"), [5] * 4).seconds < \
        exact_estimate(load_game("holdem(ranks=8,suits=4)"), [5] * 4).seconds


@pytest.mark.parametrize("spec, buckets", [(DECK10, [3, 3, 2, 2]), (DECK8, [2, 2, 2, 2]),
                                           ("holdem(ranks=5,suits=4)", [3, 3, 3, 3])])
def test_turn_table_gives_the_enumerated_counts_and_the_same_buckets(tmp_path, spec, buckets) -> None:
    """The builder's counts after the turn, kept as the game's turn table, looked up through the suit renaming of
    the flop: each equals the enumeration and the whole board's pass (a board's hands at once too), and every
    bucket sequence is unchanged."""
    game = load_game(spec)
    with_table = build_large_abstraction(game, buckets, samples=4, turn_path=tmp_path / "turn.npy")
    without = build_large_abstraction(game, buckets, samples=4)
    assert with_table.turn_table is not None and without.turn_table is None
    rng = np.random.default_rng(11)
    nf = game.board_cards[1]
    for _ in range(40):
        cards = [int(c) for c in rng.permutation(game.deck_size)]
        hole, rest = tuple(cards[: game.hole_cards]), cards[game.hole_cards :]
        boards = [(), tuple(rest[:nf]), (rest[nf],), (rest[nf + 1],)]
        flop, turn = boards[1], boards[2][0]
        count = with_table.turn_table.count(hole, flop, turn)
        assert count == without.enumerated_count(hole, flop + (turn,))
        board = without.turn_counts(flop, turn)
        assert count == board[sum(1 << c for c in hole)] and with_table.turn_table.board_counts(flop, turn) == board
        for k in range(4):
            assert with_table.bucket_sequence(hole, boards[: k + 1]) == without.bucket_sequence(hole, boards[: k + 1])


def test_turn_table_is_cached_and_a_bad_file_is_passed_over(tmp_path, monkeypatch) -> None:
    from cfrlab.games.holdem.abstraction.turn_table import load_turn_table, turn_table_path

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    game = load_game(DECK10)
    built = large_builder.load_large_abstraction(game, [3, 3, 2, 2], samples=4)
    path = turn_table_path(game)
    assert built.turn_table is not None and path.exists()
    again = large_builder.load_large_abstraction(game, [3, 3, 2, 2], samples=4)
    assert again.turn_table is not None and isinstance(again.turn_table.counts, np.memmap)
    np.save(path, np.zeros((2, 3), dtype=np.int32))  # another shape: counts are computed per board instead
    assert load_turn_table(game) is None
    path.write_bytes(b"not an array")
    assert load_turn_table(game) is None
    assert large_builder.load_large_abstraction(game, [3, 3, 2, 2], samples=4).turn_table is None


def test_play_serve_and_arena_build_an_abstract_strategys_tables_before_the_first_move(
        tmp_path, monkeypatch, capsys) -> None:
    """A strategy file of an abstract game whose tables are not cached: play, serve and arena say the build and
    show it before play (a full deck's first move would otherwise wait minutes unannounced)."""
    from cfrlab.cli.serve import build_app
    from cfrlab.cli.table_game import run_table_game

    out = tmp_path / "tiny.npz"
    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path / "first"))
    assert main(["solve", TINY, "--abstraction", "ehs2:2", "--algo", "vector-cfr+", "-n", "3", "-q",
                 "--out", str(out)]) == 0
    for n, start in enumerate([
            lambda: run_table_game(TINY, strategy=out, hands=1, input_fn=lambda _: "q", print_fn=lambda _: None),
            lambda: build_app(TINY, out, None),
            lambda: main(["arena", TINY, f"policy:{out}", "call", "-n", "2", "--json"])]):
        monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path / f"cache{n}"))
        capsys.readouterr()
        start()
        err = capsys.readouterr().err
        assert "building the E[HS^2] abstraction of" in err and "GB of memory at peak" in err
        assert "abstraction built in" in err
