"""The web pages' routes: the pages and their assets, and the JSON and server-sent events they read.

    /                            the match list (`?player=NAME`: that player's matches)
    /matches/ID                  a match as a spectator sees it, live
    /matches/ID/replay           a finished match, every hand face up
    /tournaments                 the tournaments, newest first
    /tournaments/ID              a tournament: its standings and rounds, refreshed while it runs
    /play                        a seat played by a person: the seat token typed into the page, the seat's own
                                 hand, its legal actions as buttons and its clock
    /versions                    an author's bot versions (the account token typed into the page) and build logs;
                                 with the admin token, every account's: the organiser's view
    /api/matches[?player=NAME&offset=N&page_size=N]
                                 ListMatches, as JSON: every live match and a page of finished ones (50 unless
                                 page_size says), from `offset`, with how many finished matches there are
    /api/matches/ID              GetMatch, as JSON; with `--human-seats`, the players whose bot a person may play
                                 against now (`play_against`: connected bot accounts, not house bots, on an arena
                                 board)
    /api/matches/ID/live         the Spectate stream, as server-sent events (Last-Event-ID resumes)
    /api/matches/ID/replay       the replay's frames (replay_frames), built from GetReplay's record
    /api/leaderboards            GetLeaderboard of every arena queue that has rated accounts, as JSON, and
                                 whether this server lets a person play against a bot (`human_seats`)
    POST /api/play-against       with `--human-seats` only: a match of a connected bot account against the
                                 person and connected house bots (human_match), the body {"account": NAME,
                                 "preset": P, "players": N}; answers the person's seat token
    /api/tournaments             ListTournaments, as JSON (without standings and rounds)
    /api/tournaments/ID          GetTournament, as JSON, with the ids of its live matches a spectator may
                                 not watch yet (`hidden`: another live match deals the same cards)
    /api/versions                ListVersions of the account whose token the `Authorization: Bearer T` header
                                 carries (the admin token: every account's), as JSON, each version with its arena
                                 ratings (its leaderboard entries)
    /api/versions/ID/log         GetBuildLog, as JSON, for the header's token: the version's account's, or the
                                 admin token
    POST /api/versions/ID/current
                                 SetCurrentVersion for the header's token (its account's version), as JSON
    /api/seat                    GetTurn for the seat whose token the header carries, as JSON, with the seat's own
                                 observation and the match's names (what a Play stream's seat may see, no more)
    POST /api/seat/act           SubmitAction for the header's seat token: the body {"turn_id": N, "action": A},
                                 A an Action in its JSON form (one of the prompt's legal_actions)
    /api/versions/ID/output[?match=MATCH]
                                 GetBotOutput, as JSON, for the header's token: the version's account's, or the
                                 admin token

A token is read from the Authorization header only, never from the query
(an address lands in logs and history), and the answers it opens are not
cached.

Every API route calls the servicer's own method for its RPC, so a page gets
the same messages, the same redaction and the same refusals as a gRPC
spectator without the admin token.  A refusal is a JSON error with the
reason, and the HTTP status that goes with its gRPC code.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web
from aiohttp_sse import EventSourceResponse, sse_response
from google.protobuf import json_format
from president_protocol import convert
from president_protocol.replay_page.proto_json import proto_json
from president_protocol.replay_page.replay_frames import replay_frames
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.league.arena_ratings import PROVISIONAL_SIGMA, provisional
from president_service.play.acts import apply_act
from president_service.play.match_request import shorten
from president_service.play.messages import play_hidden
from president_service.rpc.matches import turn_answer
from president_service.rpc.servicer import PresidentServicer
from president_service.web import assets

_HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503,
}
"""The HTTP status of each gRPC code a refusal can carry (the usual gRPC-to-HTTP mapping)."""

_SERVICER = web.AppKey("servicer", PresidentServicer)
_HUMAN_SEATS = web.AppKey("human_seats", bool)
PAGE_SIZE = 50
"""Finished matches the match list shows on a page unless the query asks for another number."""


def web_app(servicer: PresidentServicer, *, human_seats: bool = False) -> web.Application:
    """The pages and their API on top of `servicer` (`human_seats`: anyone may start a match against a bot)."""
    app = web.Application()
    app[_SERVICER] = servicer
    app[_HUMAN_SEATS] = human_seats
    files = assets()
    app.router.add_get("/", _page(files["index.html"]))
    app.router.add_get("/matches/{match_id}", _page(files["live.html"]))
    app.router.add_get("/matches/{match_id}/replay", _page(files["replay.html"]))
    app.router.add_get("/tournaments", _page(files["tournaments.html"]))
    app.router.add_get("/tournaments/{tournament_id}", _page(files["tournaments.html"]))
    app.router.add_get("/versions", _page(files["versions.html"]))
    app.router.add_get("/play", _page(files["play.html"]))
    app.router.add_get("/assets/{name}", _asset(files))
    app.router.add_get("/api/matches", _list)
    app.router.add_get("/api/matches/{match_id}", _summary)
    app.router.add_get("/api/matches/{match_id}/live", _live)
    app.router.add_get("/api/matches/{match_id}/replay", _replay)
    app.router.add_get("/api/leaderboards", _leaderboards)
    app.router.add_get("/api/tournaments", _tournaments)
    app.router.add_get("/api/tournaments/{tournament_id}", _tournament)
    app.router.add_get("/api/seat", _seat)
    app.router.add_post("/api/seat/act", _seat_act)
    app.router.add_post("/api/play-against", _play_against)
    app.router.add_get("/api/versions", _versions)
    app.router.add_get("/api/versions/{version_id}/log", _build_log)
    app.router.add_post("/api/versions/{version_id}/current", _set_current)
    app.router.add_get("/api/versions/{version_id}/output", _bot_output)
    return app


def _page(path: Path) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    async def page(request: web.Request) -> web.FileResponse:
        return web.FileResponse(path)
    return page


def _asset(files: dict[str, Path]) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    """The route of /assets/NAME: one of `files` (web.assets), by name alone; 404 for any other."""
    async def asset(request: web.Request) -> web.FileResponse:
        found = files.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        return web.FileResponse(found)
    return asset


def _error(exc: ServiceError) -> dict[str, Any]:
    return {"error": {"reason": exc.reason.name, "message": exc.message}}


def _refusal(exc: ServiceError) -> web.Response:
    """A ServiceError as the API's JSON error, with the HTTP status of its gRPC code."""
    return web.json_response(_error(exc), status=_HTTP_STATUS.get(exc.reason.code, 400))


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _with_shown(servicer: PresidentServicer, summary: pb.MatchSummary) -> dict[str, Any]:
    """A summary as the API gives it, with whether its play may be seen now (not while another live match deals
    its cards: then the summary has left out how its deals went, `hide_play`)."""
    return {"match": proto_json(summary), "shown": servicer.shown(summary.match_id) and not play_hidden(summary)}


