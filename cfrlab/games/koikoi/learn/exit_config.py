"""The parameters of a Koi-Koi expert-iteration run (``learn.exit``) and the pieces it is built from: the run's
configuration and its checks, the game and the single-round game it is scored on, the seeds of its streams, and
the search a generation plays."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cfrlab.agents.limits import MAX_PLAYOUTS, MAX_SECONDS_PER_MOVE
from cfrlab.games.koikoi.players.neural import HALVING, PRUNE


@dataclass(frozen=True)
class ExitConfig:
    """The parameters of an expert-iteration run; a resumed run must have the same."""

    game: str = "koikoi"
    decisions: int = 50_000
    """Self-play decisions (with 2+ legal actions) per generation."""
    chunk: int = 10_000
    """Decisions per self-play step (a checkpoint after each)."""
    rollouts: int = 16
    """Self-play search: determinizations per decision (every action played on each)."""
    cutoff: int | None = None
    """Half-turns a playout plays after the root's before the network values its position (generations >= 1);
    None: ``default_cutoff`` of the game, filled in when the configuration is made."""
    window: int = 3
    """Generations of shards each fit reads (the most recent)."""
    steps: int = 2_000
    """Optimiser steps per fit."""
    batch: int = 256
    lr: float = 1e-3
    hidden: tuple[int, int] = (128, 32)
    """The network's widths (``model.DEFAULT_HIDDEN``, the size that evaluates within 20 us)."""
    eval_budget: str = "20ms"
    """Arena budget per decision of both searches: ``Tms`` (CPU milliseconds) or a number of playouts."""
    eval_deals: int = 200

    def __post_init__(self) -> None:
        if self.cutoff is None:  # frozen: the one field derived from another
            object.__setattr__(self, "cutoff", default_cutoff(koikoi_game(self.game)))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def parse_budget(text: str) -> dict[str, Any]:
    """``SearchConfig`` keywords of an arena budget: ``20ms`` (seconds=0.02) or ``64`` (rollouts=64)."""
    text = text.strip()
    if text.endswith("ms") and _positive_number(text[:-2], MAX_SECONDS_PER_MOVE * 1000.0):
        return {"seconds": float(text[:-2]) / 1000.0}
    if text.isdigit() and 1 <= int(text) <= MAX_PLAYOUTS:
        return {"rollouts": int(text)}
    raise ValueError(f"an arena budget is Tms (CPU milliseconds per decision, at most "
                     f"{MAX_SECONDS_PER_MOVE * 1000:.0f}) or a number of playouts (at most {MAX_PLAYOUTS:,}), got "
                     f"{text!r}")


def _positive_number(text: str, high: float) -> bool:
    """``text`` is a finite number in (0, ``high``] (the agent specs' bounds, ``cfrlab.agents.limits``)."""
    try:
        return 0 < float(text) <= high
    except ValueError:
        return False


def check_config(config: ExitConfig) -> None:
    """One clear ``ValueError`` for a parameter no run can use."""
    for name in ("decisions", "chunk", "rollouts", "window", "steps", "batch"):
        if getattr(config, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(config, name)}")
    if config.cutoff is None or config.cutoff < 1:
        raise ValueError(f"cutoff must be >= 1 half-turn, got {config.cutoff}")
    check_fitting(config.lr, config.hidden, config.eval_deals)
    parse_budget(config.eval_budget)


def check_fitting(lr: float, hidden: tuple[int, ...], eval_deals: int) -> None:
    """One clear ``ValueError`` for a learning rate, network widths or arena deals no run can use."""
    if not 0 < lr < math.inf:
        raise ValueError(f"lr must be positive, got {lr}")
    if len(hidden) != 2 or min(hidden) < 1:
        raise ValueError(f"hidden must be two positive layer sizes, got {hidden}")
    if eval_deals < 0:
        raise ValueError(f"eval_deals must be >= 0, got {eval_deals}")


def koikoi_game(spec: str) -> Any:
    """The Koi-Koi game of ``spec``; ``ValueError`` for any other."""
    from cfrlab.registry import load_game

    game = load_game(spec)
    if not game.name.startswith("koikoi") or not hasattr(game, "rules"):
        raise ValueError(f"expert iteration trains on Koi-Koi (koikoi, koikoi_mini_tsukifuda, ...), not {spec}")
    return game


def default_cutoff(game: Any) -> int:
    """The cutoff of a run that names none: half a round's half-turns, i.e. the hand size. That is 8 on full rounds
    (the ``neural`` agent's ``CUTOFF``) and 2 on the mini variants' rounds of 4, the best cut measured on each
    (BENCHMARKS.md: on ``koikoi_mini_tsukifuda``, exploitability 0.74 cut after 1 half-turn, 0.10 after 2, 0.21
    after 3; a cut as long as the round never asks the network)."""
    return int(game.rules.hand_size)


def round_game(game: Any) -> Any:
    """Single rounds of ``game``'s rules: where generations are scored (a match per deal would cost 12 rounds)."""
    from dataclasses import replace

    from cfrlab.games.koikoi.rules.game import game_for_rules

    return game if game.rules.rounds == 1 else game_for_rules(replace(game.rules, rounds=1))


def seed_of(seed: int, *path: int) -> int:
    """A 63-bit seed drawn from ``seed`` and a path (generation, chunk): independent streams, fixed by the path."""
    return int(np.random.SeedSequence([seed, *path]).generate_state(2, np.uint64)[0] >> np.uint64(1))


def search_agent(rules: Any, budget: dict[str, Any], cutoff: int | None, weights_path: str | None) -> Any:
    """The search of a generation: plain (``weights_path`` None) or cut after ``cutoff`` half-turns and valued by
    the network in ``weights_path`` (the ``neural`` agent's search). A module function so that
    ``functools.partial`` of it crosses processes."""
    from cfrlab.games.koikoi.players.search import SearchAgent, SearchConfig

    if weights_path is None:
        return SearchAgent(rules, SearchConfig(**budget))
    from cfrlab.games.koikoi.neural.cut import NetEvaluator
    from cfrlab.games.koikoi.neural.weights import load_weights

    weights, _ = load_weights(weights_path)
    return SearchAgent(rules, SearchConfig(cutoff=cutoff, halving=HALVING, prune=PRUNE, **budget),
                       evaluator=NetEvaluator(weights))
