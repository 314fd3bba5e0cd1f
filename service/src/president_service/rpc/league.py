"""`LeagueRpc`: the arena's leaderboard and tournaments."""

from __future__ import annotations

from president_protocol.v1 import president_pb2 as pb

from president_service.rpc.core import (
    Context,
    ServicerCore,
    guarded,
)


class LeagueRpc(ServicerCore):
    """The arena's leaderboard and tournaments."""

    @guarded
    async def GetLeaderboard(self, request: pb.GetLeaderboardRequest,  # noqa: N802
                             context: Context) -> pb.GetLeaderboardResponse:
        return self.arena.leaderboard((request.preset or "cardverse", request.players or 4))

    # ------------------------------------------------------------------ tournaments

    @guarded
    async def CreateTournament(self, request: pb.CreateTournamentRequest,  # noqa: N802
                               context: Context) -> pb.CreateTournamentResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        return pb.CreateTournamentResponse(tournament=self.tournaments.create(request.spec))

    @guarded
    async def ControlTournament(self, request: pb.ControlTournamentRequest,  # noqa: N802
                                context: Context) -> pb.ControlTournamentResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        return pb.ControlTournamentResponse(
            tournament=self.tournaments.control(request.tournament_id, request.control))

    @guarded
    async def GetTournament(self, request: pb.GetTournamentRequest,  # noqa: N802
                            context: Context) -> pb.GetTournamentResponse:
        return pb.GetTournamentResponse(tournament=self.tournaments.message(request.tournament_id))

    @guarded
    async def ListTournaments(self, request: pb.ListTournamentsRequest,  # noqa: N802
                              context: Context) -> pb.ListTournamentsResponse:
        return pb.ListTournamentsResponse(tournaments=self.tournaments.listing())
