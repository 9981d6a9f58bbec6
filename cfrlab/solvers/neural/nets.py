"""Networks shared by the neural solvers: MLPs, an attention-equipped recurrent sequence encoder, tokens.

* ``MLP``: fully connected layers over a fixed-size input (e.g. ``information_state_tensor``),
  optional layer norm, one linear output head. Deep CFR, NFSP and the fully connected
  variant of Double Neural CFR use it.
* ``SequenceEncoder``: the information state as a token sequence, embedded, read by a
  unidirectional GRU or LSTM, then pooled by additive attention (Bahdanau-style:
  ``score_t = v . tanh(W h_t)``, softmax over the real tokens only) and concatenated with
  the last real hidden state. Double Neural CFR (Li et al., arXiv 1812.10607, sec. 4.1) uses
  an attention-equipped recurrent network for both its RegretSumNetwork and its
  AvgStrategyNetwork; seed 000 sec. 9-10 argues for it on variable-length infosets
  (Koi-Koi).
* ``SequenceNet``: ``SequenceEncoder`` followed by an ``MLP`` head.
* ``key_tokens`` / ``pad_tokens``: the token sequence of an information state.

Tokens (a documented choice): the UTF-8 bytes of ``information_state_key(player)``, each
shifted by one so that 0 is padding (vocabulary ``TOKEN_VOCAB`` = 257). The key is the only
sequence every cfrlab game (Kuhn, Leduc, Koi-Koi, OpenSpiel games through the adapter)
provides, it has perfect recall by contract, and it lists cards and actions in the order they
were seen, so a character-level reader sees the same information as a tracked sequence of
events, without the traversal having to carry one. Deviation from the paper: Li et al. feed
one token per card or action; our characters are finer-grained (a card ``Qh`` is two
tokens), which costs sequence length, not information.

Randomness: every module takes a ``generator`` (``torch.Generator`` or ``np.random.Generator``)
and initialises its parameters from it (``init_parameters``); the throwaway default initialisation
of the PyTorch layers runs inside ``torch.random.fork_rng``, so the global torch RNG is left as it
was and never reseeded (no ``torch.manual_seed``; OpenSpiel's ``deep_cfr.MLP.__init__`` reseeds it).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from cfrlab.seeding import torch_generator

TOKEN_VOCAB: int = 257
"""Token ids: 0 = padding, 1 + byte for each UTF-8 byte of an information-state key."""

RECURRENT_CELLS: tuple[str, ...] = ("gru", "lstm")


def as_torch_generator(generator: torch.Generator | np.random.Generator) -> torch.Generator:
    """A torch Generator from either kind (numpy ones go through ``cfrlab.seeding.torch_generator``)."""
    if isinstance(generator, torch.Generator):
        return generator
    if isinstance(generator, np.random.Generator):
        return torch_generator(generator)
    raise TypeError(f"expected a torch.Generator or np.random.Generator, got {type(generator).__name__}")


def _global_rng_untouched() -> contextlib.AbstractContextManager[None]:
    """PyTorch layers draw throwaway initial weights from the global RNG; restore it afterwards."""
    return torch.random.fork_rng(devices=[])


@torch.no_grad()
def init_parameters(module: nn.Module, generator: torch.Generator) -> None:
    """Re-initialise every parameter of ``module`` from ``generator`` (PyTorch's default scales).

    Weights of layers with fan-in ``f`` (Linear, GRU, LSTM) are drawn from U(-1/sqrt(f), 1/sqrt(f)),
    as PyTorch does; embeddings from N(0, 1); layer-norm weights 1 and biases 0.
    """
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            bound = 1.0 / math.sqrt(sub.in_features)
            sub.weight.uniform_(-bound, bound, generator=generator)
            if sub.bias is not None:
                sub.bias.uniform_(-bound, bound, generator=generator)
        elif isinstance(sub, (nn.GRU, nn.LSTM)):
            bound = 1.0 / math.sqrt(sub.hidden_size)
            for param in sub.parameters(recurse=False):
                param.uniform_(-bound, bound, generator=generator)
        elif isinstance(sub, nn.Embedding):
            sub.weight.normal_(0.0, 1.0, generator=generator)
            if sub.padding_idx is not None:
                sub.weight[sub.padding_idx].zero_()
        elif isinstance(sub, nn.LayerNorm):
            if sub.weight is not None:
                sub.weight.fill_(1.0)
            if sub.bias is not None:
                sub.bias.zero_()


MAX_NETWORK_WEIGHTS = 100_000_000
"""Most weights one network may hold (400 MB of float32, before optimiser state): larger asks were a typo, and
torch's allocation error came as a traceback."""


def check_network_size(weights: int, layers: str) -> None:
    """Refuse, before torch allocates anything, a network of more than ``MAX_NETWORK_WEIGHTS`` weights."""
    if weights > MAX_NETWORK_WEIGHTS:
        raise ValueError(f"a network of {layers} would hold {weights:,} weights, more than {MAX_NETWORK_WEIGHTS:,}; "
                         "give smaller hidden sizes (such as 64,64)")


class MLP(nn.Module):
    """Fully connected network: ``[Linear -> (LayerNorm) -> ReLU] * len(hidden)`` then a linear head."""

    def __init__(
        self,
        input_size: int,
        hidden_sizes: Sequence[int],
        output_size: int,
        *,
        generator: torch.Generator | np.random.Generator,
        layer_norm: bool = False,
    ) -> None:
        super().__init__()
        if input_size <= 0 or output_size <= 0 or any(h <= 0 for h in hidden_sizes):
            raise ValueError(f"MLP sizes must be positive, got {input_size}, {list(hidden_sizes)}, {output_size}")
        widths = [input_size, *hidden_sizes, output_size]
        check_network_size(sum(a * b for a, b in zip(widths, widths[1:])), f"layers {list(hidden_sizes)}")
        layers: list[nn.Module] = []
        width = input_size
        with _global_rng_untouched():
            for hidden in hidden_sizes:
                layers.append(nn.Linear(width, hidden))
                if layer_norm:
                    layers.append(nn.LayerNorm(hidden))
                layers.append(nn.ReLU())
                width = hidden
            layers.append(nn.Linear(width, output_size))
        self.net = nn.Sequential(*layers)
        self.input_size, self.output_size = input_size, output_size
        init_parameters(self, as_torch_generator(generator))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def reset_parameters(self, generator: torch.Generator | np.random.Generator) -> None:
        """Fresh weights from ``generator`` (Deep CFR retrains from scratch each iteration)."""
        init_parameters(self, as_torch_generator(generator))


class SequenceEncoder(nn.Module):
    """Embedding -> unidirectional GRU/LSTM -> additive attention pooling, concatenated with the last state.

    Input: ``tokens`` (batch, length) int64 with 0 as padding, ``lengths`` (batch,) >= 1.
    Output: (batch, 2 * hidden_size). Because the recurrence is unidirectional, the output at
    the last real position ignores the padding after it, so no packing is needed.
    """

    def __init__(
        self,
        hidden_size: int = 64,
        *,
        generator: torch.Generator | np.random.Generator,
        cell: str = "gru",
        embedding_size: int = 32,
        vocab_size: int = TOKEN_VOCAB,
    ) -> None:
        super().__init__()
        if cell not in RECURRENT_CELLS:
            raise ValueError(f"cell must be one of {RECURRENT_CELLS}, got {cell!r}")
        if hidden_size <= 0:
            raise ValueError(f"hidden size must be positive, got {hidden_size}")
        check_network_size(4 * (embedding_size + hidden_size + 1) * hidden_size + hidden_size ** 2,
                           f"hidden size {hidden_size}")
        with _global_rng_untouched():
            self.embedding = nn.Embedding(vocab_size, embedding_size, padding_idx=0)
            rnn_cls = nn.GRU if cell == "gru" else nn.LSTM
            self.rnn = rnn_cls(embedding_size, hidden_size, batch_first=True)
            self.attention = nn.Linear(hidden_size, hidden_size)
            self.score = nn.Linear(hidden_size, 1, bias=False)
        self.hidden_size = hidden_size
        self.output_size = 2 * hidden_size
        init_parameters(self, as_torch_generator(generator))

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        outputs, _ = self.rnn(self.embedding(tokens))  # (B, L, H)
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        valid = positions.unsqueeze(0) < lengths.unsqueeze(1)  # (B, L)
        scores = self.score(torch.tanh(self.attention(outputs))).squeeze(-1)
        weights = torch.softmax(scores.masked_fill(~valid, float("-inf")), dim=1)
        context = torch.bmm(weights.unsqueeze(1), outputs).squeeze(1)  # (B, H)
        last = outputs[torch.arange(tokens.shape[0], device=tokens.device), lengths - 1]
        return torch.cat([context, last], dim=1)


class SequenceNet(nn.Module):
    """An information-state sequence to ``output_size`` numbers: ``SequenceEncoder`` + ``MLP`` head."""

    def __init__(
        self,
        output_size: int,
        *,
        generator: torch.Generator | np.random.Generator,
        hidden_size: int = 64,
        head_sizes: Sequence[int] = (64,),
        cell: str = "gru",
        embedding_size: int = 32,
    ) -> None:
        super().__init__()
        gen = as_torch_generator(generator)
        self.encoder = SequenceEncoder(hidden_size, generator=gen, cell=cell, embedding_size=embedding_size)
        self.head = MLP(self.encoder.output_size, head_sizes, output_size, generator=gen)
        self.output_size = output_size

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(tokens, lengths))

    def reset_parameters(self, generator: torch.Generator | np.random.Generator) -> None:
        init_parameters(self, as_torch_generator(generator))


def key_tokens(key: str) -> list[int]:
    """Token ids of an information-state key: 1 + each UTF-8 byte (0 is padding)."""
    data = key.encode("utf-8")
    if not data:
        return [1]  # an empty key still needs one position; byte 0 never appears in text keys
    return [b + 1 for b in data]


def pad_tokens(sequences: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token lists with 0: ``(tokens (B, max_len) int64, lengths (B,) int64)``."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    if lengths.size and lengths.min() < 1:
        raise ValueError("every token sequence needs at least one token")
    out = np.zeros((len(sequences), int(lengths.max()) if lengths.size else 1), dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = seq
    return torch.from_numpy(out), torch.from_numpy(lengths)
