"""Batch fictitious self-play (FSP; Heinrich, Lanctot & Silver 2015, seed 001 Alg. 5-7) with pluggable learners.

One iteration (Alg. 6):
  1. sample n episodes from sigma = (1 - eta) pi + eta beta (eta = 0: Alg. 6's pi), store
     every player's transitions (u, a, r, u') in its reinforcement-learning memory;
  2. every player's best-response ``Learner`` updates beta_i from its memory (REINFORCEMENTLEARNING);
  3. for each player i, sample m episodes from (beta_i, pi_{-i}); store i's transitions in its RL
     memory and its behaviour (u, beta_i(u)) as data for its average-policy ``Learner``;
  4. every player's average-policy ``Learner`` updates pi_i (SUPERVISEDLEARNING).
``TableFSP`` (seed 001 Alg. 7) plugs in table-lookup Q-learning with Boltzmann exploration
(decaying temperature and step size) and the counting model N(u, a) += rho(a).

Choices, and why:
* Alg. 6 stores (u, beta_i(u)) (the whole Boltzmann distribution, line 22's second option),
  which the counting model adds exactly as rho_t(a) (Alg. 7 line 15): less variance than (u, a).
* Table Q-learning replays the RL memory in synchronous sweeps (all TD errors from the same Q,
  averaged per (u, a)), so one iteration is a few numpy operations, not a Python loop per sample.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import TERMINAL, Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.solvers.base import SolverConfig
from cfrlab.solvers.buffers import CircularBuffer
from cfrlab.solvers.selfplay import AVG, BR, SelfPlaySolver, masked_softmax


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


class Learner(ABC):
    """One player's learner in batch FSP: the best response (REINFORCEMENTLEARNING, fed transitions
    u, a, r, u', done) or the average policy (SUPERVISEDLEARNING, fed behaviour u, rho) of seed 001 Alg. 5-6."""

    def register(self, obs: int, legal: NDArray[np.bool_]) -> None:
        """Declare the legal actions of information state ``obs`` (called at every visit)."""

    @abstractmethod
    def observe(self, batch: Mapping[str, NDArray[Any]]) -> None:
        """Add a batch of samples (columns by name) to the learner's memory."""

    @abstractmethod
    def learn(self, iteration: int) -> None:
        """Update the policy from the memory (called once per FSP iteration)."""

    @abstractmethod
    def probs(self, obs: int, legal: NDArray[np.bool_]) -> NDArray[np.float64]:
        """The policy at information state ``obs`` over action ids."""

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


class TableQLearning(Learner):
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

    def observe(self, batch: Mapping[str, NDArray[Any]]) -> None:
        """Transitions: columns ``obs``, ``action``, ``reward``, ``next_obs``, ``done`` (u' terminal)."""
        self.memory.add_batch(dict(batch))

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


class CountingModel(Learner):
    """pi(u, a) = N(u, a) / N(u) with N(u, a) += rho(a) per sample (seed 001 Alg. 7 lines 12-19)."""

    def __init__(self, num_actions: int) -> None:
        self.counts = _GrowingTable(num_actions)
        self._pending: list[tuple[NDArray[np.int64], NDArray[np.float64]]] = []

    def observe(self, batch: Mapping[str, NDArray[Any]]) -> None:
        """Behaviour: columns ``obs`` and ``probs`` (the best response's distribution at ``obs``)."""
        self._pending.append((np.asarray(batch["obs"], dtype=np.int64), np.asarray(batch["probs"], dtype=np.float64)))

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
        self.require(unit=("eta",), nonnegative=("episodes_simultaneous",),
                     positive=("episodes_alternating", "rl_memory", "sweeps", "temperature"))


class FSP(SelfPlaySolver):
    """Batch FSP (seed 001 Alg. 5-6). Subclasses choose the learners via ``_make_learners``.

    Information states are interned as ints (``KeyIndex``); the learners see those ids.
    """

    algorithm = "fsp"
    Config = FSPConfig
    config: FSPConfig
    first_compile_seconds = 1.7  # the exact evaluation's kernels

    def __init__(self, game: Game, config: FSPConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.keys = KeyIndex()
        self.rl: list[Learner] = []
        self.sl: list[Learner] = []
        for p in range(self.num_players):
            rl, sl = self._make_learners(p)
            self.rl.append(rl)
            self.sl.append(sl)

    def _make_learners(self, player: int) -> tuple[Learner, Learner]:
        """(best-response learner, average-policy learner) of ``player``."""
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
            rl.register(obs, legal)
        return obs, legal

    def _episode(self, modes: Sequence[int], rl_players: Sequence[int], sl_player: int | None,
                 rl_data: list[list[tuple]], sl_data: list[list[tuple]]) -> None:
        """Play one episode; player p follows beta_p if ``modes[p] == BR`` else pi_p."""
        state = self.game.new_initial_state()
        last: list[tuple[int, int] | None] = [None] * self.num_players
        while True:
            state, p = self._next_decision(state)
            if p == TERMINAL:
                break
            obs, legal = self._observation(state, p)
            previous = last[p]
            if previous is not None and p in rl_players:
                rl_data[p].append((previous[0], previous[1], 0.0, obs, False))
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
            final = last[p]
            if final is not None:
                rl_data[p].append((final[0], final[1], float(returns[p]), 0, True))

    def _flush(self, rl_data: list[list[tuple]], sl_data: list[list[tuple]]) -> None:
        for p in range(self.num_players):
            if rl_data[p]:
                columns = (np.array(col) for col in zip(*rl_data[p]))
                self.rl[p].observe(dict(zip(("obs", "action", "reward", "next_obs", "done"), columns)))
            if sl_data[p]:
                obs = np.array([o for o, _ in sl_data[p]], dtype=np.int64)
                self.sl[p].observe({"obs": obs, "probs": np.stack([pr for _, pr in sl_data[p]])})

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

class TableFSP(FSP):
    """Table-lookup batch FSP with Q-learning and a counting model (seed 001 Alg. 7)."""

    algorithm = "fsp-table"
    citation = ('batch fictitious self-play, table lookup', 'Heinrich, Lanctot & Silver 2015')
    default_sources = {"*": "ours, chosen on 2-player Kuhn (seed 001 Alg. 7 gives no values)"}


__all__ = ["FSP", "FSPConfig", "TableFSP", "Learner", "TableQLearning", "CountingModel", "KeyIndex"]
