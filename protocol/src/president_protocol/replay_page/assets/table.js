/* President pages: cards, the table, the log. Shared by the live page and the replay.
   It renders only what it is given (the contract's messages in their JSON form, or the
   replay's frames, which the engine built): no rule of the game is decided here. */
"use strict";

window.President = (function () {
  const RANKS = {
    RANK_TWO: "2", RANK_THREE: "3", RANK_FOUR: "4", RANK_FIVE: "5", RANK_SIX: "6", RANK_SEVEN: "7",
    RANK_EIGHT: "8", RANK_NINE: "9", RANK_TEN: "10", RANK_JACK: "J", RANK_QUEEN: "Q", RANK_KING: "K",
    RANK_ACE: "A", RANK_JOKER: "JK",
  };
  const RANK_WORDS = {
    RANK_TWO: "two", RANK_THREE: "three", RANK_FOUR: "four", RANK_FIVE: "five", RANK_SIX: "six",
    RANK_SEVEN: "seven", RANK_EIGHT: "eight", RANK_NINE: "nine", RANK_TEN: "ten", RANK_JACK: "jack",
    RANK_QUEEN: "queen", RANK_KING: "king", RANK_ACE: "ace", RANK_JOKER: "joker",
  };
  const SUITS = {
    SUIT_CLUBS: { letter: "C", symbol: "\u2663", name: "clubs" },
    SUIT_DIAMONDS: { letter: "D", symbol: "\u2666", name: "diamonds" },
    SUIT_HEARTS: { letter: "H", symbol: "\u2665", name: "hearts" },
    SUIT_SPADES: { letter: "S", symbol: "\u2660", name: "spades" },
  };
  const SUIT_ORDER = ["SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES"];
  const ROLES = {
    ROLE_PRESIDENT: ["president", "President"], ROLE_VICE_PRESIDENT: ["vice_president", "Vice-President"],
    ROLE_VICE_SCUM: ["vice_scum", "Vice-Scum"], ROLE_SCUM: ["scum", "Scum"],
  };
  const RANK_BY_TEXT = Object.fromEntries(Object.entries(RANKS).map(([k, v]) => [v, k]));
  const SUIT_BY_LETTER = Object.fromEntries(Object.entries(SUITS).map(([k, v]) => [v.letter, k]));

  /** An element: el("div", {class: "x", text: "y", "data-card": "3C"}, child, [children], "text"). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  /** A card in the engine's text notation ("10H", "JK"). */
  function notation(card) {
    return card.rank === "RANK_JOKER" ? "JK" : RANKS[card.rank] + SUITS[card.suit].letter;
  }

  /** Cards written in the engine's notation ("3C 10H JK"), as the contract's Card objects. */
  function parseCards(text) {
    return text.split(/\s+/).filter(Boolean).map((word) =>
      word === "JK" ? { rank: "RANK_JOKER", suit: "SUIT_UNSPECIFIED" }
        : { rank: RANK_BY_TEXT[word.slice(0, -1)], suit: SUIT_BY_LETTER[word.slice(-1)] });
  }

  function cardEl(card, small) {
    const joker = card.rank === "RANK_JOKER";
    const suit = joker ? null : SUITS[card.suit];
    const label = joker ? "joker" : `${RANK_WORDS[card.rank]} of ${suit.name}`;
    return el("span", {
      class: `card ${joker ? "joker" : suit.name}${small ? " small" : ""}`, "data-card": notation(card),
      title: label, "aria-label": label, role: "img",
    }, el("span", { class: "rank", text: joker ? "JOKER" : RANKS[card.rank] }),
       el("span", { class: "suit", text: joker ? "\u2605" : suit.symbol }));
  }

  function cardsInline(cards) {
    return el("span", { class: "cards-inline" }, cards.map((c) => cardEl(c)));
  }

  /** Cards sorted weakest first in the normal rank order (`order`: rank names, low to high), jokers last. */
  function sorted(cards, order) {
    const place = (c) => (c.rank === "RANK_JOKER" ? 99 : order.indexOf(c.rank)) * 4 + SUIT_ORDER.indexOf(c.suit);
    return [...cards].sort((a, b) => place(a) - place(b));
  }

  function rankText(rank) { return RANKS[rank] || "?"; }

  function ordinal(n) {
    const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th";
    return `${n}${tail}`;
  }

  function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

  function roleEl(role) {
    const known = ROLES[role];
    return known ? el("span", { class: `role ${known[0]}`, text: known[1] }) : null;
  }

  function nameOf(names, player) { return names[player] ?? `player ${player}`; }

  function playEl(play) {
    return [cardsInline(play.cards),
      play.declared && play.declared !== "RANK_UNSPECIFIED" ? el("span", { class: "as", text: ` as ${rankText(play.declared)}` }) : null];
  }

  /** One event as a line of the log: {cls, parts}; null for an event not worth a line. */
  function describe(event, names) {
    const who = (p) => el("strong", { text: nameOf(names, p) });
    if (event.deal_started) {
      const d = event.deal_started;
      const roles = d.roles.map((r, p) => (ROLES[r] ? `${nameOf(names, p)} ${ROLES[r][1]}` : null)).filter(Boolean);
      return { cls: "deal", parts: [`Deal ${d.deal}: ${nameOf(names, d.dealer)} deals`, roles.length ? ` (${roles.join(", ")})` : ""] };
    }
    if (event.hand_dealt) return null;
    if (event.cards_requested) {
      const r = event.cards_requested;
      return { cls: "exchange", parts: [who(r.receiver), " asks ", who(r.giver), " for ",
        r.cards.length ? cardsInline(r.cards) : "nothing"] };
    }
    if (event.cards_given) {
      const g = event.cards_given;
      const what = g.cards ? cardsInline(g.cards.cards) : plural(g.count, "card");
      return { cls: "exchange", parts: [who(g.giver), g.tribute ? " pays tribute " : " gives back ", what, " to ", who(g.receiver)] };
    }
    if (event.play_started) return { cls: "lead", parts: [who(event.play_started.leader), " leads"] };
    if (event.played) return { cls: "play", parts: [who(event.played.player), " plays ", playEl(event.played.play)] };
    if (event.passed) return { cls: "pass", parts: [who(event.passed.player), event.passed.skipped ? " is skipped" : " passes"] };
    if (event.revolution_happened) {
      const r = event.revolution_happened;
      return { cls: "revolution", parts: [`Revolution! The rank order is ${r.reversed ? "reversed" : "back to normal"}`,
        r.direction < 0 ? "; play goes counter-clockwise" : ""] };
    }
    if (event.trick_won) {
      const t = event.trick_won;
      const next = t.next_leader !== undefined && t.next_leader !== t.winner ? [" (out of cards); ", who(t.next_leader), " leads"] : [];
      return { cls: "won", parts: ["Trick to ", who(t.winner), next] };
    }
    if (event.went_out) return { cls: "out", parts: [who(event.went_out.player), ` is out: ${ordinal(event.went_out.place)} place`] };
    if (event.deal_ended) {
      const d = event.deal_ended;
      return { cls: "deal", parts: [`Deal ${d.deal} over: `, d.places.map((p, i) =>
        `${i + 1}. ${nameOf(names, p)} (+${d.points[p]})`).join(", ")] };
    }
    if (event.match_ended) {
      const m = event.match_ended;
      return { cls: "deal", parts: ["Match over: ", who(m.winner), ` wins with ${plural(m.totals[m.winner], "point")}`] };
    }
    if (event.strike_recorded) {
      const s = event.strike_recorded;
      return { cls: "fault", parts: [who(s.player), ` ran out of time (strike ${s.strikes}); the server played for them`] };
    }
    if (event.seat_taken_over) return { cls: "fault", parts: [who(event.seat_taken_over.player), " is now played by the server"] };
    return null;
  }

  function logItem(event, names, now) {
    const line = describe(event, names);
    return line && el("li", { class: `ev-${line.cls}${now ? " now" : ""}` }, line.parts);
  }

  function statusStrip(view) {
    const obs = view.obs;
    const order = obs.rank_order;
    const phase = obs.phase === "PHASE_OVER" || view.dealOver ? "over"
      : obs.phase === "PHASE_PLAY" ? "play" : obs.phase === "PHASE_UNSPECIFIED" ? "" : "exchange";
    return el("div", { class: "status" },
      el("div", { class: "item" }, el("span", { class: "label", text: "Deal" }),
        el("strong", { text: view.deals ? `${obs.deal} of ${view.deals}` : `${obs.deal}` })),
      phase ? el("div", { class: "item" }, el("span", { class: "label", text: "Phase" }), el("strong", { text: phase })) : null,
      el("div", { class: "item" }, el("span", { class: "label", text: "Rank order" }),
        el("span", { class: "order", "aria-label": "rank order, weakest to strongest" },
          el("span", { class: "arrow", text: "weakest" }),
          order.map((r, i) => el("span", { class: `r${i === order.length - 1 ? " top" : ""}`, text: rankText(r) })),
          el("span", { class: "arrow", text: "strongest" }))),
      obs.reversed ? el("span", { class: "revolution", text: "Revolution: order reversed" }) : null,
      el("div", { class: "item" }, el("span", { class: "label", text: "Play goes" }),
        el("strong", { text: obs.direction < 0 ? "\u21BA counter-clockwise" : "\u21BB clockwise" })));
  }

  function felt(view) {
    const obs = view.obs;
    const names = view.names;
    const trick = obs.trick;
    let top = -1;
    trick.forEach((entry, i) => { if (entry.played) top = i; });
    const banners = [];
    if (view.result) {
      banners.push(el("div", { class: "banner" }, `${nameOf(names, view.result.winner)} wins the match with ${plural(view.result.totals[view.result.winner], "point")}`));
    } else if (view.dealOver) {
      banners.push(el("div", { class: "banner", text: `Deal ${obs.deal} is over` }));
    }
    if (view.stepEvents.some((e) => e.revolution_happened)) {
      banners.push(el("div", { class: "banner revolt", text: obs.reversed ? "Revolution! The rank order is reversed" : "Revolution! The rank order is back to normal" }));
    }
    if (view.wonBy !== null && view.wonBy !== undefined) {
      banners.push(el("div", { class: "banner", "data-won-by": view.wonBy, text: `Trick won by ${nameOf(names, view.wonBy)}` }));
    }
    const entries = trick.map((entry, i) => {
      if (entry.played) {
        return el("div", { class: `entry${i === top ? " top" : ""}` },
          el("div", { class: "who", text: nameOf(names, entry.played.player) }),
          el("div", { class: "what" }, entry.played.play.cards.map((c) => cardEl(c, true))),
          entry.played.play.declared !== "RANK_UNSPECIFIED" ? el("div", { class: "as", text: `as ${rankText(entry.played.play.declared)}` }) : null);
      }
      return el("div", { class: "entry pass" }, el("div", { class: "who", text: nameOf(names, entry.passed.player) }),
        el("div", { class: "what", text: entry.passed.skipped ? "skipped" : "pass" }));
    });
    const exchanging = ["PHASE_REQUEST", "PHASE_GIVE_BACK"].includes(obs.phase) && !view.dealOver;
    const lead = obs.to_act !== undefined && view.toActKnown ? `${nameOf(names, obs.to_act)} to lead` : "A new trick starts with a lead";
    const exchange = view.exchange.length ? el("div", { class: "exchange" }, el("span", { text: "Exchange:" }),
      view.exchange.map((g) => el("span", {}, `${nameOf(names, g.giver)} \u2192 ${nameOf(names, g.receiver)}: `,
        g.cards ? cardsInline(g.cards.cards) : plural(g.count, "card"), g.tribute ? " (tribute)" : " (given back)"))) : null;
    return el("section", { class: "felt", "aria-label": "the table" },
      el("h3", { text: view.trick ? `Trick ${view.trick}` : exchanging ? "Exchange" : "The table" }),
      banners,
      entries.length ? el("div", { class: "trick" }, entries)
        : el("div", { class: "empty", text: view.dealOver || view.result ? "" : exchanging ? "Cards change hands before play" : lead }),
      exchange);
  }

  /** What went wrong for a seat's bot (the server's counts), or nothing when all went well. */
  function faultTag(faults) {
    if (!faults) return null;
    const parts = [[faults.errors, "bot error"], [faults.timeouts, "bot timeout"], [faults.invalid, "illegal answer"],
      [faults.strikes, "clock strike"]].filter(([n]) => n > 0).map(([n, word]) => plural(n, word));
    return parts.length ? el("span", { class: "tag warn", "data-faults": "", text: parts.join(", ") }) : null;
  }

  function seatPanel(view, player, seat) {
    const obs = view.obs;
    const names = view.names;
    const place = obs.places.indexOf(player);
    const left = obs.hand_sizes[player] ?? 0;
    const mine = obs.trick.filter((e) => (e.played || e.passed).player === player);
    const passed = mine.length > 0 && mine[mine.length - 1].passed !== undefined;
    const hand = view.hands[player];
    const classes = ["seat"];
    const toAct = view.toActKnown && obs.to_act === player && !view.dealOver;
    if (view.actor === player) classes.push("actor");
    if (toAct) classes.push("to-act");
    if (view.viewer === player) classes.push("viewer");
    if (place >= 0) classes.push("out");
    const role = obs.roles[player];
    return el("article", { class: classes.join(" "), "data-player": player, "aria-label": `seat ${seat}: ${nameOf(names, player)}` },
      el("div", { class: "head" },
        el("span", { class: "name", text: nameOf(names, player) }),
        el("span", { class: "seatno", text: `seat ${seat}` }),
        el("span", { class: "points", text: plural(obs.scores[player] ?? 0, "pt") })),
      el("div", { class: "facts" },
        roleEl(role),
        el("span", { class: "tag", "data-cards-left": left, text: `${plural(left, "card")} left` }),
        place >= 0 ? el("span", { class: "tag place", text: `${ordinal(place + 1)} place` }) : null,
        toAct ? el("span", { class: "tag next", text: "to act" }) : null,
        view.actor === player ? el("span", { class: "tag last", text: "last move" }) : null,
        passed ? el("span", { class: "tag", text: "passed" }) : null,
        view.takenOver && view.takenOver.has(player) ? el("span", { class: "tag warn", text: "played by the server" }) : null,
        faultTag(view.faults && view.faults[player]),
        view.viewer === player ? el("span", { class: "tag", text: "you are here" }) : null),
      hand ? el("div", { class: "hand", "aria-label": "cards in hand" },
        hand.length ? sorted(hand, view.normalOrder).map((c) => cardEl(c)) : el("span", { class: "none", text: "no cards" }))
        : el("div", { class: "backs", "aria-label": "cards face down" },
          el("span", { class: "stack" }, Array.from({ length: Math.min(left, 13) }, () => el("span", { class: "card back small" }))),
          el("span", { class: "muted", text: left ? "face down" : "no cards" })));
  }

  function standings(view) {
    const obs = view.obs;
    const players = obs.scores.map((_, p) => p).sort((a, b) => (obs.scores[b] - obs.scores[a]) || (a - b));
    return el("div", { class: "box" }, el("h3", { text: "Points" }),
      el("table", { class: "standings" },
        el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Role" }), el("th", { class: "num", text: "Points" }))),
        el("tbody", {}, players.map((p) => el("tr", {},
          el("td", { text: nameOf(view.names, p) }), el("td", {}, roleEl(obs.roles[p]) || "\u2013"),
          el("td", { class: "num", text: obs.scores[p] }))))),
      view.result ? el("p", { class: "result" }, el("strong", { text: nameOf(view.names, view.result.winner) }), " wins the match") : null);
  }

  function logBox(view) {
    const now = new Set(view.stepEvents);
    const items = [];
    for (let i = view.log.length - 1; i >= 0 && items.length < 400; i--) {
      const item = logItem(view.log[i], view.names, now.has(view.log[i]));
      if (item) items.push(item);
    }
    return el("div", { class: "box" }, el("h3", { text: "What happened (newest first)" }),
      el("ul", { class: "log", "aria-live": "polite" }, items));
  }

  /** The whole match into `root`: status, the table, a panel per seat, points and the log. */
  function renderMatch(root, view) {
    const seats = view.obs.seats.map((player, seat) => seatPanel(view, player, seat));
    root.replaceChildren(
      statusStrip(view),
      el("div", { class: "layout" },
        el("div", {}, felt(view), el("div", { class: "seats" }, seats)),
        el("aside", { class: "side" }, standings(view), logBox(view))));
  }

  /** The bar on top of a page; `home` links the name to the match list and adds the links to the other pages
      (not in a replay file, which is read with no server). */
  function topbar(sub, right, home = true) {
    return el("header", { class: "topbar" }, el("div", { class: "inner" },
      el(home ? "a" : "span", { class: "brand", href: home ? "/" : null },
        el("span", { class: "suits", "aria-hidden": "true", text: "\u2660\u2665\u2666\u2663" }), "President"),
      el("span", { class: "sub" }, sub), el("span", { class: "right" }, right),
      home ? el("nav", { class: "nav", "aria-label": "pages" }, el("a", { href: "/", text: "Matches" }),
        el("a", { href: "/tournaments", text: "Tournaments" }), el("a", { href: "/versions", text: "Versions" }),
        el("a", { href: "/play", text: "Play a seat" })) : null));
  }

  /** A button that starts a match of `account`'s bot against the person and house bots on the board `preset`,
      `players` (a server with --human-seats) and takes the person to its seat on /play; the seat's token goes
      there in this tab's sessionStorage, never in an address. */
  function playAgainstButton(account, preset, players, text = "Play against") {
    const button = el("button", { type: "button", class: "play-against", text });
    button.addEventListener("click", async () => {
      button.disabled = true;
      const response = await fetch("/api/play-against", { method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify({ account, preset, players }) });
      const body = await response.json().catch(() => null);
      if (!response.ok) {
        button.disabled = false;
        button.after(el("span", { class: "error play-error", text: ` ${body && body.error ? body.error.message : response.statusText}` }));
        return;
      }
      sessionStorage.setItem("president-seat-token", body.token);
      window.location.assign("/play");
    });
    return button;
  }

  async function fetchJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error(body && body.error ? body.error.message : `${response.status} ${response.statusText}`);
    return body;
  }

  return { el, parseCards, describe, renderMatch, topbar, fetchJson, playAgainstButton, plural, nameOf, cardsInline, playEl, roleEl,
    sorted, ordinal };
})();
