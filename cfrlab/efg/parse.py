"""Read Gambit's extensive-form format (``.efg``) into flat node tables, refusing a bad file in one line.

The format (Gambit's documentation, "The extensive game (.efg) file format"): a header
``EFG 2 R "title" { "Player 1" "Player 2" ... }`` with an optional comment string, then the tree's nodes in
prefix (depth-first) order, one per line by convention:

* ``c "name" INFOSET ["infoset name" { "action" PROB ... }] OUTCOME ["outcome name" { PAYOFFS }]``: chance;
* ``p "name" PLAYER INFOSET ["infoset name" { "action" ... }] OUTCOME [...]``: a decision of PLAYER (1..n);
* ``t "name" OUTCOME ["outcome name" { PAYOFFS }]``: a terminal node.

An infoset's actions and an outcome's payoffs are given where it first appears and may be left out (or repeated
alike) later; outcome 0 is none. Payoffs of the outcomes on a path add up (Gambit allows outcomes at inner nodes).
Numbers are integers, decimals or fractions (``1/3``), read exactly with ``fractions.Fraction``.

Specification in cfrlab: players 1..n become 0..n-1; a node's actions are 0..k-1 in the order listed. Refused,
with the file's line: a malformed token, an undeclared player, an infoset or outcome used before it is defined
or redefined differently, chance probabilities that are negative or do not sum to 1, imperfect recall (a
player's infoset reached after different own moves of that player: cfrlab's solvers need perfect recall),
and sizes beyond the limits below (a crafted file must not exhaust memory or time).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from cfrlab.game import GameDefinitionError

MAX_FILE_BYTES = 256 * 2**20
MAX_NODES = 2_000_000
MAX_PLAYERS = 64
MAX_ACTIONS = 4_096
MAX_DEPTH = 10_000
MAX_NUMBER_CHARS = 200
PROBABILITY_TOLERANCE = Fraction(1, 10**9)
"""Chance probabilities written as rounded decimals may miss 1 by this much; they are then scaled to sum to 1."""

CHANCE_KIND, DECISION_KIND, TERMINAL_KIND = 0, 1, 2

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{},]|[^\s{},"]+|"', re.S)


class EfgFormatError(GameDefinitionError):
    """A ``.efg`` file cfrlab cannot read, with the file and line in its message."""


@dataclass
class Infoset:
    """An information set of a player (or of chance: ``player`` -1) as the file declares it."""

    player: int
    number: int
    label: str
    actions: tuple[str, ...]
    probs: tuple[Fraction, ...] = ()
    own_history: tuple[int, int] | None = None
    """The player's last (infoset id, action) before this infoset: equal at every member under perfect recall."""


@dataclass
class EfgTree:
    """A parsed file: nodes in file (prefix) order; ``children[n]`` lists node ``n``'s children in action order."""

    title: str
    comment: str
    players: list[str]
    infosets: list[Infoset] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)
    node_infoset: list[int] = field(default_factory=list)
    """Index into ``infosets`` (-1 at terminals)."""
    children: list[list[int]] = field(default_factory=list)
    payoffs: dict[int, tuple[float, ...]] = field(default_factory=dict)
    """Each terminal's payoffs: the sum of the outcomes on its path."""
    node_label: list[str] = field(default_factory=list)


