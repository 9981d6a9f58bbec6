"""Game sessions for the web page: one person against one agent, isolated, keyed by a random id.

Specification in cfrlab:
* A ``GameSession`` owns its state, its seat, its log and its score, and two generators spawned from its own
  seed: one for chance, one for the opponent agent (so the agent never disturbs the deal). Nothing is shared
  between sessions but the immutable game and the stateless agent.
* After every change the session runs chance and the opponent until the person must act or the hand ends.
  An illegal action raises ``IllegalActionError`` before anything changes.
* ``snapshot()`` is the whole response to the browser: the person's view (``view_base.TableView``), their legal
  actions, the hand's log as they perceived it, the result once the hand is over, and the running score.
* ``SessionStore`` keys sessions by ``secrets.token_urlsafe`` ids, caps live sessions per client and in all
  (evicting the least recently used) and drops those idle for longer than ``ttl_seconds``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from cfrlab.agents import Agent
from cfrlab.eval.arena import sample_chance
from cfrlab.game import Game, IllegalActionError, State
from cfrlab.seeding import SeedLike, as_generator, spawn
from cfrlab.web.view_base import Event, TableView


class SessionNotFoundError(KeyError):
    """No live session has this id (never created, deleted or expired)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown session"


class HandInProgressError(RuntimeError):
    """A new hand was asked for while the current one is still being played."""


@dataclass
class Score:
    """The person's running score over finished hands, with a 95 % interval of the mean per hand."""

    total: float = 0.0
    hands: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    results: list[float] = field(default_factory=list)

    def add(self, amount: float) -> None:
        self.total += amount
        self.hands += 1
        self.results.append(amount)
        if amount > 0:
            self.wins += 1
        elif amount < 0:
            self.losses += 1
        else:
            self.ties += 1

    def to_dict(self) -> dict[str, Any]:
        """The counts, plus ``mean`` per hand and its 95 % interval ``low``-``high`` (None before two hands)."""
        from cfrlab.eval.arena import Interval

        out: dict[str, Any] = {k: v for k, v in asdict(self).items() if k != "results"}
        interval = Interval.of(self.results) if self.hands > 1 else None
        out["mean"] = self.total / self.hands if self.hands else None
        out["low"] = interval.low if interval else None
        out["high"] = interval.high if interval else None
        return out

    def line(self, unit: str) -> str:
        """``+3 chips over 5 hands (2 won, 3 lost, 0 tied); per hand +0.6, 95 % interval [-1.2, +2.4]``."""
        d = self.to_dict()
        text = (f"{self.total:+g} {unit}s over {self.hands} hand{'s' if self.hands != 1 else ''} "
                f"({self.wins} won, {self.losses} lost, {self.ties} tied)")
        if d["low"] is not None:
            text += f"; per hand {d['mean']:+.2f}, 95 % interval [{d['low']:+.2f}, {d['high']:+.2f}]"
        return text


class GameSession:
    """One person in ``seat`` against ``agent``, hand after hand."""

    def __init__(
        self, sid: str, game: Game, table: TableView, agent: Agent, seat: int, seed: SeedLike = None,
        now: float = 0.0, hands: int | None = None,
    ) -> None:
        if hands is not None and hands < 1:
            raise ValueError(f"a session needs at least one hand, got {hands}")
        self.id = sid
        self.hands = hands
        """Hands in the session (a match of N hands with a running total), or None: as many as wanted."""
        self.game = game
        self.table = table
        self.agent = agent
        self.seat = _check_seat(seat, game)
        self.chance_rng, self.agent_rng = spawn(as_generator(seed), 2)
        self.score = Score()
        self.hand = 0
        self.log: list[Event] = []
        self.state: State = game.new_initial_state()
        self.last_used = now
        self.lock = threading.Lock()
        self.notice: str | None = None
        """What the person should know about this session, e.g. that an older one of theirs was closed for it."""
        self._start_hand()

    # ------------------------------------------------------------------------------------ play
    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    @property
    def session_over(self) -> bool:
        """All the session's hands are played (never, for an open-ended session)."""
        return self.hands is not None and self.finished and self.score.hands >= self.hands

    def new_hand(self, seat: int | None = None) -> None:
        """Deal a new hand (optionally in another seat); the current one must be over."""
        if not self.finished:
            raise HandInProgressError("the current hand is still being played; finish it before dealing a new one")
        if self.session_over:
            raise HandInProgressError(f"the session of {self.hands} hands is over; start a new session")
        if seat is not None:
            self.seat = _check_seat(seat, self.game)
        self._start_hand()

    def act(self, action: int) -> None:
        """Play ``action`` for the person, then let chance and the opponent move until the person's next turn."""
        if self.finished:
            raise IllegalActionError("the hand is over; start a new hand")
        legal = self.state.legal_actions()
        if action not in legal:
            options = ", ".join(f"{a} ({self.table.action_label(self.state, a)})" for a in legal)
            raise IllegalActionError(f"action {action} is not legal now; legal actions: {options}")
        self._apply(action)
        self._advance()

    def _start_hand(self) -> None:
        self.hand += 1
        self.log = []
        self.state = self.game.new_initial_state()
        self._advance()

    def _apply(self, action: int) -> None:
        event = self.table.describe(self.state, action, self.seat)
        before, self.state = self.state, self.state.child(action)
        if event is not None:
            self.log.append(event)
        self.log.extend(self.table.consequences(before, self.state, self.seat))

    def _advance(self) -> None:
        while not self.state.is_terminal():
            player = self.state.current_player()
            if player == self.seat:
                return
            if self.state.is_chance_node():
                self._apply(sample_chance(self.state, self.chance_rng))
                continue
            action = self.agent.act(self.state, self.agent_rng)
            if action not in self.state.legal_actions():
                raise RuntimeError(f"the opponent agent {self.agent.name!r} chose an illegal action {action}")
            self._apply(action)
        self.score.add(float(self.state.returns()[self.seat]))

    # -------------------------------------------------------------------------------- response
    def snapshot(self) -> dict[str, Any]:
        """Everything the person may see now, as JSON-ready data (never the hidden state)."""
        state, seat = self.state, self.seat
        player = state.current_player()
        mine = player == seat
        return {
            "session": self.id,
            "game": self.game.spec(),
            "family": self.table.family,
            "unit": self.table.unit,
            "seat": seat,
            "opponent": self.agent.name,
            "hand": self.hand,
            "hands": self.hands,
            "words": list(self.table.episode_words()),
            "session_over": self.session_over,
            "view": self.table.view(state, seat),
            "to_act": "you" if mine else (None if state.is_terminal() else "opponent"),
            "legal_actions": (
                [{"id": a, "label": self.table.action_label(state, a)} for a in state.legal_actions()] if mine else []
            ),
            "log": list(self.log),
            "finished": state.is_terminal(),
            "result": self.table.outcome(state, seat) if state.is_terminal() else None,
            "score": self.score.to_dict(),
            "notice": self.notice,
        }


