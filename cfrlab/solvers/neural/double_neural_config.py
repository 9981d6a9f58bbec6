"""The options of Double Neural CFR (Li, Hu, Ge, Jiang, Qi & Song, ICLR 2020): its MCCFR mini-batch's and its
networks' (read by the solver in ``double_neural_cfr`` and by the infoset models in ``infoset_models``)."""

from __future__ import annotations

import dataclasses

from cfrlab.solvers.mccfr import MCCFRConfig
from cfrlab.solvers.mccfr.config import SamplingConfig
from cfrlab.solvers.neural.training import normalise_layers

NETWORKS = ("gru", "lstm", "mlp")


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
