"""The organiser's view of the submissions (issue 44): ListVersions with the admin token lists every account's
versions with their builds, check matches, faults per move and last errors; an author's own listing tells what
became of failed check matches and when the next one comes; a server without the arena says so, in the listing
and in a Session's Welcome, instead of leaving a bot waiting for a check match that never comes.  Both
``president versions`` commands read it as a user runs them."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from pathlib import Path

import grpc
import pytest
from arena_support import ARENA, arena_settings, house_bots
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, auth, client, running
from session_support import SessionBot, new_account
from version_support import lease, ready_version, report, submit


async def _hosted(stub: pb_grpc.PresidentServiceAsyncStub) -> dict[str, str]:
    """Version id -> its hosting token, for every current version no host holds yet."""
    leased: pb.LeaseHostingResponse = await stub.LeaseHosting(
        pb.LeaseHostingRequest(host="tests", capacity=8), metadata=auth(ADMIN))
    return {h.version.version_id: h.token for h in leased.start}


async def _notices(bot: SessionBot, reason: str, count: int) -> list[pb.Notice]:
    while len(found := bot.notices(reason)) < count:
        await asyncio.sleep(0.02)
    return found


async def _cli(port: int, *args: str, admin_env: str = "") -> tuple[int, str, str]:
    """`president ARGS --server` this server, as a user runs it (PRESIDENT_ADMIN_TOKEN=`admin_env` if given):
    (exit status, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PRESIDENT_ADMIN_TOKEN", "PRESIDENT_ACCOUNT_TOKEN")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "president_harness", *args, "--server", f"127.0.0.1:{port}",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=env | ({"PRESIDENT_ADMIN_TOKEN": admin_env} if admin_env else {}))
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode or 0, out.decode(), err.decode()


def test_the_organiser_lists_every_accounts_versions_with_checks_faults_and_last_errors(tmp_path: Path) -> None:
    async def main() -> None:
        settings = arena_settings(check_retry_s=600.0, check_retry_max_s=3600.0)
        async with running(tmp_path / "v.db", arena=settings) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            tokens = {name: await new_account(stub, name) for name in ("ada", "bob", "cy")}
            broken = await ready_version(stub, tokens["ada"], b"ada's broken bot")
            good = await ready_version(stub, tokens["cy"], b"cy's bot")
            await submit(stub, tokens["bob"], b"bob's bot")
            await report(stub, await lease(stub), ready=False, reason="the build command exited with status 2")
            hosted = await _hosted(stub)
            assert set(hosted) == {broken.version_id, good.version_id}

            # ada's version fails its check match twice (one illegal answer each; reconnected in between), cy's
            # passes
            faulty = SessionBot(stub, hosted[broken.version_id], accepts=ARENA, first_fault=pb.BOT_FAULT_INVALID)
            first = asyncio.create_task(faulty.run())
            await asyncio.wait_for(_notices(faulty, "CHECK_FAILED", 1), 60)
            first.cancel()
            tasks.append(asyncio.create_task(faulty.run()))  # a new Session: a new check match at once
            failed = await asyncio.wait_for(_notices(faulty, "CHECK_FAILED", 2), 60)
            fine = SessionBot(stub, hosted[good.version_id], accepts=ARENA)
            tasks.append(asyncio.create_task(fine.run()))
            [passed] = await asyncio.wait_for(_notices(fine, "CHECK_PASSED", 1), 60)

            listed = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ADMIN))
            assert not listed.without_arena
            by_account = {v.account: v for v in listed.versions}
            assert set(by_account) == {"ada", "bob", "cy"}
            ada, bob, cy = by_account["ada"], by_account["bob"], by_account["cy"]
            assert (ada.record.check_matches, ada.record.checks_failed, ada.record.matches) == (2, 2, 2)
            assert ada.record.last_check_id == failed[1].match_id and ada.record.last_check_failed
            assert ada.record.faults == pb.FaultCounts(invalid=2) and ada.record.moves > 2
            assert ada.record.last_fault == f"check match {failed[1].match_id}: 1 illegal answer"
            assert ada.record.HasField("last_fault_at") and not ada.checked
            wait = ada.next_check_at.ToMicroseconds() / 1e6 - time.time()
            assert 500 < wait <= 600, wait
            assert bob.state == pb.VERSION_STATE_FAILED and bob.reason == "the build command exited with status 2"
            assert not bob.HasField("record") and not bob.HasField("next_check_at")
            assert cy.checked and (cy.record.check_matches, cy.record.checks_failed) == (1, 0)
            assert cy.record.last_check_id == passed.match_id and not cy.record.last_check_failed
            assert cy.record.faults == pb.FaultCounts() and cy.record.moves > 0 and not cy.record.last_fault

            # an author still sees only their own, now with the same record
            [own] = (await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(tokens["ada"]))).versions
            assert own.record == ada.record
            assert abs(own.next_check_at.ToMicroseconds() - ada.next_check_at.ToMicroseconds()) < 1e6
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth("not-a-token"))
            assert read_refusal(refused.value).reason == "BAD_TOKEN"

            # the commands: the organiser's view, and the author's told what became of the check matches
            status, out, err = await _cli(server.port, "versions", "--all", admin_env=ADMIN)  # as docs/hosting.md
            assert status == 0, err
            lines = out.splitlines()
            ada_line = next(i for i, line in enumerate(lines) if line.startswith("ada "))
            assert re.match(rf"ada +{broken.version_id}  READY \* +0 passed, 2 failed +2 in \d+ moves \(\d+\.\d%\)"
                            r" +mybot$", lines[ada_line]), out
            assert lines[ada_line + 1].strip() == (
                f"check: check failed 2 times; the last, check match {failed[1].match_id}: 1 illegal answer;"
                " next check in 10 min, or sooner if its bot reconnects"), out
            assert lines[ada_line + 2].strip() == (
                f"last error: check match {failed[1].match_id}: 1 illegal answer"), out
            assert re.search(r"^bob +\w{16}  FAILED +none +- +mybot\n +last error: build failed: the build"
                             r" command exited with status 2$", out, re.M), out
            assert re.search(rf"^cy +{good.version_id}  READY \* +1 passed, 0 failed +0 in \d+ moves \(0\.0%\)",
                             out, re.M), out
            assert "check: check match passed" in out
            status, out, err = await _cli(server.port, "versions", "--account-token", tokens["ada"])
            assert status == 0, err
            assert f"(check failed 2 times; the last, check match {failed[1].match_id}: 1 illegal answer; next" \
                   " check in 10 min, or sooner if its bot reconnects)" in out, out
            assert "check match to come" not in out
            status, out, err = await _cli(server.port, "versions", "--all", "--admin-token", "wrong")
            assert status == 1 and out == "" and err.count("\n") == 1 and "BAD_TOKEN" in err, (out, err)
            for task in tasks:
                task.cancel()
    asyncio.run(main())


