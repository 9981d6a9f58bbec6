"""Agents that play cfrlab games: the ``Agent`` protocol, ``RandomAgent`` and ``PolicyAgent``.

An agent maps a decision state to an action: ``act(state, rng) -> int``. It must read only what the acting player
may know (``state.information_state_key()``, ``information_state_tensor()``, or a game's player view); the arena
never hands it anything else to act on, but states carry the full history, so the rule is one of discipline.
Game-specific heuristics live with their game (``cfrlab.games.koikoi.players.greedy``).
"""

from cfrlab.agents.base import (
                                Agent,
                                CallableAgent,
                                PolicyAgent,
                                RandomAgent,
                                make_agent,
                                with_search_options,
                                with_search_options_for,
)

__all__ = ["Agent", "CallableAgent", "PolicyAgent", "RandomAgent", "make_agent", "with_search_options",
           "with_search_options_for"]
