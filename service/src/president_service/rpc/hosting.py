"""`HostingRpc`: submitted bots, their versions, builds, hosting leases and output."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import ExitStack

from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError, abort
from president_service.hosting.bot_output import WINDOWS, Window
from president_service.hosting.uploads import read_submission, read_upload
from president_service.hosting.versions import CHUNK_BYTES
from president_service.play.messages import (
    timestamp,
)
from president_service.rpc.core import (
    Context,
    ServicerCore,
    guarded,
)


async def _half_closed(context: Context) -> None:
    """Return only if the client half-closed its request stream, which has just ended.

    grpc's asyncio server ends a request stream the same way whether the client half-closed it or cancelled the
    call (or went away): a failed read reads as the end.  The call's initial metadata is therefore sent first: on a
    call that is over the batch fails, or the handler is cancelled meanwhile, and an upload cut short stores nothing.
    """
    try:
        await context.send_initial_metadata(())
    except Exception as exc:  # any failure means the call is over (CancelledError passes through)
        raise ServiceError(Reason.MALFORMED, "the upload did not end with the client's half-close; nothing was"
                                             " stored") from exc


class HostingRpc(ServicerCore):
    """Submitted bots: versions, builds, hosting leases and their output."""

    # ------------------------------------------------------------------ submissions, versions, builds
    # The server stores and serves archives; it never unpacks or runs one (a builder does, in its sandbox).

    @guarded
    async def SubmitBot(self, request_iterator: AsyncIterator[pb.SubmitBotRequest],  # noqa: N802
                        context: Context) -> pb.SubmitBotResponse:
        self._open()
        account = self._registry.accounts.authenticate(context.invocation_metadata())
        with self.versions.uploading(f"the account {account.name}"):
            manifest, archive = await read_submission(request_iterator, self._registry.limits.archive_bytes,
                                                      lambda: _half_closed(context))
        version, existed = self.versions.submit(account.name, manifest, archive)
        return pb.SubmitBotResponse(version=self.versions.message(version), existed=existed)

    @guarded
    async def ListVersions(self, request: pb.ListVersionsRequest,  # noqa: N802
                           context: Context) -> pb.ListVersionsResponse:
        return self.version_listing(context.invocation_metadata())

    def version_listing(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> pb.ListVersionsResponse:
        """ListVersions: the versions of the account whose token `metadata` carries (the admin token: every
        account's), newest first, each with its record and the wait before its next check match (the web's
        /api/versions calls it too, with the request's Authorization header)."""
        owner = None if self._admin.given(metadata) else self._registry.accounts.authenticate(metadata).name
        versions = self.versions.listing(owner)
        records = self.records.of(v.player for v in versions if v.player)
        for version in versions:
            if version.player in records:
                version.record.CopyFrom(records[version.player])
            if version.current and not version.checked and (at := self.arena.next_check_at(version.account)):
                version.next_check_at.CopyFrom(timestamp(at))
        return pb.ListVersionsResponse(versions=versions, without_arena=not self.arena.settings.enabled,
                                       every_account=owner is None)

    @guarded
    async def GetBuildLog(self, request: pb.GetBuildLogRequest,  # noqa: N802
                          context: Context) -> pb.GetBuildLogResponse:
        return self.build_log(context.invocation_metadata(), request.version_id)

    def build_log(self, metadata: Iterable[tuple[str, str | bytes]] | None,
                  version_id: str) -> pb.GetBuildLogResponse:
        """GetBuildLog: a version and its build log, for its account's token or the admin token; UNKNOWN_VERSION
        for another account's (the web's /api/versions/ID/log calls it too)."""
        owner = None if self._admin.given(metadata) else self._registry.accounts.authenticate(metadata).name
        version = self.versions.get(version_id, owner)
        return pb.GetBuildLogResponse(version=self.versions.message(version),
                                      log=self.versions.log(version.version_id))

    @guarded
    async def SetCurrentVersion(self, request: pb.SetCurrentVersionRequest,  # noqa: N802
                                context: Context) -> pb.SetCurrentVersionResponse:
        return self.set_current_version(context.invocation_metadata(), request.version_id)

    def set_current_version(self, metadata: Iterable[tuple[str, str | bytes]] | None,
                            version_id: str) -> pb.SetCurrentVersionResponse:
        """SetCurrentVersion, for the account whose token `metadata` carries (the web's POST
        /api/versions/ID/current calls it too).  The hosts learn of it at their next lease renewal."""
        self._open()
        account = self._registry.accounts.authenticate(metadata)
        return pb.SetCurrentVersionResponse(version=self.versions.message(self.versions.choose(account.name,
                                                                                               version_id)))

    @guarded
    async def ReportBotOutput(self, request: pb.ReportBotOutputRequest,  # noqa: N802
                              context: Context) -> pb.ReportBotOutputResponse:
        self._admin.check(context.invocation_metadata())
        self.bot_output.report(self.versions.get(request.version_id, None).version_id, request.lines)
        return pb.ReportBotOutputResponse()

    @guarded
    async def GetBotOutput(self, request: pb.GetBotOutputRequest,  # noqa: N802
                           context: Context) -> pb.GetBotOutputResponse:
        return await self.bot_output_of(context.invocation_metadata(), request.version_id, request.match_id)

    async def bot_output_of(self, metadata: Iterable[tuple[str, str | bytes]] | None, version_id: str,
                            match_id: str) -> pb.GetBotOutputResponse:
        """GetBotOutput, for the version's account's token or the admin token (the web's /api/versions/ID/output
        calls it too): the lines of a finished match of the version, or of no match, less those a match not
        over, or whose deal is in play, may hold (`bot_output`)."""
        admin = self._admin.given(metadata)
        owner = None if admin else self._registry.accounts.authenticate(metadata).name
        version = self.versions.get(version_id, owner)
        oldest = self.bot_output.oldest(version.version_id)
        store = self._registry.store
        windows = [] if oldest is None else [Window(*row) for row in await store.windows(version.player, oldest,
                                                                                           WINDOWS)]
        match = None
        if match_id:
            found = [Window(*row) for row in await store.windows(version.player, 0.0, 1, match_id[:64])]
            if not found:
                raise ServiceError(Reason.UNKNOWN_MATCH, f"{version.player} played no match {match_id[:64]!r}")
            match = found[0]
            windows = [w for w in windows if w.match_id != match.match_id] + [match]
            if match.end is None:
                raise ServiceError(Reason.MATCH_NOT_OVER, "its bot's output is shown once the match is over")
            self._check_shown(await self._registry.get(match.match_id), admin)
        registry = self._registry
        shown = self.bot_output.shown(version.version_id, match, windows, lambda w: w is not match and (
            w.end is None or (not admin and registry.finished_in_play(w.match_id, w.end))))
        return pb.GetBotOutputResponse(version=self.versions.message(version), lines=shown.lines,
                                       held_back=shown.held_back, dropped=shown.dropped)

    @guarded
    async def LeaseBuild(self, request: pb.LeaseBuildRequest, context: Context) -> pb.LeaseBuildResponse:  # noqa: N802
        self._open()
        self._admin.check(context.invocation_metadata())
        leased = self.versions.lease(request.builder)
        if leased is None:
            return pb.LeaseBuildResponse()
        version, lease_id, until = leased
        return pb.LeaseBuildResponse(version=self.versions.message(version), lease_id=lease_id,
                                     lease_expires_at=timestamp(until))

    async def FetchVersion(self, request: pb.FetchVersionRequest,  # noqa: N802
                           context: Context) -> AsyncIterator[pb.FetchVersionResponse]:
        try:
            self._admin.check(context.invocation_metadata())
            chunks = self.versions.archive(request.version_id, built=request.built)
            first = next(chunks)  # a refusal comes before the first message
        except ServiceError as exc:
            await abort(context, exc)
        assert len(first) <= CHUNK_BYTES
        yield pb.FetchVersionResponse(chunk=first)
        for chunk in chunks:
            yield pb.FetchVersionResponse(chunk=chunk)

    @guarded
    async def UploadBuild(self, request_iterator: AsyncIterator[pb.UploadBuildRequest],  # noqa: N802
                          context: Context) -> pb.UploadBuildResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        with ExitStack() as held:
            def admit(lease: pb.BuildLease) -> None:
                """Refuse a lease no longer held before any chunk is read; else hold an upload slot."""
                self.versions.check_lease(lease.version_id, lease.lease_id)
                held.enter_context(self.versions.uploading(f"the build of {lease.version_id[:64]}"))
            lease, archive = await read_upload(request_iterator, self._registry.limits.built_archive_bytes, admit,
                                               lambda: _half_closed(context))
        version = self.versions.upload_built(lease.version_id, lease.lease_id, archive)
        return pb.UploadBuildResponse(version=self.versions.message(version))

    @guarded
    async def ReportBuild(self, request: pb.ReportBuildRequest, context: Context) -> pb.ReportBuildResponse:  # noqa: N802
        self._admin.check(context.invocation_metadata())
        version = self.versions.report(request.version_id, request.lease_id, ready=request.ready,
                                       reason=request.reason, log=request.log)
        return pb.ReportBuildResponse(version=self.versions.message(version))

    @guarded
    async def LeaseHosting(self, request: pb.LeaseHostingRequest,  # noqa: N802
                           context: Context) -> pb.LeaseHostingResponse:
        self._open()
        self._admin.check(context.invocation_metadata())

        def playable(account: str) -> bool:
            return not self._registry.accounts.get(account).revoked
        start, keep, stop, until = self.versions.host(request.host, request.capacity, list(request.running),
                                                      playable)
        for version_id in stop:  # its bot may still be connected: a Session under a lease no longer held ends
            self.sessions.close_version(version_id, ServiceError(
                Reason.BAD_TOKEN, "this version's hosting lease ended (retired, replaced or moved)"))
        return pb.LeaseHostingResponse(
            start=[pb.HostedVersion(version=self.versions.message(v), token=token) for v, token in start],
            keep=keep, stop=stop, lease_expires_at=timestamp(until))
