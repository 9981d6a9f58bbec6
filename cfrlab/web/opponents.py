"""The opponents a person may pick on the web page, and their strengths.

Specification in cfrlab: ``OpponentMenu(game, served)`` lists every agent kind the game offers
(``cfrlab.agents.names.offered``: ``cfrlab agents GAME``) that needs no file and builds here (a kind whose weights
do not ship, or that plays other games of its family, is left out), each at a few fixed strengths where it takes a
budget: ``TIMES`` of CPU a decision for a kind taking ``N|Tms``, ``SECONDS`` a move (on the wall clock: a person
waits for it) for a kind taking ``SECONDS``. The agent the server was started with (``serve --opponent``, a
strategy file, or the family's default) is the page's first choice. A session's choice is one of those names
(``"cfr:500ms"``, ``"greedy"``, the served agent's name); anything else is refused in one sentence, so a request
cannot make the server search for longer than the menu's largest strength.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from cfrlab.agents import Agent, make_agent
from cfrlab.agents.names import offered, parse_agent, wall_clock
from cfrlab.game import Game

TIMES = ("20ms", "100ms", "500ms", "1000ms")
"""The strengths of a kind that takes ``N|Tms``: milliseconds of CPU a decision."""
SECONDS = ("0.1", "0.5", "1")
"""The strengths of a kind that takes ``SECONDS``: seconds a move."""
DEFAULT_STRENGTH = {"N|Tms": "500ms", "SECONDS": "0.5"}
"""The strength first offered for a kind: half a second a move, a human pace."""


class UnknownOpponentError(ValueError):
    """A session asked for an opponent the page does not offer."""


def _budget(takes: tuple[str, ...]) -> str | None:
    return next((option for option in takes if option in DEFAULT_STRENGTH), None)


class OpponentMenu:
    """The opponents of ``game`` a person may pick; ``served``, the server's own, first."""

    def __init__(self, game: Game, served: Agent) -> None:
        self.game, self.served = game, served

    @cached_property
    def entries(self) -> list[dict[str, Any]]:
        """``{"kind", "about", "strengths", "default"}`` per kind, as ``GET /api/info`` lists them."""
        rows = []
        for kind, entry in offered(self.game).items():
            budget = _budget(entry.takes)
            strengths = list({"N|Tms": TIMES, "SECONDS": SECONDS}.get(budget or "", ()))
            default = DEFAULT_STRENGTH.get(budget or "", "")
            if entry.required or not self._builds(f"{kind}:{default}" if default else kind):
                continue
            rows.append({"kind": kind, "about": entry.about, "strengths": strengths, "default": default})
        if self.served.name not in self._names(rows):
            rows.insert(0, {"kind": self.served.name, "about": "the opponent this server was started with",
                            "strengths": [], "default": ""})
        return rows

    @property
    def choice(self) -> dict[str, str]:
        """The served agent as the page's first choice: ``{"kind", "strength"}``."""
        name = self.served.name
        for row in self.entries:
            if name == row["kind"] or (row["strengths"] and name.startswith(row["kind"] + ":")
                                       and name[len(row["kind"]) + 1:] in row["strengths"]):
                return {"kind": row["kind"], "strength": name[len(row["kind"]) + 1:]}
        raise AssertionError(f"the served opponent {name!r} is not in the menu")  # entries() lists it

    def agent(self, name: str | None) -> Agent:
        """The agent for a session's choice ``name`` (None: the served one): the served agent itself, or a fresh one
        built for the session; ``UnknownOpponentError`` for a name the menu does not offer."""
        if name is None or name == self.served.name:
            return self.served
        names = self._names(self.entries)
        if name not in names:
            raise UnknownOpponentError(f"unknown opponent {name[:80]!r}; the page offers {', '.join(names)}")
        agent = make_agent(wall_clock(parse_agent(name, self.game)), self.game)
        agent.name = name
        return agent

    def _builds(self, name: str) -> bool:
        try:
            make_agent(name, self.game)
        except (ValueError, OSError, ImportError):  # no weights shipped, another game of the family, no extra
            return False
        return True

    @staticmethod
    def _names(rows: list[dict[str, Any]]) -> list[str]:
        return [f"{row['kind']}:{s}" if s else row["kind"] for row in rows for s in (row["strengths"] or [""])]
