"""MCCFR against exact full-tree quantities and against the seeds' pseudo-code.

* unbiasedness: the mean of many sampled counterfactual regrets equals the exact
  counterfactual regret (kernels over the compiled tree) within 5 standard
  errors, for every sampling scheme (seed 000 sec. 6.3, Lemma 1 of Lanctot et al.);
* robust sampling with k = 1 / k = max actions equals reference implementations
  of seed 001 Alg. 4 (outcome sampling, lazy averaging) / Alg. 3 (external
  sampling, simple averaging), written here from the pseudo-code;
* the compiled-tree and generic paths give the same tables bit for bit;
* "run N, save, load, run M" equals "run N+M" bit for bit;
* exploitability falls below the issue's thresholds.
"""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.eval.metrics import exploitability
from cfrlab.game import CHANCE, TERMINAL
from cfrlab.policy import TabularPolicy
from cfrlab.registry import load_game
from cfrlab.solvers import solver_class
from cfrlab.solvers.mccfr import (
    MCCFR,
    Increments,
    MCCFRConfig,
    Sampler,
    draw_pass_key,
    sample_chunk,
    sample_iteration,
    sample_pass,
    table_strategy_fn,
)
from cfrlab.solvers.mccfr import streams as sk
from cfrlab.solvers.mccfr import tree_walk as tw
from cfrlab.solvers.mccfr.arithmetic import CHOSEN, RHO
from cfrlab.tree import kernels, load_tree

SCHEMES = [("external", {}), ("outcome", {}), ("robust", {"k": 2}), ("chance", {})]


def _exact(tree, sigma, player):
    """Exact counterfactual regret of ``player`` per sequence, and the exact expected strategy-sum increment
    sum_{h in I} pi_c(h) pi_j(h) sigma(I, a) at the other players' infosets."""
    reach = np.empty((tree.num_players, tree.num_nodes))
    kernels.reach_probabilities(tree.parent, tree.player, tree.parent_sequence, sigma, reach)
    values = np.empty(tree.num_nodes)
    kernels.player_values(tree.parent, tree.parent_sequence, tree.chance_prob, sigma, tree.utility, player, values)
    regret = np.zeros(tree.num_sequences)
    nodes = np.flatnonzero(tree.player == player).astype(np.int64)
    kernels.accumulate_regrets(nodes, tree.infoset, tree.infoset_offset, tree.child_ptr, reach, tree.chance_reach,
                               values, player, 1.0, regret)
    strat = np.zeros(tree.num_sequences)
    for n in np.flatnonzero((tree.player >= 0) & (tree.player != player)):
        i = tree.infoset[n]
        lo, hi = tree.infoset_offset[i], tree.infoset_offset[i + 1]
        strat[lo:hi] += tree.chance_reach[n] * reach[tree.player[n], n] * sigma[lo:hi]
    return regret, strat


def _per_sample(game, tree, sigma, player, config, n, sampler=None):
    """Per-traversal increments as (n, sequences) arrays (generic path, one traversal per chunk)."""
    policy = TabularPolicy.from_sequences(tree, sigma)

    def strategy(key, legal):
        probs = policy.action_probabilities(key)
        return np.array([probs[a] for a in legal])

    regrets = np.zeros((n, tree.num_sequences))
    strats = np.zeros((n, tree.num_sequences))
    for j in range(n):
        inc = sample_chunk(game, strategy, player, config, 12345, j, j + 1, sampler)
        for key, row in inc.items():
            i = tree.infoset_index(key)
            lo = tree.infoset_offset[i]
            regrets[j, lo:lo + len(row.actions)] = row.regret
            strats[j, lo:lo + len(row.actions)] = row.strategy
    return regrets, strats


@pytest.mark.parametrize("spec,n", [("random_game(seed=3)", 6000), ("kuhn", 6000)])
@pytest.mark.parametrize("sampling,extra", SCHEMES)
def test_sampled_regrets_are_unbiased(spec, n, sampling, extra):
    game = load_game(spec)
    tree = load_tree(game)
    sigma = TabularPolicy.random(tree, np.random.default_rng(7)).to_sequences(tree)
    config = MCCFRConfig(sampling=sampling, epsilon=0.4, **extra)
    for player in range(game.num_players):
        exact_r, exact_s = _exact(tree, sigma, player)
        regrets, strats = _per_sample(game, tree, sigma, player, config, n)
        for exact, samples in ((exact_r, regrets), (exact_s, strats)):
            mean = samples.mean(axis=0)
            se = samples.std(axis=0, ddof=1) / np.sqrt(n)
            assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9), (player, np.abs(mean - exact) / (se + 1e-12))


