"""What one player may see, per game, as JSON-ready data for the web page (STYLE principle 7).

Specification in cfrlab: a ``TableView`` turns a state into the *player's view* and never into anything more.
* ``view(state, seat)``: the seat's own private cards, the public cards, the pot and stakes (poker) or the
  hand, field, capture piles and scores (card games such as Koi-Koi).
  The opponent's private cards and the deck are left out.
* ``describe(state, action, seat)``: one log line for ``action`` taken at ``state``, as ``seat`` perceives it:
  the opponent's deal is "a card", the seat's own deal names the card, public cards and draws are named.
* ``outcome(state, seat)``: at a terminal state, the returns and a sentence; the opponent's cards only when
  they were shown down (poker showdown; never after a fold).

Supported games: those whose game family registers a view (``cfrlab.registry.GameFamily.views.web``), and every
game of no family through ``generic_view.GenericView`` (its information-state keys).
"""

from __future__ import annotations

from cfrlab.game import Game
from cfrlab.registry import families, family_of, resolve
from cfrlab.web.view_base import Event, TableView, UnsupportedGameError

__all__ = ["Event", "TableView", "UnsupportedGameError", "table_view"]


def table_view(game: Game) -> TableView:
    """The ``TableView`` of ``game``'s family; ``UnsupportedGameError`` for games the page cannot show."""
    family = family_of(game)
    if family is None:  # a game of no family (a Gambit file, a game of yours): shown through its keys
        from cfrlab.web.generic_view import GenericView

        return GenericView(game)
    if family.views.web is None:
        shown = ", ".join(f.name for f in families() if f.views.web is not None)
        raise UnsupportedGameError(f"the web page plays {shown} (and variants); {game.spec()!r} is not one of them")
    return resolve(family.views.web)(game)
