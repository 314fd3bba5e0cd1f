"""An upload is stored only when its stream ended with the client's half-close and, when the first message declares
them, the archive has the size and SHA-256 declared (issue 44).  A client that cancels mid-stream, a client process
killed mid-stream (SIGKILL) and a wrong declared size or digest store nothing, for SubmitBot and for UploadBuild:
ListVersions is unchanged, LeaseBuild hands nothing out, no archive row is written, and a READY report still finds
no built archive.  Real gRPC over loopback."""

from __future__ import annotations

import asyncio
import hashlib
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, error_info, refused, running
from session_support import new_account
from version_support import ARCHIVE, BUILT, MANIFEST, fetch_built, lease, submit, upload, versions

CHUNK = 32 * 1024
KILLED_CLIENT = """
import sys, time
import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
port, token, rpc, version_id, lease_id = sys.argv[1:]
chunk = bytes(range(256)) * 128

def requests():
    if rpc == "SubmitBot":
        yield pb.SubmitBotRequest(manifest=pb.BotManifest(name="cut", runtime=pb.RUNTIME_PYTHON, run="python bot.py"))
        yield from (pb.SubmitBotRequest(chunk=chunk) for _ in range(3))
    else:
        yield pb.UploadBuildRequest(lease=pb.BuildLease(version_id=version_id, lease_id=lease_id))
        yield from (pb.UploadBuildRequest(chunk=chunk) for _ in range(3))
    print("sent", flush=True)
    time.sleep(600)  # never half-closed: killed here

with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
    stub = pb_grpc.PresidentServiceStub(channel)
    getattr(stub, rpc)(requests(), metadata=(("authorization", f"Bearer {token}"),))
"""


def _archive_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        (rows,), = conn.execute("SELECT COUNT(*) FROM version_archives").fetchall()
        return int(rows)


async def _cut_submission(stub: pb_grpc.PresidentServiceAsyncStub, token: str, *, declared: bool) -> None:
    """A SubmitBot that sends its manifest and part of ARCHIVE, then is cancelled."""
    sent = asyncio.Event()

    async def requests() -> AsyncIterator[pb.SubmitBotRequest]:
        yield pb.SubmitBotRequest(manifest=MANIFEST, archive_bytes=len(ARCHIVE) if declared else 0,
                                  archive_sha256=hashlib.sha256(ARCHIVE).hexdigest() if declared else "")
        for at in range(0, 2 * CHUNK, CHUNK):
            yield pb.SubmitBotRequest(chunk=ARCHIVE[at:at + CHUNK])
        sent.set()
        await asyncio.Event().wait()  # never half-closed
    call = stub.SubmitBot(requests(), metadata=auth(token))
    await sent.wait()
    await asyncio.sleep(0.5)  # the chunks reach the server
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


