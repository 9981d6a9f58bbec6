"""The third fuzz's findings, each a reproduction: ``.efg`` files that cost unbounded memory or time, outputs that
destroyed inputs (the same file, a hard link, a symbolic link, a planted temporary name), names from files that
reached the terminal raw, edited ``--agent-log`` rows, network weights whose outputs overflow, and numeric options
without meaning. Each refusal is one ``error:`` line, exit code 2, no traceback, and no file changed
(``test_cli_holdem_eval`` holds the ``--lbr-log`` cases, ``test_exit_loop`` the resumed budget)."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

import cfrlab
from cfrlab.cli.main import main
from cfrlab.efg import EfgFormatError, write_efg
from cfrlab.efg import parse as efg_parse
from cfrlab.efg.parse import MAX_NUMBER_CHARS, MAX_STRING_CHARS, parse_efg
from cfrlab.file_checks import terminal_safe
from tests.fuzz_formats import EFG_SEED, _growing_fractions


def files_of(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.is_file() and not p.is_symlink()}


def refused(capsys: pytest.CaptureFixture[str], folder: Path, args: list[str], says: str) -> None:
    """``cfrlab ARGS`` exits 2 with one ``error:`` line saying ``says``, no traceback, every file as it was."""
    before = files_of(folder)
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in out + err, \
        (args, code, err)
    assert says in err, (says, err)
    assert files_of(folder) == before, args


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "g.efg"
    path.write_text(EFG_SEED)
    return path


# ------------------------------------------------------------------------------------------ 1. .efg bounds

@pytest.mark.parametrize("text, says", [
    ('EFG 2 R "' + "x" * (MAX_STRING_CHARS + 10) + '" { "A" } ""\nt "" 0\n', "longer than"),
    ('EFG 2 R "t" { "A }\n' + "x" * 10_000, "does not end"),
    (EFG_SEED.replace("{ 2, -2 }", "{ " + "9" * (MAX_NUMBER_CHARS + 1) + ", -2 }"), "expected a payoff"),
    (EFG_SEED.replace("{ 2, -2 }", "{ 1e9999, -2 }"), "expected a payoff"),
    (EFG_SEED.replace('"Red" 1/2', '"Red" 1/' + "3" * 390), "sum to"),
    (EFG_SEED.replace('"Red" 1/2', '"Red" 1' + "0" * 320), "sum to more than 1e308"),
    (_growing_fractions(3000), "bits"),
    (EFG_SEED.replace('t "" 4 "Lose" { -1, 1 }', 't "" 4x "Lose" { -1, 1 }'), "outcome's number"),
    (EFG_SEED.replace('"Raise" "Fold" } 0\np "" 2', '"Raise" "Fold" } 0 7\np "" 2', 1), "line 5"),
])
def test_a_costly_or_malformed_efg_is_refused_in_bounded_time(text: str, says: str) -> None:
    with pytest.raises(EfgFormatError) as info:
        parse_efg(text, "g.efg")
    assert says in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("bound, says", [("cfrlab.efg.nodes.MAX_EXACT_BYTES", "exact payoff sums"),
                                          ("cfrlab.efg.grammar.MAX_PAYOFF_VALUES", "distinct payoffs")])
def test_the_memory_of_payoffs_is_bounded(monkeypatch: pytest.MonkeyPatch, bound: str, says: str) -> None:
    """Distinct exact sums and distinct terminal rows each hold memory: both are capped (here at a few)."""
    monkeypatch.setattr(bound, 1_000)
    leaves = "".join(f't "" {k} "" {{ 1/{k}, -1/{k} }}\n' for k in range(1, 1001))
    actions = " ".join(f'"a{k}"' for k in range(1, 1001))
    with pytest.raises(EfgFormatError, match=says):
        parse_efg(f'EFG 2 R "x" {{ "A" "B" }} ""\np "" 1 1 "" {{ {actions} }} 0\n{leaves}')


@pytest.mark.parametrize("chunk", [100_000, 2])
def test_the_node_count_is_bounded(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Checked where a chunk of nodes ends and where the tree ends (a small tree is read in one chunk)."""
    monkeypatch.setattr("cfrlab.efg.nodes.MAX_NODES", 5)
    monkeypatch.setattr("cfrlab.efg.nodes.CHUNK_NODES", chunk)
    leaves, actions = 't "" 0\n' * 6, '"a" ' * 6
    with pytest.raises(EfgFormatError, match="more than 5 nodes"):
        parse_efg(f'EFG 2 R "x" {{ "A" }} ""\np "" 1 1 "" {{ {actions}}} 0\n{leaves}')


