"""Koi-Koi's formats in the fuzz (``tests.fuzz_driver``): CFR blueprints, ``cfrlab bot`` lines and network
weights, each mutated from a good one (the shipped blueprint and network, a dealt round's observation) and run
through the commands that read it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

FORMATS = ("blueprint", "bot", "weights")
LINE_ANSWERS = ("bot",)
"""Formats whose command answers each line of its input in JSON (``cfrlab bot``)."""
SPECS = ("koikoi_mini",)
"""Good game specs the spec mutations start from."""


def make_seeds(root: Path) -> dict[str, Any]:
    """The good inputs of these formats (``root`` is not written: they are the shipped files and a dealt state)."""
    import numpy as np

    from cfrlab.checkpoint import load_arrays
    from cfrlab.games.koikoi.players.blueprint import SHIPPED
    from cfrlab.games.koikoi.players.neural import SHIPPED as NEURAL
    from cfrlab.games.koikoi.rules.observation import observation
    from cfrlab.registry import load_game

    game, rng = load_game("koikoi"), np.random.default_rng(1)
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.sample_chance(rng))
    return {"blueprint": load_arrays(SHIPPED), "bot": json.dumps(observation(state, state.current_player())),
            "weights": load_arrays(NEURAL)}


def make_case(fmt: str, seeds: dict[str, Any], folder: Path, rnd: random.Random) -> tuple[list[str], str, set[str]]:
    """(command line, stdin, files the command may write) for one mutated input of a format of ``FORMATS``."""
    from tests.fuzz_driver import mutate_npz, mutate_text
    from tests.fuzz_formats import mutate_weights

    if fmt == "bot":
        lines = [mutate_text(seeds["bot"], rnd).strip() for _ in range(rnd.randrange(1, 4))]
        return ["bot", "koikoi", "--agent", "greedy"], "\n".join(lines) + "\n", set()
    arrays, meta = seeds[fmt]
    path = folder / f"{fmt}.npz"
    if fmt == "blueprint":
        mutate_npz(arrays, meta, path, rnd)
        return rnd.choice([["arena", "koikoi", f"blueprint:{path}", "greedy", "-n", "1"],
                           ["arena", "koikoi", f"cfr:5:{path}", "greedy", "-n", "1"]]), "", set()
    if rnd.random() < 0.5:
        from cfrlab.checkpoint import save_arrays

        save_arrays(path, mutate_weights(arrays, meta, rnd), meta)
    else:
        mutate_npz(arrays, meta, path, rnd)
    return ["arena", "koikoi_mini_tsukifuda", f"neural:1:{path}", "greedy", "-n", "1"], "", set()