def _check_seat(seat: int, game: Game) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0 or {game.num_players - 1}, got {seat!r}")
    return seat


MAX_SESSIONS_PER_CLIENT = 64
"""Default cap of one client address's live sessions. A classroom behind one NAT, or one person with many tabs,
shares an address: with 8, 192 of 200 games from one address lost their session. The total cap bounds memory."""

MIN_TTL_SECONDS = 1.0
"""Shortest idle time a session may be given (1e-300 minutes expired every session at once)."""


class SessionStore:
    """Live sessions by id: at most ``max_sessions`` in all and ``max_per_client`` per client address, each
    dropped after ``ttl_seconds`` idle. A new session beyond a cap evicts the least recently used one (the
    client's own when it is the client's cap), so no one can lock others out by opening sessions."""

    def __init__(
        self, max_sessions: int = 256, ttl_seconds: float = 3600.0, clock: Callable[[], float] = time.monotonic,
        max_per_client: int = MAX_SESSIONS_PER_CLIENT,
    ) -> None:
        if max_sessions < 1 or max_per_client < 1:
            raise ValueError("max_sessions and max_per_client must be >= 1")
        if not ttl_seconds >= MIN_TTL_SECONDS:
            raise ValueError(f"idle sessions must live at least {MIN_TTL_SECONDS:g} second (--session-ttl "
                             f"{MIN_TTL_SECONDS / 60:.3g} minutes), got {ttl_seconds:g} seconds")
        self.max_sessions = max_sessions
        self.max_per_client = max_per_client
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._sessions: OrderedDict[str, GameSession] = OrderedDict()  # least recently used first
        self._client: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _drop(self, sid: str) -> None:
        del self._sessions[sid]
        del self._client[sid]

    def _expire(self) -> None:
        cutoff = self.clock() - self.ttl_seconds
        for sid in [sid for sid, s in self._sessions.items() if s.last_used < cutoff]:
            self._drop(sid)

    def create(self, make: Callable[[str, float], GameSession], client: str = "") -> GameSession:
        """Build a session with ``make(id, now)`` for ``client`` and keep it, evicting as the caps require."""
        with self._lock:
            self._expire()
            sid = secrets.token_urlsafe(16)
            session = make(sid, self.clock())  # a bad request fails here, before anyone is evicted
            own = [s for s, c in self._client.items() if c == client]
            if len(own) >= self.max_per_client:
                self._drop(min(own, key=lambda s: self._sessions[s].last_used))
                session.notice = (f"your address had {self.max_per_client} open games: the one left idle longest "
                                  "was closed to make room for this one")
            elif len(self._sessions) >= self.max_sessions:
                self._drop(next(iter(self._sessions)))
                session.notice = (f"the server had {self.max_sessions} open games: the one left idle longest was "
                                  "closed to make room for this one")
            self._sessions[sid] = session
            self._client[sid] = client
            return session

    def get(self, sid: str) -> GameSession:
        """The live session ``sid`` (its idle time starts again); ``SessionNotFoundError`` otherwise."""
        with self._lock:
            self._expire()
            session = self._sessions.get(sid)
            if session is None:
                raise SessionNotFoundError(
                    f"no game session {sid!r}: it never existed, was closed, expired after "
                    f"{self.ttl_seconds / 60:g} idle minutes or made room for newer ones; start a new one"
                )
            session.last_used = self.clock()
            self._sessions.move_to_end(sid)
            return session

    def remove(self, sid: str) -> None:
        """Close session ``sid``; ``SessionNotFoundError`` if it is not live."""
        with self._lock:
            if sid not in self._sessions:
                raise SessionNotFoundError(f"no game session {sid!r}")
            self._drop(sid)
