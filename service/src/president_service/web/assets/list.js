/* The match list: live matches to watch, matches waiting for open seats to be claimed, and finished ones to replay
   (`?player=NAME`: one player's matches), a page of them at a time (`?offset=N&page_size=N`, 50 by default).
   The page is a column of sections, each built from one JSON answer of the server. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const page = document.getElementById("page");
  const params = new URLSearchParams(location.search);
  const player = params.get("player");
  const offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
  const sized = params.get("page_size");
  const PAGE = Math.min(200, Math.max(1, parseInt(sized || "50", 10) || 50));
  const STATUS = { MATCH_STATUS_WAITING: ["waiting", "waiting for seats"], MATCH_STATUS_RUNNING: ["live", "live"],
    MATCH_STATUS_OVER: ["over", "over"] };

  function when(timestamp) {
    const date = new Date(timestamp);
    return Number.isNaN(date.getTime()) ? "" : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  }

  function players(match) {
    const winner = match.result ? match.result.winner : null;
    return el("div", { class: "players" }, match.players.map((p) => el("span", { class: p.player === winner ? "winner" : null },
      el("a", { href: `/?player=${encodeURIComponent(p.name)}`, text: p.name, title: `${p.name}'s matches` }),
      ` ${P.plural(p.score, "pt")}`, p.player === winner ? " \u2605" : "",
      p.taken_over && !match.result ? el("span", { class: "muted", text: " (played by the server)" }) : null)));
  }

  function row(entry) {
    const match = entry.match;
    const [cls, label] = STATUS[match.status] || ["", match.status];
    const id = encodeURIComponent(match.match_id);
    const over = match.status === "MATCH_STATUS_OVER";
    const links = !entry.shown ? el("span", { class: "pill hidden", title: "another live match deals the same cards",
      text: "hidden while its board is in play" })
      : over ? [el("a", { class: "action", href: `/matches/${id}/replay`, text: "Replay" }),
        el("a", { class: "action quiet", href: `/matches/${id}`, text: "Final table" })]
        : el("a", { class: "action", href: `/matches/${id}`, text: "Watch live" });
    const deals = match.rules.deals || 0;
    return el("tr", { "data-match": match.match_id },
      el("td", {}, el("span", { class: `pill ${cls}`, text: label })),
      el("td", {}, el("span", { class: "id", text: match.match_id }), el("div", { class: "muted", text: match.preset })),
      el("td", {}, players(match)),
      el("td", { text: over ? (deals ? P.plural(deals, "deal") : "") : `deal ${match.deal}${deals ? ` of ${deals}` : ""}` }),
      el("td", { class: "muted", text: when(match.created_at) }),
      el("td", { class: "links" }, links));
  }

  function table(entries, empty) {
    return entries.length ? el("table", { class: "matches" },
      el("thead", {}, el("tr", {}, ["Status", "Match", "Players and points", "Deals", "Created", ""].map((h) => el("th", { text: h })))),
      el("tbody", {}, entries.map(row)))
      : el("p", { class: "muted", text: empty });
  }

  function section(title, id, entries, empty) {
    return el("section", { id }, el("h2", { text: `${title}: ${entries.length}` }), table(entries, empty));
  }

  /** The address of the page of finished matches that starts at `start` (the same player's, if one is asked). */
  function pageHref(start) {
    const query = new URLSearchParams(player ? { player } : {});
    if (start) query.set("offset", String(start));
    if (sized) query.set("page_size", String(PAGE));
    const text = query.toString();
    return text ? `/?${text}` : "/";
  }

  /** Matches `first` to `last`, counted from 1: "3-4", or "5" alone. */
  function span(first, last) {
    return first === last ? String(first) : `${first}-${last}`;
  }

  /** One page of the finished matches, newest first: how many there are in all, which are shown, and the pages
      before and after. */
  function finished(entries, total) {
    const last = offset + entries.length;
    const all = offset === 0 && entries.length === total;
    const heading = `Finished matches: ${total}${all || !entries.length ? "" : `, showing ${span(offset + 1, last)}`}`;
    const before = offset > 0 ? Math.max(0, offset - PAGE) : null;
    const nav = before !== null || last < total ? el("nav", { class: "pages", "aria-label": "pages of finished matches" },
      before !== null ? el("a", { href: pageHref(before), rel: "prev", text: `\u2190 Previous (${span(before + 1, Math.min(before + PAGE, total))})` }) : null,
      last < total ? el("a", { href: pageHref(last), rel: "next", text: `Next (${span(last + 1, Math.min(last + PAGE, total))}) \u2192` }) : null)
      : null;
    const empty = total ? "No finished match this far back." : "No match has finished yet.";
    return el("section", { id: "finished" }, el("h2", { text: heading }), table(entries, empty), nav);
  }

  function standing(entry, rank, board, humanSeats) {
    const low = Number(entry.mean_place_low || 0), high = Number(entry.mean_place_high || 0);
    const place = Number(entry.mean_place || 0);
    const marks = [entry.house ? el("span", { class: "pill", text: "house bot" }) : null,
      entry.provisional ? el("span", { class: "pill waiting", text: "provisional" }) : null];
    // A hosted version plays (and is listed) as account@version.
    const player = entry.version_id ? `${entry.account}@${entry.version_id}` : entry.account;
    return el("tr", { "data-account": entry.account },
      el("td", { text: String(rank) }),
      el("td", {}, el("a", { href: `/?player=${encodeURIComponent(player)}`, text: player,
        title: `${player}'s matches` }), " ", marks),
      el("td", { text: Number(entry.ordinal || 0).toFixed(2) }),
      el("td", { text: `${place.toFixed(2)} [${low.toFixed(2)}, ${high.toFixed(2)}]` }),
      el("td", { text: String(entry.matches || 0) }),
      humanSeats ? el("td", {}, entry.house ? null : P.playAgainstButton(entry.account, board.preset, board.players))
        : null);
  }

  /** An arena leaderboard as the server orders it: by the rating it shows, OpenSkill's mu − 3σ. */
  function leaderboards(boards, humanSeats, sigma) {
    return boards.map((board) => el("section", { id: `leaderboard-${board.preset}-${board.players}`, class: "leaderboard" },
      el("h2", { text: `Arena: ${board.preset}, ${board.players} players` }),
      el("table", { class: "matches" },
        el("thead", {}, el("tr", {}, ["#", "Bot", "Rating", "Mean place [95% interval]", "Matches", ...(humanSeats ? [""] : [])].map((h) => el("th", { text: h })))),
        el("tbody", {}, board.entries.map((entry, i) => standing(entry, i + 1, board, humanSeats)))),
      el("p", { class: "muted", text: "Ordered by rating, OpenSkill's conservative estimate of skill"
        + " (μ − 3σ: low while a bot has played few matches), as on the ladder's and tournaments' tables."
        + " Mean place: 1 is first, with its 95% interval." }),
      board.entries.some((entry) => entry.provisional) ? el("p", { class: "muted provisional-note",
        text: `Provisional: σ above ${sigma} (few matches), so the rating is mostly its uncertainty and may order`
          + " two bots unlike their mean places." }) : null));
  }

  async function load() {
    const query = new URLSearchParams({ offset: String(offset), page_size: String(PAGE) });
    if (player) query.set("player", player);
    let listed;
    try {
      listed = await P.fetchJson(`/api/matches?${query}`);
    } catch (error) {
      page.replaceChildren(el("div", { class: "notice error", role: "status", text: `The matches cannot be listed: ${error.message}` }));
      return;
    }
    let boards = [];
    let humanSeats = false;
    let provisionalSigma = null;
    try {
      const found = player ? { leaderboards: [], human_seats: false } : await P.fetchJson("/api/leaderboards");
      boards = found.leaderboards;
      humanSeats = found.human_seats;
      provisionalSigma = found.provisional_sigma;
    } catch (error) {
      boards = [];
    }
    const live = listed.matches.filter((m) => m.match.status === "MATCH_STATUS_RUNNING");
    const waiting = listed.matches.filter((m) => m.match.status === "MATCH_STATUS_WAITING");
    const over = listed.matches.filter((m) => m.match.status === "MATCH_STATUS_OVER");
    const refresh = el("button", { type: "button", class: "refresh", text: "Refresh" });
    refresh.addEventListener("click", load);
    page.replaceChildren(
      el("div", { class: "filter" }, player ? [`Matches of `, el("strong", { text: player }), " \u00B7 ", el("a", { href: "/", text: "all matches" }), " "] : null, refresh),
      ...leaderboards(boards, humanSeats, provisionalSigma),
      section("Live matches", "live", live, "No match is being played right now."),
      ...(waiting.length ? [section("Waiting for players", "waiting", waiting, "")] : []),
      finished(over, listed.finished_total));
  }

  document.getElementById("topbar").replaceChildren(P.topbar("Matches", null));
  load();
})();
