"""The tournament pages in a real browser: Debian's chromium driven by Playwright, against a real server.

A small Swiss event of built-in bots (five entrants at tables of four, so each
round has a bye) is followed on its page from before it starts to its end
without a reload: the standings list every entrant, house bots marked, and
move as the matches end; each round shows its tables, their match links and
its bye.  The list page links it, an unknown id says there is no such
tournament, and no page holds a card.  Screenshots go to build/screenshots.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from president_harness.builtin_sessions import BuiltinSessions
from president_protocol.v1 import president_pb2 as pb
from president_sdk.session_client import Appetite
from president_service.league.arena_ratings import PROVISIONAL_MARK, provisional
from web_support import (
    ADMIN,
    CARD_TEXT,
    DESKTOP,
    SCREENSHOTS,
    BackgroundServer,
    browser_context,
)

ENTRANTS = {"tp-ann": "random", "tp-bob": "easy", "tp-cy": "random", "tp-di": "easy", "tp-eve": "random"}
"""Entrant -> built-in level; every one a house account but the last, which is an ordinary account."""
HOUSE = {"tp-ann", "tp-bob", "tp-cy", "tp-di"}
PHONE = {"width": 390, "height": 844}
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN}"),)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("tournament-web") / "web.db")
    yield running
    running.close()


def _accounts(server: BackgroundServer) -> dict[str, str]:
    """The entrants' accounts; each one's token."""
    async def create() -> dict[str, str]:
        tokens = {}
        for name in ENTRANTS:
            made: pb.CreateAccountResponse = await server.stub.CreateAccount(
                pb.CreateAccountRequest(name=name, owner="web tests", house=name in HOUSE), metadata=ADMIN_METADATA)
            tokens[name] = made.token
        return tokens
    return server.run(create())


def _connected(server: BackgroundServer, names: set[str], timeout: float = 15) -> None:
    """Wait until every one of `names` has a Session (so that none is marked absent at its first table)."""
    async def present() -> bool:
        return names <= set(server.server.servicer.sessions.by_account)
    deadline = time.monotonic() + timeout
    while not server.run(present()):
        assert time.monotonic() < deadline, "the built-in bots did not connect"
        time.sleep(0.05)


def _create(server: BackgroundServer) -> str:
    async def create() -> str:
        made: pb.CreateTournamentResponse = await server.stub.CreateTournament(pb.CreateTournamentRequest(
            spec=pb.TournamentSpec(name="Web cup", preset="cardverse", rules=pb.Rules(players=4, deals=1),
                                   clock=pb.ClockSettings(move_time_limit_ms=500, time_bank_ms=0,
                                                          strikes_before_takeover=1),
                                   format=pb.TOURNAMENT_FORMAT_SWISS, rounds=2, entrants=list(ENTRANTS), seed=11,
                                   unchecked=["tp-eve"])),
            metadata=ADMIN_METADATA)
        return made.tournament.tournament_id
    return server.run(create())


def _control(server: BackgroundServer, tournament_id: str, *controls: pb.TournamentControl.ValueType) -> None:
    """Each control in turn (an answer before the next: ControlTournament's own changes are made by then)."""
    async def control() -> None:
        for each in controls:
            await server.stub.ControlTournament(pb.ControlTournamentRequest(tournament_id=tournament_id,
                                                                            control=each), metadata=ADMIN_METADATA)
    server.run(control())


def _tournament(server: BackgroundServer, tournament_id: str) -> pb.Tournament:
    async def get() -> pb.Tournament:
        found: pb.GetTournamentResponse = await server.stub.GetTournament(
            pb.GetTournamentRequest(tournament_id=tournament_id))
        return found.tournament
    return server.run(get())


def _no_card(page: Page) -> None:
    """The page holds no card: none drawn, none written out in its text or anywhere in its body."""
    assert page.locator("[data-card], .card").count() == 0
    text = page.inner_text("body")
    markup = page.evaluate("document.body.innerHTML")
    assert not CARD_TEXT.findall(text) and not CARD_TEXT.findall(markup), CARD_TEXT.findall(text + markup)
    assert "null" not in text and "undefined" not in text and "NaN" not in text  # nothing drawn from a missing field


def _shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_a_swiss_tournament_is_followed_live_on_its_page(browser: BrowserContext, server: BackgroundServer) -> None:
    started = time.monotonic()
    tokens = _accounts(server)
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    with BuiltinSessions(server.address, {tokens[name]: level for name, level in ENTRANTS.items()}) as bots:
        _connected(server, set(ENTRANTS))
        tournament_id = _create(server)

        # before it starts: every entrant listed, nothing played, the page asking again
        page.goto(f"{server.base}/tournaments/{tournament_id}")
        expect(page.locator("#tournament-name")).to_have_text("Web cup")
        expect(page.locator("#tournament-state")).to_have_text("not started")
        rows = page.locator("#standings tbody tr")
        expect(rows).to_have_count(len(ENTRANTS))
        assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.player)")) == set(ENTRANTS)
        expect(page.locator("#tournament-format")).to_have_text("Swiss")
        expect(page.locator("#tournament-size")).to_have_text("4 players")
        expect(page.locator("#tournament-preset")).to_have_text("cardverse")
        expect(page.locator("#tournament-round")).to_have_text("0 of 2")
        page.evaluate("window.notReloaded = true")

        # started, then paused at once: the first round's match (started with the tournament) is played to its
        # end, and the second round waits
        _control(server, tournament_id, pb.TOURNAMENT_CONTROL_START, pb.TOURNAMENT_CONTROL_PAUSE)
        expect(page.locator("#tournament-state")).to_have_text("paused")
        played = page.locator('#standings tbody tr:not([data-tables="0"])')
        expect(played).to_have_count(4, timeout=30_000)  # its table is over: the standings moved
        expect(page.locator("#tournament-round")).to_have_text("1 of 2")
        expect(page.locator('details.round[data-round="1"] tr[data-finished="true"]')).to_have_count(1)
        _shot(page, "tournament-paused")
        _control(server, tournament_id, pb.TOURNAMENT_CONTROL_RESUME)
        expect(page.locator("#tournament-state")).to_have_text("finished", timeout=40_000)
        assert bots.error is None
    assert page.evaluate("window.notReloaded") is True  # it followed the tournament by itself

    final = _tournament(server, tournament_id)
    assert final.state == pb.TOURNAMENT_STATE_FINISHED and len(final.rounds) == 2
    expect(page.locator("#tournament-round")).to_have_text("2 of 2")
    expect(page.locator("#standings h2")).to_have_text("Final standings")
    by_player = {s.player: s for s in final.standings}
    for name in ENTRANTS:  # each row as the server ranks it, the house bots marked
        row = page.locator(f'#standings tbody tr[data-player="{name}"]')
        cells = row.locator("td").all_inner_texts()
        standing = by_player[name]
        assert cells[0] == str(standing.rank) and cells[3:6] == [str(standing.tables), str(standing.deals),
                                                                 str(standing.byes)], cells
        assert row.locator("[data-house]").count() == (1 if name in HOUSE else 0)
        if standing.tables:
            assert cells[6] == (f"{standing.mean_place:.2f} [{standing.mean_place_low:.2f},"
                                f" {standing.mean_place_high:.2f}]")
            mark = PROVISIONAL_MARK if provisional(standing.sigma) else ""  # a wide rating says so
            assert cells[7] == f"{standing.ordinal:.2f}{mark}"
        assert cells[10:14] == [str(standing.forfeits), str(standing.faults), str(standing.server_moves),
                                str(standing.absences)], cells
    assert sum(s.byes for s in final.standings) == 2
    expect(page.locator("#fault-rule")).to_contain_text("A forfeit scores last place in that deal")
    assert any(provisional(s.sigma) for s in final.standings if s.tables)  # two rounds of one deal: all still wide
    expect(page.locator("#provisional")).to_contain_text(f"{PROVISIONAL_MARK} provisional: σ above 4 (few deals)")

    # the rounds, newest first and open; a bye in each; every table over, linking its replay
    rounds = page.locator("details.round")
    expect(rounds).to_have_count(2)
    assert rounds.evaluate_all("nodes => nodes.map(n => [n.dataset.round, n.open])") == [["2", True], ["1", False]]
    for number, round_ in enumerate(final.rounds, 1):
        shown = page.locator(f'details.round[data-round="{number}"]')
        assert shown.locator("[data-bye]").evaluate_all("nodes => nodes.map(n => n.dataset.bye)") == list(round_.byes)
        assert [t.match_ids[0] for t in round_.tables] == shown.locator("a[data-match]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.match)")
    assert final.rounds[0].byes != final.rounds[1].byes  # byes rotate
    expect(page.locator('details.round[data-round="2"] [data-byes]')).to_be_visible()
    page.locator('details.round[data-round="1"] summary').click()
    expect(page.locator('details.round[data-round="1"] [data-byes]')).to_be_visible()
    _no_card(page)
    _shot(page, "tournament")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    _shot(page, "tournament-phone")
    page.set_viewport_size(DESKTOP)

    link = page.locator('details.round[data-round="2"] a[data-match]').first
    match_id = link.get_attribute("data-match")
    expect(link).to_have_attribute("href", f"/matches/{match_id}/replay")
    link.click()
    expect(page).to_have_url(f"{server.base}/matches/{match_id}/replay")
    expect(page.locator("#position")).to_contain_text("step 1 of")

    # the list links it, and the top bar of every page links the list
    page.goto(server.base + "/")
    page.locator(".topbar").get_by_role("link", name="Tournaments").click()
    expect(page).to_have_url(f"{server.base}/tournaments")
    listed = page.locator(f'#tournaments tr[data-tournament="{tournament_id}"]')
    expect(listed).to_contain_text("finished")
    expect(listed).to_contain_text("2 of 2")
    _no_card(page)
    _shot(page, "tournament-list")
    listed.get_by_role("link", name="Web cup").click()
    expect(page).to_have_url(f"{server.base}/tournaments/{tournament_id}")
    expect(page.locator("#standings tbody tr")).to_have_count(len(ENTRANTS))
    _no_card(page)
    assert errors == []
    assert time.monotonic() - started < 60


