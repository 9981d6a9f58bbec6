"""A hold'em strategy judged in the real game, in mb/h: Local Best Response and duplicate head-to-head play.

* ``RealGameStrategy``: the action probabilities of a strategy file's policy at
  real ``holdem`` states, for an abstract strategy (``holdem_ehs2``, through the
  player's bucket sequence) or a strategy of a small real game itself.
* ``lbr_in_real_game``: Local Best Response (Lisý & Bowling 2017), a lower bound
  on the strategy's real exploitability; deal i is drawn from the i-th child of
  one ``SeedSequence``, so the deals may be split over Ray workers and the result
  is the same for any number of them; a ``DealLog`` keeps each deal's return as
  it ends, so that a long run continues after an interruption.
* ``exact_real_exploitability``: on a variant whose real game compiles, the
  strategy lifted to every real infoset (``tabulate_policy``) and its exact
  exploitability, which LBR's bound must stay below.
* ``versus``: the strategy against named agents (``call``, ``raise``,
  ``strength``, ...) through ``cfrlab.eval.arena`` with duplicate deals.

Every figure is an ``Interval`` in chips (mean and normal 95 % interval);
``milli_bets`` converts one to mb/h (thousandths of a small bet per hand).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from cfrlab.agents.base import PolicyAgent, make_agent
from cfrlab.eval.arena import RAY_BATCHES, Interval, arena
from cfrlab.eval.arena_log import open_arena_log
from cfrlab.game import Game
from cfrlab.games.holdem.abstraction.abstract_game import AbstractHoldem
from cfrlab.games.holdem.eval.lbr import lbr_returns
from cfrlab.games.holdem.eval.lbr_log import DealLog, check_deals
from cfrlab.games.holdem.players.agents import AbstractionAgent, betting_history
from cfrlab.games.holdem.rules.game import HoldemState, LimitHoldem
from cfrlab.policy import TabularPolicy


class RealGameStrategy:
    """A strategy file's policy played in the real hold'em game (picklable, for Ray workers)."""

    def __init__(self, game: Game, policy: TabularPolicy) -> None:
        if isinstance(game, AbstractHoldem):
            self.real: LimitHoldem = game.real_game
            self.agent: Any = AbstractionAgent(game, policy, name="strategy")
        elif isinstance(game, LimitHoldem):
            self.real = game
            self.agent = PolicyAgent(policy, name="strategy")
        else:
            raise ValueError(f"LBR and head-to-head play take a limit hold'em strategy (holdem or holdem_ehs2), "
                             f"not one for {game.spec()}")
        self.policy = policy

    def key(self, state: HoldemState) -> str:
        """The policy's key for the acting player of ``state``."""
        if isinstance(self.agent, AbstractionAgent):
            return self.agent.key(state)
        return state.information_state_key()

    def __call__(self, state: HoldemState) -> Mapping[int, float]:
        key = self.key(state)
        try:
            return self.policy.action_probabilities(key)  # one lookup of the key's row, not two
        except KeyError:
            pass
        legal = state.legal_actions()  # an infoset a sampling solver never reached: uniform, as `cfrlab eval`
        return {a: 1.0 / len(legal) for a in legal}

    def range_probs(self, state: HoldemState, holes: Sequence[tuple[int, ...]], live: np.ndarray) -> np.ndarray | None:
        """The action probabilities (fold, call, raise columns) of the acting player of ``state`` holding each of
        ``holes`` (zero rows where ``live`` is False): what ``self(state)`` gives with each hand, for a whole range
        at once by the abstract game's row arithmetic; None for a policy whose rows are not the abstract game's."""
        rows_of = getattr(self.policy.index, "rows", None)
        if not isinstance(self.agent, AbstractionAgent) or not hasattr(rows_of, "rows_at"):
            return None
        boards = state.board_by_round()
        sequences = np.array([self.agent.bucket_sequence(holes[int(i)], boards) for i in np.flatnonzero(live)],
                             dtype=np.int64)
        out = np.zeros((len(holes), self.policy.probs.shape[1]))
        out[live] = self.policy.probs[rows_of.rows_at(betting_history(state), sequences)]  # type: ignore[union-attr]
        return out

    def milli_bets(self, interval: Interval) -> dict[str, float]:
        """``interval`` (chips per hand) in mb/h."""
        scale = self.real.milli_bets_per_chip
        return {"mean": interval.mean * scale, "low": interval.low * scale, "high": interval.high * scale}


