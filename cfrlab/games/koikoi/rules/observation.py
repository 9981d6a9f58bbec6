"""What one Koi-Koi player knows, as plain JSON, and a game state rebuilt from it: how another program uses cfrlab.

Specification in cfrlab (the observation schema; card ids 0-47 as in koikoi-rules.md sec. 2.2, seats 0 and 1):

* ``player`` (required): your seat, 0 or 1.
* ``oya`` (required): the seat of this round's dealer (moves first).
* ``hand`` (required): your hand now, a list of card ids.
* ``dealt_field`` (required): the field as dealt at the start of this round.
* ``history`` (required): this round's public events in order: ``["play", card]`` (a card played from hand),
  ``["capture", card]`` (the field card chosen when two match), ``["draw", card]`` (the card turned from the
  pile), ``["koikoi"]`` (a KOI-KOI call; a STOP ends the round).
* ``phase`` (optional): the decision asked for, ``"play"`` (a card from your hand), ``"play_capture"`` or
  ``"draw_capture"`` (the played or drawn card, the history's last event, matches two field cards: answer the
  one to take) or ``"decide"`` (STOP or KOI-KOI); checked against the history when given.
* ``round`` (default 1): round of the match, counted from 1 (the first round is 1, not 0).
* ``totals`` (default: the rules' starting points): match totals by seat before this round.
* ``field``, ``piles``, ``calls`` (optional): the field now, both capture piles by seat, koi-koi calls by seat;
  checked against the history when given.

``state_from_observation(obs, rules, rng)`` replays the history through the engine from a deal that agrees with
everything the player has seen; the opponent's hand (and the undrawn pile) is a completion drawn from the deal
distribution of the rules (``information.complete_hidden``: uniform among deals that lead to play). Any agent's
``act(state, rng)`` then answers; the search agent reads only the player's information, so its choice does not
depend on the completion. ``observation(state, player)`` writes the observation of a game state (the inverse,
for recording games). Every inconsistency raises ``ObservationError`` with one line saying what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from cfrlab.game import GameDefinitionError, IllegalActionError
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.game import KoiKoiGame, KoiKoiState, game_for_rules
from cfrlab.games.koikoi.rules.information import complete_hidden
from cfrlab.games.koikoi.rules.rules import RuleSet

REQUIRED = ("player", "oya", "hand", "dealt_field", "history")
OPTIONAL = ("phase", "round", "totals", "field", "piles", "calls")
PHASES = {"play": E.PLAY, "play_capture": E.PLAY_CAPTURE, "draw_capture": E.DRAW_CAPTURE, "decide": E.DECIDE}
"""The ``phase`` values: the decisions a player makes, by the engine's phase names."""
EVENTS = {"play": E.PLAY, "capture": None, "draw": E.DRAW, "koikoi": E.DECIDE}
_TOKEN = re.compile(r"([PDCKS])(\d*)")


_CARDS = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 47}, "uniqueItems": True}
MAX_TOTAL = 10**6
"""Match totals beyond this are refused: no match comes near, and the search's kernels count in 64-bit integers."""
_PAIR = {"type": "array", "items": {"type": "integer", "minimum": -MAX_TOTAL, "maximum": MAX_TOTAL},
         "minItems": 2, "maxItems": 2}
