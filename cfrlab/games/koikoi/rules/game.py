"""Koi-Koi as a cfrlab ``Game``: explicit chance nodes, perfect-recall information-state keys, action names.

Rules: see ``cfrlab.games.koikoi.rules.engine`` and koikoi-rules.md (the default rule set is ``nintendo``).

Specification in cfrlab:
* ``load_game("koikoi")`` is one round under ``nintendo`` with player 0 the oya; parameters: ``rules`` (a preset:
  nintendo, fudawiki, koikoi_japan, hanafuda_flash, mini, mini_tsukifuda), ``rounds`` (1 = single round, 12 = the
  match, or any count), ``first_oya`` (0, 1 or ``coin`` for a chance node), ``match_utility`` (``points``: net points;
  ``win``: +1/-1/0), and any ``RuleSet`` field as an override, e.g. ``koikoi(rules=fudawiki,koikoi_limit=1)``.
  ``load_game("koikoi_mini")`` is the mini variant (months 8-9, hands of 2, no field; every option overridable);
  ``load_game("koikoi_mini_tsukifuda")`` adds Tsukifuda 2, which makes the koi-koi decision matter.
* Chance nodes: the first-oya coin, the deal and each draw. **The full-game deal is sampled, never enumerated**:
  every ``KoiKoiState`` has ``sample_chance(rng) -> action``, which draws a chance action with its probability at
  any chance node; at a deal with more than ``ENUMERABLE_DEALS`` outcomes, ``chance_outcomes()`` and
  ``legal_actions()`` raise ``GameDefinitionError`` saying so. Mini variants list their deals. The listed deals
  leave out misdeals (redeals) and renormalise, which is the same distribution over played deals as redealing;
  a sampled misdeal leads to an explicit redeal node instead.
* Actions: 0-47 cards (play / capture target), 48 STOP, 49 KOI-KOI; chance: deal rank, drawn card id, coin 0/1.
* Information-state key of player p: ``"p|<own dealt hands>|<public history>"``. The public history holds each
  dealt field, every played card, capture choice, drawn card, STOP/KOI-KOI, misdeal and revealed teyaku hand;
  own current hand = dealt hand minus own plays, so the key has perfect recall. ``public_state_key`` is the
  public history alone.
* ``information_state_tensor``: see ``cfrlab.games.koikoi.rules.encode`` (7 planes of 48 plus 24 scalars).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import CHANCE, Game, GameDefinitionError, GameInfo, State
from cfrlab.game import TERMINAL as TERMINAL_PLAYER
from cfrlab.games.koikoi.rules import cards as C
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.games.koikoi.rules.deal import KoiKoiDeal
from cfrlab.games.koikoi.rules.rules import MAX_ROUNDS, MAX_RULE_NUMBER, PRESETS, RuleSet, match_rounds

_GAME_PARAMS = {"rules": "nintendo", "rounds": 1, "first_oya": 0, "match_utility": "points"}


@dataclass(frozen=True, slots=True)
class KoiKoiState(State):
    """A Koi-Koi history: the engine state plus the public and private observation records."""

    game: KoiKoiGame
    es: E.EngineState
    pub: str = ""
    priv: tuple[str, str] = ("", "")

    # ---------------------------------------------------------------- protocol
    def current_player(self) -> int:
        ph = self.es.phase
        if ph == E.TERMINAL:
            return TERMINAL_PLAYER
        if ph in E.CHANCE_PHASES:
            return CHANCE
        return (self.es.oya + self.es.turn) & 1

    def is_terminal(self) -> bool:
        return self.es.phase == E.TERMINAL

    def is_chance_node(self) -> bool:
        return self.es.phase in E.CHANCE_PHASES

    def legal_actions(self) -> list[int]:
        if self.es.phase == E.DEAL:
            return [a for a, _ in self.game._deal_outcomes()]
        return self.game.engine.legal_actions(self.es)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.es.phase not in E.CHANCE_PHASES:
            return State.chance_outcomes(self)
        if self.es.phase == E.DEAL:
            return list(self.game._deal_outcomes())
        return self.game.engine.chance_outcomes(self.es)

    def sample_chance(self, rng: np.random.Generator) -> int:
        """A chance action drawn with its probability at any chance node (the only way through a full-game deal)."""
        if self.es.phase not in E.CHANCE_PHASES:
            raise GameDefinitionError("sample_chance() is only defined at chance nodes")
        if self.es.phase == E.DEAL and self.game.engine.deals_enumerable:
            deals = self.game._deal_outcomes()
            return deals[int(rng.integers(len(deals)))][0]
        return self.game.engine.sample_chance(self.es, rng)

    def child(self, action: int) -> KoiKoiState:
        """The successor; the engine validates every action (also the unlisted full-game deals)."""
        if self.es.phase == E.DEAL and self.game.engine.deals_enumerable:
            return cast(KoiKoiState, State.child(self, action))
        return self._apply(action)

    def _apply(self, action: int) -> KoiKoiState:
        eng, es = self.game.engine, self.es
        ph = es.phase
        new = eng.step(es, action)  # raises IllegalActionError, es untouched
        a = int(action)
        pub, priv = self.pub, self.priv
        if ph == E.DEAL:
            ko, field, oya_hand = eng.decode_deal(a)
            hands = (oya_hand, ko) if es.oya == 0 else (ko, oya_hand)
            if new.phase == E.DEAL and new.redeals > es.redeals:  # misdeal: redeal, everyone saw it
                pub += f"X{field:x}"
                priv = (priv[0] + f"x{hands[0]:x}", priv[1] + f"x{hands[1]:x}")
            else:
                pub += f"|F{field:x}"
                priv = (priv[0] + f"H{hands[0]:x}", priv[1] + f"H{hands[1]:x}")
                if new.phase == E.TERMINAL or new.round != es.round:  # teyaku or void: hands shown
                    res = new.result
                    shown = (0, 1) if res is None or res.winner < 0 else (res.winner,)
                    pub += "T" + ",".join(f"{p}:{hands[p]:x}" for p in shown)
        elif ph == E.FIRST_OYA:
            pub += f"o{a}"
        elif ph == E.PLAY:
            pub += f"P{a}"
        elif ph == E.DRAW:
            pub += f"D{a}"
        elif ph in (E.PLAY_CAPTURE, E.DRAW_CAPTURE):
            pub += f"C{a}"
        else:
            pub += "S" if a == E.STOP else "K"
        return KoiKoiState(self.game, new, pub, priv)

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if player not in (0, 1):
            raise ValueError(f"information_state_key needs player 0 or 1, got {player}")
        return f"{player}|{self.priv[player]}|{self.pub}"

    def public_state_key(self) -> str:
        """The public history: dealt fields, misdeals, plays, capture choices, draws, calls, revealed hands (whose
        turn follows from it); Online Outcome Sampling's public-subgame targeting groups histories by it."""
        return self.pub

    def information_state_tensor(self, player: int | None = None) -> NDArray[np.float32]:
        from cfrlab.games.koikoi.rules.encode import information_state_tensor

        player = self.current_player() if player is None else player
        if player not in (0, 1):
            raise ValueError(f"information_state_tensor needs player 0 or 1, got {player}")
        return information_state_tensor(self.game.engine, self.es, player)

    def returns(self) -> list[float]:
        return list(self.game.engine.returns(self.es))

    def action_to_string(self, action: int) -> str:
        ph = self.es.phase
        if ph == E.DEAL:
            return f"Deal#{action}"
        if ph == E.FIRST_OYA:
            return f"FirstOya:{action}"
        if action == E.STOP and ph == E.DECIDE:
            return "STOP"
        if action == E.KOIKOI and ph == E.DECIDE:
            return "KOI-KOI"
        if 0 <= action < 48:
            verb = {E.PLAY: "Play", E.DRAW: "Draw"}.get(ph, "Take")
            return f"{verb} {C.card_label(action)}"
        return str(action)

    # ---------------------------------------------------------------- extras
    @property
    def rounds_played(self) -> int:
        """Rounds finished so far (for per-round statistics)."""
        return self.es.round + (1 if self.es.phase == E.TERMINAL else 0)

    @property
    def phase(self) -> str:
        return E.PHASE_NAMES[self.es.phase]

    def __str__(self) -> str:
        es = self.es
        return (f"round {es.round + 1} phase {self.phase} turn {es.turn} oya {es.oya} field "
                f"{C.cards_of(es.field)} piles {[C.cards_of(p) for p in es.piles]} totals {es.totals}")


