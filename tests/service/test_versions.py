"""Submissions, versions and builds on the server (issue 23): archives stored once by content, caps and limits
refused with a reason (and a retry hint) and nothing stored, a builder's lease, fetch and report, and no account
seeing another's versions.  The server never unpacks an archive: these bytes need not even be a tar."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import grpc
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, refused, running
from session_support import new_account
from version_support import ARCHIVE, MANIFEST, fetch, lease, report, submit, versions


def test_the_same_content_is_one_version_stored_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            first = await submit(stub, token)
            assert not first.existed
            version = first.version
            assert version.state == pb.VERSION_STATE_QUEUED and version.account == "ada"
            assert version.sha256 == hashlib.sha256(ARCHIVE).hexdigest()
            assert version.archive_bytes == len(ARCHIVE) and version.manifest == MANIFEST
            again = await submit(stub, token)
            assert again.existed and again.version == version
            assert [v.version_id for v in await versions(stub, token)] == [version.version_id]
            assert await fetch(stub, version.version_id) == ARCHIVE
            renamed = await submit(stub, token, manifest=pb.BotManifest(
                name="renamed", runtime=pb.RUNTIME_PYTHON, run=MANIFEST.run))
            assert not renamed.existed and renamed.version.version_id != version.version_id
            assert [v.version_id for v in await versions(stub, token)] == [renamed.version.version_id,
                                                                             version.version_id]
        with sqlite3.connect(tmp_path / "v.db") as db:  # one archive's rows, though two versions hold it
            assert db.execute("SELECT COUNT(*) FROM version_archives").fetchone() == (3,)
    asyncio.run(main())


def test_an_archive_over_the_cap_is_too_large_and_nothing_is_stored(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db", limits=Limits(archive_bytes=100_000)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            info = await refused(submit(stub, token), grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_LARGE")
            assert info.metadata["max_bytes"] == "100000"
            assert await versions(stub, token) == []
            fits = await submit(stub, token, ARCHIVE[:100_000])
            assert fits.version.archive_bytes == 100_000
        with sqlite3.connect(tmp_path / "v.db") as db:
            assert db.execute("SELECT COUNT(*) FROM versions").fetchone() == (1,)
    asyncio.run(main())


def test_a_submission_that_is_not_one_is_malformed(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            malformed = (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            await refused(submit(stub, token, manifest=None), *malformed)
            await refused(submit(stub, token, b""), *malformed)
            for manifest in (pb.BotManifest(name="x", run="go"), pb.BotManifest(runtime=pb.RUNTIME_NODE, run="go"),
                             pb.BotManifest(name="x", runtime=pb.RUNTIME_NODE),
                             pb.BotManifest(name="x\n", runtime=pb.RUNTIME_NODE, run="go"),
                             pb.BotManifest(name="x", runtime=pb.RUNTIME_NODE, run="go", build="b" * 1025)):
                await refused(submit(stub, token, manifest=manifest), *malformed)
            await refused(submit(stub, "not-a-token"), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
            assert await versions(stub, token) == []
    asyncio.run(main())


def test_too_many_versions_waiting_for_builds_is_the_account_limit_with_a_retry_hint(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db", limits=Limits(account_queued_builds=2, account_versions_per_day=3)) \
                as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            for n in range(2):
                await submit(stub, token, ARCHIVE + bytes([n]))
            try:
                await submit(stub, token, ARCHIVE + b"third")
            except grpc.aio.AioRpcError as exc:
                refusal = read_refusal(exc)
                assert (exc.code(), refusal.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "ACCOUNT_LIMIT")
                assert refusal.retry_after_s is not None and refusal.retry_after_s >= 1, refusal
            else:
                raise AssertionError("a third version waiting")
            assert (await submit(stub, token, ARCHIVE + bytes([0]))).existed  # the same content is no new version
            await report(stub, await lease(stub))
            await submit(stub, token, ARCHIVE + b"third")  # one build done: room for one more
            await report(stub, await lease(stub))
            try:
                await submit(stub, token, ARCHIVE + b"fourth")
            except grpc.aio.AioRpcError as exc:  # the fourth of the day
                refusal = read_refusal(exc)
                assert refusal.reason == "ACCOUNT_LIMIT" and "24 hours" in refusal.message
                assert refusal.retry_after_s is not None and refusal.retry_after_s > 23 * 3600, refusal
            else:
                raise AssertionError("a fourth version in a day of three")
            assert len(await versions(stub, token)) == 3
    asyncio.run(main())


def test_another_accounts_token_can_neither_see_nor_fetch_a_version(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            ada, bob = await new_account(stub, "ada"), await new_account(stub, "bob")
            version = (await submit(stub, ada)).version
            assert await versions(stub, bob) == []
            await refused(stub.GetBuildLog(pb.GetBuildLogRequest(version_id=version.version_id), metadata=auth(bob)),
                          grpc.StatusCode.NOT_FOUND, "UNKNOWN_VERSION")
            for token in (ada, bob):
                await refused(fetch(stub, version.version_id, token), grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
                await refused(stub.LeaseBuild(pb.LeaseBuildRequest(), metadata=auth(token)),
                              grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
                await refused(stub.ReportBuild(pb.ReportBuildRequest(version_id=version.version_id, ready=True),
                                               metadata=auth(token)), grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
            await refused(stub.ListVersions(pb.ListVersionsRequest()), grpc.StatusCode.UNAUTHENTICATED,
                          "MISSING_TOKEN")
            await refused(fetch(stub, "0123456789abcdef"), grpc.StatusCode.NOT_FOUND, "UNKNOWN_VERSION")
            assert (await versions(stub, ada))[0].state == pb.VERSION_STATE_QUEUED  # nobody leased it
    asyncio.run(main())


def test_a_builder_leases_fetches_and_reports_and_the_newest_ready_version_is_current(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            first = (await submit(stub, token)).version
            leased = await lease(stub)
            assert leased.version.version_id == first.version_id
            assert leased.version.state == pb.VERSION_STATE_BUILDING
            assert not (await lease(stub)).HasField("version")  # nothing else waits
            assert await fetch(stub, first.version_id) == ARCHIVE
            await refused(report(stub, leased, log="x" * (48 * 1024 + 1)), grpc.StatusCode.RESOURCE_EXHAUSTED,
                          "TOO_LARGE")
            await refused(report(stub, leased, ready=False), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            await refused(report(stub, leased, ready=False, reason="two\nlines"), grpc.StatusCode.INVALID_ARGUMENT,
                          "MALFORMED")
            built = (await report(stub, leased, log="compiled 3 files\n")).version
            assert built.state == pb.VERSION_STATE_READY and built.current
            await refused(report(stub, leased), grpc.StatusCode.FAILED_PRECONDITION, "LEASE_EXPIRED")
            got = await stub.GetBuildLog(pb.GetBuildLogRequest(version_id=first.version_id), metadata=auth(token))
            assert got.log == "compiled 3 files\n" and got.version.current

            broken = (await submit(stub, token, ARCHIVE[:1000])).version
            failed = (await report(stub, await lease(stub), ready=False, reason="the build command exited with"
                                   " status 1: SyntaxError", log="Traceback\n")).version
            assert failed.version_id == broken.version_id and failed.state == pb.VERSION_STATE_FAILED
            assert failed.reason == "the build command exited with status 1: SyntaxError" and not failed.current
            newer = (await submit(stub, token, ARCHIVE[:2000])).version
            await report(stub, await lease(stub))
            listed = await versions(stub, token)
            assert [(v.version_id, v.current) for v in listed] == [(newer.version_id, True),
                                                                    (broken.version_id, False),
                                                                    (first.version_id, False)]
            admin_view = await stub.GetBuildLog(pb.GetBuildLogRequest(version_id=broken.version_id),
                                                metadata=auth(ADMIN))
            assert admin_view.log == "Traceback\n"
    asyncio.run(main())


def test_a_lease_that_ends_unreported_lets_another_builder_take_the_version(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db", limits=Limits(build_lease_s=0.2)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = (await submit(stub, token)).version
            lost = await lease(stub)
            await asyncio.sleep(1.0)  # past the lease's end
            taken = await lease(stub)
            assert taken.version.version_id == version.version_id and taken.lease_id != lost.lease_id
            await refused(report(stub, lost), grpc.StatusCode.FAILED_PRECONDITION, "LEASE_EXPIRED")
            assert (await report(stub, taken)).version.state == pb.VERSION_STATE_READY
    asyncio.run(main())


def test_versions_and_their_logs_survive_a_restart(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = (await submit(stub, token)).version
            await report(stub, await lease(stub), log="kept\n")
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            listed = await versions(stub, token)
            assert [(v.version_id, v.state, v.current) for v in listed] == [
                (version.version_id, pb.VERSION_STATE_READY, True)]
            assert await fetch(stub, version.version_id) == ARCHIVE
            assert (await submit(stub, token)).existed
    asyncio.run(main())
