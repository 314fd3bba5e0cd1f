"""A person plays a seat in the browser (/play): Debian's chromium driven by Playwright, against a real server
whose other seats are bots on Play streams.

The page is given the seat token typed in, shows the seat's own hand, its legal actions as buttons and its
clock; the test plays a whole match by clicking them.  Every JSON the page fetched for the seat is checked
to be exactly the seat's view at some moment of the match (the engine's own observation for that player),
with no card that view does not hold.
"""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import BrowserContext, Response, expect
from president_engine import Match
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.web.proto_json import proto_json
from web_support import SCREENSHOTS, BackgroundServer, browser_context

NAMES = ["you", "bob", "cy", "di"]
CLOCK = pb.ClockSettings(move_time_limit_ms=60_000, time_bank_ms=5_000, strikes_before_takeover=3)
"""Time enough for each click; a clock, so the page has one to show."""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("web") / "web.db")
    yield running
    running.close()


def _cards(data: Any) -> list[str]:
    """Every card in a JSON value (a Card object anywhere in it), in the engine's notation."""
    if isinstance(data, dict):
        if set(data) == {"rank", "suit"}:
            return [str(c) for c in convert.cards_from_proto([json_format.ParseDict(data, pb.Card())])]
        return [c for value in data.values() for c in _cards(value)]
    if isinstance(data, list):
        return [c for value in data for c in _cards(value)]
    return []


def _seat_views(match: Match, player: int) -> set[str]:
    """The player's observation, as the page's JSON gives it, at every moment of the finished match."""
    start = match.__class__(match.rules, seed=match.seed)
    views = {json.dumps(proto_json(convert.observation_to_proto(start.observation(player))), sort_keys=True)}
    for _, action in [a for deal in match.actions_by_deal() for a in deal]:
        start.apply(action)
        views.add(json.dumps(proto_json(convert.observation_to_proto(start.observation(player))), sort_keys=True))
    return views


def _request(server: BackgroundServer, path: str, token: str | None, body: Any = None) -> tuple[int, Any]:
    """An HTTP request to the server's pages (a POST when `body` is given): its status and JSON."""
    headers = {"Content-Type": "application/json"} | ({} if token is None else {"Authorization": f"Bearer {token}"})
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(server.base + path, data=data, headers=headers,
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_person_plays_a_whole_match_by_clicking_legal_actions_and_never_receives_another_seats_card(
        browser: BrowserContext, server: BackgroundServer) -> None:
    created = server.create(seed=7, deals=2, names=NAMES, clock=CLOCK)
    token = created.seats[0].token
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    fetched: list[dict[str, Any]] = []

    def seen(response: Response) -> None:
        if "/api/seat" in response.url and response.request.method == "GET" and response.ok:
            fetched.append(response.json())
    page.on("response", seen)
    page.goto(f"{server.base}/play")
    page.fill("#seat-token", token)
    page.click("text=Take the seat")
    expect(page.locator("#hand .card").first).to_be_visible()
    bots = server.play(created, pace=0.02, absent=frozenset({0}))
    chooser = random.Random(3)
    clicks = 0
    clock_seen = False
    over = page.locator("#over")
    while not over.is_visible():
        buttons = page.locator("button.legal:enabled")
        try:
            buttons.first.wait_for(timeout=3_000)
        except Exception:  # the bots' turn, or the match just ended
            continue
        clock_seen = clock_seen or "s left" in page.inner_text("#clock")
        if clicks == 0:
            page.screenshot(path=str(SCREENSHOTS / "human-seat.png"), full_page=True)
        try:
            buttons.nth(chooser.randrange(buttons.count())).click(timeout=2_000)
        except Exception:  # redrawn under the click: look again
            continue
        clicks += 1
    bots.result(60)
    expect(over).to_contain_text("wins")
    page.screenshot(path=str(SCREENSHOTS / "human-seat-over.png"), full_page=True)
    assert clicks >= 5 and clock_seen and not errors
    assert token not in page.url and all(token not in json.dumps(data) for data in fetched)

    match = convert.replay_from_proto(server.replay(created.match_id)).replay()
    assert match.is_over
    views = _seat_views(match, 0)
    assert len(fetched) > clicks
    for data in fetched:
        assert data["player"] == 0
        observation = data["observation"]
        assert json.dumps(observation, sort_keys=True) in views, "the seat's own view at some moment, no more"
        held = _cards({k: observation.get(k) for k in ("hand", "played", "trick", "table", "exchange")})
        assert set(_cards(data)) <= set(held)
    page.close()


def test_the_seat_api_reads_the_token_from_the_header_only_and_refuses_a_bad_act_changing_nothing(
        server: BackgroundServer) -> None:
    created = server.create(seed=8, deals=1, names=NAMES)
    mine = created.seats[1].token
    status, body = _request(server, "/api/seat", None)
    assert status == 401 and body["error"]["reason"] == "MISSING_TOKEN"
    status, body = _request(server, f"/api/seat?token={mine}", None)
    assert status == 401
    status, body = _request(server, "/api/seat", "f" * 64)
    assert status == 401 and body["error"]["reason"] == "BAD_TOKEN"
    status, view = _request(server, "/api/seat", mine)
    assert status == 200 and view["player"] == 1 and len(view["observation"]["hand"]) > 0
    others = json.dumps(view["observation"]["hand"])
    assert set(_cards(view)) == set(_cards(json.loads(others)))  # at the start: its own hand and nothing else
    for bad in (b"not json", {"turn_id": 1}, {"turn_id": "1", "action": {}}, {"turn_id": 1, "action": {"x": 1}},
                b"{" + b" " * 5000 + b"}"):
        status, body = _request(server, "/api/seat/act", mine, bad)
        assert status == 400 and body["error"]["reason"] == "MALFORMED", bad
    assert _request(server, "/api/seat", mine)[1] == view
