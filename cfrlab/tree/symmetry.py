"""Strategies of a game's symmetry quotient (``Game.symmetry_quotient``) expanded back to the full game.

Every infoset of the full game maps to one quotient infoset with the same legal actions
(``Game.quotient_key``); a full-game sequence takes the probability of the quotient sequence with the
same action. Solving the quotient is lossless: symmetric infosets of the full game carry scaled copies
of one regret vector, so CFR plays the same strategy at all of them (Gilpin & Sandholm 2007).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import NDArray

from cfrlab.game import GameDefinitionError
from cfrlab.tree.arrays import GameTree


def expansion_index(full: GameTree, quotient: GameTree, quotient_key: Callable[[str], str]) -> NDArray[np.int64]:
    """Quotient sequence of every full-game sequence: ``full_probs = quotient_probs[index]``."""
    rows = np.array([quotient.infoset_index(quotient_key(k)) for k in full.infoset_keys], dtype=np.int64)
    if (quotient.num_actions()[rows] != full.num_actions()).any():
        raise GameDefinitionError(f"{quotient.game_spec}: a merged infoset has other actions than {full.game_spec}")
    within = np.arange(full.num_sequences) - full.infoset_offset[full.sequence_infoset]
    index = quotient.infoset_offset[rows][full.sequence_infoset] + within
    if (quotient.sequence_action[index] != full.sequence_action).any():
        raise GameDefinitionError(f"{quotient.game_spec}: a merged infoset orders its actions differently")
    return index
