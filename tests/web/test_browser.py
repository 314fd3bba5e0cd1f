"""The web pages in a real browser: Debian's chromium driven by Playwright, against a real server.

The match list, a live match followed as it is played (checking, all along,
that the page holds no card a spectator may not see, in its DOM and in every
server-sent event it received), a replay stepped to a revolution and to a
trick won, a seat's view, phone width, and the replay file played offline.
Each test leaves screenshots in build/screenshots.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import BrowserContext, Page, ViewportSize, expect
from president_engine import Match, MatchRecord, visible_to
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from web_support import (
    ADMIN,
    CARD_TEXT,
    DESKTOP,
    SCREENSHOTS,
    BackgroundServer,
    browser_context,
)

NAMES = ["ann", "bob", "cy", "di"]
SEED = 0
"""With every bot playing its biggest play, this deal of cardverse has a revolution in each of its two deals."""
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("web") / "web.db")
    yield running
    running.close()


@pytest.fixture(scope="module")
def finished(server: BackgroundServer) -> str:
    """A finished match of two deals, each with a revolution; its id."""
    created = server.create(seed=SEED, deals=2, names=NAMES)
    server.play(created, pace=0).result(60)
    return created.match_id


class _Watched:
    """A page, and every error its scripts raised or logged."""

    def __init__(self, browser: BrowserContext) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)


def _shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _fits(page: Page) -> None:
    """Nothing wider than the window: the page reads at phone width without scrolling sideways."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _cards_shown(page: Page) -> set[str]:
    """Every card the page holds: each card drawn (data-card), and any card written out in its text."""
    drawn = page.eval_on_selector_all("[data-card]", "nodes => nodes.map(n => n.dataset.card)")
    return set(drawn) | set(CARD_TEXT.findall(page.inner_text("body")))


def _public_cards(sent: list[dict[str, Any]]) -> set[str]:
    """The cards a spectator may know from these messages: the snapshot's cards played and every play since."""
    cards: set[str] = set()
    for data in sent:
        message = json_format.ParseDict(data, pb.SpectateResponse())
        if message.HasField("snapshot"):
            cards |= {str(c) for c in convert.cards_from_proto(message.snapshot.observation.played)}
            for entry in message.snapshot.observation.trick:
                cards |= {str(c) for c in convert.cards_from_proto(entry.played.play.cards)}
        elif message.event.HasField("played"):
            cards |= {str(c) for c in convert.cards_from_proto(message.event.played.play.cards)}
    return cards


def _check_spectator_message(data: dict[str, Any], match: Match) -> None:
    """What a spectator may receive: the engine's event as `visible_to(event, None)` leaves it, or a public
    snapshot."""
    message = json_format.ParseDict(data, pb.SpectateResponse())
    if message.HasField("snapshot"):
        obs = message.snapshot.observation
        assert not obs.HasField("player") and not obs.hand and not obs.owed
        assert all(not given.HasField("cards") for given in obs.exchange)
    elif message.HasField("event"):
        shown = visible_to(match.events[message.event.seq - 1], None)
        assert shown is not None and message.event == convert.event_to_proto(shown, message.event.seq)


def test_the_match_list_shows_the_arena_leaderboard_each_bot_linking_to_its_matches(
        browser: BrowserContext, server: BackgroundServer) -> None:
    arena = server.server.servicer.arena
    board = ("cardverse", 4)
    orders = [["ace", "bea", "cy", "dot"], ["ace", "cy", "bea", "dot"], ["bea", "ace", "dot", "cy"]]

    async def rate() -> None:
        for name in orders[0]:
            await server.stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="web tests"),
                                            metadata=(("authorization", f"Bearer {ADMIN}"),))
        for order in orders:  # three rated matches of one deal each, written as the arena writes them
            server.server.registry.store.write(arena.ratings.update(board, [order]))
            arena.ratings.reload(board, order)

    server.run(rate())
    watched = _Watched(browser)
    page = watched.page
    page.goto(server.base + "/")
    table = page.locator("#leaderboard-cardverse-4")
    expect(table).to_contain_text("Arena: cardverse, 4 players")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.first).to_have_attribute("data-account", "ace")  # the best rating first
    expect(rows.first.get_by_role("link", name="ace")).to_have_attribute("href", "/?player=ace")
    # three deals: every rating still wide, marked, and the mark explained under the table
    expect(table.locator(".pill", has_text="provisional")).to_have_count(4)
    expect(table.locator(".provisional-note")).to_contain_text("Provisional: σ above 4 (few matches)")
    _shot(page, "leaderboard")
    assert watched.errors == []


