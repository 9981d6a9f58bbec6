"""The ``neural`` Koi-Koi agent: the determinized search with its playouts cut and valued by a learned network.

Method: the search of ``cfrlab.games.koikoi.players.search`` (Long et al. 2010; seed 000 sec. 10-11) whose playouts stop
``CUTOFF`` half-turns after the decision, or as many as the network's file says it was trained with (the choices of
cut depth, halving and pruning by the policy head, measured, are at their constants) and are valued there by the
network's value head (``neural.cut``: the expected round points of the seat to move, from its information only),
the continuation learned by expert iteration (Anthony, Tian and Barber 2017; ``cfrlab train koikoi --method exit``)
instead of greedy play to the round's end. Koi-koi/stop decisions under the match objective keep full playouts
valued by the match table (``SearchConfig.cutoff``).

Specification in cfrlab: ``make_agent("neural")`` uses the shipped weights (``SHIPPED``) and ``DEFAULT_ROLLOUTS``
determinizations per action; ``neural:N`` sets the count, ``neural:Tms`` a time per decision (CPU milliseconds of
the searching thread), ``neural:...:match`` values koi-koi/stop decisions by the match-win probability,
``neural:...:PATH`` a weights file (``neural.weights``) or a folder holding ``weights.npz`` (what ``cfrlab train
koikoi --method exit --out DIR`` writes), e.g. ``neural:20ms:match:run/``. A file that is not such a network is
refused in one line. ``neural:oos[:SECONDS][:PATH]`` plays Online Outcome Sampling (``oos:SECONDS``, the round's
points) whose passes take the network's value where they leave the stored tree instead of playing the round out
uniformly: measured +0.77 [+0.23, +1.31] points per round over plain OOS at 5 ms a move, about +0.3 at 20 ms
(BENCHMARKS.md).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from cfrlab.agents.names import parse_agent
from cfrlab.agents.oos import DEFAULT_SECONDS, OOSAgent
from cfrlab.agents.spec import AgentSpec
from cfrlab.game import State
from cfrlab.games.koikoi.neural.cut import NetEvaluator
from cfrlab.games.koikoi.neural.features import NUM_FEATURES
from cfrlab.games.koikoi.neural.weights import NetWeights, load_weights
from cfrlab.games.koikoi.players.search import DEFAULT_ROLLOUTS, SearchAgent, SearchConfig
from cfrlab.games.koikoi.players.spec import configured
from cfrlab.games.koikoi.solvers.oos_search import KoiKoiSearch

SHIPPED = Path(__file__).parent / "data" / "koikoi_neural.npz"
WEIGHTS = "weights.npz"
"""The weights file in a training folder."""
CUTOFF = 8
"""Half-turns a playout plays before the network values it (``SearchConfig.cutoff``). Measured with early weights
(generation 1: 200,000 decisions of ``search:16`` self-play, 3,000 steps; BENCHMARKS.md) at 5 ms a decision against
``search:5ms``: cut after 2 half-turns -0.85, 4 -0.67, 8 +0.05 and +0.40, 12 -0.15 points per round (intervals about
+-0.4 to +-0.8): the rough network is best trusted late in the round. A network fitted on 4.4 million decisions
measured the same at 20 ms against ``search:20ms``: cut after 2, -0.54 (1,600 deals); 4, -0.25 (400); 8, +0.03
(2,000). A cut playout costs 1.3 to 1.5 times a full
one (an evaluation, 1 us, is about a whole greedy playout), so cutting buys a better continuation, not more
playouts. A weights file that names its own cutoff (``cfrlab train koikoi --method exit`` writes it) is searched
with that one."""
MAX_CUTOFF = 64
"""The most half-turns a weights file may ask for (a full round has 16 to 20)."""
HALVING = False
"""The root's budget by sequential halving (``SearchConfig.halving``): measured no better at 8 half-turns (-0.10
against +0.05 on the same 400 deals)."""
PRUNE = None
"""Root actions the policy head keeps (``SearchConfig.prune``; None: all): keeping 4 lost 0.8 to 1.2 points per
round with the generation-1 policy head (34 % agreement with the search's choice), so the search ranks every
action."""
USAGE = "neural[:N|:Tms][:points|match][:PATH]"


def weights_path(path: str | None) -> Path:
    """The weights file that ``path`` names (a file, or a folder holding ``WEIGHTS``; None: the shipped one)."""
    if path is None:
        if not SHIPPED.exists():
            raise FileNotFoundError(f"no network weights ship with this cfrlab yet: give a weights file or a folder "
                                    f"written by `cfrlab train koikoi --method exit --out DIR` ({USAGE}, e.g. "
                                    "neural:20ms:DIR)")
        return SHIPPED
    file = Path(path) / WEIGHTS if Path(path).is_dir() else Path(path)
    if not file.exists():
        raise FileNotFoundError(f"network weights {str(file)!r} do not exist ({USAGE}: N a count, T milliseconds "
                                "such as 20ms, PATH a weights file or a folder written by `cfrlab train koikoi "
                                "--method exit`)")
    return file


def load_network(path: str | None = None) -> NetWeights:
    """The network of ``path`` (``weights_path``), checked: features of this cfrlab, finite float32 arrays."""
    return network_and_cutoff(path)[0]


def network_and_cutoff(path: str | None = None) -> tuple[NetWeights, int]:
    """The network of ``path`` and the cutoff it was trained with (its metadata's ``cutoff``, written by ``cfrlab
    train koikoi --method exit``; ``CUTOFF`` for a file without one): a network learns the positions its search cut
    at, and a mini variant's rounds are shorter than ``CUTOFF``."""
    file = weights_path(path)
    weights, meta = load_weights(file, num_features=NUM_FEATURES)
    cutoff = meta.get("cutoff", CUTOFF)
    if type(cutoff) is not int or not 1 <= cutoff <= MAX_CUTOFF:
        raise ValueError(f"network weights {str(file)!r} are corrupt: cutoff {cutoff!r:.40} is not a number of "
                         f"half-turns from 1 to {MAX_CUTOFF}")
    return weights, cutoff


def make_neural_agent(game, spec: AgentSpec | str = "neural") -> Any:  # a Koi-Koi game
    """The ``neural[:N|:Tms][:points|match][:PATH]`` or ``neural:oos[:SECONDS][:PATH]`` agent (module docstring)
    for ``game``, by spec or name."""
    _check_game(game)
    spec = parse_agent(spec, game) if isinstance(spec, str) else spec
    if spec.kind == "neural:oos":
        return make_neural_oos_agent(game, spec)
    config = configured(spec, SearchConfig(rollouts=DEFAULT_ROLLOUTS, cutoff=CUTOFF, halving=HALVING, prune=PRUNE))
    weights, cutoff = network_and_cutoff(spec.path)
    config = dataclasses.replace(config, cutoff=cutoff)
    return SearchAgent(game.rules, config, name=spec.name, evaluator=NetEvaluator(weights))


def make_neural_oos_agent(game: Any, spec: AgentSpec) -> NetOOSAgent:  # a Koi-Koi game
    """``neural:oos[:SECONDS][:PATH]``: OOS with the network beyond its tree, SECONDS of CPU a move."""
    _check_game(game)
    agent = NetOOSAgent(game, load_network(spec.path), spec.seconds or DEFAULT_SECONDS)
    agent.name = spec.name
    return agent


def _check_game(game: Any) -> None:  # a Koi-Koi game
    if not game.name.startswith("koikoi"):
        raise ValueError(f"the neural agent plays Koi-Koi only, not {game.spec()}")


class NetOOSAgent(OOSAgent):
    """Online Outcome Sampling (``cfrlab.agents.oos``) whose passes take the network's value where they leave the
    stored tree (``KoiKoiSearch.set_evaluator``), each round's solver given the network as it is made."""

    def __init__(self, game: Any, weights: NetWeights, seconds: float | None = None,  # a Koi-Koi game
                 samples: int | None = None, cut: bool = True, follow: int | None = None) -> None:
        """``cut``: value the passes by the network where they leave the tree; ``follow``: the head code by which
        the players follow the network's policy beyond it (``KoiKoiSearch.set_evaluator``)."""
        self.weights, self.cut, self.follow = weights, cut, follow
        super().__init__(game, seconds=seconds, samples=samples)
        self._attach()

    def _attach(self) -> None:
        store = self.solver.store
        if not isinstance(store, KoiKoiSearch):
            raise ValueError(f"OOS with a network searches full-deck Koi-Koi rounds in numba, not {self.game.spec()}")
        store.set_evaluator(self.weights, self.cut, self.follow)

    def _round_infoset(self, state: State, key: str) -> str:
        solver = self.solver
        rkey = super()._round_infoset(state, key)
        if self.solver is not solver:
            self._attach()
        return rkey
