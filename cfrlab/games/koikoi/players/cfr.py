"""The ``cfr`` Koi-Koi agent: the blueprint refined online by determinized search from the current decision.

Method: the determinized Monte Carlo search of ``cfrlab.games.koikoi.players.search`` (Long et al. 2010; the search over
sampled deals of seed 000 sec. 10-11) with the blueprint inside its playouts: every koi-koi/stop decision of a
playout (both seats) follows the blueprint's average strategy for that abstract situation (``abstraction``'s D key,
thresholded as ``BlueprintAgent`` plays it; Ganzfried & Sandholm 2012), read from a table by the numba round kernel.
Situations the blueprint never visited fall back to greedy's koi-koi rule. Card plays and capture choices in the
playouts are greedy's (``PLAYOUT_WEIGHTS``: the tuned rule of ``playout_policy`` is an option), and the root's
budget is spent by sequential halving (``SearchConfig.halving``: the better half of the actions gets the later
determinizations).
Measured (BENCHMARKS.md, "the cfr agent"): at equal time per decision no version of it is measurably stronger than
``search`` (within about 0.2 points per round); more time per decision is what gains.

Specification in cfrlab: ``make_agent("cfr")`` uses the shipped blueprint and ``DEFAULT_ROLLOUTS`` determinizations
per action (the budget sequential halving spreads); ``cfr:N`` sets the count, ``cfr:Tms`` a time per decision (CPU
milliseconds of the searching thread), ``cfr:...:match`` values koi-koi/stop decisions by the match-win probability
(``SearchConfig.objective``; ``points``, the round's points, by default), ``cfr:...:PATH`` a blueprint trained by
``cfrlab train koikoi`` (a directory or a ``blueprint.npz``), e.g. ``cfr:5ms:match:bp/``. ``blueprint[:PATH]``
plays the blueprint alone (``BlueprintAgent``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cfrlab.agents.names import parse_agent
from cfrlab.agents.spec import AgentSpec
from cfrlab.eval.arena import Interval
from cfrlab.games.koikoi.players.blueprint import DEFAULT_THRESHOLD, Blueprint, load_blueprint
from cfrlab.games.koikoi.players.search import DEFAULT_ROLLOUTS, SearchAgent, SearchConfig
from cfrlab.games.koikoi.players.spec import configured
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.batched import sample_inputs, simulate
from cfrlab.games.koikoi.rules.playout_policy import DECIDE_SLOTS, PLAY_WEIGHTS, decide_slot
from cfrlab.games.koikoi.rules.rules import RuleSet

HALVING = True
"""The root's budget by sequential halving (``SearchConfig.halving``)."""
PLAYOUT_WEIGHTS = None
"""The playouts' card plays: None for greedy's, or ``playout_policy`` weights such as ``TUNED_WEIGHTS``, which beat
greedy in self-play but cost 1.65 times as much per playout and measured no better inside the search at equal time
(worse in 12-round matches; BENCHMARKS.md), so the default stays greedy."""
_DECIDE_KEY = re.compile(r"^D(\d)(\d)(\d)(\d)(\d)$")


def decide_table(blueprint: Blueprint, threshold: float = DEFAULT_THRESHOLD) -> NDArray[np.float64]:
    """The blueprint's probability of KOI-KOI per abstract koi-koi situation (``playout_policy.decide_slot``), after
    dropping an action below ``threshold`` as ``BlueprintAgent`` does; NaN where the blueprint has no entry. One row
    per seat (both the same), the shape the round kernel reads."""
    row = np.full(DECIDE_SLOTS, np.nan)
    for key, (actions, probs) in blueprint.table.items():
        m = _DECIDE_KEY.match(key)
        if m is None or actions != (E.STOP, E.KOIKOI):
            continue
        kept = np.where(probs >= threshold, probs, 0.0)
        kept = kept / kept.sum() if kept.sum() > 0 else probs
        row[decide_slot(*(int(g) for g in m.groups()))] = kept[1]
    return np.stack([row, row])


def make_cfr_agent(game, spec: AgentSpec | str = "cfr") -> SearchAgent:  # a KoiKoiGame
    """The ``cfr[:N|:Tms][:points|match][:PATH]`` agent (module docstring) for ``game``, by spec or name."""
    if game.name != "koikoi":
        raise ValueError(f"the cfr agent plays full Koi-Koi (koikoi[...]), not {game.name!r}")
    spec = parse_agent(spec, game) if isinstance(spec, str) else spec
    config = configured(spec, SearchConfig(rollouts=DEFAULT_ROLLOUTS, halving=HALVING))
    path = spec.path
    if path is not None and not Path(path).exists():
        raise FileNotFoundError(f"blueprint {path!r} does not exist (in {spec.name!r}: cfr[:N|:Tms][:points|match]"
                                "[:PATH], N a count, T milliseconds such as 20ms, PATH a folder written by `cfrlab "
                                "train`)")
    return SearchAgent(game.rules, config, name=spec.name, decide=decide_table(load_blueprint(path, game)),
                       weights=PLAYOUT_WEIGHTS)


def decide_edge(decide: NDArray[np.float64], rounds: int = 20000, seed: int = 0,
                rules: RuleSet | None = None) -> Interval:
    """Points per round that koi-koi table ``decide`` gains over greedy's koi-koi rule, both players otherwise
    greedy (``policy_edge``). Measures the blueprint's koi-koi/stop policy alone, fast enough for a test; the arena
    measures whole agents."""
    return policy_edge(decide=decide, rounds=rounds, seed=seed, rules=rules)


def policy_edge(decide: NDArray[np.float64] | None = None, weights: ArrayLike | None = None, rounds: int = 20000,
                seed: int = 0, rules: RuleSet | None = None) -> Interval:
    """Points per round that a playout policy (a koi-koi table ``decide`` and/or card-play ``weights`` of
    ``playout_policy``) gains over greedy: ``rounds`` duplicate rounds in the batched simulator (each deal, draw
    order and uniforms played with the policy in seat 0 and then in seat 1, greedy in the other), with a 95 %
    interval."""
    rules = rules or RuleSet(rounds=1)
    inputs = sample_inputs(rules, rounds, np.random.default_rng(seed), policy="greedy")
    greedy_d = np.full(DECIDE_SLOTS, np.nan)
    greedy_w = np.zeros(PLAY_WEIGHTS)
    gains = []
    for seat in (0, 1):
        d = w = None
        if decide is not None:
            d = np.stack([decide[0], greedy_d] if seat == 0 else [greedy_d, decide[1]])
        if weights is not None:
            row = np.asarray(weights, dtype=np.float64)
            w = np.stack([row, greedy_w] if seat == 0 else [greedy_w, row])
        res = simulate(rules, inputs, policy="greedy", decide=d, weights=w)
        points = res.points.astype(np.float64)
        gains.append(np.where(res.winner < 0, 0.0, np.where(res.winner == seat, points, -points)))
    return Interval.of((gains[0] + gains[1]) / 2)