def test_the_match_list_links_live_matches_and_replays(browser: BrowserContext, server: BackgroundServer,
                                                       finished: str) -> None:
    waiting = server.create(seed=4, deals=1, names=["eve", "fay", "gus", "hal"])
    watched = _Watched(browser)
    page = watched.page
    page.goto(server.base + "/")
    done = page.locator(f'#finished tr[data-match="{finished}"]')
    expect(done).to_contain_text("ann")
    expect(done.get_by_role("link", name="Replay")).to_have_attribute("href", f"/matches/{finished}/replay")
    live = page.locator(f'#live tr[data-match="{waiting.match_id}"]')
    expect(live.get_by_role("link", name="Watch live")).to_have_attribute("href", f"/matches/{waiting.match_id}")
    _shot(page, "list")
    page.get_by_role("link", name="eve").first.click()
    expect(page.locator("#finished")).to_contain_text("Finished matches: 0")
    expect(page.locator("#live tr[data-match]")).to_have_count(1)
    page.set_viewport_size(PHONE)
    page.goto(server.base + "/")
    expect(done).to_be_visible()
    _fits(page)
    _shot(page, "list-phone")
    assert watched.errors == []
    server.play(waiting, pace=0).result(60)


def test_a_live_match_advances_and_the_page_never_holds_a_card_a_spectator_may_not_see(
        browser: BrowserContext, server: BackgroundServer) -> None:
    created = server.create(seed=SEED, deals=2, names=NAMES)
    watched = _Watched(browser)
    page = watched.page
    devtools = browser.new_cdp_session(page)
    devtools.send("Network.enable")
    sent: list[dict[str, Any]] = []
    devtools.on("Network.eventSourceMessageReceived", lambda event: sent.append(json.loads(event["data"])))
    page.goto(f"{server.base}/matches/{created.match_id}")
    expect(page.locator("#live-status")).to_have_text("waiting")  # no bot connected yet: not live
    expect(page.locator(".seat")).to_have_count(4)
    left = page.locator("[data-cards-left]")
    before = sum(int(n) for n in left.evaluate_all("nodes => nodes.map(n => n.dataset.cardsLeft)"))
    playing = server.play(created, pace=0.08)  # slow enough for the page to be checked many times while live
    expect(page.locator("#live-status")).to_have_text("live")
    checks = 0
    shots: dict[str, tuple[int, ViewportSize]] = {"live": (40, DESKTOP), "live-phone": (100, PHONE)}
    while not page.locator("#replay-link").is_visible():
        shown = _cards_shown(page)
        public = _public_cards(sent)
        assert shown <= public, f"the page shows {sorted(shown - public)}, which no spectator may see yet"
        assert page.locator(".seat .hand").count() == 0  # no hand is ever drawn face up
        checks += 1
        for name, (after, size) in list(shots.items()):
            if len(sent) >= after:
                page.set_viewport_size(size)
                _fits(page)
                _shot(page, name)
                page.set_viewport_size(DESKTOP)
                del shots[name]
        page.wait_for_timeout(100)
    playing.result(30)
    now = sum(int(n) for n in left.evaluate_all("nodes => nodes.map(n => n.dataset.cardsLeft)"))
    assert before == 52 and now < before and checks > 10 and not shots
    expect(page.locator("#live-status")).to_have_text("over")
    expect(page.locator(".felt .banner").first).to_contain_text("wins the match")
    assert _cards_shown(page) <= _public_cards(sent)
    _shot(page, "live-over")
    record = convert.replay_from_proto(server.replay(created.match_id))
    match = record.replay()
    assert sent[0].keys() == {"snapshot"} and sent[-1].keys() == {"match_over"}
    seqs = [int(m["event"]["seq"]) for m in sent if "event" in m]
    assert seqs == [seq for seq, event in enumerate(match.events, 1)
                    if seq >= seqs[0] and visible_to(event, None) is not None]
    for data in sent:
        _check_spectator_message(data, match)
    assert watched.errors == []