async def _cut_upload(stub: pb_grpc.PresidentServiceAsyncStub, leased: pb.LeaseBuildResponse) -> None:
    """An UploadBuild that sends its lease and part of BUILT, then is cancelled."""
    sent = asyncio.Event()

    async def requests() -> AsyncIterator[pb.UploadBuildRequest]:
        yield pb.UploadBuildRequest(lease=pb.BuildLease(version_id=leased.version.version_id,
                                                        lease_id=leased.lease_id))
        yield pb.UploadBuildRequest(chunk=BUILT[:CHUNK])
        sent.set()
        await asyncio.Event().wait()
    call = stub.UploadBuild(requests(), metadata=auth(ADMIN))
    await sent.wait()
    await asyncio.sleep(0.5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


async def _killed_client(port: int, token: str, rpc: str, leased: pb.LeaseBuildResponse | None = None) -> None:
    """A client process that sends the first message and 96 KB of an archive, then is killed (SIGKILL)."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_CLIENT, str(port), token, rpc,
        leased.version.version_id if leased else "", leased.lease_id if leased else "",
        stdout=asyncio.subprocess.PIPE)
    assert child.stdout is not None
    assert await asyncio.wait_for(child.stdout.readline(), 60) == b"sent\n"
    await asyncio.sleep(0.5)  # the chunks reach the server
    child.send_signal(signal.SIGKILL)
    assert await child.wait() == -signal.SIGKILL


async def _settled(call: Callable[[], Awaitable[Any]]) -> str:
    """The reason `call` is refused with once the cut upload's handler has let its upload slot go (it is refused
    TOO_MANY_STREAMS until then)."""
    for _ in range(600):
        try:
            await call()
        except grpc.aio.AioRpcError as exc:
            reason = str(error_info(exc).reason)
            if reason != "TOO_MANY_STREAMS":
                return reason
        else:
            raise AssertionError("a refusal was expected")
        await asyncio.sleep(0.05)
    raise AssertionError("the upload slot stayed held")


def _empty_submission(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        return await stub.SubmitBot(_requests(pb.SubmitBotRequest(manifest=MANIFEST), b""), metadata=auth(token))
    return call


async def _requests(first: Any, archive: bytes) -> AsyncIterator[Any]:
    yield first
    for at in range(0, len(archive), CHUNK):
        yield type(first)(chunk=archive[at:at + CHUNK])


async def _nothing_submitted(stub: pb_grpc.PresidentServiceAsyncStub, token: str, db: Path) -> None:
    assert await _settled(_empty_submission(stub, token)) == "MALFORMED"
    assert await versions(stub, token) == []
    assert not (await lease(stub)).HasField("version")
    assert _archive_rows(db) == 0


@pytest.mark.parametrize("declared", [False, True], ids=["undeclared", "declared"])
def test_a_submission_cancelled_mid_stream_stores_nothing(tmp_path: Path, declared: bool) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            await _cut_submission(stub, token, declared=declared)
            await _nothing_submitted(stub, token, db)
            assert not (await submit(stub, token)).existed  # a whole one is stored, as before
            assert len(await versions(stub, token)) == 1
    asyncio.run(main())


def test_a_submission_whose_client_is_killed_mid_stream_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            await _killed_client(server.port, token, "SubmitBot")
            await _nothing_submitted(stub, token, db)
    asyncio.run(main())


@pytest.mark.parametrize(("first", "mismatch", "received"), [
    (pb.SubmitBotRequest(manifest=MANIFEST, archive_bytes=len(ARCHIVE) + 1), "size", str(len(ARCHIVE))),
    (pb.SubmitBotRequest(manifest=MANIFEST, archive_bytes=len(ARCHIVE) - 1), "size", f"more than {len(ARCHIVE) - 1}"),
    (pb.SubmitBotRequest(manifest=MANIFEST, archive_bytes=len(ARCHIVE),
                         archive_sha256=hashlib.sha256(ARCHIVE[:-1]).hexdigest()),
     "sha256", hashlib.sha256(ARCHIVE).hexdigest()),
], ids=["longer", "shorter", "digest"])
def test_a_submission_of_another_size_or_digest_than_declared_stores_nothing(
        tmp_path: Path, first: pb.SubmitBotRequest, mismatch: str, received: str) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            info = await refused(stub.SubmitBot(_requests(first, ARCHIVE), metadata=auth(token)),
                                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert (info.metadata["mismatch"], info.metadata["received"]) == (mismatch, received)
            assert await versions(stub, token) == []
            assert not (await lease(stub)).HasField("version")
            assert _archive_rows(db) == 0
    asyncio.run(main())


def test_a_declaration_out_of_place_or_malformed_or_over_the_cap_is_refused_before_the_archive(
        tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "v.db", limits=Limits(archive_bytes=len(ARCHIVE))) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            late = _requests(pb.SubmitBotRequest(manifest=MANIFEST), ARCHIVE)

            async def declared_late() -> AsyncIterator[pb.SubmitBotRequest]:
                async for request in late:
                    yield request
                    if request.chunk:
                        yield pb.SubmitBotRequest(chunk=b"x", archive_bytes=len(ARCHIVE))
            await refused(stub.SubmitBot(declared_late(), metadata=auth(token)), grpc.StatusCode.INVALID_ARGUMENT,
                          "MALFORMED")
            await refused(stub.SubmitBot(_requests(pb.SubmitBotRequest(manifest=MANIFEST, archive_sha256="AB" * 32),
                                                   ARCHIVE), metadata=auth(token)),
                          grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            info = await refused(stub.SubmitBot(_requests(pb.SubmitBotRequest(
                manifest=MANIFEST, archive_bytes=len(ARCHIVE) + 1), b"x"), metadata=auth(token)),
                grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_LARGE")
            assert info.metadata["max_bytes"] == str(len(ARCHIVE))
            assert await versions(stub, token) == []
            declared = pb.SubmitBotRequest(manifest=MANIFEST, archive_bytes=len(ARCHIVE),
                                           archive_sha256=hashlib.sha256(ARCHIVE).hexdigest())
            stored = await stub.SubmitBot(_requests(declared, ARCHIVE), metadata=auth(token))
            assert (stored.version.archive_bytes, stored.existed) == (len(ARCHIVE), False)
    asyncio.run(main())


async def _nothing_uploaded(stub: pb_grpc.PresidentServiceAsyncStub, leased: pb.LeaseBuildResponse,
                            db: Path) -> None:
    """The cut upload's handler is over, and the version has no built archive: READY is refused."""
    empty = pb.UploadBuildRequest(lease=pb.BuildLease(version_id=leased.version.version_id, lease_id=leased.lease_id))
    assert await _settled(lambda: stub.UploadBuild(_requests(empty, b""), metadata=auth(ADMIN))) == "MALFORMED"
    await refused(fetch_built(stub, leased.version.version_id), grpc.StatusCode.FAILED_PRECONDITION,
                  "VERSION_STATE")
    await refused(stub.ReportBuild(pb.ReportBuildRequest(version_id=leased.version.version_id,
                                                         lease_id=leased.lease_id, ready=True),
                                   metadata=auth(ADMIN)), grpc.StatusCode.FAILED_PRECONDITION, "VERSION_STATE")
    assert _archive_rows(db) == 3  # the submitted archive's rows only
    assert (await upload(stub, leased)).version.built_sha256 == hashlib.sha256(BUILT).hexdigest()  # a whole one


@pytest.mark.parametrize("how", ["cancelled", "killed"])
def test_a_built_folder_upload_cut_mid_stream_stores_nothing_and_ready_is_refused(tmp_path: Path, how: str) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            await submit(stub, token)
            leased = await lease(stub)
            if how == "cancelled":
                await _cut_upload(stub, leased)
            else:
                await _killed_client(server.port, ADMIN, "UploadBuild", leased)
            await _nothing_uploaded(stub, leased, db)
    asyncio.run(main())


def test_a_built_folder_of_another_size_than_declared_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "v.db"

    async def main() -> None:
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            await submit(stub, token)
            leased = await lease(stub)
            first = pb.UploadBuildRequest(lease=pb.BuildLease(version_id=leased.version.version_id,
                                                              lease_id=leased.lease_id), archive_bytes=len(BUILT) + 1)
            info = await refused(stub.UploadBuild(_requests(first, BUILT), metadata=auth(ADMIN)),
                                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")
            assert (info.metadata["mismatch"], info.metadata["declared"]) == ("size", str(len(BUILT) + 1))
            await _nothing_uploaded(stub, leased, db)
    asyncio.run(main())
