#!/usr/bin/env node
// A President bot in plain JavaScript: proof that the president.v1 gRPC contract is
// all a bot needs. It loads protos/president/v1/president.proto at run time (no
// generated code, no Python). With a seat token it plays that seat over the Play
// stream and exits 0 when the match is over; with an account token it plays every
// match of the account, many at once, over one Session stream, until Ctrl-C (or
// --matches N). Either way it resumes after a lost connection.
//
//   node examples/node/bot.js --server localhost:50051 --token SEAT_TOKEN
//   node examples/node/bot.js --server localhost:50051 --token DEV_SEAT_TOKEN --again
//   node examples/node/bot.js --server localhost:50051 --account-token ACCOUNT_TOKEN --arena
//
// Options: --proto PATH (the contract, default ../../protos/... from this file),
// --drop-after N (close the stream on the Nth prompt, once, and resume: a test of
// reconnection), --verbose (log every move), --again (a dev seat's token, make run's seat 0:
// play its match, then each next one, until Ctrl-C). With --account-token: --max-matches N,
// --arena, --preset P (repeatable), --players 4,5, --accept-challenges, --matches N.
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

// ---------------------------------------------------------------------------
// The contract, loaded from the .proto file
// ---------------------------------------------------------------------------

const DEFAULT_PROTO = path.join(__dirname, '..', '..', 'protos', 'president', 'v1', 'president.proto');

function loadService(protoPath) {
  const definition = protoLoader.loadSync(protoPath, {
    keepCase: true, // field names as in the .proto: turn_id, last_seq, legal_actions
    enums: String, // 'RANK_SEVEN' rather than 7
    longs: Number, // uint64 sequence numbers and turn ids fit a JS number
    defaults: true, // absent scalars and lists read as 0 / '' / []
    oneofs: true, // a oneof's `kind` property names the field that is set
  });
  return grpc.loadPackageDefinition(definition).president.v1.PresidentService;
}

// Errors carry a google.rpc.Status (trailer `grpc-status-details-bin`) whose details
// hold a google.rpc.ErrorInfo with a machine-readable `reason`. Two small messages,
// declared here so that no other .proto file is needed.
const rpcTypes = protobuf.Root.fromJSON({
  nested: {
    Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
    Status: {
      fields: {
        code: { type: 'int32', id: 1 },
        message: { type: 'string', id: 2 },
        details: { rule: 'repeated', type: 'Any', id: 3 },
      },
    },
    ErrorInfo: {
      fields: {
        reason: { type: 'string', id: 1 },
        domain: { type: 'string', id: 2 },
        metadata: { keyType: 'string', type: 'string', id: 3 },
      },
    },
  },
});

/** The ErrorInfo of a gRPC error, or null when the server sent none. */
function errorInfo(err) {
  const raw = err.metadata && err.metadata.get('grpc-status-details-bin')[0];
  if (!raw) return null;
  const status = rpcTypes.lookupType('Status').decode(raw);
  const detail = status.details.find((d) => d.type_url.endsWith('/google.rpc.ErrorInfo'));
  return detail ? rpcTypes.lookupType('ErrorInfo').decode(detail.value) : null;
}

function describeError(err) {
  const code = Object.keys(grpc.status).find((name) => grpc.status[name] === err.code) || String(err.code);
  const info = errorInfo(err);
  const reason = info ? ` ${info.reason}` : '';
  const extra = info && Object.keys(info.metadata).length ? ` ${JSON.stringify(info.metadata)}` : '';
  return `${code}${reason}: ${err.details || err.message}${extra}`;
}

// ---------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------

const RANK_TEXT = {
  RANK_TWO: '2', RANK_THREE: '3', RANK_FOUR: '4', RANK_FIVE: '5', RANK_SIX: '6', RANK_SEVEN: '7',
  RANK_EIGHT: '8', RANK_NINE: '9', RANK_TEN: '10', RANK_JACK: 'J', RANK_QUEEN: 'Q', RANK_KING: 'K',
  RANK_ACE: 'A', RANK_JOKER: 'JK',
};
const SUIT_TEXT = { SUIT_CLUBS: 'C', SUIT_DIAMONDS: 'D', SUIT_HEARTS: 'H', SUIT_SPADES: 'S', SUIT_UNSPECIFIED: '' };

const cardsText = (cards) => cards.map((c) => RANK_TEXT[c.rank] + SUIT_TEXT[c.suit]).join(' ');

