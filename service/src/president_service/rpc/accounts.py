"""`AccountsRpc`: accounts and the Session stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from president_protocol.v1 import president_pb2 as pb

from president_service.base.auth import bearer_token
from president_service.base.errors import Reason, ServiceError
from president_service.hosting.versions import Version
from president_service.play.accounts import Account
from president_service.play.messages import (
    account_message,
)
from president_service.play.session_writer import SessionContext
from president_service.rpc.core import (
    Context,
    ServicerCore,
    guarded,
    refuse_opening,
)


class AccountsRpc(ServicerCore):
    """Accounts and their Session stream."""

    # ------------------------------------------------------------------ accounts, sessions, the arena

    @guarded
    async def CreateAccount(self, request: pb.CreateAccountRequest,  # noqa: N802
                            context: Context) -> pb.CreateAccountResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        account, token = self._registry.accounts.create(request.name, request.owner, house=request.house)
        return pb.CreateAccountResponse(account=account_message(account), token=token)

    @guarded
    async def RotateAccountToken(self, request: pb.RotateAccountTokenRequest,  # noqa: N802
                                 context: Context) -> pb.RotateAccountTokenResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        token = self._registry.accounts.rotate(request.name)
        rotated = ServiceError(Reason.BAD_TOKEN, "the account's token was rotated: connect with the new one")
        self.sessions.close_account(request.name, rotated)
        return pb.RotateAccountTokenResponse(token=token)

    @guarded
    async def RevokeAccount(self, request: pb.RevokeAccountRequest,  # noqa: N802
                            context: Context) -> pb.RevokeAccountResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        account = self._registry.accounts.revoke(request.name)
        self.sessions.close_account(request.name, ServiceError(Reason.BAD_TOKEN, "the account was revoked"))
        return pb.RevokeAccountResponse(account=account_message(account))

    @guarded
    async def ListAccounts(self, request: pb.ListAccountsRequest,  # noqa: N802
                           context: Context) -> pb.ListAccountsResponse:
        self._admin.check(context.invocation_metadata())
        return pb.ListAccountsResponse(accounts=[account_message(a) for a in self._registry.accounts.all()])

    async def Session(self, request_iterator: AsyncIterator[pb.SessionRequest],  # type: ignore[override]  # noqa: N802
                      context: SessionContext) -> None:
        try:
            self._open()
            opened = self._admit_opening(context, play=False)
        except ServiceError as exc:
            await refuse_opening(context, exc)
        try:
            try:
                account, version = self._session_player(context.invocation_metadata())
                self._admit_stream()
            except ServiceError as exc:
                await refuse_opening(context, exc)
            try:
                await self.sessions.serve(account, context, version=version.version_id if version else "",
                                          checked=version.checked if version else account.checked, opened=opened)
            finally:
                self._streams -= 1
        finally:
            opened()

    def _session_player(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> tuple[Account, Version | None]:
        """Who a Session plays as: an account (its own token), or a hosted version of it (its lease's token)."""
        try:
            return self._registry.accounts.authenticate(metadata), None
        except ServiceError as exc:
            if exc.reason is not Reason.BAD_TOKEN or (version := self.versions.hosted(bearer_token(metadata))) is None:
                raise
            account = self._registry.accounts.get(version.account)
            if account.revoked:
                raise ServiceError(Reason.BAD_TOKEN, f"the account {account.name} is revoked") from None
            return account, version
