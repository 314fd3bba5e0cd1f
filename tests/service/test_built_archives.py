"""Built folders through the server (issue 23): a builder uploads its build's archive under its lease
(UploadBuild) before it reports READY, the server keeps it by its SHA-256 beside the submitted archives, and a host
on any machine fetches it (FetchVersion with `built`).  Each refusal changes nothing.  The server never unpacks a
built archive either: these bytes need not be a tar."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, refused, running
from session_support import new_account
from version_support import ARCHIVE, BUILT, fetch, fetch_built, lease, report, submit, upload, versions

BUILT_SHA = hashlib.sha256(BUILT).hexdigest()


def _rows(db: Path) -> tuple[int, list[tuple[str, int]]]:
    """The archive rows stored, and each version's built hash and size."""
    with sqlite3.connect(db) as conn:
        (archive_rows,), = conn.execute("SELECT COUNT(*) FROM version_archives").fetchall()
        return archive_rows, conn.execute("SELECT built_sha256, built_bytes FROM versions ORDER BY id").fetchall()


def test_a_built_folder_is_uploaded_once_under_its_lease_and_fetched_by_any_host(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            await submit(stub, token)
            leased = await lease(stub)
            info = await refused(fetch_built(stub, leased.version.version_id), grpc.StatusCode.FAILED_PRECONDITION,
                                 "VERSION_STATE")
            assert info.metadata["state"] == "BUILDING"
            uploaded = (await upload(stub, leased)).version
            assert uploaded.state == pb.VERSION_STATE_BUILDING
            assert (uploaded.built_sha256, uploaded.built_bytes) == (BUILT_SHA, len(BUILT))
            stored = _rows(tmp_path / "v.db")
            assert stored == (3 + 2, [(BUILT_SHA, len(BUILT))])  # the submitted archive's rows, then the build's
            assert (await upload(stub, leased)).version == uploaded  # the same bytes again: nothing changes
            assert _rows(tmp_path / "v.db") == stored
            ready = (await stub.ReportBuild(pb.ReportBuildRequest(
                version_id=uploaded.version_id, lease_id=leased.lease_id, ready=True, log="built\n"),
                metadata=auth(ADMIN))).version
            assert ready.state == pb.VERSION_STATE_READY and ready.built_sha256 == BUILT_SHA
            assert await fetch_built(stub, ready.version_id) == BUILT
            assert await fetch(stub, ready.version_id) == ARCHIVE  # the submitted one, as it came
            [listed] = await versions(stub, token)
            assert (listed.built_sha256, listed.built_bytes) == (BUILT_SHA, len(BUILT))
        async with running(tmp_path / "v.db") as server, client(server.port) as stub:  # kept across a restart
            assert await fetch_built(stub, ready.version_id) == BUILT
    asyncio.run(main())


def test_an_upload_without_its_lease_too_large_or_after_ready_and_ready_without_one_are_refused(
        tmp_path: Path) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db, limits=Limits(built_archive_bytes=len(BUILT) - 1)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            await submit(stub, token)
            leased = await lease(stub)
            before = _rows(db)
            assert before == (3, [("", 0)])
            failed_precondition = grpc.StatusCode.FAILED_PRECONDITION
            info = await refused(stub.ReportBuild(pb.ReportBuildRequest(
                version_id=leased.version.version_id, lease_id=leased.lease_id, ready=True), metadata=auth(ADMIN)),
                failed_precondition, "VERSION_STATE")
            assert info.metadata["state"] == "BUILDING"
            await refused(upload(stub, leased, lease_id="not-the-lease"), failed_precondition, "LEASE_EXPIRED")
            await refused(upload(stub, leased, token=token), grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")
            unknown = pb.LeaseBuildResponse(version=pb.BotVersion(version_id="0123456789abcdef"),
                                            lease_id=leased.lease_id)
            await refused(upload(stub, unknown), grpc.StatusCode.NOT_FOUND, "UNKNOWN_VERSION")
            await refused(upload(stub, leased, b""), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            info = await refused(upload(stub, leased), grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_LARGE")
            assert info.metadata["max_bytes"] == str(len(BUILT) - 1)
            assert _rows(db) == before
            [still] = await versions(stub, token)
            assert still.state == pb.VERSION_STATE_BUILDING and not still.built_sha256

            fits = BUILT[:-1]
            await upload(stub, leased, fits)
            assert (await stub.ReportBuild(pb.ReportBuildRequest(
                version_id=leased.version.version_id, lease_id=leased.lease_id, ready=True),
                metadata=auth(ADMIN))).version.state == pb.VERSION_STATE_READY
            after_ready = _rows(db)
            await refused(upload(stub, leased, fits[:1000]), failed_precondition, "LEASE_EXPIRED")
            assert _rows(db) == after_ready == (3 + 2, [(hashlib.sha256(fits).hexdigest(), len(fits))])
            assert await fetch_built(stub, leased.version.version_id) == fits
    asyncio.run(main())


def test_a_lost_builders_upload_is_not_the_next_builds(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db", limits=Limits(build_lease_s=0.2)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            await submit(stub, token)
            lost = await lease(stub)
            await upload(stub, lost)
            await asyncio.sleep(1.0)  # past the lease's end
            taken = await lease(stub)
            assert taken.version.version_id == lost.version.version_id and not taken.version.built_sha256
            await refused(stub.ReportBuild(pb.ReportBuildRequest(
                version_id=taken.version.version_id, lease_id=taken.lease_id, ready=True), metadata=auth(ADMIN)),
                grpc.StatusCode.FAILED_PRECONDITION, "VERSION_STATE")
            assert (await report(stub, taken)).version.state == pb.VERSION_STATE_READY  # with its own upload
    asyncio.run(main())


def test_a_database_from_before_built_archives_opens_and_its_versions_have_none(tmp_path: Path) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = (await submit(stub, token)).version
            await report(stub, await lease(stub))
        with sqlite3.connect(db) as conn:  # as the table was before built archives
            for column in ("built_sha256", "built_bytes"):
                conn.execute(f"ALTER TABLE versions DROP COLUMN {column}")
            assert "built_sha256" not in {row[1] for row in conn.execute("PRAGMA table_info(versions)")}
        async with running(db) as server, client(server.port) as stub:
            [listed] = await versions(stub, token)
            assert listed.version_id == version.version_id and listed.state == pb.VERSION_STATE_READY
            assert (listed.built_sha256, listed.built_bytes) == ("", 0)
            assert await fetch(stub, version.version_id) == ARCHIVE
            info = await refused(fetch_built(stub, version.version_id), grpc.StatusCode.FAILED_PRECONDITION,
                                 "VERSION_STATE")
            assert info.metadata["state"] == "READY"

    asyncio.run(main())
    assert _rows(db)[1] == [("", 0)]