OBSERVATION_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cfrlab Koi-Koi observation",
    "description": "What one player knows at their decision (cfrlab.games.koikoi.rules.observation; a worked round: "
                   "docs/site/guides/koikoi-bot.md). The bot answers each observation with one JSON line "
                   "{\"action\": id, \"name\": text}: 0-47 the card to play from your hand or the field card to "
                   "take, 48 STOP, 49 KOI-KOI; or {\"error\": \"line N: ...\"} for an observation it refuses.",
    "type": "object",
    "required": list(REQUIRED),
    "additionalProperties": False,
    "properties": {
        "player": {"enum": [0, 1], "description": "your seat"},
        "oya": {"enum": [0, 1], "description": "the seat of this round's dealer"},
        "hand": {**_CARDS, "description": "your hand now: a card you played is in history, no longer here"},
        "dealt_field": {**_CARDS, "description": "the field as dealt at the start of the round"},
        "history": {"type": "array", "description": "this round's public events in order, both players': "
                    "[\"play\", card], [\"capture\", card] (the field card chosen when two match), "
                    "[\"draw\", card], [\"koikoi\"]; at a capture choice it ends with the [\"play\", card] or "
                    "[\"draw\", card] that matched two field cards", "items": {"oneOf": [
            {"type": "array", "prefixItems": [{"enum": ["play", "capture", "draw"]},
                                              {"type": "integer", "minimum": 0, "maximum": 47}],
             "minItems": 2, "maxItems": 2},
            {"type": "array", "prefixItems": [{"const": "koikoi"}], "minItems": 1, "maxItems": 1}]}},
        "phase": {"enum": list(PHASES), "description": "the decision asked for (optional, checked): play a card, "
                  "take one of two matching field cards after a play or a draw, or STOP / KOI-KOI"},
        "round": {"type": "integer", "minimum": 1, "description": "round of the match, counted from 1 (the first "
                  "round is 1, not 0)"},
        "totals": {**_PAIR, "description": "match totals by seat before this round"},
        "field": {**_CARDS, "description": "the field now (checked)"},
        "piles": {"type": "array", "items": _CARDS, "minItems": 2, "maxItems": 2,
                  "description": "capture piles by seat (checked)"},
        "calls": {**_PAIR, "description": "koi-koi calls by seat this round (checked)"},
    },
}
"""The observation as a JSON Schema (``cfrlab bot koikoi --schema`` prints it); the rules add what a schema cannot
say (sizes, a history the game allows)."""


class ObservationError(ValueError):
    """An observation that is malformed or that no game under the rules could produce."""


def observation(state: KoiKoiState, player: int) -> dict[str, Any]:
    """The observation of ``player`` in ``state`` (a decision state of the round in play), in the schema above."""
    es = state.es
    if es.phase in (E.FIRST_OYA, E.DEAL, E.TERMINAL):
        raise ObservationError(f"no round in play (phase {E.PHASE_NAMES[es.phase]})")
    start = state.pub.rindex("|F")
    head = re.match(r"\|F([0-9a-f]+)", state.pub[start:])
    assert head is not None  # "|F" starts the round's dealt field
    history: list[list[Any]] = []
    names = {"P": "play", "D": "draw", "C": "capture", "K": "koikoi"}
    for kind, card in _TOKEN.findall(state.pub[start + head.end():]):
        history.append([names[kind], int(card)] if card else [names[kind]])
    return {"player": player, "oya": es.oya, "phase": E.PHASE_NAMES[es.phase].lower(), "round": es.round + 1,
            "totals": list(es.totals),
            "hand": C.cards_of(es.hands[player]), "dealt_field": C.cards_of(int(head.group(1), 16)),
            "history": history, "field": C.cards_of(es.field), "piles": [C.cards_of(p) for p in es.piles],
            "calls": list(es.calls)}


