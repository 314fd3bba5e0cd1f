"""`PresidentServicer`: the president.v1 service, composed of one class per area that translates its calls."""

from __future__ import annotations

from president_service.rpc.accounts import AccountsRpc
from president_service.rpc.hosting import HostingRpc
from president_service.rpc.league import LeagueRpc
from president_service.rpc.matches import MatchesRpc


class PresidentServicer(MatchesRpc, AccountsRpc, LeagueRpc, HostingRpc):
    """Every RPC of president.v1: what the server registers and the web pages call."""
