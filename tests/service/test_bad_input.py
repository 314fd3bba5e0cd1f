"""Bad input stays bad input (issue 44 item 5): refused before anything is stored, the same at every depth of every
request; and a stored row the server cannot load is skipped, marked and logged once, never stopping the server."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import grpc
from arena_support import ARENA, arena_settings
from google.protobuf.timestamp_pb2 import Timestamp
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, ServerProcess, auth, client, create, refused, running
from session_support import SessionBot, new_account
from support import free_port

AFTER_9999 = 253_402_300_800
"""The first second of year 10000: past the latest google.protobuf.Timestamp."""
UNKNOWN_FIELD = bytes([0xF8, 0x07, 0x01])
"""Field 127, varint 1: a field no president.v1 message has."""


def _spec(**fields: object) -> pb.TournamentSpec:
    return pb.TournamentSpec(name="cup", preset="cardverse", format=pb.TOURNAMENT_FORMAT_SWISS, rounds=1,
                             entrants=list("abcd"), unchecked=list("abcd"), **fields)  # type: ignore[arg-type]


async def _accounts(stub: pb_grpc.PresidentServiceAsyncStub) -> None:
    for name in "abcd":
        await stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="o"), metadata=auth(ADMIN))


async def _tournaments(stub: pb_grpc.PresidentServiceAsyncStub) -> list[str]:
    return [t.tournament_id for t in (await stub.ListTournaments(pb.ListTournamentsRequest())).tournaments]


def test_a_start_at_that_is_not_a_time_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "t.db") as server, client(server.port) as stub:
            await _accounts(stub)
            for stamp in (Timestamp(seconds=10, nanos=-1), Timestamp(seconds=AFTER_9999),
                          Timestamp(seconds=10, nanos=1_000_000_000)):
                info = await refused(stub.CreateTournament(pb.CreateTournamentRequest(spec=_spec(start_at=stamp)),
                                                           metadata=auth(ADMIN)),
                                     grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                assert info.metadata["field"] == "CreateTournamentRequest.spec.start_at", info
            assert await _tournaments(stub) == []
            line = pb.BotOutputLine(at=Timestamp(seconds=-1, nanos=-5), text="x")
            await refused(stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id="v", lines=[line]),
                                               metadata=auth(ADMIN)), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
        async with running(tmp_path / "t.db") as server, client(server.port) as stub:  # and it starts again
            assert await _tournaments(stub) == []
    asyncio.run(main())


def test_unknown_fields_are_refused_at_every_level_of_every_request(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "u.db") as server, client(server.port) as stub:
            await _accounts(stub)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                def call(method: str) -> grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]:
                    return channel.unary_unary(f"/president.v1.PresidentService/{method}")
                top = pb.CreateTournamentRequest(spec=_spec()).SerializeToString() + UNKNOWN_FIELD
                info = await refused(call("CreateTournament")(top, metadata=auth(ADMIN)),
                                     grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                assert info.metadata["field"] == "CreateTournamentRequest"
                spec = _spec().SerializeToString() + UNKNOWN_FIELD
                inner = bytes([0x0A, len(spec)]) + spec  # field 1 (spec), length-delimited
                info = await refused(call("CreateTournament")(inner, metadata=auth(ADMIN)),
                                     grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                assert info.metadata["field"] == "CreateTournamentRequest.spec"
                rules = pb.Rules(players=4).SerializeToString() + UNKNOWN_FIELD
                deep = _spec().SerializeToString() + bytes([0x1A, len(rules)]) + rules  # spec.rules (field 3)
                assert pb.TournamentSpec.FromString(deep).rules.players == 4
                deeper = bytes([0x0A, len(deep)]) + deep
                info = await refused(call("CreateTournament")(deeper, metadata=auth(ADMIN)),
                                     grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                assert info.metadata["field"] == "CreateTournamentRequest.spec.rules"
                assert await _tournaments(stub) == []
                account = pb.CreateAccountRequest(name="e", owner="o").SerializeToString() + UNKNOWN_FIELD
                await refused(call("CreateAccount")(account, metadata=auth(ADMIN)),
                              grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
                accounts = await stub.ListAccounts(pb.ListAccountsRequest(), metadata=auth(ADMIN))
                assert [a.name for a in accounts.accounts] == list("abcd")
                await refused(call("GetMatch")(pb.GetMatchRequest(match_id="m").SerializeToString() + UNKNOWN_FIELD),
                              grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            made = await create(stub)  # on a stream: a Hello with a field this server does not know
            play = stub.Play(metadata=auth(made.seats[0].token))
            hello = pb.Hello(name="n").SerializeToString() + UNKNOWN_FIELD
            message = pb.PlayRequest()
            message.MergeFromString(bytes([0x0A, len(hello)]) + hello)  # PlayRequest.hello is field 1
            assert message.WhichOneof("kind") == "hello"
            await play.write(message)
            info = await refused(play.read(), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert info.metadata["field"] == "PlayRequest.hello"
    asyncio.run(main())


def test_stored_rows_the_server_cannot_load_are_skipped_marked_and_logged_once(tmp_path: Path) -> None:
    db = tmp_path / "rows.db"

    async def fill() -> str:
        async with running(db) as server, client(server.port) as stub:
            await _accounts(stub)
            made = await stub.CreateTournament(pb.CreateTournamentRequest(spec=_spec()), metadata=auth(ADMIN))
            return made.tournament.tournament_id
    good = asyncio.run(fill())
    bad_spec = _spec(start_at=Timestamp(seconds=AFTER_9999 + 10, nanos=-1)).SerializeToString()
    with sqlite3.connect(db) as conn:  # as a hand edit, or a server that checked less, left them
        conn.execute("INSERT INTO tournaments (id, created_at, spec, state, entrants) VALUES (?,?,?,?,?)",
                     ("badtime", 1.0, bad_spec, pb.TOURNAMENT_STATE_CREATED, "[]"))
        conn.execute("INSERT INTO tournaments (id, created_at, spec, state, entrants) VALUES (?,?,?,?,?)",
                     ("garbage", 2.0, b"\xff\xff\xff", pb.TOURNAMENT_STATE_RUNNING, "not json"))
        conn.execute("INSERT INTO matches (id, created_at, preset, rules, seed, clock, names, open_seats)"
                     " VALUES ('livegarbage', 1.0, 'cardverse', 'not json', 1, '{}', '[]', 0)")
        conn.execute("INSERT INTO matches (id, created_at, preset, rules, seed, clock, names, open_seats, result,"
                     " record) VALUES ('overgarbage', 1.0, 'cardverse', '{', 1, '{}', '[', 0, '{', '{')")
        conn.execute("INSERT INTO accounts VALUES (?,?,?,?,?,?,?)", ("bad name!", "o", 7, "never", 0, 0, 0))

    def serve_and_check() -> str:
        server = ServerProcess(db, free_port())
        try:
            async def check() -> None:
                async with client(server.port) as stub:
                    assert await _tournaments(stub) == [good]
                    listed = await stub.ListMatches(pb.ListMatchesRequest())
                    assert "overgarbage" not in [m.match_id for m in listed.matches]
                    for match_id in ("livegarbage", "overgarbage"):
                        await refused(stub.GetMatch(pb.GetMatchRequest(match_id=match_id)),
                                      grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")
                    made = await create(stub)  # and it serves the rest
                    got = await stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id))
                    assert got.match.match_id == made.match_id
                    accounts = await stub.ListAccounts(pb.ListAccountsRequest(), metadata=auth(ADMIN))
                    assert [a.name for a in accounts.accounts] == list("abcd")
            asyncio.run(check())
        finally:
            server.stop()
        return server.output.read_text()

    first = serve_and_check()
    for kind, row in (("tournament", "badtime"), ("tournament", "garbage"), ("match", "livegarbage"),
                      ("match", "overgarbage"), ("account", "bad name!")):
        said = [line for line in first.splitlines() if f"the stored {kind} {row} cannot be loaded" in line]
        assert len(said) == 1, (kind, row, first)
    assert "Traceback" not in first, first
    with sqlite3.connect(db) as conn:
        marked = set(conn.execute("SELECT kind, id FROM unreadable"))
    assert marked == {("tournament", "badtime"), ("tournament", "garbage"), ("match", "livegarbage"),
                      ("match", "overgarbage"), ("account", "bad name!")}
    second = serve_and_check()  # marked: not loaded again, and said in one line
    assert "cannot be loaded" not in second, second
    assert "5 stored rows are marked unreadable and not loaded" in second, second


def test_enum_values_this_server_does_not_have_and_endless_delays_are_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "e.db") as server, client(server.port) as stub:
            made = await create(stub)
            before = (await stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id))).match.last_seq
            info = await refused(stub.ListMatches(pb.ListMatchesRequest(status=77)),  # type: ignore[arg-type]
                                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert info.metadata["field"] == "ListMatchesRequest.status"
            bad_fault = pb.SubmitActionRequest(turn_id=1, action=pb.Action(pass_turn=pb.PassAction()),
                                               fault=99)  # type: ignore[arg-type]
            info = await refused(stub.SubmitAction(bad_fault, metadata=auth(made.seats[0].token)),
                                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert info.metadata["field"] == "SubmitActionRequest.fault"
            got = await stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id))
            assert got.match.last_seq == before  # nothing was applied
            info = await refused(stub.Spectate(pb.SpectateRequest(match_id=made.match_id,
                                                                  delay_ms=2**32 - 1)).read(),
                                 grpc.StatusCode.INVALID_ARGUMENT, "BAD_OPTION")
            assert info.metadata["option"] == "delay_ms"
    asyncio.run(main())


def _version_row(version_id: str, account: object, created_at: object, runtime: int,
                 state: int) -> tuple[object, ...]:
    return (version_id, account, created_at, "bot", runtime, "", "python bot.py", "0" * 64, 10, state, "", "", "",
            "1" * 64, 10)


def test_version_and_rating_rows_the_server_cannot_read_are_skipped_marked_and_logged_once(tmp_path: Path) -> None:
    db = tmp_path / "versions.db"

    async def fill() -> str:
        async with running(db) as server, client(server.port) as stub:
            made = await stub.CreateAccount(pb.CreateAccountRequest(name="a", owner="o"), metadata=auth(ADMIN))
            await stub.CreateAccount(pb.CreateAccountRequest(name="b", owner="o"), metadata=auth(ADMIN))
            return made.token
    token = asyncio.run(fill())
    ready, queued = pb.VERSION_STATE_READY, pb.VERSION_STATE_QUEUED
    with sqlite3.connect(db) as conn:  # as a hand edit, or a server that checked less, left them
        for row in (_version_row("good", "a", 1.0, pb.RUNTIME_PYTHON, ready),
                    _version_row("badrun", "a", 2.0, 99, ready),  # newer: it would be a's current one
                    _version_row("badtime", "b", "yesterday", pb.RUNTIME_PYTHON, queued)):
            conn.execute("INSERT INTO versions (id, account, created_at, name, runtime, build, run, sha256,"
                         " archive_bytes, state, reason, log, builder, built_sha256, built_bytes)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
        for rating in (("a@good", 25.0, 8.0), ("a@badrun", 30.0, 8.0), ("b", "x", 8.0), ("a", 25.0, -1.0)):
            conn.execute("INSERT INTO ratings VALUES ('cardverse', 4, ?, ?, ?, 1, 5, 2.0, 4.0)", rating)

    def serve_and_check() -> str:
        server = ServerProcess(db, free_port())
        try:
            async def check() -> None:
                async with client(server.port) as stub:
                    listed = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(token))
                    assert [(v.version_id, v.current) for v in listed.versions] == [("good", True)]
                    every = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ADMIN))
                    assert [v.version_id for v in every.versions] == ["good"]
                    hosted = await stub.LeaseHosting(pb.LeaseHostingRequest(host="h", capacity=4),
                                                     metadata=auth(ADMIN))
                    assert [s.version.version_id for s in hosted.start] == ["good"]
                    built = await stub.LeaseBuild(pb.LeaseBuildRequest(builder="b"), metadata=auth(ADMIN))
                    assert not built.HasField("version"), built
                    board = await stub.GetLeaderboard(pb.GetLeaderboardRequest())
                    assert [(e.account, e.version_id) for e in board.entries] == [("a", "good")]
            asyncio.run(check())
        finally:
            server.stop()
        return server.output.read_text()

    first = serve_and_check()
    bad = {("version", "badrun"), ("version", "badtime"), ("rating", "cardverse/4/b"), ("rating", "cardverse/4/a")}
    for kind, row in bad:
        said = [line for line in first.splitlines() if f"the stored {kind} {row} cannot be loaded" in line]
        assert len(said) == 1, (kind, row, first)
    assert "Traceback" not in first, first
    with sqlite3.connect(db) as conn:
        assert set(conn.execute("SELECT kind, id FROM unreadable")) == bad
    second = serve_and_check()  # marked: not read again, and said in one line
    assert "cannot be loaded" not in second, second
    assert "4 stored rows are marked unreadable and not loaded" in second, second


def test_an_unreadable_rating_is_rated_afresh_by_the_next_match_and_unmarked(tmp_path: Path) -> None:
    db = tmp_path / "rating.db"

    async def accounts() -> dict[str, str]:
        async with running(db) as server, client(server.port) as stub:
            return {name: await new_account(stub, name, house=name != "me")
                    for name in ("me", "house-0", "house-1", "house-2")}
    tokens = asyncio.run(accounts())
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO ratings VALUES ('cardverse', 4, 'me', 'x', 8.0, 1, 5, 2.0, 4.0)")

    async def play() -> None:
        async with running(db, arena=arena_settings()) as server, client(server.port) as stub:
            bots = {name: SessionBot(stub, token, accepts=ARENA) for name, token in tokens.items()}
            tasks = [asyncio.create_task(bot.run()) for name, bot in bots.items() if name != "me"]
            await asyncio.wait_for(bots["me"].run(until=lambda bot: len(bot.over()) >= 2), 60)  # check, rated
            for task in tasks:
                task.cancel()
    asyncio.run(play())
    with sqlite3.connect(db) as conn:
        assert list(conn.execute("SELECT kind, id FROM unreadable")) == []
        (matches,), = conn.execute("SELECT matches FROM ratings WHERE account = 'me'")
    assert matches >= 1

    async def board() -> dict[str, int]:
        async with running(db) as server, client(server.port) as stub:
            got = await stub.GetLeaderboard(pb.GetLeaderboardRequest())
            return {e.account: e.matches for e in got.entries}
    assert asyncio.run(board())["me"] == matches  # read again after a restart
