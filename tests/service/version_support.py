"""Submitting a version and building it over gRPC, as an author and the organiser's builder do."""

from __future__ import annotations

from collections.abc import AsyncIterator

from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, auth

MANIFEST = pb.BotManifest(name="mybot", runtime=pb.RUNTIME_PYTHON, build="python -m compileall -q .",
                          run="president-bot bot.py --arena")
ARCHIVE = bytes(range(256)) * 700
"""179,200 bytes: three of the store's 64 KB rows."""
BUILT = bytes(range(255, -1, -1)) * 300
"""76,800 bytes, a builder's built folder (the server never unpacks it): two rows."""


async def _requests(manifest: pb.BotManifest | None, archive: bytes,
                    chunk: int = 32 * 1024) -> AsyncIterator[pb.SubmitBotRequest]:
    if manifest is not None:
        yield pb.SubmitBotRequest(manifest=manifest)
    for at in range(0, len(archive), chunk):
        yield pb.SubmitBotRequest(chunk=archive[at:at + chunk])


async def submit(stub: pb_grpc.PresidentServiceAsyncStub, token: str, archive: bytes = ARCHIVE,
                 manifest: pb.BotManifest | None = MANIFEST) -> pb.SubmitBotResponse:
    answer: pb.SubmitBotResponse = await stub.SubmitBot(_requests(manifest, archive), metadata=auth(token))
    return answer


async def versions(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> list[pb.BotVersion]:
    listed = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(token))
    return list(listed.versions)


async def fetch(stub: pb_grpc.PresidentServiceAsyncStub, version_id: str, token: str = ADMIN) -> bytes:
    return b"".join([m.chunk async for m in stub.FetchVersion(pb.FetchVersionRequest(version_id=version_id),
                                                              metadata=auth(token))])


async def lease(stub: pb_grpc.PresidentServiceAsyncStub) -> pb.LeaseBuildResponse:
    leased: pb.LeaseBuildResponse = await stub.LeaseBuild(pb.LeaseBuildRequest(builder="tests"), metadata=auth(ADMIN))
    return leased


async def _upload_requests(lease: pb.BuildLease | None, archive: bytes,
                           chunk: int = 32 * 1024) -> AsyncIterator[pb.UploadBuildRequest]:
    if lease is not None:
        yield pb.UploadBuildRequest(lease=lease)
    for at in range(0, len(archive), chunk):
        yield pb.UploadBuildRequest(chunk=archive[at:at + chunk])


async def upload(stub: pb_grpc.PresidentServiceAsyncStub, leased: pb.LeaseBuildResponse, archive: bytes = BUILT, *,
                 lease_id: str | None = None, token: str = ADMIN) -> pb.UploadBuildResponse:
    """UploadBuild of `archive` under the lease (or another `lease_id`)."""
    lease = pb.BuildLease(version_id=leased.version.version_id,
                          lease_id=leased.lease_id if lease_id is None else lease_id)
    answer: pb.UploadBuildResponse = await stub.UploadBuild(_upload_requests(lease, archive), metadata=auth(token))
    return answer


async def fetch_built(stub: pb_grpc.PresidentServiceAsyncStub, version_id: str) -> bytes:
    return b"".join([m.chunk async for m in stub.FetchVersion(
        pb.FetchVersionRequest(version_id=version_id, built=True), metadata=auth(ADMIN))])


async def report(stub: pb_grpc.PresidentServiceAsyncStub, leased: pb.LeaseBuildResponse, *, ready: bool = True,
                 reason: str = "", log: str = "built\n") -> pb.ReportBuildResponse:
    """ReportBuild as a builder does: a READY one after its built folder's upload."""
    if ready:
        await upload(stub, leased)
    reported: pb.ReportBuildResponse = await stub.ReportBuild(pb.ReportBuildRequest(
        version_id=leased.version.version_id, lease_id=leased.lease_id, ready=ready, reason=reason, log=log),
        metadata=auth(ADMIN))
    return reported


async def ready_version(stub: pb_grpc.PresidentServiceAsyncStub, token: str, content: bytes) -> pb.BotVersion:
    """A new version of the account, built (READY)."""
    submitted = await submit(stub, token, content)
    leased = await lease(stub)
    assert leased.version.version_id == submitted.version.version_id
    version: pb.BotVersion = (await report(stub, leased)).version
    return version