function actionText(action) {
  switch (action.kind) {
    case 'play': return `play ${cardsText(action.play.cards)} as ${RANK_TEXT[action.play.rank]}`;
    case 'pass_turn': return 'pass';
    case 'give_back': return `give back ${cardsText(action.give_back.cards)}`;
    case 'request': return `request ${cardsText(action.request.cards) || 'nothing'}`;
    default: return String(action.kind);
  }
}

/** The action as a message to send: just the oneof field that is set. */
const outgoing = (action) => ({ [action.kind]: action[action.kind] });

// `1 match`, `2 matches`: a count with its noun in the right number.
const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------
// Strategy: always one of the prompt's legal actions, chosen by a few plain rules
// ---------------------------------------------------------------------------

class Strategy {
  constructor(rules) {
    this.rules = rules;
    this.wildRanks = new Set((rules.wild_ranks && rules.wild_ranks.ranks) || []);
  }

  isWild(card) {
    return (card.rank === 'RANK_JOKER' && this.rules.joker_wild) || this.wildRanks.has(card.rank);
  }

  /** How strong a rank is now: its place in the current (possibly revolved) order. */
  strength(rank, obs) {
    if (rank === 'RANK_JOKER') return this.rules.joker_alone === 'JOKER_ALONE_LOW' ? -1 : obs.rank_order.length;
    return obs.rank_order.indexOf(rank);
  }

  /** A card worth keeping: a wild card, a joker, or a card of the top rank. */
  isPrecious(card, obs) {
    return this.isWild(card) || this.strength(card.rank, obs) >= obs.rank_order.length - 1;
  }

  choose(prompt) {
    const obs = prompt.observation;
    const legal = prompt.legal_actions;
    switch (obs.phase) {
      case 'PHASE_REQUEST': return this.request(legal, obs);
      case 'PHASE_GIVE_BACK': return this.giveBack(legal, obs);
      default: return this.play(legal, obs);
    }
  }

  /** Norwegian exchange: name the strongest cards we do not hold (wild cards first). */
  request(legal, obs) {
    const value = (c) => this.strength(c.rank, obs) + (this.isWild(c) ? 100 : 0);
    return best(legal, (a) => {
      const cards = a.request.cards;
      return [-cards.length, -cards.reduce((sum, c) => sum + value(c), 0)];
    });
  }

  /** Give back the weakest cards, singles before cards that belong to a pair or more. */
  giveBack(legal, obs) {
    const held = countByRank(obs.hand);
    return best(legal, (a) => {
      const given = countByRank(a.give_back.cards);
      let broken = 0;
      for (const [rank, n] of given) if (n < held.get(rank)) broken += 1;
      const precious = a.give_back.cards.filter((c) => this.isPrecious(c, obs)).length;
      const weight = a.give_back.cards.reduce((sum, c) => sum + this.strength(c.rank, obs), 0);
      return [precious, broken, weight];
    });
  }

  /**
   * Trick play. Go out when one play empties the hand. Lead the lowest rank, the whole
   * group of it. Follow with the lowest play that keeps its rank together, or else that
   * splits a low rank; spend wild or top cards, or split a high rank, only near the end
   * (few cards left here, or an opponent about to go out), and pass otherwise.
   */
  play(legal, obs) {
    const plays = legal.filter((a) => a.kind === 'play');
    const pass = legal.find((a) => a.kind === 'pass_turn');
    if (plays.length === 0) return pass;
    const held = countByRank(obs.hand);
    const middle = obs.rank_order.length / 2;
    const judged = plays.map((a) => {
      const { cards, rank } = a.play;
      const wilds = cards.filter((c) => this.isWild(c) && c.rank !== rank).length;
      const strength = this.strength(rank, obs);
      return {
        action: a,
        out: cards.length === obs.hand.length,
        precious: wilds > 0 || cards.some((c) => this.isPrecious(c, obs)) || strength >= obs.rank_order.length - 1,
        breaks: cards.length - wilds < (held.get(rank) || 0),
        wilds,
        strength,
        size: cards.length,
      };
    });
    const finishing = judged.find((j) => j.out);
    if (finishing) return finishing.action;
    const ordinary = judged.filter((j) => !j.precious);
    if (!pass) { // leading: shed the lowest rank, all of it
      const lead = ordinary.length > 0 ? ordinary : judged;
      return best(lead, (j) => [j.wilds, j.strength, -j.size]).action;
    }
    const whole = ordinary.filter((j) => !j.breaks);
    if (whole.length > 0) return best(whole, (j) => [j.strength]).action;
    const lowSplit = ordinary.filter((j) => j.strength < middle);
    if (lowSplit.length > 0) return best(lowSplit, (j) => [j.strength]).action;
    const others = obs.hand_sizes.filter((_, player) => player !== obs.player && obs.hand_sizes[player] > 0);
    const endgame = obs.hand.length <= 4 || others.some((n) => n <= 2);
    if (!endgame) return pass;
    return best(judged, (j) => [j.precious ? 1 : 0, j.wilds, j.breaks ? 1 : 0, j.strength]).action;
  }
}

