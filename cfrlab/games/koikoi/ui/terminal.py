"""``cfrlab play koikoi``: Koi-Koi in the terminal, the loop the Koi-Koi family registers for ``cfrlab play``.

Cards are shown by name, month and kind; every capture is named; after each turn the yaku and scores of both
players are printed, and a finished round names the yaku, their points and every multiplier
(``cfrlab.games.koikoi.explain``). Input: the number shown next to a card, its id as ``c12``, or a unique part of
its name; ``s`` STOP, ``k`` KOI-KOI, ``h`` the rules and the yaku table, ``q`` quit. Bad input prints what is
allowed and the game goes on. The screen shows the player's view only (``cfrlab.games.koikoi.view``), never the
opponent's hand.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

HELP = ("Enter the number next to a card (or its id as c12, or part of its name); "
        "s = STOP, k = KOI-KOI, h = rules and yaku table, q = quit.")


def play_in_terminal(spec: str, opponent: str | None, strategy: Path | None, *, seat: int = 0,
                     seed: int | None = None, rules: str | None = None, rounds: int | None = None,
                     rollouts: int | None = None, objective: str | None = None, hands: int | None = None) -> None:
    """``cfrlab play`` for a Koi-Koi game: the opponent from ``--strategy``, ``--rollouts`` and ``--objective``
    (default greedy), then ``run_play``; ``hands`` is a poker option and plays no part here."""
    if strategy is not None:
        opponent = f"policy:{strategy}"
    opponent = opponent or "greedy"
    if rollouts is not None:
        if opponent not in ("search", "cfr"):
            raise ValueError(f"--rollouts sets the playouts of --opponent search or cfr, not of {opponent!r} "
                             "(write search:N or cfr:N)")
        opponent = f"{opponent}:{rollouts}"
    from cfrlab.agents import with_search_options_for

    [opponent] = with_search_options_for([opponent], None, objective)
    run_play(spec, opponent, rules=rules, rounds=rounds, seat=seat, seed=seed)


def run_play(spec: str, opponent: str, *, rules: str | None = None, rounds: int | None = None, seat: int = 0,
             seed: int | None = None, input_fn: Callable[[str], str] = input,
             print_fn: Callable[[str], None] = print) -> list[float]:
    """The interactive loop; returns the final returns (yours first is not implied: indexed by seat)."""
    from cfrlab.agents import make_agent
    from cfrlab.game import parse_spec
    from cfrlab.games.koikoi import cards as C
    from cfrlab.games.koikoi import engine as E
    from cfrlab.games.koikoi.explain import (
        captured,
        round_text,
        rules_summary,
        yaku_text,
    )
    from cfrlab.games.koikoi.game import KoiKoiGame
    from cfrlab.games.koikoi.view import player_view
    from cfrlab.registry import load_game
    from cfrlab.seeding import as_generator

    name, params = parse_spec(spec)
    if not name.startswith("koikoi"):
        raise ValueError(f"play supports koikoi games, got {name!r}")
    if rules is not None:
        params["rules"] = rules
    if rounds is not None:
        params["rounds"] = rounds
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat}")
    g = cast(KoiKoiGame, load_game(name, **params))  # name is a Koi-Koi game's
    agent = make_agent(opponent, g)
    rng = as_generator(seed)
    chance_rng, agent_rng = rng.spawn(2)
    me, opp = seat, 1 - seat

    def label(c: int) -> str:
        return f"{C.NAME_EN[c]} ({C.MONTH_NAMES[C.MONTH[c] - 1]} {C.KIND_NAMES[C.KIND[c]]})"

    def show_cards(title: str, ids: list[int], numbered: bool = False) -> None:
        if not ids:
            print_fn(f"  {title}: -")
            return
        parts = [f"[{i + 1}] {label(c)}" if numbered else label(c) for i, c in enumerate(ids)]
        print_fn(f"  {title}: " + ", ".join(parts))

    def summary(state) -> None:  # noqa: ANN001
        v = player_view(state, me)
        print_fn(f"  Yaku: you {yaku_text(v['yaku'])} (score {v['score']}) | opponent "
                 f"{yaku_text(v['opponent_yaku'])} (score {v['opponent_score']})")

    def show(state) -> None:  # noqa: ANN001
        v = player_view(state, me)
        role = "oya" if v["oya"] == me else "ko"
        print_fn(f"\nRound {v['round']}/{v['rounds']}, turn {v['turn'] // 2 + 1}, you are {role}; totals you "
                 f"{v['totals'][0]} / opponent {v['totals'][1]}; deck {v['deck_size']}, opponent holds "
                 f"{v['opponent_hand_size']} cards")
        show_cards("Field", v["field"])
        show_cards("Your pile", v["pile"])
        show_cards("Opponent pile", v["opponent_pile"])
        if v["pending"] >= 0:
            print_fn(f"  {label(v['pending'])} matches two field cards: choose one to take.")

    def parse(text: str, legal: list[int], state) -> int:  # noqa: ANN001
        t = text.strip().lower()
        phase = state.es.phase
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

    state = g.new_initial_state()
    print_fn(f"Koi-Koi ({g.rules.name} rules, {g.rules.rounds} round(s)) against {agent.name}. {HELP}")
    last_turn = (-1, -1)
    while not state.is_terminal():
        es = state.es
        if (es.round, es.turn) != last_turn and es.phase == E.PLAY:
            if last_turn[0] == es.round:
                summary(state)
            last_turn = (es.round, es.turn)
        if state.is_chance_node():
            prev_round = es.round
            action = state.sample_chance(chance_rng)
            if es.phase == E.DRAW:
                who = "You draw" if state.game.engine.mover(es) == me else "Opponent draws"
                print_fn(f"{who} {label(action)}.")
            state = state.child(action)
            if es.phase == E.DEAL and state.es.phase == E.DEAL and state.es.round == prev_round:
                print_fn("Misdeal (four of a month on the field): redeal.")
        elif state.current_player() == opp:
            action = agent.act(state, agent_rng)
            print_fn(f"Opponent: {state.action_to_string(action)}.")
            state = state.child(action)
        else:
            show(state)
            legal = state.legal_actions()
            if es.phase == E.DECIDE:
                summary(state)
                prompt = "Your score rose: s = STOP (score now) or k = KOI-KOI (play on)? "
            elif es.phase == E.PLAY:
                show_cards("Your hand", legal, numbered=True)
                prompt = "Play which card? "
            else:
                show_cards("Take which", legal, numbered=True)
                prompt = "Take which card? "
            try:
                text = input_fn(prompt)
            except EOFError:
                print_fn("\nGoodbye.")
                return [0.0, 0.0]
            if text.strip().lower() in ("q", "quit", "exit"):
                print_fn("Goodbye.")
                return [0.0, 0.0]
            if text.strip().lower() in ("h", "help", "?"):
                print_fn(rules_summary(g.rules))
                print_fn(HELP)
                continue
            try:
                action = parse(text, legal, state)
                state = state.child(action)
            except Exception as exc:  # noqa: BLE001 - any bad input: say why, keep playing
                print_fn(f"Illegal input: {exc}. {HELP}")
                continue
            print_fn(f"You: {_describe(action)}.")
        if es.phase in (E.PLAY, E.DRAW) and state.es.round == es.round and state.es.field >> action & 1:
            print_fn(f"  {label(action)} stays on the field (no card of its month to capture).")
        for player, cards in captured(es, state.es):
            print_fn(f"{'You capture' if player == me else 'The opponent captures'} "
                     f"{', '.join(label(c) for c in cards)}.")
        if es.phase == E.DECIDE and state.es.calls[opp] > es.calls[opp]:
            doubled = " and your points are doubled" if g.rules.opponent_koikoi_multiplier == "double" else ""
            print_fn(f"The opponent calls KOI-KOI and plays on for more: if you score first, you win the "
                     f"round{doubled}.")
        if state.es.result is not None and state.es.result is not es.result:
            res = state.es.result
            print_fn(f"Round {es.round + 1} over. {round_text(res, me)} Totals: you {state.es.totals[me]}, "
                     f"opponent {state.es.totals[opp]}.")
    returns = state.returns()
    print_fn(f"Game over. Your result: {returns[me]:+g} points.")
    return returns


def _describe(action: int) -> str:
    from cfrlab.games.koikoi import cards as C
    from cfrlab.games.koikoi import engine as E

    if action == E.STOP:
        return "STOP"
    if action == E.KOIKOI:
        return "KOI-KOI"
    return C.card_label(action)