class _Tokens:
    """The file's tokens with their line numbers; ``EfgFormatError`` names the line of the token at fault."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self._iter = self._scan(text)
        self.line = 1
        self._peeked: tuple[str, int] | None = None

    @staticmethod
    def _scan(text: str) -> Iterator[tuple[str, int]]:
        line, last = 1, 0
        for match in _TOKEN.finditer(text):
            line += text.count("\n", last, match.start())
            last = match.start()
            yield match.group(), line

    def fail(self, message: str, line: int | None = None) -> EfgFormatError:
        return EfgFormatError(f"{self.source}, line {line or self.line}: {message}")

    def peek(self) -> str | None:
        if self._peeked is None:
            self._peeked = next(self._iter, None)
        return None if self._peeked is None else self._peeked[0]

    def next(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise self.fail(f"the file ends where {what} was expected")
        assert self._peeked is not None
        self.line = self._peeked[1]
        self._peeked = None
        return token

    def string(self, what: str) -> str:
        token = self.next(what)
        if len(token) < 2 or not token.startswith('"') or not token.endswith('"'):
            raise self.fail(f"expected {what} (a quoted string), got {token[:40]!r}")
        return re.sub(r"\\(.)", r"\1", token[1:-1])

    def optional_string(self) -> str | None:
        token = self.peek()
        return self.string("a string") if token is not None and token.startswith('"') else None

    def expect(self, symbol: str, what: str) -> None:
        token = self.next(what)
        if token != symbol:
            raise self.fail(f"expected {what} ({symbol!r}), got {token[:40]!r}")

    def integer(self, what: str, low: int = 0) -> int:
        token = self.next(what)
        if not re.fullmatch(r"\d{1,18}", token) or int(token) < low:
            raise self.fail(f"expected {what} (an integer >= {low}), got {token[:40]!r}")
        return int(token)

    def number(self, what: str) -> Fraction:
        token = self.next(what)
        if len(token) > MAX_NUMBER_CHARS or not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?(/\d+)?",
                                                            token):
            raise self.fail(f"expected {what} (an integer, decimal or fraction such as 1/3), got {token[:40]!r}")
        try:
            return Fraction(token)
        except ZeroDivisionError:
            raise self.fail(f"{what} {token!r} divides by zero") from None


def read_efg(path: str | Path) -> EfgTree:
    """Parse the ``.efg`` file at ``path``; ``EfgFormatError`` (one line: file, line, what is wrong) if bad."""
    path = Path(path)
    if not path.is_file():
        raise EfgFormatError(f"{path}: no such .efg file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise EfgFormatError(f"{path}: {size} bytes, more than the {MAX_FILE_BYTES} a .efg file may have here")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EfgFormatError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
    return parse_efg(text, str(path))


def parse_efg(text: str, source: str = "<efg>") -> EfgTree:
    """Parse ``.efg`` text (``source`` names it in error messages)."""
    tokens = _Tokens(text, source)
    tree = _header(tokens)
    _Builder(tree, tokens).nodes()
    extra = tokens.peek()
    if extra is not None:
        tokens.next("the end of the file")
        raise tokens.fail(f"the tree is complete but the file goes on with {extra[:40]!r}")
    return tree


def _header(tokens: _Tokens) -> EfgTree:
    if tokens.next("the header 'EFG 2 R'") != "EFG":
        raise tokens.fail("not a Gambit extensive-form file: it must begin with 'EFG 2 R' (or 'EFG 2 D')")
    version = tokens.next("the format version")
    if version != "2":
        raise tokens.fail(f"format version {version[:20]!r}: cfrlab reads version 2 ('EFG 2 R')")
    if tokens.next("R or D") not in ("R", "D"):
        raise tokens.fail("expected R (rational) or D (decimal) after 'EFG 2'")
    title = tokens.string("the game's title")
    tokens.expect("{", "the list of players")
    players: list[str] = []
    while tokens.peek() != "}":
        players.append(tokens.string("a player's name or '}'"))
        if len(players) > MAX_PLAYERS:
            raise tokens.fail(f"more than {MAX_PLAYERS} players")
    tokens.next("}")
    if not players:
        raise tokens.fail("the game declares no players")
    comment = tokens.optional_string() or ""
    return EfgTree(title=title, comment=comment, players=players)


@dataclass
class _Frame:
    """A node whose children are still being read."""

    node: int
    left: int
    payoff: tuple[Fraction, ...]
    own: tuple[tuple[int, int] | None, ...]
    """Per player, the last (infoset id, action) of that player on the path to the next child."""
    next_action: int = 0


class _Builder:
    """Reads the nodes in prefix order with an explicit stack (no recursion: deep trees are fine up to MAX_DEPTH)."""

    def __init__(self, tree: EfgTree, tokens: _Tokens) -> None:
        self.tree, self.tokens = tree, tokens
        self.n = len(tree.players)
        self.infoset_ids: dict[tuple[int, int], int] = {}
        self.outcomes: dict[int, tuple[str, tuple[Fraction, ...]]] = {}

    def nodes(self) -> None:
        tokens, tree = self.tokens, self.tree
        stack: list[_Frame] = []
        zero = tuple(Fraction(0) for _ in range(self.n))
        while True:
            if len(tree.kind) >= MAX_NODES:
                raise tokens.fail(f"more than {MAX_NODES} nodes")
            parent = stack[-1] if stack else None
            payoff, own = (parent.payoff, self._own_after(parent)) if parent else (zero, (None,) * self.n)
            node = self._node(payoff, own)
            if parent is not None:
                tree.children[parent.node].append(node)
                parent.next_action += 1
                parent.left -= 1
            if tree.kind[node] != TERMINAL_KIND:
                if len(stack) >= MAX_DEPTH:
                    raise tokens.fail(f"the tree is deeper than {MAX_DEPTH} levels")
                infoset = tree.infosets[tree.node_infoset[node]]
                stack.append(_Frame(node, len(infoset.actions), self._last_payoff, own))
            while stack and stack[-1].left == 0:
                stack.pop()
            if not stack:
                return

    def _own_after(self, frame: _Frame) -> tuple[tuple[int, int] | None, ...]:
        infoset_id = self.tree.node_infoset[frame.node]
        player = self.tree.infosets[infoset_id].player
        if player < 0:
            return frame.own
        return frame.own[:player] + ((infoset_id, frame.next_action),) + frame.own[player + 1:]

    def _node(self, payoff: tuple[Fraction, ...], own: tuple[tuple[int, int] | None, ...]) -> int:
        tokens, tree = self.tokens, self.tree
        kind_token = tokens.next("a node ('c', 'p' or 't')")
        line = tokens.line
        kinds = {"c": CHANCE_KIND, "p": DECISION_KIND, "t": TERMINAL_KIND}
        if kind_token not in kinds:
            raise tokens.fail(f"expected a node ('c', 'p' or 't'), got {kind_token[:40]!r}")
        kind = kinds[kind_token]
        label = tokens.string("the node's name")
        infoset = -1
        if kind == DECISION_KIND:
            player = tokens.integer("the player's number", 1)
            if player > self.n:
                raise tokens.fail(f"player {player} is not declared (the header names {self.n})")
            infoset = self._infoset(player - 1, own[player - 1], line)
        elif kind == CHANCE_KIND:
            infoset = self._infoset(-1, None, line)
        self._last_payoff = self._add(payoff, self._outcome())
        node = len(tree.kind)
        tree.kind.append(kind)
        tree.node_infoset.append(infoset)
        tree.children.append([])
        tree.node_label.append(label)
        if kind == TERMINAL_KIND:
            try:
                values = tuple(float(x) for x in self._last_payoff)
            except OverflowError:
                values = (float("inf"),)
            if not all(math.isfinite(v) for v in values):
                raise tokens.fail("a payoff is too large for a 64-bit float", line)
            tree.payoffs[node] = values
        return node

    def _infoset(self, player: int, own: tuple[int, int] | None, line: int) -> int:
        tokens = self.tokens
        number = tokens.integer("the information set's number", 1)
        label = tokens.optional_string()
        actions: tuple[str, ...] | None = None
        probs: tuple[Fraction, ...] = ()
        if tokens.peek() == "{":
            actions, probs = self._actions(player < 0)
        who = "chance" if player < 0 else f"player {player + 1}"
        key = (player, number)
        if key not in self.infoset_ids:
            if actions is None:
                raise tokens.fail(f"information set {number} of {who} appears without its actions", line)
            self.infoset_ids[key] = len(self.tree.infosets)
            self.tree.infosets.append(Infoset(player, number, label or "", actions, probs, own))
            return self.infoset_ids[key]
        infoset = self.tree.infosets[self.infoset_ids[key]]
        if actions is not None and (actions != infoset.actions or probs != infoset.probs):
            raise tokens.fail(f"information set {number} of {who} is given other actions than before", line)
        if player >= 0 and own != infoset.own_history:
            raise tokens.fail(f"imperfect recall: information set {number} of {who} is reached after different "
                              f"moves of {who}; cfrlab solves games of perfect recall", line)
        return self.infoset_ids[key]

    def _actions(self, chance: bool) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
        tokens = self.tokens
        tokens.expect("{", "the list of actions")
        line = tokens.line
        actions: list[str] = []
        probs: list[Fraction] = []
        while tokens.peek() != "}":
            actions.append(tokens.string("an action's name or '}'"))
            if chance:
                prob = tokens.number("a chance probability")
                if prob < 0:
                    raise tokens.fail(f"chance probability {prob} is negative")
                probs.append(prob)
                if tokens.peek() == ",":
                    tokens.next(",")
            if len(actions) > MAX_ACTIONS:
                raise tokens.fail(f"more than {MAX_ACTIONS} actions at one node")
        tokens.next("}")
        if not actions:
            raise tokens.fail("a node needs at least one action", line)
        if chance:
            total = sum(probs, Fraction(0))
            if abs(total - 1) > PROBABILITY_TOLERANCE:
                raise tokens.fail(f"chance probabilities sum to {float(total):.12g}, not 1", line)
            probs = [p / total for p in probs]
        return tuple(actions), tuple(probs)

    def _outcome(self) -> tuple[Fraction, ...] | None:
        tokens = self.tokens
        number = tokens.integer("the outcome's number")
        label = tokens.optional_string()
        payoffs: tuple[Fraction, ...] | None = None
        if tokens.peek() == "{":
            tokens.next("{")
            values: list[Fraction] = []
            while tokens.peek() != "}":
                values.append(tokens.number("a payoff"))
                if tokens.peek() == ",":
                    tokens.next(",")
                if len(values) > self.n:
                    break
            tokens.expect("}", "the end of the payoffs")
            if len(values) != self.n:
                raise tokens.fail(f"outcome {number} has {len(values)} payoffs for {self.n} players")
            payoffs = tuple(values)
        if number == 0:
            if payoffs is not None and any(payoffs):
                raise tokens.fail("outcome 0 means 'no outcome' and cannot have payoffs")
            return None
        if number not in self.outcomes:
            if payoffs is None:
                raise tokens.fail(f"outcome {number} appears without its payoffs")
            self.outcomes[number] = (label or "", payoffs)
        elif payoffs is not None and payoffs != self.outcomes[number][1]:
            raise tokens.fail(f"outcome {number} is given other payoffs than before")
        return self.outcomes[number][1]

    @staticmethod
    def _add(payoff: tuple[Fraction, ...], outcome: tuple[Fraction, ...] | None) -> tuple[Fraction, ...]:
        return payoff if outcome is None else tuple(a + b for a, b in zip(payoff, outcome))
