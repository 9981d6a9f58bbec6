"""The ``netsearch`` agent: a learned policy (a ``net`` file, Q or policy head) inside the search, lever by lever.

Each lever against a reference: the network's playouts equal the ``net`` agent playing both seats on the Python
engine (the same uniforms); the prior keeps the actions the head ranks first; the cut values equal the value head
at the cut position; OOS beyond its tree follows the ``net`` agent's policy. Spec errors are one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.games.koikoi.neural.act import HEAD_AFTER, HEAD_AFTER_MATCH, HEAD_POLICY, HEAD_Q
from cfrlab.games.koikoi.neural.cut import NetEvaluator
from cfrlab.games.koikoi.neural.features import NUM_FEATURES, encode_state
from cfrlab.games.koikoi.neural.infer import forward_batch, value
from cfrlab.games.koikoi.neural.weights import random_weights, save_weights
from cfrlab.games.koikoi.players.net import NetAgent
from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.game import KoiKoiState
from cfrlab.games.koikoi.rules.information import determinize, information
from cfrlab.games.koikoi.rules.kernels import F_HALF_TURNS, kernel_rules
from cfrlab.games.koikoi.rules.match import NO_TABLE
from cfrlab.registry import load_game
from tests.games.koikoi.neural.test_afterstate import engine_values
from tests.games.koikoi.neural.test_search_cut import single_round_features
from tests.games.koikoi.test_search import completed, decision_states

NET = random_weights(NUM_FEATURES, (16, 8), np.random.default_rng(4), 0.4)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The network saved with a Q head and with a policy head."""
    root = tmp_path_factory.mktemp("netsearch")
    out = {}
    for head, method in (("q", "dmc"), ("policy", "ppo"), ("after", "afterstate")):
        out[head] = root / f"{head}.npz"
        save_weights(out[head], NET, head=head, method=method)
    return out


def engine_playout(state, first: int, order: np.ndarray, u: np.ndarray, agent: NetAgent,
                   cutoff: int) -> float:
    """The reference: ``first``, then ``agent``'s policy for both seats on the engine, a decision with a choice
    drawn by ``u[k]`` from its probabilities (``k`` two a decision), until the round ends (its points) or half-turn
    ``turn + cutoff`` starts (the value head for the mover there, signed for the root's player; the match context
    only for a file trained for the match)."""
    me, until = state.current_player(), state.es.turn + cutoff
    s, d, k = state.child(first), 0, 0
    while s.es.round == state.es.round and not s.is_terminal():
        if s.es.phase == E.PLAY and s.es.turn >= until:
            mover = s.current_player()
            if agent.head == HEAD_AFTER_MATCH:
                idx = encode_state(s.game.engine, s.es, mover)
            else:  # a file trained on single rounds reads round 0 and lead 0 (act.match_context)
                idx = single_round_features(s.game.engine, s.es, mover)
            v = float(value(NET, idx, len(idx)))
            return v if mover == me else -v
        if s.is_chance_node():
            s, d = s.child(int(order[d])), d + 1
            continue
        legal = s.legal_actions()
        a = legal[0]
        if len(legal) > 1:
            probs = agent.action_probabilities(s)
            acc, a = 0.0, legal[-1]
            for b in legal:
                acc += probs[b]
                if u[k] < acc:
                    a = b
                    break
            k += 2
        s = s.child(a)
    winner, points = s.es.result.winner, s.es.result.points
    return 0.0 if winner < 0 else points if winner == me else -points


@pytest.mark.parametrize(("spec", "head"), [("koikoi", HEAD_Q), ("koikoi", HEAD_POLICY), ("koikoi", HEAD_AFTER),
                                            ("koikoi(rules=fudawiki,rounds=12)", HEAD_POLICY),
                                            ("koikoi(rounds=12)", HEAD_AFTER_MATCH)])
