"""The pieces of ``.efg`` reading below the node loop: the limits, the tree's arrays (``EfgTree``), the token reader
of the header and of a node that did not match (``diagnose``), and the parsers of an infoset's or outcome's braces
(the format and its specification in cfrlab: ``cfrlab.efg.parse``)."""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import GameDefinitionError

MAX_NODES = 2_000_000
MAX_PLAYERS = 64
MAX_ACTIONS = 4_096
MAX_DEPTH = 10_000
MAX_STRING_CHARS = 65_536
"""Characters of a quoted name (cfrlab's longest infoset keys, hold'em histories, are a few hundred)."""
MAX_NUMBER_CHARS = 400
"""Characters of a number: every float64 written exactly as a fraction fits (at most 342), so ``export`` writes
no payoff its reader refuses."""
MAX_PAYOFF_VALUES = 2**24
"""Distinct terminal payoff rows times players (128 MB of floats): 64 players and a row per terminal would be 1 GB."""
MAX_EXACT_BYTES = 256 * 2**20
"""Bytes of the exact payoff sums kept while reading (distinct sums along paths, their numbers' bits)."""
MAX_PAYOFF_BITS = 4_096
"""Bits of a numerator or denominator of a payoff summed along a path, or of chance probabilities' sum."""
PROBABILITY_TOLERANCE = Fraction(1, 10**9)
"""Chance probabilities written as rounded decimals may miss 1 by this much; they are then scaled to sum to 1."""

CHANCE_KIND, DECISION_KIND, TERMINAL_KIND = 0, 1, 2

STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
"""A quoted string, backslash escapes allowed; possessive (``*+``): no backtracking state grows with its length
(``(?:[^"\\]|\\.)*`` held one per character: a 100 MB title cost 6.8 GB)."""
_TOKEN = re.compile(rf'{STRING}|[{{}},]|[^\s{{}},"]++|"', re.S)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?(/\d+)?")
_BLOCK_TOKEN = re.compile(rf'{STRING}|[^\s,"]++|"', re.S)
_PAYOFF_TOKEN = re.compile(r"[^\s,]++")
_ESCAPE = re.compile(r"\\(.)", re.S)
_SPACE = re.compile(r"\s*+")



Fail = Callable[[str], Exception]
"""Makes the error of a message, naming the file and the line at fault."""


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
    own_history: int = 0
    """The player's last move before this infoset (0: none), as ``nodes.NodeReader`` encodes it: equal at every
    member under perfect recall."""


@dataclass
class EfgTree:
    """A parsed file: nodes in file (prefix) order in flat numpy arrays (``freeze`` sets them)."""

    title: str
    comment: str
    players: list[str]
    digest: str = ""
    """sha256 of the file's bytes (hex)."""
    infosets: list[Infoset] = field(default_factory=list)
    kind: NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, np.int8))
    node_infoset: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    """Index into ``infosets`` (-1 at terminals)."""
    child_offset: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    """Node n's child by action a is ``children[child_offset[n] + a]`` (a < its infoset's action count)."""
    children: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    payoff_row: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    """Each terminal's row of ``payoff_table`` (the sum of the outcomes on its path); -1 elsewhere."""
    payoff_rows: array = field(default_factory=lambda: array("d"))
    """The distinct terminal payoffs, a row of ``len(players)`` floats each, while the file is read."""
    payoff_table: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @staticmethod
    def error(source: str, line: int, message: str) -> EfgFormatError:
        return EfgFormatError(f"{source}, line {line}: {message}")

    def add_payoffs(self, exact: tuple[Fraction, ...], fail: Fail) -> int:
        """The row of a terminal's payoffs ``exact`` as floats, refused when one overflows a float64."""
        try:
            values = tuple(float(x) for x in exact)
        except OverflowError:
            values = (math.inf,)
        if not all(math.isfinite(v) for v in values):
            raise fail("a payoff is too large for a 64-bit float")
        if len(self.payoff_rows) + len(values) > MAX_PAYOFF_VALUES:
            raise fail(f"more than {MAX_PAYOFF_VALUES:,} distinct payoffs (terminals' rows times players)")
        self.payoff_rows.extend(values)
        return len(self.payoff_rows) // len(values) - 1

    def freeze(self, kind: NDArray[np.int8], node_infoset: NDArray[np.int32], child_offset: NDArray[np.int64],
               children: NDArray[np.int32], payoff_row: NDArray[np.int32]) -> None:
        """Take the node arrays, and the payoff rows read as a table."""
        self.kind, self.node_infoset, self.child_offset = kind, node_infoset, child_offset
        self.children, self.payoff_row = children, payoff_row
        self.payoff_table = np.frombuffer(self.payoff_rows, dtype=np.float64).reshape(-1, len(self.players))


