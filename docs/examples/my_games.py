"""Rock-paper-scissors as a cfrlab game, registered for the command line.

    cfrlab --game-module docs/examples/my_games.py solve rps -n 1000 --out rps.npz
    cfrlab --game-module docs/examples/my_games.py show rps.npz

Both players choose at once: player 1 acts second but does not see player 0's choice, so player 1's
information state key leaves it out. ``cfrlab.testing.check_game(RockPaperScissors())`` checks the protocol.
"""

from __future__ import annotations

from cfrlab import TERMINAL, Game, State, register_game
from cfrlab.game import GameInfo

MOVES = ("rock", "paper", "scissors")


class RPSState(State):
    """The moves made so far (at most two)."""

    def __init__(self, game: RockPaperScissors, moves: tuple[int, ...] = ()) -> None:
        self.game, self.moves = game, moves

    def current_player(self) -> int:
        return TERMINAL if len(self.moves) == 2 else len(self.moves)

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1, 2]

    def _apply(self, action: int) -> RPSState:
        return RPSState(self.game, self.moves + (action,))

    def information_state_key(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        own = [MOVES[a] for i, a in enumerate(self.moves) if i == player]  # never the other player's move
        return f"{player}:{''.join(own)}"

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        wins = (self.moves[0] - self.moves[1]) % 3  # paper (1) beats rock (0), scissors (2) beats paper
        return [0.0, 0.0] if wins == 0 else ([1.0, -1.0] if wins == 1 else [-1.0, 1.0])

    def action_to_string(self, action: int) -> str:
        return MOVES[action]


class RockPaperScissors(Game):
    """Rock-paper-scissors: the unique equilibrium plays each move with probability 1/3."""

    name = "rps"

    @property
    def info(self) -> GameInfo:
        return GameInfo(num_players=2, max_actions=3, max_chance_outcomes=0, min_utility=-1.0, max_utility=1.0,
                        zero_sum=True)

    def new_initial_state(self) -> RPSState:
        return RPSState(self)


register_game("rps", RockPaperScissors)
