"""The search's cut playouts valued by a network (``neural.cut``): equal to greedy play on the engine cut at the same
half-turn and valued by the network over ``encode_state``; no peeking; the search unchanged without an evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.games.koikoi.neural.act import HEAD_AFTER
from cfrlab.games.koikoi.neural.cut import NetEvaluator
from cfrlab.games.koikoi.neural.features import NUM_FEATURES, ROUND, _seen, encode_state
from cfrlab.games.koikoi.neural.infer import value
from cfrlab.games.koikoi.neural.weights import random_weights
from cfrlab.games.koikoi.players.greedy import GreedyAgent
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.information import determinize, information
from cfrlab.registry import load_game
from tests.games.koikoi.test_search import assert_same_search_on_other_completions, completed, decision_states

NET = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(0))
EVAL = NetEvaluator(NET)


def single_round_features(engine, es, seat: int) -> np.ndarray:  # an Engine and its EngineState
    """``_seen`` of ``es`` by ``seat`` as a file trained on single rounds reads it (``act.match_context``): round 0
    and lead 0 whatever the match's round and totals (the round's month unchanged)."""
    idx = _seen(engine, es._replace(totals=(0, 0)), seat)
    idx[idx == ROUND + min(es.round, 11)] = ROUND
    return idx


def engine_cut(state, first: int, order: np.ndarray, cutoff: int, after: bool = False) -> float:  # a KoiKoiState
    """The reference: ``first``, then GreedyAgent for both seats on the engine until the round ends (its returns) or
    half-turn ``turn + cutoff`` starts (the network's value for the mover there, signed for the root's player; for
    an afterstate network, ``after``, its value for the other seat, which moved last, negated)."""
    me, until = state.current_player(), state.es.turn + cutoff
    greedy, rng = GreedyAgent(), np.random.default_rng(0)
    s, d = state.child(first), 0
    while s.es.round == state.es.round and not s.is_terminal():
        if s.es.phase == E.PLAY and s.es.turn >= until:
            mover = s.current_player()
            idx = single_round_features(s.game.engine, s.es, 1 - mover if after else mover)
            v = float(value(NET, idx, len(idx))) * (-1 if after else 1)
            return v if mover == me else -v
        if s.is_chance_node():
            s, d = s.child(int(order[d])), d + 1
        else:
            s = s.child(greedy.act(s, rng))
    winner, points = s.es.result.winner, s.es.result.points  # the round's end (the next round's deal in a match)
    return 0.0 if winner < 0 else points if winner == me else -points


@pytest.mark.parametrize(("spec", "after"), [("koikoi", False), ("koikoi(rules=fudawiki,rounds=12)", False),
                                             ("koikoi(rules=fudawiki,rounds=12)", True)])
def test_cut_playouts_equal_the_engine_cut_and_valued_by_the_network(spec, after):
    """Cross-implementation: every action on every determinization, cut after 1, 2 and 4 half-turns, equals greedy
    play on the Python engine cut at the same node and valued by the network over ``encode_state`` (to float32;
    in a match, the features of round 0 and lead 0 that a points file reads); a cutoff beyond the round is the full
    playout."""
    game = load_game(spec)
    cut_seen = ended = 0
    for state in decision_states(game, 12, seed=5):
        if game.rules.rounds > 1:  # a match context for the features: round 3, the mover 5 points behind
            state = type(state)(state.game, state.es._replace(round=3, totals=(10, 15)))
        info = information(game.engine, state.es, state.current_player())
        evaluator = NetEvaluator(NET, head=HEAD_AFTER, rules=game.rules) if after else EVAL
        for cutoff in (1, 2, 4):
            agent = SearchAgent(game.rules, SearchConfig(cutoff=cutoff), evaluator=evaluator)
            values = agent._values(info, 2, np.random.default_rng(1), None)
            opp, orders = determinize(info, 2, np.random.default_rng(1), game.rules)
            for j in range(2):
                for i, a in enumerate(info.legal):
                    truth = engine_cut(completed(state, int(opp[j]), orders[j]), a, orders[j], cutoff, after)
                    assert values[i, j] == pytest.approx(truth, abs=1e-5), (str(state), a, j, cutoff)
                    cut_seen += truth != int(truth)
                    ended += truth == int(truth)
        deep = SearchAgent(game.rules, SearchConfig(cutoff=99), evaluator=evaluator)
        full = deep._values(info, 3, np.random.default_rng(2), None)
        plain = SearchAgent(game.rules)._values(info, 3, np.random.default_rng(2), None)
        np.testing.assert_array_equal(full, plain)
    assert cut_seen > 20 and ended > 0


def test_a_mixed_cut_playout_weighs_the_full_playout_and_the_network():
    """``mix``: the cut playout's network value and the same playout's points at the round's end, weighed (a round
    that ended before the cut keeps its points); ``mix`` 1 is the plain search's values, draw for draw."""
    game = load_game("koikoi")
    cut_differs = 0
    for state in decision_states(game, 6, seed=7):
        info = information(game.engine, state.es, state.current_player())
        plain = SearchAgent(game.rules)._values(info, 4, np.random.default_rng(3), None)
        cut = SearchAgent(game.rules, SearchConfig(cutoff=4), evaluator=EVAL)._values(info, 4,
                                                                                     np.random.default_rng(3), None)
        for mix in (0.25, 1.0):
            mixed = SearchAgent(game.rules, SearchConfig(cutoff=4), evaluator=NetEvaluator(NET, mix))
            values = mixed._values(info, 4, np.random.default_rng(3), None)
            np.testing.assert_allclose(values, mix * plain + (1 - mix) * cut, rtol=0, atol=1e-12)
        cut_differs += not np.array_equal(cut, plain)
    assert cut_differs >= 3