class _UniformSampler(Sampler):
    """Off policy everywhere: chance and the other players draw uniformly, the traverser one uniform action."""

    def chance(self, walker, state, d):
        outcomes = state.chance_outcomes()
        c = int(walker.uniform() * len(outcomes))
        return outcomes[c][0], (1.0 / len(outcomes)) / outcomes[c][1]

    def other(self, walker, state, d, sigma):
        a = int(walker.uniform() * len(sigma))
        return a, (1.0 / len(sigma)) / sigma[a]

    def traverser(self, walker, state, d, sigma):
        na = len(sigma)
        a = int(walker.uniform() * na)
        walker.frames[CHOSEN, d, :na] = 0.0
        walker.frames[CHOSEN, d, a] = 1.0
        walker.frames[RHO, d, :na] = 1.0 / na


@pytest.mark.parametrize("spec", ["random_game(seed=3)", "kuhn(players=3)"])
def test_a_plugged_sampler_stays_unbiased(spec):
    """A sampler that draws off policy and reports its probabilities keeps regrets and strategy sums unbiased
    (the walker's importance weights; what a targeted sampler such as Online Outcome Sampling relies on)."""
    game = load_game(spec)
    tree = load_tree(game)
    counts = np.diff(tree.infoset_offset)
    sigma = 0.5 * TabularPolicy.random(tree, np.random.default_rng(5)).to_sequences(tree)
    sigma += 0.5 * np.repeat(1.0 / counts, counts)  # bounded away from 0: no rare node for the 5-sigma bound
    config, n = MCCFRConfig(sampling="outcome"), 8000
    for player in range(game.num_players):
        exact_r, exact_s = _exact(tree, sigma, player)
        regrets, strats = _per_sample(game, tree, sigma, player, config, n, _UniformSampler(config))
        for exact, samples in ((exact_r, regrets), (exact_s, strats)):
            mean = samples.mean(axis=0)
            se = samples.std(axis=0, ddof=1) / np.sqrt(n)
            assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9), (player, np.abs(mean - exact) / (se + 1e-12))


def test_simple_averaging_is_biased_with_three_players(kuhn3):
    """OpenSpiel's note: adding sigma_j(I) at visited nodes is exact only for two players; 'stochastic' fixes it."""
    tree = load_tree(kuhn3)
    # bounded away from 0, so that no node is too rare for 4000 samples and a 5-sigma bound
    sigma = 0.5 * TabularPolicy.random(tree, np.random.default_rng(3)).to_sequences(tree) + 0.25
    n = 4000
    _, exact = _exact(tree, sigma, 0)
    for scheme, unbiased in (("stochastic", True), ("simple", False)):
        _, strats = _per_sample(kuhn3, tree, sigma, 0, MCCFRConfig(average_update=scheme), n)
        mean, se = strats.mean(axis=0), strats.std(axis=0, ddof=1) / np.sqrt(n)
        within = np.abs(mean - exact) <= 5 * se + 1e-9
        assert within.all() == unbiased, (scheme, np.abs(mean - exact).max())


