"""Whole matches over real gRPC: every preset, scripted seats on Play streams, then the replay."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from president_engine import MatchRecord
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from service_support import SeatLog, client, create, play_seat, running


def assert_answers_come_first(log: SeatLog) -> None:
    """Welcome, then the snapshot before any answer; a prompt's answer comes before anything else."""
    kinds = [m.WhichOneof("kind") for m in log.messages]
    assert kinds[0] == "welcome" and kinds.index("snapshot") < kinds.index("action_accepted")
    for prompt, after in itertools.pairwise(log.messages):
        if prompt.HasField("prompt"):
            # the answer to it, or its deadline when the clock starts during the turn: never a second prompt
            assert not after.HasField("prompt"), (prompt, after)
            turn = after.turn_deadline.turn_id if after.HasField("turn_deadline") else after.action_accepted.turn_id
            assert turn == prompt.prompt.turn_id, (prompt, after)


@pytest.mark.parametrize("preset", ["cardverse", "norwegian", "italian"])
def test_full_match_for_each_preset(tmp_path: Path, preset: str) -> None:
    async def main() -> None:
        async with running(tmp_path / "p.db") as server, client(server.port) as stub:
            created = await create(stub, preset, deals=3)
            seats = [SeatLog(s.player) for s in created.seats]
            done = await asyncio.wait_for(asyncio.gather(
                *(play_seat(stub, s.token, log) for s, log in zip(created.seats, seats, strict=True))), 60)
            assert all(done)
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
            record = convert.replay_from_proto(replay)
            match = record.replay()
            assert match.is_over and match.deal == 3
            assert list(replay.result.totals) == match.scores
            # every seat saw the same public events, in seq order, ending with the result
            for log in seats:
                seqs = [m.event.seq for m in log.messages if m.HasField("event")]
                assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
                assert log.messages[-1].HasField("match_over")
                assert_answers_come_first(log)
            assert isinstance(MatchRecord.loads(record.dumps()), MatchRecord)
            summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))).match
            assert summary.status == pb.MATCH_STATUS_OVER
    asyncio.run(main())