class KoiKoiGame(Game):
    """Koi-Koi under a ``RuleSet``: one round (``rounds=1``) or a match (``rounds=12``)."""

    name = "koikoi"
    rules_version = 1
    default_preset = "nintendo"
    default_params = _GAME_PARAMS
    parameter_help = {
        "rules": "rules preset: " + ", ".join(PRESETS),
        "rounds": "rounds in a match: an integer >= 1 (1: one round, 12: a full match)",
        "first_oya": "the first dealer: 0, 1 or coin",
        "match_utility": "points (the score difference) or win (+1 / -1 / 0 for the match)",
        "OPTION": "any rule option of cfrlab.games.koikoi.rules.rules.RuleSet, e.g. koikoi_limit=0 (a number from -1 "
                  f"to {MAX_RULE_NUMBER})",
    }
    parameter_bounds = {**{f.name: (-1, MAX_RULE_NUMBER) for f in fields(RuleSet) if f.type == "int"},
                        "rounds": (1, MAX_ROUNDS), "first_oya": (0, 1)}

    def __init__(self, **params: Any) -> None:
        given = dict(params)
        game_params = {k: given.pop(k) for k in list(given) if k in _GAME_PARAMS}
        merged = {**_GAME_PARAMS, "rules": self.default_preset, **game_params}
        super().__init__(**{**merged, **given})
        preset = merged["rules"]
        if preset not in PRESETS:
            raise GameDefinitionError(f"{self.name}: unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
        rounds = merged["rounds"]
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise GameDefinitionError(f"{self.name}: rounds must be a positive integer, got {rounds!r}")
        first = merged["first_oya"]
        first_oya = None if first == "coin" else first
        if first_oya not in (0, 1, None):
            raise GameDefinitionError(f"{self.name}: first_oya must be 0, 1 or coin, got {first!r}")
        self.rules: RuleSet = RuleSet.preset(preset, **{**given, "rounds": rounds})
        self.engine = E.Engine(self.rules, first_oya=first_oya, match_utility=merged["match_utility"])
        bound = float(self.engine.max_points() * rounds)
        if merged["match_utility"] == "win" and rounds > 1:
            bound = 1.0
        self._info = GameInfo(
            num_players=2,
            max_actions=E.NUM_ACTIONS,
            max_chance_outcomes=max(self.engine.num_deals, len(self.engine.deck_cards)),
            min_utility=-bound,
            max_utility=bound,
            zero_sum=True,
        )
        self._deals: list[tuple[int, float]] | None = None

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> KoiKoiState:
        return KoiKoiState(self, self.engine.initial_state())

    def information_state_tensor_size(self) -> int:
        from cfrlab.games.koikoi.rules.encode import TENSOR_SIZE

        return TENSOR_SIZE

    def conditioned_deal(self) -> Callable[..., KoiKoiDeal] | None:
        """The deal drawn given one player's infoset of a single round, or its public state with ``public``
        (``cfrlab.games.koikoi.rules.deal``); None for matches, whose later rounds deal again in the middle of the
        history (``cfrlab.games.koikoi.rules.match_round`` makes the current round a game of its own)."""
        if self.rules.rounds != 1:
            return None
        return lambda key, player, public=False: KoiKoiDeal(self, key, player, public=public)

    def _deal_outcomes(self) -> list[tuple[int, float]]:
        """The listed deal outcomes (mini variants): every non-misdeal partition, equally likely."""
        if self._deals is None:
            eng = self.engine
            eng._require_enumerable()
            probe = eng.initial_state()._replace(phase=E.DEAL)
            valid = [a for a in range(eng.num_deals) if eng.step(probe, a).redeals == 0]
            if not valid:
                raise GameDefinitionError(f"{self.name}: every deal is a misdeal under these rules")
            self._deals = [(a, 1.0 / len(valid)) for a in valid]
        return self._deals


class KoiKoiMini(KoiKoiGame):
    """Mini Koi-Koi: the same engine over a few months with small hands (``RuleSet.mini``), fully enumerable."""

    name = "koikoi_mini"
    default_preset = "mini"
    default_params = {**_GAME_PARAMS, "rules": "mini"}


class KoiKoiMiniTsukifuda(KoiKoiGame):
    """Mini Koi-Koi with Tsukifuda 2 (``RuleSet.mini_tsukifuda``): koi-koi calls and the 7+ doubling change the
    equilibrium; as small as ``koikoi_mini``, so it compiles and is solved exactly."""

    name = "koikoi_mini_tsukifuda"
    default_preset = "mini_tsukifuda"
    default_params = {**_GAME_PARAMS, "rules": "mini_tsukifuda"}


def match_rounds_of(name: str, params: dict[str, Any]) -> int:
    """Rounds of a match of game ``name`` with ``params``: its preset's own count (koikoi_japan: 8), else 12."""
    presets = {c.name: c.default_preset for c in (KoiKoiGame, KoiKoiMini, KoiKoiMiniTsukifuda)}
    return match_rounds(params.get("rules", presets.get(name, "nintendo")))


def match_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` of game ``name`` made a whole match (``cfrlab arena --match``): the preset's rounds, a coin for
    the first dealer, where ``params`` leave them out."""
    return {"rounds": match_rounds_of(name, params), "first_oya": "coin", **params}


def match_option(name: str, params: dict[str, Any], on: bool) -> dict[str, Any]:
    """``arena --match`` (the family's ``CommandOption``): ``match_params`` when ``on``."""
    return match_params(name, params) if on else params


def solve_refusal(game: Any, algo: str) -> str | None:
    """Why ``cfrlab solve`` cannot solve ``game`` (the family's ``Solvers.refusal``): full Koi-Koi's deal (about 3e23
    outcomes) is sampled, never enumerated, and every ``solve`` algorithm enumerates chance outcomes or reads their
    probabilities; its CFR runs over an abstraction in ``cfrlab train`` and online in the ``cfr`` and ``oos`` agents
    (OOS's numba walk keys its tables by hashes: no strategy file). None for a game whose deal is enumerable."""
    if not isinstance(game, KoiKoiGame) or game.engine.deals_enumerable:
        return None
    return (f"{algo} cannot solve {game.spec()}: its deal has {game.engine.num_deals:.3g} outcomes, sampled and "
            "never enumerated. Train the CFR blueprint with `cfrlab train koikoi --hours H --out DIR` and play it "
            "with `cfrlab play koikoi --opponent cfr:DIR`, search online with `--opponent oos` or `cfr`, or solve a "
            "mini variant exactly (`cfrlab solve koikoi_mini`)")


def game_for_rules(rules: RuleSet) -> KoiKoiGame:
    """The ``KoiKoiGame`` playing ``rules`` (its preset plus every field that differs from it)."""
    base = RuleSet.preset(rules.name)
    changed = {f.name: getattr(rules, f.name) for f in fields(RuleSet)
               if f.name not in ("name", "rounds") and getattr(rules, f.name) != getattr(base, f.name)}
    return KoiKoiGame(rules=rules.name, rounds=rules.rounds, **changed)