def _cards(obs: Mapping[str, Any], key: str, deck: int) -> int:
    value = obs[key]
    if not isinstance(value, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        raise ObservationError(f"{key} must be a list of card ids (integers 0-47), got {value!r}")
    mask = C.mask_of(c for c in value if 0 <= c < 48)
    bad = [c for c in value if not 0 <= c < 48 or not deck >> c & 1]
    if bad or mask.bit_count() != len(value):
        raise ObservationError(f"{key}: {'card ids not in this deck: ' + str(bad) if bad else 'a card is repeated'}")
    return mask


def _seat(obs: Mapping[str, Any], key: str) -> int:
    if type(obs[key]) is not int or obs[key] not in (0, 1):  # not True, not 0.0
        raise ObservationError(f"{key} must be the seat 0 or 1, got {obs[key]!r}")
    return int(obs[key])


def _pair(obs: Mapping[str, Any], key: str) -> tuple[int, int]:
    value = obs[key]
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ObservationError(f"{key} must be a list of two integers (seat 0, seat 1), got {value!r}")
    if any(abs(v) > MAX_TOTAL for v in value):
        raise ObservationError(f"{key} must lie between -{MAX_TOTAL} and {MAX_TOTAL}, got {value!r:.80}")
    return int(value[0]), int(value[1])


def _events(history: Any, deck: int) -> list[tuple[str, int]]:
    if not isinstance(history, list):
        raise ObservationError(f"history must be a list of events, got {history!r}")
    out = []
    for i, ev in enumerate(history):
        ok = isinstance(ev, list) and ev and isinstance(ev[0], str) and ev[0] in EVENTS
        if ok and ev[0] == "koikoi":
            ok = len(ev) == 1
        elif ok:
            ok = len(ev) == 2 and isinstance(ev[1], int) and not isinstance(ev[1], bool) and 0 <= ev[1] < 48 \
                and bool(deck >> ev[1] & 1)
        if not ok:
            raise ObservationError(f"history[{i}] must be [\"play\"|\"capture\"|\"draw\", card id in this deck] or "
                                   f"[\"koikoi\"], got {ev!r}")
        out.append((ev[0], ev[1] if ev[0] != "koikoi" else E.KOIKOI))
    return out


def state_from_observation(obs: Mapping[str, Any], rules: RuleSet | str = "nintendo",
                           rng: np.random.Generator | int | None = None) -> KoiKoiState:
    """A state that agrees with everything in ``obs`` (schema in the module docstring), the hidden cards completed
    at random from the deal distribution of ``rules`` (a ``RuleSet`` or a preset name), with ``player`` to act."""
    rules = RuleSet.preset(rules) if isinstance(rules, str) else rules
    _check_keys(obs)
    game = game_for_rules(rules)
    eng = game.engine
    player, oya = _seat(obs, "player"), _seat(obs, "oya")
    hand, field = _cards(obs, "hand", eng.deck), _cards(obs, "dealt_field", eng.deck)
    events = _events(obs["history"], eng.deck)
    rnd = obs.get("round", 1)
    if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= rules.rounds:
        raise ObservationError(f"round must be an integer from 1 to {rules.rounds}, got {rnd!r}")
    totals = _pair(obs, "totals") if "totals" in obs else (rules.initial_points,) * 2
    my_dealt, opp_dealt = _dealt_hands(hand, field, events, player, oya, game, rng)
    ko, oya_hand = (my_dealt, opp_dealt) if oya != player else (opp_dealt, my_dealt)
    state = _dealt_state(game, ko, field, oya_hand, oya, rnd - 1, totals)
    state = _replay(state, events, rnd - 1)
    if state.current_player() != player:
        raise ObservationError(f"after this history player {state.current_player()} is to act, not player {player} "
                               f"(phase {state.phase})")
    _check(obs, state)
    return state


def _check_keys(obs: Mapping[str, Any]) -> None:
    """``obs`` is a mapping with every required key and no unknown one."""
    if not isinstance(obs, Mapping):
        raise ObservationError(f"an observation is a JSON object, got {type(obs).__name__}")
    missing = [k for k in REQUIRED if k not in obs]
    unknown = sorted(set(obs) - set(REQUIRED) - set(OPTIONAL))
    if missing or unknown:
        raise ObservationError(f"observation: {'missing ' + ', '.join(missing) if missing else ''}"
                               f"{'; ' if missing and unknown else ''}"
                               f"{'unknown keys ' + ', '.join(unknown) if unknown else ''} (keys: "
                               f"{', '.join(REQUIRED + OPTIONAL)})")


def _dealt_hands(hand: int, field: int, events: list[tuple[str, int]], player: int, oya: int, game: KoiKoiGame,
                 rng: np.random.Generator | int | None) -> tuple[int, int]:
    """(the player's dealt hand, the opponent's): the player's from ``hand`` and their plays, the opponent's its
    plays completed at random (``information.complete_hidden``) from the cards nobody has seen; a deal the rules never
    play, or cards seen twice, are refused."""
    rules, eng = game.rules, game.engine
    played, drawn, t = [0, 0], 0, 0
    for kind, card in events:
        if kind == "play":
            played[(oya + t) & 1] |= 1 << card
            t += 1
        elif kind == "draw":
            drawn |= 1 << card
    my_dealt = hand | played[player]
    h = rules.hand_size
    if hand & played[player]:
        raise ObservationError(f"hand still holds {C.cards_of(hand & played[player])}, which your history plays: "
                               "a played card leaves your hand")
    if my_dealt.bit_count() != h:
        raise ObservationError(f"hand + your plays must be the {h} cards you were dealt, got {my_dealt.bit_count()}")
    if field.bit_count() != rules.field_size or field & (my_dealt | played[1 - player]):
        raise ObservationError(f"dealt_field must hold {rules.field_size} cards apart from the hands")
    opp_played = played[1 - player]
    pool = eng.deck & ~(my_dealt | field | opp_played | drawn)
    need = h - opp_played.bit_count()
    if drawn & (my_dealt | field | opp_played) or need < 0 or pool.bit_count() < need:
        raise ObservationError("history: a drawn or played card was already dealt elsewhere")
    teyaku = rules.teyaku != "off" and eng.teyaku_points(my_dealt) > 0
    if (teyaku and not (rules.teyaku == "score" and rules.teyaku_both == "ignore")) or (
            rules.redeal_hand_four_of_month and eng._teshi(my_dealt)):
        raise ObservationError("your dealt hand (hand + your plays) holds a hand yaku: under these rules that deal "
                               "is redealt or ends at once, so it is never played")
    try:
        opp, _ = complete_hidden(pool, need, my_dealt, opp_played, 1, np.random.default_rng(rng), rules)
    except ValueError as exc:
        raise ObservationError(f"your dealt hand and the opponent's plays fit no deal that is played: {exc}") from None
    return my_dealt, int(opp[0]) | opp_played


def _dealt_state(game: KoiKoiGame, ko: int, field: int, oya_hand: int, oya: int, round_index: int,
                 totals: tuple[int, int]) -> KoiKoiState:
    """The state just after this deal of round ``round_index`` (from 0), the match totals ``totals``; a deal that
    is redealt or ends the round is refused."""
    rules, eng = game.rules, game.engine
    net = totals[0] - totals[1] if rules.scoring == "winner_only" else (totals[0] - totals[1]) // 2
    es = eng.initial_state()._replace(phase=E.DEAL, oya=oya, round=round_index, totals=totals, net=net)
    state = KoiKoiState(game, es)
    try:
        state = state.child(eng.encode_deal(ko, field, oya_hand))
    except (IllegalActionError, GameDefinitionError) as exc:
        raise ObservationError(f"dealt_field and the hands are not a deal these rules play: {exc}") from None
    if state.es.phase != E.PLAY or state.es.round != round_index:
        raise ObservationError("dealt_field would have been redealt or ended the round under these rules")
    return state


def _replay(state: KoiKoiState, events: list[tuple[str, int]], round_index: int) -> KoiKoiState:
    """``state`` after the history's events, each checked against the phase the game is in; the round must
    still be in play at the end."""
    for i, (kind, card) in enumerate(events):
        ph = state.es.phase
        expected = (E.PLAY_CAPTURE, E.DRAW_CAPTURE) if kind == "capture" else (EVENTS[kind],)
        if ph not in expected or state.es.round != round_index:
            now = "the round is over" if state.es.round != round_index or ph == E.TERMINAL else \
                f"the game expects {E.PHASE_NAMES[ph].lower().replace('_', ' ')}"
            raise ObservationError(f"history[{i}]: {kind} is not possible here: {now}")
        try:
            state = state.child(card)
        except IllegalActionError as exc:
            raise ObservationError(f"history[{i}]: {exc}") from None
    if state.es.round != round_index or state.is_terminal():
        raise ObservationError("the history ends the round: there is no decision to make")
    return state


def _check(obs: Mapping[str, Any], state: KoiKoiState) -> None:
    es, deck = state.es, state.game.engine.deck
    if "phase" in obs:
        if not isinstance(obs["phase"], str) or obs["phase"] not in PHASES:
            raise ObservationError(f"phase must be one of {', '.join(PHASES)}, got {obs['phase']!r}")
        actual = E.PHASE_NAMES[es.phase].lower()
        if obs["phase"] != actual:
            why = " (the history's last card matches two field cards: answer the one to take)" \
                if es.phase in (E.PLAY_CAPTURE, E.DRAW_CAPTURE) else ""
            raise ObservationError(f"phase is {obs['phase']!r} but the history leads to {actual!r}{why}")
    if "field" in obs and _cards(obs, "field", deck) != es.field:
        raise ObservationError(f"field disagrees with the history: it should be {C.cards_of(es.field)}")
    if "piles" in obs:
        piles = obs["piles"]
        if not isinstance(piles, list) or len(piles) != 2:
            raise ObservationError("piles must be two lists of card ids (seat 0, seat 1)")
        for seat in (0, 1):
            if _cards({"piles": piles[seat]}, "piles", deck) != es.piles[seat]:
                raise ObservationError(f"piles[{seat}] disagrees with the history: it should be "
                                       f"{C.cards_of(es.piles[seat])}")
    if "calls" in obs and _pair(obs, "calls") != es.calls:
        raise ObservationError(f"calls disagree with the history: they should be {list(es.calls)}")
