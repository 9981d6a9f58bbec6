"""The samplers of Online Outcome Sampling (``cfrlab.solvers.oos``) and its configuration.

Lisy, Lanctot & Bowling 2015 (seed 000 sec. 8): a pass is targeted with probability delta; ``TargetedSampler``
steers a targeted pass through a ``Target``'s histories (IST, PST), ``ConditionedSampler`` through a
``ConditionedTarget``, drawing the opening chance outcomes from the game's ``DealProposal`` (seed 000 sec.
10.1). Both report each draw with the probability of the mixture delta q_T + (1 - delta) q_U, so the MCCFR
walker's arithmetic gives unbiased importance weights (``cfrlab.solvers.oos``'s docstring says how).
"""

from __future__ import annotations

import dataclasses
from typing import cast

import numpy as np

from cfrlab.game import GameDefinitionError, State
from cfrlab.solvers.mccfr import arithmetic as ar
from cfrlab.solvers.mccfr.config import MCCFRConfig
from cfrlab.solvers.mccfr.mixture import mix_draw, restrict
from cfrlab.solvers.mccfr.sampling import Sampler, Walker
from cfrlab.solvers.mccfr.streams import pick
from cfrlab.solvers.oos.targets import ConditionedTarget, Target


@dataclasses.dataclass(frozen=True)
class OOSConfig(MCCFRConfig):
    """Online Outcome Sampling: outcome sampling with targeting (Lisy, Lanctot & Bowling 2015)."""

    sampling: str = "outcome"
    """Fixed to 'outcome': OOS samples one terminal history per traversal."""
    epsilon: float = 0.6
    """Exploration of the searcher's own sampling policy (the paper's 0.6)."""
    path: str = "auto"
    """'tree' (numba over the compiled tree, ``oos.tree_walk``), 'generic' (game protocol), 'auto' (tree if small)."""
    delta: float = 0.9
    """Targeting probability: the share of samples steered through the current infoset (the paper's 0.9)."""
    targeting: str = "ist"
    """'ist' (information-set targeting) or 'pst' (public-subgame targeting: every history of the infoset's
    public state, for games that define ``State.public_state_key``)."""
    expansion: str = "incremental"
    """'incremental' (the paper: a pass stores at most one new infoset) or 'full' (every visited infoset)."""
    deal: str = "conditioned"
    """'conditioned': the game-protocol path draws the opening chance outcomes from the game's conditioned deal
    where it offers one (seed 000 sec. 10.1); 'enumerated': it walks the tree to the target's histories (as the
    compiled-tree path always does)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sampling != "outcome":
            raise ValueError("OOS is outcome sampling: sampling='outcome'")
        if not 0.0 <= self.delta <= 1.0:
            raise ValueError(f"delta must be in [0, 1], got {self.delta}")
        if self.targeting not in ("ist", "pst"):
            raise ValueError(f"targeting must be 'ist' or 'pst', got {self.targeting!r}")
        if self.expansion not in ("incremental", "full"):
            raise ValueError(f"expansion must be 'incremental' or 'full', got {self.expansion!r}")
        if self.deal not in ("conditioned", "enumerated"):
            raise ValueError(f"deal must be 'conditioned' or 'enumerated', got {self.deal!r}")
        if self.batch != 1 or self.workers != 1 or self.address is not None:
            raise ValueError("OOS runs one traversal per pass in one process (batch=1, workers=1)")
        if self.predictive:
            raise ValueError("OOS plays regret matching of its tables: it takes no predictive update")


class TargetedSampler(Sampler):
    """Outcome sampling, a share ``delta`` of the traversals steered through a ``Target``; draws reported with the
    mixture's probability (module docstring)."""

    def __init__(self, config: OOSConfig, target: Target | ConditionedTarget | None) -> None:
        super().__init__(config)
        self.delta = float(config.delta) if target is not None else 0.0
        self.target = target
        self.targeted = False
        self.path: list[int] = []
        self.wt = [0.0]
        self.wu = [1.0]
        self.beyond = [False]

    def start(self, walker: Walker) -> None:
        self.targeted = self.delta >= 1.0 or (self.delta > 0.0 and walker.uniform() < self.delta)
        self.path = []
        self.wt, self.wu = [self.delta], [1.0 - self.delta]
        self.beyond = [self.target is not None and () in self.target.members]

    def _allowed(self, d: int, actions: list[int]) -> np.ndarray:
        """1 for the actions of depth d that keep the history on the way to a history of the target."""
        if self.beyond[d]:
            return np.ones(len(actions))
        base = tuple(self.path[:d])
        prefixes = cast(Target, self.target).prefixes  # (ConditionedSampler has its own _allowed)
        return np.array([1.0 if base + (a,) in prefixes else 0.0 for a in actions])

    def _mix(self, d: int, actions: list[int], untargeted: np.ndarray) -> np.ndarray | None:
        """t_T over ``actions``: ``untargeted`` restricted to the allowed actions, renormalised
        (``mixture.restrict``); None where q_T(h) = 0."""
        if self.wt[d] == 0.0:
            return None
        tt = np.array(self._allowed(d, actions), dtype=np.float64)
        restrict(np.ascontiguousarray(untargeted, dtype=np.float64), tt, len(actions))
        return tt

    def _step(self, d: int, a: int, action: int, tt: np.ndarray | None, tu: float) -> float:
        """Record the draw of depth d; returns its mixture probability w_T t_T(a) + w_U t_U(a) (``mix_draw``)."""
        m, wt, wu = mix_draw(self.wt[d], self.wu[d], float(tt[a]) if tt is not None else 0.0, tu)
        self._push(d, action, wt, wu)
        return m

    def _push(self, d: int, action: int, wt: float, wu: float) -> None:
        """Append the draw of depth d and the posterior weights of the two schemes after it."""
        del self.path[d:], self.wt[d + 1:], self.wu[d + 1:], self.beyond[d + 1:]
        self.path.append(action)
        self.wt.append(wt)
        self.wu.append(wu)
        self.beyond.append(self.beyond[d] or self._reached())

    def _reached(self) -> bool:
        """Whether the history drawn so far (``path``) is one of the target's."""
        return self.target is not None and tuple(self.path) in self.target.members

    def _draw(self, tt: np.ndarray | None, tu: np.ndarray, walker: Walker) -> int:
        return int(pick(tt if self.targeted and tt is not None else tu, walker.uniform()))

    def chance(self, walker: Walker, state: State, d: int) -> tuple[int, float]:
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        tu = np.array([p for _, p in outcomes], dtype=np.float64)
        tt = self._mix(d, actions, tu)
        c = self._draw(tt, tu, walker)
        return actions[c], self._step(d, c, actions[c], tt, float(tu[c])) / tu[c]

    def other(self, walker: Walker, state: State, d: int, sigma: np.ndarray) -> tuple[int, float]:
        actions = state.legal_actions()
        tt = self._mix(d, actions, sigma)
        a = self._draw(tt, sigma, walker)
        return a, self._step(d, a, actions[a], tt, float(sigma[a])) / sigma[a]

    def traverser(self, walker: Walker, state: State, d: int, sigma: np.ndarray) -> bool:
        actions = state.legal_actions()
        F, na = walker.frames, len(sigma)
        tu = self.eps / na + (1.0 - self.eps) * sigma
        tt = self._mix(d, actions, tu)
        if self.targeted and tt is not None:
            a = int(pick(tt, walker.uniform()))
            F[ar.CHOSEN, d, :na] = 0.0
            F[ar.CHOSEN, d, a] = 1.0
            rho_u = tu[a] / tu.sum()
        else:  # the same draw, the same numbers, as outcome sampling's
            super().traverser(walker, state, d, sigma)
            a = int(np.flatnonzero(F[ar.CHOSEN, d, :na])[0])
            rho_u = F[ar.RHO, d, a]
        F[ar.RHO, d, a] = self._step(d, a, actions[a], tt, float(rho_u))
        return False  # one action followed


