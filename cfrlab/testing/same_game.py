"""``assert_same_game(a, b)``: two implementations of one game compared state by state (players, legal actions,
chance, returns, infoset partition, optionally tensors), as OpenSpiel's ``kuhn_poker_test.test_consistent`` does.

Apart from ``games``, which holds one game to the protocol: this checks agreement between two games, not
conformance, and shares none of that walk.
"""

from __future__ import annotations

import numpy as np

from cfrlab.game import CHANCE, TERMINAL, Game, State
from cfrlab.seeding import SeedLike, as_generator


def assert_same_game(
    a: Game,
    b: Game,
    *,
    tensors: bool = False,
    max_states: int = 500_000,
    prob_tol: float = 1e-12,
    deal_rng: SeedLike | None = None,
    by_rank: bool = False,
) -> int:
    """Assert that two implementations of one game agree state by state; return the states compared.

    Both trees are walked in lockstep through action ids (so the action and
    chance-outcome ids must agree). At every state the acting player, legal
    actions, chance probabilities and terminal returns must be equal, and the
    information-state keys must induce the same partition (a bijection between
    ``a``'s and ``b``'s keys). With ``tensors=True`` the acting player's
    ``information_state_tensor`` (every player's at terminals) must be equal too.
    Used for parity with OpenSpiel, as its ``kuhn_poker_test.test_consistent``.
    With ``deal_rng`` each chance node follows only its outcome of highest random
    priority (priorities drawn once per outcome id, so every branch sees the same
    deal: one random deal, every action sequence), for games too large to walk.
    """
    rng = None if deal_rng is None else as_generator(deal_rng)
    priority: dict[int, float] = {}
    if a.num_players != b.num_players:
        raise AssertionError(f"{a.spec()} has {a.num_players} players, {b.spec()} has {b.num_players}")
    a_to_b: dict[str, str] = {}
    b_to_a: dict[str, str] = {}
    stack: list[tuple[State, State, tuple[int, ...]]] = [(a.new_initial_state(), b.new_initial_state(), ())]
    count = 0

    def fail(path: tuple[int, ...], message: str) -> None:
        raise AssertionError(f"{a.spec()} vs {b.spec()}: after actions {list(path)}: {message}")

    while stack:
        sa, sb, path = stack.pop()
        count += 1
        if count > max_states:
            raise AssertionError(
                f"more than max_states={max_states} states; raise max_states to compare the whole tree"
            )
        pa, pb = sa.current_player(), sb.current_player()
        if pa != pb:
            fail(path, f"current player {pa} vs {pb}")
        la, lb = sorted(sa.legal_actions()), sorted(sb.legal_actions())
        if (len(la) != len(lb)) if by_rank else la != lb:
            fail(path, f"legal actions {la} vs {lb}")
        rank_b = dict(zip(la, lb)) if by_rank else {x: x for x in la}
        if pa == TERMINAL:
            ra, rb = sa.returns(), sb.returns()
            if not np.allclose(ra, rb, rtol=0.0, atol=1e-9):
                fail(path, f"returns {ra} vs {rb}")
            if tensors:
                for p in range(a.num_players):
                    if not np.array_equal(sa.information_state_tensor(p), sb.information_state_tensor(p)):
                        fail(path, f"player {p}'s information_state_tensor differs at the terminal")
            continue
        if pa == CHANCE:
            ca, cb = sorted(sa.chance_outcomes()), sorted(sb.chance_outcomes())
            if [rank_b.get(x) for x, _ in ca] != [x for x, _ in cb] or not np.allclose(
                [p for _, p in ca], [p for _, p in cb], rtol=0.0, atol=prob_tol
            ):
                fail(path, f"chance outcomes {ca} vs {cb}")
            if rng is not None:
                la = [max(la, key=lambda x: priority.setdefault(x, float(rng.random())))]
        else:
            ka, kb = sa.information_state_key(pa), sb.information_state_key(pb)
            if a_to_b.setdefault(ka, kb) != kb:
                fail(path, f"key {ka!r} of the first game matches both {a_to_b[ka]!r} and {kb!r} of the second")
            if b_to_a.setdefault(kb, ka) != ka:
                fail(path, f"key {kb!r} of the second game matches both {b_to_a[kb]!r} and {ka!r} of the first")
            if tensors and not np.array_equal(sa.information_state_tensor(pa), sb.information_state_tensor(pb)):
                fail(path, f"information_state_tensor differs for player {pa}")
        for action in reversed(la):
            stack.append((sa.child(action), sb.child(rank_b[action]), path + (action,)))
    return count
