"""The fuzz's third set of formats (``tests.fuzz_driver``): ``.efg`` files, ``--agent-log`` logs and ``arena --log``
logs, each mutated from a good one and run through the commands that read it, with the hostile edits the third
pass found: huge strings and numbers, fractions whose sums grow without bound, control characters and rich markup
in names, edited, duplicated and out-of-bounds log rows; and the mutations the families' formats share
(``mutate_log``, hold'em's ``--lbr-log`` and ``--versus-log``; ``mutate_weights``, Koi-Koi's network weights whose
outputs overflow)."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from tests.games.test_efg import ONE_CARD_POKER

FORMATS = ("efg", "agentlog", "arenalog")
EFG_SEED = ONE_CARD_POKER
HOSTILE_TEXT = ["\x1b]0;title\x07", "\x1b[2J", "[/]", "[bold red]x", "\u202e", "\\", "\x00", "é" * 3,
                "x" * 70_000]
HOSTILE_NUMBERS = ["1e999", "9" * 401, "1/0", "-0", "1e-324", "5e-324", "1e308", "1/" + "7" * 390,
                   "99999999999999999999", "0x10", "nan", "inf", "+1", ".5", "1.", "3/-1"]


def make_seeds(root: Path) -> dict[str, Any]:
    """The good inputs of these formats, written under ``root``."""
    from cfrlab.cli.main import main

    (root / "g.efg").write_text(EFG_SEED)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["eval", "kuhn", "--agent", "random", "--agent-log", str(root / "rows.jsonl"), "--json"]) == 0
        assert main(["arena", "kuhn", "random", "random", "-n", "6", "--log", str(root / "arena.jsonl"),
                     "--json"]) == 0
    return {"efg": EFG_SEED, "agentlog": (root / "rows.jsonl").read_text(),
            "arenalog": (root / "arena.jsonl").read_text()}


def mutate_efg(text: str, rnd: random.Random) -> str:
    """An ``.efg`` text mutated: hostile names or numbers, characters cut or added, lines repeated or dropped,
    a path of outcomes whose exact sums need ever more digits."""
    for _ in range(rnd.randrange(1, 4)):
        choice = rnd.randrange(7)
        if choice == 0:
            text = text.replace('"', '"' + rnd.choice(HOSTILE_TEXT), 1 + 2 * rnd.randrange(4))
        elif choice == 1:
            number = rnd.choice(["1/2", "0.5", "2", "-2", "1", "-1"])
            text = text.replace(number, rnd.choice(HOSTILE_NUMBERS), 1)
        elif choice == 2:
            i = rnd.randrange(len(text))
            text = text[:i] + rnd.choice(["", "{", "}", '"', "t", " 7 ", "\n", "c \"\" 9 0\n"]) + text[i + 1:]
        elif choice == 3:
            lines = text.splitlines()
            i = rnd.randrange(len(lines))
            lines.insert(i, lines[rnd.randrange(len(lines))]) if rnd.random() < 0.5 else lines.pop(i)
            text = "\n".join(lines) + "\n"
        elif choice == 4:
            text = _growing_fractions(rnd.choice([50, 800]))
        elif choice == 5:
            text = text.replace("EFG 2 R", rnd.choice(["EFG 2 D", "EFG 3 R", "EFG", "EFG 2 R " * 3]), 1)
        else:
            text = text[: rnd.randrange(len(text))]
    return text


def _growing_fractions(depth: int) -> str:
    """One player's path of ``depth`` moves, each with an outcome 1/p (p the k-th odd number): the exact payoff
    sums' denominators grow with every move (a 3.9 MB file of such fractions took 8 GB before a bound)."""
    nodes = "".join(f'p "" 1 {k} "" {{ "on" }} {k} "" {{ 1/{2 * k + 1} }}\n' for k in range(1, depth + 1))
    return f'EFG 2 R "sums" {{ "A" }} ""\n{nodes}t "" 0\n'


def mutate_log(text: str, key: str, rnd: random.Random) -> str:
    """A resumed log's records edited as the third pass did: values moved, scaled or out of bounds, records
    duplicated, indices changed, mass moved to an illegal action; or lines cut."""
    lines = text.splitlines()
    for _ in range(rnd.randrange(1, 3)):
        i = rnd.randrange(1, len(lines))
        try:
            record = json.loads(lines[i])
        except ValueError:  # a line an earlier edit tore
            record = None
        record = record if isinstance(record, dict) else None
        choice = rnd.randrange(6)
        if choice == 0 or record is None:
            lines.insert(i, lines[i])  # a duplicate
        elif choice == 1:
            record[key] = rnd.choice([-1, 10**12, True, "0", 1.5, None, record[key] + 1])
        elif choice == 2 and "returns" in record:  # an arena's or --versus-log's deal
            record["returns"] = rnd.choice([[1000.0, -1000.0], [1e300, 0.0], [2.0, 2.0], [-record["returns"][0],
                                                                                        *record["returns"][1:]]])
        elif choice == 2 and "chips" in record:
            record["chips"] = rnd.choice([1000.0, 1e300, -1e300, record["chips"] + 0.5, float("nan")])
        elif choice == 2:
            record["row"] = rnd.choice([[1.0, 0.0], [0.0, 1.0], [0.5, 0.6], [1.0, 0.0, 0.0], [-0.5, 1.5]])
        elif choice == 3:
            lines[i] = lines[i][: rnd.randrange(len(lines[i]) + 1)]
            continue
        elif choice == 4 and "row" in record:
            record["row"] = list(reversed(record["row"])) if record["row"][0] != record["row"][-1] else [1, 0]
        else:
            lines.pop(i) if len(lines) > 2 else None
            continue
        lines[i] = json.dumps(record)
    return "\n".join(lines) + "\n"


def mutate_weights(arrays: dict[str, np.ndarray], meta: dict[str, Any], rnd: random.Random) -> dict[str, np.ndarray]:
    """Weights scaled until outputs overflow, or one entry set huge."""
    arrays = {name: value.copy() for name, value in arrays.items()}
    name = rnd.choice(sorted(arrays))
    if rnd.random() < 0.5:
        arrays[name] = np.full_like(arrays[name], rnd.choice([3e38, -3e38, 1e20, 1e5]))
    else:
        arrays[name].flat[rnd.randrange(arrays[name].size)] = rnd.choice([3.4e38, 1e30, -1e7])
    return arrays


def make_case(fmt: str, seeds: dict[str, Any], folder: Path, rnd: random.Random) -> tuple[list[str], str, set[str]]:
    """(command line, stdin, files the command may write) for one mutated input of a format of ``FORMATS``."""
    if fmt == "efg":
        path = folder / "g.efg"
        path.write_text(mutate_efg(seeds["efg"], rnd), encoding="utf-8", errors="surrogatepass")
        commands = [["solve", str(path), "-n", "2", "--no-eval", "-q", "--out", str(folder / "s.npz")],
                    ["export", f"efg:{path}", "--efg", str(folder / "again.efg")],
                    ["solve", str(path), "-n", "2", "-q", "--out", str(path)]]  # an output that is the input
        return rnd.choice(commands), "", {str(folder / "s.npz"), str(folder / "again.efg")}
    path = folder / "log.jsonl"
    if fmt == "arenalog":
        path.write_text(mutate_log(seeds[fmt], "deal", rnd))
        return ["arena", "kuhn", "random", "random", "-n", "8", "--log", str(path), "--json"], "", {str(path)}
    path.write_text(mutate_log(seeds[fmt], "infoset", rnd))
    return ["eval", "kuhn", "--agent", "random", "--agent-log", str(path), "--json"], "", {str(path)}
