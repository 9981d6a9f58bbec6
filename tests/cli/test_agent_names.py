"""Agent names are one grammar read into an ``AgentSpec``; ``cfrlab agents GAME`` lists what a game offers; the
options game families add to the generic commands are listed by ``-h`` and refused for another family's game."""

from __future__ import annotations

import json

import pytest

from cfrlab.agents.names import fill_agents, parse_agent
from cfrlab.cli.main import main

NAMES = ["random", "greedy", "search", "search:400", "search:20ms:match", "cfr:20ms:match:bp/", "cfr:bp:x/y",
         "neural:5:points:run/w.npz", "neural:oos", "neural:oos:0.1:run/", "blueprint:bp/", "oos", "oos:0.5",
         "oos:0.5:wall:pst:match", "oos:match", "policy:a:b.npz"]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_is_written_back_as_it_was_given(name: str) -> None:
    assert parse_agent(name, "koikoi").name == name


def test_the_spec_holds_the_fields() -> None:
    cfr = parse_agent("cfr:20ms:bp/", "koikoi")
    assert (cfr.kind, cfr.count, cfr.seconds, cfr.objective, cfr.path) == ("cfr", None, 0.02, None, "bp/")
    assert cfr.filled(objective="match").name == "cfr:20ms:match:bp/"
    assert cfr.filled(count=5) == cfr  # a time is a budget: the count is not filled in
    oos = parse_agent("oos:0.5:pst", "kuhn")
    assert (oos.seconds, oos.clock, oos.targeting, oos.objective) == (0.5, None, "pst", None)
    nested = parse_agent("neural:oos:0.1:run/", "koikoi")
    assert (nested.kind, nested.seconds, nested.path) == ("neural:oos", 0.1, "run/")
    assert parse_agent("search", "koikoi").filled(count=400, objective="match").name == "search:400:match"


def test_command_options_set_fields_where_the_kind_takes_them() -> None:
    specs = [parse_agent(n, "koikoi") for n in ("search", "cfr:bp/", "neural:oos:0.1", "greedy")]
    filled = fill_agents(specs, {"count": ("--rollouts", 30), "objective": ("--objective", "match")})
    assert [s.name for s in filled] == ["search:30:match", "cfr:30:match:bp/", "neural:oos:0.1", "greedy"]
    with pytest.raises(ValueError, match="--rollouts 30 would change no agent of greedy: --rollouts sets the "
                                         "playouts of an agent that leaves it out"):
        fill_agents(specs[3:], {"count": ("--rollouts", 30)})
    with pytest.raises(ValueError, match="--objective must be points or match"):
        fill_agents(specs, {"objective": ("--objective", "glory")})


@pytest.mark.parametrize("game,name,says", [
    ("kuhn", "oos:0.1:0.2", "in that order; got 'oos:0.1:0.2'"),
    ("kuhn", "oos:-1", "oos:SECONDS"),
    ("koikoi", "search:5:match:x", "search[:N|:Tms][:points|match] takes"),
    ("koikoi", "search:0", "at most 1,000,000"),
    ("koikoi", "greedy:x", "unknown agent 'greedy:x'; greedy takes no options"),
    ("kuhn", "policy", "policy:PATH names a strategy file"),
    ("kuhn", "nobody", "unknown agent 'nobody'; choose random, oos[:SECONDS] or policy:PATH"),
    ("kuhn", "search:5", "no search agent for game 'kuhn': the search agent plays Koi-Koi only"),
])
def test_a_malformed_name_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], game: str, name: str,
                                             says: str) -> None:
    assert main(["arena", game, name, "random", "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err


def test_agents_lists_what_a_game_offers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents", "kuhn", "--json"]) == 0
    assert [row["usage"] for row in json.loads(capsys.readouterr().out)] == [
        "random", "oos[:SECONDS][:cpu|wall][:ist|pst][:points|match]", "policy:PATH"]
    assert main(["agents", "koikoi"]) == 0
    out = capsys.readouterr().out
    for line in ("search[:N|:Tms][:points|match]  determinized", "neural:oos[:SECONDS][:PATH]", "blueprint[:PATH]",
                 "filled in by --rollouts (playouts), --objective (objective)"):
        assert line in out, line
    assert main(["agents", "holdem", "--json"]) == 0
    assert [row["kind"] for row in json.loads(capsys.readouterr().out)] == [
        "random", "call", "raise", "strength", "oos", "policy"]
    assert main(["agents", "no_such_game"]) == 2 and "unknown game 'no_such_game'" in capsys.readouterr().err


@pytest.mark.parametrize("command,flags", [
    ("play", ["--rules", "--rounds", "--rollouts", "--objective", "--hands"]), ("serve", ["--rounds"]),
    ("arena", ["--match", "--rollouts", "--objective"]), ("solve", ["--abstraction"]),
    ("eval", ["--lbr", "--lbr-log", "--rollouts", "--versus", "--real-exact", "--hands"])])
def test_help_lists_the_families_options(capsys: pytest.CaptureFixture[str], command: str, flags: list[str]) -> None:
    assert main([command, "-h"]) == 0
    out = capsys.readouterr().out
    assert all(flag in out for flag in flags), out


@pytest.mark.parametrize("args,says", [
    (["arena", "kuhn", "random", "random", "--match", "-n", "1"], "--match is an option of Koi-Koi games, not of kuhn"),
    (["solve", "kuhn", "--abstraction", "ehs2:3", "-n", "1"], "--abstraction is an option of hold'em games"),
    (["play", "kuhn", "--rules", "fudawiki"], "--rules is an option of Koi-Koi games, not of kuhn"),
    (["serve", "leduc", "--rounds", "3"], "--rounds is an option of Koi-Koi games, not of leduc"),
])
def test_an_option_of_another_family_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], args: list[str],
                                                        says: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err


def test_an_empty_path_is_refused() -> None:
    with pytest.raises(ValueError, match="cfr\\[:N\\|:Tms\\]\\[:points\\|match\\]\\[:PATH\\] needs a path after "
                                         "'cfr:20:'"):
        parse_agent("cfr:20:", "koikoi")
