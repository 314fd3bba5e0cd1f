"""A person plays a seat in the browser (/play): Debian's chromium driven by Playwright, against a real server
whose other seats are bots on Play streams.

The page is given the seat token typed in, shows the seat's own hand, its legal actions as buttons and its
clock; the test plays a whole match by clicking them.  Every JSON the page fetched for the seat is checked
to be exactly the seat's view at some moment of the match (the engine's own observation for that player),
with no card that view does not hold.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import BrowserContext, Page, Response, expect
from playwright.sync_api import Error as PlaywrightError
from president_engine import Match
from president_protocol import convert
from president_protocol.replay_page.proto_json import proto_json
from president_protocol.v1 import president_pb2 as pb
from president_sdk import builtin_bot
from president_sdk.session_client import SessionClient
from web_support import ADMIN, DESKTOP, SCREENSHOTS, BackgroundServer, browser_context

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
    page.goto(f"{server.base}/matches/{created.match_id}")  # the live page links every page's "Play a seat"
    page.locator(".topbar").get_by_role("link", name="Play a seat").click()
    page.wait_for_url(f"{server.base}/play")
    expect(page.locator("main")).not_to_contain_text("null")  # it once showed the missing error's null
    page.fill("#seat-token", token)
    page.click("text=Take the seat")
    expect(page.locator("#hand .card").first).to_be_visible()
    bots = server.play(created, pace=0.02, absent=frozenset({0}))
    page.locator("button.legal").first.wait_for()
    expect(page.locator("#clock")).to_contain_text("s left")
    page.screenshot(path=str(SCREENSHOTS / "human-seat.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "fits a phone's width"
    page.screenshot(path=str(SCREENSHOTS / "human-seat-phone.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    clicks = _play_to_the_end(page, 3)
    bots.result(60)
    expect(page.locator("#over")).to_contain_text("wins")
    page.screenshot(path=str(SCREENSHOTS / "human-seat-over.png"), full_page=True)
    assert clicks >= 5 and not errors
    assert token not in page.url and all(token not in json.dumps(data) for data in fetched)

    assert len(fetched) > clicks
    _check_seat_views(server, created.match_id, 0, fetched)
    page.close()


def _check_seat_views(server: BackgroundServer, match_id: str, player: int, fetched: list[dict[str, Any]]) -> None:
    """Each JSON the page fetched is the seat's own view at some moment of the finished match, and holds no card
    beyond it."""
    match = convert.replay_from_proto(server.replay(match_id)).replay()
    assert match.is_over
    views = _seat_views(match, player)
    for data in fetched:
        assert data["player"] == player
        observation = data["observation"]
        assert json.dumps(observation, sort_keys=True) in views, "the seat's own view at some moment, no more"
        held = _cards({k: observation.get(k) for k in ("hand", "played", "trick", "table", "exchange")})
        assert set(_cards(data)) <= set(held)


def _play_to_the_end(page: Page, seed: int) -> int:
    """Click legal actions, chosen at random, until the page says the match is over; how many clicks."""
    chooser = random.Random(seed)
    clicks = 0
    over = page.locator("#over")
    while not over.is_visible():
        buttons = page.locator("button.legal:enabled")
        try:
            buttons.first.wait_for(timeout=3_000)
            buttons.nth(chooser.randrange(buttons.count())).click(timeout=2_000)
        except PlaywrightError:  # the bots' turn, the match just ended, or redrawn under the click: look again
            continue
        clicks += 1
    return clicks


STAR_AND_HOUSES = ["star", "house-0", "house-1", "house-2"]


def _accounts(server: BackgroundServer) -> dict[str, str]:
    """The bot account star and three house bots, rated once on the cardverse board; their tokens."""
    names = STAR_AND_HOUSES
    arena = server.server.servicer.arena

    async def accounts() -> dict[str, str]:
        tokens = {}
        for name in names:
            created = await server.stub.CreateAccount(pb.CreateAccountRequest(
                name=name, owner="web tests", house=name.startswith("house")), metadata=(("authorization",
                                                                                          f"Bearer {ADMIN}"),))
            tokens[name] = created.token
        server.server.registry.store.write(arena.ratings.update(("cardverse", 4), [names]))
        arena.ratings.reload(("cardverse", 4), names)
        return tokens
    return server.run(accounts())


def _connect(server: BackgroundServer, tokens: dict[str, str], names: list[str]) -> Future[None]:
    """Each named account's Session, an easy bot playing every match it is given (until cancelled)."""
    async def bots() -> None:
        clients = [SessionClient(lambda _seed: builtin_bot("easy"), tokens[n], server=server.address, threaded=False)
                   for n in names]
        await asyncio.gather(*(c.run() for c in clients))
    return server.spawn(bots())


def _connected(server: BackgroundServer, names: list[str]) -> None:
    """Wait until each named account's Session is open."""
    deadline = time.monotonic() + 30
    while not set(names) <= set(server.server.servicer.sessions.by_account):
        assert time.monotonic() < deadline, "the bots' Sessions did not open"
        time.sleep(0.05)


def _seat_fetches(page: Page) -> list[dict[str, Any]]:
    """Every seat view the page fetches from now on."""
    fetched: list[dict[str, Any]] = []

    def seen(response: Response) -> None:
        if "/api/seat" in response.url and response.request.method == "GET" and response.ok:
            fetched.append(response.json())
    page.on("response", seen)
    return fetched


