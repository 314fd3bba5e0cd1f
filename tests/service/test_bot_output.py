"""A hosted version's output (issue 23): a host reports what its bot printed (ReportBotOutput), and the author reads
what it printed during a finished match or outside its matches (GetBotOutput); a line printed while a match
not over, or one whose deal is in play, was being played is held back; each version keeps its newest 256 KB."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from arena_support import ARENA, arena_settings, house_bots
from google.protobuf.timestamp_pb2 import Timestamp
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_service.base.errors import Reason, ServiceError
from president_service.hosting.bot_output import KEPT_BYTES, BotOutput, Window
from president_service.play.clock import ClockSettings
from president_service.play.match_store import MatchStore
from service_support import ADMIN, auth, client, running
from session_support import SessionBot, new_account
from version_support import ready_version


def _line(at: float, text: str) -> pb.BotOutputLine:
    stamp = Timestamp()
    stamp.FromMicroseconds(round(at * 1e6))
    return pb.BotOutputLine(at=stamp, text=text)


def test_lines_of_a_match_and_outside_matches_and_those_held_back(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "o.db")
    try:
        output = BotOutput(store)
        output.report("v1", [_line(t, f"at {t}") for t in (1, 5, 11, 15, 21, 25, 31)])
        output.report("v2", [_line(5, "another version's")])
        first, second, third = Window("m1", 4, 12), Window("m2", 10, 22), Window("m3", 24, 26)

        def texts(match: Window | None, hidden: set[str], *more: Window) -> tuple[list[str], int]:
            shown = output.shown("v1", match, [first, second, third, *more], lambda w: w.match_id in hidden)
            return [line.text for line in shown.lines], shown.held_back
        assert texts(first, {"m3"}) == (["at 5", "at 11"], 0)
        assert texts(first, {"m2", "m3"}) == (["at 5"], 1), "11 falls in m2, whose deal is in play"
        assert texts(None, {"m3"}) == (["at 1", "at 31"], 1), "outside every match; 25 is held in m3"
        live = Window("m4", 30, None)
        assert texts(None, {"m4"}, live) == (["at 1"], 1), "31 falls in the live m4"
        assert texts(third, {"m4"}, live) == (["at 25"], 0)
    finally:
        store.close()


def test_each_version_keeps_its_newest_lines_and_a_report_past_its_caps_is_refused(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "o.db")
    try:
        output = BotOutput(store)
        text = "x" * 1000
        for report in range(KEPT_BYTES // 1000 // 500 + 2):
            output.report("v1", [_line(report * 1000 + i, text) for i in range(500)])
        (kept, size), = store.query("SELECT COUNT(*), SUM(LENGTH(text)) FROM bot_output WHERE version_id = 'v1'")
        assert KEPT_BYTES - 1000 < size <= KEPT_BYTES and kept == size // 1000
        (newest,), = store.query("SELECT MAX(at) FROM bot_output")
        assert newest == (KEPT_BYTES // 1000 // 500 + 1) * 1000 + 499
        for bad in ([_line(0, "y" * 1001)], [_line(0, "y")] * 1001):
            with pytest.raises(ServiceError) as refused:
                output.report("v1", bad)
            assert refused.value.reason == Reason.MALFORMED
    finally:
        store.close()


def test_an_author_reads_what_the_hosted_bot_printed_during_its_check_match(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "h.db", arena=arena_settings()) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            token = await new_account(stub, "ada")
            bob = await new_account(stub, "bob")
            version = await ready_version(stub, token, b"first")
            [hosted] = (await stub.LeaseHosting(pb.LeaseHostingRequest(host="h", capacity=1),
                                                metadata=auth(ADMIN))).start
            started = time.time()
            playing = SessionBot(stub, hosted.token, accepts=ARENA)
            tasks.append(asyncio.create_task(playing.run()))
            while not playing.notices("CHECK_PASSED"):
                await asyncio.sleep(0.05)
            match_id = playing.notices("CHECK_PASSED")[0].match_id
            check = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match
            during = check.created_at.ToMicroseconds() / 1e6 + 0.001
            await stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id=version.version_id, lines=[
                _line(started - 5, "starting up"), _line(during, "my hand: 3S 4H")]), metadata=auth(ADMIN))

            async def get(match: str, who: str = token) -> pb.GetBotOutputResponse:
                got: pb.GetBotOutputResponse = await stub.GetBotOutput(
                    pb.GetBotOutputRequest(version_id=version.version_id, match_id=match), metadata=auth(who))
                return got
            assert [line.text for line in (await get(match_id)).lines] == ["my hand: 3S 4H"]
            assert [line.text for line in (await get("")).lines] == ["starting up"]
            assert [line.text for line in (await get("", ADMIN)).lines] == ["starting up"]

            async def refused(call: object) -> str:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call  # type: ignore[misc]
                return read_refusal(caught.value).reason
            assert await refused(get(match_id, bob)) == "UNKNOWN_VERSION"
            assert await refused(get("no-such-match")) == "UNKNOWN_MATCH"
            assert await refused(stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id=version.version_id),
                                                      metadata=auth(token))) == "NOT_ADMIN"
            assert await refused(stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id="nope"),
                                                      metadata=auth(ADMIN))) == "UNKNOWN_VERSION"
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_a_line_of_a_match_not_over_is_not_shown(tmp_path: Path) -> None:
    """The version's Session stops answering in its check match: the match is live, so GetBotOutput of it is
    MATCH_NOT_OVER, and what the bot printed meanwhile is held back from its output outside matches."""
    async def main() -> None:
        slow = arena_settings(clock=ClockSettings(move_ms=60_000, bank_ms=0, max_strikes=2))
        async with running(tmp_path / "h.db", arena=slow) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            token = await new_account(stub, "ada")
            version = await ready_version(stub, token, b"first")
            [hosted] = (await stub.LeaseHosting(pb.LeaseHostingRequest(host="h", capacity=1),
                                                metadata=auth(ADMIN))).start
            stalled = SessionBot(stub, hosted.token, accepts=ARENA, stop_after=1)
            await asyncio.wait_for(stalled.run(), 30)
            [match_id] = stalled.messages
            await stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id=version.version_id, lines=[
                _line(time.time(), "thinking about my hand")]), metadata=auth(ADMIN))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetBotOutput(pb.GetBotOutputRequest(version_id=version.version_id, match_id=match_id),
                                        metadata=auth(token))
            assert read_refusal(caught.value).reason == "MATCH_NOT_OVER"
            outside: pb.GetBotOutputResponse = await stub.GetBotOutput(
                pb.GetBotOutputRequest(version_id=version.version_id), metadata=auth(token))
            assert not outside.lines and outside.held_back == 1
            for task in tasks:
                task.cancel()
    asyncio.run(main())
