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

import dataclasses
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.game import Game, State
from cfrlab.policy import TabularPolicy
from cfrlab.seeding import as_generator
from cfrlab.solvers.mccfr import Increments, MCCFRConfig, chunk_ranges, draw_pass_key, sample_chunk
from cfrlab.solvers.mccfr.config import SamplingConfig
from cfrlab.solvers.neural.nets import MLP, RECURRENT_CELLS, SequenceNet, key_tokens, pad_tokens
from cfrlab.solvers.neural.training import (
    NeuralSolver,
    array_sampler,
    fit,
    load_optimizer_arrays,
    masked_log_softmax,
    masked_weighted_mse,
    normalise_layers,
    optimizer_arrays,
    regret_matching_rows,
    require_tensor_size,
    torch_threads,
)
from cfrlab.solvers.regret import averaging_weight, regret_matching

NETWORKS = ("gru", "lstm", "mlp")
_CACHE_LIMIT = 1_000_000
_PREFETCH_LIMIT = 20_000


@dataclasses.dataclass(frozen=True)
class DoubleNeuralCFRConfig(SamplingConfig):
    """Every option of Double Neural CFR: the MCCFR mini-batch's (``SamplingConfig``, other defaults) and the
    networks'. The defaults did best in our measurements (BENCHMARKS.md, "Neural CFR" and "Learned defaults");
    ``DoubleNeuralCFR.presets["paper"]`` holds the paper's choices."""

    sampling: str = "robust"
    k: int = 3
    batch: int = 256
    regret_matching_plus: bool = True
    averaging: str = "linear"
    network: str = "mlp"
    """'gru' or 'lstm': attention-equipped recurrent encoder on key tokens; 'mlp': fully connected on the tensor."""
    hidden_size: int = 64
    """Recurrent hidden size (sequence networks)."""
    embedding_size: int = 16
    """Token embedding size (sequence networks)."""
    hidden: tuple[int, ...] = (128, 128)
    """Hidden layers of the MLP (fully connected variant) or of the head after the encoder."""
    layer_norm: bool = True
    """Layer norm after each hidden layer of the fully connected variant's MLP (Leduc, 180 s: 0.16
    against 0.22 without)."""
    rsn_steps: int = 50
    """Adam steps training each RegretSumNetwork per iteration."""
    asn_steps: int = 50
    """Adam steps training each AvgStrategyNetwork per iteration."""
    train_batch: int = 256
    """Training mini-batch size (rows of the iteration's targets per Adam step)."""
    learning_rate: float = 1e-3
    """Adam learning rate at the first iteration (see ``lr_decay``)."""
    lr_decay: float = 50.0
    """Learning-rate decay tau: iteration t trains the ASN with lr / (1 + t / tau) and the RSN with
    lr / sqrt(1 + t / tau) (0: constant). Strategy sums change by about 2/t of themselves per iteration
    and MCCFR+ regrets by about 1/sqrt(t); a constant Adam step would move the fit more than that."""
    max_grad_norm: float = 1.0
    """Gradient-norm clipping."""
    keep_optimizer: bool = True
    """Keep each network's Adam state (moment estimates) from one iteration's training to the next
    (with warm start; checkpointed); False creates a fresh optimizer for every fit, as before."""
    asn_polar: bool = True
    """ASN predicts log |S(I)| and S(I)/|S(I)| (True) instead of S(I) directly (False, the paper)."""
    anchors: bool = True
    """Also fit the previous batch's infosets at their current predictions, so training on one
    player's infosets does not drift the other's (the two players share each network)."""
    warm_start: bool = True
    """Start each iteration's training from the previous parameters (paper); False re-initialises."""
    threads: int = 1
    """torch intra-op threads while solving (restored afterwards); 0 leaves torch's setting alone."""

    def __post_init__(self) -> None:
        super().__post_init__()
        normalise_layers(self, "hidden")
        if self.network not in NETWORKS:
            raise ValueError(f"network must be one of {NETWORKS}, got {self.network!r}")
        if self.sampling == "chance":
            raise ValueError("sampling must be 'robust', 'external' or 'outcome', got 'chance'")
        if self.average_update == "lazy":
            raise ValueError("average_update must be 'stochastic', 'simple' or 'traverser' (lazy needs a table)")
        if self.train_batch < 1 or self.rsn_steps < 0 or self.asn_steps < 0:
            raise ValueError("train_batch must be >= 1, rsn_steps and asn_steps >= 0")

    def mccfr_config(self) -> MCCFRConfig:
        """The ``MCCFRConfig`` that drives ``sample_iteration`` (and its tabular twin)."""
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(SamplingConfig)}
        return MCCFRConfig(**shared, path="generic")


