"""The exact joint table of the flop-by-flop builder (``exact_joint``): every deal once against the exact builder's
enumeration on small decks, its resumable pass, and ``--abstraction ehs2:N:exact`` from the command line."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays, save_arrays
from cfrlab.games.holdem.abstraction import abstract_game, exact_joint
from cfrlab.games.holdem.abstraction.abstraction import build_abstraction, canonical_flops
from cfrlab.games.holdem.abstraction.large_builder import build_large_abstraction, large_cache_path
from cfrlab.registry import load_game

DECK12 = "holdem(ranks=3,suits=4,board_cards=[0,3,1,1])"


@pytest.mark.parametrize("spec,buckets", [("holdem(ranks=3,suits=4,board_cards=[0,3,1,1])", [2, 3, 2, 3]),
                                          ("holdem(ranks=3,suits=4,hole_cards=1,board_cards=[0,3,1,1])", [2, 2, 2, 3])])
def test_the_exact_table_on_four_suits_counts_every_deal_once(spec, buckets) -> None:
    """Four suits: the flop's stabiliser merges turns and rivers (``canonical_runouts``), and the histogram
    products give the exact builder's tables, whose deals are enumerated one by one; threads or not."""
    game = load_game(spec)
    exact = build_abstraction(game, buckets)
    for workers in (1, 2):
        large = build_large_abstraction(game, buckets, samples=0, workers=workers)
        np.testing.assert_allclose(large.joint, exact.joint, atol=1e-12)
        np.testing.assert_allclose(large.showdown, exact.showdown, atol=1e-12)


def test_canonical_runouts_weigh_every_runout_once() -> None:
    from cfrlab.games.holdem.abstraction.exact_joint import canonical_runouts
    from cfrlab.games.holdem.rules.suits import suit_permutations

    maps = suit_permutations(13, 4)
    for flop_cards, orbits in (((0, 4, 8), 6), ((0, 1, 2), 6), ((0, 4, 1), 2), ((0, 5, 10), 1)):
        flop = sum(1 << c for c in flop_cards)  # 2c 3c 4c, 2c 2d 2h (d, h, s or c, d, h alike), 2c 3c 2d, 2c 3d 4h
        rest = np.array([c for c in range(52) if c not in flop_cards])
        turns, rivers, weights = canonical_runouts(flop, rest, maps)
        assert weights.sum() == 49 * 48 and np.all(turns != rivers)
        assert weights.max() == orbits and 49 * 48 / orbits <= len(weights) <= 49 * 48
        assert (len(weights) == 49 * 48) == (orbits == 1)


def test_an_interrupted_exact_pass_continues_to_the_same_table(tmp_path, monkeypatch) -> None:
    """Ctrl-C during the exact pass keeps the sums of the flops done; the next build takes them and ends with the
    table of an uninterrupted build, bit for bit (the sums are whole numbers)."""
    game, buckets = load_game(DECK12), [2, 3, 2, 3]
    straight = build_large_abstraction(game, buckets, samples=0)
    partial = tmp_path / "t.partial.npz"
    monkeypatch.setattr(exact_joint, "CHECKPOINT_SECONDS", 0.0)
    heard: list[int] = []

    def stop(stage: str, done: int, total: int, unit: str) -> None:
        if stage == "joint table (exact)":
            heard.append(done)
            if len(heard) == 1:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_large_abstraction(game, buckets, samples=0, workers=2, progress=stop, partial=partial)
    flops = len(canonical_flops(game)[0])
    assert partial.exists() and heard == [8] and flops > 12  # 2 threads, 4 flops each
    arrays, meta = load_arrays(partial, "partial")
    assert 0.0 < meta["seconds"] < 600 and 0.0 < meta["cpu_seconds"] < 600
    save_arrays(partial, arrays, {**meta, "seconds": 5000.0, "cpu_seconds": 9000.0})  # as if the run had been long
    later: list[int] = []
    resumed = build_large_abstraction(game, buckets, samples=0, partial=partial,
                                      progress=lambda stage, done, *_: later.append(done) if "exact" in stage else None)
    assert later[0] == 8 + 4 and later[-1] == flops  # the 8 flops done are not played again
    np.testing.assert_array_equal(resumed.joint, straight.joint)
    np.testing.assert_array_equal(resumed.showdown, straight.showdown)
    spent = resumed.seconds["joint table"], resumed.seconds["joint table, CPU"]
    assert 5000.0 < spent[0] < 5600 and 9000.0 < spent[1] < 9600  # the earlier run's time carried on
    assert resumed.seconds["total"] >= spent[0] and 0 < straight.seconds["joint table"] < 600
    assert not partial.exists()
    partial.write_bytes(b"not a checkpoint")  # a corrupt file is passed over and replaced
    again = build_large_abstraction(game, buckets, samples=0, partial=partial)
    np.testing.assert_array_equal(again.joint, straight.joint)


