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

Public-subgame targeting (``KoiKoiDeal(..., public=True)``, Lisy, Lanctot & Bowling 2015): the target is every
history of the infoset's public state, so the proposal keeps only the public cards: the field, and for each
player the cards it has played; both hands are drawn uniformly among those that hold them and no card drawn
later, the player's own hand as the opponent's, and sigma'_c / f_c is again (deals) / (pairs of such hands).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import Any, NamedTuple

from cfrlab.game import DealProposal, State
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E

_PUBLIC = re.compile(r"o([01])|X([0-9a-f]+)|\|F([0-9a-f]+)|([PDC])(\d+)|(K)")


class _Deal(NamedTuple):
    """One deal of the infoset's opening run, as the proposal knows it."""

    field: int
    held: tuple[int, int]
    """Cards the player's hand and the opponent's must hold (IST: the player's whole hand; played cards)."""
    pool: int
    """The other cards the hands may hold."""
    ratio: float
    """sigma'_c / f_c for a deal that fits."""
    listed: frozenset
    """The deal actions that fit, where the game lists its deals (empty otherwise)."""

    @property
    def mine(self) -> int:
        """The cards the player's hand holds for sure (IST: the whole hand)."""
        return self.held[0]

    @property
    def required(self) -> int:
        """The cards the opponent's hand holds for sure (those it has played)."""
        return self.held[1]


class KoiKoiDeal(DealProposal):
    """The opening chance outcomes (first-oya coin, deals and redeals) of one infoset of a single round; with
    ``public``, of its public state (both hands drawn: only the public cards are kept)."""

    def __init__(self, game: Any, key: str, player: int, public: bool = False) -> None:  # a KoiKoiGame
        self.game, self.engine, self.player = game, game.engine, player
        try:
            owner, private, public_history = key.split("|", 2)
            if int(owner) != player:
                raise ValueError
            hands = [(kind, int(mask, 16)) for kind, mask in re.findall(r"([xH])([0-9a-f]+)", private)]
            tokens = list(_PUBLIC.finditer(public_history))
            if "".join(t.group(0) for t in tokens) != public_history or [k for k, _ in hands][-1:] != ["H"]:
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
        oya = coin[0] if coin else self.engine.first_oya or 0
        played, drawn, turn = [0, 0], 0, 0
        for kind, card in events:
            if kind == "P":
                played[(oya + turn) & 1 != player] |= 1 << card  # [the player's, the opponent's]
                turn += 1
            elif kind == "D":
                drawn |= 1 << card
        self.deals = []
        for j, ((_, mine), field) in enumerate(zip(hands, fields)):
            last = j == len(hands) - 1
            held = ((played[0] if last else 0) if public else mine, played[1] if last else 0)
            self.deals.append(self._deal(field, held, drawn if last else 0))
        self.length = len(coin) + len(self.deals)
        self.events = tuple(card for _, card in events)
        self.reach(game, key, player, public=public_history if public else None)  # the key is one of the game's

    def _deal(self, field: int, held: tuple[int, int], excluded: int) -> _Deal:
        eng, h = self.engine, self.engine.rules.hand_size
        pool = eng.deck & ~(field | held[0] | held[1] | excluded)
        need = [h - x.bit_count() for x in held]
        if not eng.deals_enumerable:
            n = pool.bit_count()
            count = comb(n, need[0]) * comb(n - need[0], need[1]) if min(need) >= 0 else 0
            return _Deal(field, held, pool, eng.num_deals / count if count else 0.0, frozenset())
        listed = {a for a, _ in self.game._deal_outcomes()}
        fits = set()
        cards = C.cards_of(pool)
        for mine in combinations(cards, need[0]) if min(need) >= 0 else ():
            rest = [c for c in cards if c not in mine]
            for opp in combinations(rest, need[1]):
                action = self._encode(None, held[0] | C.mask_of(mine), field, held[1] | C.mask_of(opp))
                if action in listed:
                    fits.add(action)
        return _Deal(field, held, pool, len(listed) / len(fits) if fits else 0.0, frozenset(fits))

    def _is_oya(self, state: State | None = None) -> bool:
        oya = state.es.oya if state is not None else (  # type: ignore[attr-defined]
            self.coin if self.coin is not None else self.engine.first_oya or 0)
        return oya == self.player

    def _split(self, state: State, action: int) -> tuple[int, int, int]:
        """(mine, field, opponent's hand) of deal ``action``."""
        ko, field, oya_hand = self.engine.decode_deal(action)
        return (oya_hand, field, ko) if self._is_oya(state) else (ko, field, oya_hand)

    def _encode(self, state: State | None, mine: int, field: int, opp: int) -> int:
        oya = self._is_oya(state)
        return self.engine.encode_deal(opp if oya else mine, field, mine if oya else opp)

    def propose(self, state: State, uniform: Callable[[], float]) -> int:
        es = state.es  # type: ignore[attr-defined]
        if es.phase == E.FIRST_OYA:
            assert self.coin is not None  # a history at the first-oya coin has its coin among the events
            return self.coin
        deal = self.deals[es.redeals]
        if deal.listed:
            fits = sorted(deal.listed)
            return fits[min(int(uniform() * len(fits)), len(fits) - 1)]
        h = self.engine.rules.hand_size
        need = [h - x.bit_count() for x in deal.held]
        extra = _choose(C.cards_of(deal.pool), need[0] + need[1], uniform)
        return self._encode(state, deal.held[0] | C.mask_of(extra[:need[0]]), deal.field,
                            deal.held[1] | C.mask_of(extra[need[0]:]))

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
        (held_mine, held_opp), allowed = deal.held, deal.pool | deal.held[0] | deal.held[1]
        fits = field == deal.field and mine & held_mine == held_mine and opp & held_opp == held_opp \
            and not (mine | opp) & ~allowed
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
