/* An author's bot versions (/versions): each one's state, check matches, faults and arena ratings, and its build
   log; with the admin token, every account's (the organiser's view: who submitted what, whether it built, passed
   its check match, how often it faults and its last error).
   The account token is typed into the page and kept in this tab's sessionStorage only (Forget clears it); it
   is sent only as the Authorization header of the API's requests, never in an address. While a version waits
   for its build the page asks again every 3 seconds and draws it again only when the answer changed.
   A build log is the author's own text: it is shown as text (textContent), never as markup. */
"use strict";

(function () {
  const P = window.President;
  const el = P.el;
  const page = document.getElementById("page");
  const KEY = "president.accountToken";
  const POLL_MS = 3000;
  const STATES = {
    VERSION_STATE_QUEUED: ["waiting", "QUEUED"], VERSION_STATE_BUILDING: ["waiting", "BUILDING"],
    VERSION_STATE_READY: ["ready", "READY"], VERSION_STATE_FAILED: ["failed", "FAILED"],
    VERSION_STATE_RETIRED: ["over", "RETIRED"],
  };
  const WAITING = new Set(["VERSION_STATE_QUEUED", "VERSION_STATE_BUILDING"]);

  /** Why a request was refused, as the server says it ("BAD_TOKEN: ..."). */
  class Refused extends Error {}

  function stored() {
    try { return sessionStorage.getItem(KEY) || ""; } catch (error) { return ""; }
  }

  function store(token) {
    try {
      if (token) sessionStorage.setItem(KEY, token);
      else sessionStorage.removeItem(KEY);
    } catch (error) { /* storage refused (a private window): the token lives in the field only */ }
  }

  /** The API's answer to `url` (a GET, or `method`) with the token as the Authorization header; a refusal throws its reason. */
  async function fetchWithToken(url, token, method = "GET") {
    let response;
    try {
      response = await fetch(url, { method, headers: { Accept: "application/json", Authorization: `Bearer ${token}` },
        cache: "no-store", credentials: "omit" });
    } catch (error) {
      throw new Refused(`the server cannot be reached (${error.message})`);
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const error = body && body.error;
      const refused = new Refused(error ? `${error.reason}: ${error.message}` : `${response.status} ${response.statusText}`);
      refused.status = response.status;
      throw refused;
    }
    return body;
  }

  function when(timestamp) {
    const date = new Date(timestamp);
    return timestamp && !Number.isNaN(date.getTime()) ? date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "";
  }

  function fixed(value) {
    return value === null || value === undefined || !Number.isFinite(Number(value)) ? "\u2013" : Number(value).toFixed(2);
  }

  function matches(n) { return `${n} match${Number(n) === 1 ? "" : "es"}`; }

  // ------------------------------------------------------------------ the token

  const input = el("input", { type: "password", id: "token", autocomplete: "off", spellcheck: "false",
    placeholder: "the token CreateAccount gave, or the admin token", "aria-describedby": "token-help" });
  const show = el("button", { type: "submit", id: "show", text: "Show the versions" });
  const forget = el("button", { type: "button", id: "forget", text: "Forget the token" });
  // No name on the field and a POST form: even a submit the script missed would carry no token in an address.
  const form = el("form", { class: "token-form", id: "token-form", method: "post", autocomplete: "off" },
    el("label", { for: "token", text: "Token" }), input, show, forget);
  const help = el("p", { class: "muted", id: "token-help", text: "An account's token lists its versions; the"
    + " organiser's admin token lists every account's. Kept in this tab only (its session storage) and sent only as"
    + " the Authorization header; Forget clears it." });
  const refusal = el("div", { class: "notice error", id: "refusal", role: "status", hidden: true });
  const info = el("div", { class: "notice", id: "chosen", role: "status", hidden: true });
  const listing = el("section", { id: "versions" });
  const logBox = el("section", { id: "build-log", hidden: true });

  function refuse(text) {
    refusal.textContent = text;
    refusal.hidden = !text;
  }

  // ------------------------------------------------------------------ the versions

  function statePill(v) {
    const [cls, label] = STATES[v.state] || ["", v.state];
    return [el("span", { class: `pill ${cls}`, "data-state": v.state, text: label }),
      v.current ? [" ", el("span", { class: "pill current", "data-current": "", title: "the account's current version, which a host runs and the arena seats", text: "current" })] : null];
  }

  function duration(seconds) {
    return seconds < 90 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
  }

  function times(n) { return `${n} time${Number(n) === 1 ? "" : "s"}`; }

  /** What became of a built version's check matches against the house bots, and what comes next. */
  function checkText(v, withoutArena) {
    if (!v.player) return "\u2013";  // not built: it plays nothing
    const r = v.record || {};
    const failed = Number(r.checks_failed || 0);
    if (v.checked) return failed ? `passed, after failing ${times(failed)}` : "passed";
    if (withoutArena) return "none: no arena on this server";
    let said = "to come";
    if (failed) {
      said = `failed ${times(failed)}`;
      if (r.last_check_failed && (r.last_fault || "").startsWith(`check match ${r.last_check_id}:`)) {
        said += ` (the last, ${r.last_fault})`;
      }
    }
    if (v.state !== "VERSION_STATE_READY") return `${said}; retired`;
    if (!v.current) return `${said}; not current: only the current version is checked`;
    if (v.next_check_at) {
      const wait = Math.max(0, (new Date(v.next_check_at).getTime() - Date.now()) / 1000);
      return `${said}; next check in ${duration(wait)}, or sooner if its bot reconnects`;
    }
    return failed ? `${said}; next check as soon as its host plays it` : said;
  }

  /** Its faults over the moves it was to make in its finished matches ("\u2013" before any move). */
  function faultText(v) {
    const r = v.record;
    if (!r || !Number(r.moves)) return ["\u2013", ""];
    const f = r.faults || {};
    const [errors, timeouts, invalid, strikes] = [f.errors, f.timeouts, f.invalid, f.strikes].map((n) => Number(n || 0));
    const total = errors + timeouts + invalid + strikes;
    return [`${total} in ${r.moves} move${Number(r.moves) === 1 ? "" : "s"} (${(100 * total / Number(r.moves)).toFixed(1)}%)`,
      `${errors} errors, ${timeouts} time-outs, ${invalid} illegal answers, ${strikes} strikes in ${matches(r.matches)}`];
  }

  /** Why its build failed, else its last fault. */
  function lastError(v) {
    if (v.state === "VERSION_STATE_FAILED") return v.reason || "";
    return (v.record && v.record.last_fault) || "";
  }

  function ratingLine(r) {
    const place = r.mean_place === null ? "\u2013" : `${fixed(r.mean_place)} [${fixed(r.mean_place_low)}, ${fixed(r.mean_place_high)}]`;
    return el("div", { class: "rating", "data-preset": r.preset, "data-players": r.players },
      el("strong", { text: fixed(r.ordinal) }), ` ${r.preset}, ${r.players} players`,
      r.provisional ? [" ", el("span", { class: "pill waiting", text: "provisional" })] : null,
      el("div", { class: "muted", text: `#${r.rank} of ${r.of} \u00B7 ${matches(r.matches)} \u00B7 mean place ${place}` }));
  }

  function row(entry, token, answer) {
    const v = entry.version;
    const button = el("button", { type: "button", class: "log-button", "data-version": v.version_id, text: "Build log" });
    button.addEventListener("click", () => showLog(v.version_id, token));
    let output = null;
    if (v.player) {  // built: it may have been hosted, and printed something
      output = el("button", { type: "button", class: "output-button", "data-version": v.version_id, text: "Bot output" });
      output.addEventListener("click", () => showOutput(v.version_id, token, ""));
    }
    // the author's choice: the admin token makes no version current
    const choosable = !answer.every_account && !v.current
      && (v.state === "VERSION_STATE_READY" || v.state === "VERSION_STATE_RETIRED");
    let choose = null;
    if (choosable) {
      choose = el("button", { type: "button", class: "current-button", "data-version": v.version_id, text: "Make current" });
      choose.addEventListener("click", () => makeCurrent(v.version_id, token));
    }
    const [faults, faultDetail] = faultText(v);
    const r = v.record || {};
    return el("tr", { "data-version": v.version_id, "data-state": v.state, "data-account": v.account },
      answer.every_account ? el("td", { class: "account", text: v.account }) : null,
      el("td", {}, el("span", { class: "id", text: v.version_id }),
        v.player ? el("div", { class: "muted player", title: "the name it plays under", text: v.player }) : null),
      el("td", { class: "name", text: v.manifest.name }),
      el("td", {}, statePill(v)),
      el("td", { class: "muted", text: when(v.created_at) }),
      el("td", {}, el("span", { class: "id", title: v.sha256, text: v.sha256.slice(0, 12) })),
      el("td", { class: "check", "data-checks": Number(r.check_matches || 0), "data-failed": Number(r.checks_failed || 0),
        text: checkText(v, answer.without_arena) }),
      el("td", { class: "faults", title: faultDetail, text: faults }),
      el("td", { class: "reason", text: lastError(v) }),
      el("td", { class: "ratings" }, entry.ratings.length ? entry.ratings.map(ratingLine) : el("span", { class: "muted", text: "not rated" })),
      el("td", {}, button, output, choose));
  }

  function table(answer, token) {
    const all = answer.versions;
    const account = all.length ? all[0].version.account : "";
    const heading = answer.every_account ? `Every account's versions: ${all.length}`
      : all.length ? `Versions of ${account}: ${all.length}` : "Versions: none";
    const headers = ["Version", "Name", "State", "Submitted", "SHA-256", "Check match", "Faults", "Last error",
      "Arena rating", ""];
    return [el("h2", { id: "versions-heading", text: heading }),
      answer.without_arena ? el("p", { class: "notice", id: "no-arena", text: "This server runs without the arena: no"
        + " check match and no rated match comes here; versions play only challenges and the organiser's matches and"
        + " tournaments (president serve --arena runs it)." }) : null,
      all.length
      ? el("div", { class: "scroll" }, el("table", { class: "matches versions" },
        el("thead", {}, el("tr", {}, (answer.every_account ? ["Account", ...headers] : headers)
          .map((h) => el("th", { text: h })))),
        el("tbody", {}, all.map((entry) => row(entry, token, answer)))))
      : el("p", { class: "muted", text: answer.every_account ? "No account has submitted a version yet."
        : "This account has submitted no version yet: president submit DIR sends one." }),
    el("p", { class: "muted", text: "Current: the version a host runs and the arena seats: the one chosen last"
      + " (Make current, or president versions --current ID), unless a newer version became READY since."
      + " Check match: a READY version first plays the house bots; the arena rates it once it passes; after a"
      + " failed one the next waits, twice as long after each further failure, until its bot reconnects."
      + " Faults: errors, time-outs, illegal answers and strikes per move it was to make in its finished matches."
      + " Rating: OpenSkill's \u03BC \u2212 3\u03C3 on each arena leaderboard the version is on, with its rank there." })].filter((part) => part !== null);
  }

  let timer = null;
  let last = "";
  let generation = 0;

  async function load(token) {
    clearTimeout(timer);
    const mine = ++generation;
    let answer;
    try {
      answer = await fetchWithToken("/api/versions", token);
    } catch (error) {
      if (mine !== generation) return;
      refuse(`The versions cannot be listed: ${error.message}`);
      if (error.status === 401) {  // not an account's token: nothing to show, nothing to keep
        store("");
        last = "";
        listing.replaceChildren();
        logBox.hidden = true;
      } else if (last) {
        timer = setTimeout(() => load(token), POLL_MS);
      }
      return;
    }
    if (mine !== generation) return;  // forgotten, or another token asked since
    refuse("");
    store(token);
    const text = JSON.stringify(answer);
    if (text !== last) {
      last = text;
      listing.replaceChildren(...table(answer, token));
    }
    if (answer.versions.some((entry) => WAITING.has(entry.version.state))) timer = setTimeout(() => load(token), POLL_MS);
  }

  /** Make the version current, then list the versions again (a tournament may hold the choice back). */
  async function makeCurrent(versionId, token) {
    let answer;
    try {
      answer = await fetchWithToken(`/api/versions/${encodeURIComponent(versionId)}/current`, token, "POST");
    } catch (error) {
      refuse(`The version cannot be made current: ${error.message}`);
      return;
    }
    last = "";
    await load(token);
    info.textContent = answer.version.current ? `${versionId} is current.` : `${versionId} becomes current when`
      + " the running tournament that holds this account at its version ends.";
    info.hidden = false;
  }

  // ------------------------------------------------------------------ a build log

  async function showLog(versionId, token) {
    const pre = el("pre", { class: "build-log", id: "log-text", text: "loading\u2026" });
    const close = el("button", { type: "button", id: "close-log", text: "Close" });
    close.addEventListener("click", () => { logBox.hidden = true; logBox.replaceChildren(); });
    const heading = el("h2", { text: `Build log of ${versionId}` });
    const state = el("p", { class: "muted", id: "log-state" });
    logBox.replaceChildren(el("div", { class: "filter" }, heading, close), state, pre);
    logBox.hidden = false;
    let answer;
    try {
      answer = await fetchWithToken(`/api/versions/${encodeURIComponent(versionId)}/log`, token);
    } catch (error) {
      pre.remove();
      state.className = "notice error";
      state.textContent = `The build log cannot be shown: ${error.message}`;
      return;
    }
    const v = answer.version;
    heading.textContent = `Build log of ${v.version_id} (${v.manifest.name})`;
    state.replaceChildren(el("span", {}, statePill(v), v.reason ? ` ${v.reason}` : null));
    pre.textContent = answer.log || "(no build log yet)";  // the author's text, never parsed as markup
    logBox.scrollIntoView({ block: "nearest" });
  }

  // ------------------------------------------------------------------ a hosted bot's output

  /** What the version's bot printed during a finished match (`match`), or outside its matches (""). */
  async function showOutput(versionId, token, match) {
    const pre = el("pre", { class: "build-log", id: "output-text", text: "loading\u2026" });
    const close = el("button", { type: "button", id: "close-log", text: "Close" });
    close.addEventListener("click", () => { logBox.hidden = true; logBox.replaceChildren(); });
    const field = el("input", { type: "text", id: "output-match", value: match, spellcheck: "false",
      placeholder: "a match id (empty: outside its matches)", "aria-label": "Match id" });
    const show = el("button", { type: "submit", id: "output-show", text: "Show" });
    const pick = el("form", { class: "token-form", id: "output-form" }, field, show);
    pick.addEventListener("submit", (event) => {
      event.preventDefault();
      showOutput(versionId, token, field.value.trim());
    });
    const during = match ? `during match ${match}` : "outside its matches";
    const heading = el("h2", { text: `Output of ${versionId}, ${during}` });
    const state = el("p", { class: "muted", id: "output-state" });
    logBox.replaceChildren(el("div", { class: "filter" }, heading, close), pick, state, pre);
    logBox.hidden = false;
    const query = match ? `?match=${encodeURIComponent(match)}` : "";
    let answer;
    try {
      answer = await fetchWithToken(`/api/versions/${encodeURIComponent(versionId)}/output${query}`, token);
    } catch (error) {
      pre.remove();
      state.className = "notice error";
      state.textContent = `The output cannot be shown: ${error.message}`;
      return;
    }
    const lines = answer.lines || [];
    const held = Number(answer.held_back || 0);
    const dropped = Number(answer.dropped || 0);
    state.textContent = `${lines.length} line${lines.length === 1 ? "" : "s"}`
      + (held ? `, ${held} held back until the matches they were printed in are over` : "")
      + (dropped ? `, ${dropped} older ones left out` : "")
      + ". A hosted bot plays several matches at once: a match's output is what it printed while the match was played.";
    // the bot's own text, never parsed as markup
    pre.textContent = lines.map((line) => `${new Date(line.at).toISOString().slice(11, 23)} ${line.text}`).join("\n")
      || "(nothing)";
    logBox.scrollIntoView({ block: "nearest" });
  }

  // ------------------------------------------------------------------ the page

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) {
      refuse("Type the account's token first.");
      return;
    }
    load(token);
  });
  forget.addEventListener("click", () => {
    clearTimeout(timer);
    generation++;
    store("");
    input.value = "";
    last = "";
    listing.replaceChildren();
    logBox.hidden = true;
    logBox.replaceChildren();
    refuse("");
    info.hidden = true;
  });

  document.getElementById("topbar").replaceChildren(P.topbar("Bot versions", null));
  page.replaceChildren(el("section", { id: "token-section" }, el("h1", { text: "Bot versions" }), form, help),
    refusal, info, listing, logBox);
  const kept = stored();
  if (kept) {
    input.value = kept;
    load(kept);
  }
})();
