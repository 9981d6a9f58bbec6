"""Deep CFR (Brown, Lerer, Gross & Sandholm, ICML 2019): CFR with regrets and the average strategy in networks.

One iteration t, for each player p in turn:
  1. run ``traversals`` external-sampling traversals for p (seed 000 sec. 6, Lanctot et al. 2009):
     at p's infosets every action is explored, at the others' one action is sampled from their
     current strategy, at chance one outcome is sampled by its probabilities;
  2. the current strategy at any infoset is regret matching on the player's *advantage network*
     (predicted cumulative regrets); where no legal prediction is positive, the legal action of
     largest prediction gets probability 1 (Brown et al. sec. 4.1);
  3. at p's infosets the sampled instantaneous regrets v(I, a) - v(I) go into p's advantage
     memory, at the others' infosets their strategy goes into the strategy memory, both with
     weight t (linear weighting, sec. 4.2) in reservoir buffers;
  4. p's advantage network is retrained (from scratch by default, or warm-started) on its memory,
     minimising the t-weighted squared error over legal actions.
The *average strategy* is a strategy network trained on the strategy memory (weighted
cross-entropy, whose minimiser is the t-weighted average of the stored strategies); on a compiled
game it is tabulated (``cfrlab.policy_tabulate.tabulate_policy``) and evaluated exactly.

Deviations from the paper, and why:
* the strategy loss is cross-entropy over legal actions instead of the squared error of the
  normalised output; both are minimised by the weighted average strategy, cross-entropy keeps
  outputs a distribution without renormalising;
* networks are smaller MLPs on ``information_state_tensor``, with layer normalisation (as OpenSpiel's
  Deep CFR has before its output layer) (the paper's card/bet embeddings are
  game-specific) and the optimizer is fresh in each training phase (the paper reinitialises too);
* current strategies are cached per infoset key until the network they come from is retrained,
  so each infoset costs one forward pass per phase instead of one per visit (same values);
* memory rows of a phase are added in one batch at the end of the phase (the reservoir result is
  distributed exactly as for one-by-one insertion).

Unlike OpenSpiel's ``pytorch/deep_cfr.py`` the memories are never sampled beyond their filled
length, randomness flows from one seeded generator, and illegal actions are masked out of the loss.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.game import CHANCE, TERMINAL, Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.base import SolverConfig
from cfrlab.solvers.buffers import ReservoirBuffer
from cfrlab.solvers.neural.nets import MLP
from cfrlab.solvers.neural.training import (
    NeuralSolver,
    array_sampler,
    fit,
    legal_mask,
    masked_log_softmax,
    masked_weighted_cross_entropy,
    masked_weighted_mse,
    normalise_layers,
    regret_matching_rows,
    require_tensor_size,
    states_tensors,
    torch_threads,
)

_TENSOR_CACHE_LIMIT = 1_000_000


@dataclasses.dataclass(frozen=True)
class DeepCFRConfig(SolverConfig):
    """Every option of Deep CFR."""

    traversals: int = 100
    """External-sampling traversals per player per iteration (K in the paper)."""
    advantage_hidden: tuple[int, ...] = (64, 64)
    """Hidden layer sizes of each player's advantage network."""
    strategy_hidden: tuple[int, ...] = (64, 64)
    """Hidden layer sizes of the average-strategy network."""
    layer_norm: bool = True
    """Layer normalisation after each hidden layer (on Leduc, without it the advantage networks fit
    the sampled regrets so poorly that exploitability stays near 1 after 20 iterations; with it, 0.47)."""
    advantage_steps: int = 200
    """Adam steps per advantage-network training phase (per player per iteration)."""
    strategy_steps: int = 2000
    """Adam steps of the strategy-network training (done when the average policy is asked for)."""
    batch_size: int = 256
    """Mini-batch size of advantage-network training."""
    strategy_batch_size: int = 512
    """Mini-batch size of strategy-network training."""
    learning_rate: float = 1e-3
    """Adam learning rate of all networks."""
    max_grad_norm: float | None = 1.0
    """Gradient-norm clipping (the paper clips to 1)."""
    advantage_capacity: int = 1_000_000
    """Rows of each player's advantage memory (reservoir)."""
    strategy_capacity: int = 1_000_000
    """Rows of the strategy memory (reservoir)."""
    reinitialize: bool = True
    """Retrain advantage networks from scratch each iteration (paper); False warm-starts them."""
    linear_weighting: bool = True
    """Weight memory rows of iteration t by t (Linear CFR); False weights all rows equally."""
    all_negative: str = "argmax"
    """Strategy where no predicted regret is positive: 'argmax' (paper) or 'uniform'."""
    threads: int = 1
    """torch intra-op threads while solving (restored afterwards); 0 leaves torch's setting alone."""

    def __post_init__(self) -> None:
        normalise_layers(self, "advantage_hidden", "strategy_hidden")
        if self.traversals <= 0:
            raise ValueError(f"traversals must be positive, got {self.traversals}")
        if self.all_negative not in ("argmax", "uniform"):
            raise ValueError(f"all_negative must be 'argmax' or 'uniform', got {self.all_negative!r}")
        for name in ("batch_size", "strategy_batch_size", "advantage_capacity", "strategy_capacity"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


class DeepCFR(NeuralSolver):
    """Deep CFR with external sampling, reservoir memories and linear weighting."""

    algorithm = "deep-cfr"
    citation = ('Deep CFR', 'Brown, Lerer, Gross & Sandholm 2019')
    default_iterations = 20  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    Config = DeepCFRConfig
    config: DeepCFRConfig
    presets = {"paper": {"traversals": 10_000, "advantage_steps": 4_000, "batch_size": 10_000,
                         "strategy_batch_size": 10_000, "learning_rate": 1e-3, "max_grad_norm": 1.0,
                         "reinitialize": True, "linear_weighting": True, "all_negative": "argmax"}}
    preset_sources = {"paper": "Brown et al. 2019, sec. 5: traversals K, SGD steps and batches, Adam step, "
                               "clipping (its networks and 40M-row memories are not copied)"}
    default_sources = {"*": "ours"}

    def __init__(self, game: Game, config: DeepCFRConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        self.num_players = game.num_players
        self.num_actions = game.max_actions
        self.tensor_size = require_tensor_size(game)
        self.rng = as_generator(cfg.seed)
        self.advantage_nets = [
            MLP(self.tensor_size, cfg.advantage_hidden, self.num_actions, generator=self.rng, layer_norm=cfg.layer_norm)
            for _ in range(self.num_players)
        ]
        self.strategy_net = MLP(self.tensor_size, cfg.strategy_hidden, self.num_actions, generator=self.rng,
                                layer_norm=cfg.layer_norm)
        fields_adv = {"x": ((self.tensor_size,), np.float32), "target": ((self.num_actions,), np.float32),
                      "mask": ((self.num_actions,), np.bool_), "weight": ((), np.float32)}
        self.advantage_memories = [ReservoirBuffer(cfg.advantage_capacity, fields_adv, child)
                                   for child in self.rng.spawn(self.num_players)]
        self.strategy_memory = ReservoirBuffer(cfg.strategy_capacity, fields_adv, self.rng.spawn(1)[0])
        self.advantage_losses: list[float] = [float("nan")] * self.num_players
        self.strategy_loss = float("nan")
        self._strategy_trained_at = -1
        self._tensors: dict[str, NDArray[np.float32]] = {}
        self._sigma_cache: list[dict[str, tuple]] = [{} for _ in range(self.num_players)]
        self._tree: Any = None

    # one iteration ------------------------------------------------------------------------------
    def _iterate_once(self) -> None:
        cfg = self.config
        t = self.iterations + 1
        weight = float(t) if cfg.linear_weighting else 1.0
        for player in range(self.num_players):
            adv_rows: list[tuple[NDArray[np.float32], NDArray[np.float64], NDArray[np.bool_]]] = []
            strat_rows: list[tuple[NDArray[np.float32], NDArray[np.float64], NDArray[np.bool_]]] = []
            root = self.game.new_initial_state()
            for _ in range(cfg.traversals):
                self._traverse(root, player, adv_rows, strat_rows)
            self._add_rows(self.advantage_memories[player], adv_rows, weight)
            self._add_rows(self.strategy_memory, strat_rows, weight)
            self._train_advantage(player)

    def _traverse(self, state: State, traverser: int, adv_rows: list, strat_rows: list) -> float:
        """External-sampling traversal; returns the sampled value of ``state`` for ``traverser``.

        Children come from ``State._apply``: every action here is taken from ``legal_actions()`` or
        ``chance_outcomes()``, so ``child``'s legality check would only repeat that work.
        """
        player = state.current_player()
        if player == TERMINAL:
            return float(state.returns()[traverser])
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            return self._traverse(state._apply(self._sample([a for a, _ in outcomes], [p for _, p in outcomes])),
                                  traverser, adv_rows, strat_rows)
        key = state.information_state_key(player)
        legal = state.legal_actions()
        sigma, mask, tensor = self._infoset(player, key, state, legal)
        if player == traverser:
            values = np.zeros(self.num_actions)
            for a in legal:
                values[a] = self._traverse(state._apply(a), traverser, adv_rows, strat_rows)
            value = float(sigma @ values)
            regrets = values - value
            regrets[~mask] = 0.0
            adv_rows.append((tensor, regrets, mask))
            return value
        strat_rows.append((tensor, sigma, mask))
        action = self._sample(legal, [sigma[a] for a in legal])
        return self._traverse(state._apply(action), traverser, adv_rows, strat_rows)

    def _sample(self, actions: Sequence[int], probs: Sequence[float]) -> int:
        u = self.rng.random() * sum(probs)
        acc = 0.0
        for a, p in zip(actions, probs):
            acc += p
            if u < acc:
                return int(a)
        return int(actions[-1])

    def _infoset(self, player: int, key: str, state: State, legal: Sequence[int]
                 ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float32]]:
        """(sigma, legal mask, tensor) at an infoset: regret matching on ``player``'s advantage network.

        Cached until that network is retrained, so each infoset costs one forward pass per phase.
        """
        cache = self._sigma_cache[player]
        entry = cache.get(key)
        if entry is None:
            tensor = self._tensor(key, state, player)
            mask = np.zeros((1, self.num_actions), dtype=bool)
            mask[0, legal] = True
            with torch.no_grad():
                adv = self.advantage_nets[player](torch.from_numpy(tensor).unsqueeze(0)).numpy()
            entry = (regret_matching_rows(adv, mask, self.config.all_negative)[0], mask[0], tensor)
            if len(cache) >= _TENSOR_CACHE_LIMIT:
                cache.clear()
            cache[key] = entry
        return entry

    def _tensor(self, key: str, state: State, player: int) -> NDArray[np.float32]:
        cached = self._tensors.get(key)
        if cached is None:
            if len(self._tensors) >= _TENSOR_CACHE_LIMIT:
                self._tensors.clear()
            cached = np.asarray(state.information_state_tensor(player), dtype=np.float32)
            self._tensors[key] = cached
        return cached

    @staticmethod
    def _add_rows(memory: ReservoirBuffer, rows: list, weight: float) -> None:
        if not rows:
            return
        xs, targets, masks = zip(*rows)
        memory.add_batch({"x": np.stack(xs), "target": np.stack(targets), "mask": np.stack(masks),
                          "weight": np.full(len(rows), weight, dtype=np.float32)})

    def _train_advantage(self, player: int) -> None:
        cfg = self.config
        net, memory = self.advantage_nets[player], self.advantage_memories[player]
        self._sigma_cache[player].clear()
        if len(memory) == 0:
            return
        if cfg.reinitialize:
            net.reset_parameters(self.rng)

        def loss(model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
            return masked_weighted_mse(model(batch["x"]), batch["target"], batch["mask"], batch["weight"])

        self.advantage_losses[player] = fit(net, array_sampler(memory.data(), cfg.batch_size, self.rng), loss,
                                            steps=cfg.advantage_steps, learning_rate=cfg.learning_rate,
                                            max_grad_norm=cfg.max_grad_norm)

    def train_strategy_network(self) -> float:
        """Train the average-strategy network from scratch on the strategy memory (once per iteration count).

        Its randomness comes from a generator seeded by (seed, iterations), not from the solver's
        generator, so asking for the average policy never changes the rest of the run.
        """
        cfg = self.config
        if self._strategy_trained_at == self.iterations:
            return self.strategy_loss
        rng = np.random.default_rng([cfg.seed, self.iterations, 0x5EED])
        self.strategy_net.reset_parameters(rng)
        if len(self.strategy_memory) > 0:
            def loss(model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
                return masked_weighted_cross_entropy(model(batch["x"]), batch["target"], batch["mask"],
                                                     batch["weight"])

            self.strategy_loss = fit(self.strategy_net,
                                     array_sampler(self.strategy_memory.data(), cfg.strategy_batch_size, rng), loss,
                                     steps=cfg.strategy_steps, learning_rate=cfg.learning_rate,
                                     max_grad_norm=cfg.max_grad_norm)
        self._strategy_trained_at = self.iterations
        return self.strategy_loss

    # policies -----------------------------------------------------------------------------------
    @torch.no_grad()
    def average_action_probabilities(self, states: Sequence[State]) -> NDArray[np.float64]:
        """Average-strategy probabilities (rows over action ids) at decision states, from the strategy network."""
        self.train_strategy_network()
        mask = legal_mask(states, self.num_actions)
        logits = self.strategy_net(torch.from_numpy(states_tensors(states, self.tensor_size)))
        return masked_log_softmax(logits, torch.from_numpy(mask)).exp().numpy().astype(np.float64) * mask

    @torch.no_grad()
    def current_action_probabilities(self, states: Sequence[State]) -> NDArray[np.float64]:
        """Regret matching on the acting player's advantage network at each state."""
        out = np.zeros((len(states), self.num_actions))
        mask = legal_mask(states, self.num_actions)
        x = torch.from_numpy(states_tensors(states, self.tensor_size))
        players = np.array([s.current_player() for s in states])
        for p in range(self.num_players):
            rows = np.flatnonzero(players == p)
            if rows.size:
                adv = self.advantage_nets[p](x[rows]).numpy()
                out[rows] = regret_matching_rows(adv, mask[rows], self.config.all_negative)
        return out

    def average_policy(self) -> TabularPolicy:
        with torch_threads(self.config.threads):
            return self._tabulate(self.average_action_probabilities)

    def current_policy(self) -> TabularPolicy:
        with torch_threads(self.config.threads):
            return self._tabulate(self.current_action_probabilities)

    # state --------------------------------------------------------------------------------------
    def _networks(self) -> dict[str, nn.Module]:
        # The strategy network is not state: it is retrained from scratch, deterministically, from the strategy
        # memory whenever the average policy is asked for, so a checkpoint does not depend on when it was.
        return {f"advantage{p}": net for p, net in enumerate(self.advantage_nets)}

    def _memories(self) -> dict[str, ReservoirBuffer]:
        return {**{f"advantage{p}": m for p, m in enumerate(self.advantage_memories)}, "strategy": self.strategy_memory}

    def _neural_extra(self) -> dict[str, Any]:
        return {"advantage_losses": list(self.advantage_losses)}

    def _load_neural_extra(self, extra: Mapping[str, Any]) -> None:
        self.advantage_losses = [float(x) for x in extra.get("advantage_losses", self.advantage_losses)]

    def _invalidate(self) -> None:
        for cache in self._sigma_cache:
            cache.clear()
        self._strategy_trained_at = -1
