"""An agent's moves tabulated on every infoset (``cfrlab.agents.tabulate``, ``cfrlab eval GAME --agent``): a policy
file's agent has exactly the file's exploitability, ``random`` the uniform policy's; an agent that draws its move
is tabulated by the seed alone; no agent that reads only its infoset sees a difference when another deal of the
hidden cards stands for each infoset (one that peeks does); each refusal is one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab.agents import make_agent
from cfrlab.agents.oos import OOSAgent
from cfrlab.agents.tabulate import PROBABILITIES, SAMPLED, agent_policy, tabulation
from cfrlab.cli.main import main
from cfrlab.eval import exploitability
from cfrlab.policy import TabularPolicy
from cfrlab.policy_tabulate import policy_from_mapping
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from cfrlab.tree import load_tree
from cfrlab.tree.states import infoset_states


@pytest.fixture(scope="module")
def kuhn():
    game = load_game("kuhn")
    return game, load_tree(game)


@pytest.fixture(scope="module")
def policy_file(kuhn, tmp_path_factory):
    """A strategy file of Kuhn after 7 CFR+ iterations: mixed, far from both uniform and equilibrium."""
    game, tree = kuhn
    solver = CFRPlus(game, tree=tree)
    solver.iterate(7)
    path = tmp_path_factory.mktemp("tab") / "kuhn7.npz"
    solver.average_policy().save(path, game, solver="cfr+", iterations=7)
    return path


def last_states(game, tree):
    """One state per infoset, the LAST met breadth first: another deal of the hidden cards than the first, which
    ``tabulate_policy`` hands the agent (Kuhn: the opponent holds another card)."""
    first, last = infoset_states(game, tree), infoset_states(game, tree, last=True)
    assert all(str(a) != str(b) for a, b in zip(first, last))
    return last


class FirstLegal:
    """A pure strategy without probabilities: the first legal action."""

    name = "first"

    def act(self, state, rng):
        return state.legal_actions()[0]


class Drawing:
    """Draws uniformly from its own stream, and gives no probabilities: tabulated by one seeded call."""

    name = "drawing"

    def act(self, state, rng):
        legal = state.legal_actions()
        return legal[int(rng.integers(len(legal)))]


class Peeking:
    """Plays its last action when the opponent holds the higher card: it reads the hidden card (Kuhn's
    ``state.cards``)."""

    name = "peeking"

    def act(self, state, rng):
        legal, me = state.legal_actions(), state.current_player()
        return legal[-1] if state.cards[1 - me] > state.cards[me] else legal[0]


def test_a_policy_files_agent_has_exactly_the_files_exploitability(kuhn, policy_file):
    game, tree = kuhn
    policy, _ = TabularPolicy.load(policy_file, game)
    agent = make_agent(f"policy:{policy_file}", game)
    assert tabulation(agent) == PROBABILITIES
    expected = exploitability(tree, policy)
    assert 0.01 < expected < exploitability(tree, policy_from_mapping(tree, {}))  # neither equilibrium nor uniform
    assert exploitability(tree, agent_policy(game, tree, agent)) == pytest.approx(expected, abs=1e-12)


def test_random_has_the_uniform_policys_exploitability(kuhn):
    game, tree = kuhn
    uniform = exploitability(tree, policy_from_mapping(tree, {}))
    assert exploitability(tree, agent_policy(game, tree, make_agent("random", game))) == pytest.approx(uniform)


def test_an_agent_without_probabilities_is_tabulated_by_its_move(kuhn):
    game, tree = kuhn
    assert tabulation(FirstLegal()) == SAMPLED
    states = last_states(game, tree)
    first = policy_from_mapping(tree, {k: {s.legal_actions()[0]: 1.0} for k, s in zip(tree.infoset_keys, states)})
    assert exploitability(tree, agent_policy(game, tree, FirstLegal())) == pytest.approx(exploitability(tree, first))


def test_a_drawing_agent_is_tabulated_by_the_seed_alone(kuhn):
    game, tree = kuhn
    tables = {seed: agent_policy(game, tree, Drawing(), seed=seed).probs for seed in (0, 0, 1, 2, 3)}
    again = agent_policy(game, tree, Drawing(), seed=0).probs
    assert np.array_equal(tables[0], again)
    assert set(np.unique(again)) <= {0.0, 1.0}  # one move per infoset: a pure strategy
    assert any(not np.array_equal(tables[0], tables[s]) for s in (1, 2, 3))


@pytest.mark.parametrize("make", [
    lambda game: make_agent("random", game),
    lambda game: OOSAgent(game, samples=300),
    lambda game: Drawing(),
])
def test_another_deal_standing_for_each_infoset_changes_nothing(kuhn, make):
    """``tabulate_policy`` hands the agent the first state of each infoset met breadth first; the last one (the
    opponent holding another card) gives the same table, for the same seed."""
    game, tree = kuhn
    first = agent_policy(game, tree, make(game), seed=5)
    last = agent_policy(game, tree, make(game), seed=5, states=last_states(game, tree))
    assert np.array_equal(first.probs, last.probs)


def test_an_agent_that_peeks_is_caught(kuhn):
    game, tree = kuhn
    first = agent_policy(game, tree, Peeking())
    last = agent_policy(game, tree, Peeking(), states=last_states(game, tree))
    assert not np.array_equal(first.probs, last.probs)


def test_oos_is_searched_afresh_at_each_infoset(kuhn):
    """Its tables are reset before each infoset: an infoset's row does not depend on the infosets before it."""
    game, tree = kuhn
    whole = agent_policy(game, tree, OOSAgent(game, samples=200), seed=3).probs
    agent = OOSAgent(game, samples=200)
    key, player = tree.infoset_keys[-1], int(tree.infoset_player[-1])
    agent.reset()
    row = agent.search(key, player, np.random.default_rng([3, tree.num_infosets - 1]))
    for a, p in row.items():
        assert whole[-1, a] == pytest.approx(p)


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_the_agents_exploitability(capsys, kuhn, policy_file):
    game, tree = kuhn
    policy, _ = TabularPolicy.load(policy_file, game)
    code, out, _ = cli(capsys, "eval", "kuhn", "--agent", f"policy:{policy_file}", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exploitability"] == pytest.approx(exploitability(tree, policy), abs=1e-12)
    assert data["nash_conv"] == pytest.approx(2 * data["exploitability"])
    assert data["tabulated"] == "probabilities" and data["infosets"] == tree.num_infosets
    code, out, err = cli(capsys, "eval", "kuhn", "--agent", "random")
    assert code == 0 and "exploitability 0.458333" in out and "by its action probabilities" in out
    assert "12/12 infosets" in err


@pytest.mark.parametrize("args,words", [
    (["eval", "kuhn", "--agent", "no-such-agent"], ["unknown agent", "no-such-agent"]),
    (["eval", "kuhn", "--agent", "greedy"], ["greedy", "kuhn"]),
    (["eval", "koikoi", "--agent", "random"], ["koikoi", "cannot be enumerated"]),
    (["eval", "no_such_game", "--agent", "random"], ["no_such_game"]),
    (["eval", "kuhn", "--agent", "random", "--lbr", "5"], ["--agent", "--lbr"]),
    (["eval", "kuhn", "--agent", "random", "--no-exact"], ["--agent", "--no-exact takes a strategy file"]),
    (["eval", "kuhn", "--agent", "oos:x"], ["oos", "seconds"]),
    (["eval", "kuhn", "--agent", "oos:0.1:match"], ["match", "kuhn"]),
    (["eval", "kuhn", "--agent", "policy:LEDUC"], ["leduc", "kuhn"]),
])
def test_each_refusal_is_one_line_exit_2(capsys, tmp_path, args, words):
    """An unknown agent, an agent of another game (greedy, OOS's match objective, a Leduc strategy file), a game
    that cannot be enumerated, options of a file's evaluation."""
    if args[-1] == "policy:LEDUC":
        game = load_game("leduc")
        TabularPolicy.uniform(load_tree(game)).save(tmp_path / "leduc.npz", game)
        args = [*args[:-1], f"policy:{tmp_path / 'leduc.npz'}"]
    code, out, err = cli(capsys, *args)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and "Traceback" not in out + err and len(lines) == 1, (code, out, err)
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_rows_taken_from_a_log_and_computed_give_the_whole_table(kuhn):
    """``table_rows`` with half the rows given (a log's) equals the table computed at once, row for row: each row
    depends on the seed and its infoset only (OOS on a sample budget draws from its row's stream)."""
    from cfrlab.agents.tabulate import table_rows
    from cfrlab.policy_tabulate import policy_from_rows

    game, tree = kuhn
    whole = agent_policy(game, tree, OOSAgent(game, samples=200), seed=5).probs
    heard: list[int] = []
    rows = table_rows(game, tree, OOSAgent(game, samples=200), "oos", seed=5,
                      done={i: whole[i] for i in range(0, tree.num_infosets, 2)},
                      on_rows=lambda indices, _rows: heard.extend(indices))
    assert heard == list(range(1, tree.num_infosets, 2))
    np.testing.assert_array_equal(policy_from_rows(tree, rows).probs, whole)


def test_an_agent_log_is_continued_not_replayed(capsys, tmp_path, policy_file):
    """``--agent-log``: a log cut by a kill (five rows, then half a line) is continued to the table of a run
    without a log; its rows are not computed again."""
    log = tmp_path / "rows.jsonl"
    spec = ["eval", "kuhn", "--agent", f"policy:{policy_file}", "--json"]
    code, out, _ = cli(capsys, *spec)
    straight = {k: v for k, v in json.loads(out).items() if k != "tabulate_seconds"}
    logged = {k: v for k, v in json.loads(cli(capsys, *spec, "--agent-log", str(log))[1]).items()
              if k != "tabulate_seconds"}
    assert code == 0 and logged == straight
    lines = log.read_text().splitlines()
    assert len(lines) == 13 and json.loads(lines[0])["meta"]["agent"] == f"policy:{policy_file}"
    log.write_text("\n".join(lines[:6]) + "\n" + lines[6][:20])
    code, out, err = cli(capsys, *[a for a in spec if a != "--json"], "--agent-log", str(log))
    assert code == 0 and "5 of 12 infosets already in" in err
    assert f"exploitability {straight['exploitability']:.6f}" in out
    assert log.read_text().splitlines()[:6] == lines[:6] and len(log.read_text().splitlines()) == 13


@pytest.mark.parametrize("make, words", [
    (lambda text: text.replace('"seed": 0', '"seed": 3'), ["another run", "seed"]),
    (lambda text: text.replace('"row": [', '"row": ["x", ', 1), ["not a row of this table"]),
    (lambda text: "not a log\n", ["is not an agent log", "--agent-log"]),
    (lambda text: '{"meta": {"lbr_log": 1}}\n', ["is not an agent log"]),
    (lambda text: text.replace('"agent_log": 1', '"agent_log": 2'), ["is not an agent log"]),
])
def test_a_wrong_agent_log_is_one_line_and_kept(capsys, tmp_path, policy_file, make, words):
    log = tmp_path / "rows.jsonl"
    spec = ["eval", "kuhn", "--agent", f"policy:{policy_file}", "--agent-log", str(log)]
    assert cli(capsys, *spec)[0] == 0
    log.write_text(make(log.read_text()))
    kept = log.read_text()
    code, out, err = cli(capsys, *spec)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and all(w in err for w in words)
    assert log.read_text() == kept


def test_an_agent_log_without_an_agent_is_refused(capsys, tmp_path, policy_file):
    code, out, err = cli(capsys, "eval", str(policy_file), "--agent-log", str(tmp_path / "rows.jsonl"))
    assert code == 2 and out == "" and "give --agent too" in err and len(err.strip().splitlines()) == 1
