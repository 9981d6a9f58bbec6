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
and sizes beyond the limits below: the file's bytes, nodes, players, actions, depth, a string's characters, a
number's characters and the bits of a payoff summed along a path (a 100 MB title cost 6.8 GB, a 3.9 MB file of
fractions 8 GB and 194 s before the limits). The nodes are read by ``cfrlab.efg.nodes`` (a regular expression per
node, into flat arrays); a node that does not match is read again token by token (``diagnose``) to say what is
wrong. ``file_checks.progress_hook`` hears how far a large file's read has got.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from cfrlab import file_checks
from cfrlab.efg.grammar import (
    CHANCE_KIND,
    DECISION_KIND,
    MAX_ACTIONS,
    MAX_DEPTH,
    MAX_NODES,
    MAX_NUMBER_CHARS,
    MAX_PLAYERS,
    MAX_STRING_CHARS,
    TERMINAL_KIND,
    EfgFormatError,
    EfgTree,
    Tokens,
    header,
    line_of,
    space_after,
)
from cfrlab.efg.nodes import NodeReader
from cfrlab.file_checks import note_input, regular_input

__all__ = ["CHANCE_KIND", "DECISION_KIND", "MAX_ACTIONS", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES",
           "MAX_NUMBER_CHARS", "MAX_PLAYERS", "MAX_STRING_CHARS", "TERMINAL_KIND", "EfgFormatError", "EfgTree",
           "parse_efg", "read_efg"]

MAX_FILE_BYTES = 256 * 2**20
PROGRESS_MIN_BYTES = 8 * 2**20
"""Files from this size on report their read's progress (a second or more)."""


def read_efg(path: str | Path) -> EfgTree:
    """Parse the ``.efg`` file at ``path``; ``EfgFormatError`` (one line: file, line, what is wrong) if bad."""
    try:
        path = regular_input(path, ".efg file")
    except (OSError, ValueError) as exc:
        raise EfgFormatError(str(exc)) from None
    note_input(path, "game file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise EfgFormatError(f"{path}: {size} bytes, more than the {MAX_FILE_BYTES} a .efg file may have here")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EfgFormatError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
    del raw
    tree = parse_efg(text, str(path), _reporter(str(path), len(text)))
    tree.digest = digest
    return tree


def _reporter(source: str, size: int) -> Callable[[int], None] | None:
    """The progress callback of a large file's read (None when nobody listens or the file is small)."""
    hook = file_checks.progress_hook
    if hook is None or size < PROGRESS_MIN_BYTES:
        return None
    return lambda pos: hook(f"reading {source}: {pos / size:.0%} of {size / 1e6:.0f} MB")


def parse_efg(text: str, source: str = "<efg>", progress: Callable[[int], None] | None = None) -> EfgTree:
    """Parse ``.efg`` text (``source`` names it in error messages)."""
    tree, pos = header(Tokens(text, source))
    end = NodeReader(tree, text, source, progress).read(pos)
    rest = space_after(text, end)
    if rest < len(text):
        raise tree.error(source, line_of(text, rest), f"the tree is complete but the file goes on with "
                                                      f"{text[rest:rest + 40].split()[0]!r}")
    return tree
