"""`TableStatus`: a spectator's events as lines for a terminal, with the state of the table now and then.

Each event gets its line (the engine's `narrate.describe`, or the server's
clock events); after each trick come the cards each player has left, and at
the start of a deal and after a revolution the rank order in force.  It
reads only what a spectator is sent, so it shows nothing hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from president_engine import Rules
from president_engine.events import CardsGiven, DealStarted, Played, RevolutionHappened, TrickWon
from president_engine.narrate import describe
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb


class TableStatus:
    def __init__(self, rules: Rules, names: Sequence[str], *, preset: str | None = None) -> None:
        self.rules = rules
        self.preset = preset
        self.names = list(names)
        self.sizes = [0] * rules.players
        self.reversed = False

    def lines(self, msg: pb.Event) -> list[str]:
        """What to print for one event (nothing for events not worth a line)."""
        kind = msg.WhichOneof("kind")
        if kind == "strike_recorded":
            strike = msg.strike_recorded
            return [f"   !! {self.names[strike.player]} ran out of time (strike {strike.strikes});"
                    " the server played the easy move for them"]
        if kind == "seat_taken_over":
            return [f"   !! {self.names[msg.seat_taken_over.player]} is now played by the server's easy bot"]
        event = convert.event_from_proto(msg)
        if event is None:
            return []
        line = describe(event, self.names, preset=self.preset)
        out = [] if line is None else [line]
        if isinstance(event, DealStarted):
            self.sizes = list(event.hand_sizes)
            self.reversed = False
            out.append(self._order())
        elif isinstance(event, CardsGiven):
            self.sizes[event.giver] -= event.count
            self.sizes[event.receiver] += event.count
        elif isinstance(event, Played):
            self.sizes[event.player] -= event.play.size
        elif isinstance(event, RevolutionHappened):
            self.reversed = event.reversed
            out.append(self._order())
        elif isinstance(event, TrickWon):
            left = ", ".join(f"{name} {size}" for name, size in zip(self.names, self.sizes, strict=True) if size)
            out.append(f"      cards left: {left}")
        return out

    def _order(self) -> str:
        order = self.rules.rank_order[::-1] if self.reversed else self.rules.rank_order
        return "   rank order, low to high: " + " ".join(str(rank) for rank in order)
