"""Hold'em's suit symmetry: the keys of the quotient game ``holdem_suitiso`` (``game.SuitQuotientHoldem``).

Renaming the suits maps a deal to one that plays the same (flushes included), so a game is equivalent to
its quotient by that renaming (Gilpin & Sandholm 2007, lossless isomorphism). In the quotient, chance deals
one card per class of the cards left that a renaming fixing every card dealt so far maps onto each other:
a card of a suit already dealt is its own class; the cards of one rank in the suits not dealt yet form one
class, stood for by the lowest of those suits, with their summed probability. A player's information-state
key is the least, over suit renamings, of the key of the game (``canonical_key``): every infoset of the game
maps to the quotient infoset of its class, and ``suit_images`` lists a class (``Game.quotient_infosets``).
"""

from __future__ import annotations

from itertools import permutations

from cfrlab.games.holdem.rules.cards import cards_text, parse_card


def _parse(key: str, ranks: int, suits: int) -> tuple[str, list[list[int]], list[str]]:
    """(player, the cards of each part: private then each round's board, each round's actions) of a key."""
    player, rest = key.split(":", 1)
    texts = rest.split("/")
    parts, actions = [texts[0]], []
    for text in texts[1:]:
        board, acted = text.split(":")
        parts.append(board)
        actions.append(acted)
    if len(player) != 1 or any(len(p) % 2 for p in parts) or any(set(a) - set("fcr") for a in actions):
        raise ValueError(f"{key!r} is not a hold'em information-state key")
    cards = [[parse_card(p[j:j + 2], ranks, suits) for j in range(0, len(p), 2)] for p in parts]
    return player, cards, actions


def _render(player: str, cards: list[list[int]], actions: list[str], suits: int) -> str:
    key = f"{player}:{cards_text(cards[0], suits)}"
    for part, acted in zip(cards[1:], actions):
        key += f"/{cards_text(part, suits)}:{acted}"
    return key


def suit_images(key: str, ranks: int, suits: int) -> list[str]:
    """The distinct keys that a renaming of the suits makes of ``key``, least first."""
    player, cards, actions = _parse(key, ranks, suits)
    images = set()
    for perm in permutations(range(suits)):
        renamed = [[(c // suits) * suits + perm[c % suits] for c in part] for part in cards]
        images.add(_render(player, renamed, actions, suits))
    return sorted(images)


def canonical_key(key: str, ranks: int, suits: int) -> str:
    """The least key of ``key``'s class under suit renamings (the quotient's infoset key)."""
    return suit_images(key, ranks, suits)[0]
