"""``cfrlab play`` for every game: Kuhn and Leduc through the web page's player views, Koi-Koi explained."""

from __future__ import annotations

import re
import subprocess
import sys

from cfrlab.cli.main import main
from cfrlab.cli.table_game import run_table_game
from cfrlab.games.koikoi.ui.terminal import run_play

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


def test_play_refuses_koikoi_flags_for_poker() -> None:
    assert main(["play", "kuhn", "--rounds", "12"]) == 2


def test_koikoi_names_yaku_captures_and_shows_the_rules() -> None:
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "h" if len(asked) == 1 else ("s" if "STOP" in prompt else "1")

    lines: list[str] = []
    run_play("koikoi(rounds=3)", "greedy", seed=2, input_fn=answer, print_fn=lines.append)
    text = "\n".join(lines)
    assert "Inoshikacho           5 +1 per extra animal" in text and "x2 when the base score is 7 or more" in text
    assert re.search(r"^(You capture|The opponent captures) \w", text, re.M)
    ends = re.findall(r"^Round \d over\. (.*)$", text, re.M)
    assert len(ends) == 3, ends
    for end in ends:  # every score names its yaku with their points, and the points add up
        m = re.search(r"scores? (\d+) \(([^)]*)\)", end)
        if m is None:
            assert "nobody scores" in end, end
            continue
        points, detail = int(m.group(1)), m.group(2)
        yaku = re.findall(r"([A-Z][\w-]*) (\d+)", detail.split(" = ")[0])
        assert yaku, end
        assert points == int(detail.rsplit("= ", 1)[1]) if "=" in detail else points == sum(int(p) for _, p in yaku)


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