def test_the_cli_solves_on_the_exact_table(tmp_path, monkeypatch, capsys) -> None:
    """``cfrlab solve GAME --abstraction ehs2:N:exact``, the README's command for the exact table, on a small deck
    routed to the flop-by-flop builder: its table is the exact builder's, it says so, and it is cached apart from
    the sampled table's."""
    from cfrlab.cli.main import main

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(abstract_game, "MAX_DECK", 8)
    out, log = tmp_path / "s.npz", tmp_path / "s.jsonl"
    assert main(["solve", DECK12, "--abstraction", "ehs2:2:exact", "--algo", "vector-dcfr+", "-n", "5", "-q",
                 "--out", str(out), "--log", str(log)]) == 0
    assert "joint table exact (every deal)" in capsys.readouterr().out
    game = load_game("holdem_ehs2(board_cards=[0,3,1,1],buckets=2,ranks=3,suits=4,table=exact)")
    np.testing.assert_allclose(game.abstraction.joint, build_abstraction(game.real_game, [2] * 4).joint, atol=1e-12)
    assert large_cache_path(game.real_game, [2] * 4, 0, 1).exists()
    assert not large_cache_path(game.real_game, [2] * 4).exists()
    assert not list(tmp_path.glob("holdem/*.partial.npz"))
    sampled = abstract_game.with_abstraction(load_game(DECK12), "ehs2:2")
    assert sampled.fingerprint() != game.fingerprint() and "table" not in sampled.identity()["params"]
    assert main(["eval", str(out)]) == 0
    assert "joint table exact" in capsys.readouterr().out
    assert main(["solve", DECK12, "--abstraction", "ehs2:2:guess", "-n", "1"]) == 2
    assert "ehs2:N:exact" in capsys.readouterr().err


def test_eval_plays_a_sampled_tables_strategy_in_the_exact_table(tmp_path, monkeypatch, capsys) -> None:
    """``cfrlab eval FILE --game SPEC`` with the file's abstraction in the exact table: the strategy is evaluated
    there as it is (the best response of the exact-table game, checked against the compiled tree's in
    ``test_holdem_solvers``, agrees), and a game of other buckets is refused in one line."""
    import json

    from cfrlab.cli.main import main
    from cfrlab.games.holdem.solvers.cfr import Layout
    from cfrlab.policy import TabularPolicy

    monkeypatch.setenv("CFRLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(abstract_game, "MAX_DECK", 8)
    out = tmp_path / "s.npz"
    assert main(["solve", DECK12, "--abstraction", "ehs2:2", "--algo", "vector-cfr+", "-n", "40", "-q",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    spec = "holdem_ehs2(board_cards=[0,3,1,1],buckets=2,ranks=3,suits=4,table=exact)"
    assert main(["eval", str(out), "--json"]) == 0
    own = json.loads(capsys.readouterr().out)
    assert main(["eval", str(out), "--game", spec, "--json"]) == 0
    there = json.loads(capsys.readouterr().out)
    exact_game = load_game(spec)
    sampled_game = load_game(own["game"])
    policy, _ = TabularPolicy.load(out, sampled_game)
    layout = Layout(exact_game)
    truth = layout.exploitability(layout.table_from_policy(policy))
    assert there["exploitability"] == pytest.approx(truth, abs=1e-9)
    assert there["game"] == exact_game.spec() and "exact" in there["abstraction_table"]
    assert abs(there["exploitability"] - own["exploitability"]) > 1e-6  # the tables differ
    other = "holdem_ehs2(board_cards=[0,3,1,1],buckets=3,ranks=3,suits=4,table=exact)"
    assert main(["eval", str(out), "--game", other]) == 2
    err = capsys.readouterr().err
    assert "holds a strategy for" in err and len(err.strip().splitlines()) == 1
