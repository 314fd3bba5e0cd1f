"""The conformance suite: a bot program put through every case of the seat contract (`president conformance`).

The matches are played on the server's own `MatchRunner` and the bot's seat
is served by the server's `SeatFeed` (table.py): the suite's protocol is the
server's, and the suite adds only the cases (cases.py), the wire that lets the
bot in (wire.py) and the referee that judges each act (referee.py).
"""

from president_harness.conformance.suite import Results, conformance_command, run_suite

__all__ = ["Results", "conformance_command", "run_suite"]