class ConditionedSampler(TargetedSampler):
    """``TargetedSampler`` whose targeted scheme draws the opening chance outcomes from the game's proposal
    (module docstring). ``track[d]``: the history of depth d can still reach the infoset (the targeted scheme
    steers there); off the track it samples as the untargeted scheme."""

    def __init__(self, config: OOSConfig, target: ConditionedTarget) -> None:
        super().__init__(config, target)
        self.deal = target.deal
        self.track = [True]
        self.cont: tuple[int, ...] = ()

    def start(self, walker: Walker) -> None:
        super().start(walker)
        self.track = [True]
        if self.deal.length == 0:
            self.cont = tuple(self.deal.continuation(()))
            self.beyond[0] = not self.cont

    def _allowed(self, d: int, actions: list[int]) -> np.ndarray:
        if self.beyond[d]:
            return np.ones(len(actions))
        j = d - self.deal.length
        nxt = self.cont[j] if self.track[d] and 0 <= j < len(self.cont) else None
        return np.array([1.0 if a == nxt else 0.0 for a in actions])

    def _push(self, d: int, action: int, wt: float, wu: float) -> None:
        length = self.deal.length
        if d < length:
            on = self.track[d] and wt > 0.0
        else:
            j = d - length
            on = self.track[d] and j < len(self.cont) and self.cont[j] == action
        del self.track[d + 1:]
        self.track.append(on)
        if on and d + 1 == length:
            self.cont = tuple(self.deal.continuation(tuple(self.path[:d]) + (action,)))
        super()._push(d, action, wt, wu)

    def _reached(self) -> bool:
        n = len(self.path)
        return self.track[n] and n == self.deal.length + len(self.cont)

    def chance(self, walker: Walker, state: State, d: int) -> tuple[int, float]:
        if d < self.deal.length and self.track[d]:
            return self._opening(walker, state, d)
        try:
            return super().chance(walker, state, d)
        except GameDefinitionError:  # outcomes that cannot be listed, off the infoset's histories: t_T = t_U
            self.track[d] = False
            action = self.deal.draw(state, walker.uniform)
            self._push(d, action, self.wt[d], self.wu[d])
            return action, 1.0

    def _opening(self, walker: Walker, state: State, d: int) -> tuple[int, float]:
        """An opening chance node: the proposal for a targeted sample, chance for the others; the ratio of the
        mixture's probability to f_c (sec. 10.1's weight, inverted)."""
        deal = self.deal
        if self.targeted:
            action = deal.propose(state, walker.uniform)
        else:
            try:
                outcomes = state.chance_outcomes()
            except GameDefinitionError:
                action = deal.draw(state, walker.uniform)
            else:
                probs = np.array([p for _, p in outcomes], dtype=np.float64)
                action = outcomes[int(pick(probs, walker.uniform()))][0]
        r = deal.ratio(state, action) if self.wt[d] > 0.0 else 0.0
        m, wt, wu = mix_draw(self.wt[d], self.wu[d], r, 1.0)
        self._push(d, action, wt, wu)
        return action, m

    def _decision(self, d: int) -> None:
        if d < self.deal.length:  # a decision inside the infoset's opening run: its deal cannot lead there
            self.track[d] = False

    def other(self, walker: Walker, state: State, d: int, sigma: np.ndarray) -> tuple[int, float]:
        self._decision(d)
        return super().other(walker, state, d, sigma)

    def traverser(self, walker: Walker, state: State, d: int, sigma: np.ndarray) -> bool:
        self._decision(d)
        return super().traverser(walker, state, d, sigma)


def sampler_for(target: Target | ConditionedTarget | None, config: OOSConfig) -> TargetedSampler:
    """The sampler of a pass targeted at ``target`` (None: untargeted)."""
    return ConditionedSampler(config, target) if isinstance(target, ConditionedTarget) else \
        TargetedSampler(config, target)
