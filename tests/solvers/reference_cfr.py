"""Literal, recursive CFR over the game protocol, following the seeds' pseudo-code line by line.

Slow and obviously correct: the vectorised solvers must match it iteration for
iteration. Tables are dicts keyed by infoset key; strategy sums are accumulated
per history as in the pseudo-code (a constant factor per infoset, which the
normalisation removes).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from cfrlab.game import Game


def _rm(regret: np.ndarray) -> np.ndarray:
    pos = np.maximum(regret, 0.0)
    total = pos.sum()
    return pos / total if total > 0 else np.full(len(regret), 1.0 / len(regret))


class ReferenceCFR:
    """Seed 000 Alg. 1-2 (simultaneous), Alg. 3-4 (CFR+), and seed 001 Alg. 2 alternating."""

    def __init__(self, game: Game, plus: bool = False, alternating: bool = False, average_in: str = "own",
                 linear: bool = False, delay: int = 0):
        self.game = game
        self.n = game.num_players
        self.plus, self.alternating, self.average_in = plus, alternating, average_in
        self.linear, self.delay = linear, delay
        self.regret: dict[str, np.ndarray] = {}
        self.strategy_sum: dict[str, np.ndarray] = defaultdict(lambda: None)
        self.sigma: dict[str, np.ndarray] = {}
        self.t = 0

    def _sig(self, key: str, k: int) -> np.ndarray:
        if key not in self.sigma:
            self.sigma[key] = np.full(k, 1.0 / k)
            self.regret[key] = np.zeros(k)
            self.strategy_sum[key] = np.zeros(k)
        return self.sigma[key]

    def _walk(self, state, reach: np.ndarray, chance: float, traverser: int | None, avg_player: int | None,
              weight: float) -> np.ndarray:
        if state.is_terminal():
            return np.array(state.returns(), dtype=float)
        if state.is_chance_node():
            return sum(p * self._walk(state.child(a), reach, chance * p, traverser, avg_player, weight)
                       for a, p in state.chance_outcomes())
        p = state.current_player()
        key = state.information_state_key(p)
        legal = state.legal_actions()
        sig = self._sig(key, len(legal)).copy()
        child_values = []
        for k, a in enumerate(legal):
            r = reach.copy()
            r[p] *= sig[k]
            child_values.append(self._walk(state.child(a), r, chance, traverser, avg_player, weight))
        v = sum(s * cv for s, cv in zip(sig, child_values))
        if traverser is None or p == traverser:
            cf = chance * np.prod([reach[q] for q in range(self.n) if q != p])
            self.regret[key] += cf * np.array([cv[p] - v[p] for cv in child_values])
        if avg_player is None or p == avg_player:
            self.strategy_sum[key] += weight * reach[p] * sig
        return v

    def iterate(self, n: int = 1) -> ReferenceCFR:
        for _ in range(n):
            self.t += 1
            weight = float(max(self.t - self.delay, 0)) if self.linear else 1.0
            root = self.game.new_initial_state()
            if not self.alternating:
                self._walk(root, np.ones(self.n), 1.0, None, None, weight)
                self._match(None)
                continue
            for i in range(self.n):
                avg = i if self.average_in == "own" else (i + 1) % self.n
                self._walk(root, np.ones(self.n), 1.0, i, avg, weight)
                self._match(i)
        return self

    def _match(self, player: int | None) -> None:
        for key, regret in self.regret.items():
            if player is not None and int(key.split(":")[0]) != player:
                continue
            if self.plus:
                np.maximum(regret, 0.0, out=regret)
            self.sigma[key] = _rm(regret)

    def average(self) -> dict[str, np.ndarray]:
        return {k: _rm(s) for k, s in self.strategy_sum.items()}


def discount(t: int, alpha: float | None) -> float:
    """Weight of the cumulative regret R^{t-1} in iteration ``t``: (t-1)^a / ((t-1)^a + 1), 1 without discounting."""
    if alpha is None:
        return 1.0
    return (t - 1) ** alpha / ((t - 1) ** alpha + 1.0)


class ReferencePredictiveCFR:
    """PCFR+, DCFR+ and PDCFR+ with alternating updates, one literal recursion per player pass.

    PCFR+ (Farina, Kroer & Sandholm 2021, Alg. 2 "PRM+" at every infoset, prediction m^{t+1} = r^t):
        R^t = [R^{t-1} + r^t]^+,   sigma^{t+1} proportional to [R^t + r^t]^+.
    DCFR+ and PDCFR+ (Xu et al. 2024, eqs. for the weighted explicit and implicit regrets):
        R^t = [R^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t]^+,
        sigma^{t+1} proportional to [R^t t^a / (t^a + 1) + m^{t+1}]^+,  m^{t+1} = r^t (PDCFR+) or 0 (DCFR+).
    The average strategy weighs iteration t by t^gamma and the player's own reach (accumulated in the
    player's own pass, with the strategy sigma^t that pass used). Uniform where the positive part is zero.
    """

    def __init__(self, game: Game, predictive: bool, alpha: float | None, gamma: float):
        self.game, self.n = game, game.num_players
        self.predictive, self.alpha, self.gamma = predictive, alpha, gamma
        self.regret: dict[str, np.ndarray] = {}
        self.strategy_sum: dict[str, np.ndarray] = {}
        self.sigma: dict[str, np.ndarray] = {}
        self.t = 0

    def _walk(self, state, traverser: int, own: float, others: float, inst: dict, reach: dict) -> float:
        """Value for ``traverser``; fills its instantaneous regrets and own reach per infoset."""
        if state.is_terminal():
            return float(state.returns()[traverser])
        if state.is_chance_node():
            return sum(p * self._walk(state.child(a), traverser, own, others * p, inst, reach)
                       for a, p in state.chance_outcomes())
        p = state.current_player()
        key = state.information_state_key(p)
        legal = state.legal_actions()
        if key not in self.sigma:
            self.sigma[key] = np.full(len(legal), 1.0 / len(legal))
            self.regret[key] = np.zeros(len(legal))
            self.strategy_sum[key] = np.zeros(len(legal))
        sig = self.sigma[key]
        if p != traverser:
            return sum(sig[k] * self._walk(state.child(a), traverser, own, others * sig[k], inst, reach)
                       for k, a in enumerate(legal))
        child = [self._walk(state.child(a), traverser, own * sig[k], others, inst, reach) for k, a in enumerate(legal)]
        v = float(np.dot(sig, child))
        inst[key] = inst.get(key, 0.0) + others * (np.array(child) - v)
        reach[key] = reach.get(key, 0.0) + own
        return v

    def iterate(self, n: int = 1) -> ReferencePredictiveCFR:
        for _ in range(n):
            self.t += 1
            t = self.t
            for i in range(self.n):
                inst: dict[str, np.ndarray] = {}
                reach: dict[str, float] = {}
                self._walk(self.game.new_initial_state(), i, 1.0, 1.0, inst, reach)
                for key, r in inst.items():
                    self.regret[key] = np.maximum(self.regret[key] * discount(t, self.alpha) + r, 0.0)
                    self.strategy_sum[key] += float(t) ** self.gamma * reach[key] * self.sigma[key]
                    m = r if self.predictive else 0.0
                    self.sigma[key] = _rm(np.maximum(self.regret[key] * discount(t + 1, self.alpha) + m, 0.0))
        return self

    def average(self) -> dict[str, np.ndarray]:
        return {k: _rm(s) for k, s in self.strategy_sum.items()}


class ReferencePredictiveChanceSampling:
    """Chance-sampled CFR (Zinkevich et al. 2008; Lanctot et al. 2009) with predictive regret matching(+)
    (Farina, Kroer & Sandholm 2021, Alg. 2 at every infoset), alternating updates, written literally.

    Per iteration t and traverser i: one traversal that draws each chance outcome from the counter-based
    stream keyed by the pass (the solver's draws) and explores every player action;
        r_I[a]  = sum over visited h in I of pi_{-i}(h) (v(ha) - v(h))      (chance excluded: it is sampled),
        R_I     = [R_I + r_I]^+  (RM+) or R_I + r_I,     at the infosets visited;
        m_I     = r_I at every infoset of i (0 where the traversal did not reach): the prediction;
        S_J    += w_t sum over visited h in J of pi_j(h) sigma_J               (the other players' infosets J);
    and every strategy played is sigma_I = RM(R_I + m_I). With ``predictive=False`` m stays 0 (plain RM(+)), and
    ``regret_weight(t)`` multiplies r_I before it is added (t for linear MCCFR).
    """

    def __init__(self, game: Game, seed: int, plus: bool, weight=lambda t: 1.0, predictive: bool = True,
                 regret_weight=lambda t: 1.0):
        from cfrlab.solvers.mccfr import streams

        self.game, self.n, self.plus, self.weight = game, game.num_players, plus, weight
        self.predictive, self.regret_weight = predictive, regret_weight
        self.rng = np.random.default_rng(seed)
        self.streams = streams
        self.regret: dict[str, np.ndarray] = {}
        self.prediction: dict[str, np.ndarray] = {}
        self.strategy_sum: dict[str, np.ndarray] = {}
        self.owner: dict[str, int] = {}
        self.t = 0

    def sigma(self, key: str) -> np.ndarray:
        return _rm(self.regret[key] + self.prediction[key])

    def _walk(self, state, i: int, reach: np.ndarray, r_inc: dict, s_inc: dict) -> float:
        if state.is_terminal():
            return float(state.returns()[i])
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            u = self.streams.uniform(self.key, self.ctr)
            self.ctr += 1
            c = self.streams.pick(np.array([p for _, p in outcomes]), u)
            return self._walk(state.child(outcomes[c][0]), i, reach, r_inc, s_inc)
        p = state.current_player()
        key = state.information_state_key(p)
        legal = state.legal_actions()
        if key not in self.regret:
            for table in (self.regret, self.prediction, self.strategy_sum):
                table[key] = np.zeros(len(legal))
            self.owner[key] = p
        sig = self.sigma(key)
        if p != i:
            s_inc[key] = s_inc.get(key, 0.0) + reach[p] * sig
        child = []
        for k, a in enumerate(legal):
            r = reach.copy()
            r[p] *= sig[k]
            child.append(self._walk(state.child(a), i, r, r_inc, s_inc))
        v = float(np.dot(sig, child))
        if p == i:
            others = np.prod([reach[q] for q in range(self.n) if q != i])
            r_inc[key] = r_inc.get(key, 0.0) + others * (np.array(child) - v)
        return v

    def iterate(self, n: int = 1) -> ReferencePredictiveChanceSampling:
        for _ in range(n):
            self.t += 1
            for i in range(self.n):
                self.key = int(self.streams.stream_key(int(self.rng.integers(0, 2**63 - 1)), 0))
                self.ctr = 0
                r_inc: dict[str, np.ndarray] = {}
                s_inc: dict[str, np.ndarray] = {}
                self._walk(self.game.new_initial_state(), i, np.ones(self.n), r_inc, s_inc)
                for key, r in r_inc.items():
                    self.regret[key] = self.regret[key] + self.regret_weight(self.t) * r
                    if self.plus:
                        self.regret[key] = np.maximum(self.regret[key], 0.0)
                for key in self.prediction if self.predictive else ():
                    if self.owner[key] == i:
                        self.prediction[key] = np.asarray(r_inc.get(key, np.zeros(len(self.regret[key]))))
                for key, s in s_inc.items():
                    self.strategy_sum[key] = self.strategy_sum[key] + self.weight(self.t) * s
        return self

    def check_iterates(self, solver, iterations: int) -> None:
        """Run ``solver`` (MCCFR) and this transcription side by side: equal tables and strategies each iteration."""
        for _ in range(iterations):
            solver.iterate(1)
            self.iterate(1)
            regret, strategy, current = solver.regret_table(), solver.strategy_table(), solver.current_policy()
            assert set(regret) >= set(self.regret)
            for key in self.regret:
                np.testing.assert_allclose(regret[key], self.regret[key], rtol=1e-12, atol=1e-13, err_msg=key)
                np.testing.assert_allclose(strategy[key], self.strategy_sum[key], rtol=1e-12, atol=1e-13,
                                           err_msg=key)
                probs = current.action_probabilities(key)
                np.testing.assert_allclose([probs[a] for a in sorted(probs)], self.sigma(key), rtol=1e-12,
                                           atol=1e-13, err_msg=key)
