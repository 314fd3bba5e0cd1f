/* The replay: a finished match step by step, every hand face up or through one seat's eyes.
   The frames come from the server (or are embedded in a replay file, which needs no server); the
   engine built each one, this page only shows them. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const page = document.getElementById("page");
  const SPEEDS = [["slow", 1200], ["normal", 600], ["fast", 250], ["fastest", 30]];
  const state = { data: null, index: 0, viewer: null, timer: null, delay: 600 };
  const controls = {};

  function framesOf(deal) {
    return state.data.frames.map((f, i) => [f, i]).filter(([f]) => f.observation.deal === deal);
  }

  function eventsOf(frame) {
    return state.viewer === null || !frame.seat_events ? frame.events : frame.seat_events[state.viewer];
  }

  /** The first frame of the deal that `index` is in: the log shows that deal from its start. */
  function dealStart(index) {
    const frames = state.data.frames;
    let i = index;
    while (i > 0 && !frames[i].events.some((e) => e.deal_started)) i--;
    return i;
  }

  function show(index) {
    const data = state.data;
    const frames = data.frames;
    state.index = Math.max(0, Math.min(frames.length - 1, index));
    const frame = frames[state.index];
    const viewer = state.viewer;
    const log = [];
    for (let i = dealStart(state.index); i <= state.index; i++) log.push(...eventsOf(frames[i]));
    const exchange = viewer === null ? frame.exchange : frame.seat_exchange ? frame.seat_exchange[viewer] : [];
    const last = state.index === frames.length - 1;
    P.renderMatch(controls.match, {
      names: data.names, deals: data.rules.deals || 0, obs: frame.observation, normalOrder: data.rules.rank_order.ranks,
      hands: frame.hands.map((text, p) => (viewer === null || viewer === p ? P.parseCards(text) : null)),
      exchange, stepEvents: eventsOf(frame), log, actor: frame.actor, toActKnown: true, wonBy: frame.won_by,
      dealOver: frame.deal_over, result: last ? data.result : null, trick: frame.trick, viewer,
      takenOver: new Set((data.taken_over || []).flatMap((taken, p) => (taken ? [p] : []))), faults: data.faults,
    });
    controls.slider.value = String(state.index);
    controls.position.textContent = `step ${state.index + 1} of ${frames.length}`;
    controls.deal.value = String(frame.observation.deal);
    fillTricks(frame.observation.deal);
    controls.trick.value = frame.won_by !== null || frame.deal_over ? String(state.index) : "";
    controls.now.replaceChildren(...nowLine(frame));
    if (last) pause();
  }

  function nowLine(frame) {
    const lines = eventsOf(frame).map((e) => P.describe(e, state.data.names)).filter(Boolean);
    if (!lines.length) return [el("span", { class: "muted", text: "The deal as dealt." })];
    return lines.map((line, i) => el("span", { class: `now-${line.cls}` }, i ? " \u00B7 " : "", line.parts));
  }

  function fillTricks(deal) {
    if (controls.trick.dataset.deal === String(deal)) return;
    controls.trick.dataset.deal = String(deal);
    const options = [el("option", { value: "", text: "Jump to a trick\u2026" })];
    for (const [frame, i] of framesOf(deal)) {
      if (frame.won_by !== null) {
        options.push(el("option", { value: String(i), text: `Trick ${frame.trick}: won by ${P.nameOf(state.data.names, frame.won_by)}` }));
      } else if (frame.deal_over) {
        options.push(el("option", { value: String(i), text: `Trick ${frame.trick}: the deal's end` }));
      }
    }
    controls.trick.replaceChildren(...options);
  }

  function play() {
    if (state.index >= state.data.frames.length - 1) show(0);
    controls.play.textContent = "\u275A\u275A Pause";
    controls.play.setAttribute("aria-pressed", "true");
    clearInterval(state.timer);
    state.timer = setInterval(() => show(state.index + 1), state.delay);
  }

  function pause() {
    clearInterval(state.timer);
    state.timer = null;
    controls.play.textContent = "\u25B6 Play";
    controls.play.setAttribute("aria-pressed", "false");
  }

  function button(text, title, action, attrs) {
    const b = el("button", { type: "button", title, "aria-label": title, text, ...attrs });
    b.addEventListener("click", action);
    return b;
  }

  function build() {
    const data = state.data;
    const frames = data.frames;
    const deals = [...new Set(frames.map((f) => f.observation.deal))];
    controls.play = button("\u25B6 Play", "play or pause", () => (state.timer ? pause() : play()),
      { class: "primary", id: "play" });
    controls.slider = el("input", { type: "range", min: "0", max: String(frames.length - 1), value: "0", "aria-label": "step" });
    controls.slider.addEventListener("input", () => { pause(); show(Number(controls.slider.value)); });
    controls.position = el("span", { class: "step", id: "position" });
    controls.deal = el("select", { "aria-label": "jump to a deal", id: "deal" },
      deals.map((d) => el("option", { value: String(d), text: `Deal ${d}` })));
    controls.deal.addEventListener("change", () => {
      pause();
      show(framesOf(Number(controls.deal.value))[0][1]);
    });
    controls.trick = el("select", { "aria-label": "jump to a trick", id: "trick" });
    controls.trick.addEventListener("change", () => {
      if (controls.trick.value !== "") { pause(); show(Number(controls.trick.value)); }
    });
    controls.viewer = el("select", { "aria-label": "whose eyes", id: "viewer" },
      el("option", { value: "", text: "Every hand face up" }),
      data.names.map((name, p) => el("option", { value: String(p), text: `Through ${name}'s eyes` })));
    controls.viewer.addEventListener("change", () => {
      state.viewer = controls.viewer.value === "" ? null : Number(controls.viewer.value);
      show(state.index);
    });
    const speed = el("select", { "aria-label": "speed", id: "speed" },
      SPEEDS.map(([name, ms]) => el("option", { value: String(ms), text: name, selected: ms === state.delay })));
    speed.addEventListener("change", () => {
      state.delay = Number(speed.value);
      if (state.timer) play();
    });
    controls.now = el("div", { class: "step-now", id: "now", "aria-live": "polite" });
    controls.match = el("section", { id: "match", "aria-label": "the match" });
    page.replaceChildren(
      el("div", { class: "controls", role: "toolbar", "aria-label": "replay controls" },
        button("\u21E4 Start", "first step", () => { pause(); show(0); }, { id: "first" }),
        button("\u25C0 Back", "step back", () => { pause(); show(state.index - 1); }, { id: "back" }),
        controls.play,
        button("Next \u25B6", "step forward", () => { pause(); show(state.index + 1); }, { id: "next" }),
        button("End \u21E5", "last step", () => { pause(); show(frames.length - 1); }, { id: "last" }),
        controls.slider, controls.position,
        controls.deal, controls.trick, controls.viewer, el("label", {}, "Speed", speed)),
      controls.now, controls.match);
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
      if (event.key === "ArrowRight") { pause(); show(state.index + 1); }
      else if (event.key === "ArrowLeft") { pause(); show(state.index - 1); }
      else if (event.key === " ") { event.preventDefault(); if (state.timer) pause(); else play(); }
    });
    show(0);
  }

  async function start() {
    const embedded = document.getElementById("replay-data");
    const matchId = embedded ? "" : decodeURIComponent(location.pathname.split("/")[2] || "");
    document.getElementById("topbar").replaceChildren(P.topbar(`Replay${matchId ? ` of match ${matchId}` : ""}`,
      null, !embedded));
    try {
      state.data = embedded ? JSON.parse(embedded.textContent) : await P.fetchJson(`/api/matches/${encodeURIComponent(matchId)}/replay`);
    } catch (error) {
      page.replaceChildren(el("div", { class: "notice error", role: "status", text: `This replay cannot be shown: ${error.message}` }));
      return;
    }
    const id = state.data.match_id;
    document.title = `President replay: ${state.data.names.join(", ")}`;
    if (embedded && id) document.getElementById("topbar").replaceChildren(P.topbar(`Replay of match ${id}`, null, false));
    build();
  }

  start();
})();
