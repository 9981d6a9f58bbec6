"""``cfrlab bot koikoi``: observations as JSON lines in, actions as JSON lines out, one error line per bad line."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.games.koikoi.agents import GreedyAgent
from cfrlab.games.koikoi.observation import observation
from cfrlab.registry import load_game


def _observations(n: int) -> list[tuple[dict, list[int]]]:
    game = load_game("koikoi(rounds=12)")
    rng, greedy, out = np.random.default_rng(6), GreedyAgent(), []
    s = game.new_initial_state()
    while len(out) < n:
        if s.is_chance_node():
            s = s.child(s.sample_chance(rng))
            continue
        out.append((observation(s, s.current_player()), s.legal_actions()))
        s = s.child(greedy.act(s, rng))
    return out


def run_bot(monkeypatch, capsys, lines: list[str], *args: str) -> tuple[int, list[str], str]:  # noqa: ANN001
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["bot", "koikoi", *args])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_bot_answers_every_observation_with_a_legal_action(monkeypatch, capsys) -> None:
    cases = _observations(12)
    code, answers, err = run_bot(monkeypatch, capsys, [json.dumps(o) for o, _ in cases] + [""],
                                 "--agent", "search", "--rollouts", "8")
    assert code == 0 and err == "" and len(answers) == len(cases)
    for (obs, legal), line in zip(cases, answers):
        answer = json.loads(line)
        assert answer["action"] in legal and answer["name"]


def test_bot_refuses_each_bad_line_with_one_error_line_and_keeps_serving(monkeypatch, capsys) -> None:
    (good, legal), = _observations(1)
    bad_round = dict(good, round=13)
    lines = ["{not json", json.dumps([1, 2]), json.dumps(bad_round), json.dumps(good)]
    code, answers, err = run_bot(monkeypatch, capsys, lines, "--agent", "greedy")
    assert code == 2 and len(answers) == 4 and "Traceback" not in err
    errors = [json.loads(a).get("error", "") for a in answers[:3]]
    assert errors[0].startswith("line 1: the observation is not valid JSON")
    assert errors[1].startswith("line 2: an observation is a JSON object")
    assert errors[2].startswith("line 3: round must be an integer from 1 to 12")
    assert json.loads(answers[3])["action"] in legal


def test_bot_usage_mistakes_are_one_line(monkeypatch, capsys) -> None:
    for args in (["--agent", "nobody"], ["--agent", "policy:x.npz"]):
        code, answers, err = run_bot(monkeypatch, capsys, [], *args)
        assert code == 2 and answers == [] and len(err.strip().splitlines()) == 1 and err.startswith("error:")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["bot", "kuhn"]) == 2
    assert "Koi-Koi only" in capsys.readouterr().err


def test_schema_is_printed_and_accepts_recorded_observations(capsys) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["bot", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    for obs, _ in _observations(20):
        jsonschema.validate(obs, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"player": 0, "oya": 1, "hand": [], "dealt_field": [], "history": [["koikoi", 3]]},
                            schema)