function countByRank(cards) {
  const counts = new Map();
  for (const c of cards) counts.set(c.rank, (counts.get(c.rank) || 0) + 1);
  return counts;
}

/** The item with the smallest key (keys are arrays compared element by element); the first on ties. */
function best(items, key) {
  let winner = null;
  let winnerKey = null;
  for (const item of items) {
    const k = key(item);
    if (winner === null || compareKeys(k, winnerKey) < 0) [winner, winnerKey] = [item, k];
  }
  return winner;
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// ---------------------------------------------------------------------------
// The Play stream
// ---------------------------------------------------------------------------

/** Codes after which trying again may work: the server restarted, or still holds our old stream. */
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.CANCELLED]);
/** Seat.run's answer for a dev seat's token between two matches (DEV_SEAT_WAITING), with --again. */
const WAITING = 'waiting';

class Seat {
  constructor(options) {
    this.options = options;
    this.player = undefined; // known from Welcome
    this.lastSeq = 0; // the last event seq seen: Hello.last_seq on a resume
    this.prompts = 0;
    this.accepted = 0;
    this.rejected = 0;
    this.dropPending = options.dropAfter > 0;
    this.resumedAtTurn = null;
    this.strategy = null;
    this.names = []; // each player's name, from Welcome
    this.current = null; // the open Play call
    this.stopping = false; // Ctrl-C with --again
    this.waitingFor = ''; // with --again, between two matches: the server's words
  }

  log(text) {
    process.stdout.write(`[node-bot${this.player === undefined ? '' : ` p${this.player}`}] ${text}\n`);
  }

  /**
   * One Play stream, from Hello to its end. Resolves to {over: result} after MatchOver,
   * {dropped: true} after our own test disconnect, or {error} when the stream failed.
   */
  stream(client, metadata) {
    return new Promise((resolve) => {
      const call = client.Play(metadata);
      this.current = call;
      let settled = false;
      let welcomed = false;
      let lastPrompt = null;
      const settle = (outcome) => {
        if (!settled) {
          settled = true;
          resolve({ ...outcome, welcomed });
        }
      };

      call.on('data', (message) => {
        switch (message.kind) {
          case 'welcome': {
            const w = message.welcome;
            welcomed = true;
            this.player = w.player;
            this.names = w.names;
            this.strategy = new Strategy(w.rules);
            this.log(`seated in match ${w.match_id} as player ${w.player} of ${w.names.length}` +
              (this.lastSeq ? ` (resuming after event ${this.lastSeq})` : ''));
            break;
          }
          case 'event': {
            const e = message.event;
            this.lastSeq = Math.max(this.lastSeq, e.seq);
            if (e.kind === 'deal_ended') {
              this.log(`deal ${e.deal_ended.deal} over: places ${e.deal_ended.places.join(',')}, ` +
                `totals ${e.deal_ended.totals.join(',')}`);
            }
            break;
          }
          case 'snapshot':
            this.lastSeq = Math.max(this.lastSeq, message.snapshot.last_seq);
            break;
          case 'prompt': {
            const prompt = message.prompt;
            lastPrompt = prompt;
            if (this.resumedAtTurn !== null) {
              this.log(`resumed: prompted again for turn ${prompt.turn_id} (dropped at turn ${this.resumedAtTurn})`);
              this.resumedAtTurn = null;
            }
            this.prompts += 1;
            if (this.dropPending && this.prompts >= this.options.dropAfter) {
              this.dropPending = false;
              this.resumedAtTurn = prompt.turn_id;
              this.prompts -= 1; // this prompt will come again on the new stream
              this.log(`dropping the connection at turn ${prompt.turn_id}, after event ${this.lastSeq}`);
              settle({ dropped: true });
              call.cancel();
              return;
            }
            const action = this.strategy.choose(prompt);
            if (this.options.verbose) this.log(`turn ${prompt.turn_id}: ${actionText(action)}`);
            call.write({ act: { turn_id: prompt.turn_id, action: outgoing(action) } });
            break;
          }
          case 'action_accepted':
            this.accepted += 1;
            break;
          case 'action_rejected': {
            const r = message.action_rejected;
            this.rejected += 1;
            this.log(`action for turn ${r.turn_id} rejected: ${r.reason} ${r.illegal_reason} ${r.message}`);
            // The turn stays open: fall back on the server's own first legal action.
            if (r.reason !== 'STALE_TURN' && lastPrompt && lastPrompt.turn_id === r.turn_id) {
              const fallback = lastPrompt.legal_actions[0];
              lastPrompt = null;
              call.write({ act: { turn_id: r.turn_id, action: outgoing(fallback) } });
            }
            break;
          }
          case 'match_over':
            settle({ over: message.match_over.result });
            call.end();
            break;
          default:
            break;
        }
      });
      call.on('error', (error) => settle({ error }));
      call.on('end', () => settle({ error: new Error('the server ended the stream before MatchOver') }));
      call.write({ hello: { last_seq: this.lastSeq } });
    });
  }

