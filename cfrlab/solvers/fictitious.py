"""The fictitious-play family: XFP, batch FSP (table lookup), FSP with softmax regression.

Fictitious play averages best responses: pi^{t+1} = (1 - a_t) pi^t + a_t beta^{t+1}, with
beta^{t+1} a best response to pi^t. The *average* profile pi converges to a Nash equilibrium in
two-player zero-sum games (and potential games); in N-player games we measure its NashConv.

Full-width extensive-form fictitious play (``XFP``; Heinrich et al. 2015, seed 004 eq. 13-15):
  1. every player computes an exact best response beta_i to pi^t (one backward pass,
     ``cfrlab.eval.best_response``);
  2. realisation weights x_pi(h_I), x_beta(h_I): the player's own reach of infoset I (eq. 13);
  3. pi^{t+1}(I) = pi^t(I) + a x_beta / ((1 - a) x_pi + a x_beta) (beta(I) - pi^t(I)) (eq. 14-15),
     which is realisation-equivalent to mixing the two normal-form strategies with weights
     (1 - a, a); a = a_t = 1 / (t + 1) by default (pi^1 uniform), or a constant.

Batch fictitious self-play (``FSP``; seed 001 Alg. 5-6), with pluggable learners:
  1. sample n episodes from sigma = (1 - eta) pi + eta beta (eta = 0: Alg. 6's pi), store
     every player's transitions (u, a, r, u') in its reinforcement-learning memory;
  2. every player's ``BestResponseLearner`` updates beta_i from its memory (REINFORCEMENTLEARNING);
  3. for each player i, sample m episodes from (beta_i, pi_{-i}); store i's transitions in its RL
     memory and its behaviour (u, beta_i(u)) as data for its ``AverageLearner``;
  4. every player's ``AverageLearner`` updates pi_i (SUPERVISEDLEARNING).
  ``TableFSP`` (seed 001 Alg. 7) plugs in table-lookup Q-learning with Boltzmann exploration
  (decaying temperature and step size) and the counting model N(u, a) += rho(a).

Anticipatory (online) FSP (``AnticipatoryFSP``; seed 004 Alg. 1, seed 001 Alg. 8):
  1. per episode and player, act with eps-greedy(Q) with probability eta, else with Pi;
  2. store every transition in a circular RL memory, and (u, a) in a reservoir SL memory
     when acting with eps-greedy(Q);
  3. every ``learn_every`` own steps: one SGD step of Q on (r + max_a' Q'(s', a') - Q(s, a))^2
     and one of Pi on -log Pi(s, a); copy Q to the target Q' every ``target_update_every`` steps.
  ``SoftmaxFSP`` (seed 004 sec. 4.2) uses a linear softmax Pi and a linear Q over features of the
  information state; ``cfrlab.solvers.neural.nfsp.NFSP`` uses neural networks in the same loop,
  ``nfsp_sac`` a soft actor-critic and ``nfsp_ppo`` an on-policy PPO learner
  (``ApproximateAgent.rollout_size``) in place of Q.

Deviations and choices, and why:
* XFP: where both x_pi(h_I) and x_beta(h_I) are 0 the mixing weight is a (any value is
  realisation-equivalent there; a keeps unreached rows a plain running average).
* FSP Alg. 6 stores (u, beta_i(u)) (the whole Boltzmann distribution, line 22's second option),
  which the counting model adds exactly as rho_t(a) (Alg. 7 line 15): less variance than (u, a).
* Table Q-learning replays the RL memory in synchronous sweeps (all TD errors from the same Q,
  averaged per (u, a)), so one iteration is a few numpy operations, not a Python loop per sample.
* Seed 004 eq. 20 writes the Q target with the policy weights w_Pi; that is a typo for the
  target Q weights (NFSP's loss, seed 001 Alg. 8 line 20), which we use.
* Seed 004's features are "cards, bets, past actions and their products": we take the game's
  ``information_state_tensor`` (which one-hot encodes player, cards and every past action), a
  bias, and all pairwise products, scaled to unit norm. Unit norm is what makes seed 004's large
  learning rates (SL 0.25, Q 1.0) stable: an SGD step on a unit-norm input moves the output by at
  most the learning rate times the error (the normalised LMS condition).
* One ``iterate`` step is one FSP iteration (Alg. 6) for ``FSP`` and one episode for
  ``AnticipatoryFSP`` (seed 004's figures count episodes).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, TERMINAL, Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers import kernels
from cfrlab.solvers.base import Solver, SolverConfig
from cfrlab.solvers.neural.buffers import CircularBuffer, ReservoirBuffer
from cfrlab.tree import GameTree, load_tree

BR, AVG = 1, 0
"""Which policy a player follows in an episode: its best response or its average policy."""


# ==================================================================================================
# XFP: full-width extensive-form fictitious play on a compiled tree
# ==================================================================================================
@dataclasses.dataclass(frozen=True)
class XFPConfig(SolverConfig):
    """Full-width extensive-form fictitious play."""

    step_size: float | None = None
    """Mixing weight a_t of the new best response; None: 1 / (t + 1) (classical fictitious play)."""

    def __post_init__(self) -> None:
        if self.step_size is not None and not 0.0 < self.step_size <= 1.0:
            raise ValueError(f"step_size must be in (0, 1], got {self.step_size}")


class XFP(Solver):
    """Extensive-form fictitious play (seed 004 eq. 13-15) with exact best responses."""

    algorithm = "xfp"
    Config = XFPConfig

    def __init__(self, game: Game, config: XFPConfig | None = None, *, tree: GameTree | None = None,
                 **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.tree = tree if tree is not None else load_tree(game)
        if self.tree.fingerprint != game.fingerprint():
            raise ValueError("the tree was compiled from another game")
        t = self.tree
        counts = np.diff(t.infoset_offset)
        self.average = 1.0 / counts[t.sequence_infoset]  # pi^1: uniform
        self.best = self.average.copy()  # beta^t: the last best-response profile
        self._own = [t.player_sequences(p) for p in range(t.num_players)]
        self._reach = np.empty((t.num_players, t.num_nodes))
        self._infoset_player = t.infoset_player.astype(np.int64)

    def step_size(self, t: int) -> float:
        """a_t for the update that makes pi^{t+1} (t >= 1)."""
        return self.config.step_size if self.config.step_size is not None else 1.0 / (t + 1)

    def _own_realisation(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
        """x_sigma(h_I) per infoset: the owner's own reach of I (eq. 13)."""
        t = self.tree
        kernels.reach_probabilities(t.parent, t.player, t.parent_sequence, sigma, self._reach)
        return self._reach[self._infoset_player, t.infoset_node]

    def _iterate_once(self) -> None:
        from cfrlab.eval.best_response import best_response

        tree = self.tree
        beta = np.empty_like(self.average)
        for p in range(tree.num_players):  # simultaneous: every beta_i answers pi^t
            _, br = best_response(tree, self.average, p)
            beta[self._own[p]] = br[self._own[p]]
        a = self.step_size(self.iterations + 1)
        x_pi, x_beta = self._own_realisation(self.average), self._own_realisation(beta)
        denom = (1.0 - a) * x_pi + a * x_beta
        weight = np.where(denom > 0.0, a * x_beta / np.where(denom > 0.0, denom, 1.0), a)
        self.average = self.average + weight[tree.sequence_infoset] * (beta - self.average)
        self.best = beta

    def current_policy(self) -> TabularPolicy:
        """The latest best-response profile beta^t (uniform before the first iteration)."""
        return TabularPolicy.from_sequences(self.tree, self.best)

    def average_policy(self) -> TabularPolicy:
        return TabularPolicy.from_sequences(self.tree, self.average)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        return {"average": self.average, "best": self.best}

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("average", "best"):
            value = np.asarray(arrays[name], dtype=np.float64)
            if value.shape != (self.tree.num_sequences,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({self.tree.num_sequences},)")
            setattr(self, name, value.copy())


# ==================================================================================================
# Shared machinery of the sampling solvers
# ==================================================================================================
class KeyIndex:
    """Interns information-state keys as consecutive ints (the rows of table-lookup learners)."""

    def __init__(self, keys: Sequence[str] = ()) -> None:
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        for key in keys:
            self.id(key)

    def id(self, key: str) -> int:
        """The row of ``key``, adding it if new."""
        row = self.index.get(key)
        if row is None:
            row = self.index[key] = len(self.keys)
            self.keys.append(key)
        return row

    def __len__(self) -> int:
        return len(self.keys)


def masked_softmax(logits: NDArray[np.float64], legal: NDArray[np.bool_]) -> NDArray[np.float64]:
    """softmax over the legal entries of each row (illegal entries get probability 0)."""
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.where(legal, np.exp(z), 0.0)
    return e / e.sum(axis=-1, keepdims=True)


def greedy(values: NDArray[np.float64], legal: NDArray[np.bool_]) -> int:
    """Index of the largest legal value (the first on ties)."""
    return int(np.argmax(np.where(legal, values, -np.inf)))


class _SelfPlaySolver(Solver):
    """Episodes on a ``Game`` with one seeded generator; exact evaluation on the compiled tree."""

    def __init__(self, game: Game, config: SolverConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.num_players = game.num_players
        self.num_actions = game.max_actions
        self.rng = as_generator(self.config.seed)
        self._tree: GameTree | None = None

    @property
    def tree(self) -> GameTree:
        """The compiled tree (built on first use, for evaluation only)."""
        if self._tree is None:
            self._tree = load_tree(self.game)
        return self._tree

    def _legal_mask(self, state: State) -> NDArray[np.bool_]:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[state.legal_actions()] = True
        return mask

    def _sample(self, probs: NDArray[np.float64]) -> int:
        """One action id drawn from ``probs`` (inverse CDF with one uniform draw)."""
        c = np.cumsum(probs)
        return int(min(np.searchsorted(c, self.rng.random() * c[-1], side="right"), len(probs) - 1))

    def _chance(self, state: State) -> State:
        outcomes = state.chance_outcomes()
        u = self.rng.random()
        acc = 0.0
        for action, prob in outcomes:
            acc += prob
            if u < acc:
                return state.child(action)
        return state.child(outcomes[-1][0])

    def _rng_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def _load_rng_state(self, extra: Mapping[str, Any]) -> None:
        if "rng" in extra:
            self.rng.bit_generator.state = extra["rng"]


# ==================================================================================================
# Batch FSP (seed 001 Alg. 5-6) with pluggable learners; the table-lookup instance (Alg. 7)
# ==================================================================================================
class BestResponseLearner(ABC):
    """REINFORCEMENTLEARNING of seed 001 Alg. 5-6: an RL memory and the approximate best response it gives."""

    @abstractmethod
    def observe(self, obs: NDArray[np.int64], action: NDArray[np.int64], reward: NDArray[np.float64],
                next_obs: NDArray[np.int64], done: NDArray[np.bool_]) -> None:
        """Add transitions (u, a, r, u') to the RL memory (``done``: u' is terminal)."""

    @abstractmethod
    def learn(self, iteration: int) -> None:
        """Update beta from the memory (called once per FSP iteration)."""

    @abstractmethod
    def probs(self, obs: int, legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """beta(u) over action ids."""

    @abstractmethod
    def state_arrays(self) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None: ...


class AverageLearner(ABC):
    """SUPERVISEDLEARNING of seed 001 Alg. 5-6: learns pi_i from the player's best-response behaviour."""

    @abstractmethod
    def observe(self, obs: NDArray[np.int64], probs: NDArray[np.float64]) -> None:
        """Add behaviour samples (u, rho) to the SL memory."""

    @abstractmethod
    def learn(self, iteration: int) -> None:
        """Update pi from the memory (called once per FSP iteration)."""

    @abstractmethod
    def probs(self, obs: int, legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """pi(u) over action ids."""

    @abstractmethod
    def state_arrays(self) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None: ...


class _GrowingTable:
    """A (rows x actions) float table that grows as new information states are interned."""

    def __init__(self, num_actions: int, fill: float = 0.0) -> None:
        self.fill = fill
        self.table = np.full((64, num_actions), fill)
        self.legal = np.zeros((64, num_actions), dtype=bool)

    def ensure(self, rows: int) -> None:
        if rows > self.table.shape[0]:
            size = max(rows, 2 * self.table.shape[0])
            table = np.full((size, self.table.shape[1]), self.fill)
            legal = np.zeros((size, self.table.shape[1]), dtype=bool)
            table[: self.table.shape[0]] = self.table
            legal[: self.legal.shape[0]] = self.legal
            self.table, self.legal = table, legal


class TableQLearning(BestResponseLearner):
    """Table-lookup Q-learning over a circular RL memory, Boltzmann policy (seed 001 Alg. 7 lines 6-10)."""

    def __init__(self, num_actions: int, memory: int, rng: np.random.Generator, *, learning_rate: float,
                 lr_decay: float, temperature: float, temperature_decay: float, sweeps: int) -> None:
        self.q = _GrowingTable(num_actions)
        self.memory = CircularBuffer(memory, {"obs": ((), np.int64), "action": ((), np.int64),
                                              "reward": ((), np.float64), "next_obs": ((), np.int64),
                                              "done": ((), np.bool_)}, rng)
        self.learning_rate, self.lr_decay = learning_rate, lr_decay
        self.temperature0, self.temperature_decay = temperature, temperature_decay
        self.temperature = temperature
        self.sweeps = sweeps

    def register(self, obs: int, legal: NDArray[np.bool_]) -> None:
        """Declare the legal actions of information state ``obs`` (needed for max over Q(u', .))."""
        self.q.ensure(obs + 1)
        self.q.legal[obs] = legal

    def observe(self, obs, action, reward, next_obs, done) -> None:  # type: ignore[override]
        self.memory.add_batch({"obs": obs, "action": action, "reward": reward, "next_obs": next_obs, "done": done})

    def learn(self, iteration: int) -> None:
        # Alg. 7 line 8: decay the step size and the Boltzmann temperature.
        lr = self.learning_rate * (1.0 + iteration) ** (-self.lr_decay)
        self.temperature = self.temperature0 * (1.0 + iteration) ** (-self.temperature_decay)
        if len(self.memory) == 0:
            return
        d = self.memory.data()
        q, legal = self.q.table, self.q.legal
        cells = d["obs"] * q.shape[1] + d["action"]
        count = np.bincount(cells, minlength=q.size)
        seen = count > 0
        for _ in range(self.sweeps):  # synchronous sweeps of Q-learning over the memory
            nxt = np.where(legal[d["next_obs"]], q[d["next_obs"]], -np.inf).max(axis=1)
            target = d["reward"] + np.where(d["done"], 0.0, nxt)
            td = target - q.reshape(-1)[cells]
            total = np.bincount(cells, weights=td, minlength=q.size)
            q.reshape(-1)[seen] += lr * total[seen] / count[seen]

    def probs(self, obs: int, legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        return masked_softmax(self.q.table[obs] / self.temperature, legal)

    def state_arrays(self) -> dict[str, np.ndarray]:
        mem = self.memory.state_dict()
        out = {"q": self.q.table, "q_legal": self.q.legal, "temperature": np.array(self.temperature),
               "mem_meta": np.array([mem["size"], mem["seen"], mem["next"]])}
        out.update({f"mem_{k}": v for k, v in mem["arrays"].items()})
        return out

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.q.table = np.array(arrays["q"], dtype=np.float64)
        self.q.legal = np.array(arrays["q_legal"], dtype=bool)
        self.temperature = float(arrays["temperature"])
        size, seen, nxt = (int(v) for v in arrays["mem_meta"])
        self.memory.load_state_dict({"arrays": {k: arrays[f"mem_{k}"] for k in self.memory.fields},
                                     "size": size, "seen": seen, "next": nxt,
                                     "rng": self.memory.rng.bit_generator.state})


class CountingModel(AverageLearner):
    """pi(u, a) = N(u, a) / N(u) with N(u, a) += rho(a) per sample (seed 001 Alg. 7 lines 12-19)."""

    def __init__(self, num_actions: int) -> None:
        self.counts = _GrowingTable(num_actions)
        self._pending: list[tuple[NDArray[np.int64], NDArray[np.float64]]] = []

    def observe(self, obs, probs) -> None:  # type: ignore[override]
        self._pending.append((np.asarray(obs, dtype=np.int64), np.asarray(probs, dtype=np.float64)))

    def learn(self, iteration: int) -> None:
        for obs, probs in self._pending:
            if obs.size:
                self.counts.ensure(int(obs.max()) + 1)
                np.add.at(self.counts.table, obs, probs)
        self._pending.clear()  # Alg. 7 line 17: empty M_SL

    def probs(self, obs: int, legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        row = self.counts.table[obs] if obs < self.counts.table.shape[0] else np.zeros(len(legal))
        row = np.where(legal, row, 0.0)
        total = row.sum()
        return row / total if total > 0 else legal / legal.sum()

    def state_arrays(self) -> dict[str, np.ndarray]:
        if self._pending:
            raise RuntimeError("the counting model holds unlearned samples; save between iterations")
        return {"counts": self.counts.table}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.counts.table = np.array(arrays["counts"], dtype=np.float64)
        self.counts.legal = np.zeros_like(self.counts.table, dtype=bool)


@dataclasses.dataclass(frozen=True)
class FSPConfig(SolverConfig):
    """Batch fictitious self-play (seed 001 Alg. 5-7) with table-lookup learners."""

    episodes_simultaneous: int = 50
    """n: episodes per iteration sampled with every player on sigma = (1 - eta) pi + eta beta."""
    episodes_alternating: int = 50
    """m: episodes per iteration and player i sampled from (beta_i, pi_{-i}); they feed pi_i."""
    eta: float = 0.0
    """Mixing parameter of the simultaneous episodes (Alg. 5); 0 gives Alg. 6 (sample from pi)."""
    rl_memory: int = 2000
    """Capacity of each player's circular RL memory (transitions)."""
    learning_rate: float = 0.5
    """Q-learning step size at iteration 0."""
    lr_decay: float = 0.3
    """Step size at iteration k: learning_rate * (1 + k) ** -lr_decay."""
    temperature: float = 1.0
    """Boltzmann temperature at iteration 0 (payoff units)."""
    temperature_decay: float = 0.6
    """Temperature at iteration k: temperature * (1 + k) ** -temperature_decay."""
    sweeps: int = 3
    """Q-learning sweeps over the RL memory per iteration."""

    def __post_init__(self) -> None:
        if self.episodes_simultaneous < 0 or self.episodes_alternating <= 0:
            raise ValueError("episodes_simultaneous must be >= 0 and episodes_alternating > 0")
        if not 0.0 <= self.eta <= 1.0:
            raise ValueError(f"eta must be in [0, 1], got {self.eta}")
        if self.rl_memory <= 0 or self.sweeps <= 0 or self.temperature <= 0:
            raise ValueError("rl_memory, sweeps and temperature must be positive")


class FSP(_SelfPlaySolver):
    """Batch FSP (seed 001 Alg. 5-6). Subclasses choose the learners via ``_make_learners``.

    Information states are interned as ints (``KeyIndex``); the learners see those ids.
    """

    algorithm = "fsp"
    Config = FSPConfig

    def __init__(self, game: Game, config: FSPConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.keys = KeyIndex()
        self.rl: list[BestResponseLearner] = []
        self.sl: list[AverageLearner] = []
        for p in range(self.num_players):
            rl, sl = self._make_learners(p)
            self.rl.append(rl)
            self.sl.append(sl)

    def _make_learners(self, player: int) -> tuple[BestResponseLearner, AverageLearner]:
        cfg = self.config
        rl = TableQLearning(self.num_actions, cfg.rl_memory, self.rng, learning_rate=cfg.learning_rate,
                            lr_decay=cfg.lr_decay, temperature=cfg.temperature,
                            temperature_decay=cfg.temperature_decay, sweeps=cfg.sweeps)
        return rl, CountingModel(self.num_actions)

    # episodes ------------------------------------------------------------------------------------
    def _observation(self, state: State, player: int) -> tuple[int, NDArray[np.bool_]]:
        obs = self.keys.id(state.information_state_key(player))
        legal = self._legal_mask(state)
        for rl in self.rl:
            if isinstance(rl, TableQLearning):
                rl.register(obs, legal)
        return obs, legal

    def _episode(self, modes: Sequence[int], rl_players: Sequence[int], sl_player: int | None,
                 rl_data: list[list[tuple]], sl_data: list[list[tuple]]) -> None:
        """Play one episode; player p follows beta_p if ``modes[p] == BR`` else pi_p."""
        state = self.game.new_initial_state()
        last: list[tuple[int, int] | None] = [None] * self.num_players
        while True:
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                state = self._chance(state)
                continue
            obs, legal = self._observation(state, p)
            if last[p] is not None and p in rl_players:
                rl_data[p].append((last[p][0], last[p][1], 0.0, obs, False))
            if modes[p] == BR:
                probs = self.rl[p].probs(obs, legal)
                if p == sl_player:
                    sl_data[p].append((obs, probs))
            else:
                probs = self.sl[p].probs(obs, legal)
            action = self._sample(probs)
            last[p] = (obs, action)
            state = state.child(action)
        returns = state.returns()
        for p in rl_players:
            if last[p] is not None:
                rl_data[p].append((last[p][0], last[p][1], float(returns[p]), 0, True))

    def _flush(self, rl_data: list[list[tuple]], sl_data: list[list[tuple]]) -> None:
        for p in range(self.num_players):
            if rl_data[p]:
                obs, act, rew, nxt, done = (np.array(col) for col in zip(*rl_data[p]))
                self.rl[p].observe(obs, act, rew, nxt, done)
            if sl_data[p]:
                obs = np.array([o for o, _ in sl_data[p]], dtype=np.int64)
                self.sl[p].observe(obs, np.stack([pr for _, pr in sl_data[p]]))

    def _iterate_once(self) -> None:
        cfg, n_players = self.config, self.num_players
        k = self.iterations + 1
        everyone = range(n_players)
        # 1. simultaneous experience from sigma = (1 - eta) pi + eta beta (Alg. 6 line 5, Alg. 5 line 18)
        rl_data: list[list[tuple]] = [[] for _ in everyone]
        sl_data: list[list[tuple]] = [[] for _ in everyone]
        for _ in range(cfg.episodes_simultaneous):
            modes = [BR if cfg.eta > 0 and self.rng.random() < cfg.eta else AVG for _ in everyone]
            self._episode(modes, everyone, None, rl_data, sl_data)
        self._flush(rl_data, sl_data)
        # 2. beta_{k+1} <- REINFORCEMENTLEARNING(M_RL)
        for p in everyone:
            self.rl[p].learn(k)
        # 3. alternating experience from (beta_i, pi_{-i})
        rl_data = [[] for _ in everyone]
        sl_data = [[] for _ in everyone]
        for i in everyone:
            modes = [BR if p == i else AVG for p in everyone]
            for _ in range(cfg.episodes_alternating):
                self._episode(modes, (i,), i, rl_data, sl_data)
        self._flush(rl_data, sl_data)
        # 4. pi_{k+1} <- SUPERVISEDLEARNING(M_SL)
        for p in everyone:
            self.sl[p].learn(k)

    # policies ------------------------------------------------------------------------------------
    def _table_policy(self, learners: Sequence[Any]) -> TabularPolicy:
        tree = self.tree
        probs = np.zeros((tree.num_infosets, tree.max_actions))
        mask = np.zeros_like(probs, dtype=bool)
        mask[tree.sequence_infoset, tree.sequence_action] = True
        for i, key in enumerate(tree.infoset_keys):
            p = int(tree.infoset_player[i])
            obs = self.keys.index.get(key)
            if obs is None:  # never visited: uniform
                probs[i] = mask[i] / mask[i].sum()
            else:
                probs[i] = learners[p].probs(obs, mask[i])
        return TabularPolicy(tree.infoset_keys, probs, mask)

    def current_policy(self) -> TabularPolicy:
        """beta: every player's Boltzmann policy over its Q table."""
        return self._table_policy(self.rl)

    def average_policy(self) -> TabularPolicy:
        """pi: every player's counting model (uniform where never visited)."""
        return self._table_policy(self.sl)

    # state ----------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"keys": np.array(self.keys.keys, dtype=np.str_)}
        for p in range(self.num_players):
            out.update({f"rl{p}_{k}": v for k, v in self.rl[p].state_arrays().items()})
            out.update({f"sl{p}_{k}": v for k, v in self.sl[p].state_arrays().items()})
        return out

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.keys = KeyIndex([str(k) for k in arrays["keys"]])
        for p in range(self.num_players):
            self.rl[p].load_state_arrays({k[len(f"rl{p}_"):]: v for k, v in arrays.items() if k.startswith(f"rl{p}_")})
            self.sl[p].load_state_arrays({k[len(f"sl{p}_"):]: v for k, v in arrays.items() if k.startswith(f"sl{p}_")})

    def _extra_state(self) -> dict[str, Any]:
        return self._rng_state()

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        self._load_rng_state(extra)


class TableFSP(FSP):
    """Table-lookup batch FSP with Q-learning and a counting model (seed 001 Alg. 7)."""

    algorithm = "fsp-table"


# ==================================================================================================
# Anticipatory (online) FSP: seed 004 Alg. 1 / seed 001 Alg. 8, with pluggable function approximators
# ==================================================================================================
@dataclasses.dataclass(frozen=True)
class AnticipatoryConfig(SolverConfig):
    """The NFSP loop (seed 001 Alg. 8) shared by softmax FSP and NFSP."""

    eta: float = 0.1
    """Anticipatory parameter: probability that a player follows eps-greedy(Q) in an episode."""
    epsilon_start: float = 0.06
    """Exploration of eps-greedy(Q) at the start."""
    epsilon_end: float = 0.0
    """Exploration after ``epsilon_decay_steps`` own steps (linear decay)."""
    epsilon_decay_steps: int = 1_000_000
    """Own steps over which epsilon decays linearly."""
    rl_memory: int = 3_000
    """Capacity of each player's circular RL memory (seed 004: 3e3)."""
    sl_memory: int = 40_000
    """Capacity of each player's reservoir SL memory (seed 004: 4e4)."""
    batch_size: int = 128
    """Minibatch size of both SGD updates."""
    learn_every: int = 64
    """Own steps between two SGD updates (of both learners)."""
    min_buffer: int = 128
    """Rows an RL/SL memory must hold before it is learned from."""
    target_update_every: int = 400
    """Own steps between copies of Q into the target Q' (seed 004: 400)."""
    rl_lr: float = 1.0
    """SGD step size of Q (seed 004: 1.0)."""
    sl_lr: float = 0.25
    """SGD step size of Pi (seed 004: 0.25)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.eta <= 1.0:
            raise ValueError(f"eta must be in [0, 1], got {self.eta}")
        for name in ("rl_memory", "sl_memory", "batch_size", "learn_every", "target_update_every"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


class ApproximateAgent(ABC):
    """One player's function approximators in the anticipatory loop."""

    rollout_size: int | None = None
    """None: an off-policy learner (``learn_rl`` on a minibatch of the circular RL memory every
    ``learn_every`` own steps). An int n: an on-policy learner (PPO): the RL memory holds only the
    player's own best-response episodes, in play order; at the end of the episode in which it reaches
    n rows, ``learn_rl`` receives all of it, once, and it is emptied (seed 001 Alg. 9 lines 26-30)."""

    @abstractmethod
    def q_values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        """Q(s, .) for a batch of observations: (batch, actions)."""

    @abstractmethod
    def average_logits(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        """Logits of Pi(s, .) for a batch: (batch, actions)."""

    def best_response_probs(self, obs: NDArray[np.float32], legal: NDArray[np.bool_]) -> NDArray[np.float64] | None:
        """A stochastic best-response policy for one observation, or None for eps-greedy(Q) (the default)."""
        return None

    @abstractmethod
    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        """One SGD step on the TD loss; returns the loss."""

    @abstractmethod
    def learn_sl(self, batch: Mapping[str, np.ndarray]) -> float:
        """One SGD step on the cross-entropy loss; returns the loss."""

    @abstractmethod
    def update_target(self) -> None:
        """theta^{Q'} <- theta^Q."""

    @abstractmethod
    def state_arrays(self) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None: ...


class AnticipatoryFSP(_SelfPlaySolver):
    """The online FSP loop; subclasses give the observation encoding and the agents.

    Between two learning steps of a player its approximators are fixed, so their outputs are
    cached per information-state key (cleared at each update); this changes no result.
    """

    algorithm = "anticipatory-fsp"
    Config = AnticipatoryConfig

    def __init__(self, game: Game, config: AnticipatoryConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.obs_size = self._observation_size()
        cfg = self.config
        spec_rl = {"obs": ((self.obs_size,), np.float32), "legal": ((self.num_actions,), np.bool_),
                   "action": ((), np.int64), "reward": ((), np.float32),
                   "next_obs": ((self.obs_size,), np.float32), "next_legal": ((self.num_actions,), np.bool_),
                   "done": ((), np.bool_)}
        spec_sl = {"obs": ((self.obs_size,), np.float32), "action": ((), np.int64),
                   "legal": ((self.num_actions,), np.bool_)}
        self.agents = [self._make_agent(p) for p in range(self.num_players)]
        self.rl_memory = [CircularBuffer(cfg.rl_memory, spec_rl, self.rng) for _ in range(self.num_players)]
        self.sl_memory = [ReservoirBuffer(cfg.sl_memory, spec_sl, self.rng) for _ in range(self.num_players)]
        self.steps = np.zeros(self.num_players, dtype=np.int64)
        self.modes = np.zeros(self.num_players, dtype=np.int64)
        self.losses = np.full((self.num_players, 2), np.nan)
        self._cache: list[dict[str, tuple]] = [{} for _ in range(self.num_players)]
        self._obs_zero = np.zeros(self.obs_size, dtype=np.float32)
        self._legal_zero = np.zeros(self.num_actions, dtype=bool)

    # hooks ---------------------------------------------------------------------------------------
    @abstractmethod
    def _observation_size(self) -> int: ...

    @abstractmethod
    def _encode(self, state: State, player: int) -> NDArray[np.float32]: ...

    @abstractmethod
    def _make_agent(self, player: int) -> ApproximateAgent: ...

    # the loop ------------------------------------------------------------------------------------
    def epsilon(self, player: int) -> float:
        cfg = self.config
        frac = min(1.0, self.steps[player] / max(1, cfg.epsilon_decay_steps))
        return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)

    def _lookup(self, state: State, player: int) -> tuple:
        key = state.information_state_key(player)
        hit = self._cache[player].get(key)
        if hit is None:
            obs = self._encode(state, player)
            legal = self._legal_mask(state)
            agent = self.agents[player]
            br = agent.best_response_probs(obs, legal)
            q = agent.q_values(obs[None])[0] if br is None else br
            avg = masked_softmax(agent.average_logits(obs[None])[0], legal)
            hit = self._cache[player][key] = (obs, legal, q, avg, br is not None)
        return hit

    def _act(self, player: int, legal: NDArray[np.bool_], q: NDArray[np.float64], avg: NDArray[np.float64],
             stochastic: bool) -> int:
        if self.modes[player] == BR and stochastic:  # a stochastic best response (e.g. SAC's policy)
            return self._sample(q)
        if self.modes[player] == BR:  # eps-greedy(Q)
            if self.rng.random() < self.epsilon(player):
                return int(self.rng.choice(np.flatnonzero(legal)))
            return greedy(q, legal)
        return self._sample(avg)

    def _iterate_once(self) -> None:
        eta = self.config.eta
        for p in range(self.num_players):  # Alg. 8 line 9: sigma per episode
            self.modes[p] = BR if self.rng.random() < eta else AVG
        state = self.game.new_initial_state()
        last: list[tuple | None] = [None] * self.num_players
        while True:
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                state = self._chance(state)
                continue
            obs, legal, q, avg, stochastic = self._lookup(state, p)
            if last[p] is not None:
                prev_obs, prev_legal, prev_action = last[p]
                self._remember(p, obs=prev_obs, legal=prev_legal, action=prev_action, reward=0.0, next_obs=obs,
                               next_legal=legal, done=False)
            action = self._act(p, legal, q, avg, stochastic)
            if self.modes[p] == BR:
                self.sl_memory[p].add(obs=obs, action=action, legal=legal)
            last[p] = (obs, legal, action)
            self._step(p)
            state = state.child(action)
        returns = state.returns()
        for p in range(self.num_players):
            if last[p] is not None:
                self._remember(p, obs=last[p][0], legal=last[p][1], action=last[p][2], reward=returns[p],
                               next_obs=self._obs_zero, next_legal=self._legal_zero, done=True)
        for p in range(self.num_players):  # on-policy learners: one update per full rollout, then forget it
            size = self.agents[p].rollout_size
            if size is not None and len(self.rl_memory[p]) >= size:
                self.losses[p, 0] = self.agents[p].learn_rl(self.rl_memory[p].data())
                self.rl_memory[p].clear()
                self._cache[p].clear()

    def _remember(self, player: int, **row: Any) -> None:
        """Store one transition of ``player`` in its RL memory (on-policy learners: best-response play only)."""
        memory = self.rl_memory[player]
        if self.agents[player].rollout_size is not None:
            if self.modes[player] != BR:
                return
            if len(memory) == memory.capacity:  # a wrap would interleave episodes and break the returns
                raise ValueError(f"rl_memory ({memory.capacity}) must hold a rollout "
                                 f"({self.agents[player].rollout_size} rows) plus one episode; raise rl_memory")
        memory.add(**row)

    def _step(self, player: int) -> None:
        """Count one own step; learn and update the target on schedule."""
        cfg = self.config
        self.steps[player] += 1
        s = int(self.steps[player])
        agent = self.agents[player]
        if s % cfg.learn_every == 0:
            if agent.rollout_size is None and len(self.rl_memory[player]) >= max(cfg.min_buffer, 1):
                batch = self.rl_memory[player].sample(min(cfg.batch_size, len(self.rl_memory[player])))
                self.losses[player, 0] = agent.learn_rl(batch)
            if len(self.sl_memory[player]) >= max(cfg.min_buffer, 1):
                batch = self.sl_memory[player].sample(min(cfg.batch_size, len(self.sl_memory[player])))
                self.losses[player, 1] = agent.learn_sl(batch)
            self._cache[player].clear()
        if s % cfg.target_update_every == 0:
            agent.update_target()

    # policies ------------------------------------------------------------------------------------
    def _tabulate(self, which: str) -> TabularPolicy:
        from cfrlab.tree.states import tabulate_policy

        def probs(states: Sequence[State]) -> NDArray[np.float64]:
            out = np.zeros((len(states), self.num_actions))
            players = np.array([s.current_player() for s in states])
            for p in range(self.num_players):
                rows = np.flatnonzero(players == p)
                if rows.size == 0:
                    continue
                obs = np.stack([self._encode(states[r], p) for r in rows])
                legal = np.stack([self._legal_mask(states[r]) for r in rows])
                agent = self.agents[p]
                if which == "average":
                    out[rows] = masked_softmax(agent.average_logits(obs), legal)
                elif agent.best_response_probs(obs[0], legal[0]) is not None:
                    out[rows] = np.stack([agent.best_response_probs(o, m) for o, m in zip(obs, legal)])
                else:
                    q = agent.q_values(obs)
                    best = np.argmax(np.where(legal, q, -np.inf), axis=1)
                    out[rows, best] = 1.0
            return out

        return tabulate_policy(self.game, self.tree, probs)

    def current_policy(self) -> TabularPolicy:
        """The best response of every player: greedy in Q, or the agent's stochastic one (inspection only)."""
        return self._tabulate("greedy")

    def average_policy(self) -> TabularPolicy:
        """Pi: every player's average-policy approximator, tabulated on the compiled tree."""
        return self._tabulate("average")

    # state ----------------------------------------------------------------------------------------
    def _state_arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"steps": self.steps, "modes": self.modes}
        for p in range(self.num_players):
            out.update({f"agent{p}_{k}": v for k, v in self.agents[p].state_arrays().items()})
            for name, mem in (("rl", self.rl_memory[p]), ("sl", self.sl_memory[p])):
                st = mem.state_dict()
                out.update({f"{name}{p}_{k}": v for k, v in st["arrays"].items()})
                out[f"{name}{p}__meta"] = np.array([st["size"], st["seen"], st.get("next", 0)])
        return out

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.steps = np.array(arrays["steps"], dtype=np.int64)
        self.modes = np.array(arrays["modes"], dtype=np.int64)
        for p in range(self.num_players):
            prefix = f"agent{p}_"
            self.agents[p].load_state_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)})
            for name, mem in (("rl", self.rl_memory[p]), ("sl", self.sl_memory[p])):
                size, seen, nxt = (int(v) for v in arrays[f"{name}{p}__meta"])
                mem.load_state_dict({"arrays": {k: arrays[f"{name}{p}_{k}"] for k in mem.fields}, "size": size,
                                     "seen": seen, "next": nxt, "rng": mem.rng.bit_generator.state})
            self._cache[p].clear()

    def _extra_state(self) -> dict[str, Any]:
        return self._rng_state()

    def _load_extra_state(self, extra: Mapping[str, Any]) -> None:
        self._load_rng_state(extra)


# -- softmax regression (seed 004) ---------------------------------------------------------------------
class QuadraticFeatures:
    """x(s) = [1, t, t_i t_j (i < j)] / norm, t = information_state_tensor (seed 004's feature products)."""

    def __init__(self, tensor_size: int) -> None:
        self.tensor_size = tensor_size
        self._iu = np.triu_indices(tensor_size, k=1)
        self.size = 1 + tensor_size + len(self._iu[0])

    def __call__(self, tensor: NDArray[np.float32]) -> NDArray[np.float32]:
        t = np.asarray(tensor, dtype=np.float32)
        x = np.concatenate([[1.0], t, np.outer(t, t)[self._iu]]).astype(np.float32)
        return x / np.linalg.norm(x)


class LinearAgent(ApproximateAgent):
    """Linear Q (w_Q(a)^T x) and linear softmax Pi (softmax w_Pi(a)^T x), trained by plain SGD (seed 004)."""

    def __init__(self, num_features: int, num_actions: int, rl_lr: float, sl_lr: float) -> None:
        self.w_q = np.zeros((num_actions, num_features))
        self.w_q_target = self.w_q.copy()
        self.w_pi = np.zeros((num_actions, num_features))
        self.rl_lr, self.sl_lr = rl_lr, sl_lr

    def q_values(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return obs @ self.w_q.T

    def average_logits(self, obs: NDArray[np.float32]) -> NDArray[np.float64]:
        return obs @ self.w_pi.T

    def learn_rl(self, batch: Mapping[str, np.ndarray]) -> float:
        x, a = batch["obs"].astype(np.float64), batch["action"]
        nxt = np.where(batch["next_legal"], batch["next_obs"] @ self.w_q_target.T, -np.inf).max(axis=1)
        target = batch["reward"] + np.where(batch["done"], 0.0, nxt)
        td = target - np.einsum("bf,bf->b", x, self.w_q[a])
        grad = np.zeros_like(self.w_q)
        np.add.at(grad, a, td[:, None] * x)  # -dE_Q/dw_Q(a), eq. 20
        self.w_q += self.rl_lr * grad / len(a)
        return float(np.mean(td**2))

    def learn_sl(self, batch: Mapping[str, np.ndarray]) -> float:
        x, a, legal = batch["obs"].astype(np.float64), batch["action"], batch["legal"]
        p = masked_softmax(x @ self.w_pi.T, legal)
        onehot = np.zeros_like(p)
        onehot[np.arange(len(a)), a] = 1.0
        self.w_pi -= self.sl_lr * (p - onehot).T @ x / len(a)  # dE_Pi/dw_Pi, eq. 19
        return float(-np.mean(np.log(np.maximum(p[np.arange(len(a)), a], 1e-12))))

    def update_target(self) -> None:
        self.w_q_target = self.w_q.copy()

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {"w_q": self.w_q, "w_q_target": self.w_q_target, "w_pi": self.w_pi}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        for name in ("w_q", "w_q_target", "w_pi"):
            value = np.array(arrays[name], dtype=np.float64)
            if value.shape != getattr(self, name).shape:
                raise ValueError(f"{name} has shape {value.shape}, expected {getattr(self, name).shape}")
            setattr(self, name, value)


class SoftmaxFSP(AnticipatoryFSP):
    """FSP with softmax regression (seed 004 sec. 4.2): linear softmax Pi, linear Q, product features.

    Seed 004's memories, learning rates and target period are the config defaults; it leaves the
    update period and exploration schedule to NFSP's paper, where we choose more frequent updates
    (every 4 own steps) and epsilon decaying to 0 over 30 000 own steps, which on 2-player Kuhn
    reach a given exploitability in fewer episodes.
    """

    algorithm = "fsp-softmax"
    defaults = {"learn_every": 4, "epsilon_decay_steps": 30_000}

    def _observation_size(self) -> int:
        self.features = QuadraticFeatures(self.game.information_state_tensor_size())
        return self.features.size

    def _encode(self, state: State, player: int) -> NDArray[np.float32]:
        return self.features(state.information_state_tensor(player))

    def _make_agent(self, player: int) -> ApproximateAgent:
        return LinearAgent(self.obs_size, self.num_actions, self.config.rl_lr, self.config.sl_lr)


__all__ = [
    "XFP", "XFPConfig", "FSP", "FSPConfig", "TableFSP", "TableQLearning", "CountingModel",
    "BestResponseLearner", "AverageLearner", "AnticipatoryFSP", "AnticipatoryConfig", "ApproximateAgent",
    "SoftmaxFSP", "LinearAgent", "QuadraticFeatures", "KeyIndex", "masked_softmax",
]