def test_the_fast_reader_reads_hand_written_spacing_and_escapes() -> None:
    text = ('EFG 2 R "t" { "A" "B" }\n'
            'p"a\\"b"1 1"x{y}"{"l\\\\" "r"}0\n'
            't "" 1 "" {1 -1}\n'
            'p "" 2 1 "" { "u" "d" } 2 "o" { 0.5, -0.5 }\n'
            't""0 t "" 3 "" { 1/3 -1/3 }\n')
    tree = parse_efg(text)
    assert tree.num_nodes == 5 and tree.infosets[0].label == "x{y}" and tree.infosets[0].actions == ("l\\", "r")
    assert tree.payoff_table.tolist() == [[1.0, -1.0], [0.5, -0.5], [5 / 6, -5 / 6]]  # summed exactly


def test_a_large_file_reports_how_far_its_read_has_got(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    heard: list[str] = []
    monkeypatch.setattr("cfrlab.file_checks.progress_hook", heard.append)
    monkeypatch.setattr(efg_parse, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr("cfrlab.efg.nodes.CHUNK_NODES", 2)
    path = tmp_path / "g.efg"
    path.write_text(EFG_SEED)
    efg_parse.read_efg(path)
    assert heard and all("reading" in line and "%" in line for line in heard)


def test_a_file_of_large_nodes_reports_its_progress_by_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk holds about ``PROGRESS_CHARS`` characters at the nodes' mean size so far, not a fixed node count."""
    monkeypatch.setattr("cfrlab.efg.nodes.PROGRESS_CHARS", 50_000)
    actions = " ".join(f'"a{k}" 1/1200' for k in range(1200))
    leaves = f't "" 1 "{"x" * 2_000}" {{ 1, -1 }}\n' * 1200
    heard: list[int] = []
    tree = parse_efg(f'EFG 2 R "x" {{ "A" "B" }} ""\nc "" 1 "" {{ {actions} }} 0\n{leaves}', "g.efg", heard.append)
    assert tree.num_nodes == 1201 and len(heard) >= 5 and heard == sorted(heard)


EXTREME = [1e300, -1.7976931348623157e308, 5e-324, -2.2250738585072014e-308 / 3, 0.1, 1 / 3]


def test_export_writes_no_payoff_its_reader_refuses(tmp_path: Path) -> None:
    nodes = "".join(f't "" {k + 1} "" {{ {x!r}, {-x!r} }}\n' for k, x in enumerate(EXTREME))
    actions = " ".join(f'"a{k}"' for k in range(len(EXTREME)))
    source = tmp_path / "extreme.efg"
    source.write_text(f'EFG 2 R "x" {{ "A" "B" }} ""\np "" 1 1 "" {{ {actions} }} 0\n{nodes}')
    game = cfrlab.load_game(str(source))
    write_efg(game, tmp_path / "again.efg")
    again = cfrlab.load_game(str(tmp_path / "again.efg"))
    root = again.new_initial_state()
    assert [root.child(a).returns() for a in range(len(EXTREME))] == [[x, -x] for x in EXTREME]


# ------------------------------------------------------------------------------------------ 2. outputs and inputs

@pytest.mark.parametrize("option", ["--out", "--log", "--checkpoint"])
def test_an_output_that_is_the_game_file_is_refused(capsys, game_file: Path, option: str) -> None:  # type: ignore[no-untyped-def]
    refused(capsys, game_file.parent, ["solve", str(game_file), "-n", "2", "-q", option, str(game_file)],
            "this command reads")


def test_a_plot_over_its_own_run_log_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "run.jsonl"
    assert main(["solve", "kuhn", "-n", "4", "-q", "--log", str(log)]) == 0
    refused(capsys, tmp_path, ["plot", str(log), "-o", str(log)], "this command reads")


def test_export_over_its_own_game_or_a_hard_link_of_it_is_refused(capsys, game_file: Path) -> None:  # type: ignore[no-untyped-def]
    os.link(game_file, game_file.parent / "hard.efg")
    for target in (game_file, game_file.parent / "hard.efg"):
        refused(capsys, game_file.parent, ["export", f"efg:{game_file}", "--efg", str(target)], "this command reads")


def test_an_output_through_a_symbolic_link_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    victim = tmp_path / "victim.npz"
    victim.write_bytes(b"precious")
    (tmp_path / "l.jsonl").symlink_to(victim)
    (tmp_path / "o.efg").symlink_to(victim)
    refused(capsys, tmp_path, ["solve", "kuhn", "-n", "2", "-q", "--log", str(tmp_path / "l.jsonl")], "symbolic link")
    refused(capsys, tmp_path, ["export", "kuhn", "--efg", str(tmp_path / "o.efg")], "symbolic link")


def test_export_leaves_a_planted_part_file_and_its_target_alone(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    victim, user = tmp_path / "victim.txt", tmp_path / ".k.efg.notours.tmp"
    victim.write_text("precious")
    user.write_text("mine")
    (tmp_path / "k.efg.part").symlink_to(victim)
    assert main(["export", "kuhn", "--efg", str(tmp_path / "k.efg")]) == 0
    assert victim.read_text() == "precious" and user.read_text() == "mine"
    assert cfrlab.load_game(str(tmp_path / "k.efg")).num_players == 2


@pytest.mark.parametrize("args", [["solve", "{loop}.efg", "-n", "1"], ["solve", "efg:{loop}", "-n", "1"],
                                  ["eval", "{loop}"], ["show", "{loop}"], ["plot", "{loop}", "-o", "{dir}/p.png"]])
def test_a_symbolic_link_loop_as_an_input_is_one_line(capsys, tmp_path: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.efg").symlink_to(tmp_path / "b.efg")
    (tmp_path / "b.efg").symlink_to(tmp_path / "a.efg")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    loop = str(tmp_path / "a")
    refused(capsys, tmp_path, [a.format(loop=loop, dir=tmp_path) for a in args], "")


# ------------------------------------------------------------------------------------------ 3. names from files

HOSTILE_EFG = '''EFG 2 R "t\x1b]0;pwned\x07" { "P1[/]" "P2" } "c"
p "" 1 1 "[/]" { "[/]" "x[bold]" } 0
t "" 1 "" { 1, -1 }
p "" 2 1 "[red]k\u202e" { "a\x1b[2J" "b" } 0
t "" 2 "" { -1, 1 }
t "" 3 "" { 2, -2 }
'''


def test_names_from_a_file_reach_no_terminal_raw_in_any_command(capsys, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game, out = tmp_path / "evil.efg", tmp_path / "s.npz"
    game.write_text(HOSTILE_EFG)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 8))
    for args in (["solve", str(game), "-n", "5", "--out", str(out)], ["show", str(out)], ["eval", str(out)],
                 ["play", str(game), "--hands", "1"], ["arena", str(game), f"policy:{out}", "random", "-n", "2"],
                 ["export", f"efg:{game}", "--efg", str(tmp_path / "again.efg")]):
        capsys.readouterr()
        code = main(args)
        text = "".join(capsys.readouterr())
        assert code == 0 and "\x1b" not in text and "\u202e" not in text and "Traceback" not in text, (args, text)
    capsys.readouterr()
    main(["show", str(out)])
    shown = capsys.readouterr().out
    assert "[red]k" in shown and "x[bold]" in shown and "\\x1b[2J" in shown  # shown as written, not as markup
    again = cfrlab.load_game(str(tmp_path / "again.efg")).new_initial_state()  # exported names read back alike
    assert [again.action_to_string(a) for a in (0, 1)] == ["[/]", "x[bold]"]
    assert again.child(1).action_to_string(0) == "a\x1b[2J"
    assert terminal_safe("a\x1b[2Jb\x9b\u202ec\n\td") == "a\\x1b[2Jb\\x9b\\u202ec\n\td"


def test_an_error_line_quoting_a_file_is_escaped(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    game = tmp_path / "bad.efg"
    game.write_text(EFG_SEED.replace('t "" 1 "Win Big"', 'q\x1b[2J "" 1 "Win Big"'))
    refused(capsys, tmp_path, ["solve", str(game), "-n", "1"], "\\x1b[2J")


# ------------------------------------------------------------------------------------------ 4. --agent-log

@pytest.fixture
def agent_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    log = tmp_path / "rows.jsonl"
    assert main(["eval", "kuhn", "--agent", "random", "--agent-log", str(log), "--json"]) == 0
    capsys.readouterr()
    return log


def _rows(log: Path) -> list[str]:
    return log.read_text().splitlines()


def _with_row(lines: list[str], i: int, row: list[float]) -> str:
    record = json.loads(lines[i])
    record["row"] = row
    return "\n".join(lines[:i] + [json.dumps(record)] + lines[i + 1:]) + "\n"


@pytest.mark.parametrize("edit, says", [
    (lambda lines: "\n".join([lines[0], *(json.dumps({**json.loads(line), "row": [1.0, 0.0]})
                                           for line in lines[1:])]) + "\n", "recomputed now"),
    (lambda lines: _with_row(lines, 1, [0.5, 0.3]), "not summing to 1"),
    (lambda lines: "\n".join(lines + [lines[3]]) + "\n", "twice"),
    (lambda lines: "\n".join(lines[:3] + [lines[3].replace('"infoset": ', '"infoset": 1000')]) + "\n", "not one of"),
])
def test_an_edited_agent_log_is_refused_in_one_line(capsys, agent_log: Path, edit, says) -> None:  # type: ignore[no-untyped-def]
    agent_log.write_text(edit(_rows(agent_log)))
    refused(capsys, agent_log.parent, ["eval", "kuhn", "--agent", "random", "--agent-log", str(agent_log)], says)


def test_mass_on_an_illegal_action_in_an_agent_log_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "rows.jsonl"
    assert main(["eval", "leduc(ranks=2)", "--agent", "random", "--agent-log", str(log), "--json"]) == 0
    lines = _rows(log)
    tree = cfrlab.load_game("leduc(ranks=2)")
    from cfrlab.policy_tabulate import legal_mask
    from cfrlab.tree import load_tree

    mask = legal_mask(load_tree(tree))
    row = next(i for i in range(len(mask)) if not mask[i].all())
    index = next(k for k, line in enumerate(lines[1:], 1) if json.loads(line)["infoset"] == row)
    illegal = [0.0] * mask.shape[1]
    illegal[int(np.flatnonzero(~mask[row])[0])] = 1.0
    log.write_text(_with_row(lines, index, illegal))
    refused(capsys, tmp_path, ["eval", "leduc(ranks=2)", "--agent", "random", "--agent-log", str(log)],
            "illegal action")


# ------------------------------------------------------------------------------------------ 5. network weights

@pytest.mark.parametrize("scale", [3e38, 1e7])
def test_weights_whose_outputs_overflow_are_refused(capsys, tmp_path: Path, scale: float) -> None:  # type: ignore[no-untyped-def]
    from cfrlab.games.koikoi.neural.weights import NetWeights, check_weights, load_weights, save_weights
    from cfrlab.games.koikoi.players.neural import SHIPPED

    weights, _ = load_weights(SHIPPED)
    huge = NetWeights(*(np.full_like(a, scale) for a in weights))
    with pytest.raises(ValueError, match="outputs reach"):
        check_weights(huge)
    with pytest.raises(ValueError, match="outputs reach"):
        save_weights(tmp_path / "x.npz", huge)
    from cfrlab.checkpoint import load_arrays, save_arrays

    arrays, meta = load_arrays(SHIPPED)
    save_arrays(tmp_path / "w.npz", {k: np.full_like(v, scale) for k, v in arrays.items()}, meta)
    for agent in (f"neural:1:{tmp_path / 'w.npz'}", f"neural:oos:0.01:{tmp_path / 'w.npz'}"):
        refused(capsys, tmp_path, ["arena", "koikoi_mini_tsukifuda", agent, "greedy", "-n", "1"], "outputs reach")


# ------------------------------------------------------------------------------------------ 6. numeric options

@pytest.mark.parametrize("flag, value", [("--dcfr-alpha", "-1e308"), ("--dcfr-alpha", "-1"), ("--dcfr-alpha", "1e6"),
                                         ("--dcfr-beta", "-1e308"), ("--dcfr-gamma", "1e300")])
def test_a_discount_exponent_without_meaning_is_refused(capsys, tmp_path: Path, flag: str, value: str) -> None:  # type: ignore[no-untyped-def]
    refused(capsys, tmp_path, ["solve", "kuhn", "--algo", "dcfr", f"{flag}={value}", "-n", "1", "-q"], flag)


def test_an_input_deleted_since_no_longer_guards_its_inode(tmp_path, monkeypatch) -> None:
    """A run that reads a file, deletes it (a pool snapshot retired) and writes a new file that the file system gives
    the freed inode is not writing over an input; a live input is still guarded."""
    from cfrlab import file_checks

    kept, gone = tmp_path / "kept.npz", tmp_path / "gone.npz"
    kept.write_bytes(b"k")
    gone.write_bytes(b"g")
    with file_checks.command_files():
        file_checks.note_input(kept)
        file_checks.note_input(gone)
        stat = os.stat(gone)
        gone.unlink()
        fresh = tmp_path / "weights.npz"
        fresh.write_bytes(b"w")
        real_stat = os.stat
        monkeypatch.setattr(os, "stat", lambda p, *a, **k: stat if str(p) == str(fresh) else real_stat(p, *a, **k))
        assert file_checks._aliased_input(fresh) is None  # the freed inode, reused
        monkeypatch.setattr(os, "stat", real_stat)
        assert file_checks._aliased_input(kept) == f"input {str(kept)!r}"


def test_a_runs_subfolder_is_never_reached_through_a_link(tmp_path: Path) -> None:
    """``file_checks.output_subfolder``: the folders a run makes inside its ``--out`` (Koi-Koi's ``pool/``, expert
    iteration's ``shards/gGGG/cCCC``) are made, but a link or a file planted on the way is refused, the folder it
    points to left empty."""
    from cfrlab.file_checks import output_subfolder

    out, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert output_subfolder(out, out / "shards" / "g000" / "c000").is_dir()
    (out / "shards" / "g001").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="symbolic link"):
        output_subfolder(out, out / "shards" / "g001" / "c000")
    (out / "pool").write_text("a file")
    with pytest.raises(ValueError, match="not a folder"):
        output_subfolder(out, out / "pool")
    assert not any(elsewhere.iterdir())