class Tokens:
    """The file's tokens from ``start`` with their line numbers; ``EfgFormatError`` names the line at fault.
    ``pos``: where the last token taken ends."""

    def __init__(self, text: str, source: str, start: int = 0) -> None:
        self.source = source
        self.line = line_of(text, start)
        self.pos = start
        self._iter = self._scan(text, start, text.count("\n", 0, start) + 1)
        self._peeked: tuple[str, int, int] | None = None

    @staticmethod
    def _scan(text: str, start: int, line: int) -> Iterator[tuple[str, int, int]]:
        last = start
        for match in _TOKEN.finditer(text, start):
            line += text.count("\n", last, match.start())
            last = match.start()
            yield match.group(), line, match.end()

    def fail(self, message: str, line: int | None = None) -> EfgFormatError:
        return EfgTree.error(self.source, line or self.line, message)

    def peek(self) -> str | None:
        if self._peeked is None:
            self._peeked = next(self._iter, None)
        return None if self._peeked is None else self._peeked[0]

    def next(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise self.fail(f"the file ends where {what} was expected")
        assert self._peeked is not None
        _, self.line, self.pos = self._peeked
        self._peeked = None
        return token

    def string(self, what: str) -> str:
        token = self.next(what)
        if token == '"':
            raise self.fail(f"{what} is a string that does not end")
        if len(token) < 2 or not token.startswith('"') or not token.endswith('"'):
            raise self.fail(f"expected {what} (a quoted string), got {token[:40]!r}")
        if len(token) > MAX_STRING_CHARS + 2:
            raise self.fail(f"{what} is longer than {MAX_STRING_CHARS:,} characters")
        return unescape(token[1:-1])

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


def space_after(text: str, pos: int) -> int:
    """Where the white space from ``pos`` ends."""
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def line_of(text: str, pos: int) -> int:
    """The line of the first character at or after ``pos`` that is not white space."""
    return text.count("\n", 0, space_after(text, pos)) + 1


def number(token: str, what: str, fail: Fail) -> Fraction:
    """``token`` as an exact number: an integer, decimal (exponent allowed) or fraction of bounded length."""
    if len(token) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(token):
        raise fail(f"expected {what} (an integer, decimal or fraction such as 1/3), got {token[:40]!r}")
    try:
        return Fraction(token)
    except ZeroDivisionError:
        raise fail(f"{what} {token!r} divides by zero") from None


def action_block(block: str, chance: bool, fail: Fail) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    """The actions (and chance probabilities, scaled to sum to 1) between an infoset's braces; commas are
    optional."""
    actions: list[str] = []
    probs: list[Fraction] = []
    tokens = _BLOCK_TOKEN.finditer(block)
    for match in tokens:
        token = match.group()
        if not token.startswith('"') or len(token) < 2:
            raise fail(f"expected an action's name (a quoted string) or '}}', got {token[:40]!r}")
        actions.append(unescape(token[1:-1]))
        if len(actions) > MAX_ACTIONS:
            raise fail(f"more than {MAX_ACTIONS} actions at one node")
        if chance:
            following = next(tokens, None)
            prob = number(following.group() if following else "", "a chance probability", fail)
            if prob < 0:
                raise fail(f"chance probability {prob} is negative")
            probs.append(prob)
    if not actions:
        raise fail("a node needs at least one action")
    if any(len(name) > MAX_STRING_CHARS for name in actions):
        raise fail(f"an action's name is longer than {MAX_STRING_CHARS:,} characters")
    if chance:
        total = sum(probs, Fraction(0))
        if total.denominator.bit_length() > MAX_PAYOFF_BITS:
            raise fail(f"chance probabilities need more than {MAX_PAYOFF_BITS} bits to add up exactly")
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            try:
                shown = f"{float(total):.12g}"
            except OverflowError:
                shown = "more than 1e308"
            raise fail(f"chance probabilities sum to {shown}, not 1")
        probs = probs if total == 1 else [p / total for p in probs]
    return tuple(actions), tuple(probs)


def payoff_block(block: str, players: int, outcome: int, fail: Fail) -> tuple[Fraction, ...]:
    """The payoffs between an outcome's braces: one number per player, commas optional."""
    values: list[Fraction] = []
    for match in _PAYOFF_TOKEN.finditer(block):
        if len(values) == players:
            values.append(Fraction(0))
            break
        values.append(number(match.group(), "a payoff", fail))
    if len(values) != players:
        raise fail(f"outcome {outcome} has {len(values)} payoffs for {players} players")
    return tuple(values)


def unescape(text: str) -> str:
    """A quoted string's content with its backslash escapes resolved."""
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def diagnose(text: str, last: int, pos: int, source: str, players: int) -> EfgFormatError:
    """What is wrong where ``nodes.NODE`` did not match at ``pos``, read token by token from ``last`` (the node
    before, whose match may have ended early at a malformed number)."""
    tokens = Tokens(text, source, last)
    try:
        for _ in range(2 if last < pos else 1):
            _node_syntax(tokens, players)
    except EfgFormatError as exc:
        return exc
    return tokens.fail(f"cannot read the node here: {text[pos:pos + 60].strip()!r}")


def _node_syntax(tokens: Tokens, players: int) -> None:
    """Read one node's tokens, refusing the first that does not belong (the grammar, no meaning)."""
    kind = tokens.next("a node ('c', 'p' or 't')")
    if kind not in ("c", "p", "t"):
        raise tokens.fail(f"expected a node ('c', 'p' or 't'), got {kind[:40]!r}")
    tokens.string("the node's name")
    if kind == "p":
        player = tokens.integer("the player's number", 1)
        if player > players:
            raise tokens.fail(f"player {player} is not declared (the header names {players})")
    if kind != "t":
        tokens.integer("the information set's number", 1)
        tokens.optional_string()
        _braces(tokens, "the list of actions")
    tokens.integer("the outcome's number")
    tokens.optional_string()
    _braces(tokens, "the payoffs")


def _braces(tokens: Tokens, what: str) -> None:
    """Read a ``{ ... }`` list if one comes: strings, numbers and commas up to the closing brace."""
    if tokens.peek() != "{":
        return
    tokens.next("{")
    while tokens.peek() != "}":
        token = tokens.next(f"the end of {what}")
        if token == "{":
            raise tokens.fail(f"expected the end of {what} ('}}'), got '{{'")
        if token == '"':
            raise tokens.fail("a name is a string that does not end")
    tokens.next("}")


def header(tokens: Tokens) -> tuple[EfgTree, int]:
    """The header's tree and the position where the nodes begin."""
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
    return EfgTree(title=title, comment=comment, players=players), tokens.pos
