"""Gambit ``.efg`` files in and out: the reader on hand-written and crafted files, and export round trips.

The cross-checks against Gambit's own reader and exact solvers are in ``test_efg_gambit.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cfrlab
from cfrlab.cli.main import main
from cfrlab.efg import EfgFormatError, EfgGame, write_efg
from cfrlab.efg.parse import MAX_DEPTH, MAX_PLAYERS, parse_efg
from cfrlab.testing import assert_same_game, check_game

# Myerson's one-card poker (Game Theory, 1991, sec. 2.1), written out by hand: payoffs at terminals, 1/2 chance.
ONE_CARD_POKER = '''EFG 2 R "One-card poker" { "Fred" "Alice" }
"Myerson 1991, sec. 2.1"

c "" 1 "" { "Red" 1/2 "Black" 0.5 } 0
p "" 1 1 "red" { "Raise" "Fold" } 0
p "" 2 1 "" { "Meet" "Pass" } 0
t "" 1 "Win Big" { 2, -2 }
t "" 2 "Win" { 1, -1 }
t "" 2 "Win" { 1, -1 }
p "" 1 2 "black" { "Raise" "Fold" } 0
p "" 2 1 "" { "Meet" "Pass" } 0
t "" 3 "Lose Big" { -2, 2 }
t "" 2 "Win" { 1, -1 }
t "" 4 "Lose" { -1, 1 }
'''


def write(tmp_path: Path, text: str, name: str = "game.efg") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_hand_written_file_reads_as_the_game_it_describes(tmp_path):
    game = cfrlab.load_game(str(write(tmp_path, ONE_CARD_POKER)))
    assert isinstance(game, EfgGame) and game.num_players == 2 and game.info.zero_sum
    report = check_game(game)
    assert report.enumerated and report.states == 11 and report.infosets == {0: 2, 1: 1}
    root = game.new_initial_state()
    assert root.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    red = root.child(0)
    assert red.information_state_key() == "0:1 red" and [red.action_to_string(a) for a in (0, 1)] == ["Raise", "Fold"]
    assert red.child(0).child(0).returns() == [2.0, -2.0]
    # Myerson's solution: Fred raises with red, bluffs with black 1/3; Alice meets 2/3; value 1/3 to Fred.
    policy = cfrlab.TabularPolicy(["0:1 red", "0:2 black", "1:1"], np.array([[1, 0], [1 / 3, 2 / 3], [2 / 3, 1 / 3]]),
                                  np.ones((3, 2), bool))
    assert cfrlab.expected_values(game, policy) == pytest.approx([1 / 3, -1 / 3])
    assert cfrlab.nash_conv(game, policy) == pytest.approx(0.0, abs=1e-12)


def test_the_spec_names_the_file_and_the_fingerprint_its_content(tmp_path):
    path = write(tmp_path, ONE_CARD_POKER)
    game = cfrlab.load_game(f"efg:{path}")
    assert game.spec() == f"efg:{path.resolve()}"
    assert cfrlab.load_game(game.spec()).fingerprint() == game.fingerprint()
    edited = write(tmp_path, ONE_CARD_POKER.replace("{ 2, -2 }", "{ 3, -3 }"), "edited.efg")
    assert cfrlab.load_game(str(edited)).fingerprint() != game.fingerprint()


def test_outcomes_at_inner_nodes_add_up_and_names_may_be_left_out_later(tmp_path):
    text = '''EFG 2 R "t" { "A" "B" "C" } ""
p "" 1 1 "" { "x" "y" } 1 "entry" { 1, 0, 0 }
c "" 1 "" { "h" 1/3 "t" 2/3 } 0
p "" 2 1 "" { "l" "r" } 0
t "" 2 "" { 0, 1, 2 }
t "" 0
p "" 2 1 0
t "" 2
t "" 3 "" { 5, 5, 5 }
t "" 0
'''
    game = cfrlab.load_game(str(write(tmp_path, text)))
    check_game(game)
    assert game.num_players == 3 and not game.info.zero_sum
    state = game.new_initial_state().child(0).child(1)
    assert state.information_state_key() == "1:1" and state.child(0).returns() == [1.0, 1.0, 2.0]
    assert game.new_initial_state().child(1).returns() == [1.0, 0.0, 0.0]  # the root's outcome counts


CRAFTED = [
    ("probabilities", ONE_CARD_POKER.replace("0.5", "0.4"), 4, "sum to 0.9"),
    ("negative probability", ONE_CARD_POKER.replace('"Red" 1/2 "Black" 0.5', '"Red" 3/2 "Black" -1/2'), 4,
     "negative"),
    ("undeclared player", ONE_CARD_POKER.replace('p "" 2 1 "" { "Meet" "Pass" } 0\nt "" 3', 'p "" 3 1 "" '
                                                 '{ "Meet" "Pass" } 0\nt "" 3'), 11, "player 3 is not declared"),
    ("imperfect recall", '''EFG 2 R "absent-minded driver" { "Driver" }
""
p "" 1 1 "" { "exit" "continue" } 0
t "" 1 "" { 0 }
p "" 1 1 "" { "exit" "continue" } 0
t "" 2 "" { 4 }
t "" 3 "" { 1 }
''', 5, "imperfect recall"),
    ("payoff count", ONE_CARD_POKER.replace("{ 2, -2 }", "{ 2, -2, 7 }"), 7, "3 payoffs for 2 players"),
    ("outcome redefined",
     ONE_CARD_POKER.replace('t "" 2 "Win" { 1, -1 }\np "" 1 2', 't "" 2 "Win" { 9, -9 }\np "" 1 2'),
     9, "other payoffs"),
    ("outcome undefined", ONE_CARD_POKER.replace('t "" 4 "Lose" { -1, 1 }', 't "" 4'), 14, "without its payoffs"),
    ("infoset undefined", ONE_CARD_POKER.replace('p "" 1 2 "black" { "Raise" "Fold" } 0', 'p "" 1 2 0'), 10,
     "without its actions"),
    ("infoset redefined", ONE_CARD_POKER.replace('p "" 2 1 "" { "Meet" "Pass" } 0\nt "" 3',
                                                 'p "" 2 1 "" { "Meet" "Go" } 0\nt "" 3'), 11, "other actions"),
    ("truncated", "\n".join(ONE_CARD_POKER.splitlines()[:-2]), 12, "file ends"),
    ("trailing", ONE_CARD_POKER + 't "" 1 "" { 0, 0 }\n', 15, "goes on"),
    ("bad number", ONE_CARD_POKER.replace("{ 2, -2 }", "{ 2, two }"), 7, "two"),
    ("division by zero", ONE_CARD_POKER.replace("1/2", "1/0"), 4, "divides by zero"),
    ("huge payoff", ONE_CARD_POKER.replace("{ 2, -2 }", "{ 1e999, -2 }"), 7, "too large"),
    ("huge number", ONE_CARD_POKER.replace("{ 2, -2 }", "{ " + "9" * 1000 + ", -2 }"), 7, "expected a payoff"),
    ("header", "NFG 1 R \"x\" { \"a\" }\n", 1, "begin with 'EFG 2 R'"),
    ("no players", 'EFG 2 R "x" { }\n""\nt "" 0\n', 1, "no players"),
    ("many players", 'EFG 2 R "x" { ' + '"p" ' * (MAX_PLAYERS + 1) + "}\n", 1, f"more than {MAX_PLAYERS} players"),
    ("huge infoset number", ONE_CARD_POKER.replace('p "" 1 1 "red"', 'p "" 1 99999999999999999999999 "red"'), 5,
     "information set's number"),
    ("empty actions", ONE_CARD_POKER.replace('{ "Raise" "Fold" } 0\np "" 2', '{ } 0\np "" 2', 1), 5,
     "at least one action"),
    ("deep nesting", 'EFG 2 R "x" { "a" }\n""\n'
     + "".join(f'p "" 1 {i} "" {{ "on" }} 0\n' for i in range(1, MAX_DEPTH + 2)) + 't "" 0\n',
     MAX_DEPTH + 3, "deeper than"),
]


@pytest.mark.parametrize("name,text,line,words", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_malformed_or_crafted_file_is_refused_with_its_line(tmp_path, name, text, line, words):
    with pytest.raises(EfgFormatError) as info:
        parse_efg(text, "g.efg")
    message = str(info.value)
    assert "\n" not in message and f"g.efg, line {line}:" in message and words in message, message


def test_the_cli_refuses_a_bad_file_in_one_line_with_exit_2(tmp_path, capsys):
    path = write(tmp_path, ONE_CARD_POKER.replace("0.5", "0.4"))
    for args in (["solve", str(path), "-n", "2"], ["export", f"efg:{path}", "--efg", str(tmp_path / "o.efg")],
                 ["solve", str(tmp_path / "missing.efg")], ["solve", str(path), "--ranks", "3"]):
        code = main(args)
        out, err = capsys.readouterr()
        lines = [x for x in err.splitlines() if x.strip()]
        assert code == 2 and len(lines) == 1 and "Traceback" not in out + err, (args, err)
        assert "efg" in lines[0]
    assert not (tmp_path / "o.efg").exists()


ROUND_TRIPS = ["kuhn", "kuhn(players=3)", "leduc(ranks=2)", "random_game(seed=1)",
               "random_game(seed=2,players=3,depth=5)", "random_game(seed=4,zero_sum=false,chance=0.6)"]


@pytest.mark.parametrize("spec", ROUND_TRIPS)
def test_export_then_import_is_the_same_game(tmp_path, spec):
    game = cfrlab.load_game(spec)
    path = tmp_path / "out.efg"
    count = write_efg(game, path)
    again = cfrlab.load_game(f"efg:{path}")
    assert assert_same_game(game, again, by_rank=True) == count
    check_game(again)
    write_efg(again, tmp_path / "twice.efg")  # a re-read game writes the same tree
    assert_same_game(again, cfrlab.load_game(str(tmp_path / "twice.efg")))


def test_cli_export_writes_a_file_solve_reads(tmp_path, capsys):
    path = tmp_path / "kuhn.efg"
    assert main(["export", "kuhn", "--efg", str(path)]) == 0
    assert "58 nodes" in capsys.readouterr().err
    assert main(["solve", str(path), "-n", "300", "--json", "-q"]) == 0
    import json

    result = json.loads(capsys.readouterr().out)
    assert result["game"] == f"efg:{path.resolve()}" and result["exploitability"] < 0.01


@pytest.mark.parametrize("spec,words", [("koikoi", "does not list its outcomes"), ("holdem", "too large")])
def test_export_refuses_a_game_without_a_listable_tree_in_one_line(tmp_path, capsys, spec, words):
    code = main(["export", spec, "--efg", str(tmp_path / "x.efg")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err
    assert not list(tmp_path.iterdir())