def _whole_number(name: str, text: str) -> int:
    """A whole number a request gives as text (a query parameter, a header); MALFORMED for anything else."""
    if not (text.isascii() and text.isdigit()) or len(text) > 9:  # "²" passes isdigit() alone, and int() refuses it
        raise ServiceError(Reason.MALFORMED, f"{name}: a whole number, not {shorten(text)}")
    return int(text)


def _count(request: web.Request, name: str, default: int) -> int:
    """A whole-number query parameter, `default` when the query has none."""
    text = request.query.get(name, "")
    return _whole_number(name, text) if text else default


async def _list(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        offset, page_size = _count(request, "offset", 0), _count(request, "page_size", PAGE_SIZE)
        listed = await servicer.summaries(pb.MATCH_STATUS_UNSPECIFIED, page_size=page_size, offset=offset,
                                          player=request.query.get("player", ""))
    except ServiceError as exc:
        return _refusal(exc)
    return web.json_response({"matches": [_with_shown(servicer, m) for m in listed.matches],
                              "finished_total": listed.finished_total, "offset": offset}, dumps=_json)


async def _leaderboards(request: web.Request) -> web.Response:
    arena = request.app[_SERVICER].arena
    boards = [arena.leaderboard(queue) for queue in arena.settings.queues]
    return web.json_response({"leaderboards": [proto_json(b) for b in boards if b.entries],
                              "human_seats": request.app[_HUMAN_SEATS], "provisional_sigma": PROVISIONAL_SIGMA},
                             dumps=_json)


async def _tournaments(request: web.Request) -> web.Response:
    listed = request.app[_SERVICER].tournaments.listing()
    return web.json_response({"tournaments": [proto_json(t) for t in listed]}, dumps=_json)


async def _tournament(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        found = servicer.tournaments.message(request.match_info["tournament_id"])
    except ServiceError as exc:
        return _refusal(exc)
    hidden = [m for r in found.rounds for t in r.tables if not t.finished for m in t.match_ids
              if not servicer.shown(m)]
    shaky = [s.player for s in found.standings if s.tables and provisional(s.sigma)]
    return web.json_response({"tournament": proto_json(found), "hidden": hidden, "provisional": shaky,
                              "provisional_sigma": PROVISIONAL_SIGMA}, dumps=_json)


def _authorization(request: web.Request) -> list[tuple[str, str]]:
    """The request's Authorization header as the call metadata the servicer reads (none: MISSING_TOKEN there)."""
    header = request.headers.get("Authorization")
    return [] if header is None else [("authorization", header)]


def _private(data: dict[str, Any]) -> web.Response:
    """An answer only the token's holder may see: kept by no cache."""
    return web.json_response(data, dumps=_json, headers={"Cache-Control": "no-store"})


def _ratings(servicer: PresidentServicer, versions: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Version id -> the arena ratings of these versions: each one's entry on each queue's leaderboard, with its
    rank there."""
    arena = servicer.arena
    found: dict[str, list[dict[str, Any]]] = {}
    for queue in arena.settings.queues:
        board = arena.leaderboard(queue)
        for rank, entry in enumerate(board.entries, 1):
            if entry.version_id in versions:
                found.setdefault(entry.version_id, []).append({
                    "preset": board.preset, "players": board.players, "rank": rank, "of": len(board.entries),
                    "ordinal": _finite(entry.ordinal), "matches": entry.matches, "deals": entry.deals,
                    "mean_place": _finite(entry.mean_place), "mean_place_low": _finite(entry.mean_place_low),
                    "mean_place_high": _finite(entry.mean_place_high), "provisional": entry.provisional})
    return found


def _finite(value: float) -> float | None:
    """A number for JSON, which has no NaN (none: null)."""
    return value if math.isfinite(value) else None


async def _versions(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        listed = servicer.version_listing(_authorization(request))
    except ServiceError as exc:
        return _refusal(exc)
    ratings = _ratings(servicer, {v.version_id for v in listed.versions}) if listed.versions else {}
    return _private({"versions": [{"version": proto_json(v), "ratings": ratings.get(v.version_id, [])}
                                  for v in listed.versions],
                     "without_arena": listed.without_arena, "every_account": listed.every_account})


async def _build_log(request: web.Request) -> web.Response:
    try:
        found = request.app[_SERVICER].build_log(_authorization(request), request.match_info["version_id"])
    except ServiceError as exc:
        return _refusal(exc)
    return _private(proto_json(found))


async def _bot_output(request: web.Request) -> web.Response:
    try:
        found = await request.app[_SERVICER].bot_output_of(_authorization(request), request.match_info["version_id"],
                                                           request.query.get("match", ""))
    except ServiceError as exc:
        return _refusal(exc)
    return _private(proto_json(found))


async def _set_current(request: web.Request) -> web.Response:
    try:
        chosen = request.app[_SERVICER].set_current_version(_authorization(request), request.match_info["version_id"])
    except ServiceError as exc:
        return _refusal(exc)
    return _private(proto_json(chosen))


async def _seat(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        runner, player = await servicer.polled_seat(_authorization(request))
    except ServiceError as exc:
        return _refusal(exc)
    answer = turn_answer(runner, player)
    return _private({
        "match_id": runner.match_id, "player": player, "names": list(runner.names),
        "status": pb.MatchStatus.Name(answer.status),
        "observation": proto_json(convert.observation_to_proto(runner.match.observation(player))),
        "prompt": proto_json(answer.prompt) if answer.HasField("prompt") else None,
        "result": proto_json(answer.result) if answer.HasField("result") else None})


async def _play_against(request: web.Request) -> web.Response:
    try:
        if not request.app[_HUMAN_SEATS]:
            raise ServiceError(Reason.NOT_ADMIN, "on this server only the organiser creates matches (a person plays"
                                                 " against a bot where the server runs with --human-seats)")
        body = await _small_json(request)
        account, preset, players = body.get("account"), body.get("preset"), body.get("players")
        if set(body) != {"account", "preset", "players"} or not isinstance(account, str) \
                or not isinstance(preset, str) or not isinstance(players, int) or isinstance(players, bool):
            raise ServiceError(Reason.MALFORMED, 'the body is {"account": NAME, "preset": P, "players": N}')
        runner, player, token = request.app[_SERVICER].human_match((preset, players), account)
    except ServiceError as exc:
        return _refusal(exc)
    return _private({"match_id": runner.match_id, "player": player, "token": token})


MAX_ACT_BYTES = 4096
"""The largest body POST /api/seat/act reads (an act is a turn id and a few cards)."""


async def _seat_act(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        runner, player = await servicer.polled_seat(_authorization(request))
        turn_id, action = await _act_body(request)
        apply_act(runner, player, turn_id, action, pb.BOT_FAULT_UNSPECIFIED)
    except ServiceError as exc:
        return _refusal(exc)
    return _private({"turn_id": turn_id})


async def _small_json(request: web.Request) -> dict[str, Any]:
    """A POST's body, a JSON object of at most MAX_ACT_BYTES; MALFORMED for anything else."""
    if (request.content_length or 0) > MAX_ACT_BYTES:
        raise ServiceError(Reason.MALFORMED, f"the body is at most {MAX_ACT_BYTES} bytes")
    data = await request.content.read(MAX_ACT_BYTES + 1)
    try:
        if len(data) > MAX_ACT_BYTES:
            raise ValueError(f"at most {MAX_ACT_BYTES} bytes")
        body = json.loads(data.decode("utf-8", errors="replace"))
        if not isinstance(body, dict):
            raise ValueError("a JSON object")
    except ValueError as exc:
        raise ServiceError(Reason.MALFORMED, f"the body: {shorten(str(exc), 120)}") from None
    return body


async def _act_body(request: web.Request) -> tuple[int, pb.Action]:
    """The turn id and action a POST /api/seat/act carries; MALFORMED for anything else."""
    body = await _small_json(request)
    try:
        if set(body) != {"turn_id", "action"}:
            raise ValueError("the body is {\"turn_id\": N, \"action\": A}")
        turn_id = body["turn_id"]
        if not isinstance(turn_id, int) or isinstance(turn_id, bool) or not 0 < turn_id < 2**63:
            raise ValueError("turn_id: a whole number from the prompt")
        action = json_format.ParseDict(body["action"], pb.Action())
    except (ValueError, json_format.ParseError) as exc:
        raise ServiceError(Reason.MALFORMED, f"the act: {shorten(str(exc), 120)}") from None
    return turn_id, action


async def _summary(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    try:
        found = await servicer.summary(request.match_info["match_id"])
    except ServiceError as exc:
        return _refusal(exc)
    shown = _with_shown(servicer, found.match)
    if request.app[_HUMAN_SEATS]:
        shown["play_against"] = servicer.opponents(found.match)
    return web.json_response(shown, dumps=_json)


def _resume_from(request: web.Request) -> int:
    """The seq to resume from after a reconnection (the browser sends the last event id it saw); 0: from a
    snapshot."""
    name = EventSourceResponse.DEFAULT_LAST_EVENT_HEADER
    last = request.headers.get(name, "")
    return _whole_number(name, last) + 1 if last else 0


async def _live(request: web.Request) -> web.StreamResponse:
    """The Spectate stream as server-sent events: each message as its JSON, with its seq as the event id."""
    servicer = request.app[_SERVICER]
    try:
        from_seq = _resume_from(request)
    except ServiceError as exc:
        return _refusal(exc)
    messages = servicer.spectate(request.match_info["match_id"], from_seq=from_seq)
    async with aclosing(messages):
        try:
            first = await anext(messages)
        except ServiceError as exc:
            return _refusal(exc)
        async with sse_response(request) as events:
            await _send(events, first)
            try:
                async for message in messages:
                    await _send(events, message)
            except ServiceError as exc:  # the server is draining: say so; the browser reconnects to its successor
                await events.send(_json(_error(exc)), event="refused")
            return events


async def _send(events: EventSourceResponse, message: pb.SpectateResponse) -> None:
    kind = message.WhichOneof("kind")
    seq = message.event.seq if kind == "event" else message.snapshot.last_seq if kind == "snapshot" else None
    await events.send(_json(proto_json(message)), id=None if seq is None else str(seq))


async def _replay(request: web.Request) -> web.Response:
    servicer = request.app[_SERVICER]
    match_id = request.match_info["match_id"]
    try:
        found = await servicer.replay(match_id)
        summary = await servicer.summary(match_id)
    except ServiceError as exc:
        return _refusal(exc)
    # a long match takes a while to replay: not on the loop that plays the live ones
    frames = await asyncio.to_thread(_frames, found.replay, summary.match)
    response = web.json_response(frames, dumps=_json)
    response.enable_compression()
    return response


def _frames(replay: pb.Replay, summary: pb.MatchSummary) -> dict[str, Any]:
    return replay_frames(convert.replay_from_proto(replay), list(replay.names), match_id=summary.match_id,
                         summaries=summary.players)
