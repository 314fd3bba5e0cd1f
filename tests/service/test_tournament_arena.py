"""A tournament beside the arena, over real gRPC: a due table comes before arena matchmaking for its entrants (the
arena leaves them room while it goes on matching everyone else), and the tournament says why a table waits and
for whom."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from arena_support import ARENA, arena_settings, house_bots
from president_protocol.v1 import president_pb2 as pb
from president_service.play.match_store import MatchKind
from service_support import ADMIN, auth, client, running
from session_support import SessionBot, new_account

TOURNAMENT_CLOCK = pb.ClockSettings(move_time_limit_ms=2_000, time_bank_ms=0, strikes_before_takeover=2)


def test_a_due_table_comes_before_the_arena_and_says_whom_it_waits_for(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="president_service.league.tournaments.director")
    asyncio.run(_a_due_table_comes_before_the_arena_and_says_whom_it_waits_for(tmp_path / "t.db"))
    waits = [r.getMessage() for r in caplog.records if "waits for room" in r.getMessage()]
    assert any(m.endswith("round 1 table 1 waits for room: bob plays 1 of its 1 matches at once (1 organised)")
               for m in waits), waits
    assert len(waits) <= 3, "one line per change of whom a table waits for, not one per look"


async def _a_due_table_comes_before_the_arena_and_says_whom_it_waits_for(db: Path) -> None:
    async with running(db, arena=arena_settings(), start_grace_s=1.5, absence_s=0.1) as server, \
            client(server.port) as stub:
        _, tasks = await house_bots(stub)
        # carl plays only the arena; alice plays the arena and the tournament, one match at a time
        carl = SessionBot(stub, await new_account(stub, "carl"), accepts=ARENA)
        alice = SessionBot(stub, await new_account(stub, "alice", house=True), accepts=pb.Appetite(
            max_matches=1, arena=True, presets=["cardverse"], players=[4]))
        others = {name: SessionBot(stub, await new_account(stub, name, house=True),
                                   accepts=pb.Appetite(max_matches=1)) for name in ("bob", "dee", "eve")}
        for name in ("z1", "z2", "z3"):
            await new_account(stub, name, house=True)  # never connected: the server plays their seats
        tasks += [asyncio.create_task(bot.run()) for bot in (carl, alice, *others.values())]
        try:
            deadline = time.monotonic() + 30
            while not carl.notices("CHECK_PASSED"):
                assert time.monotonic() < deadline, carl.other
                await asyncio.sleep(0.05)
            # bob is busy: a match that waits for its three absent seats, then is played by the server
            await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=1), seat_accounts=["bob", "z1", "z2", "z3"],
                clock=pb.ClockSettings(move_time_limit_ms=200, time_bank_ms=0, strikes_before_takeover=1)),
                metadata=auth(ADMIN))
            made = (await stub.CreateTournament(pb.CreateTournamentRequest(spec=pb.TournamentSpec(
                name="beside", preset="cardverse", rules=pb.Rules(players=4, deals=1), clock=TOURNAMENT_CLOCK,
                format=pb.TOURNAMENT_FORMAT_SWISS, rounds=2, entrants=["alice", "bob", "dee", "eve"], seed=3)),
                metadata=auth(ADMIN))).tournament
            await stub.ControlTournament(pb.ControlTournamentRequest(
                tournament_id=made.tournament_id, control=pb.TOURNAMENT_CONTROL_START), metadata=auth(ADMIN))
            registry = server.registry
            arena_before = {m for m, r in registry.live.items() if r.kind is MatchKind.ARENA}
            reasons: set[str] = set()
            alice_in_arena: set[str] = set()
            carl_in_arena: set[str] = set()
            deadline = time.monotonic() + 60
            while True:
                t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=made.tournament_id))).tournament
                waiting = [x.waiting for x in t.rounds[-1].tables if x.waiting] if t.rounds else []
                reasons.update(waiting)
                if any("bob" in w for w in waiting):  # while round 1 waits for bob, alice is the tournament's
                    for match_id, runner in registry.live.items():
                        if runner.kind is MatchKind.ARENA and match_id not in arena_before:
                            (alice_in_arena if "alice" in runner.names else carl_in_arena).add(match_id)
                if t.state == pb.TOURNAMENT_STATE_FINISHED:
                    break
                assert time.monotonic() < deadline, t
                await asyncio.sleep(0.02)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert "waiting for room: bob plays 1 of its 1 matches at once (1 organised)" in reasons, reasons
        assert not alice_in_arena, "the arena left alice's room to the table waiting for her"
        assert carl_in_arena, "the arena went on matching the others meanwhile"
        final = t
        assert all(x.finished and not x.waiting for r in final.rounds for x in r.tables)
        assert [s.deals for s in final.standings] == [2, 2, 2, 2]