def test_play_against_on_a_bots_leaderboard_row_seats_the_person_with_that_bot_and_house_bots(
        browser: BrowserContext, tmp_path: Path) -> None:
    server = BackgroundServer(tmp_path / "human.db", human_seats=True)
    tokens = _accounts(server)
    status, body = _request(server, "/api/play-against", None, {"account": "star", "preset": "cardverse",
                                                                 "players": 4})
    assert status == 404 and body["error"]["reason"] == "UNKNOWN_ACCOUNT"  # not connected: no match made
    assert not server.server.registry.live

    running = _connect(server, tokens, STAR_AND_HOUSES[:3])
    try:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        fetched = _seat_fetches(page)
        page.goto(server.base + "/")
        rows = page.locator("#leaderboard-cardverse-4 tbody tr")
        expect(rows).to_have_count(4)
        expect(page.locator("tr[data-account=house-0] button.play-against")).to_have_count(0)  # a house bot's row
        page.locator("tr[data-account=star]").get_by_role("button", name="Play against").click()
        page.wait_for_url(server.base + "/play")
        expect(page.locator("#hand .card").first).to_be_visible()
        token = page.evaluate("sessionStorage.getItem('president-seat-token')")  # the POST's answer, kept by the tab
        clicks = _play_to_the_end(page, 5)
        page.screenshot(path=str(SCREENSHOTS / "human-seat-play-against.png"), full_page=True)
        assert clicks >= 1 and not errors
        status, view = _request(server, "/api/seat", token)
        assert status == 200 and token not in page.url and view == fetched[-1]
        assert view["names"][view["player"]] == "you" and "star" in view["names"]
        assert sum(name.startswith("house-") for name in view["names"]) == 2
        _check_seat_views(server, view["match_id"], view["player"], fetched)
        page.close()
    finally:
        running.cancel()
        server.close()


def test_play_against_on_a_live_matchs_bot_seat_and_no_button_where_the_server_has_no_human_seats(
        browser: BrowserContext, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    server = BackgroundServer(db, human_seats=True)
    tokens = _accounts(server)
    running = _connect(server, tokens, STAR_AND_HOUSES)
    try:
        _connected(server, STAR_AND_HOUSES)
        status, watched = _request(server, "/api/play-against", None, {"account": "star", "preset": "cardverse",
                                                                        "players": 4})
        assert status == 200  # a live match of star and house bots (its person's seat left to its clock)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        fetched = _seat_fetches(page)
        page.goto(f"{server.base}/matches/{watched['match_id']}")
        offered = page.locator("#play-against tbody tr")
        expect(offered).to_have_count(1)  # star's seat; not the house bots', not the person's
        expect(offered).to_have_attribute("data-account", "star")
        page.screenshot(path=str(SCREENSHOTS / "live-play-against.png"), full_page=True)
        offered.get_by_role("button", name="Play against").click()
        page.wait_for_url(server.base + "/play")
        expect(page.locator("#hand .card").first).to_be_visible()
        token = page.evaluate("sessionStorage.getItem('president-seat-token')")
        clicks = _play_to_the_end(page, 11)
        assert clicks >= 1 and not errors
        status, view = _request(server, "/api/seat", token)
        assert status == 200 and view == fetched[-1] and view["match_id"] != watched["match_id"]
        assert view["names"][view["player"]] == "you" and "star" in view["names"]
        _check_seat_views(server, view["match_id"], view["player"], fetched)
        page.close()
    finally:
        running.cancel()
        server.close()

    server = BackgroundServer(db)  # the same matches and accounts, on a server without --human-seats
    running = _connect(server, tokens, ["star"])
    try:
        _connected(server, ["star"])
        summary = server.run(server.server.servicer.summary(watched["match_id"])).match
        star = [p.account for p in summary.players].index("star")
        assert server.server.servicer.opponents(summary) == [star]  # star could be offered here...
        status, listed = _request(server, f"/api/matches/{watched['match_id']}", None)
        assert status == 200 and "play_against" not in listed  # ...but this server lets nobody play against it
        page = browser.new_page()
        page.goto(f"{server.base}/matches/{watched['match_id']}")
        page.wait_for_function("document.title.includes('star')")
        expect(page.locator("button.play-against")).to_have_count(0)
        page.goto(server.base + "/")
        expect(page.locator("#leaderboard-cardverse-4 tbody tr")).to_have_count(4)
        expect(page.locator("button.play-against")).to_have_count(0)
        page.close()
    finally:
        running.cancel()
        server.close()


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
    to_act = view["observation"]["to_act"]
    waiting = created.seats[(to_act + 1) % len(created.seats)].token
    turn = _request(server, "/api/seat", created.seats[to_act].token)[1]["prompt"]["turn_id"]
    status, body = _request(server, "/api/seat/act", waiting, {"turn_id": int(turn), "action": {"pass_turn": {}}})
    assert status == 409 and body["error"]["reason"] == "NOT_YOUR_TURN"
    theirs = [card for card in _request(server, "/api/seat", waiting)[1]["observation"]["hand"]][:1]
    status, body = _request(server, "/api/seat/act", created.seats[to_act].token,
                            {"turn_id": int(turn), "action": {"play": {"cards": theirs}}})
    assert status == 409 and body["error"]["reason"] == "ILLEGAL_ACTION"  # a card it does not hold
    assert _request(server, "/api/seat", mine)[1]["observation"] == view["observation"]
    status, body = _request(server, "/api/play-against", None, {"account": "x", "preset": "cardverse", "players": 4})
    assert status == 403 and body["error"]["reason"] == "NOT_ADMIN"  # a server without --human-seats
