"""Abstract hold'em's infoset rows: keys by arithmetic in the solvers' table order, and strategy files stored as
the probability array alone (no string key per row), checked against the game before use."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays
from cfrlab.cli.main import main
from cfrlab.games.holdem.abstraction.abstract_game import AbstractHoldem, with_abstraction
from cfrlab.games.holdem.solvers.cfr import Layout
from cfrlab.games.holdem.solvers.vector_cfr import VectorHoldemCFRPlus
from cfrlab.policy import PolicyFileError, TabularPolicy
from cfrlab.registry import load_game
from cfrlab.tree import load_tree
from tests.forged_files import edited

REAL = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


@pytest.fixture(scope="module")
def abstract() -> AbstractHoldem:
    return with_abstraction(load_game(REAL), "ehs2:2,3,2")


def test_rows_are_the_compiled_trees_infosets_in_table_order(abstract: AbstractHoldem) -> None:
    rows = abstract.infoset_rows()
    tree = load_tree(abstract)
    keys = list(rows)
    assert sorted(keys) == sorted(tree.infoset_keys) and len(rows) == tree.num_infosets
    assert [rows.row_of(key) for key in keys] == list(range(len(rows)))
    layout = Layout(abstract)
    for node in layout.round_nodes[2][:3]:  # the table's entry of (node, sequence) is 3 * row
        for sequence in (0, 5, 11):
            key = keys[(layout.base[node] + layout.stride[node] * sequence) // 3]
            assert key.split(":")[2] == abstract.tree.history[node]
            digits = [int(d) for d in key.split(":")[1].split(".")]
            assert digits == [sequence // 6, sequence // 2 % 3, sequence % 2]
    mask = rows.legal_mask()
    for key in keys[::37]:
        i = tree.infoset_index(key)
        legal = tree.sequence_action[tree.infoset_offset[i] : tree.infoset_offset[i + 1]]
        assert np.flatnonzero(mask[rows.row_of(key)]).tolist() == sorted(legal.tolist())


@pytest.mark.parametrize("key", ["0:0:", "1:2:", "1:0.0:", "1:00:", "1:٠:", "1:0", "1:0:zz", "", "0:0.1:c/c",
                                 "x:0:", "1:-1:", "1:0.0:cc/", "0:0.0.0:cc/"])
def test_keys_the_game_lacks_have_no_row(abstract: AbstractHoldem, key: str) -> None:
    rows = abstract.infoset_rows()
    with pytest.raises(KeyError):
        rows.row_of(key)
    mask = rows.legal_mask()
    policy = TabularPolicy(rows, mask / mask.sum(axis=1, keepdims=True), mask)
    assert key not in policy


@pytest.fixture(scope="module")
def solved(abstract: AbstractHoldem, tmp_path_factory):
    solver = VectorHoldemCFRPlus(abstract).iterate(20)
    path = tmp_path_factory.mktemp("rows") / "abstract.npz"
    solver.average_policy().save(path, abstract, solver="vector-cfr+", iterations=20)
    return solver, path


def test_a_strategy_file_holds_no_keys_and_reads_back_the_same(abstract: AbstractHoldem, solved) -> None:
    solver, path = solved
    arrays, meta = load_arrays(path)
    assert "keys" not in arrays and meta["rows"] == "game"
    policy, _ = TabularPolicy.load(path, load_game(abstract.spec()))
    original = solver.average_policy()
    assert np.array_equal(policy.probs, original.probs)
    key = "1:1.2:cc/c"
    assert policy.action_probabilities(key) == original.action_probabilities(key)
    tree = load_tree(abstract)  # the keyed path (a policy of a compiled tree) gives the same figure
    keyed = TabularPolicy(tree.infoset_keys, policy.probs[[policy.index[k] for k in tree.infoset_keys]],
                          policy.legal_mask[[policy.index[k] for k in tree.infoset_keys]])
    layout = Layout(abstract)
    assert layout.exploitability(layout.table_from_policy(keyed)) == pytest.approx(solver.exact_exploitability(),
                                                                                  abs=1e-12)


def test_eval_of_the_file_gives_the_solvers_exploitability(abstract: AbstractHoldem, solved, capsys) -> None:
    import json

    solver, path = solved
    capsys.readouterr()
    assert main(["eval", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exploitability"] == pytest.approx(solver.exact_exploitability(), abs=1e-12)


def _refused(capsys, path) -> str:
    capsys.readouterr()
    assert main(["eval", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and len(err.strip().splitlines()) == 1
    return err


def test_crafted_row_files_are_refused_in_one_line(abstract: AbstractHoldem, solved, tmp_path, capsys) -> None:
    _, path = solved
    arrays, _ = load_arrays(path)
    probs, mask = arrays["probs"], arrays["legal_mask"]
    cases = {
        "short": ({}, {"probs": probs[:-1], "legal_mask": mask[:-1]}, "must be"),
        "mask": ({}, {"legal_mask": np.ones_like(mask), "probs": np.full(probs.shape, 1 / 3)}, "legal"),
        "keys": ({}, {"keys": np.array(["0:0:"] * len(probs))}, "no keys"),
        "kind": ({"rows": "sorted"}, {}, "rows='sorted'"),
        "nan": ({}, {"probs": np.where(mask, np.nan, 0.0)}, "NaN"),
        "sum": ({}, {"probs": probs * 0.5}, "sums to"),
        "dtype": ({}, {"probs": probs.astype(np.int64)}, "floats"),
    }
    for name, (meta, changes, message) in cases.items():
        bad = edited(path, tmp_path / f"{name}.npz", meta, **changes)
        assert message in _refused(capsys, bad), name
        with pytest.raises(PolicyFileError):
            TabularPolicy.load(bad, abstract)
    # a game without infoset rows
    kuhn = load_game("kuhn")
    bad = edited(path, tmp_path / "kuhn.npz", {"game": "kuhn", "fingerprint": kuhn.fingerprint()})
    assert "has none" in _refused(capsys, bad)


def test_show_lists_rows_without_a_tree(abstract: AbstractHoldem, solved, capsys, monkeypatch) -> None:
    import json

    import cfrlab.tree as tree_module

    def no_tree(*args, **kwargs):
        raise AssertionError("show of an abstract hold'em file built or read a tree")

    monkeypatch.setattr(tree_module, "load_tree", no_tree)
    _, path = solved
    capsys.readouterr()
    assert main(["show", str(path), "--filter", ":1.2:cc/", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    policy, _ = TabularPolicy.load(path, abstract)
    assert rows and all(":1.2:cc/" in row["infoset"] for row in rows)
    for row in rows:
        assert row["player"] == int(row["infoset"][0])
        named = {("Fold", "Call", "Raise").index(a): p for a, p in row["actions"].items()}
        assert named == policy.action_probabilities(row["infoset"])
    assert main(["show", str(path), "--limit", "3"]) == 0
    assert "(3 of 512 infosets)" in capsys.readouterr().out


def test_the_full_decks_cfr10_rows_without_its_tables() -> None:
    """CFR10 of 52 cards: 57,337,080 infosets (Zinkevich et al. 2008: 5.73e7), keys and rows by arithmetic
    alone (no abstraction table is built or read)."""
    game = AbstractHoldem(buckets=10)
    rows = game.infoset_rows()
    assert len(rows) == 57_337_080 and "abstraction" not in game.__dict__
    rng = np.random.default_rng(0)
    for row in rng.integers(len(rows), size=2000):
        key = rows[int(row)]
        assert rows.row_of(key) == row and rows.player(int(row)) == int(key[0])
    assert rows[0] == "1:0:" and rows[-1] == rows[len(rows) - 1] and rows[-1].split(":")[1] == "9.9.9.9"
    with pytest.raises(IndexError):
        rows[len(rows)]