def test_an_unknown_tournament_says_there_is_none(browser: BrowserContext, server: BackgroundServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.base}/api/tournaments/nope", timeout=10)
    assert refused.value.code == 404
    assert json.loads(refused.value.read())["error"]["reason"] == "UNKNOWN_TOURNAMENT"
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.base}/tournaments/nope")
    expect(page.locator("#no-tournament")).to_have_text("This tournament cannot be shown: no tournament 'nope'")
    expect(page.locator("#standings")).to_have_count(0)
    with urllib.request.urlopen(f"{server.base}/api/tournaments", timeout=10) as answer:
        assert "tournaments" in json.loads(answer.read())
    assert errors == []


WAITING = {"tw-ann": "random", "tw-bob": "easy", "tw-cy": "random"}
"""House entrants of the event whose table waits: tw-ann is busy with another match first."""


def test_a_waiting_table_says_for_whom_and_an_absent_entrant_forfeits(browser: BrowserContext,
                                                                        server: BackgroundServer) -> None:
    """tw-ann plays one match at a time and is in one (its three other seats never connected, played by the clock)
    when the event starts: round 1's table says it waits for her room; tw-zed, entered unchecked, never
    connects: absent, every deal it played forfeited, its counts on the page."""
    async def setup() -> dict[str, str]:
        tokens = {}
        for name in (*WAITING, "tw-x1", "tw-x2", "tw-x3", "tw-zed"):
            made: pb.CreateAccountResponse = await server.stub.CreateAccount(pb.CreateAccountRequest(
                name=name, owner="web tests", house=name != "tw-zed"), metadata=ADMIN_METADATA)
            tokens[name] = made.token
        return tokens
    tokens = server.run(setup())
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    one = Appetite(max_matches=1)
    with BuiltinSessions(server.address, {tokens[name]: level for name, level in WAITING.items()}, appetite=one):
        _connected(server, set(WAITING))

        async def busy_then_event() -> str:
            await server.stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=1), seat_accounts=["tw-ann", "tw-x1", "tw-x2", "tw-x3"],
                clock=pb.ClockSettings(move_time_limit_ms=1_500, time_bank_ms=0, strikes_before_takeover=2)),
                metadata=ADMIN_METADATA)
            made: pb.CreateTournamentResponse = await server.stub.CreateTournament(pb.CreateTournamentRequest(
                spec=pb.TournamentSpec(name="Waiting cup", preset="cardverse", rules=pb.Rules(players=4, deals=2),
                                       clock=pb.ClockSettings(move_time_limit_ms=300, time_bank_ms=0,
                                                              strikes_before_takeover=1),
                                       format=pb.TOURNAMENT_FORMAT_SWISS, rounds=1,
                                       entrants=[*WAITING, "tw-zed"], unchecked=["tw-zed"], seed=5)),
                metadata=ADMIN_METADATA)
            await server.stub.ControlTournament(pb.ControlTournamentRequest(
                tournament_id=made.tournament.tournament_id, control=pb.TOURNAMENT_CONTROL_START),
                metadata=ADMIN_METADATA)
            return made.tournament.tournament_id
        tournament_id = server.run(busy_then_event())
        page.goto(f"{server.base}/tournaments/{tournament_id}")
        waiting = page.locator('details.round[data-round="1"] [data-waiting]')
        expect(waiting).to_contain_text("waiting for room: tw-ann plays 1 of its 1 matches at once")
        _shot(page, "tournament-waiting")
        expect(page.locator("#tournament-state")).to_have_text("finished", timeout=60_000)
        expect(waiting).to_have_count(0)
    final = {s.player: s for s in _tournament(server, tournament_id).standings}
    zed = final["tw-zed"]
    assert zed.absences == 1 and zed.forfeits == zed.deals == 2 and zed.server_moves > 0 and zed.rank == 4
    cells = page.locator('#standings tbody tr[data-player="tw-zed"] td').all_inner_texts()
    assert cells[10:14] == ["2", "0", str(zed.server_moves), "1"], cells
    _no_card(page)
    assert errors == []
