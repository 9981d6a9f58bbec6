"""``cfrlab play kuhn`` / ``cfrlab play leduc --strategy FILE``: a game in the terminal, hand after hand.

It shows exactly what the web page shows, through the same per-game player view (``cfrlab.web.views``) and the
same session logic (``cfrlab.web.sessions.GameSession``: chance and the opponent move until it is the person's
turn): own cards, public cards, pot and stakes, the log of the hand, the result with the opponent's cards only at
a showdown, and the running score with its 95 % interval. Input: the number of an action or the start of its
name (``c`` check/call, ``b`` bet, ...), ``h`` help, ``q`` quit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfrlab.agents.spec import AgentSpec

HELP = "Enter the number of an action or the start of its name (c = check or call, b = bet, f = fold, r = raise); " \
       "h = help, q = quit."


def run_table_game(spec: str, opponent: str | AgentSpec | None = None, strategy: str | Path | None = None, *,
                   seat: int = 0, hands: int | None = None, seed: int | None = None,
                   input_fn: Callable[[str], str] = input,
                   print_fn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play ``hands`` hands (None: until ``q``) against the opponent; returns the final score as a dict. The
    default ``print_fn`` shows control characters in names from a file as escapes (``terminal_print``)."""
    from cfrlab.agents.opponents import build_opponent
    from cfrlab.cli.common import prepare_agents, terminal_print
    from cfrlab.registry import load_game
    from cfrlab.web.sessions import GameSession
    from cfrlab.web.views import table_view

    print_fn = print_fn or terminal_print
    game = load_game(spec)
    table = table_view(game)
    agent = build_opponent(game, opponent, strategy)
    prepare_agents(agent)
    session = GameSession("terminal", game, table, agent, seat, seed=seed)
    print_fn(f"{table.title()} against {agent.name}. You are {table.seat_labels()[seat].lower()}. {HELP}")
    shown = 0
    while True:
        snap = session.snapshot()
        for event in snap["log"][shown:]:
            print_fn(f"  {event['text']}")
        shown = len(snap["log"])
        if snap["finished"]:
            print_fn(_unsaid(snap["result"]["text"], snap["log"]))
            print_fn(f"Score: {session.score.line(table.unit)}")
            if hands is not None and session.score.hands >= hands:
                break
            answer = _ask(input_fn, "Enter for the next hand, q to quit: ")
            if answer is None or answer in ("q", "quit", "exit"):
                break
            session.new_hand()
            shown = 0
            print_fn(f"\nHand {session.hand}")
            continue
        print_fn(render_view(snap["view"], table.unit))
        labels = [a["label"] for a in snap["legal_actions"]]
        answer = _ask(input_fn, "  ".join(f"[{i + 1}] {label}" for i, label in enumerate(labels)) + "? ")
        if answer is None or answer in ("q", "quit", "exit"):
            break
        if answer in ("h", "help", "?"):
            print_fn(HELP)
            continue
        choice = _choose(answer, labels)
        if choice is None:
            print_fn(f"Not understood: {answer!r}. Choose one of: {', '.join(labels)}. {HELP}")
            continue
        session.act(snap["legal_actions"][choice]["id"])
    print_fn(f"Goodbye. {session.score.line(table.unit)}")
    return session.score.to_dict()


def _ask(input_fn: Callable[[str], str], prompt: str) -> str | None:
    try:
        return input_fn(prompt).strip().lower()
    except EOFError:
        return None


def _choose(answer: str, labels: list[str]) -> int | None:
    """Index of the action named by ``answer`` (its number or a unique start of its name), else None."""
    if answer.isdigit():
        i = int(answer) - 1
        return i if 0 <= i < len(labels) else None
    matches = [i for i, label in enumerate(labels) if answer and label.lower().startswith(answer)]
    return matches[0] if len(matches) == 1 else None


def render_view(view: dict[str, Any], unit: str) -> str:
    """The player's view as two lines: cards, then pot and stakes (any other keys as ``key: value``)."""
    if "your_cards" not in view:
        return "\n".join(f"  {key}: {value}" for key, value in view.items())
    cards = ", ".join(_card(c) for c in view["your_cards"]) or "-"
    board = ", ".join(_card(c) for c in view["public_cards"]) or "-"
    plural = "s" if len(view["your_cards"]) > 1 else ""
    return (f"  Your card{plural}: {cards}   Board: {board}   Round {view['round']}\n"
            f"  Pot {view['pot']:g} {unit}s (you put in {view['your_stake']:g}, the opponent "
            f"{view['opponent_stake']:g})")


def _card(card: dict[str, Any]) -> str:
    return f"{card['rank']}{card['suit']}" if card.get("suit") else str(card["name"])


def _unsaid(text: str, log: list[dict[str, Any]]) -> str:
    """The result's text without a first sentence that the log's last line just printed ("The opponent folds.")."""
    last = log[-1]["text"] if log else ""
    return text[len(last):].lstrip() if last and text.startswith(last) else text
