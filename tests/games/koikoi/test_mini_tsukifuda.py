"""The mini variant where koi-koi matters: compiled and solved exactly; the equilibrium calls koi-koi and the calls
change the game's value."""

from __future__ import annotations

import pytest

from cfrlab.eval import action_frequency, expected_values, exploitability
from cfrlab.games.koikoi.rules import engine as E
from cfrlab.registry import load_game
from cfrlab.solvers.cfr import CFRPlus
from cfrlab.tree import compile_tree


def solve(spec: str, iterations: int = 150):
    game = load_game(spec)
    tree = compile_tree(game)
    solver = CFRPlus(game, tree=tree)
    solver.iterate(iterations)
    return tree, solver.average_policy()


@pytest.fixture(scope="module")
def solved():
    return solve("koikoi_mini_tsukifuda")


def test_the_variant_compiles_small_and_cfr_plus_solves_it_exactly(solved) -> None:
    tree, policy = solved
    assert tree.num_nodes < 200_000
    assert exploitability(tree, policy) < 1e-3


def test_the_equilibrium_calls_koikoi_and_the_calls_change_the_value(solved) -> None:
    """The oya's equilibrium value with koi-koi calls and in the same game where every yaku stops at once differ
    by far more than the two exploitabilities (each value is exact to within its profile's exploitability)."""
    tree, policy = solved
    calls = action_frequency(tree, policy, E.KOIKOI)
    assert calls > 0.02  # koi-koi is called in more than 2 % of the rounds
    plain_tree, plain = solve("koikoi_mini_tsukifuda(koikoi_allowed=false)")
    assert action_frequency(plain_tree, plain, E.KOIKOI) == 0.0
    eps = exploitability(tree, policy) + exploitability(plain_tree, plain)
    gap = expected_values(plain_tree, plain)[1] - expected_values(tree, policy)[1]
    assert gap < -0.2 and eps < 0.01  # the ko, who holds the decisions, is worth 0.2+ points more with calls
