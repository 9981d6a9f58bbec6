"""Bounds on what an agent spec may ask for: beyond them a spec is a mistake (hours a move, or memory for
playouts that no machine has), refused in one line by ``make_agent``."""

MAX_PLAYOUTS = 10**6
"""Playouts (determinizations) per action or decision an agent spec may ask for: more would take hours a move."""
MAX_SECONDS_PER_MOVE = 3600.0
"""Seconds per move an agent spec may ask for (``oos:SECONDS``, ``cfr:Tms``)."""
