"""Strategy files are checked before they are trusted: schema, sizes, legal mask, fingerprint, coverage."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from cfrlab.checkpoint import load_arrays
from cfrlab.cli.main import main
from cfrlab.policy import PolicyFileError, TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from tests.forged_files import edited, with_declared_shape, write_npz


@pytest.fixture()
def kuhn_file(tmp_path, kuhn):
    path = tmp_path / "kuhn.npz"
    CFRPlus(kuhn).iterate(50).average_policy().save(path, kuhn, solver="cfr+", iterations=50)
    return path


def cli(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err


def test_a_mask_marking_illegal_actions_legal_is_refused(tmp_path, kuhn_file, capsys):
    arrays, _ = load_arrays(kuhn_file)
    mask = arrays["legal_mask"].copy()
    probs = arrays["probs"].copy()
    # a third column: an action Kuhn does not have at any infoset, marked legal and given probability
    mask = np.concatenate([mask, np.ones((mask.shape[0], 1), bool)], axis=1)
    probs = np.concatenate([probs * 0.5, np.full((probs.shape[0], 1), 0.5)], axis=1)
    bad = edited(kuhn_file, tmp_path / "wide.npz", legal_mask=mask, probs=probs)
    code, err = cli(capsys, "eval", str(bad))
    assert code == 2 and "action" in err
    # the same number of columns, but a mask that differs from the game's at one infoset
    mask = arrays["legal_mask"].copy()
    mask[0, 1] = False
    probs = arrays["probs"].copy()
    probs[0] = [1.0, 0.0]
    bad = edited(kuhn_file, tmp_path / "mask.npz", legal_mask=mask, probs=probs)
    code, err = cli(capsys, "eval", str(bad))
    assert code == 2 and "legal" in err and "0:J:" in err


@pytest.mark.parametrize("meta", [None, [], [1, 2], 12345, "kuhn", {"kind": "policy", "format_version": 1,
                                                                        "game": 12345}])
def test_metadata_that_is_not_the_schema_is_refused(tmp_path, kuhn_file, capsys, meta):
    arrays, _ = load_arrays(kuhn_file)
    path = tmp_path / "meta.npz"
    write_npz(path, arrays, meta)
    for command in ("eval", "show"):
        code, err = cli(capsys, command, str(path))
        assert code == 2 and ("metadata" in err or "game" in err), err


def test_a_huge_game_in_the_metadata_is_refused_quickly(tmp_path, kuhn_file, capsys):
    bad = edited(kuhn_file, tmp_path / "huge.npz", {"game": "leduc(ranks=100000000)"})
    start = time.perf_counter()
    for command in ("eval", "show"):
        code, err = cli(capsys, command, str(bad))
        assert code == 2 and "ranks" in err
    assert time.perf_counter() - start < 5


def test_a_huge_game_with_a_matching_fingerprint_is_refused_quickly(tmp_path, kuhn_file, capsys):
    """A forger who also writes the huge game's own fingerprint: the game's size is checked before its tree."""
    huge = load_game("kuhn(players=64)")  # the most players a game takes (cfrlab.game.MAX_PLAYERS)
    bad = edited(kuhn_file, tmp_path / "forged.npz", {"game": huge.spec(), "fingerprint": huge.fingerprint(),
                                                      "game_identity": huge.identity()})
    start = time.perf_counter()
    code, err = cli(capsys, "eval", str(bad))
    assert code == 2 and "sampling solver" in err
    assert time.perf_counter() - start < 5


def test_a_declared_huge_array_is_refused_before_allocating(tmp_path, kuhn_file, capsys):
    bad = with_declared_shape(kuhn_file, tmp_path / "declared.npz", "probs", (10**11, 2))
    code, err = cli(capsys, "eval", str(bad))
    assert code == 2 and "declares" in err
    from cfrlab.cli.serve import build_app

    with pytest.raises(PolicyFileError, match="declares"):
        build_app("kuhn", bad, None)


def test_arrays_are_checked_against_the_game_before_building_its_tree(tmp_path, kuhn_file, monkeypatch, capsys):
    arrays, _ = load_arrays(kuhn_file)
    bad = edited(kuhn_file, tmp_path / "cols.npz", probs=np.full((3, 7), 1 / 7), legal_mask=np.ones((3, 7), bool),
                 keys=arrays["keys"][:3])
    import cfrlab.eval

    monkeypatch.setattr(cfrlab.eval, "tree_of", lambda *a, **k: pytest.fail("built the tree of a bad file"))
    code, err = cli(capsys, "eval", str(bad))
    assert code == 2 and "7" in err and "columns" in err


def test_wrong_fingerprint_says_what_differs(tmp_path, kuhn, kuhn_file):
    bad = edited(kuhn_file, tmp_path / "fp.npz", {"fingerprint": "0123456789abcdef"})
    with pytest.raises(PolicyFileError) as info:
        TabularPolicy.load(bad, kuhn)
    message = str(info.value)
    assert "fingerprint" in message and "0123456789abcdef" in message and kuhn.fingerprint() in message
    leduc4 = load_game("leduc(ranks=4)")
    path = tmp_path / "l4.npz"
    CFRPlus(leduc4).iterate(1).average_policy().save(path, leduc4)
    with pytest.raises(PolicyFileError, match="ranks: 4 in the file, 3"):
        TabularPolicy.load(path, load_game("leduc"))


def test_serve_warns_when_a_file_covers_part_of_the_game(tmp_path, kuhn, kuhn_file, capsys):
    from cfrlab.cli.serve import build_app

    policy, _ = TabularPolicy.load(kuhn_file, kuhn)
    part = TabularPolicy(policy.keys[:4], policy.probs[:4], policy.legal_mask[:4])
    path = tmp_path / "part.npz"
    part.save(path, kuhn)
    build_app("kuhn", path, None)
    err = capsys.readouterr().err
    assert "8 of 12 infosets" in err and "uniform" in err


def test_orphaned_temporary_files_are_removed_by_the_next_run(tmp_path, capsys):
    out = tmp_path / "k.npz"
    orphans = [tmp_path / ".k.npz.ckpt.npz.abc12_45.tmp", tmp_path / ".k.npz.xyz78901.tmp"]  # mkstemp's shape
    for orphan in orphans:
        orphan.write_bytes(b"half a checkpoint")
    unrelated = [tmp_path / ".other.npz.abc.tmp", tmp_path / ".k.npz.mine.tmp", tmp_path / ".k.npz.MINE1234.tmp"]
    for path in unrelated:
        path.write_bytes(b"not ours")
    code, _ = cli(capsys, "solve", "kuhn", "-n", "3", "--out", str(out), "-q")
    assert code == 0
    assert not any(o.exists() for o in orphans) and all(path.exists() for path in unrelated)


def test_files_are_written_with_the_umask_mode(tmp_path, kuhn):
    old = os.umask(0o022)
    try:
        path = tmp_path / "m.npz"
        CFRPlus(kuhn).iterate(1).average_policy().save(path, kuhn)
        CFRPlus(kuhn).iterate(1).save_checkpoint(tmp_path / "c.npz")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "c.npz").stat().st_mode & 0o777 == 0o644
