"""Hold'em's formats in the fuzz (``tests.fuzz_driver``): the ``eval --lbr-log`` and ``eval --versus-log`` logs,
mutated from good ones (an abstract strategy of a small hold'em evaluated by LBR and against ``call``) and read back
by the same evaluation."""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path
from typing import Any

FORMATS = ("lbrlog", "versuslog")
VERSUS = ["eval", "--no-exact", "--versus", "call", "--hands", "8", "--versus-log"]
"""``eval STRATEGY`` against the ``call`` agent, its deals kept in the log that follows."""
HOLDEM = "holdem(ranks=4,suits=2,hole_cards=1,board_cards=[0,1,1],raise_sizes=[10,20,20],max_raises=[1,1,1])"


def make_seeds(root: Path) -> dict[str, Any]:
    """An abstract strategy of ``HOLDEM`` and its LBR log, written under ``root``."""
    from cfrlab.cli.main import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["solve", HOLDEM, "--abstraction", "ehs2:2,3,2", "--algo", "vector-cfr+", "-n", "20", "--out",
                     str(root / "holdem.npz"), "--quiet"]) == 0
        assert main(["eval", str(root / "holdem.npz"), "--lbr", "3", "--lbr-log", str(root / "lbr.jsonl"),
                     "--json"]) == 0
        assert main([VERSUS[0], str(root / "holdem.npz"), *VERSUS[1:], str(root / "versus.jsonl"), "--json"]) == 0
    return {"holdem": root / "holdem.npz", "lbrlog": (root / "lbr.jsonl").read_text(),
            "versuslog": (root / "versus.jsonl").read_text()}


def make_case(fmt: str, seeds: dict[str, Any], folder: Path, rnd: random.Random) -> tuple[list[str], str, set[str]]:
    """(command line, stdin, files the command may write) for one mutated LBR log."""
    from tests.fuzz_formats import mutate_log

    path = folder / "log.jsonl"
    path.write_text(mutate_log(seeds[fmt], "deal", rnd))
    if fmt == "versuslog":
        return [VERSUS[0], str(seeds["holdem"]), *VERSUS[1:], str(path), "--json"], "", {str(path)}
    return ["eval", str(seeds["holdem"]), "--lbr", "3", "--lbr-log", str(path), "--json"], "", {str(path)}
