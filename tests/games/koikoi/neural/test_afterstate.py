"""Afterstate values (``neural.afterstate``) against the Python engine: each legal action stepped by ``Engine.step``,
its result seen by the mover (``features._seen``) and valued by the network, or its exact points where the round
ends; the same from the mover's information alone (the opponent's hand empty) and from the full position; and the
``net`` agent of an afterstate file plays the largest."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.neural.act import HEAD_AFTER
from cfrlab.games.koikoi.neural.afterstate import afterstate_values
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, NUM_FEATURES, _seen
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.neural.weights import random_weights
from cfrlab.games.koikoi.players.net import NetAgent
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.engine import TERMINAL
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.games.koikoi.rules.information import information, root_position
from cfrlab.games.koikoi.rules.kernels import kernel_rules
from cfrlab.games.koikoi.rules.match import NO_TABLE
from cfrlab.registry import load_game
from tests.games.koikoi.neural.flow_states import decisions_beside_flow

NET = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(5), 0.4)


def over(s, t) -> bool:
    """Whether the step from ``s`` to ``t`` ended the round."""
    return t.round != s.round or t.phase == TERMINAL


def engine_values(game, s, net=NET) -> list[float]:
    """The reference: each legal action's result on the engine, valued for the mover by ``net``."""
    eng = game.engine
    p = eng.mover(s)
    out = []
    for a in eng.legal_actions(s):
        t = eng.step(s, a)
        if over(s, t):
            res = t.result
            out.append(0.0 if res.winner < 0 else res.points if res.winner == p else -res.points)
        else:
            idx = _seen(eng, t._replace(totals=s.totals, round=s.round), p)
            out.append(float(value(net, idx, len(idx))))
    return out


@pytest.mark.parametrize("spec", ["koikoi", "koikoi(rules=fudawiki,rounds=12)", "koikoi_mini_tsukifuda"])
def test_afterstate_values_equal_the_engines_afterstates(spec):
    game = load_game(spec)
    kr, eng = kernel_rules(game.rules), game.engine
    idx = np.empty(MAX_ACTIVE, dtype=np.int32)
    checked = ended = 0
    for seed in range(40):
        if checked > 100 and ended > 0:
            break
        for s, st, cards in decisions_beside_flow(game, np.random.default_rng(seed)):
            p = eng.mover(s)
            legal = np.asarray(eng.legal_actions(s), dtype=np.int64)
            lead = s.totals[p] - s.totals[1 - p]
            want = engine_values(game, s)
            for pos in (flow.load(st, cards), flow.load(*root_position(information(eng, s, p)))):
                out = np.empty(len(legal))
                afterstate_values(NET, pos, p, s.round, lead, legal, len(legal), kr, idx, out, NO_TABLE, False)
                np.testing.assert_allclose(out, want, atol=1e-5, err_msg=str(s))
            checked += len(legal)
            ended += sum(over(s, eng.step(s, int(a))) for a in legal)
    assert checked > 100 and ended > 0


def test_the_net_agent_of_an_afterstate_file_plays_the_largest_afterstate_value():
    game = load_game("koikoi")
    agent = NetAgent(NET, HEAD_AFTER)
    seen = 0
    for s, _, _ in decisions_beside_flow(game, np.random.default_rng(9)):
        legal = game.engine.legal_actions(s)
        probs = agent.action_probabilities(KoiKoiState(game, s))
        values = engine_values(game, s)
        best = legal[int(np.argmax(values))]
        assert probs == {a: float(a == best) for a in legal}
        seen += len(legal) > 1
    assert seen > 10