  async run(client, metadata) {
    let failures = 0;
    for (;;) {
      const outcome = await this.stream(client, metadata);
      if (outcome.over) {
        const r = outcome.over;
        const who = (p) => this.names[p] || `player ${p}`; // its name in the match, as the server says it
        const points = r.totals.map((t, p) => `${who(p)} ${t}`).join(', ');
        this.log(`match over: ${who(r.winner)} wins; points ${points}; ` +
          `${count(this.accepted, 'action', 'actions')} accepted, ${this.rejected} rejected`);
        return 0;
      }
      if (outcome.dropped) continue;
      if (this.stopping) return 0;
      const { error } = outcome;
      const info = error.code === undefined ? null : errorInfo(error);
      if (this.options.again && info && info.reason === 'DEV_SEAT_WAITING') {
        this.waitingFor = error.details;
        return WAITING;
      }
      const retryable = error.code === undefined || RETRYABLE.has(error.code);
      failures = outcome.welcomed ? 1 : failures + 1; // a stream that got as far as Welcome resets the count
      const message = error.code === undefined ? error.message : describeError(error);
      if (!retryable || failures > this.options.retries) {
        process.stderr.write(`node-bot: error: ${message}\n`);
        return 1;
      }
      const wait = Math.min(5000, 200 * 2 ** (failures - 1));
      this.log(`stream failed (${message}); reconnecting in ${wait} ms`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** --again: the dev seat's token plays its match, then each next one (a new Seat each), until Ctrl-C. */
async function playAgain(options, client, metadata) {
  let seat = null;
  let played = 0;
  let waiting = false;
  let wake = null;
  let stopping = false;
  process.on('SIGINT', () => {
    stopping = true;
    if (seat) seat.stopping = true;
    if (seat && seat.current) seat.current.cancel();
    if (wake) wake();
  });
  while (!stopping) {
    seat = new Seat(options);
    const code = await seat.run(client, metadata);
    if (stopping) break;
    if (code === WAITING) {
      if (!waiting) seat.log(`no match yet: ${seat.waitingFor} (--again waits for it; Ctrl-C stops)`);
      waiting = true;
      await new Promise((r) => { wake = r; setTimeout(r, 1000); });
    } else if (code !== 0) {
      return code;
    } else {
      played += 1;
      waiting = false;
    }
  }
  process.stdout.write(`[node-bot] stopped after ${count(played, 'match', 'matches')}\n`);
  return 0;
}

// ---------------------------------------------------------------------------
// The Session stream: every match of an account over one connection
// ---------------------------------------------------------------------------

/** One match of the account: its own strategy and what is needed to resume it. */
class AccountMatch {
  constructor(matchId) {
    this.matchId = matchId;
    this.player = undefined;
    this.strategy = null;
    this.lastSeq = 0; // MatchCursor.last_seq on a resume
    this.lastPrompt = null;
    this.answered = new Set(); // turn ids answered on the current connection
    this.accepted = 0;
    this.rejected = 0;
  }
}

class Account {
  constructor(options) {
    this.options = options;
    this.name = '';
    this.matches = new Map(); // match id -> AccountMatch, while it is played
    this.finished = [];
    this.prompts = 0;
    this.dropPending = options.dropAfter > 0;
    this.stopping = false;
  }

  log(text) {
    process.stdout.write(`[node-bot${this.name ? ` ${this.name}` : ''}] ${text}\n`);
  }

  /** What the bot accepts to play (the arena reads it). */
  appetite() {
    const { maxMatches, arena, presets, players } = this.options;
    return { presets, players, max_matches: maxMatches, arena };
  }

  /**
   * One Session, from SessionHello to its end. Resolves to {done: true} once --matches
   * matches are over, {dropped: true} after our own test disconnect, or {error}.
   */
  stream(client, metadata) {
    return new Promise((resolve) => {
      const call = client.Session(metadata);
      let settled = false;
      let welcomed = false;
      const settle = (outcome) => {
        if (!settled) {
          settled = true;
          resolve({ ...outcome, welcomed });
        }
      };
      this.current = call;
      for (const match of this.matches.values()) match.answered.clear();

      call.on('data', (message) => {
        switch (message.kind) {
          case 'welcome': {
            const w = message.welcome;
            welcomed = true;
            this.name = w.account;
            this.log(`session open: ${count(w.live_matches.length, 'live match', 'live matches')}` +
              (this.matches.size ? `, resuming ${this.matches.size}` : '') +
              (w.check_pending ? '; a check match against the house bots comes first' : ''));
            break;
          }
          case 'match':
            if (this.onUpdate(call, message.match)) {
              settle({ dropped: true });
              call.cancel();
            } else if (this.options.matches && this.finished.length >= this.options.matches) {
              settle({ done: true });
              call.end();
            }
            break;
          case 'challenge': {
            const c = message.challenge;
            const accept = this.options.acceptChallenges;
            this.log(`challenge ${c.challenge_id} from ${c.from} (${c.preset}): ${accept ? 'accepted' : 'declined'}`);
            call.write({ answer: { challenge_id: c.challenge_id, accept } });
            break;
          }
          case 'settled':
            this.log(`challenge ${message.settled.challenge_id}: ` +
              (message.settled.accepted ? `match ${message.settled.match_id}` : message.settled.reason));
            break;
          case 'notice':
            this.log(message.notice.message); // written for people; `reason` is the code for programs
            break;
          default:
            break;
        }
      });
      call.on('error', (error) => settle({ error }));
      call.on('end', () => settle({ error: new Error('the server ended the session') }));
      const resume = [...this.matches.values()].map((m) => ({ match_id: m.matchId, last_seq: m.lastSeq }));
      call.write({ hello: { accepts: this.appetite(), resume, defer_events: true } });
    });
  }

  /** The messages of one match, in order; true when the test disconnect is due. */
  onUpdate(call, update) {
    let match = this.matches.get(update.match_id);
    if (!match) {
      match = new AccountMatch(update.match_id);
      this.matches.set(update.match_id, match);
    }
    for (const message of update.messages) {
      switch (message.kind) {
        case 'welcome':
          match.player = message.welcome.player;
          match.strategy = new Strategy(message.welcome.rules);
          break;
        case 'event':
          match.lastSeq = Math.max(match.lastSeq, message.event.seq);
          break;
        case 'snapshot':
          match.lastSeq = Math.max(match.lastSeq, message.snapshot.last_seq);
          break;
        case 'prompt': {
          const prompt = message.prompt;
          match.lastPrompt = prompt;
          if (match.answered.has(prompt.turn_id)) break;
          this.prompts += 1;
          if (this.dropPending && this.prompts >= this.options.dropAfter) {
            this.dropPending = false;
            this.log(`dropping the connection at turn ${prompt.turn_id} of match ${match.matchId}`);
            return true;
          }
          match.answered.add(prompt.turn_id);
          const action = match.strategy.choose(prompt);
          if (this.options.verbose) {
            this.log(`match ${match.matchId} p${match.player} turn ${prompt.turn_id}: ${actionText(action)}`);
          }
          call.write({ act: { match_id: match.matchId, act: { turn_id: prompt.turn_id, action: outgoing(action) } } });
          break;
        }
        case 'action_accepted':
          match.accepted += 1;
          break;
        case 'action_rejected': {
          const r = message.action_rejected;
          match.rejected += 1;
          this.log(`match ${match.matchId}: action for turn ${r.turn_id} rejected: ${r.reason} ${r.message}`);
          const prompt = match.lastPrompt;
          if (r.reason !== 'STALE_TURN' && prompt && prompt.turn_id === r.turn_id) {
            match.lastPrompt = null;
            call.write({ act: { match_id: match.matchId, act: { turn_id: r.turn_id, action: outgoing(prompt.legal_actions[0]) } } });
          }
          break;
        }
        case 'match_over': {
          const r = message.match_over.result;
          this.matches.delete(match.matchId);
          this.finished.push({ match, result: r });
          const place = r.last_places.indexOf(match.player) + 1;
          this.log(`match ${match.matchId} over: player ${match.player} place ${place || '?'}, ` +
            `totals ${r.totals.join(',')}; ${count(match.accepted, 'action', 'actions')} accepted, ${match.rejected} rejected`);
          break;
        }
        default:
          break;
      }
    }
    return false;
  }

  summary() {
    const wins = this.finished.filter(({ match, result }) => result.winner === match.player).length;
    return `${count(this.finished.length, 'match', 'matches')} finished (${wins} won), ${this.matches.size} in play`;
  }

  async run(client, metadata) {
    let failures = 0;
    for (;;) {
      const outcome = await this.stream(client, metadata);
      if (outcome.done || this.stopping) return 0;
      if (outcome.dropped) continue;
      const { error } = outcome;
      const retryable = error.code === undefined || RETRYABLE.has(error.code);
      failures = outcome.welcomed ? 1 : failures + 1;
      const message = error.code === undefined ? error.message : describeError(error);
      if (!retryable || failures > this.options.retries) {
        process.stderr.write(`node-bot: error: ${message}\n`);
        return 1;
      }
      const wait = Math.min(5000, 200 * 2 ** (failures - 1));
      this.log(`session lost (${message}); reconnecting in ${wait} ms to resume ${this.matches.size} match(es)`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

const USAGE = 'usage: node bot.js --server HOST:PORT (--token SEAT_TOKEN | --account-token ACCOUNT_TOKEN\n' +
  '         [--max-matches N] [--arena] [--preset P]... [--players N,M] [--accept-challenges] [--matches N])\n' +
  '         [--again] [--drop-after N] [--verbose] [--proto PATH]';

function parseArgs(argv) {
  const options = {
    server: process.env.PRESIDENT_SERVER || 'localhost:50051', token: '', accountToken: '', dropAfter: 0, verbose: false, proto: DEFAULT_PROTO,
    retries: 8, again: false, maxMatches: 4, arena: false, presets: [], players: [], acceptChallenges: false, matches: 0,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      i += 1;
      return argv[i];
    };
    const count = (name) => {
      const n = Number.parseInt(value(), 10);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a whole number`);
      return n;
    };
    if (arg === '--server') options.server = value();
    else if (arg === '--token') options.token = value();
    else if (arg === '--account-token') options.accountToken = value();
    else if (arg === '--max-matches') options.maxMatches = count(arg);
    else if (arg === '--matches') options.matches = count(arg);
    else if (arg === '--arena') options.arena = true;
    else if (arg === '--accept-challenges') options.acceptChallenges = true;
    else if (arg === '--preset') options.presets.push(value());
    else if (arg === '--players') options.players = value().split(',').map((n) => Number.parseInt(n, 10));
    else if (arg === '--proto') options.proto = value();
    else if (arg === '--drop-after') options.dropAfter = Number.parseInt(value(), 10);
    else if (arg === '--verbose') options.verbose = true;
    else if (arg === '--again') options.again = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.token && !options.accountToken) options.accountToken = process.env.PRESIDENT_ACCOUNT_TOKEN || '';
  if (!options.token === !options.accountToken) throw new Error('give --token or --account-token (one of them)');
  if (options.again && !options.token) throw new Error("--again plays a dev seat's --token match after match");
  if (options.players.some((n) => !Number.isInteger(n))) throw new Error('--players needs numbers, e.g. 4,5');
  if (!Number.isInteger(options.dropAfter) || options.dropAfter < 0) throw new Error('--drop-after needs a whole number');
  return options;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`node-bot: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  const PresidentService = loadService(options.proto);
  const client = new PresidentService(options.server, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${options.token || options.accountToken}`);
  try {
    if (options.token && options.again) return await playAgain(options, client, metadata);
    if (options.token) return await new Seat(options).run(client, metadata);
    const account = new Account(options);
    process.on('SIGINT', () => {
      account.stopping = true;
      account.log(`stopping: ${account.summary()}`);
      if (account.current) account.current.cancel();
    });
    const code = await account.run(client, metadata);
    if (code === 0 && !account.stopping) account.log(`done: ${account.summary()}`);
    return code;
  } finally {
    client.close();
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`node-bot: error: ${err.stack || err}\n`);
    process.exitCode = 1;
  },
);
