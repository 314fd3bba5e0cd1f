"""Tournaments over real gRPC: a Swiss event played to its end by bots on Sessions, with duplicate boards,
pausing, every refusal changing nothing, and a kill -9 mid-round after which the event resumes with no match
played or counted twice and standings equal to a recomputation from the database alone."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path

import grpc
import pytest
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.league.tournaments.model import Pairing, TableResult
from president_service.league.tournaments.standings import standings
from service_support import ADMIN, ServerProcess, auth, client, refused, running
from session_support import SessionBot, new_account
from support import free_port
from version_support import ready_version

NAMES = ("ann", "bob", "cy", "dee", "eve")
FAST = pb.ClockSettings(move_time_limit_ms=2_000, time_bank_ms=0, strikes_before_takeover=2)


def spec(**changes: object) -> pb.TournamentSpec:
    fields: dict[str, object] = dict(name="spring", preset="cardverse", rules=pb.Rules(players=4, deals=1),
                                     clock=FAST, format=pb.TOURNAMENT_FORMAT_SWISS, rounds=3, entrants=NAMES, seed=5)
    fields.update(changes)
    return pb.TournamentSpec(**fields)  # type: ignore[arg-type]


async def accounts(stub: pb_grpc.PresidentServiceAsyncStub, names: tuple[str, ...] = NAMES) -> dict[str, str]:
    return {name: await new_account(stub, name, house=True) for name in names}


async def create(stub: pb_grpc.PresidentServiceAsyncStub, made: pb.TournamentSpec) -> pb.Tournament:
    return (await stub.CreateTournament(pb.CreateTournamentRequest(spec=made), metadata=auth(ADMIN))).tournament


async def control(stub: pb_grpc.PresidentServiceAsyncStub, tournament_id: str,
                  change: pb.TournamentControl.ValueType) -> pb.Tournament:
    return (await stub.ControlTournament(pb.ControlTournamentRequest(tournament_id=tournament_id, control=change),
                                         metadata=auth(ADMIN))).tournament


async def get(stub: pb_grpc.PresidentServiceAsyncStub, tournament_id: str) -> pb.Tournament:
    return (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tournament_id))).tournament


async def wait_for(stub: pb_grpc.PresidentServiceAsyncStub, tournament_id: str,
                   done: Callable[[pb.Tournament], bool], timeout: float = 90) -> pb.Tournament:
    deadline = time.monotonic() + timeout
    while True:
        tournament = await get(stub, tournament_id)
        if done(tournament):
            return tournament
        assert time.monotonic() < deadline, f"tournament stuck: {tournament}"
        await asyncio.sleep(0.1)


def over(tournament: pb.Tournament) -> bool:
    return tournament.state == pb.TOURNAMENT_STATE_FINISHED


async def playing(stub: pb_grpc.PresidentServiceAsyncStub, tokens: dict[str, str],
                  work: Callable[[], Awaitable[pb.Tournament]]) -> pb.Tournament:
    bots = [SessionBot(stub, token) for token in tokens.values()]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    try:
        return await work()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def recomputed(db: Path, tournament: pb.Tournament) -> list[tuple[str, float, int, int, int, int, int]]:
    """The standings from the database alone: the stored pairings and each match's stored finishing orders and
    fault record."""
    with closing(sqlite3.connect(db)) as conn:
        rounds = [json.loads(p) for (p,) in conn.execute(
            "SELECT pairing FROM tournament_rounds WHERE tournament_id = ? ORDER BY round",
            (tournament.tournament_id,))]
        rows = conn.execute("SELECT round, tbl, seating, orders, conduct, absent FROM tournament_matches"
                            " WHERE tournament_id = ?"
                            " ORDER BY round, tbl, seating", (tournament.tournament_id,)).fetchall()
    players = tournament.spec.rules.players
    history = []
    for r, data in enumerate(rounds):
        pairing = Pairing(tables=tuple(tuple(t) for t in data["tables"]), byes=tuple(data["byes"]),
                          stage=data["stage"], groups=tuple(tuple(g) for g in data["groups"]))
        results = []
        for t, table in enumerate(pairing.tables):
            played = [row for row in rows if row[0] == r and row[1] == t]
            seatings = players if tournament.spec.duplicate else 1
            if len(played) == seatings and all(row[3] is not None for row in played):
                orders = tuple(tuple(o) for row in played for o in json.loads(row[3]))
                conduct = [json.loads(row[4]) for row in played]
                faults: Counter[str] = sum((Counter(c["faults"]) for c in conduct), Counter())
                server: Counter[str] = sum((Counter(c["server_moves"]) for c in conduct), Counter())
                results.append(TableResult(
                    round=r, table=t, entrants=table, orders=orders,
                    forfeits=tuple(frozenset(f) for c in conduct for f in c["forfeits"]),
                    faults=tuple(faults.items()), server_moves=tuple(server.items()),
                    absent=tuple({a for row in played for a in json.loads(row[5])})))
        history.append((pairing, results))
    entrants = [e.player for e in tournament.entrants]
    forfeit = tournament.spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT
    return [(s.entrant, s.points, s.rank, s.forfeits, s.faults, s.server_moves, s.absences)
            for s in standings(entrants, players, history, forfeit=forfeit)]


def shown(tournament: pb.Tournament) -> list[tuple[str, float, int, int, int, int, int]]:
    return [(s.player, s.points, s.rank, s.forfeits, s.faults, s.server_moves, s.absences)
            for s in tournament.standings]


def check_played_once(db: Path, tournament: pb.Tournament) -> None:
    """Every table of every round has exactly its matches (one, or one per rotation), each finished once."""
    with closing(sqlite3.connect(db)) as conn:
        spots = conn.execute("SELECT round, tbl, seating FROM tournament_matches WHERE tournament_id = ?",
                             (tournament.tournament_id,)).fetchall()
        kinds = Counter(kind for (kind,) in conn.execute("SELECT kind FROM matches"))
        unfinished = conn.execute("SELECT COUNT(*) FROM tournament_matches WHERE orders IS NULL").fetchone()[0]
    seatings = tournament.spec.rules.players if tournament.spec.duplicate else 1
    expected = {(r.number - 1, t, s) for r in tournament.rounds for t in range(len(r.tables)) for s in range(seatings)}
    assert Counter(spots) == Counter(expected)
    assert kinds["tournament"] == len(expected)
    assert unfinished == 0


def test_a_swiss_event_is_played_to_its_end(tmp_path: Path) -> None:
    asyncio.run(_a_swiss_event_is_played_to_its_end(tmp_path))


async def _a_swiss_event_is_played_to_its_end(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db", absence_s=0.2, start_grace_s=0.2) as server, client(server.port) as stub:
        tokens = await accounts(stub)
        made = await create(stub, spec())
        assert made.state == pb.TOURNAMENT_STATE_CREATED and made.round_count == 3
        assert made.spec.rules.players == 4 and made.spec.HasField("seed")

        async def event() -> pb.Tournament:
            await asyncio.sleep(0.5)  # the Sessions open
            started = await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
            assert started.state == pb.TOURNAMENT_STATE_RUNNING
            return await wait_for(stub, made.tournament_id, over)
        final = await playing(stub, {n: t for n, t in tokens.items() if n != "eve"}, event)
        tables = [t for r in final.rounds for t in r.tables]
        assert all(list(t.absent) == (["eve"] if "eve" in t.players else []) for t in tables), \
            "eve never connects: marked absent at her tables, which the clock plays for her"
        assert [len(r.tables) for r in final.rounds] == [1, 1, 1]
        byes = [name for r in final.rounds for name in r.byes]
        assert len(byes) == 3 and len(set(byes)) == 3, "byes rotate: nobody sits out twice while others have not"
        assert all(table.finished and len(table.match_ids) == 1 for r in final.rounds for table in r.tables)
        assert sorted(s.rank for s in final.standings) == [1, 2, 3, 4, 5]
        assert sum(s.deals for s in final.standings) == 3 * 4
        assert shown(final) == recomputed(tmp_path / "t.db", final)
        check_played_once(tmp_path / "t.db", final)
        eve = {s.player: s for s in final.standings}["eve"]
        assert final.spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT, "the default, filled in"
        assert eve.absences == eve.tables > 0 and eve.forfeits == eve.deals and eve.server_moves > 0
        assert eve.points == 0 and eve.rank == 5, "absent: every deal forfeited, the bye worth nothing"
        listed = (await stub.ListTournaments(pb.ListTournamentsRequest())).tournaments
        assert [t.tournament_id for t in listed] == [made.tournament_id] and not listed[0].standings


def test_duplicate_boards_play_every_rotation_of_one_deal(tmp_path: Path) -> None:
    asyncio.run(_duplicate_boards_play_every_rotation_of_one_deal(tmp_path))


async def _duplicate_boards_play_every_rotation_of_one_deal(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db") as server, client(server.port) as stub:
        tokens = await accounts(stub, NAMES[:4])
        made = await create(stub, spec(entrants=NAMES[:4], rounds=1, duplicate=True))
        await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
        final = await playing(stub, tokens, lambda: wait_for(stub, made.tournament_id, over))
        (table,) = final.rounds[0].tables
        assert len(table.match_ids) == 4
        replays = [(await stub.GetReplay(pb.GetReplayRequest(match_id=m), metadata=auth(ADMIN))).replay
                   for m in table.match_ids]
        seats = [list(r.names) for r in replays]
        assert all(sorted(s) == sorted(NAMES[:4]) for s in seats) and len({tuple(s) for s in seats}) == 4
        hands = {b"".join(h.SerializeToString() for h in r.deals[0].hands) for r in replays}
        assert len(hands) == 1 and not replays[0].deals[0].shuffled, "one set of hands by seat for every rotation"
        assert all(s.deals == 4 for s in final.standings)
        assert shown(final) == recomputed(tmp_path / "t.db", final)


def test_a_paused_event_starts_nothing_until_it_is_resumed(tmp_path: Path) -> None:
    asyncio.run(_a_paused_event_starts_nothing_until_it_is_resumed(tmp_path))


async def _a_paused_event_starts_nothing_until_it_is_resumed(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db") as server, client(server.port) as stub:
        tokens = await accounts(stub)
        made = await create(stub, spec(rounds=2))
        await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
        paused = await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_PAUSE)
        assert paused.state == pb.TOURNAMENT_STATE_PAUSED

        async def still_paused() -> pb.Tournament:
            return await wait_for(stub, made.tournament_id, lambda t: all(x.finished for x in t.rounds[0].tables))
        held = await playing(stub, tokens, still_paused)
        await asyncio.sleep(0.5)
        assert (await get(stub, made.tournament_id)).rounds_begun == held.rounds_begun == 1
        await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_RESUME)
        final = await playing(stub, tokens, lambda: wait_for(stub, made.tournament_id, over))
        assert final.rounds_begun == 2


def test_an_entrant_revoked_mid_event_is_played_by_the_clock(tmp_path: Path) -> None:
    """The event does not stall on an account revoked after the start: its later seats are nobody's, played by
    the clock and marked absent."""
    asyncio.run(_an_entrant_revoked_mid_event_is_played_by_the_clock(tmp_path))


async def _an_entrant_revoked_mid_event_is_played_by_the_clock(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db", absence_s=0.2, start_grace_s=0.2) as server, client(server.port) as stub:
        tokens = await accounts(stub, NAMES[:4])
        made = await create(stub, spec(entrants=NAMES[:4], rounds=2))

        async def event() -> pb.Tournament:
            await asyncio.sleep(0.5)  # the Sessions open
            await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
            await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_PAUSE)  # round 1 plays, round 2 waits
            await stub.RevokeAccount(pb.RevokeAccountRequest(name="dee"), metadata=auth(ADMIN))
            await wait_for(stub, made.tournament_id, lambda t: t.rounds[0].tables[0].finished)
            await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_RESUME)
            return await wait_for(stub, made.tournament_id, over)
        final = await playing(stub, tokens, event)
        assert list(final.rounds[1].tables[0].absent) == ["dee"]
        assert [s.deals for s in final.standings] == [2, 2, 2, 2]


def test_bad_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    asyncio.run(_bad_requests_are_refused_and_change_nothing(tmp_path))


async def _bad_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db") as server, client(server.port) as stub:
        await accounts(stub)

        async def creating(made: pb.TournamentSpec, token: str = ADMIN) -> pb.CreateTournamentResponse:
            return await stub.CreateTournament(pb.CreateTournamentRequest(spec=made), metadata=auth(token))
        bad = grpc.StatusCode.INVALID_ARGUMENT
        info = await refused(creating(spec(entrants=NAMES[:2])), bad, "BAD_OPTION")
        assert info.metadata["option"] == "format"
        await refused(creating(spec(rounds=0)), bad, "BAD_OPTION")
        await refused(creating(spec(rounds=1_001)), bad, "BAD_OPTION")
        await refused(creating(spec(rules=pb.Rules(players=7))), bad, "BAD_OPTION")
        await refused(creating(spec(format=pb.TOURNAMENT_FORMAT_UNSPECIFIED)), bad, "BAD_OPTION")
        await refused(creating(spec(preset="bridge")), bad, "BAD_OPTION")
        await refused(creating(spec(entrants=(*NAMES[:4], "nobody"))), grpc.StatusCode.NOT_FOUND, "UNKNOWN_ACCOUNT")
        await refused(creating(spec(name="")), bad, "MALFORMED")
        await new_account(stub, "nova")  # no version, its own bot never checked
        ada = await new_account(stub, "ada")
        await ready_version(stub, ada, b"not checked yet")
        info = await refused(creating(spec(entrants=(*NAMES[:3], "nova", "ada"))), grpc.StatusCode.FAILED_PRECONDITION,
                             "VERSION_STATE")
        assert info.metadata["accounts"] == "nova,ada" and info.metadata["state"] == "VERSION_STATE_UNSPECIFIED"
        info = await refused(creating(spec(entrants=(*NAMES[:3], "nova"), unchecked=["dee"])), bad, "BAD_OPTION")
        await refused(creating(spec(entrants=(*NAMES[:3], "nova"), unchecked=["zed"])), bad, "BAD_OPTION")
        assert info.metadata["option"] == "unchecked"
        await refused(creating(spec(fault_rule=7)), bad, "MALFORMED")  # type: ignore[arg-type]  # the guard: no such value
        await refused(creating(spec(), token="not-the-admin"), grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
        assert not (await stub.ListTournaments(pb.ListTournamentsRequest())).tournaments
        made = await create(stub, spec())
        state = grpc.StatusCode.FAILED_PRECONDITION
        await refused(control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_RESUME), state, "TOURNAMENT_STATE")
        await refused(control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_PAUSE), state, "TOURNAMENT_STATE")
        await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
        info = await refused(control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START), state, "TOURNAMENT_STATE")
        assert info.metadata["state"] == "TOURNAMENT_STATE_RUNNING"
        await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_CANCEL)
        await refused(control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_RESUME), state, "TOURNAMENT_STATE")
        await refused(control(stub, "nope", pb.TOURNAMENT_CONTROL_START), grpc.StatusCode.NOT_FOUND,
                      "UNKNOWN_TOURNAMENT")
        await refused(get(stub, "nope"), grpc.StatusCode.NOT_FOUND, "UNKNOWN_TOURNAMENT")
        await refused(control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_UNSPECIFIED), bad, "MALFORMED")
        after = await get(stub, made.tournament_id)
        assert after.state == pb.TOURNAMENT_STATE_CANCELLED and after.rounds_begun == 1


def test_an_entrant_plays_the_version_pinned_at_the_start(tmp_path: Path) -> None:
    """A hosted version entered plays as `account@version`; versions submitted, and one chosen, during the event
    are built but do not change it (the host keeps the pinned one); the chosen one is current when it is over."""
    asyncio.run(_an_entrant_plays_the_version_pinned_at_the_start(tmp_path))


async def _an_entrant_plays_the_version_pinned_at_the_start(tmp_path: Path) -> None:
    async with running(tmp_path / "t.db") as server, client(server.port) as stub:
        tokens = await accounts(stub, NAMES[:3])
        ada = await new_account(stub, "ada")
        first = await ready_version(stub, ada, b"first")
        leased = await stub.LeaseHosting(pb.LeaseHostingRequest(host="h", capacity=4), metadata=auth(ADMIN))
        [hosted] = leased.start
        made = await create(stub, spec(entrants=(*NAMES[:3], "ada"), rounds=2, unchecked=["ada"]))
        chosen: list[str] = []

        async def event() -> pb.Tournament:
            await asyncio.sleep(0.5)  # the Sessions open
            started = await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
            assert [e.player for e in started.entrants][-1] == f"ada@{first.version_id}"
            second = await ready_version(stub, ada, b"second")
            assert not second.current, "a running event holds the account at its pinned version"
            await ready_version(stub, ada, b"third")
            choice = await stub.SetCurrentVersion(pb.SetCurrentVersionRequest(version_id=second.version_id),
                                                  metadata=auth(ada))
            assert not choice.version.current, "the author's choice waits for the event's end"
            chosen.append(second.version_id)
            renewed = await stub.LeaseHosting(pb.LeaseHostingRequest(host="h", capacity=4,
                                                                     running=[first.version_id]), metadata=auth(ADMIN))
            assert list(renewed.keep) == [first.version_id] and not renewed.stop
            return await wait_for(stub, made.tournament_id, over)
        final = await playing(stub, {**tokens, "ada": hosted.token}, event)
        assert f"ada@{first.version_id}" in [s.player for s in final.standings]
        assert all(not t.absent for r in final.rounds for t in r.tables)
        listed = (await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ada))).versions
        assert [v.version_id for v in listed if v.current] == chosen, "the chosen one is current once it is over"


@pytest.mark.slow
def test_a_kill_mid_round_loses_and_double_counts_nothing(tmp_path: Path) -> None:
    """kill -9 while a round's matches are being played; the restarted server resumes the event and it ends
    with each table's matches played once and the standings a recomputation from the database gives."""
    asyncio.run(_a_kill_mid_round_loses_and_double_counts_nothing(tmp_path))


