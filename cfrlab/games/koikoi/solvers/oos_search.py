"""The Koi-Koi state of an OOS solver: the numba walk's rules, its target (``oos_walk``) and its hashed tables
(``oos_store``).

``OnlineOutcomeSampling`` (``cfrlab.solvers.oos``) runs on it for a single Koi-Koi round whose deal cannot be
listed (full decks), as it runs on ``cfrlab.solvers.oos.tree_walk.TreeSearch`` for games that compile: it is an
OOS back end (a ``TableStore``), registered by this package (``oos_backend``). Infosets are identified by two
64-bit hashes of their information-state record (``games.koikoi.rules.infoset_hash``): the first keys the hash table,
the second is stored beside the row and checked on every lookup. Collision policy: two infosets whose first
hashes agree but second ones differ never share a row (the later one is treated as beyond the tree: playout
policy, nothing stored); a collision of both (probability about 2^-128 per pair) would merge two infosets.

Memory is reused between the moves of one round. A target whose dealt fields differ from the last one's (a new
round) clears the tables first: the old round's infosets hold that deal, which the proposal of the new one never
draws and the chance draw hits with probability below 1e-20 per pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from cfrlab.game import Game, payoff_scale
from cfrlab.games.koikoi.neural.weights import NetWeights, check_weights
from cfrlab.games.koikoi.rules.infoset_hash import key_hash
from cfrlab.games.koikoi.rules.kernels import F_HALF_TURNS, kernel_rules
from cfrlab.games.koikoi.rules.rules import month_of_round
from cfrlab.games.koikoi.solvers.oos_net import NO_NET
from cfrlab.games.koikoi.solvers.oos_store import Store, insert, lookup
from cfrlab.games.koikoi.solvers.oos_walk import Aim, Round, oos_koikoi_iterate
from cfrlab.solvers.mccfr.config import AVERAGE_UPDATES
from cfrlab.solvers.mccfr.stores import TableStore

if TYPE_CHECKING:
    from cfrlab.games.koikoi.rules.match_round import MatchRoundGame

_EMPTY_U = np.zeros(0, dtype=np.uint64)
_STORE_FIELDS = ("hash", "check", "player", "na", "actions", "regret", "strategy")


def fits(game: Game, config: Any) -> bool:
    """Whether the numba walk runs OOS for ``game`` with ``config`` (an ``OOSConfig``): a single Koi-Koi round
    of the plain engine, or a match's round (``MatchRoundGame``, valued by its points or by the match-win
    probability after it), whose deal is sampled, information-set
    targeting through the conditioned deal, alternating updates, a strategy-sum estimator without per-infoset
    clocks; else the game-protocol path does."""
    from cfrlab.games.koikoi.rules.engine import Engine
    from cfrlab.games.koikoi.rules.game import KoiKoiGame
    from cfrlab.games.koikoi.rules.match_round import MatchRoundGame

    if not isinstance(game, KoiKoiGame):
        return False
    single = type(game.engine) is Engine and game.rules.rounds == 1
    return ((single or isinstance(game, MatchRoundGame)) and not game.engine.deals_enumerable
            and config.path == "auto" and config.deal == "conditioned" and config.targeting == "ist"
            and config.alternating and config.average_update != "lazy")


@njit(cache=True)
def _rehash(store):
    """``slots`` rebuilt for the stored rows."""
    store.slots[:] = -1
    for r in range(store.n[0]):
        insert(store, r)


def _store(rows: int, width: int) -> Store:
    """Room for ``rows`` rows, none stored."""
    slots = np.full(1 << (2 * rows - 1).bit_length(), -1, dtype=np.int64)
    return Store(slots, np.zeros(rows, dtype=np.uint64), np.zeros(rows, dtype=np.uint64),
                 np.zeros(rows, dtype=np.int8), np.zeros(rows, dtype=np.int8), np.zeros((rows, width), dtype=np.int8),
                 np.zeros((rows, width)), np.zeros((rows, width)), np.zeros(1, dtype=np.int64))


def _match_fields(game: Game) -> tuple[Any, ...]:
    """``Round``'s match fields: the round's ends valued by the match-win table, or (an empty table) by points."""
    if getattr(game, "objective", "points") != "match":
        return (np.zeros((0, 0, 0)),)
    match = cast("MatchRoundGame", game)  # a round of a match, valued by the match-win table
    position, rules, table = match.position, match.rules, match.table
    assert table is not None  # a match objective comes with its match-win table
    return (np.ascontiguousarray(table.win, dtype=np.float64), int(table.max_lead),
            (int(position.totals[0]), int(position.totals[1])), rules.rounds - position.round - 1,
            bool(rules.bust_ends_match), rules.scoring == "transfer")


def oos_backend(solver: Any) -> KoiKoiSearch | None:
    """The OOS back end of ``solver`` (``cfrlab.solvers.oos.stores.register_oos_backend``): the numba round walk
    where it ``fits``, else None."""
    return KoiKoiSearch(solver) if fits(solver.game, solver.config) else None


class KoiKoiSearch(TableStore):
    """OOS on a single Koi-Koi round in numba: the target, the hashed tables, the pass loop over them."""

    path = "koikoi"

    def __init__(self, solver: Any) -> None:
        super().__init__(solver)
        game = solver.game
        eng, rules = game.engine, game.rules
        kr = kernel_rules(rules)
        self.game = game
        first = eng.initial_state().round  # a match's round (``MatchRoundGame``) starts at its index
        self.round = Round(kr, month_of_round(rules, first), np.uint64(eng.deck),
                           np.array(eng.deck_cards, dtype=np.int64), rules.hand_size, rules.field_size,
                           eng.first_oya or 0, eng.first_oya is None, payoff_scale(game.info),
                           *_match_fields(game))
        self.width = max(rules.hand_size, 2)
        self.untargeted = Aim(0.0, -1, np.uint64(0), np.uint64(0), -1, -1, _EMPTY_U, _EMPTY_U, _EMPTY_U,
                              np.zeros((0, 48), dtype=np.int64), np.zeros(0, dtype=np.int64), _EMPTY_U,
                              np.zeros(0), np.zeros(0, dtype=np.int64))
        self.aim = self.untargeted
        self._opening: tuple | None = None
        self.clear()

    def set_evaluator(self, net: NetWeights | None, cut: bool = True, follow: int | None = None) -> None:
        """Value the passes by ``net`` where they leave the stored tree (``oos_walk.Round.cut``) and, with
        ``follow`` (a head code, ``neural.act``), play on beyond it by ``net``'s policy (``Round.follow``); None:
        play the round out uniformly there (the default). Rounds valued by points only; ``net`` is checked
        (``check_weights``: none of its outputs can be infinite or NaN)."""
        if net is not None:
            check_weights(net, "the network's weights")
        if net is not None and self.round.win.shape[0] > 0:
            raise ValueError("the network values a round's points: a round valued by the match-win probability "
                             "plays out to its end")
        if net is None:
            self.round = self.round._replace(cut=False, net=NO_NET, follow=-1)
            return
        self.round = self.round._replace(cut=cut, net=net, follow=-1 if follow is None else int(follow))

    def clear(self) -> None:
        """Empty tables."""
        self.store = _store(1024, self.width)

    @property
    def rows(self) -> int:
        """Infosets stored."""
        return int(self.store.n[0])

    def set_target(self, key: str | None, player: int | None, delta: float, public: bool = False) -> None:
        """Steer a share ``delta`` of the passes through infoset ``key`` of ``player`` (None: untargeted)."""
        if public:
            raise ValueError("public-subgame targeting needs the tree walked from the root: on Koi-Koi use "
                             "targeting='ist'")
        if key is None or player is None:  # (the solver refuses a key without its player)
            self.aim = self.untargeted
            return
        try:
            owner, h1, h2 = key_hash(key)
        except ValueError:
            owner = -1
        if owner != int(player):
            raise ValueError(f"no history has infoset {key!r} for player {player} of a single Koi-Koi round")
        deal = self.game.conditioned_deal()(key, int(player))  # ValueError for a key of no history
        opening = (deal.coin, tuple(d.field for d in deal.deals))  # public: both seats of a round share it
        if opening != self._opening:  # a new round
            self.clear()
            self._opening = opening
        k = len(deal.deals)
        pool = np.full((k, 48), -1, dtype=np.int64)
        pool_n = np.zeros(k, dtype=np.int64)
        for i, d in enumerate(deal.deals):
            cards = [c for c in range(48) if d.pool >> c & 1]
            pool[i, :len(cards)] = cards
            pool_n[i] = len(cards)
        u = lambda xs: np.array(xs, dtype=np.uint64)  # noqa: E731
        self.aim = Aim(float(delta), int(player), np.uint64(h1), np.uint64(h2), int(deal.length),
                       -1 if deal.coin is None else int(deal.coin), u([d.mine for d in deal.deals]),
                       u([d.field for d in deal.deals]), u([d.required for d in deal.deals]), pool, pool_n,
                       u([d.required | d.pool for d in deal.deals]), np.array([d.ratio for d in deal.deals]),
                       np.array(deal.events, dtype=np.int64))

    def _reserve(self, more: int) -> None:
        """Room for ``more`` new rows (the walk never grows the arrays itself)."""
        s = self.store
        need = int(s.n[0]) + more
        if need <= s.check.shape[0]:
            return
        bigger = _store(max(need, 2 * s.check.shape[0]), self.width)
        n = int(s.n[0])
        for name in _STORE_FIELDS:
            getattr(bigger, name)[:n] = getattr(s, name)[:n]
        bigger.n[0] = n
        _rehash(bigger)
        self.store = bigger

    def run(self, n: int) -> bool:
        """``n`` iterations of OOS over the tables (one numba call)."""
        s = self.solver
        cfg = s.config
        keys = s.rng.integers(0, 2**63 - 1, size=(int(n), 2))
        # two passes an iteration; incremental: a pass stores at most its first new infoset and the searched one;
        # full: every infoset it visits, at most four decisions a half-turn
        per_pass = 2 if cfg.expansion == "incremental" else 4 * int(self.round.kr.F[F_HALF_TURNS]) + 1
        self._reserve(2 * per_pass * int(n) + 2)
        s.nodes_visited += oos_koikoi_iterate(self.round, self.aim, self.store, s.iterations, keys,
                                              float(cfg.epsilon), AVERAGE_UPDATES.index(cfg.average_update),
                                              cfg.schedule.rule, cfg.expansion == "incremental")
        s.iterations += int(n)
        return True

    def row(self, key: str) -> tuple[list[int], NDArray[np.float64], NDArray[np.float64]] | None:
        """(actions, cumulative regrets, strategy sums) of infoset ``key`` if stored, else None."""
        try:
            _, h1, h2 = key_hash(key)
        except ValueError:
            return None
        s = self.store
        r = lookup(s, np.uint64(h1), np.uint64(h2))
        if r < 0:
            return None
        na = int(s.na[r])
        return [int(a) for a in s.actions[r, :na]], s.regret[r, :na], s.strategy[r, :na]

    def _table(self, values: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        """The stored rows of ``values`` by infoset hash (``'#'`` and 16 hex digits: the keys are not kept)."""
        s = self.store
        return {f"#{int(s.hash[r]):016x}": values[r, :int(s.na[r])].copy() for r in range(self.rows)}

    def regret_table(self) -> dict[str, NDArray[np.float64]]:
        """Cumulative regrets of the stored infosets, by infoset hash."""
        return self._table(self.store.regret)

    def strategy_table(self) -> dict[str, NDArray[np.float64]]:
        """Strategy sums of the stored infosets, by infoset hash."""
        return self._table(self.store.strategy)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The tables as arrays (rows in storage order) and the round they belong to (coin, dealt fields)."""
        coin, fields = self._opening if self._opening is not None else (None, ())
        opening = np.array([-2 if self._opening is None else -1 if coin is None else coin, *fields], dtype=np.int64)
        return {"koikoi_opening": opening, **{f"koikoi_{f}": getattr(self.store, f)[:self.rows] for f in _STORE_FIELDS}}

    def load_state_arrays(self, arrays: Any) -> None:
        """Tables saved by ``state_arrays``."""
        self.clear()
        n = len(arrays["koikoi_hash"])
        self._reserve(n)
        for f in _STORE_FIELDS:
            getattr(self.store, f)[:n] = arrays[f"koikoi_{f}"]
        self.store.n[0] = n
        _rehash(self.store)
        coin, *fields = (int(x) for x in arrays["koikoi_opening"])
        self._opening = None if coin == -2 else (None if coin == -1 else coin, tuple(fields))
