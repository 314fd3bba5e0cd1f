"""The bot versions page in a real browser: Debian's chromium driven by Playwright, against a real server.

An author's two versions, one built (its build log holding markup) and one
failed, are listed once the account's token is typed: their states, the
current one marked, the failure's reason, the check match and the arena
rating; the built one's log is shown as text, never as markup.  A wrong token
is refused in one line; the token stays in the tab's sessionStorage only, is
never in an address, and Forget clears it.  The API refuses a missing token
and another account's version as the gRPC calls do.  Screenshots go to
build/screenshots.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Request, ViewportSize, expect
from president_engine import Action, Observation
from president_harness.builtin_sessions import BuiltinSessions
from president_protocol.v1 import president_pb2 as pb
from president_sdk import Bot
from president_sdk.session_client import Appetite, SessionClient
from president_service.league.arena import ArenaSettings
from web_support import (
    ADMIN,
    DESKTOP,
    SCREENSHOTS,
    BackgroundServer,
    browser_context,
)

PHONE: ViewportSize = {"width": 390, "height": 844}
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN}"),)
MANIFEST = pb.BotManifest(name="web-bot", runtime=pb.RUNTIME_PYTHON, run="president-bot bot.py --arena")
LOG = "building web-bot\n<b>not markup</b>\n<img src=x onerror=\"window.pwned=1\">\nbuilt\n"
"""What the READY version's build printed: markup that must stay text on the page."""
REASON = "pip install failed: no network in the sandbox"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with browser_context(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("version-web") / "web.db")
    yield running
    running.close()


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _submission(archive: bytes) -> AsyncIterator[pb.SubmitBotRequest]:
    yield pb.SubmitBotRequest(manifest=MANIFEST)
    yield pb.SubmitBotRequest(chunk=archive)  # the server stores it as it is: it never unpacks one


def _authors(server: BackgroundServer) -> tuple[dict[str, str], pb.BotVersion, pb.BotVersion]:
    """Two accounts (name -> token); the first's versions: one built (READY), then one whose build FAILED."""
    async def make() -> tuple[dict[str, str], pb.BotVersion, pb.BotVersion]:
        tokens = {}
        for name in ("vp-ann", "vp-bob"):
            made: pb.CreateAccountResponse = await server.stub.CreateAccount(
                pb.CreateAccountRequest(name=name, owner="web tests"), metadata=ADMIN_METADATA)
            tokens[name] = made.token
        ready = await _built(server, tokens["vp-ann"], b"the first archive", ready=True)
        failed = await _built(server, tokens["vp-ann"], b"the second archive", ready=False)
        return tokens, ready, failed
    return server.run(make())


async def _built(server: BackgroundServer, token: str, archive: bytes, *, ready: bool) -> pb.BotVersion:
    """A new version of the token's account, its build reported READY (with LOG) or FAILED (with REASON)."""
    await server.stub.SubmitBot(_submission(archive), metadata=_auth(token))
    leased: pb.LeaseBuildResponse = await server.stub.LeaseBuild(
        pb.LeaseBuildRequest(builder="web tests"), metadata=ADMIN_METADATA)
    if ready:  # as a builder does, its built folder first
        await server.stub.UploadBuild(iter([pb.UploadBuildRequest(lease=pb.BuildLease(
            version_id=leased.version.version_id, lease_id=leased.lease_id)), pb.UploadBuildRequest(chunk=archive)]),
            metadata=ADMIN_METADATA)
    reported: pb.ReportBuildResponse = await server.stub.ReportBuild(pb.ReportBuildRequest(
        version_id=leased.version.version_id, lease_id=leased.lease_id, ready=ready,
        reason="" if ready else REASON, log=LOG if ready else "collecting...\nerror: no network\n"),
        metadata=ADMIN_METADATA)
    return reported.version


def _rate(server: BackgroundServer, player: str, other: str) -> None:
    """Two rated matches of the arena's cardverse queue for `player`, written as the arena writes them."""
    arena = server.server.servicer.arena
    board = ("cardverse", 4)

    async def rate() -> None:
        for order in ([player, other], [other, player]):
            server.server.registry.store.write(arena.ratings.update(board, [order]))
            arena.ratings.reload(board, order)
    server.run(rate())


