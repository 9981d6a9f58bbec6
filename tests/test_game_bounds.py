"""Game parameters that are valid but too large are refused where the game is built (``Game.parameter_bounds``,
``cfrlab.game.check_parameters``): one line, exit 2, before any work, from every command that builds a game."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfrlab.cli.main import main
from cfrlab.game import MAX_PARAMETER_ENTRIES, GameDefinitionError
from cfrlab.registry import describe_games, load_game

HUGE = [
    ("leduc(ranks=100000)", "ranks"),
    ("leduc(suits=100000)", "suits"),
    ("leduc(raise_sizes=[1e300,4])", "raise_sizes"),
    ("leduc(raise_sizes=[1000000000000,4])", "raise_sizes"),
    ("leduc(ranks=nan)", "ranks"),
    ("kuhn(players=100000)", "players"),
    (f"kuhn(players={10**400})", "players"),
    ("random_game(depth=100000)", "depth"),
    ("random_game(branching=1000000)", "branching"),
    ("random_game(players=100000)", "players"),
    ("random_game(depth=12,branching=4)", "branching ** depth"),
    ("holdem(max_raises=[100000,4,4,4])", "max_raises"),
    ("holdem(blinds=[100000000000000000000,5])", "blinds"),
    ("holdem(raise_sizes=[1e30,10,20,20])", "raise_sizes"),
    (f"holdem(board_cards=[{','.join(['0'] * (MAX_PARAMETER_ENTRIES + 1))}])", "board_cards"),
    ("holdem_ehs2(buckets=1000000000)", "buckets"),
    ("koikoi(rounds=1000000000)", "rounds"),
    ("koikoi_mini(rounds=100000)", "rounds"),
    ("koikoi(gokou=1000000000)", "gokou"),
]
"""(spec, what the refusal names): sizes that took minutes or all memory (random_game(depth=100000): 4 GB in a
minute), numbers that overflowed (random_game(players=100000): an int8 OverflowError), payoffs of 1e300."""


@pytest.mark.parametrize("spec,named", HUGE, ids=[s[:40] for s, _ in HUGE])
def test_a_huge_parameter_is_refused_as_the_game_is_built(spec: str, named: str) -> None:
    with pytest.raises(GameDefinitionError) as refused:
        load_game(spec)
    assert named in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("command", [["solve", "{spec}", "--iterations", "1", "--out", "{out}"],
                                     ["export", "{spec}", "--efg", "{out}"],
                                     ["eval", "{spec}", "--agent", "random"],
                                     ["arena", "{spec}", "random", "random", "--rounds", "2"]])
def test_every_command_refuses_in_one_line(command: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    for spec, named in (("random_game(depth=100000)", "depth"), ("leduc(raise_sizes=[1e300,4])", "raise_sizes")):
        code = main([arg.format(spec=spec, out=out) for arg in command])
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2 and len(lines) == 1 and named in lines[0] and "Traceback" not in err, (command, err)
        assert not out.exists()


def test_the_largest_values_in_bounds_are_taken() -> None:
    """The bounds refuse only what is too large: their edges build (the tree-size check of ``solve`` is later)."""
    assert load_game("leduc(ranks=500,suits=2,raise_sizes=[1000000,1],max_raises=100)").deck_size == 1000
    assert load_game("kuhn(players=64)").num_players == 64
    assert load_game("random_game(depth=10,branching=3,players=64,seed=4294967295)").num_players == 64
    assert load_game("koikoi_mini(rounds=100,gokou=1000)").rules.rounds == 100


def test_every_numeric_parameter_of_every_game_has_a_bound() -> None:
    """A game parameter added with a number for default and no bound fails here; ``cfrlab games`` shows them."""
    unbounded = []
    for row in describe_games():
        for param in row["parameters"]:
            default = str(param["default"]).strip("[]").split(",")[0]
            numeric = default.lstrip("-").replace(".", "", 1).isdigit()
            if numeric and param["bounds"] is None:
                unbounded.append(f"{row['name']}.{param['name']}")
    assert not unbounded, unbounded


def test_koikoi_rounds_options_have_the_games_bound() -> None:
    """``--rounds`` of ``play`` and ``serve`` refuse what the game itself refuses (the family keeps its own copy of
    the bound so that ``cfrlab --help`` imports no game code)."""
    from cfrlab.games.koikoi import family
    from cfrlab.games.koikoi.rules.rules import MAX_ROUNDS

    assert family._MOST_ROUNDS == MAX_ROUNDS