# --- reference implementations of seed 001 Alg. 3 and Alg. 4 --------------------------------------
class _Reference:
    """Seed 001 Alg. 3 (external sampling, s += sigma) and Alg. 4 (outcome sampling, lazy c_I), verbatim.

    Draws come from the same counter-based streams as the solver, in the same
    order, so the tables must agree to rounding.
    """

    def __init__(self, game, epsilon):
        self.game, self.eps = game, epsilon
        self.r, self.s, self.c = {}, {}, {}

    def _sigma(self, key, n):
        r = np.maximum(self.r.setdefault(key, np.zeros(n)), 0.0)
        self.s.setdefault(key, np.zeros(n))
        return r / r.sum() if r.sum() > 0 else np.full(n, 1.0 / n)

    def _u(self):
        u = float(sk.uniform(self.key, self.ctr))
        self.ctr += 1
        return u

    def external(self, h, i):
        p = h.current_player()
        if p == TERMINAL:
            return h.returns()[i]
        if p == CHANCE:
            out = h.chance_outcomes()
            return self.external(h.child(out[sk.pick(np.array([q for _, q in out]), self._u())][0]), i)
        key, legal = h.information_state_key(p), h.legal_actions()
        sigma = self._sigma(key, len(legal))
        if p == i:
            u = np.array([self.external(h.child(a), i) for a in legal])
            u_sigma = float(sigma @ u)
            self.r[key] += u - u_sigma
            return u_sigma
        a = sk.pick(sigma, self._u())
        u = self.external(h.child(legal[a]), i)
        self.s[key] += sigma
        return u

    def outcome(self, h, i, t, pi_i, pi_o, s):
        p = h.current_player()
        if p == TERMINAL:
            return h.returns()[i] / s, 1.0
        if p == CHANCE:
            out = h.chance_outcomes()
            a = sk.pick(np.array([q for _, q in out]), self._u())
            return self.outcome(h.child(out[a][0]), i, t, pi_i, pi_o, s)
        key, legal = h.information_state_key(p), h.legal_actions()
        n = len(legal)
        sigma = self._sigma(key, n)
        sp = self.eps / n + (1 - self.eps) * sigma if p == i else sigma
        a = sk.pick(sp, self._u())
        if p == i:
            u, tail = self.outcome(h.child(legal[a]), i, t, pi_i * sigma[a], pi_o, s * sp[a])
            w = u * pi_o
            for b in range(n):
                self.r[key][b] += w * tail * (1 - sigma[a]) if b == a else -w * tail * sigma[a]
        else:
            u, tail = self.outcome(h.child(legal[a]), i, t, pi_i, pi_o * sigma[a], s * sp[a])
            self.s[key] += (t - self.c.get(key, 0)) * pi_o * sigma
            self.c[key] = t
        return u, tail * sigma[a]

    def run(self, iterations, scheme, seed):
        rng = np.random.default_rng(seed)
        for t in range(1, iterations + 1):
            for i in range(self.game.num_players):
                self.key, self.ctr = int(sk.stream_key(draw_pass_key(rng), 0)), 0
                if scheme == "external":
                    self.external(self.game.new_initial_state(), i)
                else:
                    self.outcome(self.game.new_initial_state(), i, t, 1.0, 1.0, 1.0)


@pytest.mark.parametrize("spec", ["kuhn", "random_game(seed=3)"])
@pytest.mark.parametrize("k,scheme,update", [(1, "outcome", "lazy"), (0, "external", "simple"),
                                             (3, "external", "simple")])
