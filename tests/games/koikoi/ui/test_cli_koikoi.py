"""``cfrlab play`` fed from stdin, and ``cfrlab arena``."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from cfrlab.cli.main import main
from cfrlab.games.koikoi.ui.terminal import run_play


def test_play_survives_bad_input_and_finishes() -> None:
    answers = iter(["zz", "99", "s", "c99"] + ["1"] * 40 + ["s"] * 5)
    lines: list[str] = []
    returns = run_play("koikoi", "greedy", seed=4, input_fn=lambda prompt: next(answers), print_fn=lines.append)
    text = "\n".join(lines)
    assert "did not understand 'zz'" in text
    assert "no card numbered 99" in text
    assert "not legal in phase PLAY" in text
    assert "Game over" in text and returns[0] == -returns[1]
    assert "Yaku: you" in text and "(Feb animal)" in text


def test_play_never_shows_the_opponent_hand() -> None:
    from cfrlab.games.koikoi.rules import cards as C
    from cfrlab.registry import load_game
    from cfrlab.seeding import as_generator

    lines: list[str] = []
    answers = iter(["q"])
    run_play("koikoi", "random", seed=7, input_fn=lambda prompt: next(answers), print_fn=lines.append)
    # rebuild the same deal: the first chance draw of the play loop's chance stream
    game = load_game("koikoi")
    chance_rng, _ = as_generator(7).spawn(2)
    root = game.new_initial_state()
    dealt = root.child(root.sample_chance(chance_rng))
    opp_hand = C.cards_of(dealt.es.hands[1])
    text = "\n".join(lines)
    assert all(C.NAME_EN[c] not in text for c in opp_hand)
    assert all(C.NAME_EN[c] in text for c in C.cards_of(dealt.es.hands[0]))


def test_play_from_a_real_stdin_pipe() -> None:
    feed = "\n".join(["1"] * 30 + ["s"] * 5) + "\n"
    proc = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "play", "koikoi", "--opponent", "greedy",
                           "--seed", "11"], input=feed, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Game over" in proc.stdout or "Goodbye" in proc.stdout


def test_arena_command_prints_table_and_json(capsys) -> None:
    assert main(["arena", "koikoi", "greedy", "random", "--rounds", "20"]) == 0
    out = capsys.readouterr().out
    assert "greedy vs random" in out and "win rate" in out
    assert main(["arena", "koikoi_mini", "random", "random", "--rounds", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 20 and data["deals"] == 10
    assert main(["arena", "koikoi", "nobody", "random", "--rounds", "2"]) == 2


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


def _played(width: int | None) -> list[str]:
    answers = iter(["h", "zz"] + ["1"] * 40 + ["s"] * 5)
    lines: list[str] = []
    run_play("koikoi", "greedy", seed=4, input_fn=lambda prompt: next(answers), print_fn=lines.append, width=width)
    return "\n".join(lines).split("\n")


@pytest.mark.parametrize("width", [80, 100])
def test_play_wraps_its_lines_to_the_terminal_between_words(width: int) -> None:
    from cfrlab.games.koikoi.rules import cards as C

    whole, fitted = _played(None), _played(width)
    assert max(len(line) for line in whole) > 150  # the table's lines are long; the help's table is wide
    assert max(len(line) for line in fitted) <= width
    assert " ".join(fitted).split() == " ".join(whole).split()  # only line breaks were added: no word split
    assert "\xa0" not in "".join(fitted)
    text = "\n".join(fitted)
    labels = [f"{C.NAME_EN[c]} ({C.MONTH_NAMES[C.MONTH[c] - 1]} {C.KIND_NAMES[C.KIND[c]]})" for c in range(48)]
    shown = [label for label in labels if label in " ".join(whole)]
    assert shown and all(label in text for label in shown)  # a card's name and kind stay on one line
    assert any(line.startswith("      ") for line in fitted)  # a wrapped card list goes on indented


def test_play_command_wraps_to_columns() -> None:
    import os

    feed = "\n".join(["1"] * 30 + ["s"] * 5) + "\n"
    proc = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "play", "koikoi", "--opponent", "greedy",
                           "--seed", "11"], input=feed, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert max(len(line) for line in lines) <= 80 and len(lines) > 20
