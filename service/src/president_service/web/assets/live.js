/* The live page: a match as a spectator sees it, from the server's Spectate stream (server-sent events).
   The stream's snapshot is the spectator's view; each event is kept as it comes, and the page
   shows the table after it.  The match's summary is fetched again only when nothing has happened for a while,
   or while some seat's bot is not connected: it says who the match waits for, the names bots gave
   themselves and, on a server with --human-seats, which of its bots a person may play against. */
"use strict";

(function () {
  const P = window.President;
  const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
  const page = document.getElementById("page");
  const root = P.el("section", { id: "match", "aria-label": "the match" });
  const state = {
    names: [], deals: 0, normalOrder: [], obs: null, log: [], step: [], trick: 0, trickDone: false,
    wonBy: null, actor: null, dealOver: false, result: null, takenOver: new Set(), faults: [], over: false,
    waiting: false,
  };
  const hint = P.el("div", { class: "notice", id: "waiting-for", role: "status", hidden: true });
  const opponents = P.el("section", { id: "play-against", class: "play-against-bar", "aria-label": "play against a bot",
    hidden: true });
  let offered = "";
  const WAITING_POLL_MS = 2000;
  const IDLE_POLL_MS = 5000;
  let source = null;
  let pending = false;
  let seatsTimer = null;

  /** The bar on top; `status` null: no badge (the match cannot be shown). */
  function header(status) {
    const replay = state.over ? P.el("a", { href: `/matches/${encodeURIComponent(matchId)}/replay`, id: "replay-link", text: "Watch the replay \u25B6" }) : null;
    const pill = status ? P.el("span", { class: `pill ${status.cls}`, id: "live-status", text: status.text }) : null;
    document.getElementById("topbar").replaceChildren(P.topbar([`Match ${matchId} `, pill], replay));
  }

  /** The badge while the stream is open: waiting while a seat's bot is missing, else live, then over. */
  function badge() {
    return state.over ? { cls: "over", text: "over" } : state.waiting ? { cls: "waiting", text: "waiting" }
      : { cls: "live", text: "live" };
  }

  function notice(text, error) {
    page.replaceChildren(hint, opponents, P.el("div", { class: `notice${error ? " error" : ""}`, role: "status", text }));
  }

  function names(list) {
    return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
  }

  /** A row for each bot of this table a person may play against now (`players`: the summary's `play_against`,
      given by a server with --human-seats only), each with its button; built again only when they change. */
  function playAgainst(match, players) {
    const rows = (players || []).map((p) => match.players[p]);
    const key = JSON.stringify(rows.map((p) => p.account));
    if (key === offered) return;
    offered = key;
    opponents.hidden = rows.length === 0;
    opponents.replaceChildren(...(rows.length ? [P.el("h3", { text: "Play against a bot of this table" }),
      P.el("table", { class: "matches" }, P.el("tbody", {}, rows.map((p) => P.el("tr", { "data-account": p.account },
        P.el("td", { text: p.name }), P.el("td", { class: "muted", text: `seat ${p.seat}` }),
        P.el("td", {}, P.playAgainstButton(p.account, match.preset, match.players.length))))))] : []));
  }

  /** What the summary says of the seats: their names, and which seats' bots the match waits for. */
  function seats(match, players) {
    playAgainst(match, players);
    state.names = match.players.map((p) => p.name);
    document.title = `President: ${state.names.join(", ")}`;
    const absent = match.status === "MATCH_STATUS_OVER" ? []
      : match.players.filter((p) => !p.connected && !p.taken_over);
    // waiting while it has not started or a seat's bot is not there: not live
    const waiting = match.status === "MATCH_STATUS_WAITING" || absent.length > 0;
    if (waiting !== state.waiting && source && source.readyState === EventSource.OPEN) {
      state.waiting = waiting;
      header(badge());
    }
    state.waiting = waiting;
    hint.hidden = absent.length === 0;
    hint.textContent = absent.length
      ? `Waiting for ${names(absent.map((p) => `${p.name} (seat ${p.seat})`))} to connect`
      : "";
    if (state.obs) later();
    lookAgain(absent.length ? WAITING_POLL_MS : IDLE_POLL_MS);
  }

  function lookAgain(ms) {
    clearTimeout(seatsTimer);
    seatsTimer = state.over ? null : setTimeout(lookAtSeats, ms);
  }

  async function lookAtSeats() {
    try {
      const found = await P.fetchJson(`/api/matches/${encodeURIComponent(matchId)}`);
      seats(found.match, found.play_against);
    } catch (error) {
      lookAgain(IDLE_POLL_MS);
    }
  }

  /** A new step begins with an action (a play, a pass, an exchange move): what follows belongs to it. */
  function beginStep(player) {
    state.step = [];
    state.actor = player;
    state.wonBy = null;
    if (state.trickDone) {
      state.obs.trick = [];
      if (state.trick !== null) state.trick += 1;
      state.trickDone = false;
    }
  }

  function apply(event) {
    const obs = state.obs;
    if (event.deal_started) {
      const d = event.deal_started;
      Object.assign(obs, { deal: d.deal, seats: d.seats, hand_sizes: d.hand_sizes, roles: d.roles, places: [], trick: [],
        reversed: false, rank_order: state.normalOrder, direction: 1, exchange: [], phase: "PHASE_UNSPECIFIED" });
      delete obs.table;
      Object.assign(state, { step: [], actor: null, wonBy: null, trick: 0, trickDone: false, dealOver: false });
    } else if (event.cards_requested) {
      beginStep(event.cards_requested.receiver);
      obs.phase = "PHASE_REQUEST";
    } else if (event.cards_given) {
      const g = event.cards_given;
      if (!g.tribute) beginStep(g.giver);
      obs.hand_sizes[g.giver] -= g.count;
      obs.hand_sizes[g.receiver] += g.count;
      obs.exchange.push(g);
      obs.phase = "PHASE_GIVE_BACK";
    } else if (event.play_started) {
      Object.assign(obs, { phase: "PHASE_PLAY", trick: [] });
      Object.assign(state, { trick: 1, trickDone: false });
    } else if (event.played) {
      const p = event.played;
      beginStep(p.player);
      obs.hand_sizes[p.player] -= p.play.cards.length;
      obs.trick.push({ played: p });
      obs.table = p.play;
      obs.table_player = p.player;
    } else if (event.passed) {
      if (!event.passed.skipped) beginStep(event.passed.player);
      obs.trick.push({ passed: event.passed });
    } else if (event.revolution_happened) {
      const r = event.revolution_happened;
      obs.reversed = r.reversed;
      obs.direction = r.direction;
      obs.rank_order = r.reversed ? [...state.normalOrder].reverse() : state.normalOrder;
    } else if (event.trick_won) {
      state.wonBy = event.trick_won.winner;
      state.trickDone = true;
    } else if (event.went_out) {
      obs.places.push(event.went_out.player);
    } else if (event.deal_ended) {
      obs.scores = event.deal_ended.totals;
      obs.places = event.deal_ended.places;
      state.dealOver = true;
    } else if (event.match_ended) {
      obs.phase = "PHASE_OVER";
      state.result = event.match_ended;
    } else if (event.strike_recorded) {
      state.faults[event.strike_recorded.player].strikes = event.strike_recorded.strikes;
    } else if (event.seat_taken_over) {
      state.takenOver.add(event.seat_taken_over.player);
    }
    state.step.push(event);
    state.log.push(event);
  }

  function render() {
    pending = false;
    P.renderMatch(root, {
      names: state.names, deals: state.deals, obs: state.obs, normalOrder: state.normalOrder,
      hands: state.names.map(() => null), exchange: state.obs.exchange, stepEvents: state.step, log: state.log,
      actor: state.actor, toActKnown: false, wonBy: state.wonBy, dealOver: state.dealOver, result: state.result,
      trick: state.trick, viewer: null, takenOver: state.takenOver, faults: state.faults,
    });
  }

  function later() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(render);
    }
  }

  function receive(message) {
    if (message.snapshot) {
      state.obs = message.snapshot.observation;
      // Joined in the middle of a deal, the page cannot number its tricks until the next deal.
      Object.assign(state, { step: [], actor: null, wonBy: null, trick: null, trickDone: false,
        dealOver: state.obs.phase === "PHASE_OVER" });
      page.replaceChildren(hint, opponents, root);
    } else if (message.event && state.obs) {
      apply(message.event);
    } else if (message.match_over) {
      state.result = message.match_over.result;
      state.over = true;
      // opened after the end: no event came, so the log says at least how it ended (the replay has every move)
      if (!state.log.length) state.log.push({ match_ended: state.result });
      source.close();
      header({ cls: "over", text: "over" });
      lookAtSeats();  // the names the seats ended with
    }
    if (hint.hidden && !state.over) lookAgain(IDLE_POLL_MS);
    if (state.obs) later();
  }

  async function start() {
    header({ cls: "", text: "connecting" });
    let found;
    try {
      found = await P.fetchJson(`/api/matches/${encodeURIComponent(matchId)}`);
    } catch (error) {
      header(null);
      notice(`This match cannot be shown: ${error.message}`, true);
      return;
    }
    const match = found.match;
    state.names = match.players.map((p) => p.name);
    document.title = `President: ${state.names.join(", ")}`;
    state.deals = match.rules.deals || 0;
    state.normalOrder = match.rules.rank_order.ranks;
    match.players.forEach((p) => { if (p.taken_over) state.takenOver.add(p.player); });
    state.faults = match.players.map((p) => ({ ...p.faults }));
    if (!found.shown) {
      header({ cls: "hidden", text: "hidden" });
      notice("Another live match deals the same cards (a duplicate board): this one is shown once every match of the board is over.");
      return;
    }
    seats(match, found.play_against);
    notice("Waiting for the match\u2026");
    source = new EventSource(`/api/matches/${encodeURIComponent(matchId)}/live`);
    source.onopen = () => header(badge());
    source.onmessage = (m) => receive(JSON.parse(m.data));
    source.addEventListener("refused", (m) => header({ cls: "waiting", text: JSON.parse(m.data).error.message }));
    source.onerror = () => {
      if (state.over) return;
      header(source.readyState === EventSource.CLOSED ? { cls: "waiting", text: "the server refused the stream" }
        : { cls: "waiting", text: "reconnecting\u2026" });
    };
  }

  start();
})();
