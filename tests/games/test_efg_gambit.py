"""cfrlab's ``.efg`` reader and writer held to Gambit's (pygambit, the field's reference implementation).

* Every file of Gambit's catalog (shipped with pygambit) reads in cfrlab as the same game as pygambit's own
  re-serialisation of it, and cfrlab refuses exactly the files pygambit finds of imperfect recall.
* pygambit reads every file cfrlab exports; its exact equilibria (``lp_solve`` for zero-sum games, ``lcp_solve``
  otherwise) are equilibria in cfrlab's exact evaluation (NashConv 0), with the same payoffs; the game values
  agree with cfrlab's CFR+ to within its exploitability.
* Three players (no exact solver applies): pygambit's payoffs and largest regret of cfrlab's CFR+ profile equal
  cfrlab's expected values and best-response gains.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cfrlab
from cfrlab.efg import EfgFormatError, EfgGame, write_efg
from cfrlab.eval.metrics import deviation_gains
from cfrlab.testing import assert_same_game

gbt = pytest.importorskip("pygambit")

CATALOG = sorted((Path(gbt.__file__).parent / "catalog_data").rglob("*.efg"))


def decision_infosets(game: EfgGame, player: int) -> list[int]:
    """The player's infosets in the order first met in the file: pygambit's order in a behaviour profile."""
    return [i for i, s in enumerate(game.tree.infosets) if s.player == player]



def gambit_profile(game: EfgGame, efg, policy: cfrlab.TabularPolicy):
    data = []
    for p in range(game.num_players):
        data.append([[policy.action_probabilities(game.infoset_keys[i]).get(a, 0.0)
                      for a in range(len(game.tree.infosets[i].actions))] for i in decision_infosets(game, p)])
    return efg.mixed_behavior_profile(data=data, rational=False)


def legal_policy(game: EfgGame, profile) -> cfrlab.TabularPolicy:
    keys, probs, mask = [], [], []
    for p, name in enumerate(game.tree.players):
        members = list(profile[name])  # (the infoset's first member, [(action name, probability), ...])
        assert len(members) == len(decision_infosets(game, p))
        for infoset, (_, mixed) in zip(decision_infosets(game, p), members):
            actions = game.tree.infosets[infoset].actions
            pairs = list(mixed)
            assert [label for label, _ in pairs] == list(actions)
            keys.append(game.infoset_keys[infoset])
            row = np.array([float(x) for _, x in pairs])  # at an infoset its own player never reaches, the
            row = row / row.sum() if row.sum() > 0 else np.full(len(row), 1 / len(row))  # LP leaves any weights
            probs.append(list(row) + [0.0] * (game.max_actions - len(actions)))
            mask.append([j < len(actions) for j in range(game.max_actions)])
    return cfrlab.TabularPolicy(keys, np.array(probs), np.array(mask))


@pytest.mark.parametrize("path", CATALOG, ids=[p.stem for p in CATALOG])
def test_gambit_catalog_files_read_as_pygambit_reads_them(tmp_path, path):
    reference = gbt.read_efg(str(path))
    if not reference.is_perfect_recall:
        with pytest.raises(EfgFormatError, match=r"line \d+: imperfect recall"):
            cfrlab.load_game(str(path))
        return
    game = cfrlab.load_game(str(path))
    rewritten = tmp_path / "rewritten.efg"
    rewritten.write_text(reference.to_efg())
    assert_same_game(game, cfrlab.load_game(str(rewritten)))
    if game.num_players == 2:
        equilibrium = gbt.nash.lcp_solve(reference, rational=True).equilibrium
        policy = legal_policy(game, equilibrium)
        assert cfrlab.nash_conv(game, policy) == pytest.approx(0.0, abs=1e-9)
        payoffs = [float(equilibrium.payoffs[name]) for name in game.tree.players]
        assert cfrlab.expected_values(game, policy) == pytest.approx(payoffs, abs=1e-9)


TWO_PLAYER = ["kuhn", "random_game(seed=3)", "random_game(seed=5,branching=2,depth=5)",
              "random_game(seed=6,zero_sum=false)"]


@pytest.mark.parametrize("spec", TWO_PLAYER)
def test_gambit_exact_equilibria_of_exported_games_agree_with_cfrlab(tmp_path, spec):
    path = tmp_path / "game.efg"
    write_efg(cfrlab.load_game(spec), path)
    game = cfrlab.load_game(f"efg:{path}")
    reference = gbt.read_efg(str(path))
    assert reference.is_perfect_recall and len(reference.players) == 2
    solve = gbt.nash.lp_solve if game.info.zero_sum else gbt.nash.lcp_solve
    equilibrium = solve(reference, rational=True).equilibrium
    policy = legal_policy(game, equilibrium)
    assert cfrlab.nash_conv(game, policy) == pytest.approx(0.0, abs=1e-9)
    payoffs = np.array([float(equilibrium.payoffs[name]) for name in game.tree.players])
    assert cfrlab.expected_values(game, policy) == pytest.approx(payoffs, abs=1e-9)
    if spec == "kuhn":
        assert payoffs[0] == pytest.approx(-1 / 18)
    if game.info.zero_sum:  # the game value is unique: CFR+'s value lies within its exploitability of it
        result = cfrlab.solve(game, "cfr+", iterations=300)
        values = cfrlab.expected_values(game, result.policy)
        gap = cfrlab.nash_conv(game, result.policy)
        assert abs(values[0] - payoffs[0]) <= gap + 1e-9 and gap < 0.05


@pytest.mark.parametrize("spec", ["kuhn(players=3)", "random_game(seed=2,players=3,depth=5)"])
def test_gambit_measures_cfrlab_three_player_strategies_as_cfrlab_does(tmp_path, spec):
    path = tmp_path / "game.efg"
    write_efg(cfrlab.load_game(spec), path)
    game = cfrlab.load_game(f"efg:{path}")
    reference = gbt.read_efg(str(path))
    policy = cfrlab.solve(game, "cfr+", iterations=50).policy
    profile = gambit_profile(game, reference, policy)
    payoffs = [float(profile.payoffs[name]) for name in game.tree.players]
    assert cfrlab.expected_values(game, policy) == pytest.approx(payoffs, abs=1e-9)
    assert float(profile.max_regret()) == pytest.approx(float(deviation_gains(game, policy).max()), abs=1e-9)