# ------------------------------------------------------------------------------------------------
# infoset models: a network (or, in tests, a table) from infoset keys to one value per action id
# ------------------------------------------------------------------------------------------------
class InfosetModel(Protocol):
    """What Double Neural CFR needs of an RSN or ASN: predict rows, fit rows."""

    def predict(self, keys: Sequence[str], masks: NDArray[np.bool_]) -> NDArray[np.float64]:
        """(len(keys), max_actions) predicted cumulative values over action ids (legal entries ``masks``)."""

    def fit(self, keys: Sequence[str], targets: NDArray[np.float64], masks: NDArray[np.bool_],
            rng: np.random.Generator) -> float:
        """Move the predictions at ``keys`` towards ``targets`` (legal entries ``masks``); return the loss."""


Encoder = Callable[[Sequence[str]], dict[str, np.ndarray]]


def _output_layer(net: nn.Module) -> nn.Linear:
    return (net.head if isinstance(net, SequenceNet) else net).net[-1]


def _forward(net: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    if "x" in batch:
        return net(batch["x"])
    lengths = batch["lengths"]
    return net(batch["tokens"][:, : int(lengths.max())], lengths)


class NetworkModel:
    """A network as an infoset model, with an output scale (predictions = scale * net(input))."""

    def __init__(self, net: nn.Module, encode: Encoder, config: DoubleNeuralCFRConfig, steps: int) -> None:
        self.net = net
        self.encode = encode
        self.config = config
        self.steps = steps
        self.scale = 1.0
        self.loss = float("nan")
        self.learning_rate = config.learning_rate
        """Set by the solver before each fit (the decay schedule)."""
        self.optimizer: torch.optim.Adam | None = None
        """The persistent Adam of ``keep_optimizer`` (created at the first fit)."""
        with torch.no_grad():  # R^0 = S^0 = 0, as the tables start
            _output_layer(net).weight.zero_()
            _output_layer(net).bias.zero_()

    @torch.no_grad()
    def _outputs(self, keys: Sequence[str]) -> torch.Tensor:
        out = []
        for start in range(0, len(keys), 4096):
            batch = {k: torch.from_numpy(v) for k, v in self.encode(keys[start:start + 4096]).items()}
            out.append(_forward(self.net, batch))
        return torch.cat(out)

    def predict(self, keys: Sequence[str], masks: NDArray[np.bool_]) -> NDArray[np.float64]:
        values = self._outputs(keys).numpy().astype(np.float64) * self.scale
        return np.where(masks, values, 0.0)

    def rescale(self, scale: float) -> None:
        """Change the output scale without changing predictions (the output layer absorbs the ratio)."""
        with torch.no_grad():
            layer = _output_layer(self.net)
            layer.weight.mul_(self.scale / scale)
            layer.bias.mul_(self.scale / scale)
        self.scale = scale

    def fit(self, keys: Sequence[str], targets: NDArray[np.float64], masks: NDArray[np.bool_],
            rng: np.random.Generator) -> float:
        cfg = self.config
        if not keys or self.steps == 0:
            return self.loss
        peak = float(np.max(np.abs(targets[masks]), initial=0.0))
        if peak > self.scale:
            self.rescale(peak)
        if not cfg.warm_start:
            self.net.reset_parameters(rng)
            self.scale = max(peak, 1e-12)
        rows = {**self.encode(keys), "target": (targets / self.scale).astype(np.float32), "mask": masks}

        def loss(net: nn.Module, b: Mapping[str, torch.Tensor]) -> torch.Tensor:
            return masked_weighted_mse(_forward(net, b), b["target"], b["mask"])

        self.loss = self._train(rows, loss, rng)
        return self.loss

    def _train(self, rows: Mapping[str, np.ndarray],
               loss: Callable[[nn.Module, Mapping[str, torch.Tensor]], torch.Tensor],
               rng: np.random.Generator) -> float:
        """``steps`` Adam steps on ``rows``; with ``keep_optimizer`` the Adam moments persist across calls."""
        cfg = self.config
        sample = array_sampler(rows, cfg.train_batch, rng)
        if not (cfg.keep_optimizer and cfg.warm_start):
            return fit(self.net, sample, loss, steps=self.steps, learning_rate=self.learning_rate,
                       max_grad_norm=cfg.max_grad_norm)
        if self.optimizer is None:
            self.optimizer = torch.optim.Adam(self.net.parameters(), lr=self.learning_rate, foreach=True)
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate
        tail = max(1, self.steps // 10)
        total = 0.0
        self.net.train()
        with torch.enable_grad():
            for step in range(self.steps):
                batch = {k: torch.as_tensor(v) for k, v in sample().items()}
                self.optimizer.zero_grad(set_to_none=True)
                value = loss(self.net, batch)
                value.backward()
                if cfg.max_grad_norm is not None:
                    nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm, foreach=True)
                self.optimizer.step()
                if step >= self.steps - tail:
                    total += float(value.detach())
        self.net.eval()
        return total / tail


class PolarNetworkModel(NetworkModel):
    """A strategy-sum network in polar form: log of the row's total and the row's distribution.

    The net has ``max_actions + 1`` outputs: logits of S(I)/|S(I)| over legal actions and log |S(I)|.
    Strategy sums span orders of magnitude across infosets (own reach) and grow like t^2; in this
    form a rarely reached infoset is learned as precisely as a frequent one (relative, not absolute
    error), which a plain regression towards S(I) cannot do. Targets must be >= 0 with a positive sum.
    """

    def predict(self, keys: Sequence[str], masks: NDArray[np.bool_]) -> NDArray[np.float64]:
        out = self._outputs(keys)
        probs = masked_log_softmax(out[:, :-1], torch.from_numpy(masks)).exp().numpy().astype(np.float64)
        total = np.exp(out[:, -1].numpy().astype(np.float64))
        return np.where(masks, probs * total[:, None], 0.0)

    def rescale(self, scale: float) -> None:  # log-mass needs no scale
        self.scale = 1.0

    def fit(self, keys: Sequence[str], targets: NDArray[np.float64], masks: NDArray[np.bool_],
            rng: np.random.Generator) -> float:
        cfg = self.config
        if not keys or self.steps == 0:
            return self.loss
        targets = np.where(masks, np.maximum(targets, 0.0), 0.0)
        total = targets.sum(axis=1)
        if np.any(total <= 0):
            raise ValueError("polar strategy-sum targets need a positive total per row")
        if not cfg.warm_start:
            self.net.reset_parameters(rng)
        rows = {**self.encode(keys), "probs": (targets / total[:, None]).astype(np.float32),
                "log_total": np.log(total).astype(np.float32), "mask": masks}

        def loss(net: nn.Module, b: Mapping[str, torch.Tensor]) -> torch.Tensor:
            out = _forward(net, b)
            ce = -(b["probs"] * masked_log_softmax(out[:, :-1], b["mask"]) * b["mask"]).sum(dim=1).mean()
            return ce + torch.mean((out[:, -1] - b["log_total"]) ** 2)

        self.loss = self._train(rows, loss, rng)
        return self.loss


def _make_net(config: DoubleNeuralCFRConfig, num_actions: int, tensor_size: int,
              generator: np.random.Generator) -> nn.Module:
    if config.network == "mlp":
        return MLP(tensor_size, config.hidden, num_actions, generator=generator, layer_norm=config.layer_norm)
    return SequenceNet(num_actions, generator=generator, hidden_size=config.hidden_size, head_sizes=config.hidden,
                       cell=config.network, embedding_size=config.embedding_size)


def token_encoder(keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Sequence-network inputs of infoset keys: padded tokens and lengths."""
    tokens, lengths = pad_tokens([key_tokens(k) for k in keys])
    return {"tokens": tokens.numpy(), "lengths": lengths.numpy()}


class _TensorTable:
    """``information_state_tensor`` by infoset key, filled as states are seen (the MLP variant's input)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.states: dict[str, tuple[State, int]] = {}
        self.tensors: dict[str, NDArray[np.float32]] = {}

    def note(self, key: str, state: State, player: int) -> None:
        if key not in self.tensors and key not in self.states:
            if len(self.states) >= _CACHE_LIMIT:
                self.states.clear()
            self.states[key] = (state, player)

    def __call__(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out = np.empty((len(keys), self.size), dtype=np.float32)
        for row, key in enumerate(keys):
            tensor = self.tensors.get(key)
            if tensor is None:
                try:
                    state, player = self.states.pop(key)
                except KeyError:
                    raise KeyError(f"no state seen for infoset {key!r}; the MLP variant needs its tensor") from None
                if len(self.tensors) >= _CACHE_LIMIT:
                    self.tensors.clear()
                tensor = self.tensors[key] = np.asarray(state.information_state_tensor(player), dtype=np.float32)
            out[row] = tensor
        return {"x": out}


class _NotingState(State):
    """A state that reports each infoset key it is asked for to a ``_TensorTable`` (MLP variant only)."""

    __slots__ = ("inner", "table")

    def __init__(self, inner: State, table: _TensorTable) -> None:
        self.inner, self.table = inner, table

    def current_player(self) -> int:
        return self.inner.current_player()

    def legal_actions(self) -> list[int]:
        return self.inner.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def child(self, action: int) -> State:
        return _NotingState(self.inner.child(action), self.table)

    def _apply(self, action: int) -> State:  # pragma: no cover - child is overridden
        return self.child(action)

    def information_state_key(self, player: int | None = None) -> str:
        player = self.inner.current_player() if player is None else player
        key = self.inner.information_state_key(player)
        self.table.note(key, self.inner, player)
        return key

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        return self.inner.information_state_tensor(player)

    def returns(self) -> list[float]:
        return self.inner.returns()


class _NotingGame(Game):
    """``game`` with ``_NotingState`` roots (same spec and fingerprint)."""

    def __init__(self, inner: Game, table: _TensorTable) -> None:
        self.inner, self.table = inner, table
        self.name, self.params = inner.name, inner.params

    @property
    def info(self) -> Any:
        return self.inner.info

    def new_initial_state(self) -> State:
        return _NotingState(self.inner.new_initial_state(), self.table)

    def information_state_tensor_size(self) -> int:
        return self.inner.information_state_tensor_size()

    def spec(self) -> str:
        return self.inner.spec()

    def fingerprint(self) -> str:
        return self.inner.fingerprint()


def _mask_of(legal: Sequence[int], num_actions: int) -> NDArray[np.bool_]:
    mask = np.zeros((1, num_actions), dtype=bool)
    mask[0, list(legal)] = True
    return mask


def regret_strategy_fn(model: InfosetModel, num_actions: int, cache: dict[str, NDArray[np.float64]] | None = None
                       ) -> Callable[[str, Sequence[int]], NDArray[np.float64]]:
    """``strategy_fn`` for ``sample_iteration``: regret matching of the RSN's prediction, cached per key."""
    cache = {} if cache is None else cache
    offsets: dict[int, NDArray[np.int64]] = {}

    def strategy(key: str, legal: Sequence[int]) -> NDArray[np.float64]:
        sigma = cache.get(key)
        if sigma is None:
            values = model.predict([key], _mask_of(legal, num_actions))[0, list(legal)]
            n = len(legal)
            off = offsets.get(n)
            if off is None:
                off = offsets[n] = np.array([0, n], dtype=np.int64)
            sigma = regret_matching(np.ascontiguousarray(values), off)  # the tabular solver's rule, bit for bit
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[key] = sigma
        return sigma

    return strategy


# ------------------------------------------------------------------------------------------------
# the solver
# ------------------------------------------------------------------------------------------------
class DoubleNeuralCFR(NeuralSolver):
    """Double Neural CFR: robust-sampling mini-batch MCCFR+ with a RegretSumNetwork and an AvgStrategyNetwork.

    One RSN and one ASN serve all players (the key and the tensor name the player), as in the paper.
    ``model_factory(role)`` (role 'rsn' or 'asn') replaces the networks by other ``InfosetModel``s -- the tests use exact tables to prove the training targets right; such
    solvers cannot checkpoint.
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
        self._tensors: _TensorTable | None = None
        self._sample_game: Game = game
        if cfg.network == "mlp":
            self._tensors = _TensorTable(require_tensor_size(game))
            self._sample_game = _NotingGame(game, self._tensors)
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
            return PolarNetworkModel(_make_net(cfg, self.num_actions + 1, size, self.rng), encode, cfg, cfg.asn_steps)
        return NetworkModel(_make_net(cfg, self.num_actions, size, self.rng), encode, cfg,
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
            shared = self._pool.put({"game": self.game.spec(), "config": cfg, "num_actions": self.num_actions,
                                     "tensor_size": self._tensors.size if self._tensors is not None else 0,
                                     "rsn": (self.rsn.net.state_dict(), self.rsn.scale),
                                     "sigma": dict(self._sigma_cache)})  # prefetched: the same bits everywhere
            parts = []
            for part, tensors in self._pool.map(_chunk_task, [(shared, traverser, pass_key, a, b) for a, b in ranges]):
                if self._tensors is not None:  # the MLP variant's inputs of infosets only the workers saw
                    for key, tensor in tensors.items():
                        self._tensors.tensors.setdefault(key, tensor)
                parts.append(part)
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
        keys = list(self._recent)
        if not keys or self._custom:
            return
        masks = np.array([self._recent[k] for k in keys])
        values = self.rsn.predict(keys, masks)
        for key, row, mask in zip(keys, values, masks):
            legal = np.flatnonzero(mask)
            off = np.array([0, legal.size], dtype=np.int64)
            self._sigma_cache[key] = regret_matching(np.ascontiguousarray(row[legal]), off)

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

    def _networks(self) -> dict[str, nn.Module]:
        self._require_networks()
        return {"rsn": self.rsn.net, "asn": self.asn.net}

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
        return {"rsn_scale": self.rsn.scale, "asn_scale": self.asn.scale, "rsn_loss": self.rsn_loss,
                "asn_loss": self.asn_loss, "anchors": anchors,
                "recent": [[k, m.astype(int).tolist()] for k, m in self._recent.items()]}

    def _load_neural_extra(self, extra: Mapping[str, Any]) -> None:
        self.rsn.scale = float(extra["rsn_scale"])
        self.asn.scale = float(extra["asn_scale"])
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


# worker task (module level so Ray ships it by reference) ------------------------------------------
_WORKER_GAMES: dict[str, tuple[Game, Game, _TensorTable | None]] = {}


def _chunk_task(shared: Mapping[str, Any], traverser: int, pass_key: int, start: int,
                stop: int) -> tuple[Increments, dict[str, NDArray[np.float32]]]:
    """Sample traversals ``start..stop-1`` of a pass with the RSN shipped in ``shared``.

    Returns the chunk's increments and, for the MLP variant, the tensors of its infosets.
    """
    from cfrlab.registry import load_game

    cfg: DoubleNeuralCFRConfig = shared["config"]
    spec = shared["game"]
    entry = _WORKER_GAMES.get(spec)
    if entry is None:
        game = load_game(spec)
        table = _TensorTable(shared["tensor_size"]) if cfg.network == "mlp" else None
        entry = _WORKER_GAMES[spec] = (game, _NotingGame(game, table) if table is not None else game, table)
    _, sample_game, table = entry
    encode: Encoder = table if table is not None else token_encoder
    state_dict, scale = shared["rsn"]
    with torch_threads(cfg.threads):
        net = _make_net(cfg, shared["num_actions"], shared["tensor_size"], np.random.default_rng(0))
        model = NetworkModel(net, encode, cfg, steps=0)
        net.load_state_dict(state_dict)
        net.eval()
        model.scale = float(scale)
        strategy = regret_strategy_fn(model, shared["num_actions"], cache=dict(shared["sigma"]))
        part = sample_chunk(sample_game, strategy, traverser, cfg.mccfr_config(), pass_key, start, stop)
    keys = list(part)
    tensors = dict(zip(keys, table(keys)["x"])) if table is not None and keys else {}
    return part, tensors