def _api(server: BackgroundServer, path: str, token: str | None = None,
         method: str = "GET") -> tuple[int, Any, str]:
    """(status, JSON body, Cache-Control) of GET (or `method`) `path`, with the token as the Authorization header
    if given."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    request = urllib.request.Request(f"{server.base}{path}", headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read()), answer.headers.get("Cache-Control", "")
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read()), refused.headers.get("Cache-Control", "")


def _shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _type_token(page: Page, token: str) -> None:
    page.locator("#token").fill(token)
    page.locator("#show").click()


def test_an_author_lists_their_versions_and_reads_a_build_log_as_text(browser: BrowserContext,
                                                                      server: BackgroundServer) -> None:
    started = time.monotonic()
    tokens, ready, failed = _authors(server)
    ann, bob = tokens["vp-ann"], tokens["vp-bob"]
    assert ready.state == pb.VERSION_STATE_READY and failed.state == pb.VERSION_STATE_FAILED
    _rate(server, ready.player, "vp-bob")
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error"
            and "status of 401" not in message.text else None)  # chromium logs each refused fetch: expected here
    sent: list[Request] = []
    page.on("request", lambda request: sent.append(request))

    # the top bar of every page links it
    page.goto(server.base + "/")
    page.locator(".topbar").get_by_role("link", name="Versions").click()
    expect(page).to_have_url(f"{server.base}/versions")
    expect(page.locator("#token")).to_have_attribute("type", "password")

    # a wrong token: one line saying why, nothing listed, nothing kept
    _type_token(page, "not-a-token")
    expect(page.locator("#refusal")).to_be_visible()
    expect(page.locator("#refusal")).to_contain_text("BAD_TOKEN: this token is not an account's")
    assert page.locator("#refusal").inner_text().count("\n") == 0
    expect(page.locator("#versions tbody tr")).to_have_count(0)
    assert page.evaluate("sessionStorage.length") == 0
    _shot(page, "versions-refused")

    # the account's token: both versions, newest first, each with its state
    _type_token(page, ann)
    rows = page.locator("#versions tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#refusal")).to_be_hidden()
    assert rows.evaluate_all("rows => rows.map(r => r.dataset.version)") == [failed.version_id, ready.version_id]
    good = page.locator(f'#versions tr[data-version="{ready.version_id}"]')
    bad = page.locator(f'#versions tr[data-version="{failed.version_id}"]')
    expect(good.locator("[data-state]")).to_have_text("READY")
    expect(good.locator("[data-current]")).to_have_text("current")
    # READY, and no check match will come: this server runs without the arena, and the page says so
    expect(good.locator(".check")).to_have_text("none: no arena on this server")
    expect(page.locator("#no-arena")).to_contain_text("This server runs without the arena")
    expect(good.locator(".faults")).to_have_text("\u2013")  # no match played
    text = page.inner_text("#versions")
    assert "null" not in text and "undefined" not in text and "NaN" not in text  # nothing from a missing field
    expect(good).to_contain_text(ready.sha256[:12])
    expect(good).to_contain_text(f"vp-ann@{ready.version_id}")
    rating = good.locator('.rating[data-preset="cardverse"][data-players="4"]')
    expect(rating).to_contain_text("cardverse, 4 players")
    expect(rating).to_contain_text("2 matches")
    expect(rating).to_contain_text("#")
    expect(bad.locator("[data-state]")).to_have_text("FAILED")
    expect(bad.locator("[data-current]")).to_have_count(0)
    expect(bad.locator(".reason")).to_have_text(REASON)
    expect(bad.locator(".ratings")).to_have_text("not rated")
    expect(page.locator(".name").first).to_have_text("web-bot")
    assert page.evaluate("sessionStorage.getItem('president.accountToken')") == ann
    assert page.evaluate("localStorage.length") == 0
    _shot(page, "versions")

    # the built version's log: the author's markup as text, no element made of it
    good.locator("button.log-button").click()
    log = page.locator("#log-text")
    expect(log).to_contain_text("<b>not markup</b>")
    assert log.text_content() == LOG
    assert page.locator("#build-log b, #build-log img").count() == 0
    assert page.evaluate("window.pwned") is None
    expect(page.locator("#log-state [data-state]")).to_have_text("READY")
    _shot(page, "versions-build-log")
    bad.locator("button.log-button").click()
    expect(page.locator("#log-state")).to_contain_text(REASON)
    expect(log).to_contain_text("error: no network")

    # the token never lands in an address; a reload finds it in the tab, another tab does not
    assert ann not in page.url and ann not in page.evaluate("history.state || ''")
    page.reload()
    expect(page.locator("#versions tbody tr")).to_have_count(2)
    other = browser.new_page()
    other.goto(f"{server.base}/versions")
    expect(other.locator("#token")).to_have_value("")
    expect(other.locator("#versions tbody tr")).to_have_count(0)
    other.close()
    page.set_viewport_size(PHONE)
    _shot(page, "versions-phone")
    page.set_viewport_size(DESKTOP)

    # Forget: the token is gone from the tab and the page
    page.locator("#forget").click()
    expect(page.locator("#versions tbody tr")).to_have_count(0)
    expect(page.locator("#token")).to_have_value("")
    assert page.evaluate("sessionStorage.length") == 0
    page.reload()
    expect(page.locator("#token")).to_have_value("")
    expect(page.locator("#versions tbody tr")).to_have_count(0)
    asked = [r for r in sent if "/api/versions" in r.url]
    assert asked and all(ann not in r.url for r in sent)  # in no address the page asked for
    assert {r.headers.get("authorization") for r in asked} == {"Bearer not-a-token", f"Bearer {ann}"}
    assert errors == []

    # the API: the same refusals as the RPCs, only the header's token, answers no cache keeps
    status, body, _ = _api(server, "/api/versions")
    assert (status, body["error"]["reason"]) == (401, "MISSING_TOKEN")
    status, body, _ = _api(server, f"/api/versions?token={ann}")  # a token in the query is never read
    assert (status, body["error"]["reason"]) == (401, "MISSING_TOKEN")
    status, body, _ = _api(server, "/api/versions", "nope")
    assert (status, body["error"]["reason"]) == (401, "BAD_TOKEN")
    status, body, _ = _api(server, f"/api/versions/{ready.version_id}/log", bob)
    assert (status, body["error"]["reason"]) == (404, "UNKNOWN_VERSION")
    status, body, cache = _api(server, f"/api/versions/{ready.version_id}/log", ADMIN)
    assert status == 200 and body["log"] == LOG and body["version"]["version_id"] == ready.version_id
    assert cache == "no-store"
    status, body, cache = _api(server, "/api/versions", bob)
    assert (status, body, cache) == (200, {"versions": [], "without_arena": True, "every_account": False}, "no-store")
    assert time.monotonic() - started < 40


def test_an_author_makes_an_older_version_current(browser: BrowserContext, server: BackgroundServer) -> None:
    async def make() -> tuple[str, str, pb.BotVersion, pb.BotVersion, pb.BotVersion]:
        tokens = []
        for name in ("vp-cat", "vp-dan"):
            made: pb.CreateAccountResponse = await server.stub.CreateAccount(
                pb.CreateAccountRequest(name=name, owner="web tests"), metadata=ADMIN_METADATA)
            tokens.append(made.token)
        older = await _built(server, tokens[0], b"cat's first", ready=True)
        failed = await _built(server, tokens[0], b"cat's broken", ready=False)
        newer = await _built(server, tokens[0], b"cat's second", ready=True)
        return tokens[0], tokens[1], older, failed, newer
    cat, dan, older, failed, newer = server.run(make())
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.base}/versions")
    _type_token(page, cat)
    old_row = page.locator(f'#versions tr[data-version="{older.version_id}"]')
    new_row = page.locator(f'#versions tr[data-version="{newer.version_id}"]')
    expect(new_row.locator("[data-current]")).to_have_count(1)
    expect(new_row.locator("button.current-button")).to_have_count(0)  # the current one has no button
    expect(page.locator(f'#versions tr[data-version="{failed.version_id}"] button.current-button')).to_have_count(0)
    old_row.locator("button.current-button").click()
    expect(page.locator("#chosen")).to_have_text(f"{older.version_id} is current.")
    expect(old_row.locator("[data-current]")).to_have_count(1)
    expect(new_row.locator("[data-current]")).to_have_count(0)
    expect(new_row.locator("button.current-button")).to_have_count(1)
    _shot(page, "versions-made-current")
    page.reload()  # the server keeps the choice
    expect(old_row.locator("[data-current]")).to_have_count(1)
    page.close()
    assert errors == []

    # the API: only a POST with the version's own account's token, and only a version that was built
    path = f"/api/versions/{newer.version_id}/current"
    with pytest.raises(urllib.error.HTTPError) as got:
        urllib.request.urlopen(urllib.request.Request(f"{server.base}{path}", headers={
            "Authorization": f"Bearer {cat}"}), timeout=10)
    assert got.value.code == 405, "a GET changes nothing"
    status, body, _ = _api(server, path, dan, "POST")
    assert (status, body["error"]["reason"]) == (404, "UNKNOWN_VERSION")
    status, body, _ = _api(server, path, method="POST")
    assert (status, body["error"]["reason"]) == (401, "MISSING_TOKEN")
    status, body, _ = _api(server, f"/api/versions/{failed.version_id}/current", cat, "POST")
    assert (status, body["error"]["reason"]) == (409, "VERSION_STATE")
    status, body, cache = _api(server, path, cat, "POST")
    assert (status, body["version"]["version_id"], body["version"]["current"], cache) == (
        200, newer.version_id, True, "no-store")


def test_an_author_reads_a_hosted_bots_output_as_text(browser: BrowserContext, server: BackgroundServer) -> None:
    async def make() -> tuple[str, pb.BotVersion]:
        made: pb.CreateAccountResponse = await server.stub.CreateAccount(
            pb.CreateAccountRequest(name="vp-eve", owner="web tests"), metadata=ADMIN_METADATA)
        version = await _built(server, made.token, b"eve's bot", ready=True)
        line = pb.BotOutputLine(text="my hand: <b>not markup</b>")
        line.at.GetCurrentTime()
        await server.stub.ReportBotOutput(pb.ReportBotOutputRequest(version_id=version.version_id, lines=[line]),
                                          metadata=ADMIN_METADATA)
        return made.token, version
    eve, version = server.run(make())
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error"
            and "status of 404" not in message.text else None)  # the unknown match below: expected
    page.goto(f"{server.base}/versions")
    _type_token(page, eve)
    page.locator(f'#versions tr[data-version="{version.version_id}"] button.output-button').click()
    out = page.locator("#output-text")
    expect(out).to_contain_text("my hand: <b>not markup</b>")
    assert page.locator("#build-log b").count() == 0
    expect(page.locator("#output-state")).to_contain_text("1 line")
    _shot(page, "versions-bot-output")
    page.locator("#output-match").fill("no-such-match")
    page.locator("#output-show").click()
    expect(page.locator("#output-state")).to_contain_text("UNKNOWN_MATCH")
    page.close()
    assert errors == []
    status, body, cache = _api(server, f"/api/versions/{version.version_id}/output", eve)
    assert status == 200 and [line["text"] for line in body["lines"]] == ["my hand: <b>not markup</b>"]
    assert cache == "no-store"
    status, body, _ = _api(server, f"/api/versions/{version.version_id}/output")
    assert (status, body["error"]["reason"]) == (401, "MISSING_TOKEN")


class _Raising(Bot):
    """A bot that raises at every move: its client plays the fallback and reports each an error."""

    def play(self, obs: Observation) -> Action:
        raise RuntimeError("this bot cannot play")


def test_the_organiser_sees_every_accounts_versions_checks_faults_and_last_errors(
        browser: BrowserContext, tmp_path_factory: pytest.TempPathFactory) -> None:
    arena = ArenaSettings(enabled=True, queues=(("cardverse", 4),), check_retry_s=600.0, check_retry_max_s=3600.0)
    server = BackgroundServer(tmp_path_factory.mktemp("organiser-web") / "web.db", arena=arena)
    appetite = Appetite(presets=("cardverse",), players=(4,), max_matches=4, arena=True)
    try:
        async def make() -> tuple[list[str], dict[str, str], pb.BotVersion, pb.BotVersion, str]:
            houses = []
            for n in range(3):
                made: pb.CreateAccountResponse = await server.stub.CreateAccount(
                    pb.CreateAccountRequest(name=f"house-{n}", owner="web tests", house=True), metadata=ADMIN_METADATA)
                houses.append(made.token)
            tokens = {}
            for name in ("org-ann", "org-bob"):
                made = await server.stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="web tests"),
                                                       metadata=ADMIN_METADATA)
                tokens[name] = made.token
            broken = await _built(server, tokens["org-ann"], b"ann's raising bot", ready=True)
            failed = await _built(server, tokens["org-bob"], b"bob's unbuildable bot", ready=False)
            leased: pb.LeaseHostingResponse = await server.stub.LeaseHosting(
                pb.LeaseHostingRequest(host="web tests", capacity=4), metadata=ADMIN_METADATA)
            [hosted] = leased.start
            return houses, tokens, broken, failed, hosted.token
        houses, tokens, broken, failed, hosting = server.run(make())
        raising = SessionClient(lambda _seat: _Raising(), hosting, server=server.address, appetite=appetite,
                                threaded=False)
        with BuiltinSessions(server.address, dict.fromkeys(houses, "easy"), appetite=appetite, workers=0):
            playing = server.spawn(raising.run())

            async def checked() -> pb.BotVersion:
                while True:
                    listed = await server.stub.ListVersions(pb.ListVersionsRequest(), metadata=ADMIN_METADATA)
                    ann = next(v for v in listed.versions if v.account == "org-ann")
                    if ann.record.checks_failed and ann.HasField("next_check_at"):
                        return ann
                    await asyncio.sleep(0.1)
            ann = server.run(asyncio.wait_for(checked(), 90))
            errors: list[str] = []
            page = browser.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.base}/versions")
            _type_token(page, ADMIN)
            expect(page.locator("#versions-heading")).to_have_text("Every account's versions: 2")
            expect(page.locator("#no-arena")).to_have_count(0)
            rows = page.locator("#versions tbody tr")
            expect(rows).to_have_count(2)
            assert rows.evaluate_all("rows => rows.map(r => r.dataset.account)") == ["org-bob", "org-ann"]
            good = page.locator(f'#versions tr[data-version="{broken.version_id}"]')
            bad = page.locator(f'#versions tr[data-version="{failed.version_id}"]')
            expect(good.locator(".account")).to_have_text("org-ann")
            expect(good.locator("[data-state]")).to_have_text("READY")
            check = good.locator(".check")
            expect(check).to_have_attribute("data-failed", "1")
            expect(check).to_contain_text(f"failed 1 time (the last, check match {ann.record.last_check_id}: ")
            expect(check).to_contain_text("error")
            expect(check).to_contain_text("; next check in 10 min, or sooner if its bot reconnects")
            record = ann.record
            rate = f"{100 * record.faults.errors / record.moves:.1f}%"
            expect(good.locator(".faults")).to_have_text(f"{record.faults.errors} in {record.moves} moves ({rate})")
            assert record.faults.errors > 0 and record.faults.errors == record.moves  # it raised at every move
            expect(good.locator(".reason")).to_have_text(record.last_fault)
            assert record.last_fault.startswith(f"check match {record.last_check_id}: ")
            expect(bad.locator(".account")).to_have_text("org-bob")
            expect(bad.locator("[data-state]")).to_have_text("FAILED")
            expect(bad.locator(".reason")).to_have_text(REASON)
            expect(bad.locator(".check")).to_have_text("\u2013")
            expect(page.locator("button.current-button")).to_have_count(0)  # the author's choice, not the organiser's
            text = page.inner_text("#versions")
            assert "null" not in text and "undefined" not in text and "NaN" not in text  # nothing from a missing field
            _shot(page, "versions-organiser")
            bad.locator("button.log-button").click()  # the admin token reads every build log
            expect(page.locator("#log-state")).to_contain_text(REASON)
            page.close()
            assert errors == []
            status, body, cache = _api(server, "/api/versions", ADMIN)
            assert status == 200 and body["every_account"] and not body["without_arena"] and cache == "no-store"
            status, body, _ = _api(server, "/api/versions", tokens["org-bob"])  # an author sees only their own
            assert status == 200 and [v["version"]["version_id"] for v in body["versions"]] == [failed.version_id]
            playing.cancel()  # while its client plays, the next check match waits (ten minutes)
    finally:
        server.close()