def test_net_playouts_equal_the_net_agent_on_the_engine(spec, head):
    """Cross-implementation: every action on every determinization played out (and cut after 3 half-turns) by the
    network's policy equals the ``net`` agent playing both seats on the Python engine from the same completion with
    the same uniforms; the features of each seat from what it sees (``encode_state``), the match context read by a file
    trained for the match only."""
    game = load_game(spec)
    agent = NetAgent(NET, head)
    width = 8 * int(kernel_rules(game.rules).F[F_HALF_TURNS])
    checked = 0
    for state in decision_states(game, 8, seed=31):
        if game.rules.rounds > 1:
            state = type(state)(state.game, state.es._replace(round=4, totals=(12, 7)))
        info = information(game.engine, state.es, state.current_player())
        for cutoff in (None, 3):
            evaluator = NetEvaluator(NET, playout=head, rules=game.rules)
            search = SearchAgent(game.rules, SearchConfig(cutoff=cutoff), evaluator=evaluator)
            values = search._values(info, 2, np.random.default_rng(6), None)
            rng = np.random.default_rng(6)
            opp, orders = determinize(info, 2, rng, game.rules)
            u = rng.random((2, width))
            for j in range(2):
                for i, a in enumerate(info.legal):
                    truth = engine_playout(completed(state, int(opp[j]), orders[j]), a, orders[j], u[j], agent,
                                           cutoff or 99)
                    assert values[i, j] == pytest.approx(truth, abs=1e-5), (str(state), a, j, cutoff)
                    checked += 1
    assert checked > 60


def test_the_levers_from_a_net_file(files):
    """``prior``: the K actions of largest Q (or logit) by sequential halving; ``cut``: the value head at the cut
    (the network's cut values, which ``test_search_cut`` checks against the engine); ``playout``: the head's
    policy; none of them: the plain search, draw for draw."""
    game = load_game("koikoi")
    seen = 0
    for state in decision_states(game, 25, seed=41):
        info = information(game.engine, state.es, state.current_player())
        if len(info.legal) < 5:
            continue
        seen += 1
        idx = encode_state(game.engine, state.es, info.player)
        row = np.full((1, 80), -1)
        row[0, :len(idx)] = idx
        logits = forward_batch(NET, row)[1][0]
        for head in ("q", "policy"):
            prior = make_agent(f"netsearch:6:prior:{files[head]}", game)
            assert prior.config.halving and prior.config.prune == 4 and prior.config.cutoff is None
            res = prior.search(info, np.random.default_rng(0))
            assert list(res.actions) == sorted(sorted(info.legal, key=lambda a: -logits[a])[:4])
        cut = make_agent(f"netsearch:6:cut:{files['q']}", game)
        reference = SearchAgent(game.rules, SearchConfig(rollouts=6, cutoff=8), evaluator=NetEvaluator(NET))
        np.testing.assert_array_equal(cut.search(info, np.random.default_rng(1)).means,
                                      reference.search(info, np.random.default_rng(1)).means)
        after = make_agent(f"netsearch:6:prior:{files['after']}", game)
        ranked = engine_values(game, state.es, NET)
        best = np.argsort(-np.asarray(ranked), kind="stable")[:4]
        assert after.evaluator.prune(info, 4) == tuple(sorted(info.legal[i] for i in best))
    assert seen >= 3
    both = make_agent(f"netsearch:20ms:match:playout:cut:{files['policy']}", game)
    assert both.config.cutoff == 8 and both.config.objective == "match" and both.config.seconds == 0.02
    assert both.evaluator.head == HEAD_POLICY and both.config.prune is None
    assert make_agent(f"netsearch:{files['q']}", game).evaluator.head == HEAD_Q  # the default lever: playout


