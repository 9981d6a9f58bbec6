"""The node list of a ``.efg`` file read one node per regular-expression match, into flat arrays.

The grammar is ``cfrlab.efg.parse``'s (Gambit's format). Speed (``benchmarks/bench_efg_parse.py``): the nodes are
one ``finditer`` pass over the text, each match capturing a node's fields in C (an empty alternative matches where
no node begins, so no text is skipped); an information set's or outcome's braces, repeated at every member (as
``cfrlab export`` and Gambit write them), are compared as text with the first one, and every distinct brace text
is parsed once (a cache). Payoffs along a path are summed exactly (``Fraction``) once per distinct (sum so far,
outcome) pair, so exact arithmetic costs nothing per node. Per node the loop keeps two integers (a code: infoset
or payoff row; the parent's child slot it fills) and the frames of the open nodes; kinds, child offsets and the
children are then built from those with numpy. Where no node matches, ``parse.diagnose`` reads that node token by
token to say what is wrong and on which line.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import islice

import numpy as np

from cfrlab.efg.grammar import (
    CHANCE_KIND,
    DECISION_KIND,
    MAX_ACTIONS,
    MAX_DEPTH,
    MAX_EXACT_BYTES,
    MAX_NODES,
    MAX_PAYOFF_BITS,
    MAX_STRING_CHARS,
    STRING,
    TERMINAL_KIND,
    EfgTree,
    Infoset,
    action_block,
    diagnose,
    line_of,
    payoff_block,
    unescape,
)

_S = rf"({STRING[1:-1]})".join('""')
_B = rf'\{{([^"{{}}]*+(?:{STRING}[^"{{}}]*+)*+)\}}'
_N = r'(?<!\d)(\d{1,18}+)(?![^\s{}",])'
_OUT = rf"\s*+{_N}(?:\s*+{_S})?(?:\s*+{_B})?"
_INF = rf"(?:\s*+{_S})?(?:\s*+{_B})?"
NODE = re.compile(rf"\s*+(?:t\s*+{STRING}{_OUT}|c\s*+{STRING}\s*+{_N}{_INF}{_OUT}"
                  rf"|p\s*+{STRING}\s*+{_N}\s++{_N}{_INF}{_OUT}|)", re.S)
"""One node: ``t "name" OUTCOME ["label"] [{payoffs}]`` (groups 0-2), ``c "name" INFOSET ["label"] [{actions}]``
then the outcome (groups 3-8), ``p "name" PLAYER INFOSET ...`` (groups 9-15); names are not kept. Possessive
(``*+``): nothing is tried twice, so a match costs its length. The last, empty alternative matches where no node
begins (groups 0, 3 and 9 all None: the end of the file or an error), so ``finditer`` never skips text. A number
of more digits than 18 or glued to text ends the match early, and the next match is that empty one, where
``diagnose`` finds what is wrong."""
CHUNK_NODES = 100_000
"""Nodes read at most between two checks of the node count and two calls of the progress callback."""
PROGRESS_CHARS = 4_000_000
"""Characters read, about, between two calls of the progress callback (a chunk's nodes at the mean size so far)."""


class NodeReader:
    """Reads the nodes of ``text`` from ``pos`` into ``tree`` (prefix order, an explicit stack)."""

    def __init__(self, tree: EfgTree, text: str, source: str, progress: Callable[[int], None] | None = None) -> None:
        self.tree, self.text, self.source, self.progress = tree, text, source, progress
        self.n = len(tree.players)
        self.infoset_ids: dict[tuple[int, int], int] = {}
        self.known_infosets: dict[tuple[int, str, str | None], tuple[int, int, int]] = {}
        """(player, number, brace text) as a node gives them -> (infoset id, action count, own history)."""
        self.terminal_rows: dict[tuple[int, str, str | None], int] = {}
        """(path sum id, outcome number, brace text) as a terminal gives them -> payoff row."""
        self.outcomes: dict[int, tuple[int, str | None]] = {0: (-1, None)}
        """Outcome number -> (index into ``sums``' outcome table, its brace text as first given)."""
        self.outcome_values: list[tuple[Fraction, ...]] = []
        self.sums: list[tuple[Fraction, ...]] = [tuple(Fraction(0) for _ in range(self.n))]
        self.sum_ids: dict[tuple[int, int], int] = {}
        self.exact_bytes = 0
        self.blocks: dict[tuple[str, bool], tuple[tuple[str, ...], tuple[Fraction, ...]]] = {}
        self.slots = 0
        """Children slots given out so far (a node's are the next ones, in file order)."""
        self.floats: dict[int, int] = {}
        """Path sum id -> row of ``tree.payoff_table``."""

    def fail(self, message: str, pos: int) -> Exception:
        return self.tree.error(self.source, line_of(self.text, pos), message)

    def _failing(self, pos: int) -> Callable[[str], Exception]:
        """The error maker for the node at ``pos`` (its line counted only if it fails)."""
        return lambda message: self.fail(message, pos)

    def read(self, pos: int) -> int:
        """Read the whole tree from ``pos``; return where the text after it begins."""
        matches = NODE.finditer(self.text, pos)
        codes, slots = array("i"), array("q")
        stack: list[list[int]] = [[-1, 0, -1, 0, 0, 0]]  # the root's parent: its one slot (-1), then none
        own = [0] * self.n  # per player: their last move on the path, ``1 + infoset * (MAX_ACTIONS + 1) + action``
        chunk = min(CHUNK_NODES, 1_000)
        while True:
            end = self._chunk(islice(matches, chunk), stack, own, codes, slots)
            if len(codes) > MAX_NODES:
                raise self.fail(f"more than {MAX_NODES:,} nodes", end)
            if not stack:
                self._freeze(codes, slots)
                return end
            if self.progress is not None:
                self.progress(end)
            chunk = min(CHUNK_NODES, max(1, PROGRESS_CHARS * len(codes) // (end - pos)))  # nodes in about that

    def _chunk(self, matches: Iterator[re.Match[str]], stack: list[list[int]], own: list[int], codes: array,
               slots: array) -> int:
        """Read up to a chunk's nodes (``matches``) onto the open ``stack``; return where the last one ends.

        A frame is ``[next child's slot, end slot, player (-1 chance), path sum id, own-move base, own move to
        restore]``; a node takes its parent's next slot, a terminal's code is ``~payoff row``, a decision's or
        chance node's its infoset id."""
        add_code, add_slot, push, n = codes.append, slots.append, stack.append, self.n
        known_infosets, terminal_rows = self.known_infosets, self.terminal_rows
        frame, prev, m = stack[-1], None, None
        for m in matches:
            g = m.groups()
            if g[0] is not None:  # t OUTCOME ["label"] [{payoffs}]
                row = terminal_rows.get((frame[3], g[0], g[2]))
                if row is None:
                    row = self._terminal_row(frame[3], g[0], g[1], g[2], m.start())
                add_code(~row)
                slot = frame[0]
                add_slot(slot)
                if slot + 1 != frame[1]:
                    frame[0] = slot + 1
                    prev = m
                    continue
                while True:  # this frame's children are read: close it and every closed frame below
                    stack.pop()
                    if frame[2] >= 0:
                        own[frame[2]] = frame[5]
                    if not stack:
                        return m.end()
                    frame = stack[-1]
                    if frame[0] != frame[1]:
                        break
            else:  # c INFOSET ... OUTCOME ..., or p PLAYER INFOSET ... OUTCOME ...
                if g[3] is not None:
                    at, player = 3, -1
                elif g[9] is None:
                    raise diagnose(self.text, prev.start() if prev else m.start(), m.start(), self.source, n)
                else:
                    at, player = 10, int(g[9]) - 1
                    if not 0 <= player < n:
                        raise self.fail(f"player {player + 1} is not declared (the header names {n})"
                                        if player >= 0 else "expected the player's number (an integer >= 1)",
                                        m.start())
                slot = frame[0]
                add_slot(slot)
                frame[0] = slot + 1
                if frame[2] >= 0:
                    own[frame[2]] = frame[4] + slot
                mine = own[player] if player >= 0 else 0
                hit = known_infosets.get((player, g[at], g[at + 2]))
                if hit is None or hit[2] != mine:
                    hit = self._infoset(player, g[at], g[at + 1], g[at + 2], mine, m.start())
                total = frame[3] if g[at + 3] == "0" and g[at + 5] is None else \
                    self._outcome(frame[3], g[at + 3], g[at + 5], m.start())
                add_code(hit[0])
                if len(stack) > MAX_DEPTH:
                    raise self.fail(f"the tree is deeper than {MAX_DEPTH} levels", m.start())
                first = self.slots
                self.slots = first + hit[1]
                frame = [first, first + hit[1], player, total, 1 + hit[0] * (MAX_ACTIONS + 1) - first, mine]
                push(frame)
            prev = m
        assert m is not None  # the empty alternative matches where no node does: a chunk is never empty
        return m.end()

    def _freeze(self, codes: array, slots: array) -> None:
        """The tree's arrays from the nodes' codes and slots, vectorised: kinds, infosets and payoff rows from the
        codes; child offsets the running sum of action counts; ``children[slot] = node``."""
        infosets = self.tree.infosets
        code = np.frombuffer(codes, dtype=np.int32)
        inner = code >= 0
        kinds = np.array([CHANCE_KIND if s.player < 0 else DECISION_KIND for s in infosets], dtype=np.int8)
        arity = np.array([len(s.actions) for s in infosets], dtype=np.int64)
        kind = np.full(len(code), TERMINAL_KIND, dtype=np.int8)
        kind[inner] = kinds[code[inner]]
        counts = np.zeros(len(code), dtype=np.int64)
        counts[inner] = arity[code[inner]]
        child_offset = np.zeros(len(code), dtype=np.int64)
        np.cumsum(counts[:-1], out=child_offset[1:])
        children = np.empty(self.slots, dtype=np.int32)
        children[np.frombuffer(slots, dtype=np.int64)[1:]] = np.arange(1, len(code), dtype=np.int32)
        self.tree.freeze(kind, np.where(inner, code, -1).astype(np.int32), child_offset, children,
                         np.where(inner, -1, ~code).astype(np.int32))

    def _terminal_row(self, sum_id: int, number: str, label: str | None, block: str | None, pos: int) -> int:
        """The payoff row of a terminal below path sum ``sum_id`` with outcome ``number`` (remembered)."""
        total = self._outcome(sum_id, number, block, pos)
        row = self.floats.get(total)
        if row is None:
            row = self.floats[total] = self.tree.add_payoffs(self.sums[total], self._failing(pos))
        self.terminal_rows[(sum_id, number, block)] = row
        return row

    def _infoset(self, player: int, number: str, label: str | None, block: str | None, own: int,
                 pos: int) -> tuple[int, int, int]:
        """(id, action count, own history) of the infoset a node names, defined here if new, checked against its
        definition (actions, perfect recall) if not; remembered under the node's text for the next member."""
        key = (player, int(number))
        found = self.infoset_ids.get(key)
        who = "chance" if player < 0 else f"player {player + 1}"
        if found is None:
            if block is None:
                raise self.fail(f"information set {key[1]} of {who} appears without its actions", pos)
            actions, probs = self._actions(block, player < 0, pos)
            if len(label or "") > MAX_STRING_CHARS:
                raise self.fail(f"an information set's label is longer than {MAX_STRING_CHARS:,} characters", pos)
            found = self.infoset_ids[key] = len(self.tree.infosets)
            self.tree.infosets.append(Infoset(player, key[1], unescape(label or ""), actions, probs, own))
        infoset = self.tree.infosets[found]
        if block is not None and self._actions(block, player < 0, pos) != (infoset.actions, infoset.probs):
            raise self.fail(f"information set {key[1]} of {who} is given other actions than before", pos)
        if player >= 0 and own != infoset.own_history:
            raise self.fail(f"imperfect recall: information set {key[1]} of {who} is reached after different "
                            f"moves of {who}; cfrlab solves games of perfect recall", pos)
        hit = self.known_infosets[(player, number, block)] = (found, len(infoset.actions), infoset.own_history)
        return hit

    def _actions(self, block: str, chance: bool, pos: int) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
        """``parse.action_block`` of ``block``, once per distinct text (a chance node's braces repeat across the
        tree: the same deck at every deal)."""
        known = self.blocks.get((block, chance))
        if known is None:
            known = self.blocks[(block, chance)] = action_block(block, chance, self._failing(pos))
        return known

    def _outcome(self, sum_id: int, number: str, block: str | None, pos: int) -> int:
        """The id of the path's payoff sum after outcome ``number`` (defined here if it is new)."""
        num = int(number)
        known = self.outcomes.get(num)
        if known is None:
            if block is None:
                raise self.fail(f"outcome {num} appears without its payoffs", pos)
            values = payoff_block(block, self.n, num, self._failing(pos))
            self.outcomes[num] = known = (len(self.outcome_values), block)
            self.outcome_values.append(values)
        elif block is not None and block != known[1]:
            values = payoff_block(block, self.n, num, self._failing(pos))
            if num == 0 and any(values):
                raise self.fail("outcome 0 means 'no outcome' and cannot have payoffs", pos)
            if num != 0 and values != self.outcome_values[known[0]]:
                raise self.fail(f"outcome {num} is given other payoffs than before", pos)
        if known[0] < 0:
            return sum_id
        key = (sum_id, known[0])
        found = self.sum_ids.get(key)
        if found is None:
            total = tuple(a + b for a, b in zip(self.sums[sum_id], self.outcome_values[known[0]]))
            if any(max(x.numerator.bit_length(), x.denominator.bit_length()) > MAX_PAYOFF_BITS for x in total):
                raise self.fail(f"the payoffs summed along a path need more than {MAX_PAYOFF_BITS} bits to hold "
                                "exactly", pos)
            self.exact_bytes += sum(64 + (x.numerator.bit_length() + x.denominator.bit_length()) // 8 for x in total)
            if self.exact_bytes > MAX_EXACT_BYTES:
                raise self.fail(f"the exact payoff sums along the paths need more than {MAX_EXACT_BYTES // 2**20} MB",
                                pos)
            found = self.sum_ids[key] = len(self.sums)
            self.sums.append(total)
        return found