def exact_real_exploitability(strategy: RealGameStrategy) -> float:
    """The strategy's exact exploitability in the real game (NashConv / 2, chips); the real game must compile
    (small variants only: ``TreeTooLarge`` otherwise)."""
    from cfrlab.eval.metrics import exploitability
    from cfrlab.policy_tabulate import tabulate_policy
    from cfrlab.tree import load_tree

    tree = load_tree(strategy.real)

    def probs(states: Sequence[HoldemState]) -> np.ndarray:
        out = np.zeros((len(states), 3))
        for i, state in enumerate(states):
            for action, p in strategy(state).items():
                out[i, action] = p
        return out

    return float(exploitability(tree, tabulate_policy(strategy.real, tree, probs)))


def _lbr_one(strategy: RealGameStrategy, seed: np.random.SeedSequence, rollouts: int) -> float:
    return lbr_returns(strategy.real, strategy, [seed], rollouts)[0]


def verify_deals(strategy: RealGameStrategy, log: DealLog | None, hands: int, rollouts: int, seed: int) -> None:
    """Check the deals ``log`` resumes (``lbr_log.check_deals``: within the game's payoffs, a sample played again
    alike), once: before a run says how many it takes."""
    done = {i: chips for i, chips in (log.done if log else {}).items() if i < hands}
    if log is None or log.verified or not done:
        return
    seeds = np.random.SeedSequence(seed).spawn(hands)
    info = strategy.real.info
    check_deals(log.path, done, max(abs(info.min_utility), abs(info.max_utility)),
                lambda i: _lbr_one(strategy, seeds[i], rollouts))
    log.verified = True


def lbr_in_real_game(strategy: RealGameStrategy, hands: int, rollouts: int = 200, seed: int = 0, workers: int = 1,
                     address: str | None = None, on_deal: Callable[[int], None] | None = None,
                     log: DealLog | None = None) -> Interval:
    """LBR's mean return per deal (both seats) against ``strategy``, chips, with a 95 % interval.

    ``on_deal(n)`` hears the deals played so far (progress): after each deal in one process, after each of
    ``RAY_BATCHES`` batches on Ray; the result is the same either way. With ``log``, the deals it holds are not
    played again and each new one is added to it as it ends (an interrupted run continues where it stopped)."""
    from cfrlab.distributed import WorkerPool

    if hands < 1 or rollouts < 1:
        raise ValueError(f"LBR needs at least one hand and one rollout, got {hands} hands, {rollouts} rollouts")
    seeds = np.random.SeedSequence(seed).spawn(hands)
    verify_deals(strategy, log, hands, rollouts, seed)
    done = {i: chips for i, chips in (log.done if log else {}).items() if i < hands}
    todo = [i for i in range(hands) if i not in done]
    if on_deal is not None and done:
        on_deal(len(done))
    step = 1 if workers == 1 and address is None else max(workers, -(-len(todo) // RAY_BATCHES))
    with WorkerPool(workers, address=address) as pool:
        shared = pool.put(strategy) if todo else None
        for start in range(0, len(todo), step):
            batch = todo[start:start + step]
            for i, chips in zip(batch, pool.map(_lbr_one, [(shared, seeds[i], rollouts) for i in batch])):
                done[i] = chips
                if log is not None:
                    log.add(i, chips)
            if on_deal is not None:
                on_deal(len(done))
    return Interval.of([done[i] for i in range(hands)])


def versus(strategy: RealGameStrategy, opponents: Sequence[str], hands: int, seed: int = 0, workers: int = 1,
           address: str | None = None, on_deal: Callable[[str, int], None] | None = None,
           log_path: str | os.PathLike[str] | None = None) -> dict[str, Interval]:
    """The strategy's mean return per deal (duplicate: both seats) against each named agent, chips;
    ``on_deal(name, n)`` hears the deals played so far against each (progress). ``log_path`` (one opponent) keeps
    each deal as it ends (``cfrlab.eval.arena_log``: a log an interrupted run left is continued)."""
    agents = {name: make_agent(name, strategy.real) for name in opponents}  # every name checked before any play
    if log_path is not None and len(agents) != 1:
        raise ValueError("a versus log keeps the deals of one opponent")
    logs = {name: open_arena_log(log_path, strategy.real, strategy.agent, agent, seed, True)
            for name, agent in agents.items()}

    def heard(name: str) -> Callable[[int], None] | None:
        return None if on_deal is None else functools.partial(on_deal, name)

    return {name: arena(strategy.real, strategy.agent, agent, deals=hands, seed=seed, duplicate=True,
                        workers=workers, address=address, on_deal=heard(name), log=logs[name]).return_a
            for name, agent in agents.items()}
