"""Every numeric option of every command refuses what gives no meaningful run: negative counts, zero where zero
means nothing, ``nan``, infinities and ``1e308``, in one line with exit 2, before the command starts any work.

The options are enumerated from the application itself (the generic commands, the families' commands and the
families' options of the generic commands), so an option added without bounds fails here."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest

from cfrlab.cli.app import app
from cfrlab.cli.main import main

ZERO_MEANS_SOMETHING = {
    ("solve", "--seed"), ("eval", "--seed"), ("arena", "--seed"), ("play", "--seed"), ("bot", "--seed"),
    ("train", "--seed"), ("experiment", "--seed"),  # seed 0 is a seed
    ("solve", "--target-exploitability"),  # 0: run until the budget ends
    ("solve", "--checkpoint-every"),  # 0: after every iteration
    ("show", "--limit"),  # 0: all rows
    ("train", "--eval-deals"),  # 0: no arena score
    ("train", "--average"),  # 0: the last iteration's weights, no moving average
    ("train", "--td-lambda"),  # 0: TD(0), the next row's value alone
    ("train", "--explore"),  # 0: no exploration
    ("train", "--search-share"),  # 0: no rounds against the search
    ("play", "--seat"),  # seat 0 acts first
}
"""(command, option) whose value 0 is documented in its help; every other numeric option refuses 0."""

POSITIONALS = {"game": "kuhn", "agent_a": "random", "agent_b": "random", "path": "x.npz", "logs": "x.jsonl",
               "name": "fsp-kuhn"}
"""A value for each positional argument (never used: the command's body does not run here)."""

REQUIRED = {"export": ["--efg", "out.efg"], "train": ["--out", "run"]}


def _numeric_options() -> Iterator[tuple[str, str, type]]:
    """(command, flag, int or float) of every numeric option, the families' options of generic commands too."""
    from cfrlab.cli.reference import command_group

    group = command_group()
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            if annotation in (int, float) and param.opts[0].startswith("--"):
                yield name, param.opts[0], annotation


OPTIONS = sorted(set(_numeric_options()))


def test_options_are_found() -> None:
    """The walk finds the options of generic commands, families' commands and families' options."""
    found = {(c, f) for c, f, _ in OPTIONS}
    assert {("solve", "--iterations"), ("train", "--hours"), ("play", "--rounds"), ("eval", "--lbr")} <= found


def _hostile(command: str, flag: str, kind: type) -> list[str]:
    values = ["-1", "0"] if (command, flag) not in ZERO_MEANS_SOMETHING else ["-1"]
    return values + (["1e308", "-1e308", "nan", "inf", "-inf"] if kind is float else [str(10**30)])


CASES = [(c, f, v) for c, f, k in OPTIONS for v in _hostile(c, f, k)]


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every command's body replaced by one that records that it was reached (the values were accepted)."""
    reached: list[str] = []
    for info in app.registered_commands:
        original = info.callback

        @functools.wraps(original)  # type: ignore[arg-type]
        def body(*args: Any, _name: str = original.__name__, **kwargs: Any) -> None:  # type: ignore[union-attr]
            reached.append(_name)

        monkeypatch.setattr(info, "callback", body)
    return reached


def _args(command: str, flag: str, value: str) -> list[str]:
    from typer.main import get_command

    group = get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    positionals = [POSITIONALS[p.name] for p in params if not p.opts[0].startswith("-") and p.required]
    return [command, *positionals, *REQUIRED.get(command, []), f"{flag}={value}"]


@pytest.mark.parametrize("command,flag,value", CASES, ids=[f"{c}{f}={v[:8]}" for c, f, v in CASES])
def test_out_of_range_value_is_one_line(command: str, flag: str, value: str, no_work: list[str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_args(command, flag, value))
    out, err = capsys.readouterr()
    assert not no_work, f"{command} {flag}={value} was accepted"
    assert code == 2, (code, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in err, err


def _solver_numbers() -> Iterator[tuple[str, str]]:
    """(algorithm, field) of every numeric option of every registered solver."""
    import dataclasses
    import typing

    from cfrlab.solvers import algorithms, solver_class

    for algorithm in algorithms():
        config = solver_class(algorithm).Config
        hints = typing.get_type_hints(config)
        for field in dataclasses.fields(config):
            if hints[field.name] in (int, float, int | None, float | None):
                yield algorithm, field.name


SOLVER_NUMBERS = list(_solver_numbers())


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "-inf", "1e308", str(10**30)])
def test_solver_options_refuse_what_gives_no_run(value: str) -> None:
    """Every numeric option of every solver refuses nan, infinities, 1e308 and 10**30 in one line; -1 too, but
    where the option is signed (DCFR's beta)."""
    from cfrlab.cli.options import SIGNED, split_config_flags
    from cfrlab.game_spec import parse_value
    from cfrlab.solvers import solver_class

    assert len(SOLVER_NUMBERS) > 100
    accepted = []
    for algorithm, name in SOLVER_NUMBERS:
        if value == "-1" and name in SIGNED:
            continue
        config = solver_class(algorithm).Config
        try:
            config(**split_config_flags(config, {name: parse_value(value)})[0])
        except ValueError as exc:
            assert "\n" not in str(exc) and name.replace("_", "-") in str(exc), exc
            continue
        accepted.append(f"{algorithm} --{name}")
    assert not accepted, f"{value} accepted by {accepted}"


@pytest.mark.parametrize("game", ["kuhn", "leduc", "holdem", "koikoi"])
def test_agent_budgets_refuse_what_gives_no_run(game: str) -> None:
    """Every agent kind that takes a budget (``search:N``, ``cfr:Tms``, ``oos:SECONDS``) refuses zero, negative,
    non-finite and huge budgets in one line."""
    from cfrlab.agents.names import offered, parse_agent
    from cfrlab.agents.spec import TOKENS

    budgets = ["0", "-1", "0ms", "0.0", "nan", "inf", "nanms", "1e308", "1e308ms", str(10**30), f"{10**30}ms"]
    kinds = [k for k, entry in offered(game).items() if entry.takes and entry.takes[0] in TOKENS]
    assert kinds or game in ("kuhn", "leduc")
    for kind in kinds:
        for budget in budgets:
            with pytest.raises(ValueError) as refused:
                parse_agent(f"{kind}:{budget}", game)
            assert "\n" not in str(refused.value)


def _solver_lists() -> Iterator[tuple[str, str]]:
    """(algorithm, field) of every list option (``--hidden-sizes 64,64``) of every registered solver."""
    import dataclasses
    import typing

    from cfrlab.solvers import algorithms, solver_class

    for algorithm in algorithms():
        config = solver_class(algorithm).Config
        hints = typing.get_type_hints(config)
        for field in dataclasses.fields(config):
            if typing.get_origin(hints[field.name]) in (tuple, list):
                yield algorithm, field.name


@pytest.mark.parametrize("value", ["1000000,5", "0,5", "5,-3", "5,nan", f"5,{10**30}", ",".join(["5"] * 17)])
def test_solver_list_options_bound_each_value(value: str) -> None:
    """Every entry of every list option is bounded like a number option (layer widths at most ``MAX_WIDTH``: a
    width of 10**6 stalled for minutes), and a list has at most ``MAX_ENTRIES`` entries; a width in range is
    taken."""
    from cfrlab.cli.common import MAX_WIDTH
    from cfrlab.cli.options import split_config_flags
    from cfrlab.game_spec import parse_value
    from cfrlab.solvers import solver_class

    lists = list(_solver_lists())
    assert {("deep-cfr", "advantage_hidden"), ("nfsp", "hidden_sizes")} <= set(lists)
    for algorithm, name in lists:
        config = solver_class(algorithm).Config
        with pytest.raises(ValueError) as refused:
            config(**split_config_flags(config, {name: parse_value(value)})[0])
        assert "\n" not in str(refused.value) and name.replace("_", "-") in str(refused.value)
        fine = config(**split_config_flags(config, {name: parse_value(f"{MAX_WIDTH},5")})[0])
        assert tuple(getattr(fine, name)) == (MAX_WIDTH, 5)


def test_a_list_option_out_of_range_is_one_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``cfrlab solve kuhn --algo deep-cfr --advantage-hidden 1000000,5``: one line, exit 2, no file written."""
    out = tmp_path / "s.npz"
    code = main(["solve", "kuhn", "--algo", "deep-cfr", "--iterations", "1", "--advantage-hidden", "1000000,5",
                 "--out", str(out)])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "--advantage-hidden" in lines[0] and "Traceback" not in err, err
    assert not out.exists()
