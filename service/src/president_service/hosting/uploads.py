"""Reading a bot's archive from a client stream: SubmitBot's manifest and archive, UploadBuild's lease and built
archive, each checked against its caps and its declared size and SHA-256 before anything is stored.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError

NAME_CHARS = 64
COMMAND_CHARS = 1024
UPLOAD_S = 60.0
"""A SubmitBot call must send its whole archive within this, so that a slow one does not hold its slot."""
BUILT_UPLOAD_S = 300.0
"""An UploadBuild call must send its whole archive within this (up to `Limits.built_archive_bytes`, eight times a
submission's cap, from a builder that may be on another machine)."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


def check_manifest(manifest: pb.BotManifest) -> None:
    """MALFORMED unless every field is what the contract allows."""
    def text(value: str, what: str, low: int, high: int) -> None:
        if not low <= len(value) <= high or not value.isprintable():
            raise ServiceError(Reason.MALFORMED, f"the manifest's {what}: {low} to {high} printable characters")
    text(manifest.name, "name", 1, NAME_CHARS)
    text(manifest.build, "build command", 0, COMMAND_CHARS)
    text(manifest.run, "run command", 1, COMMAND_CHARS)
    if manifest.runtime not in (pb.RUNTIME_PYTHON, pb.RUNTIME_NODE, pb.RUNTIME_BINARY, pb.RUNTIME_JAVA):
        raise ServiceError(Reason.MALFORMED, "the manifest's runtime: python, node, binary or java")


def too_large(what: str, cap: int) -> ServiceError:
    return ServiceError(Reason.TOO_LARGE, f"{what} is over its cap of {cap} bytes; nothing was stored",
                        {"max_bytes": str(cap)})


async def read_submission(requests: AsyncIterator[pb.SubmitBotRequest], max_bytes: int,
                          ended: Callable[[], Awaitable[None]]) -> tuple[pb.BotManifest, bytes]:
    """A SubmitBot call's manifest and whole archive, by `_read_archive`'s rules."""
    first, archive = await _read_archive(requests, "SubmitBot", "manifest", max_bytes, UPLOAD_S,
                                         lambda request: check_manifest(request.manifest), ended)
    return first.manifest, archive


async def read_upload(requests: AsyncIterator[pb.UploadBuildRequest], max_bytes: int,
                      admit: Callable[[pb.BuildLease], object],
                      ended: Callable[[], Awaitable[None]]) -> tuple[pb.BuildLease, bytes]:
    """An UploadBuild call's lease and whole archive, by `_read_archive`'s rules; `admit` refuses a lease before any
    chunk is read."""
    first, archive = await _read_archive(requests, "UploadBuild", "lease", max_bytes, BUILT_UPLOAD_S,
                                         lambda request: admit(request.lease), ended)
    return first.lease, archive


_Upload = TypeVar("_Upload", pb.SubmitBotRequest, pb.UploadBuildRequest)


async def _read_archive(requests: AsyncIterator[_Upload], rpc: str, opening: str, max_bytes: int, within_s: float,
                        check: Callable[[_Upload], object],
                        ended: Callable[[], Awaitable[None]]) -> tuple[_Upload, bytes]:
    """A client stream of an archive: its first message (the oneof `opening`, passed to `check`, with the size and
    SHA-256 it may declare) and the `chunk`s after it, whole.  MALFORMED or TOO_LARGE as soon as they are wrong,
    MALFORMED past `within_s`; `ended` (awaited once the stream is over) raises unless the client half-closed it,
    since a cancelled or cut stream ends the same way here; then MALFORMED unless the archive is the size and
    SHA-256 declared."""
    first: _Upload | None = None
    archive = bytearray()
    try:
        async with asyncio.timeout(within_s):
            async for request in requests:
                kind = request.WhichOneof("kind")
                if first is None:
                    if kind != opening:
                        raise ServiceError(Reason.MALFORMED, f"{rpc} opens with the {opening}, then the chunks")
                    _check_declared(request, max_bytes)
                    check(request)
                    first = request
                elif kind != "chunk" or request.archive_bytes or request.archive_sha256:
                    raise ServiceError(Reason.MALFORMED, f"the {opening} (with the archive's size and SHA-256) comes"
                                                         " once, first; then only chunks")
                else:
                    archive += request.chunk
                    if len(archive) > max_bytes:
                        raise too_large("the archive", max_bytes)
                    if first.archive_bytes and len(archive) > first.archive_bytes:
                        raise _mismatch("size", str(first.archive_bytes), f"more than {first.archive_bytes}")
    except TimeoutError:
        raise ServiceError(Reason.MALFORMED, f"the whole archive must come within {within_s:g} s") from None
    await ended()
    if first is None or not archive:
        raise ServiceError(Reason.MALFORMED, f"{rpc} needs a {opening} and a non-empty archive")
    if first.archive_bytes and len(archive) != first.archive_bytes:
        raise _mismatch("size", str(first.archive_bytes), str(len(archive)))
    if first.archive_sha256 and (sha := hashlib.sha256(archive).hexdigest()) != first.archive_sha256:
        raise _mismatch("sha256", first.archive_sha256, sha)
    return first, bytes(archive)


def _check_declared(first: pb.SubmitBotRequest | pb.UploadBuildRequest, max_bytes: int) -> None:
    """TOO_LARGE for a declared size over the cap, MALFORMED for a SHA-256 that is not 64 lowercase hex digits."""
    if first.archive_bytes > max_bytes:
        raise too_large("the archive declared", max_bytes)
    if first.archive_sha256 and not _SHA256.fullmatch(first.archive_sha256):
        raise ServiceError(Reason.MALFORMED, "the archive's SHA-256: 64 lowercase hex digits")


def _mismatch(what: str, declared: str, received: str) -> ServiceError:
    name = {"size": "size", "sha256": "SHA-256"}[what]
    return ServiceError(Reason.MALFORMED, f"the archive's {name} is {received}, not the {declared} declared; nothing"
                                          " was stored", {"mismatch": what, "declared": declared, "received": received})
