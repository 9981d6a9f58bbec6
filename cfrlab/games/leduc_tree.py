"""Leduc's game tree built directly as breadth-first arrays, for variants of 1e8 nodes.

``compile_tree`` enumerates states in Python, about 1e5 nodes per second. Leduc's tree is regular:
two private deals, a betting round, a public deal, a betting round. Both rounds follow one betting
automaton (``_automaton``: every action sequence of a round, its actor, legal actions and outcome), so a
node is five small integers (phase, the two private cards, the public card, the betting sequence) and
one numba pass writes the nodes in the very order of the generic breadth-first enumeration: same ids,
infosets, sequences, chance probabilities and returns (tested array for array). The node count is known
in advance (``leduc_num_nodes``), so every array is allocated once at its exact size.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numba import njit

from cfrlab.game import CHANCE, TERMINAL


class LeducShape(Protocol):
    """What the builder reads of a ``LeducHoldem`` (named, not imported: ``cfrlab.games.leduc`` imports this)."""

    ranks: int
    suits: int
    deck_size: int
    max_raises: int
    raise_sizes: tuple[float, float]

    def card_name(self, card: int) -> str: ...

FOLD, CALL, RAISE = 0, 1, 2
DEAL0, DEAL1, ROUND1, BOARD, ROUND2, END = 0, 1, 2, 3, 4, 5
OPEN, FOLDED, CALLED = 0, 1, 2


def _automaton(max_raises: int) -> dict[str, Any]:
    """Every action sequence of one betting round, breadth first: state, actions, children, letters."""
    seqs: list[tuple[int, ...]] = [()]
    status: list[int] = []
    children: list[list[int]] = []
    legal: list[list[int]] = []
    i = 0
    while i < len(seqs):
        seq = seqs[i]
        i += 1
        if seq and (seq[-1] == FOLD or (seq[-1] == CALL and len(seq) >= 2)):
            status.append(FOLDED if seq[-1] == FOLD else CALLED)
            children.append([])
            legal.append([])
            continue
        facing = [FOLD] if seq and seq[-1] == RAISE else []
        acts = facing + [CALL] + ([RAISE] if seq.count(RAISE) < max_raises else [])
        status.append(OPEN)
        legal.append(acts)
        children.append(list(range(len(seqs), len(seqs) + len(acts))))
        seqs.extend(seq + (a,) for a in acts)
    width = 3
    child = np.full((len(seqs), width), -1, dtype=np.int32)
    action = np.full((len(seqs), width), -1, dtype=np.int32)
    actions = np.full((len(seqs), 2 * max_raises + 2), -1, dtype=np.int32)
    for s, (kids, acts) in enumerate(zip(children, legal)):
        child[s, : len(kids)] = kids
        action[s, : len(acts)] = acts
        actions[s, : len(seqs[s])] = seqs[s]
    return {"status": np.array(status, dtype=np.int8), "child": child, "action": action, "actions": actions,
            "length": np.array([len(s) for s in seqs], dtype=np.int32),
            "letters": ["".join("fcr"[a] for a in s) for s in seqs]}


def leduc_num_nodes(deck: int, max_raises: int, rank_suits: int = 0) -> int:
    """Nodes of the tree: root, deals, round 1 per deal, and per call-ended round 1 one round 2 per board.

    With ``rank_suits`` (the suits per rank) chance deals ranks, as ``leduc_suitless`` does.
    """
    auto = _automaton(max_raises)
    seqs, called = len(auto["status"]), int((auto["status"] == CALLED).sum())
    if not rank_suits:
        return 1 + deck + deck * (deck - 1) * (seqs + called * (deck - 2) * seqs)
    ranks = deck // rank_suits
    # Deals of a pair (both cards of one rank: rank_suits > 1) and of two ranks; the boards each leaves are the
    # ranks with a card left (a loop over rank triples took 20 s for 500 ranks before the size was refused).
    pairs, boards_pair = ranks * (rank_suits > 1), ranks - 1 + (rank_suits > 2)
    twos, boards_two = ranks * (ranks - 1), ranks - 2 + 2 * (rank_suits > 1)
    return 1 + ranks + pairs * (seqs + called * boards_pair * seqs) + twos * (seqs + called * boards_two * seqs)


@njit(cache=True)
def _spent(actions, length, r1, r2, sizes):
    """Chips each player has put in, replaying the rounds as ``LeducState.contributions`` does."""
    spent = np.ones(2)
    for rnd in range(2):
        seq = r1 if rnd == 0 else r2
        if seq < 0:
            break
        for i in range(length[seq]):
            a = actions[seq, i]
            top = max(spent[0], spent[1])
            if a == CALL:
                spent[i % 2] = top
            elif a == RAISE:
                spent[i % 2] = top + sizes[rnd]
    return spent


@njit(cache=True)
def _build(deck, suits, ranks, by_rank, status, child, action, actions, length, sizes, num_seqs, out_player, out_parent,
           out_action, out_depth, out_count, out_prob, out_infoset, out_pseq, out_utility, key_table, inf_tuple,
           inf_start):
    """Breadth-first fill: node n's children are written at the end of the array, as the queue would."""
    phase = np.empty(out_player.shape[0], dtype=np.int8)
    c0 = np.empty(out_player.shape[0], dtype=np.int8)
    c1 = np.empty(out_player.shape[0], dtype=np.int8)
    board = np.empty(out_player.shape[0], dtype=np.int8)
    r1 = np.empty(out_player.shape[0], dtype=np.int32)
    r2 = np.empty(out_player.shape[0], dtype=np.int32)
    phase[0], c0[0], c1[0], board[0], r1[0], r2[0] = DEAL0, -1, -1, -1, -1, -1
    out_parent[0], out_action[0], out_depth[0], out_prob[0], out_pseq[0] = -1, -1, 0, 1.0, -1
    free = 1
    infosets = 0
    sequences = 0
    for n in range(out_player.shape[0]):
        ph = phase[n]
        if ph == ROUND1 and status[r1[n]] == CALLED:
            ph = BOARD
        if (ph == ROUND1 and status[r1[n]] == FOLDED) or (ph == ROUND2 and status[r2[n]] != OPEN):
            ph = END
        out_infoset[n] = -1
        if ph == END:
            out_player[n] = TERMINAL
            out_count[n] = 0
            spent = _spent(actions, length, r1[n], r2[n] if phase[n] == ROUND2 else -1, sizes)
            seq = r1[n] if phase[n] == ROUND1 else r2[n]
            if status[seq] == FOLDED:
                loser = (length[seq] - 1) % 2
                for p in range(2):
                    out_utility[n, p] = -spent[loser] if p == loser else spent[loser]
            else:
                pub = board[n] // suits
                s0 = c0[n] // suits + (ranks if c0[n] // suits == pub else 0)
                s1 = c1[n] // suits + (ranks if c1[n] // suits == pub else 0)
                pot = spent[0] + spent[1]
                winners = 2 if s0 == s1 else 1
                for p in range(2):
                    win = s0 == s1 or (s0 > s1) == (p == 0)
                    out_utility[n, p] = (pot / winners if win else 0.0) - spent[p]
            continue
        if ph == DEAL0 or ph == DEAL1 or ph == BOARD:
            out_player[n] = CHANCE
            left = deck - (0 if ph == DEAL0 else (1 if ph == DEAL1 else 2))
            out_count[n] = 0
            for card in range(deck):
                if card == c0[n] or card == c1[n]:
                    continue
                weight = 1
                if by_rank:  # one outcome per rank: its lowest card left, weighted by the cards of it left
                    rank_lo = card - card % suits
                    weight = 0
                    for other in range(rank_lo, rank_lo + suits):
                        if other != c0[n] and other != c1[n]:
                            if other < card:
                                weight = -1
                                break
                            weight += 1
                    if weight < 0:
                        continue
                out_count[n] += 1
                phase[free] = DEAL1 if ph == DEAL0 else ROUND1 if ph == DEAL1 else ROUND2
                c0[free] = card if ph == DEAL0 else c0[n]
                c1[free] = card if ph == DEAL1 else c1[n]
                board[free] = card if ph == BOARD else -1
                r1[free] = 0 if ph == DEAL1 else r1[n]
                r2[free] = 0 if ph == BOARD else -1
                out_parent[free], out_action[free], out_depth[free] = n, card, out_depth[n] + 1
                out_prob[free], out_pseq[free] = (weight / left if by_rank else 1.0 / left), -1
                free += 1
            continue
        seq = r1[n] if ph == ROUND1 else r2[n]
        p = length[seq] % 2
        own = c0[n] if p == 0 else c1[n]
        k2 = r2[n] if ph == ROUND2 else 0
        own_id, board_id = own, board[n]
        if by_rank:  # the infoset sees ranks only
            own_id, board_id = own // suits, (board[n] // suits if board[n] >= 0 else -1)
        key = (((p * deck + own_id) * num_seqs + r1[n]) * (deck + 1) + board_id + 1) * num_seqs + k2
        idx = key_table[key]
        if idx < 0:
            idx = infosets
            key_table[key] = idx
            inf_tuple[idx, 0], inf_tuple[idx, 1], inf_tuple[idx, 2] = p, own, r1[n]
            inf_tuple[idx, 3], inf_tuple[idx, 4], inf_tuple[idx, 5] = board[n], (r2[n] if ph == ROUND2 else -1), n
            inf_start[idx] = sequences
            k = 0
            while k < 3 and action[seq, k] >= 0:
                k += 1
            sequences += k
            infosets += 1
        out_player[n] = p
        out_infoset[n] = idx
        k = 0
        while k < 3 and child[seq, k] >= 0:
            phase[free], c0[free], c1[free], board[free] = ph, c0[n], c1[n], board[n]
            r1[free] = child[seq, k] if ph == ROUND1 else r1[n]
            r2[free] = child[seq, k] if ph == ROUND2 else -1
            out_parent[free], out_action[free], out_depth[free] = n, action[seq, k], out_depth[n] + 1
            out_prob[free], out_pseq[free] = 1.0, inf_start[idx] + k
            free += 1
            k += 1
        out_count[n] = k
    return infosets, sequences