def test_the_replay_steps_to_a_revolution_and_to_a_trick_won(browser: BrowserContext, server: BackgroundServer,
                                                              finished: str) -> None:
    watched = _Watched(browser)
    page = watched.page
    page.goto(f"{server.base}/matches/{finished}/replay")
    expect(page.locator("#position")).to_contain_text("step 1 of")
    for _ in range(300):
        if "Revolution" in page.inner_text("#now"):
            break
        page.click("#next")
    else:
        raise AssertionError("no revolution in the replay")
    expect(page.locator(".felt .banner.revolt")).to_have_text("Revolution! The rank order is reversed")
    expect(page.locator(".status .revolution")).to_be_visible()
    order = page.locator(".status .order .r").all_inner_texts()
    assert order[0] == "2" and order[-1] == "3"
    for card in page.locator(".seat .hand [data-card]").all():  # rank and suit symbol; the suit named for readers
        label, text = card.get_attribute("aria-label") or "", card.inner_text().replace("\n", "")
        suit = {"C": ("clubs", "\u2663"), "D": ("diamonds", "\u2666"), "H": ("hearts", "\u2665"),
                "S": ("spades", "\u2660")}[(card.get_attribute("data-card") or "?")[-1]]
        assert label.endswith(f" of {suit[0]}") and text.endswith(suit[1]), (label, text)
    for seat in page.locator(".seat").all():  # every hand face up, as many cards as the seat has left
        assert seat.locator(".hand [data-card]").count() == int(seat.locator("[data-cards-left]").get_attribute(
            "data-cards-left") or "-1")
    _shot(page, "replay-revolution")

    won = page.locator("#trick option", has_text="won by").first
    winner = (won.text_content() or "").rsplit("won by ", 1)[1]
    page.select_option("#trick", won.get_attribute("value"))
    expect(page.locator(".felt .banner[data-won-by]")).to_have_text(f"Trick won by {winner}")
    expect(page.locator(".felt .entry.top .who")).to_have_text(winner)
    expect(page.locator("#now")).to_contain_text(f"Trick to {winner}")
    _shot(page, "replay-trick-won")

    page.select_option("#deal", "2")
    expect(page.locator(".status")).to_contain_text("2 of 2")
    page.set_viewport_size(PHONE)
    _fits(page)
    _shot(page, "replay-phone")
    assert watched.errors == []


def test_the_replay_through_one_seats_eyes(browser: BrowserContext, server: BackgroundServer, finished: str) -> None:
    record = convert.replay_from_proto(server.replay(finished))
    watched = _Watched(browser)
    page = watched.page
    page.goto(f"{server.base}/matches/{finished}/replay")
    # one way back to the matches: the navbar's, not a second "All matches" beside it
    expect(page.locator("header.topbar a", has_text="Matches")).to_have_count(1)
    assert page.locator("header.topbar").get_by_text("All matches").count() == 0
    page.select_option("#deal", "2")  # the exchange: tributes are paid as the deal starts
    expect(page.locator(".felt .exchange")).to_contain_text("tribute")
    viewer = 1
    page.select_option("#viewer", str(viewer))
    seats = page.locator(".seat")
    for index in range(seats.count()):
        seat = seats.nth(index)
        own = seat.get_attribute("data-player") == str(viewer)
        assert seat.locator(".hand [data-card]").count() == (int(seat.locator("[data-cards-left]").get_attribute(
            "data-cards-left") or "-1") if own else 0)
        assert seat.locator(".backs").count() == (0 if own else 1)
    for line in page.locator(".felt .exchange > span").all()[1:]:
        text = line.inner_text()
        assert (line.locator("[data-card]").count() > 0) == (NAMES[viewer] in text.split(":")[0]), text
    hand = set(page.locator(f'.seat[data-player="{viewer}"] .hand [data-card]').evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)"))
    match = record.start()
    for _, action in record.deals[0].actions:
        match.apply(action)
    assert match.deal == 2 and hand == {str(c) for c in match.hand(viewer)}
    _shot(page, "replay-seat-view")
    page.select_option("#viewer", "")
    assert page.locator(".seat .backs").count() == 0
    assert watched.errors == []


