"""The Daifugō options over the wire: a match of the UECda contest's options created by CreateMatch, its rules told
back, and played to its end on Play streams, a joker's cell travelling in the plays both ways."""

from __future__ import annotations

import asyncio
from pathlib import Path

from president_engine import Play
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from service_support import SeatLog, action_of, client, create, play_seat, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
CONTEST = {"players": 5, "jokers": 1, "sequences": True, "eight_stop": True, "suit_lock": True,
           "joker_spade_three": True, "jack_back": True, "revolution": True, "trick_end": pb.TRICK_END_ALL_PASS,
           "pass_is_final": True, "pass_count": True, "leader_may_pass": True, "pass_limit": 20, "deals": 2}


def _longest(prompt: pb.Prompt) -> pb.Action:
    """The play of the most cards (sequences and jokers in cells come last in the order), else a pass."""
    return max(prompt.legal_actions, key=lambda a: len(a.play.cards) if a.HasField("play") else 0)


def test_a_match_of_the_contests_options_plays_over_play_streams(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            made = await create(stub, clock=NO_CLOCK, **CONTEST)
            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id))).match
            rules = convert.rules_from_proto(summary.rules)
            assert (rules.sequences, rules.suit_lock, rules.pass_limit, rules.players) == (True, True, 20, 5)
            seats = [SeatLog(player) for player in range(5)]
            assert all(await asyncio.gather(*(play_seat(stub, s.token, seats[s.player], policy=_longest)
                                              for s in made.seats)))
            plays = [action_of(action) for seat in seats for _, action in seat.accepted]
            assert any(isinstance(p, Play) and p.cell is not None for p in plays), "no joker in a cell was played"
            assert any(isinstance(p, Play) and len({c.rank for c in p.cards}) >= 3 for p in plays), "no sequence"
    asyncio.run(main())
