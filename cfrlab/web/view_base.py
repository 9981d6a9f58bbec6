"""The player's view of a game as JSON-ready data, and the sentences every family shares (STYLE principle 7).

``TableView`` is what ``cfrlab.web.views.table_view`` returns for a game; each game family registers its own
subclass (``GameFamily.views.web``). The module docstring of ``views`` gives the contract.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from cfrlab.game import Game, State

Event = dict[str, str]
"""A log line: ``{"actor": "you" | "opponent" | "dealer", "text": ...}``."""


class UnsupportedGameError(ValueError):
    """A game the web page cannot show."""


def actor(player: int, seat: int) -> str:
    """Who did it, as the log names them for ``seat``."""
    return "you" if player == seat else "opponent"


def plural(amount: float, unit: str) -> str:
    """'1 chip', '2 chips'."""
    value = f"{amount:g}"
    return f"{value} {unit if abs(amount) == 1 else unit + 's'}"


def result_sentence(mine: float, unit: str) -> tuple[str, str]:
    """("win" | "loss" | "tie", "You win 2 chips.")."""
    if mine > 0:
        return "win", f"You win {plural(mine, unit)}."
    if mine < 0:
        return "loss", f"You lose {plural(-mine, unit)}."
    return "tie", "Nobody wins anything: a tie."


class TableView(ABC):
    """The player's view of one game family."""

    family: str = "game"
    display_name: str = "game"
    unit: str = "chip"

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def view(self, state: State, seat: int) -> dict[str, Any]:
        """What ``seat`` sees in ``state``: never the opponent's private information."""

    @abstractmethod
    def describe(self, state: State, action: int, seat: int) -> Event | None:
        """A log line for ``action`` at ``state`` from ``seat``'s point of view (``None``: nothing to show)."""

    @abstractmethod
    def outcome(self, state: State, seat: int) -> dict[str, Any]:
        """Returns and a sentence at a terminal ``state``."""

    def action_label(self, state: State, action: int) -> str:
        """Button text for a legal action of the seat to act."""
        return state.action_to_string(action)

    def consequences(self, before: State, after: State, seat: int) -> list[Event]:
        """Log lines for what an action caused beyond itself (captures, a round's end); none by default."""
        return []

    def episode_words(self) -> tuple[str, str]:
        """What one game of a session is called on the page, singular and plural: a hand of poker, a match."""
        return "hand", "hands"

    @classmethod
    def texts(cls) -> tuple[str, ...]:
        """Every text beyond ASCII that the page may show for this family (Koi-Koi's Japanese names): the web font
        ``cfrlab.web.fonts`` ships their glyphs, for machines without a font that has them."""
        return ()

    def card_picture(self, card: int) -> str | None:
        """Card ``card``'s picture as an SVG document, for games whose view draws its cards (None: no picture)."""
        return None

    def seat_labels(self) -> list[str]:
        """One label per seat, for the seat picker."""
        return ["Seat 0: acts first", "Seat 1: acts second"]

    def title(self) -> str:
        """The game's name for people, with its spec when that says more."""
        name, spec = self.display_name, self.game.spec()
        return name if spec == self.game.name else f"{name} \u00b7 {spec}"
