"""Koi-Koi's deal drawn given what one player knows: the conditioned first chance node (seed 000 sec. 10.1).

The deal has about 3e23 outcomes (``engine``: the rank of the partition ko hand / field / oya hand), so a
search from the root cannot list it. ``KoiKoiDeal`` is the game's ``DealProposal`` for one decision infoset
of a single round (``KoiKoiGame.conditioned_deal``): the key says the player's dealt hands, every dealt field,
misdeals, who is oya, and every later event (plays, capture choices, draws, koi-koi calls). The proposal
sigma'_c keeps the player's hand and the field and gives the opponent a uniform hand among those that hold
every card the opponent has played and none that was drawn later (misdealt deals: any hand of the cards
left); with f_c uniform over all partitions, sigma'_c / f_c = (number of deals) / (number of such hands).
Mini variants list their deals (misdeals left out, renormalised): there sigma'_c is uniform over the listed
deals that fit. A proposed hand may end the round at once (teyaku) or be redealt (a hand rule): those deals
simply do not reach the infoset, and the sampler accounts for them. The rest of the history is the key's
events, the same for every deal that fits.
"""

from __future__ import annotations

import re
from itertools import combinations
from math import comb
from typing import Any, Callable, NamedTuple

from cfrlab.game import DealProposal, State
from cfrlab.games.koikoi import cards as C
from cfrlab.games.koikoi import engine as E

_PUBLIC = re.compile(r"o([01])|X([0-9a-f]+)|\|F([0-9a-f]+)|([PDC])(\d+)|(K)")


class _Deal(NamedTuple):
    """One deal of the infoset's opening run, as the player knows it."""

    mine: int
    field: int
    required: int
    """Cards the opponent's hand must hold (those it has played)."""
    pool: int
    """The other cards its hand may hold."""
    ratio: float
    """sigma'_c / f_c for a deal that fits."""
    listed: frozenset
    """The deal actions that fit, where the game lists its deals (empty otherwise)."""


