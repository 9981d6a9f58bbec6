"""``cfrlab bot koikoi``: observations as JSON lines in, actions as JSON lines out, one error line per bad line."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.rules.observation import observation
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


def run_bot(monkeypatch, capsys, lines: list[str], *args: str) -> tuple[int, list[str], str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["bot", "koikoi", *args])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_bot_answers_every_observation_with_a_legal_action(monkeypatch, capsys) -> None:
    cases = _observations(12)
    code, answers, err = run_bot(monkeypatch, capsys, [json.dumps(o) for o, _ in cases] + [""],
                                 "--agent", "search", "--rollouts", "8")
    assert code == 0 and err == "" and len(answers) == len(cases)
    for (_, legal), line in zip(cases, answers):
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


def _choice(phase: str) -> tuple[dict, list[int]]:
    """A recorded observation at a decision of ``phase`` (single rounds of greedy play until one comes)."""
    game, rng, greedy = load_game("koikoi"), np.random.default_rng(3), GreedyAgent()
    for _ in range(200):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s = s.child(s.sample_chance(rng))
                continue
            obs = observation(s, s.current_player())
            if obs["phase"] == phase:
                return obs, s.legal_actions()
            s = s.child(greedy.act(s, rng))
    raise AssertionError(f"no {phase} decision in 200 rounds")


def test_an_explicit_phase_is_accepted_and_checked(monkeypatch, capsys) -> None:
    capture, legal = _choice("play_capture")
    assert capture["history"][-1][0] == "play"
    wrong = dict(capture, phase="play")
    unknown = dict(capture, phase="capture_please")
    code, answers, _ = run_bot(monkeypatch, capsys, [json.dumps(capture), json.dumps(wrong), json.dumps(unknown)],
                               "--agent", "greedy")
    assert code == 2 and json.loads(answers[0])["action"] in legal
    assert json.loads(answers[1])["error"] == ("line 2: phase is 'play' but the history leads to 'play_capture' (the "
                                               "history's last card matches two field cards: answer the one to take)")
    assert json.loads(answers[2])["error"].startswith("line 3: phase must be one of play, play_capture, draw_capture")
    for phase in ("play", "decide"):
        obs, legal = _choice(phase)
        code, answers, _ = run_bot(monkeypatch, capsys, [json.dumps(obs)], "--agent", "greedy")
        assert code == 0 and json.loads(answers[0])["action"] in legal


def test_a_played_card_left_in_hand_is_named() -> None:
    from cfrlab.games.koikoi.rules.observation import ObservationError, state_from_observation

    def mine(o: dict) -> list[int]:  # the cards the observer played: play i is by seat (oya + i) % 2
        plays = [e[1] for e in o["history"] if e[0] == "play"]
        return [c for i, c in enumerate(plays) if (o["oya"] + i) % 2 == o["player"]]

    obs = next(o for o, _ in _observations(40) if mine(o))
    mine = mine(obs)
    with pytest.raises(ObservationError, match=rf"^hand still holds \[{mine[0]}\], which your history plays: a "
                                               "played card leaves your hand$"):
        state_from_observation(dict(obs, hand=sorted(obs["hand"] + [mine[0]])), "nintendo")


def test_rounds_count_from_one_and_help_says_what_goes_in_and_out(monkeypatch, capsys) -> None:
    (obs, _), = _observations(1)
    _, answers, _ = run_bot(monkeypatch, capsys, [json.dumps(dict(obs, round=0))], "--agent", "greedy")
    assert json.loads(answers[0])["error"] == "line 1: round must be an integer from 1 to 12, got 0"
    from cfrlab.games.koikoi.rules.observation import OBSERVATION_SCHEMA

    assert "counted from 1" in OBSERVATION_SCHEMA["properties"]["round"]["description"]
    assert "48 STOP, 49 KOI-KOI" in OBSERVATION_SCHEMA["description"]
    assert main(["bot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("Observation:", "Answer:", "counted from 1 (not 0)", "play_capture",
                  '{"action": 48 or 49, ...} STOP or KOI-KOI', "a card you played is in history, not here",
                  '--ready writes {"ready": true}'):
        assert words in text, words


class _Stdin(io.StringIO):
    """Standard input that notes when the bot first reads it."""

    def __init__(self, text: str, events: list[str]) -> None:
        super().__init__(text)
        self.events = events

    def __iter__(self):
        self.events.append("read")
        return super().__iter__()


def test_the_bot_warms_up_before_it_reads_its_first_line(monkeypatch, capsys) -> None:
    from cfrlab.games.koikoi.ui import bot as bot_module

    events: list[str] = []
    real = bot_module.warm_up

    def warm_up(game, agent, seed=0):
        events.append("warm")
        calls = []
        act = agent.act
        monkeypatch.setattr(agent, "act", lambda state, rng: calls.append(1) or act(state, rng), raising=False)
        real(game, agent, seed)
        events.append(f"acted {len(calls)}")

    monkeypatch.setattr(bot_module, "warm_up", warm_up)
    (obs, legal), = _observations(1)
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(obs) + "\n", events))
    assert main(["bot", "koikoi", "--agent", "greedy", "--ready"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert events == ["warm", "acted 1", "read"]
    assert json.loads(out[0]) == {"ready": True} and json.loads(out[1])["action"] in legal and len(out) == 2


def test_the_worked_round_of_the_docs_is_what_the_bot_answers(monkeypatch, capsys) -> None:
    from pathlib import Path

    page = (Path(__file__).parents[4] / "docs/site/guides/koikoi-bot.md").read_text()
    lines = [line.strip() for line in page.splitlines() if line.strip().startswith('{"player"')]
    answers = [json.loads(a) for a in re.findall(r"Answer `(\{.*\})`", page)]
    assert len(lines) == len(answers) == 5
    code, out, err = run_bot(monkeypatch, capsys, lines, "--agent", "greedy")
    assert code == 0 and err == "" and [json.loads(line) for line in out] == answers
