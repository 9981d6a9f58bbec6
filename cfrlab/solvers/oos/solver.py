"""Online Outcome Sampling (OOS): outcome-sampling MCCFR from the root, steered through the current infoset.

Lisy, Lanctot and Bowling, "Online Monte Carlo counterfactual regret
minimization for search in imperfect information games", AAMAS 2015 (seed 000
sec. 8). During play, at an information set I of player i:
  1. each sample (one outcome-sampling traversal from the root) is *targeted*
     with probability delta: it then draws, at every history on the way, only
     actions that can still lead to a history of I (information-set targeting,
     IST), each with its untargeted probability renormalised over those; past I
     it samples as usual. Otherwise it samples as outcome sampling does (the
     traverser eps * uniform + (1 - eps) * sigma, the others sigma, chance by its
     probabilities);
  2. a terminal history z is therefore reached with probability
     q(z) = delta * q_T(z) + (1 - delta) * q_U(z), and that mixture is the
     importance-weight denominator of every sampled regret and strategy-sum
     increment: every estimate stays unbiased, not only those at I, so the
     search is outcome-sampling MCCFR of the whole game with more samples
     through I (no non-locality error; it converges as the budget grows);
  3. the tables are built incrementally: a pass adds at most one infoset not yet
     stored (the first it visited); outside the stored tree the players follow
     the playout policy (uniform) and nothing is recorded. The searched infoset
     is stored whenever a pass reaches it: where the opponent's infosets almost
     never repeat (Koi-Koi: they hold the opponent's hand), a tree grown from
     the root one infoset a pass would not reach it;
  4. the move is drawn from the average strategy at I; the tables are kept for
     the next move (memory reused).

In cfrlab the mixture is tracked as the posterior weights of the two schemes
(w_T, w_U = delta q_T(h) / q(h), (1 - delta) q_U(h) / q(h)): the probability
of a draw is w_T t_T(a) + w_U t_U(a), reported to the MCCFR walker as a ratio
(``Sampler``), so the walker's arithmetic (``cfrlab.solvers.mccfr.arithmetic``)
gives the mixture's importance weights. With delta = 0 and full expansion the
draws and the numbers are those of ``OutcomeSamplingMCCFR(path="generic")``,
bit for bit. The histories of I are found by walking the game from the root
(a node limit guards it; ``cfrlab.solvers.oos.targets``), so the searcher needs only its own infoset key, never
a hidden card.

Games whose tree compiles (``path="auto"`` or ``"tree"``) run the same
algorithm in numba over the compiled tree (``cfrlab.solvers.oos.tree_walk``:
the same draws and the same tables, bit for bit, about 100 times faster); the
walk of the game protocol above serves the games that do not compile.

Public-subgame targeting (PST, ``targeting="pst"``) widens the target to every
history of the infoset's public state where its player acts, for games that
define ``State.public_state_key`` (Kuhn, Leduc, Koi-Koi); the rest is the same.
Through a conditioned deal, PST's proposal keeps only the public cards: both
hands are drawn among the deals that fit the public history (the searcher's own
hand too), and the weights are those of that proposal.

The first chance node (seed 000 sec. 10.1): where the deal has too many
outcomes to list (Koi-Koi), the histories of I cannot be walked to. A game may
offer ``Game.conditioned_deal``: a ``DealProposal`` draws the opening chance
outcomes from a proposal sigma'_c that agrees with what the player knows at I
and reports sigma'_c / f_c for any outcome. ``ConditionedSampler``'s targeted
scheme draws them from it, the untargeted one from f_c; the draw is reported
with the mixture's probability over f_c, w_T sigma'_c / f_c + w_U, so the
weights carry sec. 10.1's factor f_c / sigma'_c and stay unbiased. Past the
opening run the targeted scheme follows the one continuation of I given the
deal. Wherever I cannot be reached any more (a deal that ends the round at
once, an opening run of another length), both samplers' targeted scheme
samples as the untargeted one and says so (t_T = t_U), so the accounting
always matches the draws. Leduc and single Koi-Koi rounds offer the hook;
other games keep the enumerated targets.

Koi-Koi matches deal again in the middle of the history: the agent searches the
current round as a game of its own (``cfrlab.games.koikoi.match_round``: the
round's ends valued by points or by the match-win probability), through that
round's conditioned deal (``cfrlab.agents.oos``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.game import Game
from cfrlab.games.koikoi.solvers import oos_search as koikoi_search
from cfrlab.solvers.oos.tree_walk import TreeSearch
from cfrlab.solvers.mccfr.sampling import Increments
from cfrlab.solvers.mccfr.solver import MCCFR
from cfrlab.solvers.oos.sampling import ConditionedSampler, OOSConfig, TargetedSampler, sampler_for
from cfrlab.solvers.oos.targets import ConditionedTarget, Target, find_target

__all__ = ["ConditionedSampler", "ConditionedTarget", "OOSConfig", "OnlineOutcomeSampling", "Target",
           "TargetedSampler", "find_target", "sampler_for"]


class OnlineOutcomeSampling(MCCFR):
    """Online Outcome Sampling (Lisy, Lanctot & Bowling 2015): MCCFR from the root, targeted at ``set_target``'s
    infoset; without a target it is outcome-sampling MCCFR with incremental tables."""

    algorithm = "oos"
    citation = ('Online Outcome Sampling: outcome sampling targeted at the current infoset (offline: no target)',
                'Lisy, Lanctot & Bowling 2015')
    Config = OOSConfig

    def __init__(self, game: Game, config: OOSConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.target: Target | ConditionedTarget | None = None
        """The target's histories (game-protocol path)."""
        self.target_infoset: tuple[str, int] | None = None
        """(key, player) of the infoset the samples are steered through (None: untargeted)."""
        self._targets: dict[tuple[str, int, bool], Target | ConditionedTarget] = {}
        self._fast: TreeSearch | koikoi_search.KoiKoiSearch | None = TreeSearch(self) if self.tree is not None \
            else koikoi_search.KoiKoiSearch(self) if koikoi_search.fits(game, self.config) else None
        """The numba path (compiled tree, or a Koi-Koi round), or None on the game protocol."""

    @property
    def path(self) -> str:
        """The execution path in use: 'tree', 'koikoi' (the numba round walk) or 'generic'."""
        return "koikoi" if isinstance(self._fast, koikoi_search.KoiKoiSearch) else super().path

    def _run_iterations(self, n: int) -> None:
        if self._fast is None:
            super()._run_iterations(n)
        elif n > 0:
            self._fast.run(n)

    def set_target(self, key: str | None, player: int | None = None) -> None:
        """Steer a share ``delta`` of the samples through infoset ``key`` of ``player`` (None: no targeting)."""
        self.target_infoset = None if key is None else (key, int(player))
        if self._fast is not None:
            self._fast.set_target(key, player, self.config.delta, self.config.targeting == "pst")
            return
        if key is None:
            self.target = None
            return
        public = self.config.targeting == "pst"
        memo = (key, int(player), public)
        if memo not in self._targets:
            self._targets[memo] = find_target(self.game, key, int(player), self.config.deal == "conditioned",
                                              public=public)
        self.target = self._targets[memo]

    def new_sampler(self) -> TargetedSampler:
        return sampler_for(self.target, self.config)

    def _sample(self, traverser: int, pass_key: int) -> Increments:
        total = super()._sample(traverser, pass_key)
        if self.config.expansion == "incremental":
            new = [k for k in total if k not in self.table_regret]
            target = self.target.key if self.target is not None else None
            for key in new[1:]:  # beyond the stored tree: the playout policy, nothing recorded
                if key != target:  # (the searched infoset is always stored: where the opponent's infosets
                    del total[key]  # almost never repeat, as in Koi-Koi, the tree would not reach it)
        return total

    def policy_at(self, key: str) -> dict[int, float]:
        """The average strategy at infoset ``key`` (the current one where nothing was accumulated; {} if unseen)."""
        if self._fast is not None:
            row = self._fast.row(key)
            if row is None:
                return {}
            actions, regret, s = row
        else:
            actions = self.table_actions.get(key)
            if actions is None:
                return {}
            regret, s = self.table_regret[key], self.table_strategy[key]
        total = s.sum()
        if not total > 0.0:
            r = np.maximum(regret, 0.0)
            s, total = (r, r.sum()) if r.sum() > 0.0 else (np.ones(len(actions)), float(len(actions)))
        return {a: float(p) / total for a, p in zip(actions, s)}

    def regret_table(self) -> dict[str, Any]:
        """Cumulative regrets of the stored infosets, by key."""
        if isinstance(self._fast, koikoi_search.KoiKoiSearch):
            return self._fast.table("regret")
        table = super().regret_table()
        return table if self._fast is None else self._fast.stored_only(table)

    def strategy_table(self) -> dict[str, Any]:
        """Strategy sums of the stored infosets, by key."""
        if isinstance(self._fast, koikoi_search.KoiKoiSearch):
            return self._fast.table("strategy")
        table = super().strategy_table()
        return table if self._fast is None else self._fast.stored_only(table)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays = super()._state_arrays()
        return arrays if self._fast is None else {**arrays, **self._fast.state_arrays()}

    def _load_state_arrays(self, arrays: Any) -> None:
        super()._load_state_arrays(arrays)
        if self._fast is not None:
            self._fast.load_state_arrays(arrays)
