"""Bridge A: contest clients (tests/uecda_support.py, written from shared/UECDA.md alone) play a `daifugo`
match on a real server of ours over real TCP and real gRPC."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from president_engine import CardSet, MatchRecord, Phase, Rules
from president_engine.events import DealEnded, Passed, Played
from president_harness.uecda.uecda_bridge import (
    MAX_WAITING,
    BridgeResult,
    Listener,
    OtherSeat,
    contest_names,
    contest_rules,
    play_match,
)
from president_harness.uecda.uecda_engine import play_on_engine
from president_harness.uecda.uecda_log import (
    GameLog,
    LogError,
    LoggedGame,
    LogWriter,
    ScenarioDeal,
    game_differences,
    log_of,
    reference_header,
    replay_log,
    scenario_match,
    scenario_of,
)
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.bots import builtin_bot
from president_sdk.local import play_local
from president_sdk.uecda.client import play_uecda_async
from president_sdk.uecda.table import TABLE_BYTES, decode
from president_service.server.grpc_server import ServerConfig, start
from uecda_support import ClientRecord, play_client

ADMIN = "bridge-admin"
PRESIDENT_BOT = str(Path(sys.executable).with_name("president-bot"))
JUNK = b"\x00\x00\x00\x07" * (TABLE_BYTES // 4)
"""A table of 7s: malformed (UECDA 4.2), so refused."""


PATHS = ("engine", "server")
"""Bridge A's two ways to play: on the engine in this process (`play_on_engine`), or on a server (`play_match`)."""


