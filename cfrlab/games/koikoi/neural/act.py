"""A learned Koi-Koi policy read in numba: the network's action head as action values or as policy logits.

The file is the network's usual one (``weights``: format ``cfrlab-koikoi-net``, the arrays of ``NetWeights``),
written by ``cfrlab train koikoi --method dmc|ppo`` with two more metadata entries: ``head`` (``HEADS``) and
``method``. What the 50 outputs of the action head (``wp``, ``bp``; ``infer.forward``'s ``out_logits``) mean:

* ``head = "q"`` (Deep Monte Carlo, Zha et al. 2021, dueling as Wang et al. 2016): output ``a`` is the advantage
  A(s, a), in round points, of action ``a`` at information state s (features ``features.encode``); the mover's
  expected final round points after taking ``a`` and playing on as the training policy did are
  Q(s, a) = V(s) + A(s, a) - the mean of A over the legal actions. The policy plays the legal action of largest A
  (the lowest id on a tie);
* ``head = "policy"`` (PPO, Schulman et al. 2017): outputs are logits; the policy is their softmax over the legal
  actions;
* ``head = "after"`` (Deep Monte Carlo on afterstates, ``neural.afterstate``): the action head is unused; the value
  head's V of each legal action's afterstate (the position right after it, seen by the mover) is the action's
  value, the exact points where the action ends the round. The policy plays the largest (the lowest id on a tie).
  With ``objective = "match"`` in the metadata (``cfrlab train koikoi --method afterstate --objective match``;
  code ``HEAD_AFTER_MATCH``), the value is the mover's match-win probability instead: the sigmoid of the value
  head's second output (its logit) over the afterstate's features with the match's round index and lead, the
  match table's exact value where the action ends the round (``match.win_after_round``).

The value head's first output (``wv[:, 0]``, ``bv[0]``) is V(s), the mover's expected final round points under the
training policy, in both. Illegal outputs are never read. A file without ``head`` (an expert-iteration network,
whose policy head learned the search's choices) reads as ``"policy"``.

``policy_of`` fills the probabilities of the legal actions; ``choose`` draws one from a uniform (with ``explore``,
Q's epsilon-greedy exploration). Both run inside numba loops (``learn.rollout``) and serve the ``net`` agent.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cfrlab.games.koikoi.neural.afterstate import afterstate_values
from cfrlab.games.koikoi.neural.features import encode
from cfrlab.games.koikoi.neural.infer import forward

HEADS = ("q", "policy", "after")
HEAD_Q, HEAD_POLICY, HEAD_AFTER = 0, 1, 2
HEAD_AFTER_MATCH = 3
"""The code of an afterstate file trained for the match (``head`` "after", ``objective`` "match")."""
OBJECTIVES = ("points", "match")


def head_code(meta: dict) -> int:
    """The head code (``HEAD_Q``, ``HEAD_POLICY``, ``HEAD_AFTER``, ``HEAD_AFTER_MATCH``) of a weights file's
    metadata; one ValueError line for any other head or objective."""
    head, objective = meta.get("head", "policy"), meta.get("objective", "points")
    if head not in HEADS:
        raise ValueError(f"the network's head {head!r:.40} is not one of {', '.join(HEADS)}")
    if objective not in OBJECTIVES or (objective == "match" and head != "after"):
        raise ValueError(f"the network's objective {objective!r:.40} is not one of {', '.join(OBJECTIVES)} "
                         "(match: with the afterstate head only)")
    return HEAD_AFTER_MATCH if objective == "match" else HEADS.index(head)


def match_context(for_match: bool, round_index: int, lead: int) -> tuple[int, int]:
    """The match round and lead a file reads in its features: a file trained for the match (``for_match``,
    ``HEAD_AFTER_MATCH``) the real ones; every other file learned single rounds, where both are 0, so it reads 0
    in a match too (the features' rows of later rounds and leads never trained: reading them only adds noise)."""
    return (round_index, lead) if for_match else (0, 0)


def file_head(head: str, objective: str = "points") -> int:
    """The head code of a file with ``head`` (one of ``HEADS``) trained for ``objective``."""
    return head_code({"head": head, "objective": objective})


@nb.njit(cache=True, inline="always")
def is_after(head) -> bool:
    """Whether the head code is an afterstate file's (``HEAD_AFTER``, ``HEAD_AFTER_MATCH``)."""
    return head == HEAD_AFTER or head == HEAD_AFTER_MATCH


@nb.njit(cache=True)
def scores(w, head, pos, seat, round_index, lead, kr, table, legal, m, idx, value, logits, out) -> None:
    """``out[:m]``: what the file's head ranks the legal actions ``legal[:m]`` of ``seat``, the mover at ``pos``, by:
    action values or logits over ``encode(pos, seat, round_index, lead)`` (``forward``), or afterstate values
    (``kr``: the rules; ``table``: the ``match.WinTable`` a match file's values read, ``match.no_table()`` for
    others). ``idx``, ``value``, ``logits``: scratch of sizes ``features.MAX_ACTIVE``, 2 and 50."""
    if is_after(head):
        afterstate_values(w, pos, seat, round_index, lead, legal, m, kr, idx, out, table, head == HEAD_AFTER_MATCH)
        return
    forward(w, idx, encode(pos, seat, round_index, lead, idx), value, logits)
    for i in range(m):
        out[i] = logits[legal[i]]


@nb.njit(cache=True)
def policy_of(w, head, pos, seat, round_index, lead, kr, table, legal, m, idx, probs, value, logits) -> None:
    """``probs[:m]``: the policy's probability of each legal action ``legal[:m]`` of ``seat``, the mover at ``pos``
    (``scores``; scratch as there): the largest score with certainty, or a policy head's softmax."""
    scores(w, head, pos, seat, round_index, lead, kr, table, legal, m, idx, value, logits, probs)
    best = 0
    for i in range(1, m):
        if probs[i] > probs[best]:
            best = i
    if head != HEAD_POLICY:
        for i in range(m):
            probs[i] = 1.0 if i == best else 0.0
        return
    top = probs[best]
    total = 0.0
    for i in range(m):
        probs[i] = np.exp(probs[i] - top)
        total += probs[i]
    for i in range(m):
        probs[i] /= total


@nb.njit(cache=True)
def choose(w, head, pos, seat, round_index, lead, kr, table, legal, m, explore, x, y, idx, probs, value, logits):
    """(index into ``legal``, its probability under the behaviour): with probability ``explore`` (uniform ``y``) a
    uniform legal action, else a draw from ``policy_of`` by the uniform ``x``."""
    policy_of(w, head, pos, seat, round_index, lead, kr, table, legal, m, idx, probs, value, logits)
    pick = m - 1
    acc = 0.0
    for i in range(m):
        acc += probs[i]
        if x < acc:
            pick = i
            break
    if y < explore:
        pick = min(int(x * m), m - 1)
    return pick, (1.0 - explore) * probs[pick] + explore / m
