"""Infoset models of Double Neural CFR (Li et al., ICLR 2020): a network, or in tests a table, from infoset keys
to one cumulative value per action id, and the inputs the networks read.

``NetworkModel`` is the RegretSumNetwork's form (an output scale that grows with the regrets, the output layer
absorbing each change so predictions do not move); ``PolarNetworkModel`` the AvgStrategyNetwork's (log of a
row's total and its distribution). The recurrent networks read infoset keys as tokens (``token_encoder``); the
MLP variant reads ``information_state_tensor``, noted by key as the sampler meets states (``TensorTable``,
``NotingGame``). The reasons for each choice are in ``double_neural_cfr``'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from cfrlab.game import Game, State
from cfrlab.solvers.neural.double_neural_config import DoubleNeuralCFRConfig
from cfrlab.solvers.neural.nets import MLP, SequenceNet, key_tokens, pad_tokens
from cfrlab.solvers.neural.training import array_sampler, fit, masked_log_softmax, masked_weighted_mse

CACHE_LIMIT = 1_000_000
"""Entries kept per cache (tensors, states, strategies) before it is emptied."""


class InfosetModel(Protocol):
    """What Double Neural CFR needs of an RSN or ASN: predict rows, fit rows."""

    def predict(self, keys: Sequence[str], masks: NDArray[np.bool_]) -> NDArray[np.float64]:
        """(len(keys), max_actions) predicted cumulative values over action ids (legal entries ``masks``)."""

    def fit(self, keys: Sequence[str], targets: NDArray[np.float64], masks: NDArray[np.bool_],
            rng: np.random.Generator) -> float:
        """Move the predictions at ``keys`` towards ``targets`` (legal entries ``masks``); return the loss."""


Encoder = Callable[[Sequence[str]], dict[str, np.ndarray]]


def _output_layer(net: MLP | SequenceNet) -> nn.Linear:
    mlp = net.head if isinstance(net, SequenceNet) else net
    return cast(nn.Linear, mlp.net[-1])  # an MLP ends in its output layer


def _forward(net: nn.Module, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    if "x" in batch:
        return net(batch["x"])
    lengths = batch["lengths"]
    return net(batch["tokens"][:, : int(lengths.max())], lengths)


class NetworkModel:
    """A network as an infoset model, with an output scale (predictions = scale * net(input))."""

    def __init__(self, net: MLP | SequenceNet, encode: Encoder, config: DoubleNeuralCFRConfig, steps: int) -> None:
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


def make_net(config: DoubleNeuralCFRConfig, num_actions: int, tensor_size: int,
             generator: np.random.Generator) -> MLP | SequenceNet:
    """The configured network: an MLP on tensors, or a GRU/LSTM encoder on key tokens."""
    if config.network == "mlp":
        return MLP(tensor_size, config.hidden, num_actions, generator=generator, layer_norm=config.layer_norm)
    return SequenceNet(num_actions, generator=generator, hidden_size=config.hidden_size, head_sizes=config.hidden,
                       cell=config.network, embedding_size=config.embedding_size)


def token_encoder(keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Sequence-network inputs of infoset keys: padded tokens and lengths."""
    tokens, lengths = pad_tokens([key_tokens(k) for k in keys])
    return {"tokens": tokens.numpy(), "lengths": lengths.numpy()}


class TensorTable:
    """``information_state_tensor`` by infoset key, filled as states are seen (the MLP variant's input)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.states: dict[str, tuple[State, int]] = {}
        self.tensors: dict[str, NDArray[np.float32]] = {}

    def note(self, key: str, state: State, player: int) -> None:
        if key not in self.tensors and key not in self.states:
            if len(self.states) >= CACHE_LIMIT:
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
                if len(self.tensors) >= CACHE_LIMIT:
                    self.tensors.clear()
                tensor = self.tensors[key] = np.asarray(state.information_state_tensor(player), dtype=np.float32)
            out[row] = tensor
        return {"x": out}


class NotingState(State):
    """A state that reports each infoset key it is asked for to a ``TensorTable`` (MLP variant only)."""

    __slots__ = ("inner", "table")

    def __init__(self, inner: State, table: TensorTable) -> None:
        self.inner, self.table = inner, table

    def current_player(self) -> int:
        return self.inner.current_player()

    def legal_actions(self) -> list[int]:
        return self.inner.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def child(self, action: int) -> State:
        return NotingState(self.inner.child(action), self.table)

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


class NotingGame(Game):
    """``game`` with ``NotingState`` roots (same spec and fingerprint)."""

    def __init__(self, inner: Game, table: TensorTable) -> None:
        self.inner, self.table = inner, table
        self.name, self.params = inner.name, inner.params

    @property
    def info(self) -> Any:
        return self.inner.info

    def new_initial_state(self) -> State:
        return NotingState(self.inner.new_initial_state(), self.table)

    def information_state_tensor_size(self) -> int:
        return self.inner.information_state_tensor_size()

    def spec(self) -> str:
        return self.inner.spec()

    def fingerprint(self) -> str:
        return self.inner.fingerprint()
