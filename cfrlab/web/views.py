"""What one player may see, per game family, as JSON-ready data for the web page (STYLE principle 7).

Specification in cfrlab: a ``TableView`` turns a state into the *player's view* and never into anything more.
* ``view(state, seat)``: the seat's own private cards, the public cards, the pot and stakes (poker) or the
  hand, field, capture piles and scores (Koi-Koi, through ``cfrlab.games.koikoi.view.player_view``).
  The opponent's private cards and the deck are left out.
* ``describe(state, action, seat)``: one log line for ``action`` taken at ``state``, as ``seat`` perceives it:
  the opponent's deal is "a card", the seat's own deal names the card, public cards and draws are named.
* ``outcome(state, seat)``: at a terminal state, the returns and a sentence; the opponent's cards only when
  they were shown down (poker showdown; never after a fold).

Supported games: Kuhn poker for 2 players, Leduc hold'em and its variants, Koi-Koi (both ``koikoi`` and
``koikoi_mini``, which need ``cfrlab.games.koikoi.view``).
"""

from __future__ import annotations

from cfrlab.game import Game
from cfrlab.games.koikoi.ui.web_view import KoiKoiView
from cfrlab.web.poker_views import HoldemView, KuhnView, LeducView
from cfrlab.web.view_base import Event, TableView, UnsupportedGameError

__all__ = ["Event", "TableView", "UnsupportedGameError", "table_view"]


def table_view(game: Game) -> TableView:
    """The ``TableView`` for ``game``; ``UnsupportedGameError`` for games the page cannot show."""
    from cfrlab.games.holdem.game import LimitHoldem
    from cfrlab.games.kuhn import KuhnPoker
    from cfrlab.games.leduc import LeducHoldem

    if isinstance(game, KuhnPoker):
        return KuhnView(game)
    if isinstance(game, LeducHoldem):
        return LeducView(game)
    if isinstance(game, LimitHoldem):
        return HoldemView(game)
    if game.name.startswith("koikoi"):
        return KoiKoiView(game)
    raise UnsupportedGameError(
        f"the web page plays kuhn, leduc, holdem (and variants) and koikoi; {game.spec()!r} is not one of them"
    )