def leduc_tree_arrays(game: LeducShape, by_rank: bool = False) -> dict[str, Any]:
    """For a ``LeducHoldem``: the arrays and keys ``compile_tree`` would produce, without visiting a state.

    ``by_rank``: chance deals one card per rank (its lowest left), weighted by the cards of it left
    (``SuitlessLeduc``, the suit quotient).
    """
    auto = _automaton(game.max_raises)
    deck, num_seqs = game.deck_size, len(auto["status"])
    n = leduc_num_nodes(deck, game.max_raises, game.suits if by_rank else 0)
    out: dict[str, Any] = {"player": np.empty(n, dtype=np.int8), "parent": np.empty(n, dtype=np.int32),
           "action": np.empty(n, dtype=np.int32), "depth": np.empty(n, dtype=np.int32),
           "child_count": np.empty(n, dtype=np.int64), "chance_prob": np.empty(n),
           "infoset": np.empty(n, dtype=np.int32), "parent_sequence": np.empty(n, dtype=np.int64),
           "utility": np.zeros((n, 2))}
    key_table = np.full(2 * deck * num_seqs * (deck + 1) * num_seqs, -1, dtype=np.int64)
    opened, called = int((auto["status"] == OPEN).sum()), int((auto["status"] == CALLED).sum())
    most = deck * opened + deck * called * (deck - 1) * opened  # every (card, board, sequence) is reached
    inf_tuple = np.empty((most, 6), dtype=np.int64)
    inf_start = np.empty(most, dtype=np.int64)
    infosets, sequences = _build(
        deck, game.suits, game.ranks, by_rank, auto["status"], auto["child"], auto["action"], auto["actions"],
        auto["length"],
        np.array(game.raise_sizes), num_seqs, out["player"], out["parent"], out["action"], out["depth"],
        out["child_count"], out["chance_prob"], out["infoset"], out["parent_sequence"], out["utility"], key_table,
        inf_tuple, inf_start)
    del key_table
    inf = inf_tuple[:infosets]
    letters, name = auto["letters"], game.card_name
    keys = [f"{p}:{name(c)}:{letters[a]}" + (f"/{name(b)}:{letters[s]}" if b >= 0 else "")
            for p, c, a, b, s, _ in inf.tolist()]
    seq_of = np.where(inf[:, 4] >= 0, inf[:, 4], inf[:, 2])
    counts = (auto["action"][seq_of] >= 0).sum(axis=1)
    sequence_action = auto["action"][seq_of][auto["action"][seq_of] >= 0].astype(np.int32)
    out.update(infoset_player=inf[:, 0].astype(np.int8), infoset_node=inf[:, 5].copy(),
               infoset_offset=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
               sequence_action=sequence_action, infoset_keys=keys)
    assert int(out["infoset_offset"][-1]) == sequences
    return out
