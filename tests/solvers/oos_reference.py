"""Reference runs of Online Outcome Sampling and MCCFR: tables after a fixed number of iterations from a fixed seed,
one run per execution path (game protocol, compiled tree, the Koi-Koi round walk), recorded once as
SHA-256 digests of their tables into ``data/oos_reference.json`` (``python -m tests.solvers.oos_reference``) and
compared bit for bit by ``test_oos_reference.py``, so a restructuring of these solvers provably changes no number."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.registry import load_game
from cfrlab.solvers.mccfr import (
    ChanceSamplingMCCFR,
    ExternalSamplingMCCFR,
    MiniBatchMCCFRPlus,
    OutcomeSamplingMCCFR,
    RobustSamplingMCCFR,
)
from cfrlab.solvers.oos import OnlineOutcomeSampling
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states

DATA = Path(__file__).parent / "data" / "oos_reference.json"


def _infoset(game: Any, index: int) -> tuple[str, int]:
    state = infoset_states(game, load_tree(game))[index]
    p = state.current_player()
    return state.information_state_key(p), p


def random_decision(game: Any, seed: int, earlier: int) -> Any:
    """A decision state with two or more legal actions after ``earlier`` decisions, on a random path."""
    rng = np.random.default_rng(seed)
    while True:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            if decisions >= earlier and len(legal) >= 2:
                return state
            decisions += 1
            state = state.child(legal[int(rng.integers(len(legal)))])


def _koikoi_decision(game: Any, seed: int, earlier: int) -> tuple[str, int]:
    """The infoset key and player of ``random_decision``."""
    state = random_decision(game, seed, earlier)
    p = state.current_player()
    return state.information_state_key(p), p


def _match_round(objective: str) -> Any:
    """Round 2 of a three-round Koi-Koi match as a game of its own, valued by ``objective`` (a stated table)."""
    from cfrlab.games.koikoi.rules import engine as E
    from cfrlab.games.koikoi.rules.match import MatchTable, RoundOutcomes, backward_induction
    from cfrlab.games.koikoi.rules.match_round import MatchRoundGame, round_position

    match = load_game("koikoi(rules=fudawiki,rounds=3,first_oya=coin)")
    outcomes = RoundOutcomes(np.array([3, -2, 0]), np.array([True, False, True]), np.array([0.5, 0.3, 0.2]))
    table = MatchTable(backward_induction([outcomes], match.rules.rounds, 60), 60, match.rules.rounds)
    rng = np.random.default_rng(4)
    state = match.new_initial_state()
    while not (state.es.round == 1 and state.es.phase == E.DEAL):
        state = state.child(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    return MatchRoundGame(match, round_position(state), objective, table)


def _oos(spec: Any, target: Callable[[Any], tuple[str, int] | None], iterations: int, path: str,
         **options: Any) -> Callable[[], tuple[Any, ...]]:
    def run() -> tuple[Any, ...]:
        game = load_game(spec) if isinstance(spec, str) else spec()
        solver = OnlineOutcomeSampling(game, seed=7, path=path, **options)
        aim = target(game)
        solver.set_target(*(aim if aim is not None else (None,)))
        solver.iterate(iterations // 2).iterate(iterations - iterations // 2)
        return solver.path, solver.regret_table(), solver.strategy_table(), solver.nodes_visited
    return run


def _mccfr(cls: Any, spec: str, iterations: int, path: str, **options: Any) -> Callable[[], tuple[Any, ...]]:
    def run() -> tuple[Any, ...]:
        solver = cls(load_game(spec), seed=5, path=path, **options).iterate(iterations)
        return solver.path, solver.regret_table(), solver.strategy_table(), solver.nodes_visited
    return run


def _koikoi_auto(path: str) -> str:
    return "auto" if path == "koikoi" else path


def runs() -> Iterator[tuple[str, Callable[[], tuple[Any, ...]]]]:
    """(name, run) of every reference run; a run returns (path, regret table, strategy table, nodes visited)."""
    kuhn, leduc = (lambda g: _infoset(g, 3)), (lambda g: _infoset(g, 400))
    for path in ("generic", "tree"):
        yield f"oos-kuhn-{path}", _oos("kuhn", kuhn, 300, path, deal="enumerated")
        yield f"oos-kuhn3-{path}", _oos("kuhn(players=3)", lambda g: _infoset(g, 20), 150, path, deal="enumerated")
        yield f"oos-leduc-ist-{path}", _oos("leduc", leduc, 200, path, deal="enumerated")
        yield f"oos-leduc-pst-full-{path}", _oos("leduc", leduc, 200, path, deal="enumerated", targeting="pst",
                                                 expansion="full", alternating=False)
        yield f"oos-leduc-untargeted-{path}", _oos("leduc", lambda g: None, 200, path)
    yield "oos-leduc-conditioned-generic", _oos("leduc", leduc, 200, "generic")
    yield "oos-leduc-conditioned-pst-generic", _oos("leduc", leduc, 200, "generic", targeting="pst")
    for spec, seed, earlier in (("koikoi", 0, 0), ("koikoi", 1, 6), ("koikoi(rules=fudawiki)", 2, 3)):
        for path in ("generic", "koikoi"):
            yield (f"oos-{spec}-{seed}-{path}",
                   _oos(spec, lambda g, s=seed, e=earlier: _koikoi_decision(g, s, e), 40, _koikoi_auto(path)))
    for objective in ("points", "match"):
        for path in ("generic", "koikoi"):
            yield (f"oos-koikoi-match-round-{objective}-{path}",
                   _oos(lambda o=objective: _match_round(o), lambda g: _koikoi_decision(g, 5, 4), 40,
                        _koikoi_auto(path)))
    yield "oos-koikoi-full-koikoi", _oos("koikoi", lambda g: _koikoi_decision(g, 3, 2), 60, "auto", expansion="full")
    presets = (OutcomeSamplingMCCFR, ExternalSamplingMCCFR, ChanceSamplingMCCFR, RobustSamplingMCCFR,
               MiniBatchMCCFRPlus)
    for cls in presets:
        for spec in ("kuhn", "leduc"):
            for path in ("generic", "tree"):
                yield f"mccfr-{cls.algorithm}-{spec}-{path}", _mccfr(cls, spec, 60, path)
    for path in ("generic", "tree"):
        yield f"mccfr-outcome-lazy-simultaneous-leduc-{path}", _mccfr(
            OutcomeSamplingMCCFR, "leduc", 60, path, average_update="lazy", alternating=False)
        yield f"mccfr-external-predictive-leduc-{path}", _mccfr(ExternalSamplingMCCFR, "leduc", 60, path,
                                                               predictive=True)


def digest(result: tuple[Any, ...]) -> dict[str, Any]:
    """A run's path, nodes visited, number of rows and the SHA-256 of its keys and table bytes (in table order)."""
    path, regret, strategy, visited = result
    h = hashlib.sha256()
    for table in (regret, strategy):
        for key, row in table.items():
            h.update(key.encode() + b"\0")
            h.update(np.ascontiguousarray(row, dtype=np.float64).tobytes())
    return {"path": path, "visited": int(visited), "rows": len(regret), "sha256": h.hexdigest()}


if __name__ == "__main__":
    recorded: dict[str, Any] = {}
    for name, run in runs():
        recorded[name] = digest(run())
        print(name, recorded[name], file=sys.stderr)
    DATA.write_text(json.dumps(recorded, indent=1) + "\n")
    print(f"{DATA}: {len(recorded)} runs")