def test_a_server_without_the_arena_says_no_check_match_will_come(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "n.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = await ready_version(stub, token, b"ada's bot")
            [hosting] = (await _hosted(stub)).values()
            bot = SessionBot(stub, hosting, accepts=ARENA)
            task = asyncio.create_task(bot.run())
            while not bot.other:
                await asyncio.sleep(0.02)
            welcome = bot.other[0].welcome
            assert welcome.check_pending and welcome.without_arena
            listed = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(token))
            assert listed.without_arena and [v.version_id for v in listed.versions] == [version.version_id]
            status, out, err = await _cli(server.port, "versions", "--account-token", token)
            assert status == 0, err
            assert "(no check match on this server: it runs without the arena)" in out, out
            status, out, err = await _cli(server.port, "versions", "--all", "--admin-token", ADMIN)
            assert status == 0, err
            assert out.startswith("this server runs without the arena: no check match comes (president serve --arena"
                                  " runs it)\n"), out
            bot.outbox.put_nowait(None)
            await task
    asyncio.run(main())


def test_versions_all_without_the_admin_token_is_one_line(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "t.db") as server:
            status, out, err = await _cli(server.port, "versions", "--all")
            assert (status, out, err) == (2, "", "president versions --all: give --admin-token or set"
                                                 " PRESIDENT_ADMIN_TOKEN\n")
    asyncio.run(main())


def test_a_record_is_kept_across_a_restart_and_counts_no_match_twice(tmp_path: Path) -> None:
    async def main() -> None:
        db = tmp_path / "r.db"
        async with running(db, arena=arena_settings(check_retry_s=600.0)) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            version = await ready_version(stub, await new_account(stub, "ada"), b"ada's bot")
            [hosting] = (await _hosted(stub)).values()
            faulty = SessionBot(stub, hosting, accepts=ARENA, first_fault=pb.BOT_FAULT_ERROR)
            tasks.append(asyncio.create_task(faulty.run()))
            [failed] = await asyncio.wait_for(_notices(faulty, "CHECK_FAILED", 1), 60)
            [before] = (await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ADMIN))).versions
            for task in tasks:
                task.cancel()
        assert (before.record.check_matches, before.record.faults.errors) == (1, 1)
        assert before.record.last_fault == f"check match {failed.match_id}: 1 error"
        async with running(db) as server, client(server.port) as stub:
            [after] = (await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ADMIN))).versions
        assert after.version_id == version.version_id and after.record == before.record
    asyncio.run(main())
