"""``cfrlab play`` for games without a terminal loop of their own: Kuhn and Leduc through the web page's player views
(Koi-Koi's own loop: tests/games/koikoi/ui/test_cli_koikoi.py)."""

from __future__ import annotations

import re
import subprocess
import sys

from cfrlab.cli.main import main
from cfrlab.cli.table_game import run_table_game

RESULT = re.compile(r"(You win \d+ chips?\.|You lose \d+ chips?\.|Nobody wins anything: a tie\.)$", re.M)


def _play_cli(*args: str, feed: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "play", *args], input=feed,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_play_kuhn_and_leduc_to_the_end_from_stdin() -> None:
    for game in ("kuhn", "leduc"):
        out = _play_cli(game, "--hands", "1", "--seed", "3", feed="1\n" * 10)
        assert RESULT.search(out), out
        assert "Score: " in out and "over 1 hand" in out and "Your card: " in out


def test_table_game_against_a_strategy_file(tmp_path, capsys) -> None:
    strategy = tmp_path / "leduc.npz"
    assert main(["solve", "leduc", "-n", "20", "--out", str(strategy), "--no-eval", "-q"]) == 0
    capsys.readouterr()
    lines: list[str] = []
    answers = iter(["zz", "h", "2"] + ["c"] * 20)
    score = run_table_game("leduc", strategy=strategy, seat=1, hands=3, seed=5,
                           input_fn=lambda prompt: next(answers), print_fn=lines.append)
    text = "\n".join(lines)
    assert "against leduc.npz (cfr+, 20 iterations)" in text
    assert "Not understood: 'zz'" in text and "c = check or call" in text
    assert score["hands"] == 3 and len(RESULT.findall(text)) == 3
    assert score["low"] <= score["mean"] <= score["high"]


def test_play_refuses_another_family_s_flag() -> None:
    """``--rounds`` is Koi-Koi's option of ``play``: one line and exit code 2 for a poker game."""
    assert main(["play", "kuhn", "--rounds", "12"]) == 2


def test_terminal_leduc_says_a_fold_once_and_names_cards_one_way() -> None:
    lines: list[str] = []
    answers = iter(["2"] * 40)  # always bet, raise or call: the random opponent folds in some hand
    run_table_game("leduc", seat=0, hands=3, seed=4, input_fn=lambda prompt: next(answers), print_fn=lines.append)
    text = "\n".join(lines)
    assert text.count("The opponent folds.") == 1, text
    assert not re.search(r"\b[JQK][shdc]\b", text), text  # Q\u2660 everywhere, never Qs
    assert "\u2660" in text or "\u2665" in text


def test_show_and_play_name_actions_alike(tmp_path, capsys) -> None:
    """One naming source, the game's action_to_string: show's columns are play's buttons."""
    from cfrlab.registry import load_game
    from cfrlab.web.views import table_view

    strategy = tmp_path / "leduc.npz"
    assert main(["solve", "leduc", "-n", "5", "--out", str(strategy), "--no-eval", "-q"]) == 0
    capsys.readouterr()
    assert main(["show", str(strategy), "--filter", "0:Ks:", "--json"]) == 0
    rows = {row["infoset"]: row for row in __import__("json").loads(capsys.readouterr().out)}
    game = load_game("leduc")
    state = game.new_initial_state().child(4).child(0)  # K of spades to player 0, then a card to player 1
    assert state.information_state_key(0) == "0:Ks:"
    buttons = [table_view(game).action_label(state, a) for a in state.legal_actions()]
    assert list(rows["0:Ks:"]["actions"]) == buttons == ["Check", "Bet"]
