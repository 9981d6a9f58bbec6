"""Shared networks: seeded initialisation, shapes, padding invariance of the sequence encoder, learning."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cfrlab.solvers.neural.nets import MLP, SequenceNet, key_tokens, pad_tokens  # noqa: E402


def _params(module: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in module.parameters()]


def test_mlp_same_seed_same_weights_and_global_rng_untouched() -> None:
    before = torch.random.get_rng_state()
    a = MLP(5, [8, 8], 3, generator=np.random.default_rng(1), layer_norm=True)
    b = MLP(5, [8, 8], 3, generator=np.random.default_rng(1), layer_norm=True)
    c = MLP(5, [8, 8], 3, generator=np.random.default_rng(2), layer_norm=True)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert all(torch.equal(x, y) for x, y in zip(_params(a), _params(b)))
    assert not all(torch.equal(x, y) for x, y in zip(_params(a), _params(c)))
    assert a(torch.zeros(4, 5)).shape == (4, 3)


def test_mlp_reset_parameters_reproducible() -> None:
    net = MLP(3, [4], 2, generator=np.random.default_rng(0))
    net.reset_parameters(np.random.default_rng(7))
    first = _params(net)
    net.reset_parameters(np.random.default_rng(7))
    assert all(torch.equal(x, y) for x, y in zip(first, _params(net)))


def test_mlp_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError):
        MLP(0, [4], 2, generator=np.random.default_rng(0))


def test_key_tokens_and_padding() -> None:
    assert key_tokens("0:K") == [ord("0") + 1, ord(":") + 1, ord("K") + 1]
    tokens, lengths = pad_tokens([key_tokens("ab"), key_tokens("abcd")])
    assert tokens.shape == (2, 4) and lengths.tolist() == [2, 4]
    assert tokens[0, 2:].tolist() == [0, 0]


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_sequence_net_ignores_padding(cell: str) -> None:
    """A sequence gives the same output alone or padded in a batch with a longer one."""
    net = SequenceNet(3, generator=np.random.default_rng(0), hidden_size=16, cell=cell)
    alone = net(*pad_tokens([key_tokens("0:Q:pb")]))
    batched = net(*pad_tokens([key_tokens("0:Q:pb"), key_tokens("1:K:pbpbpbpb/Qh:rr")]))
    torch.testing.assert_close(alone[0], batched[0])
    other = net(*pad_tokens([key_tokens("0:K:pb")]))
    assert not torch.allclose(alone, other)


def test_sequence_net_learns_key_dependent_targets() -> None:
    """Distinct Kuhn keys map to distinct targets: the encoder can fit them (a network that cannot read fails)."""
    keys = ["0:J:", "0:Q:", "0:K:", "1:J:p", "1:Q:b", "0:K:pb"]
    rng = np.random.default_rng(3)
    targets = torch.as_tensor(rng.normal(size=(len(keys), 2)), dtype=torch.float32)
    net = SequenceNet(2, generator=rng, hidden_size=32)
    tokens, lengths = pad_tokens([key_tokens(k) for k in keys])
    opt = torch.optim.Adam(net.parameters(), lr=3e-2)
    for _ in range(100):
        opt.zero_grad()
        loss = torch.mean((net(tokens, lengths) - targets) ** 2)
        loss.backward()
        opt.step()
    assert loss.item() < 1e-2