async def _a_kill_mid_round_loses_and_double_counts_nothing(tmp_path: Path) -> None:
    db, port = tmp_path / "t.db", free_port()
    server = ServerProcess(db, port, "--start-grace", "1")
    try:
        async with client(port) as stub:
            tokens = await accounts(stub)
            made = await create(stub, spec(rounds=3, duplicate=True, clock=pb.ClockSettings(
                move_time_limit_ms=2_000, time_bank_ms=0, strikes_before_takeover=2)))
            await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
            await playing(stub, tokens, lambda: wait_for(
                stub, made.tournament_id, lambda t: t.rounds_begun == 2 and any(
                    len(x.match_ids) > 0 and not x.finished for x in t.rounds[1].tables)))
        server.kill()
        server = ServerProcess(db, port, "--start-grace", "1")
        async with client(port) as stub:
            final = await playing(stub, tokens, lambda: wait_for(stub, made.tournament_id, over, timeout=120))
        assert final.rounds_begun == 3
        assert shown(final) == recomputed(db, final)
        check_played_once(db, final)
    finally:
        server.stop()


def test_a_fault_record_the_server_cannot_read_never_stops_it(tmp_path: Path) -> None:
    """A finished match's stored fault record, damaged: the restarted server loads the event, logs it, and
    counts the match without it; the fault record survives a restart otherwise (the absent entrant's forfeits)."""
    asyncio.run(_a_fault_record_the_server_cannot_read_never_stops_it(tmp_path))


async def _a_fault_record_the_server_cannot_read_never_stops_it(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with running(db, absence_s=0.2, start_grace_s=0.2) as server, client(server.port) as stub:
        tokens = await accounts(stub, NAMES[:4])
        made = await create(stub, spec(entrants=NAMES[:4], rounds=2))

        async def event() -> pb.Tournament:
            await asyncio.sleep(0.5)  # the Sessions open
            await control(stub, made.tournament_id, pb.TOURNAMENT_CONTROL_START)
            return await wait_for(stub, made.tournament_id, over)
        before = await playing(stub, {n: t for n, t in tokens.items() if n != "dee"}, event)
    dee = {s.player: s for s in before.standings}["dee"]
    assert dee.forfeits == dee.deals == 2
    async with running(db) as server, client(server.port) as stub:
        assert shown(await get(stub, made.tournament_id)) == shown(before), "the record is stored, not recomputed"
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE tournament_matches SET conduct = '{\"forfeits\": 7}' WHERE round = 0")
    async with running(db) as server, client(server.port) as stub:
        after = {s.player: s for s in (await get(stub, made.tournament_id)).standings}
    assert after["dee"].forfeits == 1 and after["dee"].deals == 2
