"""The parameters of a Koi-Koi run that learns from outcomes (``learn.outcome``: DMC or PPO) and their checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cfrlab.games.koikoi.learn.exit_config import check_fitting
from cfrlab.games.koikoi.learn.objective import MATCH_METHODS, METHODS
from cfrlab.games.koikoi.neural.act import OBJECTIVES

MAX_AVERAGE = 10**7
"""The longest horizon of the weights' moving average, in iterations."""
MAX_SEARCH_ROLLOUTS = 100_000
"""The most determinizations of the search opponent a decision."""
SEARCH_AGENTS = ("search", "cfr")
"""The search opponents' kinds (``OutcomeConfig.search_agent``)."""
SHARDS = 4
"""Shards an iteration's rounds are played in (by the workers); fixed, so the rows never depend on the workers."""


@dataclass(frozen=True)
class OutcomeConfig:
    """A run's parameters; a resumed run must have the same."""

    game: str = "koikoi"
    method: str = "dmc"
    rounds: int = 512
    """Self-play rounds per iteration (then one fit on their rows)."""
    explore: float | None = None
    """The learner's probability of a uniform legal action (None: 0.05 for dmc and afterstate, 0 for ppo, whose
    policy explores)."""
    self_share: float = 0.5
    """Share of rounds the learner plays itself; the others against greedy or a pool network, uniformly."""
    pool_every: int = 10
    """Iterations between snapshots of the learner into the opponent pool."""
    pool_size: int = 8
    """Most recent snapshots the opponents are drawn from."""
    batch: int = 1024
    epochs: int = 1
    """Passes over an iteration's rows."""
    lr: float = 3e-4
    hidden: tuple[int, int] = (256, 32)
    eval_deals: int = 200
    """Duplicate deals of each arena score against greedy (0: none)."""
    average: int = 1000
    """Horizon in iterations of the exponential moving average of the network's weights that the run writes,
    scores and keeps in its pool (0: the last iteration's weights). Self-play acts with the live network; the
    average removes the noise of the last steps (Polyak and Juditsky 1992; SWA, Izmailov et al. 2018)."""
    init: str | None = None
    """A weights file (or a folder holding ``weights.npz``) of this method's head and widths that a new run starts
    from instead of fresh weights: a run continued at another step size, as a learning-rate decay on a plateau."""
    objective: str = "points"
    """What the learned values are: the round's points, or (``match``, afterstate only) the match-win probability
    of the match state a round leads to, each round given a place in a match (``rollout.match_contexts``)."""
    warmup: int = 0
    """With ``objective`` match: iterations at the start in which every network plays by its points values
    (``act.HEAD_AFTER``), as the ``init`` file was trained to, while the win output learns their match-win
    probabilities: the policy of an untrained win output would play at random."""

    td_lambda: float = 1.0
    """The lambda of the points targets' lambda-returns (``rollout``): 1, the round's final points (Monte Carlo);
    below 1, the network's own values at the mover's later rows mixed in (TD(lambda), less variance)."""

    search_share: float = 0.0
    """Share of the rounds played against a determinized search (``rollout._best_action``) instead: the pool's
    strongest kind of opponent, so that the policy learns to play against search-like play as well."""
    search_rollouts: int = 32
    """The search opponent's determinizations a decision."""
    search_agent: str = "search"
    """Whose playouts that search plays: ``search``'s (greedy) or ``cfr``'s (greedy, with the shipped MCCFR
    blueprint's koi-koi/stop decisions, ``players.cfr.decide_table``)."""

    def __post_init__(self) -> None:
        if self.explore is None:  # frozen: the one field derived from another
            object.__setattr__(self, "explore", 0.0 if self.method == "ppo" else 0.05)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        defaults = (("average", 0), ("init", None), ("objective", "points"), ("warmup", 0), ("td_lambda", 1.0),
                    ("search_share", 0.0), ("search_rollouts", 32), ("search_agent", "search"))
        for name, off in defaults:  # a run's identity before these options existed
            if d[name] == off:
                del d[name]
        return d


def check_config(config: OutcomeConfig) -> None:
    """One clear ``ValueError`` for a parameter no run can use."""
    if config.method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)} to learn from outcomes, got {config.method!r}")
    if config.objective not in OBJECTIVES:
        raise ValueError(f"--objective must be one of {', '.join(OBJECTIVES)}, got {config.objective!r:.40}")
    if config.warmup < 0 or (config.warmup and config.objective != "match"):
        raise ValueError(f"--warmup is a count of iterations (>= 0) of --objective match, got {config.warmup}")
    if not 0.0 <= config.search_share <= 1.0 or not 1 <= config.search_rollouts <= MAX_SEARCH_ROLLOUTS:
        raise ValueError(f"--search-share must be in [0, 1] and --search-rollouts in 1..{MAX_SEARCH_ROLLOUTS}, got "
                         f"{config.search_share} and {config.search_rollouts}")
    if config.search_agent not in SEARCH_AGENTS:
        raise ValueError(f"--search-agent must be one of {', '.join(SEARCH_AGENTS)}, got {config.search_agent!r:.40}")
    if not 0.0 <= config.td_lambda <= 1.0:
        raise ValueError(f"--td-lambda must be in [0, 1], got {config.td_lambda}")
    if config.objective == "match" and config.method not in MATCH_METHODS:
        raise ValueError(f"--objective match learns afterstate values (--method {', '.join(MATCH_METHODS)}), not "
                         f"--method {config.method}, whose action head speaks in points")
    for name in ("rounds", "pool_every", "pool_size", "batch", "epochs"):
        if getattr(config, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(config, name)}")
    if not 0 <= config.average <= MAX_AVERAGE:
        raise ValueError(f"--average must be 0 (none) .. {MAX_AVERAGE:,} iterations, got {config.average}")
    explore = float(config.explore or 0.0)
    if not 0.0 <= explore < 1.0 or not 0.0 <= config.self_share <= 1.0:
        raise ValueError(f"explore must be in [0, 1) and self_share in [0, 1], got {explore}, {config.self_share}")
    check_fitting(config.lr, config.hidden, config.eval_deals)
