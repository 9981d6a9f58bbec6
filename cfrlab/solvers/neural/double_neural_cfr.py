"""Double Neural CFR (Li, Hu, Ge, Jiang, Qi & Song, arXiv 1812.10607, ICLR 2020): mini-batch MCCFR+ with the
regret table and the average-strategy table replaced by two networks.

One iteration t, for each player i in turn (alternating updates):
  1. sigma^t at any infoset is regret matching on the RegretSumNetwork's prediction R_theta(I)
     (seed 000 Alg. 6 l. 5-20 with R_theta in place of r_I);
  2. one robust-sampling mini-batch for traverser i (b traversals, min(k, |A(I)|) actions drawn at
     i's infosets, seed 000 Alg. 5 and sec. 6.6-6.9) gives per-infoset sampled regret increments
     r~(I) and strategy-sum increments s~(I); this is ``cfrlab.solvers.mccfr.sample_iteration``,
     the same function the tabular solver uses (the traversal is not copied here);
  3. the RSN is trained, warm-started from its previous parameters, towards
     max(R_theta_old(I) + r~(I), 0) (MCCFR+'s cumulative regret+, sec. 6.9) at i's infosets of the
     batch, and the AvgStrategyNetwork at the infosets with strategy increments towards
     S_phi_old(I) + w_t s~(I), w_t = max(t - d, 0) (linear averaging with delay d);
  4. the average strategy is the normalised positive part of S_phi(I) (seed 000 Alg. 6 l. 23-31).
With exact tables in place of the networks this is tabular robust-sampling mini-batch MCCFR+
iteration for iteration (``tests/solvers/neural/test_double_neural_cfr.py`` checks it bit for bit).

Networks (Li et al. sec. 4.1; seed 000 sec. 9-10): ``network="gru"`` / ``"lstm"`` read the
information state as a token sequence (the characters of ``information_state_key``, see
``cfrlab.solvers.neural.nets``) through a recurrent encoder with attention; ``network="mlp"`` is the
fully connected variant on ``information_state_tensor``. Sampling runs on Ray workers with
``workers > 1`` (each worker rebuilds the RSN from its state dict and samples its chunks; chunk sums
are added in chunk order, so results do not depend on the number of workers).

Deviations from the paper, and why:
* outputs are scaled: each network predicts values divided by a running scale (the largest
  target magnitude seen so far); when the scale grows, the output layer is rescaled so that the
  network's predictions in real units do not change. Cumulative regrets grow with t and strategy
  sums with t^2 under linear averaging; regressing them raw would need a learning-rate schedule;
* the output layers start at zero, so R_theta = S_phi = 0 before the first iteration, as the
  tables are (the paper does not say how it initialises);
* the ASN predicts the strategy sum in polar form, log |S(I)| and S(I)/|S(I)|
  (``asn_polar``, ``PolarNetworkModel``): strategy sums span orders of magnitude across infosets, and
  a plain regression makes rarely reached infosets' averages noise;
* one RSN and one ASN serve both players, as in the paper, but training on one player's infosets
  moves the other's predictions; each training set therefore also holds the previous batch's
  infosets at their current predictions (``anchors``);
* each network is trained for a fixed number of Adam steps per iteration on that iteration's
  targets (warm start makes this the paper's "refine with the new samples"), with one Adam kept
  across iterations (``keep_optimizer``; its moments are checkpointed) and a learning rate decaying
  as 1/(1 + t/tau) (ASN) and 1/sqrt(1 + t/tau) (RSN): Adam's step does not shrink with the
  gradient, so at a constant rate the fit's jitter outgrows the ever smaller relative updates of the
  cumulative tables; the paper's early stopping is not reproduced;
* the fully connected variant puts layer norm after each hidden layer (``layer_norm``), as our Deep
  CFR does;
* implementation, not algorithm: sigma^t is cached per infoset key within a pass, and the infosets
  of the last passes are predicted in one batch after each training (``_prefetch``); Ray workers
  receive those cached rows, so a pass gives the same bits in process and on workers;
* strategy-sum increments follow ``average_update`` of ``MCCFRConfig`` ("stochastic" by default,
  unbiased for any number of players); the paper accumulates at the traverser's nodes
  (``average_update="traverser"``, seed 000 Alg. 5 l. 36), also available. The "lazy" scheme needs a
  per-infoset visit table and is refused.

Each choice above was measured before it was kept, and the alternatives tried are recorded, with
the speed and exploitability on Leduc: BENCHMARKS.md, "Neural CFR" and "Double Neural CFR: the design
choices measured".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.game import Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.mccfr import Increments, chunk_ranges, draw_pass_key, sample_chunk
from cfrlab.solvers.neural.double_neural_config import DoubleNeuralCFRConfig
from cfrlab.solvers.neural.double_neural_sampling import prefetch_strategies, regret_strategy_fn, sample_on_workers
from cfrlab.solvers.neural.infoset_models import (
    Encoder,
    InfosetModel,
    NetworkModel,
    NotingGame,
    PolarNetworkModel,
    TensorTable,
    make_net,
    token_encoder,
)
from cfrlab.solvers.neural.training import (
    NeuralSolver,
    load_optimizer_arrays,
    optimizer_arrays,
    regret_matching_rows,
    require_tensor_size,
    torch_threads,
)
from cfrlab.solvers.regret import averaging_weight

_PREFETCH_LIMIT = 20_000


# ------------------------------------------------------------------------------------------------
# the solver
# ------------------------------------------------------------------------------------------------
class DoubleNeuralCFR(NeuralSolver):
    """Double Neural CFR: robust-sampling mini-batch MCCFR+ with a RegretSumNetwork and an AvgStrategyNetwork.

    One RSN and one ASN serve all players (the key and the tensor name the player), as in the paper.
    ``model_factory(role)`` (role 'rsn' or 'asn') replaces the networks by other ``InfosetModel``s -- the tests use
    exact tables to prove the training targets right; such solvers cannot checkpoint.
    """

    algorithm = "dncfr"
    citation = ('Double Neural CFR (regret-sum and average-strategy networks)', 'Li, Hu, Ge, Jiang, Qi & Song 2020')
    default_iterations = 20  # to its exploitability target on Kuhn (BENCHMARKS.md, "Learned defaults")
    Config = DoubleNeuralCFRConfig
    config: DoubleNeuralCFRConfig
    presets = {"paper": {"network": "gru", "asn_polar": False, "anchors": False, "warm_start": True}}
    preset_sources = {"paper": "Li et al. 2020: the attention-equipped recurrent encoder, the ASN fitting S(I) "
                               "directly, warm starts; its sizes are not published, ours are kept"}
    default_sources = {"asn_polar": "ours", "anchors": "ours", "hidden": "measured", "batch": "measured",
                       "rsn_steps": "measured", "asn_steps": "measured", "layer_norm": "measured",
                       "sampling": "paper", "k": "measured", "regret_matching_plus": "paper", "averaging": "paper",
                       "*": "ours"}

    def __init__(self, game: Game, config: DoubleNeuralCFRConfig | None = None, *,
                 model_factory: Callable[[str], InfosetModel] | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        cfg = self.config
        self.num_players = game.num_players
        self.num_actions = game.max_actions
        self.rng = as_generator(cfg.seed)
        self._mccfr = cfg.mccfr_config()
        self._tensors: TensorTable | None = None
        self._sample_game: Game = game
        if cfg.network == "mlp":
            self._tensors = TensorTable(require_tensor_size(game))
            self._sample_game = NotingGame(game, self._tensors)
        self._custom = model_factory is not None
        if model_factory is None:
            model_factory = self._network_model
        with torch_threads(cfg.threads):
            self.rsn = model_factory("rsn")
            self.asn = model_factory("asn")
        self._sigma_cache: dict[str, NDArray[np.float64]] = {}
        self._anchors: dict[str, tuple[list[str], NDArray[np.bool_]]] = {}
        self._recent: dict[str, NDArray[np.bool_]] = {}  # infosets sampled lately -> legal mask (prefetch)
        self._pool: Any = None
        self._tree: Any = None
        self.rsn_loss = float("nan")
        self.asn_loss = float("nan")

    def _network_model(self, role: str) -> NetworkModel:
        cfg = self.config
        size = self._tensors.size if self._tensors is not None else 0
        encode: Encoder = self._tensors if self._tensors is not None else token_encoder
        if role == "asn" and cfg.asn_polar:
            return PolarNetworkModel(make_net(cfg, self.num_actions + 1, size, self.rng), encode, cfg, cfg.asn_steps)
        return NetworkModel(make_net(cfg, self.num_actions, size, self.rng), encode, cfg,
                            cfg.rsn_steps if role == "rsn" else cfg.asn_steps)

    # one iteration ------------------------------------------------------------------------------
    def _iterate_once(self) -> None:
        cfg = self.config
        t = self.iterations + 1
        weight = averaging_weight(t, cfg.averaging, cfg.delay)
        for traverser in range(self.num_players):
            increments = self._sample(traverser, draw_pass_key(self.rng))
            self._update(traverser, increments, weight)

    def _sample(self, traverser: int, pass_key: int) -> Increments:
        """One mini-batch of ``sample_iteration`` (same chunks, same order; on Ray workers if asked)."""
        cfg = self.config
        ranges = chunk_ranges(cfg.batch, cfg.chunk)
        if cfg.workers > 1 or cfg.address is not None:
            if self._custom:
                raise ValueError("parallel sampling needs the solver's own networks (no model_factory)")
            from cfrlab import distributed

            if self._pool is None:
                self._pool = distributed.WorkerPool(cfg.workers, address=cfg.address)
            parts = sample_on_workers(self._pool, self.game, cfg, self.num_actions, self._tensors,
                                      cast(NetworkModel, self.rsn),  # not _custom: the solver's own network
                                      self._sigma_cache, traverser, pass_key, ranges)
        else:
            strategy = regret_strategy_fn(self.rsn, self.num_actions, cache=self._sigma_cache)
            with torch_threads(cfg.threads):
                parts = [sample_chunk(self._sample_game, strategy, traverser, self._mccfr, pass_key, a, b)
                         for a, b in ranges]
        total = Increments()
        for part in parts:
            total.add(part)
        return total

    def _prefetch(self) -> None:
        """Fill the strategy cache for the infosets of the last passes in one batched forward pass.

        The next pass mostly revisits them; one batch costs far less than one forward pass per infoset.
        """
        if not self._recent or self._custom:
            return
        prefetch_strategies(self.rsn, self._recent, self._sigma_cache)

    def _update(self, traverser: int, increments: Increments, weight: float) -> None:
        """Train the RSN and the ASN towards predicted-old + increment at the batch's infosets."""
        cfg = self.config
        t = self.iterations + 1
        ratio = t / cfg.lr_decay if cfg.lr_decay > 0 else 0.0
        for model, power in ((self.rsn, 0.5), (self.asn, 1.0)):
            if isinstance(model, NetworkModel):
                model.learning_rate = cfg.learning_rate / (1.0 + ratio) ** power
        if len(self._recent) > _PREFETCH_LIMIT:
            self._recent.clear()
        for key, row in increments.items():
            if key not in self._recent:
                mask = np.zeros(self.num_actions, dtype=bool)
                mask[list(row.actions)] = True
                self._recent[key] = mask
        # RSN: the traverser's infosets (the others get zero regret), R <- max(R_theta_old + r~, 0)
        keys = [k for k, row in increments.items() if row.player == traverser]
        if keys:
            targets, masks = self._targets(self.rsn, keys, increments, "regret", 1.0)
            if cfg.regret_matching_plus:
                np.maximum(targets, 0.0, out=targets)
            self.rsn_loss = self._fit("rsn", self.rsn, keys, targets, masks)
        # ASN: the infosets with strategy increments, S <- S_phi_old + w_t s~
        if weight != 0.0:
            keys = [k for k, row in increments.items() if row.strategy.any()]
            if keys:
                targets, masks = self._targets(self.asn, keys, increments, "strategy", weight)
                self.asn_loss = self._fit("asn", self.asn, keys, targets, masks)
        self._sigma_cache.clear()
        self._prefetch()

    def _fit(self, role: str, model: InfosetModel, keys: list[str], targets: NDArray[np.float64],
             masks: NDArray[np.bool_]) -> float:
        """Fit the batch's targets, plus the previous batch's infosets held at their current values (anchors)."""
        prev_keys, prev_masks = self._anchors.get(role, ([], np.zeros((0, self.num_actions), dtype=bool)))
        self._anchors[role] = (keys, masks)
        if self.config.anchors and prev_keys:
            fresh = set(keys)
            keep = [i for i, k in enumerate(prev_keys) if k not in fresh]
            if keep:
                a_keys = [prev_keys[i] for i in keep]
                a_masks = prev_masks[keep]
                keys = keys + a_keys
                targets = np.concatenate([targets, model.predict(a_keys, a_masks)])
                masks = np.concatenate([masks, a_masks])
        return model.fit(keys, targets, masks, self.rng)

    def _targets(self, model: InfosetModel, keys: list[str], increments: Increments, field: str,
                 weight: float) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        masks = np.zeros((len(keys), self.num_actions), dtype=bool)
        for row, key in enumerate(keys):
            masks[row, list(increments[key].actions)] = True
        old = model.predict(keys, masks)
        targets = np.zeros((len(keys), self.num_actions))
        for row, key in enumerate(keys):
            inc = increments[key]
            cols = list(inc.actions)
            value = getattr(inc, field)
            targets[row, cols] = old[row, cols] + (weight * value if weight != 1.0 else value)
        return targets, masks

    def close(self) -> None:
        """Release the Ray worker pool (if any)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    # policies -----------------------------------------------------------------------------------
    def _probabilities(self, model: InfosetModel, states: Sequence[State]) -> NDArray[np.float64]:
        keys = []
        mask = np.zeros((len(states), self.num_actions), dtype=bool)
        for row, state in enumerate(states):
            player = state.current_player()
            key = state.information_state_key(player)
            if self._tensors is not None:
                self._tensors.note(key, state, player)
            keys.append(key)
            mask[row, state.legal_actions()] = True
        return regret_matching_rows(model.predict(keys, mask), mask, "uniform")

    def average_action_probabilities(self, states: Sequence[State]) -> NDArray[np.float64]:
        """Normalised positive part of the ASN's strategy sums (uniform where none is positive)."""
        with torch_threads(self.config.threads):
            return self._probabilities(self.asn, states)

    def current_action_probabilities(self, states: Sequence[State]) -> NDArray[np.float64]:
        """Regret matching on the RSN's cumulative regrets."""
        with torch_threads(self.config.threads):
            return self._probabilities(self.rsn, states)

    def average_policy(self) -> TabularPolicy:
        return self._tabulate(self.average_action_probabilities)

    def current_policy(self) -> TabularPolicy:
        return self._tabulate(self.current_action_probabilities)

    # state --------------------------------------------------------------------------------------
    def _require_networks(self) -> None:
        if self._custom:
            raise ValueError("a solver built with model_factory has no networks to checkpoint")

    def _own_networks(self) -> tuple[NetworkModel, NetworkModel]:
        """The RSN and ASN, which are the solver's own networks where it may checkpoint."""
        self._require_networks()
        return cast(NetworkModel, self.rsn), cast(NetworkModel, self.asn)

    def _networks(self) -> dict[str, nn.Module]:
        rsn, asn = self._own_networks()
        return {"rsn": rsn.net, "asn": asn.net}

    def _anchor_keys(self) -> list[str]:
        """Infosets whose inputs the next iteration needs (anchors and prefetched ones), sorted."""
        return sorted({k for keys, _ in self._anchors.values() for k in keys} | set(self._recent))

    def _network_models(self) -> dict[str, NetworkModel]:
        """The RSN and ASN by role, where they are networks (not a ``model_factory``'s tables)."""
        return {role: model for role, model in (("rsn", self.rsn), ("asn", self.asn))
                if isinstance(model, NetworkModel)}

    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays = super()._state_arrays()
        for role, model in self._network_models().items():  # keep_optimizer: Adam's moments are state too
            if model.optimizer is not None:
                arrays.update(optimizer_arrays(f"opt/{role}", model.optimizer))
        if self._tensors is not None:  # the MLP variant reads anchors' tensors, which a fresh process has not seen
            keys = self._anchor_keys()
            arrays["anchor_tensors"] = self._tensors(keys)["x"] if keys else np.zeros((0, self._tensors.size),
                                                                                     dtype=np.float32)
        return arrays

    def _load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        super()._load_state_arrays(arrays)
        for role, model in self._network_models().items():
            model.optimizer = None
            if any(name.startswith(f"opt/{role}/") for name in arrays):
                model.optimizer = torch.optim.Adam(model.net.parameters(), lr=model.learning_rate, foreach=True)
                load_optimizer_arrays(f"opt/{role}", model.optimizer, arrays)
        self._pending_anchor_tensors = arrays.get("anchor_tensors")

    def _neural_extra(self) -> dict[str, Any]:
        anchors = {role: [keys, masks.astype(int).tolist()] for role, (keys, masks) in self._anchors.items()}
        rsn, asn = self._own_networks()
        return {"rsn_scale": rsn.scale, "asn_scale": asn.scale, "rsn_loss": self.rsn_loss,
                "asn_loss": self.asn_loss, "anchors": anchors,
                "recent": [[k, m.astype(int).tolist()] for k, m in self._recent.items()]}

    def _load_neural_extra(self, extra: Mapping[str, Any]) -> None:
        rsn, asn = self._own_networks()
        rsn.scale = float(extra["rsn_scale"])
        asn.scale = float(extra["asn_scale"])
        self.rsn_loss = float(extra.get("rsn_loss", float("nan")))
        self.asn_loss = float(extra.get("asn_loss", float("nan")))
        self._anchors = {role: (list(keys), np.array(masks, dtype=bool).reshape(len(keys), self.num_actions))
                         for role, (keys, masks) in extra.get("anchors", {}).items()}
        self._recent = {k: np.array(m, dtype=bool) for k, m in extra.get("recent", [])}
        pending = getattr(self, "_pending_anchor_tensors", None)
        if self._tensors is not None and pending is not None:
            for key, row in zip(self._anchor_keys(), np.asarray(pending, dtype=np.float32)):
                self._tensors.tensors[key] = row.copy()
        self._pending_anchor_tensors = None

    def _invalidate(self) -> None:
        self._sigma_cache.clear()
        self._prefetch()
