/* President: a seat played by a person. The seat token is typed into the page (kept in this tab's
   sessionStorage, sent only in the Authorization header); the page reads /api/seat, which holds what the
   seat's bot would see, and posts the chosen legal action to /api/seat/act. No rule is decided here:
   the buttons are the prompt's legal actions. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const KEY = "president-seat-token";
  const POLL_MS = 400;
  const page = document.getElementById("page");
  document.getElementById("topbar").replaceWith(P.topbar("Play a seat", ""));
  let timer = null;
  let clock = null;
  let sending = false;

  function headers(token) {
    return { Accept: "application/json", Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  }

  async function call(url, token, body) {
    const response = await fetch(url, body === undefined ? { headers: headers(token) }
      : { method: "POST", headers: headers(token), body: JSON.stringify(body) });
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Error(data && data.error ? data.error.message : `${response.status} ${response.statusText}`);
    return data;
  }

  function askToken(message) {
    sessionStorage.removeItem(KEY);
    const input = el("input", { type: "password", id: "seat-token", autocomplete: "off", size: 40,
      "aria-label": "seat token", placeholder: "the seat token" });
    const form = el("form", { class: "controls", id: "token-form" }, input,
      el("button", { type: "submit", class: "primary", text: "Take the seat" }));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (!input.value.trim()) return;
      sessionStorage.setItem(KEY, input.value.trim());
      start();
    });
    page.replaceChildren(...[el("h1", { text: "Play a seat" }),
      el("p", { text: "Paste the seat token of a match's seat (from president match create, or the organiser): "
        + "you play that seat here, seeing only its own cards." }),
      message ? el("p", { class: "error", id: "seat-error", text: message }) : null, form].filter((node) => node));
    input.focus();
  }

  function actionLabel(action) {
    if (action.pass_turn) return ["Pass"];
    if (action.play) return ["Play ", P.playEl(action.play)];
    if (action.give_back) return ["Give back ", P.cardsInline(action.give_back.cards)];
    if (action.request) return ["Ask for ", P.cardsInline(action.request.cards)];
    return ["?"];
  }

  function players(view) {
    const obs = view.observation;
    const rows = obs.hand_sizes.map((cards, p) => el("tr", { class: p === view.player ? "you" : null,
      "data-player": p },
      el("td", {}, P.nameOf(view.names, p), p === view.player ? " (you)" : ""),
      el("td", {}, P.roleEl(obs.roles[p])),
      el("td", { text: String(cards) }),
      el("td", { text: String(obs.scores[p]) }),
      el("td", { text: obs.to_act === p ? "to act" : obs.places.includes(p) ? `out (${P.ordinal(obs.places.indexOf(p) + 1)})` : "" })));
    return el("table", { class: "players" },
      el("thead", {}, el("tr", {}, ["Player", "Role", "Cards", "Points", ""].map((h) => el("th", { text: h })))),
      el("tbody", {}, rows));
  }

  function trick(view) {
    const obs = view.observation;
    const entries = obs.trick.map((entry) => entry.played
      ? el("li", {}, el("strong", { text: P.nameOf(view.names, entry.played.player) }), " plays ", P.playEl(entry.played.play))
      : el("li", {}, el("strong", { text: P.nameOf(view.names, entry.passed.player) }), entry.passed.skipped ? " is skipped" : " passes"));
    return el("section", { id: "trick" }, el("h2", { text: `Deal ${obs.deal}: the trick` }),
      entries.length ? el("ol", {}, entries) : el("p", { class: "none", text: "No card on the table." }));
  }

  function showClock(prompt) {
    if (clock) clearInterval(clock);
    const box = el("p", { id: "clock" });
    if (!prompt.deadline) {
      box.textContent = "No clock: take your time.";
      return box;
    }
    const deadline = Date.parse(prompt.deadline);
    const bank = Number(prompt.time_bank_remaining_ms) / 1000;
    const tick = () => {
      const left = Math.max(0, (deadline - Date.now()) / 1000);
      box.textContent = `${left.toFixed(1)} s left (time bank ${bank.toFixed(1)} s)`;
    };
    tick();
    clock = setInterval(tick, 100);
    return box;
  }

  function actions(view, token) {
    const prompt = view.prompt;
    if (!prompt) {
      if (clock) clearInterval(clock);
      const obs = view.observation;
      return el("section", { id: "actions" }, el("p", { class: "waiting",
        text: obs.to_act === undefined || obs.to_act === null ? "Waiting." : `Waiting for ${P.nameOf(view.names, obs.to_act)}.` }));
    }
    const buttons = prompt.legal_actions.map((action, i) => {
      const button = el("button", { type: "button", class: "legal", "data-index": i }, actionLabel(action));
      button.addEventListener("click", () => act(token, prompt.turn_id, action));
      return button;
    });
    return el("section", { id: "actions" }, el("h2", { text: "Your turn" }), showClock(prompt),
      el("div", { class: "controls legal-actions" }, buttons));
  }

  function over(view) {
    const result = view.result;
    return el("section", { id: "over" }, el("h2", { text: "Match over" }),
      el("p", {}, el("strong", { text: P.nameOf(view.names, result.winner) }),
        ` wins; totals ${result.totals.map((t, p) => `${P.nameOf(view.names, p)} ${t}`).join(", ")}.`),
      el("p", {}, el("a", { href: `/matches/${view.match_id}/replay`, text: "The replay" })));
  }

  function render(view, token) {
    const obs = view.observation;
    const hand = P.sorted(obs.hand, obs.rank_order);
    const done = view.status === "MATCH_STATUS_OVER";
    page.replaceChildren(
      el("h1", {}, `${P.nameOf(view.names, view.player)} in match `,
        el("a", { href: `/matches/${view.match_id}`, text: view.match_id })),
      players(view), trick(view),
      el("section", { id: "hand" }, el("h2", { text: "Your hand" }),
        el("div", { class: "hand" }, hand.length ? P.cardsInline(hand) : el("span", { class: "none", text: "no cards" }))),
      done ? over(view) : actions(view, token),
      el("p", {}, el("button", { type: "button", id: "leave", text: "Use another token" })));
    document.getElementById("leave").addEventListener("click", () => { stop(); askToken(""); });
    return done;
  }

  async function act(token, turnId, action) {
    if (sending) return;
    sending = true;
    for (const b of document.querySelectorAll("button.legal")) b.disabled = true;
    try {
      await call("/api/seat/act", token, { turn_id: Number(turnId), action });
    } catch (error) {
      page.append(el("p", { class: "error", text: error.message }));
    } finally {
      sending = false;
    }
    poll(token);
  }

  function stop() {
    if (timer) clearTimeout(timer);
    if (clock) clearInterval(clock);
    timer = null;
  }

  let shown = "";
  async function poll(token) {
    stop();
    let view;
    try {
      view = await call("/api/seat", token);
    } catch (error) {
      askToken(error.message);
      return;
    }
    const key = JSON.stringify(view);
    let done = view.status === "MATCH_STATUS_OVER";
    if (key !== shown && !sending) {  // redrawn only when it changed, so a button is not replaced under a click
      shown = key;
      done = render(view, token);
    }
    if (!done) timer = setTimeout(() => poll(token), POLL_MS);
  }

  function start() {
    const token = sessionStorage.getItem(KEY);
    if (token) poll(token); else askToken("");
  }

  start();
})();
