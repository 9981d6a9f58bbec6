"""``cfrlab play koikoi``: Koi-Koi in the terminal, the loop the Koi-Koi family registers for ``cfrlab play``.

Cards are shown by name, month and kind; every capture is named; after each turn the yaku and scores of both
players are printed, and a finished round names the yaku, their points and every multiplier
(``cfrlab.games.koikoi.ui.explain``). Input: the number shown next to a card, its id as ``c12``, or a unique part of
its name; ``s`` STOP, ``k`` KOI-KOI, ``h`` the rules and the yaku table, ``q`` quit. Bad input prints what is
allowed and the game goes on. The screen shows the player's view only (``cfrlab.games.koikoi.rules.view``), never the
opponent's hand. Lines are wrapped to the terminal's width between words, never inside a card's name and kind
(``wrapped``).
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import numpy as np

    from cfrlab.agents.spec import AgentSpec
    from cfrlab.games.koikoi.rules.engine import EngineState
    from cfrlab.games.koikoi.rules.game import KoiKoiGame, KoiKoiState
    from cfrlab.games.koikoi.rules.rules import RuleSet

HELP = ("Enter the number next to a card (or its id as c12, or part of its name); "
        "s = STOP, k = KOI-KOI, h = rules and yaku table, q = quit.")
GLUE = "\xa0"
"""Joins the words of a card's label, so that wrapping never splits it; printed as a space."""


def wrapped(text: str, width: int | None) -> str:
    """``text`` with each line longer than ``width`` columns wrapped between words (None: as it is), the rest of a
    line indented four columns past its start; words joined by ``GLUE`` stay on one line."""
    lines: list[str] = []
    for line in text.split("\n"):
        if width is None or len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        lines += textwrap.wrap(line, width, subsequent_indent=indent + "    ", break_long_words=False,
                               break_on_hyphens=False)
    return "\n".join(lines).replace(GLUE, " ")


def play_in_terminal(spec: str, opponent: AgentSpec | str | None, strategy: Path | None, *, seat: int = 0,
                     seed: int | None = None, rules: str | None = None, rounds: int | None = None,
                     hands: int | None = None) -> None:
    """``cfrlab play`` for a Koi-Koi game: the opponent (a name or a spec, with the command's agent options set),
    the one of ``--strategy``, or the family's default (``default_opponent``); then ``run_play``, its lines wrapped
    to the terminal's width. ``hands`` is the table games' option and plays no part here."""
    if strategy is not None:
        opponent = f"policy:{strategy}"
    run_play(spec, opponent, rules=rules, rounds=rounds, seat=seat, seed=seed,
             width=shutil.get_terminal_size().columns)


def run_play(spec: str, opponent: AgentSpec | str | None, *, rules: str | None = None, rounds: int | None = None,
             seat: int = 0, seed: int | None = None, input_fn: Callable[[str], str] = input,
             print_fn: Callable[[str], None] = print, width: int | None = None) -> list[float]:
    """The interactive loop against ``opponent`` (None: the family's default), its lines wrapped to ``width`` columns
    (None: not wrapped); returns the final returns (yours first is not implied: indexed by seat)."""
    from cfrlab.agents import make_agent
    from cfrlab.agents.opponents import default_opponent
    from cfrlab.seeding import as_generator

    g = _load_koikoi(spec, rules, rounds, seat)
    agent = make_agent(opponent, g) if opponent is not None else default_opponent(g)
    chance_rng, agent_rng = as_generator(seed).spawn(2)
    screen = _Screen(print_fn, seat, width)
    state = g.new_initial_state()
    screen.print(f"Koi-Koi ({g.rules.name} rules, {g.rules.rounds} round(s)) against {agent.name}. {HELP}")
    last_turn = (-1, -1)
    while not state.is_terminal():
        es = state.es
        last_turn = screen.turn_summary(state, last_turn)
        if state.is_chance_node():
            state, action = _chance_step(state, chance_rng, screen)
        elif state.current_player() == screen.opp:
            action = agent.act(state, agent_rng)
            screen.print(f"Opponent: {state.action_to_string(action)}.")
            state = state.child(action)
        else:
            try:
                step = _your_step(state, screen, input_fn, g.rules)
            except _Quit:
                return [0.0, 0.0]
            if step is None:
                continue
            state, action = step
        screen.narrate(es, state, action, g.rules)
    returns = state.returns()
    screen.print(f"Game over. Your result: {returns[seat]:+g} points.")
    return returns