def test_the_replay_shows_what_went_wrong_for_a_seat(browser: BrowserContext, server: BackgroundServer) -> None:
    created = server.create(seed=2, deals=1, names=["gone", *NAMES[1:]], clock=pb.ClockSettings(
        move_time_limit_ms=400, time_bank_ms=0, strikes_before_takeover=1))  # ample for the bots that are there
    server.play(created, pace=0, absent=frozenset({0})).result(60)
    watched = _Watched(browser)
    page = watched.page
    page.goto(f"{server.base}/matches/{created.match_id}/replay")
    gone = page.locator('.seat[data-player="0"] .facts')
    expect(gone).to_contain_text("played by the server")
    expect(gone.locator("[data-faults]")).to_have_text("1 clock strike")
    expect(page.locator('.seat[data-player="1"] [data-faults]')).to_have_count(0)
    _shot(page, "replay-faults")
    assert watched.errors == []


def test_the_replay_file_plays_the_match_to_the_end_with_no_server(browser: BrowserContext,
                                                                   server: BackgroundServer, finished: str,
                                                                   tmp_path: Path) -> None:
    html, record = tmp_path / "replay.html", tmp_path / "record.json"
    done = subprocess.run([sys.executable, "-m", "president_harness", "replay", finished, "--server", server.address,
                           "--html", str(html), "--json", str(record)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert MatchRecord.loads(record.read_text()).replay().is_over
    browser.set_offline(True)
    try:
        watched = _Watched(browser)
        page = watched.page
        page.goto(html.as_uri())
        expect(page.locator("#position")).to_contain_text("step 1 of")
        total = int(page.inner_text("#position").rsplit(" ", 1)[1])
        page.select_option("#speed", label="fastest")
        started = time.monotonic()
        page.click("#play")
        expect(page.locator("#position")).to_have_text(f"step {total} of {total}", timeout=total * 200 + 10_000)
        assert time.monotonic() - started > total * 0.02  # it played, step by step
        expect(page.locator(".felt .banner").first).to_contain_text("wins the match")
        expect(page.locator("#play")).to_have_text(re.compile("Play"))
        _shot(page, "replay-file-end")
        assert watched.errors == []
    finally:
        browser.set_offline(False)


def test_the_match_list_pages_through_the_finished_matches_and_says_how_many(
        browser: BrowserContext, server: BackgroundServer, finished: str) -> None:
    for seed in (21, 22):
        server.play(server.create(seed=seed, deals=1, names=NAMES), pace=0).result(60)

    async def total() -> int:
        listed: pb.ListMatchesResponse = await server.stub.ListMatches(pb.ListMatchesRequest(page_size=1))
        return listed.finished_total

    count = server.run(total())
    assert count >= 3
    watched = _Watched(browser)
    page = watched.page
    page.goto(server.base + "/?page_size=2")
    heading = page.locator("#finished h2")
    expect(heading).to_have_text(f"Finished matches: {count}, showing 1-2")
    expect(page.locator("#finished tr[data-match]")).to_have_count(2)
    expect(page.locator('#finished a[rel="prev"]')).to_have_count(0)
    page.locator('#finished a[rel="next"]').click()
    expect(heading).to_have_text(f"Finished matches: {count}, showing {'3' if count == 3 else '3-4'}")
    _shot(page, "list-page-2")
    page.locator('#finished a[rel="prev"]').click()
    expect(heading).to_have_text(f"Finished matches: {count}, showing 1-2")
    assert watched.errors == []


def test_a_live_page_says_which_seat_it_waits_for_and_shows_the_name_its_bot_gives(
        browser: BrowserContext, server: BackgroundServer) -> None:
    from president_sdk import EasyBot, run

    class Slow(EasyBot):
        """Slow enough for the page to look at the seats again while the match is played."""

        def play(self, obs: Any) -> Any:
            time.sleep(0.3)
            return super().play(obs)

    created = server.create(seed=5, deals=1, names=["", "bob", "cy", "di"])
    others = server.play(created, pace=0.02, absent=frozenset({0}))
    watched = _Watched(browser)
    page = watched.page
    page.goto(f"{server.base}/matches/{created.match_id}")
    hint = page.locator("#waiting-for")
    expect(hint).to_have_text("Waiting for player 0 (seat 0) to connect")
    expect(page.locator("#live-status")).to_have_text("waiting")  # not `live` before it starts
    _shot(page, "live-waiting")
    with concurrent.futures.ThreadPoolExecutor(1) as seat:
        playing = seat.submit(run, Slow(), server.address, created.seats[0].token, name="zed")
        expect(hint).to_be_hidden()
        expect(page.locator('.seat[data-player="0"] .name')).to_have_text("zed")
        expect(page.locator("#live-status")).to_have_text("live")  # while the match is played, not at its end
        playing.result(60)
    others.result(60)
    expect(page.locator("#live-status")).to_have_text("over")
    # opened after the end, its log still says how the match ended
    page.goto(f"{server.base}/matches/{created.match_id}")
    expect(page.locator("#live-status")).to_have_text("over")
    expect(page.locator("ul.log li")).to_contain_text(["Match over: "])
    assert watched.errors == []


def test_an_unknown_match_shows_its_error_and_no_badge(browser: BrowserContext, server: BackgroundServer) -> None:
    watched = _Watched(browser)
    page = watched.page
    page.goto(f"{server.base}/matches/0123456789abcdef")
    expect(page.locator(".notice.error")).to_have_text("This match cannot be shown: no match '0123456789abcdef'")
    expect(page.locator("#live-status")).to_have_count(0)
    assert [e for e in watched.errors if "404" not in e] == []


def test_a_match_waiting_for_open_seats_is_listed_as_waiting_not_live(browser: BrowserContext,
                                                                      server: BackgroundServer) -> None:
    async def create() -> pb.CreateMatchResponse:
        response: pb.CreateMatchResponse = await server.stub.CreateMatch(pb.CreateMatchRequest(
            preset="cardverse", seed=5, seat_names=["open-0", "open-1", "open-2", "open-3"], open_seats=True,
            clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=(("authorization", f"Bearer {ADMIN}"),))
        return response
    waiting = server.run(create())
    watched = _Watched(browser)
    page = watched.page
    page.goto(server.base + "/")
    row = page.locator(f'#waiting tr[data-match="{waiting.match_id}"]')
    expect(row).to_contain_text("waiting for seats")
    expect(page.locator(f'#live tr[data-match="{waiting.match_id}"]')).to_have_count(0)
    expect(page.locator("#waiting h2")).to_contain_text("Waiting for players")
    assert watched.errors == []


def test_a_local_matchs_replay_file_plays_to_the_end(browser: BrowserContext, tmp_path: Path) -> None:
    """president-bot --local --replay DIR alone writes the HTML replays, of one match and of --matches: each page opens
    offline and plays to the end with the local players' names."""
    bin_dir = Path(sys.executable).parent
    one, evaluated = tmp_path / "one", tmp_path / "evaluated"
    runs = [[str(bin_dir / "president-bot"), "builtin:easy", "--local", "-q", "--opponents", "random,normal,hard",
             "--deals", "2", "--replay", str(one)],
            [str(bin_dir / "president-bot"), "builtin:easy", "--local", "--matches", "1", "--opponents", "normal",
             "--workers", "1", "--deals", "1", "--replay", str(evaluated)]]
    for command in runs:
        played = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        assert played.returncode == 0, played.stderr
        assert "open " in played.stderr and ".html in a browser" in played.stderr
    index = json.loads((evaluated / "matches.json").read_text())
    assert len(index["matches"]) == 4 and all((evaluated / m["html"]).is_file() for m in index["matches"])
    pages = [(one / "match.html", "normal2"), (evaluated / index["matches"][1]["html"], "normal1")]
    browser.set_offline(True)
    try:
        for path, name in pages:
            watched = _Watched(browser)
            page = watched.page
            page.goto(path.as_uri())
            expect(page.locator("#position")).to_contain_text("step 1 of")
            total = int(page.inner_text("#position").rsplit(" ", 1)[1])
            expect(page.locator("body")).to_contain_text(name)
            page.select_option("#speed", label="fastest")
            page.click("#play")
            expect(page.locator("#position")).to_have_text(f"step {total} of {total}", timeout=total * 200 + 10_000)
            expect(page.locator(".felt .banner").first).to_contain_text("wins the match")
            assert watched.errors == []
            page.close()
    finally:
        browser.set_offline(False)
