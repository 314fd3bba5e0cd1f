"""`Outcome`: what one finished match contributes to a ladder — who finished where in each deal."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True, slots=True)
class Outcome:
    """The result of one scheduled match, as stored in the ladder db."""

    index: int
    board: int
    seating: int
    bots: tuple[str, ...]
    """Bot name by player."""
    places: tuple[tuple[int, ...], ...]
    """Each deal's finishing order: players, first to last."""
    scores: tuple[int, ...]
    match_id: str = ""
    """The server's id of the match (its replay: GetReplay)."""
    seconds: float = 0.0
    attempts: int = 1
    taken_over: tuple[int, ...] = ()
    """Players whose seat the server's bot took over (timeouts): their results are suspect."""
    faults: tuple[tuple[int, int, int, int], ...] = ()
    """By player: (errors, time-outs, illegal answers, clock strikes) as the server counted them."""
    moves: int = 0
    """Actions in the match (for this run's speed report; not stored)."""
    crashes: tuple[tuple[str, str], ...] = ()
    """Session bots whose process exited while this match was played: (bot, what happened); stored apart."""

    def orders(self) -> list[tuple[str, ...]]:
        """Each deal's finishing order as bot names."""
        return [tuple(self.bots[p] for p in deal) for deal in self.places]

    def to_json(self) -> str:
        return json.dumps({"places": self.places, "scores": self.scores, "taken_over": self.taken_over,
                           "faults": self.faults})

    @classmethod
    def from_row(cls, *, index: int, board: int, seating: int, bots: str, result: str, match_id: str,
                 seconds: float, attempts: int) -> Outcome:
        data = json.loads(result)
        return cls(index=index, board=board, seating=seating, bots=tuple(json.loads(bots)),
                   places=tuple(tuple(d) for d in data["places"]), scores=tuple(data["scores"]),
                   match_id=match_id, seconds=seconds, attempts=attempts, taken_over=tuple(data["taken_over"]),
                   faults=tuple(tuple(f) for f in data.get("faults", ())))