def _load_koikoi(spec: str, rules: str | None, rounds: int | None, seat: int) -> KoiKoiGame:
    """The Koi-Koi game of ``spec`` with ``--rules`` and ``--rounds`` applied; a non-Koi-Koi spec or a seat
    other than 0 or 1 is a ``ValueError``."""
    from cfrlab.game_spec import parse_spec
    from cfrlab.registry import load_game

    name, params = parse_spec(spec)
    if not name.startswith("koikoi"):
        raise ValueError(f"play supports koikoi games, got {name!r}")
    if rules is not None:
        params["rules"] = rules
    if rounds is not None:
        params["rounds"] = rounds
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat}")
    return cast("KoiKoiGame", load_game(name, **params))  # name is a Koi-Koi game's


class _Quit(Exception):
    """The player quit (``q`` or end of input)."""


class _Screen:
    """What seat ``me`` sees and is told: cards by name, its own view (``player_view``), never the opponent's hand."""

    def __init__(self, print_fn: Callable[[str], None], me: int, width: int | None = None) -> None:
        self.print_fn, self.width = print_fn, width
        self.me, self.opp = me, 1 - me

    def print(self, text: str) -> None:
        """Print ``text`` wrapped to the screen's width."""
        self.print_fn(wrapped(text, self.width))

    def cards(self, title: str, ids: list[int], numbered: bool = False) -> None:
        if not ids:
            self.print(f"  {title}: -")
            return
        parts = [f"[{i + 1}]{GLUE}{_label(c)}" if numbered else _label(c) for i, c in enumerate(ids)]
        self.print(f"  {title}: " + ", ".join(parts))

    def summary(self, state: KoiKoiState) -> None:
        from cfrlab.games.koikoi.rules.view import player_view
        from cfrlab.games.koikoi.ui.explain import yaku_text

        v = player_view(state, self.me)
        self.print(f"  Yaku: you {yaku_text(v['yaku'])} (score {v['score']}) | opponent "
                   f"{yaku_text(v['opponent_yaku'])} (score {v['opponent_score']})")

    def table(self, state: KoiKoiState) -> None:
        from cfrlab.games.koikoi.rules.view import player_view

        v = player_view(state, self.me)
        role = "oya" if v["oya"] == self.me else "ko"
        self.print(f"\nRound {v['round']}/{v['rounds']}, turn {v['turn'] // 2 + 1}, you are {role}; totals you "
                   f"{v['totals'][0]} / opponent {v['totals'][1]}; deck {v['deck_size']}, opponent holds "
                   f"{v['opponent_hand_size']} cards")
        self.cards("Field", v["field"])
        self.cards("Your pile", v["pile"])
        self.cards("Opponent pile", v["opponent_pile"])
        if v["pending"] >= 0:
            self.print(f"  {_label(v['pending'])} matches two field cards: choose one to take.")

    def turn_summary(self, state: KoiKoiState, last_turn: tuple[int, int]) -> tuple[int, int]:
        """At the first play of a new turn, the yaku of the turn before (within a round); the turn now seen."""
        from cfrlab.games.koikoi.rules import engine as E

        es = state.es
        if (es.round, es.turn) != last_turn and es.phase == E.PLAY:
            if last_turn[0] == es.round:
                self.summary(state)
            return (es.round, es.turn)
        return last_turn

    def narrate(self, es: EngineState, state: KoiKoiState, action: int, rules: RuleSet) -> None:
        """What the step from engine state ``es`` by ``action`` to ``state`` did: a card left on the field,
        captures, the opponent's KOI-KOI, a round's end."""
        from cfrlab.games.koikoi.rules import engine as E
        from cfrlab.games.koikoi.ui.explain import captured, round_text

        me, opp = self.me, self.opp
        if es.phase in (E.PLAY, E.DRAW) and state.es.round == es.round and state.es.field >> action & 1:
            self.print(f"  {_label(action)} stays on the field (no card of its month to capture).")
        for player, cards in captured(es, state.es):
            self.print(f"{'You capture' if player == me else 'The opponent captures'} "
                       f"{', '.join(_label(c) for c in cards)}.")
        if es.phase == E.DECIDE and state.es.calls[opp] > es.calls[opp]:
            doubled = " and your points are doubled" if rules.opponent_koikoi_multiplier == "double" else ""
            self.print(f"The opponent calls KOI-KOI and plays on for more: if you score first, you win the "
                       f"round{doubled}.")
        if state.es.result is not None and state.es.result is not es.result:
            res = state.es.result
            self.print(f"Round {es.round + 1} over. {round_text(res, me)} Totals: you {state.es.totals[me]}, "
                       f"opponent {state.es.totals[opp]}.")


