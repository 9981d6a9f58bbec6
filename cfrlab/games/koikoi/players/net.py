"""The ``net`` Koi-Koi agent: a learned policy alone, no search.

Method: the policy of a network trained from the outcomes of self-play (``cfrlab train koikoi --method
afterstate|dmc|ppo``; Deep Monte Carlo on afterstates or on action values, Zha et al. 2021, or PPO, Schulman et al.
2017), read by ``neural.act``: the largest afterstate value (an afterstate file: one network pass per legal
action), the largest action value (a DMC file) or the softmax of the policy logits (a PPO file), over the flow
position of what the seat to move knows (``information.root_position``: never the opponent's hand or the stock).
An afterstate file trained for the match (``--objective match``) plays the largest match-win probability, the match's
round and lead in its features and the rules' match table valuing the round's ends (single rounds: the first round
of a match at level scores). Every other file learned single rounds and reads round 0 and lead 0 in a match too
(``act.match_context``).

Specification in cfrlab: ``net`` plays the shipped weights (``SHIPPED``); ``net:PATH`` a weights file or a folder
holding ``weights.npz`` (what ``cfrlab train koikoi --method afterstate --out DIR`` writes).
``action_probabilities`` gives the policy (``cfrlab eval GAME --agent net:PATH`` tabulates it for the exact
exploitability); ``act`` draws from it.
Measured cost: ``benchmarks/bench_koikoi_net.py`` (BENCHMARKS.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.agents.names import parse_agent
from cfrlab.agents.spec import AgentSpec
from cfrlab.games.koikoi.neural.act import HEAD_AFTER_MATCH, HEADS, head_code, match_context, policy_of
from cfrlab.games.koikoi.neural.features import MAX_ACTIVE, NUM_FEATURES
from cfrlab.games.koikoi.neural.weights import NetWeights, load_weights
from cfrlab.games.koikoi.rules import flow
from cfrlab.games.koikoi.rules.information import information, root_position
from cfrlab.games.koikoi.rules.kernels import kernel_rules
from cfrlab.games.koikoi.rules.match import NO_TABLE, MatchTable, WinTable, win_table

SHIPPED = Path(__file__).parent / "data" / "koikoi_net.npz"
WEIGHTS = "weights.npz"
USAGE = "net[:PATH]"

class NetAgent:
    """Plays ``weights`` by their head code (``neural.act``: ``HEAD_Q`` .. ``HEAD_AFTER_MATCH``); ``table``: the match
    table a match file's values read (default the rules' ``match.match_table``)."""

    def __init__(self, weights: NetWeights, head: int, name: str = "net", table: MatchTable | None = None) -> None:
        self.weights, self.head, self.name, self.table = weights, int(head), name, table
        self._value, self._logits = np.empty(2, dtype=np.float32), np.empty(50, dtype=np.float32)
        self._idx = np.empty(MAX_ACTIVE, dtype=np.int32)
        self._rules: tuple[Any, Any, WinTable] | None = None

    def action_probabilities(self, state: Any, rng: np.random.Generator | None = None) -> dict[int, float]:
        """The policy at ``state`` over its legal actions (``rng`` unused: the policy is a function of the
        information set: the flow position of what the mover knows, ``information.root_position``)."""
        engine, es, player = state.game.engine, state.es, state.current_player()
        if self._rules is None or self._rules[0] is not state.game.rules:
            rules = state.game.rules
            table = win_table(rules, self.table) if self.head == HEAD_AFTER_MATCH else NO_TABLE
            self._rules = (rules, kernel_rules(rules), table)
        st, cards = root_position(information(engine, es, player))
        legal = np.asarray(state.legal_actions(), dtype=np.int64)
        probs = np.empty(len(legal), dtype=np.float64)
        lead = es.totals[player] - es.totals[1 - player]
        round_index, lead = match_context(self.head == HEAD_AFTER_MATCH, es.round, lead)
        policy_of(self.weights, self.head, flow.load(st, cards), player, round_index, lead, self._rules[1],
                  self._rules[2], legal, len(legal), self._idx, probs, self._value, self._logits)
        return {int(a): float(p) for a, p in zip(legal, probs)}

    def act(self, state: Any, rng: np.random.Generator) -> int:  # a KoiKoiState
        probs = self.action_probabilities(state, rng)
        actions = list(probs)
        if len(actions) == 1 or max(probs.values()) >= 1.0:
            return max(actions, key=lambda a: probs[a])
        p = np.array([probs[a] for a in actions])
        return int(actions[int(rng.choice(len(actions), p=p / p.sum()))])

def weights_file(path: str | None) -> Path:
    """The weights file ``path`` names (a file, or a folder holding ``WEIGHTS``; None: the shipped one)."""
    if path is None:
        if not SHIPPED.exists():
            raise FileNotFoundError("no net weights ship with this cfrlab yet: give a file or a folder written by "
                                    "`cfrlab train koikoi --method dmc --out DIR` (net:DIR)")
        return SHIPPED
    file = Path(path) / WEIGHTS if Path(path).is_dir() else Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"net weights {str(file)!r} do not exist ({USAGE}: PATH a weights file or a folder "
                                "written by `cfrlab train koikoi --method dmc|ppo --out DIR`)")
    return file

def load_net(path: str | None = None, name: str = "net") -> NetAgent:
    """The agent of the weights file ``path`` names (``weights_file``), its head read from the file."""
    file = weights_file(path)
    weights, meta = load_weights(file, num_features=NUM_FEATURES)
    try:
        head = head_code(meta)
    except ValueError as exc:
        raise ValueError(f"net weights {str(file)!r}: {exc} (heads: {', '.join(HEADS)})") from None
    return NetAgent(weights, head, name)

def make_net_agent(game: Any, spec: AgentSpec | str = "net") -> NetAgent:  # a Koi-Koi game
    """The ``net[:PATH]`` agent for ``game`` (module docstring), by spec or name."""
    if not game.name.startswith("koikoi"):
        raise ValueError(f"the net agent plays Koi-Koi only, not {game.spec()}")
    spec = parse_agent(spec, game) if isinstance(spec, str) else spec
    if spec.path is not None and not spec.path.strip():
        raise ValueError(f"{USAGE} needs a path after 'net:', got {spec.name!r}")
    return load_net(spec.path, spec.name)
