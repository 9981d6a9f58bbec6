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
the same draws and the same tables, bit for bit, about 100 times faster); a
game family may register a numba back end of its own (``stores``); the walk of
the game protocol above serves the other games. Every walk takes its mixture
arithmetic from ``cfrlab.solvers.mccfr.mixture``.

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

A game whose matches deal again in the middle of the history (Koi-Koi) is
searched one round at a time, each round a game of its own offering its
conditioned deal (``cfrlab.agents.oos``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cfrlab.game import Game
from cfrlab.solvers.mccfr.solver import MCCFR
from cfrlab.solvers.mccfr.stores import TableStore
from cfrlab.solvers.oos.sampling import OOSConfig
from cfrlab.solvers.oos.stores import oos_store


class OnlineOutcomeSampling(MCCFR):
    """Online Outcome Sampling (Lisy, Lanctot & Bowling 2015): MCCFR from the root, targeted at ``set_target``'s
    infoset; without a target it is outcome-sampling MCCFR with incremental tables. Its back end (compiled tree,
    a game family's own, or the game protocol: ``stores``) is chosen once, when it is built."""

    algorithm = "oos"
    citation = ('Online Outcome Sampling: outcome sampling targeted at the current infoset (offline: no target)',
                'Lisy, Lanctot & Bowling 2015')
    Config = OOSConfig
    config: OOSConfig
    first_compile_seconds = 13.0  # the targeted walk (BENCHMARKS.md, "First run")

    def __init__(self, game: Game, config: OOSConfig | None = None, **overrides: Any) -> None:
        super().__init__(game, config, **overrides)
        self.target_infoset: tuple[str, int] | None = None
        """(key, player) of the infoset the samples are steered through (None: untargeted)."""

    def new_store(self) -> TableStore:
        """The back end (``stores.oos_store``)."""
        return oos_store(self)

    def set_target(self, key: str | None, player: int | None = None) -> None:
        """Steer a share ``delta`` of the samples through infoset ``key`` of ``player`` (None: no targeting)."""
        if key is not None and player is None:
            raise TypeError(f"set_target({key!r}) needs the player whose infoset it is")
        self.target_infoset = None if key is None or player is None else (key, int(player))
        self.store.set_target(key, player, self.config.delta, self.config.targeting == "pst")

    def policy_at(self, key: str) -> dict[int, float]:
        """The average strategy at infoset ``key`` (the current one where nothing was accumulated; {} if unseen)."""
        row = self.store.row(key)
        if row is None:
            return {}
        actions, regret, s = row
        total = s.sum()
        if not total > 0.0:
            r = np.maximum(regret, 0.0)
            s, total = (r, r.sum()) if r.sum() > 0.0 else (np.ones(len(actions)), float(len(actions)))
        return {a: float(p) / total for a, p in zip(actions, s)}