def test_cut_search_never_reads_the_hidden_cards():
    """Two true states that differ only in the hidden cards get the same cut search, seed for seed (plain and
    halving)."""
    game = load_game("koikoi")
    agents = [SearchAgent(game.rules, SearchConfig(rollouts=12, cutoff=2), evaluator=EVAL),
              SearchAgent(game.rules, SearchConfig(rollouts=12, cutoff=4, halving=True, prune=4), evaluator=EVAL)]
    assert assert_same_search_on_other_completions(game, agents, decision_states(game, 12, seed=13), seed=3) >= 8


def test_a_cutoff_needs_an_evaluator_and_the_match_decide_keeps_full_playouts():
    game = load_game("koikoi(rounds=12)")
    with pytest.raises(ValueError, match="cutoff needs an evaluator"):
        SearchAgent(game.rules, SearchConfig(cutoff=2))
    with pytest.raises(ValueError, match="at least 1 half-turn"):
        SearchAgent(game.rules, SearchConfig(cutoff=0), evaluator=EVAL)
    decide = next(s for s in decision_states(game, 200, seed=2) if s.es.phase == E.DECIDE)
    info = information(game.engine, decide.es, decide.current_player())
    cut = SearchAgent(game.rules, SearchConfig(rollouts=8, cutoff=1, objective="match"), evaluator=EVAL)
    plain = SearchAgent(game.rules, SearchConfig(rollouts=8, objective="match"))
    np.testing.assert_array_equal(cut.search(info, np.random.default_rng(4)).means,
                                  plain.search(info, np.random.default_rng(4)).means)


def test_pruning_keeps_the_actions_of_highest_policy_logit():
    """``prune``: the search plays only the k legal actions the policy head ranks first, read from ``encode_state``
    of the decision (an independent path to the features) through ``infer.forward``."""
    from cfrlab.games.koikoi.neural.infer import forward

    game = load_game("koikoi")
    seen = 0
    for state in decision_states(game, 30, seed=23):
        info = information(game.engine, state.es, state.current_player())
        if len(info.legal) < 4:
            continue
        seen += 1
        idx = encode_state(game.engine, state.es, info.player)
        out_value, logits = np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32)
        forward(NET, idx, len(idx), out_value, logits)
        for keep in (1, 3):
            best = sorted(sorted(info.legal, key=lambda a: -logits[a])[:keep])
            agent = SearchAgent(game.rules, SearchConfig(rollouts=4, cutoff=2, prune=keep, halving=keep == 3),
                                evaluator=EVAL)
            res = agent.search(info, np.random.default_rng(0))
            assert list(res.actions) == best and res.action in best
    assert seen >= 5
    with pytest.raises(ValueError, match="pruning needs an evaluator"):
        SearchAgent(game.rules, SearchConfig(prune=2))