class KoiKoiDeal(DealProposal):
    """The opening chance outcomes (first-oya coin, deals and redeals) of one infoset of a single round."""

    def __init__(self, game: Any, key: str, player: int) -> None:  # a KoiKoiGame
        self.game, self.engine, self.player = game, game.engine, player
        try:
            owner, private, public = key.split("|", 2)
            if int(owner) != player:
                raise ValueError
            hands = [(kind, int(mask, 16)) for kind, mask in re.findall(r"([xH])([0-9a-f]+)", private)]
            tokens = list(_PUBLIC.finditer(public))
            if "".join(t.group(0) for t in tokens) != public or [k for k, _ in hands][-1:] != ["H"]:
                raise ValueError
        except (ValueError, IndexError):
            raise ValueError(f"no history has infoset {key!r} for player {player} of a single Koi-Koi round") \
                from None
        coin = [int(t.group(1)) for t in tokens if t.group(1)]
        fields = [int(t.group(2) or t.group(3), 16) for t in tokens if t.group(2) or t.group(3)]
        events = [(t.group(4) or "K", int(t.group(5)) if t.group(5) else E.KOIKOI) for t in tokens
                  if t.group(4) or t.group(6)]
        if len(fields) != len(hands):
            raise ValueError(f"no history has infoset {key!r} for player {player} of a single Koi-Koi round")
        self.coin = coin[0] if coin else None
        oya = self.coin if coin else self.engine.first_oya or 0
        played, drawn, turn = 0, 0, 0
        for kind, card in events:
            if kind == "P":
                played |= (1 << card) if (oya + turn) & 1 != player else 0
                turn += 1
            elif kind == "D":
                drawn |= 1 << card
        self.deals = [self._deal(mine, field, played if last else 0, drawn if last else 0)
                      for (_, mine), field, last in zip(hands, fields, [False] * (len(hands) - 1) + [True])]
        self.length = len(coin) + len(self.deals)
        self.events = tuple(card for _, card in events)
        self.reach(game, key, player)  # the key is one of the game's

    def _deal(self, mine: int, field: int, required: int, excluded: int) -> _Deal:
        eng, h = self.engine, self.engine.rules.hand_size
        pool = eng.deck & ~(mine | field | required | excluded)
        need = h - required.bit_count()
        if not eng.deals_enumerable:
            count = comb(pool.bit_count(), need) if need >= 0 else 0
            return _Deal(mine, field, required, pool, eng.num_deals / count if count else 0.0, frozenset())
        listed = {a for a, _ in self.game._deal_outcomes()}
        fits = set()
        for extra in combinations(C.cards_of(pool), max(need, 0)) if need >= 0 else ():
            opp = required | C.mask_of(extra)
            ko, oya_hand = (opp, mine) if self._is_oya() else (mine, opp)
            action = eng.encode_deal(ko, field, oya_hand)
            if action in listed:
                fits.add(action)
        return _Deal(mine, field, required, pool, len(listed) / len(fits) if fits else 0.0, frozenset(fits))

    def _is_oya(self, state: State | None = None) -> bool:
        oya = state.es.oya if state is not None else (  # type: ignore[attr-defined]
            self.coin if self.coin is not None else self.engine.first_oya or 0)
        return oya == self.player

    def _split(self, state: State, action: int) -> tuple[int, int, int]:
        """(mine, field, opponent's hand) of deal ``action``."""
        ko, field, oya_hand = self.engine.decode_deal(action)
        return (oya_hand, field, ko) if self._is_oya(state) else (ko, field, oya_hand)

    def _encode(self, state: State, mine: int, field: int, opp: int) -> int:
        oya = self._is_oya(state)
        return self.engine.encode_deal(opp if oya else mine, field, mine if oya else opp)

    def propose(self, state: State, uniform: Callable[[], float]) -> int:
        es = state.es  # type: ignore[attr-defined]
        if es.phase == E.FIRST_OYA:
            return self.coin
        deal = self.deals[es.redeals]
        if deal.listed:
            fits = sorted(deal.listed)
            return fits[min(int(uniform() * len(fits)), len(fits) - 1)]
        extra = _choose(C.cards_of(deal.pool), self.engine.rules.hand_size - deal.required.bit_count(), uniform)
        return self._encode(state, deal.mine, deal.field, deal.required | C.mask_of(extra))

    def ratio(self, state: State, action: int) -> float:
        es = state.es  # type: ignore[attr-defined]
        if es.phase == E.FIRST_OYA:
            return 2.0 if action == self.coin else 0.0
        if es.redeals >= len(self.deals):
            return 0.0
        deal = self.deals[es.redeals]
        if deal.listed:
            return deal.ratio if action in deal.listed else 0.0
        mine, field, opp = self._split(state, action)
        fits = mine == deal.mine and field == deal.field and opp & deal.required == deal.required \
            and not opp & ~(deal.pool | deal.required)
        return deal.ratio if fits else 0.0

    def continuation(self, deal: tuple[int, ...]) -> tuple[int, ...]:
        return self.events

    def draw(self, state: State, uniform: Callable[[], float]) -> int:
        """A deal from f_c, uniform over all partitions (``Engine.sample_deal``'s distribution)."""
        rules = self.engine.rules
        h, f = rules.hand_size, rules.field_size
        cards = _choose(list(self.engine.deck_cards), 2 * h + f, uniform)
        return self.engine.encode_deal(C.mask_of(cards[:h]), C.mask_of(cards[h:h + f]), C.mask_of(cards[h + f:]))


def _choose(cards: list[int], k: int, uniform: Callable[[], float]) -> list[int]:
    """``k`` of ``cards`` in a uniformly random order (partial Fisher-Yates, one uniform each)."""
    for i in range(k):
        j = i + min(int(uniform() * (len(cards) - i)), len(cards) - i - 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards[:k]