def test_robust_k_reproduces_outcome_and_external(spec, k, scheme, update):
    game = load_game(spec)
    ref = _Reference(game, epsilon=0.6)
    ref.run(150, scheme, seed=11)
    for path in ("tree", "generic"):
        solver = MCCFR(game, sampling="robust", k=k, epsilon=0.6, average_update=update, path=path, seed=11)
        solver.iterate(150)
        regret, strat = solver.regret_table(), solver.strategy_table()
        for key in ref.r:
            np.testing.assert_allclose(regret[key], ref.r[key], rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(strat[key], ref.s[key], rtol=1e-9, atol=1e-9)


# --- the two paths, checkpoints, configs -------------------------------------------------------------
PATH_CASES = [
    ("kuhn", {"sampling": "external"}),
    ("kuhn(players=3)", {"sampling": "outcome", "average_update": "lazy"}),
    ("random_game(seed=3)", {"sampling": "robust", "k": 2, "batch": 5, "chunk": 2, "regret_matching_plus": True,
                             "averaging": "linear", "delay": 3}),
    ("random_game(seed=3)", {"sampling": "chance", "alternating": False}),
    ("kuhn(players=3)", {"sampling": "robust", "k": 1, "average_update": "traverser", "averaging": "quadratic"}),
    ("openspiel:leduc_poker", {"sampling": "outcome", "batch": 3}),
]


@pytest.mark.parametrize("spec,options", PATH_CASES)
def test_tree_and_generic_paths_agree(spec, options):
    game = load_game(spec)
    iters = 40 if "leduc" in spec else 120
    tree = MCCFR(game, path="tree", seed=5, **options).iterate(iters)
    generic = MCCFR(game, path="generic", seed=5, **options).iterate(iters)
    assert tree.path == "tree" and generic.path == "generic"
    rt, rg, st, sg = tree.regret_table(), generic.regret_table(), tree.strategy_table(), generic.strategy_table()
    assert rg, "the generic path saw no infoset"
    for key in rg:
        assert np.array_equal(rt[key], rg[key]), key
        assert np.array_equal(st[key], sg[key]), key
    unseen = set(rt) - set(rg)
    assert all(not rt[k].any() and not st[k].any() for k in unseen)
    assert tree.nodes_visited == generic.nodes_visited


@pytest.mark.parametrize("path", ["tree", "generic"])
@pytest.mark.parametrize("options", [{"sampling": "outcome", "average_update": "lazy"},
                                     {"sampling": "robust", "k": 2, "batch": 3, "regret_matching_plus": True}])
def test_checkpoint_resume_is_exact(tmp_path, path, options):
    game = load_game("kuhn")
    straight = MCCFR(game, path=path, seed=9, **options).iterate(70)
    first = MCCFR(game, path=path, seed=9, **options).iterate(30)
    first.save_checkpoint(tmp_path / "ck.npz")
    resumed = MCCFR(game, path=path, seed=9, **options)
    resumed.load_checkpoint(tmp_path / "ck.npz")
    resumed.iterate(40)
    assert resumed.iterations == 70
    for a, b in ((straight.regret_table(), resumed.regret_table()),
                 (straight.strategy_table(), resumed.strategy_table())):
        assert a.keys() == b.keys()
        assert all(np.array_equal(a[k], b[k]) for k in a)


def test_iterate_in_steps_equals_one_call():
    game = load_game("kuhn")
    a = MCCFR(game, path="tree", seed=2, sampling="outcome").iterate(50)
    b = MCCFR(game, path="tree", seed=2, sampling="outcome")
    for _ in range(50):
        b.iterate(1)
    assert np.array_equal(a.store.regret, b.store.regret) and np.array_equal(a.store.strategy_sum, b.store.strategy_sum)


def test_sample_iteration_contract_reproduces_the_solver():
    """A caller storing r and s as the docstring says reproduces MCCFR(path='generic') (Double Neural CFR's base)."""
    game = load_game("kuhn")
    cfg = MCCFRConfig(sampling="robust", k=1, batch=4, regret_matching_plus=True, averaging="linear", seed=4)
    solver = MCCFR(game, cfg.replace(path="generic")).iterate(30)
    rng = np.random.default_rng(4)
    r, s = {}, {}
    for t in range(1, 31):
        for i in range(2):
            inc = sample_iteration(game, table_strategy_fn(r), i, cfg, rng)
            assert isinstance(inc, Increments)
            for key, row in inc.items():
                r[key] = np.maximum(r.get(key, np.zeros(len(row.actions))) + row.regret, 0.0)
                s[key] = s.get(key, np.zeros(len(row.actions))) + t * row.strategy
    table_r, table_s = solver.regret_table(), solver.strategy_table()
    assert r.keys() == table_r.keys()
    for key in r:
        assert np.array_equal(r[key], table_r[key]) and np.allclose(s[key], table_s[key], rtol=1e-12)


def test_cumulative_weight_matches_averaging_weight():
    from cfrlab.solvers.regret import averaging_weight, cumulative_weight

    for code, scheme in enumerate(("uniform", "linear", "quadratic")):
        for delay in (0, 4):
            total = 0.0
            for t in range(1, 30):
                total += averaging_weight(t, scheme, delay)
                assert cumulative_weight(t, code, delay) == total


def test_config_validation_and_registry():
    with pytest.raises(ValueError, match="sampling"):
        MCCFRConfig(sampling="bogus")
    with pytest.raises(ValueError, match="average_update"):
        MCCFRConfig(average_update="x")
    assert MCCFRConfig(sampling="outcome").effective_k == 1
    assert MCCFRConfig(sampling="external").effective_k == 0
    for name, sampling in (("external", "external"), ("outcome", "outcome"), ("robust", "robust"),
                           ("chance", "chance"), ("mccfr+", "robust")):
        cls = solver_class(name)
        assert cls(load_game("kuhn")).config.sampling == sampling


# --- convergence (exact exploitability on the compiled tree) -------------------------------------------
# Kuhn is cheap, so its rows are statistical statements over four seeds: the mean exploitability below the
# target and every seed within twice it (single seeds scatter by about +-50 % at these budgets). Leduc's
# rows run seed 0 only; their budgets leave every one of seeds 0-3 below the target (measured: the largest
# was 0.048 against 0.05, BENCHMARKS.md "MCCFR").
KUHN_CONVERGENCE = [
    ("external", {}, 40000, 5e-3),
    ("outcome", {}, 125000, 5e-3),
    ("robust", {"k": 1, "batch": 8, "regret_matching_plus": True, "averaging": "linear"}, 120000, 5e-3),
    ("chance", {}, 30000, 5e-3),
]
LEDUC_CONVERGENCE = [
    ("external", {}, 250000, 5e-2),
    # 1e6 iterations (about 2 s) reach 0.123-0.128 over seeds 0-2, and a walk that forgets the 1 / rho(a) weight
    # of a sampled child stays at 1.58 (measured); 5e6 iterations reach 5e-2 (benchmarks/bench_mccfr.py)
    ("outcome", {}, 1000000, 0.16),
    ("robust", {"k": 2}, 420000, 5e-2),
    ("chance", {}, 170000, 5e-2),
]


@pytest.mark.parametrize("sampling,extra,iterations,target", KUHN_CONVERGENCE)
def test_exploitability_falls_on_kuhn_over_seeds(sampling, extra, iterations, target):
    game = load_game("kuhn")
    values = [exploitability(game, MCCFR(game, sampling=sampling, path="tree", seed=seed, **extra)
                             .iterate(iterations).average_policy()) for seed in range(4)]
    assert np.mean(values) < target and max(values) < 2 * target, values


@pytest.mark.parametrize("sampling,extra,iterations,target", LEDUC_CONVERGENCE)
def test_exploitability_falls_on_leduc(sampling, extra, iterations, target):
    game = load_game("leduc")
    solver = MCCFR(game, sampling=sampling, path="tree", seed=0, **extra).iterate(iterations)
    assert exploitability(game, solver.average_policy()) < target


# --- the replicas of parallel mini-batches, in process ------------------------------------------------
@pytest.mark.parametrize("path", ["tree", "generic"])
def test_replica_chunks_summed_in_order_equal_one_pass(path):
    """Two replicas' chunk sums (sparse / packed), added in chunk order, equal the in-process pass bit for bit."""
    from cfrlab.distributed import split_evenly
    from cfrlab.solvers.mccfr.replicas import GenericReplica, TreeReplica, add_packed, sampled_tree
    from cfrlab.solvers.mccfr.sampling import chunk_ranges

    game = load_game("random_game(seed=3)")
    cfg = MCCFRConfig(sampling="robust", k=2, batch=11, chunk=2, seed=1)
    solver = MCCFR(game, cfg.replace(path="tree")).iterate(20)  # a non-trivial regret table
    tree, key = solver.tree, 987654321
    groups = split_evenly(chunk_ranges(cfg.batch, cfg.chunk), 2)
    assert [len(g) for g in groups] == [3, 3]
    if path == "tree":
        buf, tot = tw.new_sums(tree.num_sequences, tree.num_infosets), tw.new_sums(tree.num_sequences,
                                                                                  tree.num_infosets)
        for a, b in chunk_ranges(cfg.batch, cfg.chunk):
            tw.run_chunk(sampled_tree(tree), solver.store.regret, solver.store.prediction, 0, cfg.traversal,
                         cfg.schedule.rule, key, a, b, buf)
            tw.add_chunk(tree.infoset_offset, buf, tot)
        got = tw.new_sums(tree.num_sequences, tree.num_infosets)
        replicas = [TreeReplica(tree, cfg) for _ in groups]
        sync = (np.arange(tree.num_sequences), solver.store.regret.copy())
        for replica, group in zip(replicas, groups):
            ids, r, s, _ = replica.run(sync, 0, key, group)
            tw.add_sparse(tree.infoset_offset, ids, r, s, got)
        assert np.array_equal(got.r, tot.r) and np.array_equal(got.s, tot.s)
        assert np.array_equal(np.sort(got.touched[:got.n[0]]), np.sort(tot.touched[:tot.n[0]]))
        return
    table = solver.regret_table()
    expected = sample_pass(game, table_strategy_fn(table), 0, cfg, key)
    keys = list(table)
    sync = (True, keys, np.array([len(table[k]) for k in keys]), np.concatenate([table[k] for k in keys]))
    total = Increments()
    for j, group in enumerate(groups):
        packs, _ = GenericReplica(game.spec(), cfg).run(sync, 0, key, group, j == 0)
        assert len(packs) == (1 if j == 0 else len(group))
        for pack in packs:
            add_packed(total, pack)
    assert list(total) == list(expected)
    for k, row in expected.items():
        assert total[k].player == row.player and total[k].actions == row.actions
        assert np.array_equal(total[k].regret, row.regret) and np.array_equal(total[k].strategy, row.strategy)
