"""Who may be entered in a tournament, and an entrant as it plays (its account, pinned version and name).

Entrants are accounts with a READY, checked version (or whose own bot passed
its check match), house bots, or accounts the organiser names in
`unchecked`; anything else is refused (VERSION_STATE) with why, in one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.hosting.versions import Versions, player_name
from president_service.league.tournaments.event import Entrant
from president_service.play.accounts import Accounts


class Entry:
    """The accounts and their versions, as a tournament's entry reads them."""

    def __init__(self, accounts: Accounts, versions: Versions) -> None:
        self._accounts = accounts
        self._versions = versions

    def refuse_unready(self, names: Sequence[str]) -> None:
        """VERSION_STATE, naming every entrant without a READY, checked version (nor a passed check match of its
        own bot), and why: the organiser enters such an account only by naming it in `unchecked`."""
        why = {name: reason for name in names if (reason := self.unready(name))}
        if why:
            first = next(iter(why))
            listed = "; ".join(f"{name}: {reason}" for name, reason in why.items())
            raise ServiceError(Reason.VERSION_STATE, f"not ready to be entered: {listed} (name them in unchecked to"
                               " enter them anyway)", {"accounts": ",".join(why), "account": first,
                                                         "state": self._newest_state(first)})

    def unready(self, account: str) -> str:
        """Why the account cannot be entered without being named in `unchecked` ("" when it can)."""
        if self._accounts.get(account).house:
            return ""
        current = self._versions.current.get(account)
        if current:
            return "" if self._versions.checked(current) else f"its version {current} has not passed its check match"
        newest = self._versions.listing(account)[:1]
        if newest:
            version = newest[0]
            state = pb.VersionState.Name(version.state).removeprefix("VERSION_STATE_")
            return f"no READY version (its newest, {version.version_id}, is {state}" + (
                f": {' '.join(version.reason.split())[:200]})" if version.reason.strip() else ")")
        if self._accounts.get(account).checked:
            return ""
        return "no version, and its own bot has not passed a check match"

    def _newest_state(self, account: str) -> str:
        newest = self._versions.listing(account)[:1]
        return pb.VersionState.Name(newest[0].state if newest else pb.VERSION_STATE_UNSPECIFIED)

    def entrant(self, account: str, *, pinned: bool) -> Entrant:
        version = self._versions.current.get(account, "") if pinned else ""
        return Entrant(account=account, player=player_name(account, version) if version else account,
                       version=version, house=self._accounts.get(account).house)