def screen_text(state: KoiKoiState, seat: int) -> str:
    """What ``cfrlab play koikoi`` shows ``seat`` of ``state`` (the table, its hand, the yaku of both), as text: the
    family's ``views.text``, which the environments' ``render()`` prints."""
    from cfrlab.games.koikoi.rules import engine as E
    from cfrlab.games.koikoi.rules.cards import cards_of
    from cfrlab.games.koikoi.ui.explain import round_text

    lines: list[str] = []
    screen = _Screen(lines.append, seat)
    screen.table(state)
    screen.cards("Your hand", cards_of(state.es.hands[seat]))
    screen.summary(state)
    result = state.es.result
    if state.es.phase == E.TERMINAL and result is not None:
        lines.append(f"Game over. {round_text(result, seat)} Totals: you {state.es.totals[seat]}, opponent "
                     f"{state.es.totals[1 - seat]}.")
    return "\n".join(line.lstrip("\n") for line in lines)


def _chance_step(state: KoiKoiState, rng: np.random.Generator, screen: _Screen) -> tuple[KoiKoiState, int]:
    """Deal or draw one card: a draw is named, a misdeal (redeal) said."""
    from cfrlab.games.koikoi.rules import engine as E

    es = state.es
    prev_round = es.round
    action = state.sample_chance(rng)
    if es.phase == E.DRAW:
        who = "You draw" if state.game.engine.mover(es) == screen.me else "Opponent draws"
        screen.print(f"{who} {_label(action)}.")
    state = state.child(action)
    if es.phase == E.DEAL and state.es.phase == E.DEAL and state.es.round == prev_round:
        screen.print("Misdeal (four of a month on the field): redeal.")
    return state, action


def _your_step(state: KoiKoiState, screen: _Screen, input_fn: Callable[[str], str],
               rules: RuleSet) -> tuple[KoiKoiState, int] | None:
    """Show the table, ask for a move and play it; ``None`` when the player asked for help or typed something
    illegal (ask again); ``_Quit`` on ``q`` or end of input."""
    from cfrlab.games.koikoi.rules import engine as E
    from cfrlab.games.koikoi.ui.explain import rules_summary

    es = state.es
    screen.table(state)
    legal = state.legal_actions()
    if es.phase == E.DECIDE:
        screen.summary(state)
        prompt = "Your score rose: s = STOP (score now) or k = KOI-KOI (play on)? "
    elif es.phase == E.PLAY:
        screen.cards("Your hand", legal, numbered=True)
        prompt = "Play which card? "
    else:
        screen.cards("Take which", legal, numbered=True)
        prompt = "Take which card? "
    try:
        text = input_fn(prompt)
    except EOFError:
        screen.print("\nGoodbye.")
        raise _Quit from None
    if text.strip().lower() in ("q", "quit", "exit"):
        screen.print("Goodbye.")
        raise _Quit
    if text.strip().lower() in ("h", "help", "?"):
        screen.print(rules_summary(rules))
        screen.print(HELP)
        return None
    try:
        action = _parse(text, legal, es.phase)
        state = state.child(action)
    except Exception as exc:  # any bad input: say why, keep playing
        screen.print(f"Illegal input: {exc}. {HELP}")
        return None
    screen.print(f"You: {_describe(action)}.")
    return state, action


def _parse(text: str, legal: list[int], phase: int) -> int:
    """The action ``text`` names: s/k, a number from the list shown, ``c12``, or a unique part of a card's name."""
    from cfrlab.games.koikoi.rules import cards as C
    from cfrlab.games.koikoi.rules import engine as E

    t = text.strip().lower()
    if t in ("s", "stop"):
        return E.STOP
    if t in ("k", "koi", "koikoi", "koi-koi"):
        return E.KOIKOI
    options = legal if phase != E.DECIDE else []
    if t.isdigit():
        i = int(t) - 1
        if 0 <= i < len(options):
            return options[i]
        raise ValueError(f"no card numbered {t}; choose 1-{len(options)}" if options else "enter s or k")
    if t.startswith("c") and t[1:].isdigit():
        return int(t[1:])
    matches = [c for c in options if t and t in C.NAME_EN[c].lower()]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise ValueError("ambiguous: " + ", ".join(C.NAME_EN[c] for c in matches))
    raise ValueError(f"did not understand {text!r}")


def _label(c: int) -> str:
    from cfrlab.games.koikoi.rules import cards as C

    return f"{C.NAME_EN[c]} ({C.MONTH_NAMES[C.MONTH[c] - 1]} {C.KIND_NAMES[C.KIND[c]]})".replace(" ", GLUE)


def _describe(action: int) -> str:
    from cfrlab.games.koikoi.rules import cards as C
    from cfrlab.games.koikoi.rules import engine as E

    if action == E.STOP:
        return "STOP"
    if action == E.KOIKOI:
        return "KOI-KOI"
    return C.card_label(action)
