/* The tournaments: the list (/tournaments) and one tournament (/tournaments/ID): what it plays, its standings,
   and each round's tables with links to their matches (live, or the replay once the table is over).
   While a tournament can still change (not started, running, paused) the page asks the server again every
   2 seconds and draws it again only when the answer changed; a finished or cancelled one is asked once.
   The server's answers hold names, numbers and match ids: no card is ever on these pages. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const page = document.getElementById("page");
  const POLL_MS = 2000;
  const parts = location.pathname.split("/").filter(Boolean);
  const tournamentId = parts.length > 1 ? decodeURIComponent(parts[1]) : "";
  const STATES = {
    TOURNAMENT_STATE_CREATED: ["waiting", "not started"], TOURNAMENT_STATE_RUNNING: ["live", "running"],
    TOURNAMENT_STATE_PAUSED: ["waiting", "paused"], TOURNAMENT_STATE_FINISHED: ["over", "finished"],
    TOURNAMENT_STATE_CANCELLED: ["over", "cancelled"],
  };
  const FORMATS = { TOURNAMENT_FORMAT_SWISS: "Swiss", TOURNAMENT_FORMAT_ROUND_ROBIN: "round robin",
    TOURNAMENT_FORMAT_STAGES: "stages" };
  const OVER = new Set(["TOURNAMENT_STATE_FINISHED", "TOURNAMENT_STATE_CANCELLED"]);

  function when(timestamp) {
    const date = new Date(timestamp);
    return timestamp && !Number.isNaN(date.getTime()) ? date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "";
  }

  /** A number as the standings show it: whole numbers as they are, others to two decimals; "–" for none. */
  function number(value, signed) {
    const n = Number(value);
    if (!Number.isFinite(n)) return "\u2013";
    const text = Number.isInteger(n) ? String(n) : n.toFixed(2);
    return signed && n > 0 ? `+${text}` : text;
  }

  function statePill(state, id) {
    const [cls, label] = STATES[state] || ["", state];
    return el("span", { class: `pill ${cls}`, id, "data-state": state, text: label });
  }

  function formatText(spec) {
    const name = FORMATS[spec.format] || spec.format;
    return spec.duplicate ? `${name}, duplicate boards` : name;
  }

  /** The table size: the rules', or else the first table's (the preset's own when the rules leave it). */
  function tableSize(t) {
    const players = t.spec.rules && t.spec.rules.players;
    const first = (t.rounds || []).flatMap((r) => r.tables)[0];
    return players || (first ? first.players.length : null);
  }

  function roundText(t) {
    return t.round_count ? `${t.rounds_begun} of ${t.round_count}` : String(t.rounds_begun);
  }

  function seconds(ms) {
    return `${Number((ms / 1000).toFixed(2))} s`;
  }

  function clockText(clock) {
    if (!clock || !clock.move_time_limit_ms) return "no move limit";
    return `${seconds(clock.move_time_limit_ms)} a move${clock.time_bank_ms ? ` + ${seconds(clock.time_bank_ms)} bank` : ""}`;
  }

  function item(label, value, id) {
    return el("div", { class: "item" }, el("span", { class: "label", text: label }),
      value instanceof Node ? value : el("strong", { id, text: value }));
  }

  function playerLink(player) {
    return el("a", { href: `/?player=${encodeURIComponent(player)}`, text: player, title: `${player}'s matches` });
  }

  // ------------------------------------------------------------------ the list

  function listRow(t) {
    const id = encodeURIComponent(t.tournament_id);
    const size = tableSize(t);
    return el("tr", { "data-tournament": t.tournament_id },
      el("td", {}, statePill(t.state)),
      el("td", {}, el("a", { href: `/tournaments/${id}`, text: t.spec.name }),
        el("div", { class: "muted" }, el("span", { class: "id", text: t.tournament_id }), ` \u00B7 ${t.spec.preset}`)),
      el("td", { text: `${formatText(t.spec)}${size ? `, tables of ${size}` : ""}` }),
      el("td", { text: roundText(t) }),
      el("td", { text: String(t.entrants.length) }),
      el("td", { class: "muted", text: when(t.started_at) || when(t.created_at) }));
  }

  async function showList() {
    document.getElementById("topbar").replaceChildren(P.topbar("Tournaments", null));
    let last = "";
    const refresh = el("button", { type: "button", class: "refresh", text: "Refresh" });
    const section = el("section", { id: "tournaments" });
    let timer = null;
    async function load() {
      clearTimeout(timer);
      let listed;
      try {
        listed = await P.fetchJson("/api/tournaments");
      } catch (error) {
        if (!last) page.replaceChildren(el("div", { class: "notice error", role: "status", text: `The tournaments cannot be listed: ${error.message}` }));
        timer = setTimeout(load, POLL_MS);
        return;
      }
      const text = JSON.stringify(listed);
      if (text !== last) {
        last = text;
        const all = listed.tournaments;
        section.replaceChildren(el("h2", { text: `Tournaments: ${all.length}` }), all.length
          ? el("table", { class: "matches" },
            el("thead", {}, el("tr", {}, ["Status", "Tournament", "Format", "Round", "Entrants", "Started"].map((h) => el("th", { text: h })))),
            el("tbody", {}, all.map(listRow)))
          : el("p", { class: "muted", text: "No tournament yet: an organiser creates one with president tournament create." }));
        if (!page.contains(section)) page.replaceChildren(el("div", { class: "filter" }, refresh), section);
      }
      // while one of them can still change, look again
      if (listed.tournaments.some((t) => !OVER.has(t.state))) timer = setTimeout(load, POLL_MS);
    }
    refresh.addEventListener("click", load);
    await load();
  }

  // ------------------------------------------------------------------ one tournament

  /** Rounds the reader folded or unfolded (round number -> open), kept as the page is drawn again. */
  const opened = new Map();
  /** Why the page is not up to date (the server did not answer), shown under what it last showed. */
  const trouble = el("div", { class: "notice error", id: "trouble", role: "status", hidden: true });

  function standingRow(s, house, shaky) {
    const low = Number(s.mean_place_low), high = Number(s.mean_place_high);
    const played = Number(s.tables) > 0 && Number.isFinite(Number(s.mean_place));
    const interval = played ? `${Number(s.mean_place).toFixed(2)} [${low.toFixed(2)}, ${high.toFixed(2)}]` : "\u2013";
    return el("tr", { "data-player": s.player, "data-tables": s.tables, "data-rank": s.rank },
      el("td", { class: "num", text: String(s.rank) }),
      el("td", {}, playerLink(s.player), house.has(s.player) ? [" ", el("span", { class: "pill", "data-house": "", title: "a built-in level the organiser entered", text: "house bot" })] : null),
      el("td", { class: "num points", text: number(s.points) }),
      el("td", { class: "num", text: String(s.tables) }),
      el("td", { class: "num", text: String(s.deals) }),
      el("td", { class: "num", text: String(s.byes) }),
      el("td", { class: "num", text: interval }),
      el("td", { class: "num", title: `\u03BC ${number(s.mu)}, \u03C3 ${number(s.sigma)}`, "data-provisional": shaky.has(s.player) ? "" : null,
        text: played ? Number(s.ordinal).toFixed(2) + (shaky.has(s.player) ? "\u2020" : "") : "\u2013" }),
      el("td", { class: "num", text: number(s.head_to_head, true) }),
      el("td", { class: "num", text: number(s.buchholz) }),
      el("td", { class: "num", "data-forfeits": "", text: String(s.forfeits || 0) }),
      el("td", { class: "num", "data-faults": "", text: String(s.faults || 0) }),
      el("td", { class: "num", "data-server-moves": "", text: String(s.server_moves || 0) }),
      el("td", { class: "num", "data-absences": "", text: String(s.absences || 0) }));
  }

  function standings(t, shaky, sigma) {
    const house = new Set(t.entrants.filter((e) => e.house).map((e) => e.player));
    const rows = t.standings.length ? t.standings
      : t.entrants.map((e, i) => ({ rank: i + 1, player: e.player, points: 0, tables: 0, deals: 0, byes: 0 }));
    const heads = [["#", "num"], ["Player", ""], ["Points", "num"], ["Tables", "num"], ["Deals", "num"], ["Byes", "num"],
      ["Mean place [95% interval]", "num"], ["Rating", "num"], ["Head to head", "num"], ["Buchholz", "num"],
      ["Forfeits", "num"], ["Faults", "num"], ["Server moves", "num"], ["Absences", "num"]];
    const forfeit = t.spec.fault_rule === "TOURNAMENT_FAULT_RULE_FORFEIT";
    return el("section", { id: "standings" }, el("h2", { text: OVER.has(t.state) ? "Final standings" : "Standings" }),
      el("div", { class: "scroll" }, el("table", { class: "ranking" },
        el("thead", {}, el("tr", {}, heads.map(([h, cls]) => el("th", { class: cls || null, text: h })))),
        el("tbody", {}, rows.map((s) => standingRow(s, house, shaky))))),
      el("p", { class: "muted", text: "Ranked by points (at each deal, the players at the table less the place), a bye"
        + " worth its share; ties broken by head to head (deals against the entrants on equal points), then Buchholz"
        + " (the points of every tablemate). Mean place: 1 is first, per table, with its 95% interval."
        + " Rating: OpenSkill's \u03BC \u2212 3\u03C3 over the tournament's deals, as on the arena's and the ladder's tables." }),
      shaky.size ? el("p", { class: "muted", id: "provisional", text: `\u2020 provisional: \u03C3 above ${sigma} (few deals),`
        + " so the rating is mostly its uncertainty." }) : null,
      el("p", { class: "muted", id: "fault-rule", text: "Forfeits: deals in which the server played a move for the"
        + " entrant's seat (at its clock's deadline, with no bot connected, or once it took the seat over) or its bot"
        + " faulted (its client played the fallback for an error, a time-out or an illegal answer). "
        + (forfeit ? "A forfeit scores last place in that deal, and a bye counts only for the deals not forfeited."
          : "This tournament plays on: a forfeited deal counts as it was played.")
        + " Faults: the bot's faults. Server moves: the moves the server played. Absences: tables at which its"
        + " bot was not connected when a match started." }));
  }

  /** A table's matches: each one's link (the live page while the table plays, its replay once it is over). */
  function matchLinks(table, hidden, seatings) {
    const links = table.match_ids.map((id, i) => {
      const href = `/matches/${encodeURIComponent(id)}`;
      const label = seatings > 1 ? `seating ${i + 1}: ` : "";
      const link = table.finished ? el("a", { class: "action", href: `${href}/replay`, "data-match": id, text: "Replay" })
        : hidden.has(id) ? el("span", { class: "pill hidden", "data-match": id, title: "another live match deals the same cards", text: "hidden while its board is in play" })
          : el("a", { class: "action", href, "data-match": id, text: "Watch live" });
      return el("span", { class: "match-link" }, label, link, " ", el("span", { class: "id", text: id }));
    });
    const waiting = seatings - table.match_ids.length;
    return el("div", { class: "match-links" }, links,
      waiting > 0 ? el("span", { class: "muted", text: table.match_ids.length ? `${waiting} more to start` : "not started yet" }) : null);
  }

  function tableRow(table, index, hidden, seatings) {
    const absent = new Set(table.absent);
    const status = table.finished ? ["over", "over"] : table.match_ids.length ? ["live", "playing"] : ["waiting", "to start"];
    const waiting = table.waiting ? el("div", { class: "muted", "data-waiting": "", text: table.waiting }) : null;
    return el("tr", { "data-table": index + 1, "data-finished": table.finished ? "true" : "false" },
      el("td", { text: `Table ${index + 1}` }),
      el("td", {}, el("div", { class: "players" }, table.players.map((player) => el("span", { "data-player": player },
        playerLink(player), absent.has(player)
          ? [" ", el("span", { class: "pill waiting", "data-absent": "", title: "its bot was not connected when a match of this table started: the server's clock played its seat until it came", text: "absent" })]
          : null)))),
      el("td", {}, el("span", { class: `pill ${status[0]}`, text: status[1] }), waiting),
      el("td", {}, matchLinks(table, hidden, seatings)));
  }

  function roundBox(t, round, hidden, newest) {
    const seatings = t.spec.duplicate ? (tableSize(t) || 1) : 1;
    const over = round.tables.filter((x) => x.finished).length;
    const summary = el("summary", {}, el("span", { text: `Round ${round.number}${round.stage ? ` (stage ${round.stage})` : ""}` }),
      el("span", { class: "muted", text: `${over} of ${P.plural(round.tables.length, "table")} over` }),
      round.byes.length ? el("span", { class: "muted", text: `${P.plural(round.byes.length, "bye")}` }) : null);
    const details = el("details", { class: "round", "data-round": round.number,
      open: opened.has(round.number) ? opened.get(round.number) : newest }, summary, el("table", { class: "matches" },
      el("thead", {}, el("tr", {}, ["Table", "Players", "Status", "Matches"].map((h) => el("th", { text: h })))),
      el("tbody", {}, round.tables.map((table, i) => tableRow(table, i, hidden, seatings)))),
      round.byes.length ? el("p", { class: "byes", "data-byes": "" }, "Sitting this round out (a bye): ",
        round.byes.map((player, i) => [i ? ", " : "", el("strong", { "data-bye": player, text: player })])) : null);
    summary.addEventListener("click", () => setTimeout(() => opened.set(round.number, details.open)));
    return details;
  }

  function rounds(t, hidden) {
    const newest = [...t.rounds].reverse();
    return el("section", { id: "rounds" }, el("h2", { text: `Rounds: ${roundText(t)}` }),
      newest.length ? newest.map((round, i) => roundBox(t, round, hidden, i === 0))
        : el("p", { class: "muted", text: t.state === "TOURNAMENT_STATE_CREATED" ? "The first round is paired when the tournament starts." : "No round was played." }));
  }

  function summary(t) {
    const spec = t.spec;
    const size = tableSize(t);
    const deals = spec.rules && spec.rules.deals;
    const times = [t.started_at ? `started ${when(t.started_at)}` : `created ${when(t.created_at)}`,
      t.ended_at ? `${t.state === "TOURNAMENT_STATE_CANCELLED" ? "cancelled" : "ended"} ${when(t.ended_at)}` : ""].filter(Boolean);
    return el("section", { id: "tournament" }, el("h1", { id: "tournament-name", text: spec.name }),
      el("div", { class: "status" },
        item("State", statePill(t.state, "tournament-state")),
        item("Format", formatText(spec), "tournament-format"),
        item("Table size", size ? P.plural(size, "player") : "the preset's", "tournament-size"),
        item("Preset", spec.preset, "tournament-preset"),
        item("Round", roundText(t), "tournament-round"),
        deals ? item("Deals a match", String(deals)) : null,
        item("Clock", clockText(spec.clock)),
        item("Entrants", String(t.entrants.length))),
      el("p", { class: "muted", text: times.join(" \u00B7 ") }));
  }

  function render(answer) {
    const t = answer.tournament;
    const hidden = new Set(answer.hidden || []);
    document.title = `President: ${t.spec.name}`;
    document.getElementById("topbar").replaceChildren(P.topbar([`Tournament ${t.spec.name} `, statePill(t.state)], null));
    const follow = OVER.has(t.state) ? null
      : el("p", { class: "muted", id: "following", text: "The standings and the rounds follow the tournament as its matches end." });
    const shaky = new Set(answer.provisional || []);
    page.replaceChildren(...[summary(t), follow, standings(t, shaky, answer.provisional_sigma), rounds(t, hidden), trouble].filter(Boolean));
  }

  async function showTournament() {
    const url = `/api/tournaments/${encodeURIComponent(tournamentId)}`;
    document.getElementById("topbar").replaceChildren(P.topbar(`Tournament ${tournamentId}`, null));
    let last = "";
    async function poll() {
      let response, text;
      try {
        response = await fetch(url, { headers: { Accept: "application/json" } });
        text = await response.text();
      } catch (error) {
        trouble.hidden = false;
        trouble.textContent = `The server does not answer (${error.message}): trying again.`;
        if (!last) page.replaceChildren(trouble);
        setTimeout(poll, POLL_MS);
        return;
      }
      let body = null;
      try { body = JSON.parse(text); } catch (error) { body = null; }
      if (!response.ok || !body || !body.tournament) {
        const reason = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
        if (response.status === 404) {  // no such tournament: nothing will change
          document.getElementById("topbar").replaceChildren(P.topbar("Tournament", null));
          page.replaceChildren(el("div", { class: "notice error", id: "no-tournament", role: "status", text: `This tournament cannot be shown: ${reason}` }));
          return;
        }
        trouble.hidden = false;
        trouble.textContent = `The tournament cannot be refreshed: ${reason}; trying again.`;
        if (!last) page.replaceChildren(trouble);
        setTimeout(poll, POLL_MS);
        return;
      }
      trouble.hidden = true;
      if (text !== last) {
        last = text;
        render(body);
      }
      if (!OVER.has(body.tournament.state)) setTimeout(poll, POLL_MS);
    }
    await poll();
  }

  if (tournamentId) showTournament();
  else showList();
})();