@pytest.fixture(params=PATHS)
def on(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def play_either(on: str, seated: Any, port: int | None, rules: Rules, *, seed: int,
                      others: Sequence[OtherSeat] = (), deals: Sequence[ScenarioDeal] = ()) -> BridgeResult:
    """The seated clients' match on the engine, or on the server at `port`; the games written there as they end
    are the games of the log made of the finished match (issue 45)."""
    if on == "engine":
        return await play_on_engine(seated, scenario_match(rules, deals, seed), others=others)
    assert port is not None
    games: list[LoggedGame] = []
    result = await play_match(seated, f"127.0.0.1:{port}", ADMIN, rules, seed=seed, others=others,
                              deals=deals, on_game=games.append)
    assert tuple(games) == log_of(result).games
    return result


async def bridged(tmp_path: Path, games: int | Rules, clients: Sequence[dict[str, Any]], *, seed: int = 5,
                  profile_wait: float = 2.0, before: Any = None, on: str = "server"
                  ) -> tuple[BridgeResult, list[ClientRecord]]:
    """Five test clients (`clients` their options) through bridge A, in a match of so many games (or rules)."""
    rules = games if isinstance(games, Rules) else contest_rules(games)
    if on == "engine":
        return await _bridged(None, rules, clients, seed=seed, profile_wait=profile_wait, before=before, on=on)
    server = await start(ServerConfig(db=str(tmp_path / "db.sqlite"), admin_token=ADMIN, port=0))
    try:
        return await _bridged(server.port, rules, clients, seed=seed, profile_wait=profile_wait, before=before,
                              on=on)
    finally:
        await server.stop(0.5)


async def _bridged(port: int | None, rules: Rules, clients: Sequence[dict[str, Any]], *, seed: int,
                   profile_wait: float, before: Any, on: str) -> tuple[BridgeResult, list[ClientRecord]]:
    async with Listener("127.0.0.1", 0) as listener:
        if before is not None:
            await before(listener.port)
        playing = [asyncio.create_task(play_client(listener.port, f"c{n}", **options))
                   for n, options in enumerate(clients)]
        seated = []
        for task in playing:  # one at a time, so accept order is player number
            seated.append(task)
            await asyncio.sleep(0.05)
        five = await listener.seat_clients(profile_wait=profile_wait)
        result = await play_either(on, five, port, rules, seed=seed)
        records = await asyncio.gather(*playing)
    return result, list(records)


@pytest.mark.slow
def test_a_100_game_match_of_five_contest_clients_and_its_log_replayed(tmp_path: Path, on: str) -> None:
    """The contest's match (a rank reset at game 51 here, reseating every 3) with exchanges, one client's first
    play malformed; then section 7's log of it, parsed again, replays on the engine line for line."""
    rules = Rules.preset("daifugo", deals=100, rank_reset_every=50)
    result, records = asyncio.run(bridged(tmp_path, rules, [{"first_play": JUNK}] + [{}] * 4, seed=21, on=on))
    match = result.record.replay()
    assert match.is_over and result.totals == tuple(match.scores)
    assert sum(result.totals) == 100 * 15
    assert [r.player for r in records] == [0, 1, 2, 3, 4]
    for record in records:
        assert not record.left and record.closed_by_server
        assert record.flags.count(1) == 99 and record.flags[-1] == 2 and record.flags.count(2) == 1
        assert set(record.acks) <= {8, 9}
    moves = [e for e in match.events if isinstance(e, (Played, Passed))]
    for record in records:
        assert len(record.after_moves) == len(moves), "every client reads every move's table"
        assert record.after_moves == records[0].after_moves, "all five read the same tables after moves"
    # what each client submitted is what the server's record says it did (refused plays became passes)
    assert len(result.submissions) == len(moves)
    for submission, event in zip(result.submissions, moves, strict=True):
        assert submission.player == event.player
        assert submission.accepted == isinstance(event, Played)
        if isinstance(event, Played):
            assert submission.cells is not None and submission.cells.cards == event.play.cards
    text = log_of(result).text()
    again = GameLog.parse(text)
    assert again.text() == text and len(again.games) == 100
    assert again.header["RANDOM_SEED"] == str(result.record.seed) and again.header["GAME_NUMBER"] == "100"
    for fresh in (0, 50):
        assert again.games[fresh].ranks == "22222" and again.games[fresh].changes == ()
    assert all(len(game.changes) == 4 for number, game in enumerate(again.games) if number not in (0, 50))
    assert len({game.seats for game in again.games}) > 1, "reseated"
    assert replay_log(again, result.record.start()) == []
    played = [line for line in text.splitlines() if line.startswith("%00000%play% ")]
    assert played[0].count("EE") == sum(1 for s in result.submissions if s.deal == 1)


def test_a_client_reads_its_own_hand_and_nobody_elses(tmp_path: Path, on: str) -> None:
    """Each hand table holds exactly the cards the server's record says that client holds at that move."""
    result, records = asyncio.run(bridged(tmp_path, 3, [{}] * 5, seed=11, on=on))
    m = result.record.start()
    held: list[tuple[CardSet, ...]] = []
    for deal in result.record.deals:
        for _, action in deal.actions:
            if m.phase is Phase.PLAY:
                held.append(tuple(m.hand(p) for p in range(5)))
            m.apply(action)
    assert m.is_over
    for record in records:
        assert len(record.hand_tables) == len(held)
        for table, hands in zip(record.hand_tables, held, strict=True):
            shown = decode(table)
            assert shown.cards.cards == hands[record.player]
            assert shown.status.card_counts == tuple(len(h) for h in hands)
            assert shown.status.your_turn == (shown.status.player == record.player)


def test_a_malformed_table_is_refused_and_is_a_pass(tmp_path: Path, caplog: pytest.LogCaptureFixture, on: str) -> None:
    """Issue 45: the refusal is in the bridge's log, with what was sent."""
    caplog.set_level(logging.WARNING, logger="president.uecda")
    result, records = asyncio.run(bridged(tmp_path, 1, [{"first_play": JUNK}] + [{}] * 4, on=on))
    assert records[0].acks[0] == 8
    first = next(s for s in result.submissions if s.player == 0)
    assert first.cells is None and not first.accepted
    said = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert said[0].startswith("contest player 0 (c0), game 1: refused (a pass): malformed ([0][0]: a card cell holds")
    assert "; it sent [0][0]=7 [0][1]=7 [0][2]=7 " in said[0]
    assert "and 55 more" in said[0], "75 cells of 7 in rows 0-4, the first 20 shown"
    refused = [s for s in result.submissions if not s.accepted and s.table is not None and (s.cells is None
                                                                                            or len(s.cells))]
    assert len(said) == len(refused), "every refused play, and only those"
    match = result.record.replay()
    assert match.is_over


def test_a_client_that_leaves_passes_to_the_end(tmp_path: Path, on: str) -> None:
    result, records = asyncio.run(bridged(tmp_path, 2, [{"leave_after": 2}] + [{}] * 4, on=on))
    assert records[0].left
    match = result.record.replay()
    assert match.is_over and all(r.flags[-1] == 2 for r in records[1:])
    later = [s for s in result.submissions if s.player == 0][2:]
    assert later and all(not s.accepted for s in later)
    ended = [e for e in match.events if isinstance(e, DealEnded)]
    assert len(ended) == 2


def test_a_client_without_a_profile_is_closed_and_a_sixth_finds_nothing(tmp_path: Path, on: str) -> None:
    async def silent(port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        asyncio.get_running_loop().call_later(3, writer.close)
        silent_reader.append(reader)

    silent_reader: list[asyncio.StreamReader] = []
    result, records = asyncio.run(bridged(tmp_path, 1, [{}] * 5, profile_wait=0.3, before=silent, on=on))
    assert [r.player for r in records] == [0, 1, 2, 3, 4]
    assert result.record.replay().is_over

    async def sixth() -> None:
        async with Listener("127.0.0.1", 0) as listener:
            port = listener.port
            clients = [asyncio.create_task(play_client(port, f"c{n}")) for n in range(5)]
            await listener.seat_clients()
            with pytest.raises(OSError):
                await asyncio.open_connection("127.0.0.1", port)
            for task in clients:
                task.cancel()
    asyncio.run(sixth())


def test_a_log_that_differs_from_the_engine_is_named(tmp_path: Path, on: str) -> None:
    result, _ = asyncio.run(bridged(tmp_path, 2, [{}] * 5, seed=22, on=on))
    log = log_of(result)
    game = log.games[1]
    wrong = dataclasses.replace(log, games=(log.games[0], dataclasses.replace(game, points=(0,) * 5)))
    assert replay_log(wrong, result.record.start()) == ["game 1: result or points differ"]
    with pytest.raises(LogError, match="two characters"):
        GameLog.parse("%00000%mibun% 22222\n%00000%seat% 01234\n%00000%palyer_cards% S\n")
    lines = log.lines()
    broken = [line if not line.startswith("%00000%play% ") else "%00000%play% EE" for line in lines]
    with pytest.raises(LogError, match="game 0: an empty entry"):
        GameLog.parse("\n".join(broken))


def through_both(tmp_path: Path, levels: Sequence[str], rules: Rules, *, seed: int,
                 deals: Sequence[ScenarioDeal] = (), on: str = "server") -> tuple[BridgeResult, list[Any]]:
    """Bridge B's clients of these built-in levels (seeded by player number) through bridge A."""
    async def clients(port: int | None) -> tuple[BridgeResult, list[Any]]:
        async with Listener("127.0.0.1", 0) as listener:
            playing = []
            for number, level in enumerate(levels):
                playing.append(asyncio.create_task(play_uecda_async(builtin_bot(level, seed=number), "127.0.0.1",
                                                                    listener.port, name=level, timeout=60)))
                await asyncio.sleep(0.05)
            five = await listener.seat_clients()
            result = await play_either(on, five, port, rules, seed=seed, deals=deals)
            return result, list(await asyncio.gather(*playing))

    async def with_server() -> tuple[BridgeResult, list[Any]]:
        if on == "engine":
            return await clients(None)
        server = await start(ServerConfig(db=str(tmp_path / f"db-{seed}.sqlite"), admin_token=ADMIN, port=0))
        try:
            return await clients(server.port)
        finally:
            await server.stop(0.5)

    return asyncio.run(with_server())


def test_our_bots_through_both_bridges_play_the_match_they_play_directly(tmp_path: Path, on: str) -> None:
    """Bridge B's clients (built-in levels) through bridge A make every move they make in the same match
    played in-process: the tables lose nothing a bot decides on."""
    levels = ("hard", "normal", "easy", "hard", "normal")
    result, clients = through_both(tmp_path, levels, contest_rules(3), seed=31, on=on)
    direct = play_local([builtin_bot(level, seed=number) for number, level in enumerate(levels)],
                        contest_rules(3), seed=31).match
    bridged = result.record.replay()
    assert [a for deal in result.record.deals for a in deal.actions] == [
        a for deal in MatchRecord.from_match(direct).deals for a in deal.actions]
    assert bridged.scores == direct.scores
    assert [c.points for c in clients] == list(result.totals)
    assert all(c.faults == 0 for c in clients)


def test_a_log_played_again_as_a_scenario_gives_its_game_lines(tmp_path: Path, on: str) -> None:
    """Section 7's strongest check of a bridge: clients that draw no random numbers, fed a log's seats and
    dealt hands again (here under another seed, which would seat and deal otherwise), write every game line
    of that log again; without the scenario the lines differ."""
    levels = ("hard", "normal", "easy", "hard", "easy")
    rules = Rules.preset("daifugo", deals=7, rank_reset_every=5)
    first, _ = through_both(tmp_path, levels, rules, seed=41, on=on)
    log = GameLog.parse(log_of(first).text())
    again, _ = through_both(tmp_path, levels, rules, seed=42, deals=scenario_of(log), on=on)
    assert game_differences(log_of(again), log) == []
    assert again.record.seed != first.record.seed
    other, _ = through_both(tmp_path, levels, rules, seed=43, on=on)
    assert game_differences(log_of(other), log)


def test_a_scenario_from_a_log_that_is_not_one_is_refused() -> None:
    game = "%00000%mibun% 22222\n%00000%seat% 01234\n%00000%palyer_cards% S3 S4 S5 S6 S7\n" \
           "%00000%change_cards% NULL\n%00000%play% 0EE\n%00000%result% 01234\n%00000%points% 5 4 3 2 1\n"
    assert len(scenario_of(GameLog.parse(game))) == 1
    with pytest.raises(LogError, match="game 0: seat 01134 is not players 0-4 once each"):
        scenario_of(GameLog.parse(game.replace("seat% 01234", "seat% 01134")))
    with pytest.raises(LogError, match="game 0: 4 hands, not 5"):
        scenario_of(GameLog.parse(game.replace(" S7", "")))


def test_a_flood_of_waiting_connections_is_bounded() -> None:
    """Connections beyond MAX_WAITING that wait to be seated are closed at once; the ones before them wait."""
    async def flood() -> tuple[bytes, int]:
        async with Listener("127.0.0.1", 0) as listener:
            held = [await asyncio.open_connection("127.0.0.1", listener.port) for _ in range(MAX_WAITING)]
            while listener.arrivals.qsize() < MAX_WAITING:
                await asyncio.sleep(0.01)
            reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
            closed = await asyncio.wait_for(reader.read(1), 5)
            waiting = listener.arrivals.qsize()
            for _, held_writer in [*held, (reader, writer)]:
                held_writer.close()
            return closed, waiting

    closed, waiting = asyncio.run(flood())
    assert closed == b"" and waiting == MAX_WAITING


def test_contest_clients_with_a_builtin_and_an_accounts_contest_client(tmp_path: Path) -> None:
    """Three contest clients, a built-in level played by the bridge, and an account whose bot is itself a contest
    client program behind ``president-bot "uecda:COMMAND" --account-token``: the log has every player's moves
    and replays on the engine."""
    async def with_server() -> tuple[BridgeResult, list[ClientRecord]]:
        server = await start(ServerConfig(db=str(tmp_path / "db.sqlite"), admin_token=ADMIN, port=0))
        address = f"127.0.0.1:{server.port}"
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                account = await pb_grpc.PresidentServiceStub(channel).CreateAccount(
                    pb.CreateAccountRequest(name="alice", owner="test"), metadata=(("authorization",
                                                                                    f"Bearer {ADMIN}"),))
            client = f"{PRESIDENT_BOT} builtin:easy --uecda {{host}}:{{port}}"
            bot = await asyncio.create_subprocess_exec(PRESIDENT_BOT, f"uecda:{client}", "--server", address,
                                                       "--account-token", account.token)
            try:
                async with Listener("127.0.0.1", 0) as listener:
                    playing = []
                    for number in range(3):
                        playing.append(asyncio.create_task(play_client(listener.port, f"c{number}")))
                        await asyncio.sleep(0.05)
                    three = await listener.seat_clients(3)
                    others = [OtherSeat.parse("builtin:normal"), OtherSeat.parse("account:alice")]
                    result = await play_match(three, address, ADMIN, contest_rules(4), others=others, seed=3)
                    return result, list(await asyncio.gather(*playing))
            finally:
                bot.terminate()
                await bot.wait()
        finally:
            await server.stop(0.5)

    result, records = asyncio.run(with_server())
    assert result.names[3:] == ("normal", "alice")
    assert [r.player for r in records] == [0, 1, 2]
    match = result.record.replay()
    assert match.is_over and tuple(match.scores) == result.totals
    log = GameLog.parse(log_of(result).text())
    assert {player for game in log.games for player, _ in game.plays} == {0, 1, 2, 3, 4}
    assert replay_log(log, result.record.start()) == []


def test_other_seats_are_a_level_or_an_account() -> None:
    assert OtherSeat.parse("builtin:hard") == OtherSeat(builtin="hard")
    assert OtherSeat.parse("account:bob").name == "bob"
    for wrong in ("builtin:nobody", "hard", "account:", "uecda:./client"):
        with pytest.raises(ValueError):
            OtherSeat.parse(wrong)


def test_both_paths_send_every_client_the_same_bytes(tmp_path: Path) -> None:
    """The match on the engine and the same match on a server (same rules and seed, the same clients): each client
    reads the same tables, acks and end flags, byte for byte, and the two logs have the same game lines."""
    rules = Rules.preset("daifugo", deals=4, rank_reset_every=2)
    clients = [{"first_play": JUNK}, {}, {"leave_after": 5}, {}, {"pieces": 3}]
    engine, engine_records = asyncio.run(bridged(tmp_path, rules, clients, seed=17, on="engine"))
    server, server_records = asyncio.run(bridged(tmp_path, rules, clients, seed=17, on="server"))
    assert engine_records == server_records
    assert engine.submissions == server.submissions
    assert game_differences(log_of(engine), log_of(server)) == []
    assert engine.record.deals == server.record.deals


def test_the_log_written_as_games_end_is_the_log_of_the_match(tmp_path: Path, on: str) -> None:
    """On the engine and on a server (from its finished deals, issue 45) each game's seven lines are written as
    it ends (`LogWriter`): the file is the log `log_of` makes of the finished match, line for line (the end time
    aside), with a refused play and a client gone."""
    async def match() -> tuple[BridgeResult, str]:
        server = None if on == "engine" else await start(ServerConfig(db=str(tmp_path / "db.sqlite"),
                                                                      admin_token=ADMIN, port=0))
        try:
            return await in_listener(server)
        finally:
            if server is not None:
                await server.stop(0.5)

    async def in_listener(server: Any) -> tuple[BridgeResult, str]:
        async with Listener("127.0.0.1", 0) as listener:
            options: list[dict[str, Any]] = [{"first_play": JUNK}, {}, {"leave_after": 4}, {}, {}]
            playing = []
            for number, option in enumerate(options):
                playing.append(asyncio.create_task(play_client(listener.port, f"c{number}", **option)))
                await asyncio.sleep(0.05)
            five = await listener.seat_clients()
            rules = Rules.preset("daifugo", deals=5, rank_reset_every=3)
            started = 1_765_000_000.0
            with io.StringIO() as file:
                writer = LogWriter(file, reference_header(contest_names(five), rules, 23, listener.port, started))
                written: list[str] = []

                def on_game(game: LoggedGame) -> None:
                    writer.game(game)
                    written.append(file.getvalue())

                result = (await play_on_engine(five, scenario_match(rules, (), 23), on_game=on_game) if server is None
                          else await play_match(five, f"127.0.0.1:{server.port}", ADMIN, rules, seed=23,
                                                on_game=on_game))
                writer.end(result.totals)
                text = file.getvalue()
            await asyncio.gather(*playing)
            assert [part.count("%points%") for part in written] == [1, 2, 3, 4, 5], "each game as it ended"
            return result, text

    result, text = asyncio.run(match())
    expected = log_of(result, port=int(GameLog.parse(text).header["GAME_PORT"]), started=1_765_000_000.0).text()
    assert [line for line in text.splitlines() if "TIME_END" not in line] == [
        line for line in expected.splitlines() if "TIME_END" not in line]