def test_the_blend_ranks_by_playouts_and_the_network_mixed(files):
    """``blend``: the root ranks by (1 - BLEND) times the playouts' mean plus BLEND times the file's own value of
    the action; all on the network (blend 1) the choice is the network's best action, with or without halving;
    the word gives ``BLEND``; a file whose values are not points (a policy head) is refused in one line."""
    from cfrlab.games.koikoi.players.guided import BLEND

    game = load_game("koikoi")
    seen = moved = 0
    for state in decision_states(game, 25, seed=43):
        info = information(game.engine, state.es, state.current_player())
        if len(info.legal) < 3:
            continue
        seen += 1
        for head in ("q", "after"):
            ev = make_agent(f"netsearch:6:cut:{files[head]}", game).evaluator
            values = ev.root_values(info, info.legal)
            best = info.legal[int(np.argmax(values))]
            for halving in (False, True):
                config = SearchConfig(rollouts=6, cutoff=8, blend=1.0, halving=halving)
                assert SearchAgent(game.rules, config, evaluator=ev).search(info, np.random.default_rng(2)).action \
                    == best
            half = SearchAgent(game.rules, SearchConfig(rollouts=6, cutoff=8, blend=0.5), evaluator=ev)
            res = half.search(info, np.random.default_rng(3))
            assert res.action == info.legal[int(np.argmax(0.5 * res.means + 0.5 * values))]
            moved += res.action != info.legal[int(np.argmax(res.means))]
    assert seen >= 3 and moved >= 1  # the blend changed some choices
    agent = make_agent(f"netsearch:20ms:prior:cut:blend:{files['after']}", game)
    assert agent.config.blend == BLEND and agent.config.halving and agent.config.cutoff == 8
    with pytest.raises(ValueError, match="round points"):
        make_agent(f"netsearch:6:blend:{files['policy']}", game)
    with pytest.raises(ValueError, match="round points"):
        SearchAgent(game.rules, SearchConfig(blend=0.5))


def test_oos_beyond_its_tree_follows_the_net_policy(files):
    """``netsearch:oos``: the walk's policy where it leaves the tree is the ``net`` agent's at the same decision
    (``oos_net.net_policy`` over the flow stepped beside the engine); the search still reads no hidden card, and
    it differs from uniform continuations."""
    from cfrlab.agents.oos import OOSAgent
    from cfrlab.games.koikoi.rules import flow
    from cfrlab.games.koikoi.rules.observation import observation, state_from_observation
    from cfrlab.games.koikoi.solvers.oos_net import net_policy
    from tests.games.koikoi.neural.flow_states import decisions_beside_flow
    from tests.solvers.oos_reference import random_decision

    game = load_game("koikoi")
    for head in (HEAD_Q, HEAD_POLICY, HEAD_AFTER):
        agent = NetAgent(NET, head)
        for s, st, cards in list(decisions_beside_flow(game, np.random.default_rng(head)))[:40]:
            acts = np.empty(48, dtype=np.int64)
            na = flow.legal(st, cards, acts)
            out = np.empty(na)
            net_policy(NET, head, st, cards, flow.mover(st), acts, na, kernel_rules(game.rules), NO_TABLE.win, out)
            want = agent.action_probabilities(KoiKoiState(game, s))
            np.testing.assert_allclose(out, [want[int(a)] for a in acts[:na]], atol=1e-12)
    state = random_decision(game, 7, earlier=5)
    player = state.current_player()
    other = state_from_observation(observation(state, player), game.rules, rng=3)
    agents = [make_agent(f"netsearch:oos:0.001:{files['policy']}", game) for _ in range(2)]
    plain = OOSAgent(game, samples=200)
    for agent in agents:
        agent.seconds, agent.samples = None, 200
    assert agents[0].solver.store.round.follow == HEAD_POLICY and not agents[0].solver.store.round.cut
    moves = [a.act(s, np.random.default_rng(11)) for a, s in zip((*agents, plain), (state, other, state))]
    key = state.information_state_key(player)
    assert moves[0] == moves[1] and agents[0].solver.policy_at(key) == agents[1].solver.policy_at(key)
    assert agents[0].solver.policy_at(key) != plain.solver.policy_at(key)


def test_spec_errors_are_one_clear_line(files, capsys):
    from cfrlab.cli.main import main

    game = load_game("koikoi")
    for bad, says in ((f"netsearch:cut:playout:{files['q']}", "do not exist"),
                      ("netsearch:playout:/no/such/file.npz", "do not exist"),
                      ("netsearch:0:playout", "positive count"),
                      ("netsearch:oos:0", "positive number of seconds")):
        with pytest.raises((ValueError, FileNotFoundError), match=says):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="plays Koi-Koi only"):
        make_agent(f"netsearch:{files['q']}", load_game("kuhn"))
    assert main(["arena", "koikoi", "netsearch:4:cut:/no/such/file.npz", "greedy", "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert "do not exist" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["arena", "koikoi_mini", f"netsearch:3:playout:prior:cut:{files['policy']}", "greedy",
                 "-n", "2"]) == 0
    assert "netsearch:3" in capsys.readouterr().out
