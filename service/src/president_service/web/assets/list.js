/* The match list: live matches to watch and finished ones to replay (`?player=NAME`: one player's matches).
   The page is a column of sections, each built from one JSON answer of the server. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const page = document.getElementById("page");
  const player = new URLSearchParams(location.search).get("player");
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
      ` ${P.plural(p.score, "pt")}`, p.player === winner ? " \u2605" : "")));
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

  function section(title, id, entries, empty) {
    return el("section", { id }, el("h2", { text: `${title} (${entries.length})` }),
      entries.length ? el("table", { class: "matches" },
        el("thead", {}, el("tr", {}, ["Status", "Match", "Players and points", "Deals", "Created", ""].map((h) => el("th", { text: h })))),
        el("tbody", {}, entries.map(row)))
        : el("p", { class: "muted", text: empty }));
  }

  function standing(entry, rank) {
    const low = Number(entry.mean_place_low || 0), high = Number(entry.mean_place_high || 0);
    const place = Number(entry.mean_place || 0);
    const marks = [entry.house ? el("span", { class: "pill", text: "house bot" }) : null,
      entry.provisional ? el("span", { class: "pill waiting", text: "provisional" }) : null];
    return el("tr", { "data-account": entry.account },
      el("td", { text: String(rank) }),
      el("td", {}, el("a", { href: `/?player=${encodeURIComponent(entry.account)}`, text: entry.account,
        title: `${entry.account}'s matches` }), " ", marks),
      el("td", { text: `${place.toFixed(2)} [${low.toFixed(2)}, ${high.toFixed(2)}]` }),
      el("td", { text: String(entry.matches || 0) }),
      el("td", { class: "muted", text: Number(entry.ordinal || 0).toFixed(2) }));
  }

  function leaderboards(boards) {
    return boards.map((board) => el("section", { id: `leaderboard-${board.preset}-${board.players}`, class: "leaderboard" },
      el("h2", { text: `Arena: ${board.preset}, ${board.players} players` }),
      el("table", { class: "matches" },
        el("thead", {}, el("tr", {}, ["#", "Bot", "Mean place [95% interval]", "Matches", "Rating (mu − 3 sigma)"].map((h) => el("th", { text: h })))),
        el("tbody", {}, board.entries.map((entry, i) => standing(entry, i + 1))))));
  }

  async function load() {
    const query = player ? `?player=${encodeURIComponent(player)}` : "";
    let listed;
    try {
      listed = await P.fetchJson(`/api/matches${query}`);
    } catch (error) {
      page.replaceChildren(el("div", { class: "notice error", role: "status", text: `The matches cannot be listed: ${error.message}` }));
      return;
    }
    let boards = [];
    try {
      boards = player ? [] : (await P.fetchJson("/api/leaderboards")).leaderboards;
    } catch (error) {
      boards = [];
    }
    const live = listed.matches.filter((m) => m.match.status !== "MATCH_STATUS_OVER");
    const over = listed.matches.filter((m) => m.match.status === "MATCH_STATUS_OVER");
    const refresh = el("button", { type: "button", class: "refresh", text: "Refresh" });
    refresh.addEventListener("click", load);
    page.replaceChildren(
      el("div", { class: "filter" }, player ? [`Matches of `, el("strong", { text: player }), " \u00B7 ", el("a", { href: "/", text: "all matches" }), " "] : null, refresh),
      ...leaderboards(boards),
      section("Live matches", "live", live, "No match is being played right now."),
      section("Finished matches", "finished", over, "No match has finished yet."));
  }

  document.getElementById("topbar").replaceChildren(P.topbar("Matches", null));
  load();
})();
