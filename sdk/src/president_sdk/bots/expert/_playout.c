/* The expert's playouts in C: rollout.py's policy and the engine's play loop, on rank counts for tables without
   suits or jokers (`finish`), and on cards for tables whose suits matter with one deck and at most one joker, as
   the Daifugo contest plays (`finish_suited`, the second half of this file).

   On such a table (no suit order, sequences or suit lock, no jokers, at most one wild rank) a play is a rank,
   a size and a number of wild cards, and a hand is its count of every rank and of wild cards.  This plays the
   same deal out as `Rollout` does on the engine's `Match` (rollout.py is the reference: tests/sdk/
   test_playout.py compares the two move for move).  The state comes from
   `president_engine.playout.playout_state`; the loop follows `Match._play`, `_pass`, `_next_seat`, `_end_trick`
   and `movegen.simple_plays` / `general_plays`, the policy `Rollout.choose` with `_Bosses`.
   Ranks are positions 0..12 in the normal order, seats indices.  Wild cards alone are declared (Rules allows wild
   ranks only so): as a lead they stand for the wild lead rank, as a follow for any natural rank that beats. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RANKS 13
#define MAX_SEATS 64
#define MAX_MOVES 100000
#define MAX_COPIES 28 /* of a rank, or wild cards in a hand: 7 decks */
#define FIGHT 2
#define RULE_COUNT 21

enum { ALL_PASS = 0, ALL_PASS_FINAL = 1, ONE_ORBIT = 2, PASS_COUNT = 3 };

typedef struct {
    int n, strict, mode, revolution, rev_four, rev_singles, rev_turns, equal_skip, leader_may_pass;
    int jack_back, six_reverse, eight_stop, six, eight, jack, fours;
    int declared, wild_lead, naturals, top, bottom;
} Rules;

typedef struct {
    int turn, table_pos, table_size, table_strength, rev, back, dir, last, last_play, leader, holders;
    int run_pos, run_len, nout;
    uint64_t mask;
    int size[MAX_SEATS];
    int out[MAX_SEATS];
    uint8_t count[MAX_SEATS][RANKS];
    int wild[MAX_SEATS];
    int held[RANKS];
    int held_wild;
    /* suited tables only (finish_suited): hands as card bits, the lock, passes in a row, the table's facts */
    uint64_t hand[MAX_SEATS];
    int lock, passes, table_rank, table_seq, table_lone, table_suits;
} Deal;

typedef struct { int pos, size, wilds; } Move; /* pos -1: a pass */

typedef struct {
    Move *legal, *groups, *spare; /* as many as a state's hands can have legal moves (`legal_bound`) */
    int *boss;
} Scratch;

static int natural(const Rules *r, int pos) { return pos >= 0 && pos < RANKS && (r->naturals >> pos & 1); }

/* Tables.strength: a rank's position in the order in force. */
static int strength(int pos, int reversed) { return reversed ? 12 - pos : pos; }

static int next_seat(const Rules *r, const Deal *d, int s) {
    if (r->mode == PASS_COUNT && __builtin_popcountll(d->mask) >= d->holders - 1) return -1;
    int t = s;
    for (int i = 0; i < r->n; i++) {
        t = ((t + d->dir) % r->n + r->n) % r->n;
        if (t == d->last && r->mode < ONE_ORBIT) return -1;
        if (!d->size[t]) continue;
        if (d->mask >> t & 1) {
            if (r->mode == ALL_PASS) return -1;
            continue;
        }
        return t;
    }
    return -1;
}

static int next_holder(const Rules *r, const Deal *d, int s) {
    int t = s;
    for (int i = 0; i < r->n; i++) {
        t = ((t + d->dir) % r->n + r->n) % r->n;
        if (d->size[t]) return t;
    }
    return -1;
}

static void start_trick(const Rules *r, Deal *d, int leader) {
    d->turn = d->leader = leader;
    d->table_pos = -1;
    d->table_size = 0;
    d->table_strength = -2;
    d->last = -1;
    d->mask = r->mode == ONE_ORBIT ? (uint64_t)1 << leader : 0;
    d->run_pos = -1;
    d->run_len = 0;
    d->back = 0;
    d->lock = 0;
    d->table_rank = -1;
    d->table_seq = d->table_lone = d->table_suits = 0;
}

static void end_trick(const Rules *r, Deal *d) {
    int winner = d->last;
    if (winner < 0) winner = d->last_play >= 0 ? d->last_play : d->leader;
    start_trick(r, d, d->size[winner] ? winner : next_holder(r, d, winner));
}

static int count_single(Deal *d, int size, int pos) {
    if (size == 1 && pos == d->run_pos) {
        d->run_len++;
    } else if (size == 1) {
        d->run_pos = pos;
        d->run_len = 1;
    } else {
        d->run_pos = -1;
        d->run_len = 0;
    }
    if (d->run_len >= 4) {
        d->run_pos = -1;
        d->run_len = 0;
        return 1;
    }
    return 0;
}

/* The end of Match._play once its effects are known: seat s going out (1 when that ends the deal), a stop, the
   `skips` seats an equal rank skips (equal_skip), the next seat or the trick's end. */
static int settle(const Rules *r, Deal *d, int s, int stops, int skips) {
    if (!d->size[s]) {
        d->out[d->nout++] = s;
        if (--d->holders == 1) {
            for (int t = 0; t < r->n; t++)
                if (d->size[t]) d->out[d->nout++] = t;
            return 1;
        }
    }
    if (stops) {
        end_trick(r, d);
        return 0;
    }
    int at = s;
    if (r->equal_skip) {
        for (int i = 0; i < skips; i++) {
            int skipped = next_seat(r, d, at);
            if (skipped < 0) break;
            d->mask |= (uint64_t)1 << skipped;
            at = skipped;
        }
    }
    int following = next_seat(r, d, at);
    if (following < 0) end_trick(r, d);
    else d->turn = following;
    return 0;
}

/* Seat s plays m (its natural cards of m->pos and m->wilds wild cards); 1 when the deal is over. */
static int play(const Rules *r, Deal *d, int s, const Move *m) {
    int beaten = d->table_pos, pos = m->pos, size = m->size, naturals = m->size - m->wilds;
    d->count[s][pos] -= naturals;
    d->held[pos] -= naturals;
    d->wild[s] -= m->wilds;
    d->held_wild -= m->wilds;
    d->size[s] -= size;
    d->table_pos = pos;
    d->table_size = size;
    d->last = d->last_play = s;
    if (r->mode == ALL_PASS) d->mask = 0;
    else if (r->mode == ONE_ORBIT) d->mask |= (uint64_t)1 << s;
    if (r->revolution) {
        int revolt = r->rev_four && size >= 4;
        if (r->rev_singles && count_single(d, size, pos)) revolt = 1;
        if (revolt) {
            d->rev ^= 1;
            if (r->rev_turns) d->dir = -d->dir;
        }
    }
    int stops = 0;
    if (r->jack_back && pos == r->jack) d->back ^= 1;
    if (r->six_reverse && pos == r->six) d->dir = -d->dir;
    if (r->eight_stop && pos == r->eight) stops = 1;
    d->table_strength = strength(pos, d->rev ^ d->back);
    return settle(r, d, s, stops, beaten >= 0 && beaten == pos ? size : 0);
}

static void pass(const Rules *r, Deal *d, int s) {
    d->mask |= (uint64_t)1 << s;
    if (r->rev_singles) {
        d->run_pos = -1;
        d->run_len = 0;
    }
    int following = next_seat(r, d, s);
    if (following < 0) end_trick(r, d);
    else d->turn = following;
}

static int beats(const Rules *r, const Deal *d, int mine) {
    return mine > d->table_strength || (mine == d->table_strength && !r->strict);
}

/* movegen.simple_plays and general_plays without suits or jokers, in their order: by strength in the order in
   force, then size, then wild cards (the natural plays of a rank, then wild cards alone standing for it); a lead
   lists every size, a follow the table's size and then the pass. */
static int legal_moves(const Rules *r, const Deal *d, Move *out) {
    const uint8_t *c = d->count[d->turn];
    int w = d->wild[d->turn], rv = d->rev ^ d->back, k = 0, lead = d->table_pos < 0;
    for (int st = 0; st < RANKS; st++) {
        int pos = rv ? 12 - st : st;
        if (!lead && !beats(r, d, st)) continue;
        int alone_here = lead ? pos == r->wild_lead : natural(r, pos);
        int low = lead ? 1 : d->table_size, high = lead ? c[pos] + w : d->table_size;
        for (int size = low; size <= high; size++) {
            if (natural(r, pos))
                for (int wc = size > c[pos] ? size - c[pos] : 0; wc < size && wc <= w; wc++)
                    out[k++] = (Move){pos, size, wc};
            if (alone_here && size <= w) out[k++] = (Move){pos, size, size};
        }
    }
    if (!lead || r->leader_may_pass) out[k++] = (Move){-1, 0, 0};
    return k;
}

/* _Bosses.is_boss: no `size` cards still out (`out` naturals, `wilds`) beat `size` cards at `at`. */
static int is_boss(const Rules *r, const int *out, int wilds, int reversed, int at, int size) {
    if (wilds >= size) return 0;
    int equal = r->strict ? 0 : 1;
    int from = reversed ? 0 : at + 1 - equal, to = reversed ? at + equal : RANKS;
    for (int i = from; i < to; i++)
        if ((i != at || equal) && out[i] && out[i] + wilds >= size) return 0;
    return 1;
}

static int runs_out(const Rules *r, const Deal *d, int me, const Move *m, const int *out, int wilds,
                    int reversed) {
    int losers = 0;
    for (int at = 0; at < RANKS; at++) {
        int count = d->count[me][at] - (at == m->pos ? m->size - m->wilds : 0);
        if (count && !is_boss(r, out, wilds, reversed, at, count) && ++losers > 1) return 0;
    }
    if (d->wild[me] - m->wilds > 0 && r->declared) losers++;
    return losers <= 1;
}

static int fight(const Rules *r, const Deal *d, int me) {
    int groups = d->wild[me] > 0;
    for (int at = 0; at < RANKS; at++) groups += d->count[me][at] > 0;
    if (groups <= FIGHT) return 1;
    for (int p = 0; p < r->n; p++)
        if (p != me && d->size[p] > 0 && d->size[p] <= FIGHT) return 1;
    return 0;
}

static int kept(const Rules *r, const Move *m, int top) {
    return (r->fours && m->size >= 4) || m->pos == top || m->wilds > 0;
}

/* Rollout.choose. */
static Move choose(const Rules *r, const Deal *d, const Scratch *w, int nlegal) {
    static const Move PASS = {-1, 0, 0};
    const Move *legal = w->legal;
    if (nlegal == 1) return legal[0];
    int me = d->turn;
    const uint8_t *hand = d->count[me];
    Move *groups = w->groups, *spare = w->spare;
    int ng = 0;
    for (int i = 0; i < nlegal && legal[i].pos >= 0; i++) {
        if (legal[i].size == d->size[me]) return legal[i];
        int naturals = legal[i].size - legal[i].wilds;
        if (!naturals || hand[legal[i].pos] == naturals) groups[ng++] = legal[i];
    }
    int lead = d->table_pos < 0;
    if (!ng) return lead || fight(r, d, me) ? legal[0] : PASS;
    int out[RANKS];
    for (int at = 0; at < RANKS; at++) out[at] = d->held[at] - hand[at];
    int wilds = d->held_wild - d->wild[me];
    int reversed = d->rev;
    for (int i = 0; i < ng; i++) { /* beaten() is False: a natural rank's play that is a boss */
        w->boss[i] = natural(r, groups[i].pos) && is_boss(r, out, wilds, reversed, groups[i].pos, groups[i].size);
        if (w->boss[i] && runs_out(r, d, me, &groups[i], out, wilds, reversed)) return groups[i];
    }
    int top = reversed ? r->bottom : r->top;
    int ns = 0;
    for (int i = 0; i < ng; i++)
        if (!kept(r, &groups[i], top) && !(groups[i].size > 1 && w->boss[i])) spare[ns++] = groups[i];
    if (!ns)
        for (int i = 0; i < ng; i++)
            if (!kept(r, &groups[i], top)) spare[ns++] = groups[i];
    if (lead) {
        if (!ns) return groups[0];
        for (int i = 0; i < ns && i < 3; i++) {
            int exposed = 0;
            for (int p = 0; p < r->n; p++)
                if (p != me && d->size[p] && d->size[p] == spare[i].size) exposed = 1;
            if (!exposed) return spare[i];
        }
        return spare[0];
    }
    if (ns) return spare[0];
    return fight(r, d, me) ? groups[0] : PASS;
}

static int read_ints(PyObject *seq, int *out, Py_ssize_t want, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (want >= 0 && n != want) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: %zd numbers, expected %zd", what, n, want);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n && i < MAX_SEATS; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

/* The players in finishing order, as a tuple. */
static PyObject *places_of(const Deal *d, const int *players) {
    PyObject *places = PyTuple_New(d->nout);
    if (places == NULL) return NULL;
    for (int i = 0; i < d->nout; i++) {
        PyObject *player = PyLong_FromLong(players[d->out[i]]);
        if (player == NULL) {
            Py_DECREF(places);
            return NULL;
        }
        PyTuple_SET_ITEM(places, i, player);
    }
    return places;
}

static PyObject *run(const Rules *r, Deal *d, const int *players, Move first, PyObject *moves, const Scratch *w) {
    int over = 0;
    for (int step = 0; !over; step++) {
        if (step >= MAX_MOVES) {
            PyErr_SetString(PyExc_RuntimeError, "the compiled playout did not end");
            return NULL;
        }
        Move m = step == 0 && first.size >= 0 ? first : choose(r, d, w, legal_moves(r, d, w->legal));
        if (moves != NULL) {
            PyObject *entry = Py_BuildValue("(iiii)", players[d->turn], m.pos, m.size, m.wilds);
            if (entry == NULL || PyList_Append(moves, entry) < 0) {
                Py_XDECREF(entry);
                return NULL;
            }
            Py_DECREF(entry);
        }
        if (m.pos < 0) pass(r, d, d->turn);
        else over = play(r, d, d->turn, &m);
    }
    return places_of(d, players);
}

/* At most this many legal moves in any state the hands of `d` lead to: a rank's lead lists every size up to its
   cards and the wild cards, each with every number of wild cards, and the pass. */
static size_t legal_bound(const Rules *r, const Deal *d) {
    int most = 0, wilds = 0;
    for (int s = 0; s < r->n; s++) {
        for (int at = 0; at < RANKS; at++) most = d->count[s][at] > most ? d->count[s][at] : most;
        wilds = d->wild[s] > wilds ? d->wild[s] : wilds;
    }
    return (size_t)RANKS * (most + wilds) * (wilds + 2) + 2;
}

static int seat_or_none(const Rules *r, int s) { return s >= -1 && s < r->n; }

/* The holders are the seats with cards, the seats out every other one, each once. */
static int valid_seats(const Rules *r, const Deal *d) {
    int holding = 0;
    uint64_t out = 0;
    for (int s = 0; s < r->n; s++) holding += d->size[s] > 0;
    if (d->nout > r->n) return 0; /* read_ints kept the first MAX_SEATS only */
    for (int i = 0; i < d->nout; i++) {
        int s = d->out[i];
        if (s < 0 || s >= r->n || d->size[s] || (out >> s & 1)) return 0;
        out |= (uint64_t)1 << s;
    }
    return holding >= 2 && holding == d->holders && d->nout + holding == r->n;
}

/* The numbers a state of `playout_state` can hold, consistent with one another (so the loop always ends), and a
   first move of the hand to act (its legality against the table is the caller's: an action the engine listed). */
static int valid(const Rules *r, const Deal *d, const Move *first) {
    if (d->turn < 0 || d->turn >= r->n || !d->size[d->turn] || (d->dir != 1 && d->dir != -1) ||
        !seat_or_none(r, d->last) || !seat_or_none(r, d->last_play) || d->leader < 0 || d->leader >= r->n ||
        d->table_pos < -1 || d->table_pos >= RANKS || (d->table_pos < 0) != (d->table_size == 0) ||
        d->table_size < 0 || d->run_pos < -1 || d->run_pos >= RANKS || d->run_len < 0)
        return 0;
    if (!valid_seats(r, d)) return 0;
    if (first->size < 0) return first->size == -1;
    if (first->pos == -1) return first->size == 0 && first->wilds == 0;
    return first->pos >= 0 && first->pos < RANKS && first->size > 0 && first->wilds >= 0 &&
           first->wilds <= first->size && first->wilds <= d->wild[d->turn] &&
           first->size - first->wilds <= d->count[d->turn][first->pos];
}

static PyObject *finish(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rules_seq, *out_seq, *players_seq, *trace, *result = NULL;
    Py_buffer counts, wilds;
    Move first;
    unsigned long long mask;
    Rules r;
    Deal d;
    int v[RULE_COUNT], players[MAX_SEATS];
    memset(&d, 0, sizeof d);
    if (!PyArg_ParseTuple(args, "O(iiiiiiiKiiiiiiOOy*y*)(iii)O", &rules_seq, &d.turn, &d.table_pos, &d.table_size,
                          &d.table_strength, &d.rev, &d.back, &d.dir, &mask, &d.last, &d.last_play, &d.leader,
                          &d.holders, &d.run_pos, &d.run_len, &out_seq, &players_seq, &counts, &wilds, &first.pos,
                          &first.size, &first.wilds, &trace))
        return NULL;
    d.mask = mask;
    if (read_ints(rules_seq, v, RULE_COUNT, "rules") < 0) goto done;
    r = (Rules){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15],
                v[16], v[17], v[18], v[19], v[20]};
    if (r.n < 2 || r.n > MAX_SEATS || counts.len != (Py_ssize_t)r.n * RANKS || wilds.len != r.n) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout takes 2..64 seats, 13 counts and a wild count each");
        goto done;
    }
    if (read_ints(players_seq, players, r.n, "players by seat") < 0) goto done;
    d.nout = read_ints(out_seq, d.out, -1, "seats out");
    if (d.nout < 0) goto done;
    const uint8_t *bytes = counts.buf, *wild = wilds.buf;
    for (int s = 0; s < r.n; s++) {
        for (int at = 0; at < RANKS; at++) {
            d.count[s][at] = bytes[s * RANKS + at];
            d.size[s] += d.count[s][at];
            d.held[at] += d.count[s][at];
            if (d.count[s][at] > MAX_COPIES) goto too_many;
        }
        d.wild[s] = wild[s];
        d.size[s] += wild[s];
        d.held_wild += wild[s];
        if (wild[s] > MAX_COPIES) goto too_many;
    }
    if (!valid(&r, &d, &first)) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout was given a state or a first move out of range");
        goto done;
    }
    if (trace != Py_None && !PyList_Check(trace)) {
        PyErr_SetString(PyExc_TypeError, "trace must be a list or None");
        goto done;
    }
    size_t bound = legal_bound(&r, &d);
    char *memory = PyMem_Malloc(bound * (3 * sizeof(Move) + sizeof(int)));
    if (memory == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Move *moves = (Move *)memory;
    Scratch w = {moves, moves + bound, moves + 2 * bound, (int *)(moves + 3 * bound)};
    result = run(&r, &d, players, first, trace == Py_None ? NULL : trace, &w);
    PyMem_Free(memory);
    goto done;
too_many:
    PyErr_SetString(PyExc_ValueError, "the compiled playout takes at most 28 cards of a rank and 28 wild cards");
done:
    PyBuffer_Release(&counts);
    PyBuffer_Release(&wilds);
    return result;
}

/* ---- Suited tables: one deck, at most one joker, no wild ranks and no suit order, so that suits matter only
   through sequences and the suit lock (the Daifugo contest's table; joker cells and the spade 3 as the rules say).
   A card is bit `slot` of a hand (president_engine.cards: (rank - 2) * 4 + suit, the joker 52); a rank is its
   index rank - 2 (0 the 2, 1 the 3 .. 12 the ace), 13 the joker's (jokers alone); column c of the contest's table
   (1..13: the 3 .. the 2; 0 and 14 a sequence's joker beyond its ends) holds rank c, the 2 at 13.  The loop
   follows Match._play, _effects, _revolution_check and _pass; the moves movegen.shaped_plays, general_plays and
   sequence_plays, in their order; the policy Rollout.choose with _Bosses on each rank's cards.  A pass limit
   reached ends the playout with None: its random places are the engine's to draw. */

#define JOKER_RANK 13
#define JOKER_BIT ((uint64_t)1 << 52)
#define CARD_BITS (((uint64_t)1 << 53) - 1)
#define FIFTH_ROW 16
#define HAS_EIGHT 1
#define HAS_JACK 2
#define HAS_SIX 4
#define SUITED_RULE_COUNT (21 + 2 * RANKS)
#define MAX_PLAYS 16384 /* more than any hand of 53 cards lists: its groups, cells and sequences */

typedef struct {
    Rules base; /* what the trick loop above reads */
    int high_jokers, joker_wild, joker_cells, sequences, suit_lock, spade_three, pass_limit, joker_strength;
    int str[2][RANKS]; /* each rank's strength in the normal and the reversed order (Rules.strength) */
    int at_strength[2][RANKS]; /* the rank of each strength in either order */
} Suited;

typedef struct {
    uint64_t cards;
    int rank, cell_col, cell_suit; /* rank -1: a pass; cell_col -1: no cell; cell_suit 4: the fifth row */
    int size, jokers, seq, lone, suits, marks;
    int strength[2], bottom[2];
} SPlay;

typedef struct {
    uint64_t key; /* a sequence's place in the listed order (sequence_plays' sort key, then as generated) */
    SPlay play;
} Keyed;

static SPlay legal_plays[MAX_PLAYS]; /* the GIL is held throughout a playout: one scratch serves every call */
static Keyed keyed_plays[MAX_PLAYS];

static const SPlay PASS_PLAY = {0, -1, -1, -1, 0, 0, 0, 0, 0, 0, {0, 0}, {0, 0}};

static int column_of(int rank) { return rank == 0 ? 13 : rank; }
static int rank_of_column(int column) { return column == 13 ? 0 : column; }
static uint64_t card_bit(int rank, int suit) { return (uint64_t)1 << (rank * 4 + suit); }
static int suits_of(uint64_t hand, int rank) { return (int)(hand >> (rank * 4) & 15); }
static int position(const Suited *r, int rank) { return r->str[0][rank]; } /* in the normal order: _Bosses' index */

static int mark_of(int rank) {
    return rank == 6 ? HAS_EIGHT : rank == 9 ? HAS_JACK : rank == 4 ? HAS_SIX : 0;
}

/* Tables.facts_of: a play's strength and weakest end in both orders, suit set and marks. */
static void facts(const Suited *r, SPlay *p) {
    p->size = __builtin_popcountll(p->cards);
    p->jokers = (p->cards & JOKER_BIT) != 0;
    p->lone = p->rank == JOKER_RANK;
    p->seq = p->suits = p->marks = 0;
    if (p->lone) {
        p->strength[0] = p->strength[1] = p->bottom[0] = p->bottom[1] = r->joker_strength;
        return;
    }
    int ranks = 0, low = 99, high = -1;
    for (uint64_t rest = p->cards & ~JOKER_BIT; rest; rest &= rest - 1) {
        int slot = __builtin_ctzll(rest), column = column_of(slot / 4);
        ranks |= 1 << (slot / 4);
        p->suits |= 1 << (slot % 4);
        low = column < low ? column : low;
        high = column > high ? column : high;
    }
    if (p->cell_col >= 0) {
        low = p->cell_col < low ? p->cell_col : low;
        high = p->cell_col > high ? p->cell_col : high;
        p->suits |= p->cell_suit == 4 ? FIFTH_ROW : 1 << p->cell_suit;
    }
    p->seq = __builtin_popcount(ranks) > 1;
    if (p->seq) { /* compared by its ends (UECDA 4.3) */
        p->bottom[0] = low - 1;
        p->bottom[1] = 13 - high;
        p->strength[0] = high - 1;
        p->strength[1] = 13 - low;
        for (int column = low > 1 ? low : 1; column <= (high < 13 ? high : 13); column++)
            p->marks |= mark_of(rank_of_column(column));
    } else {
        p->strength[0] = p->bottom[0] = r->str[0][p->rank];
        p->strength[1] = p->bottom[1] = r->str[1][p->rank];
        p->marks = mark_of(p->rank);
    }
}

static SPlay make_play(const Suited *r, uint64_t cards, int rank, int cell_col, int cell_suit) {
    SPlay p = {cards, rank, cell_col, cell_suit, 0, 0, 0, 0, 0, 0, {0, 0}, {0, 0}};
    facts(r, &p);
    return p;
}

static int follows(const Suited *r, int mine, int table) { return mine > table || (mine == table && !r->base.strict); }

static int by_size_jokers_cards(const void *a, const void *b) {
    const SPlay *x = a, *y = b;
    if (x->size != y->size) return x->size - y->size;
    if (x->jokers != y->jokers) return x->jokers - y->jokers;
    return x->cards < y->cards ? -1 : x->cards > y->cards;
}

/* general_plays for one natural rank (by size, jokers, then cards) with shaped_plays' joker cells. */
static int rank_moves(const Suited *r, uint64_t hand, int rank, int need, SPlay *out, int k) {
    SPlay plays[32];
    int n = 0, suits = suits_of(hand, rank), joker = r->joker_wild && (hand & JOKER_BIT);
    for (int sub = suits; sub; sub = (sub - 1) & suits) {
        uint64_t cards = (uint64_t)sub << (rank * 4);
        for (int j = 0; j <= joker; j++) {
            uint64_t with = j ? cards | JOKER_BIT : cards;
            if (need && __builtin_popcountll(with) != need) continue;
            plays[n++] = (SPlay){with, rank, -1, -1, __builtin_popcountll(with), j, 0, 0, 0, 0, {0, 0}, {0, 0}};
        }
    }
    qsort(plays, n, sizeof plays[0], by_size_jokers_cards); /* distinct cards: no ties */
    for (int i = 0; i < n; i++) {
        if (plays[i].jokers && r->joker_cells) {
            int natural = (int)(plays[i].cards >> (rank * 4) & 15), free = 0;
            for (int suit = 0; suit < 4; suit++)
                if (!(natural >> suit & 1)) {
                    out[k++] = make_play(r, plays[i].cards, rank, column_of(rank), suit);
                    free = 1;
                }
            if (!free) out[k++] = make_play(r, plays[i].cards, rank, column_of(rank), 4);
        } else {
            out[k++] = make_play(r, plays[i].cards, rank, -1, -1);
        }
    }
    return k;
}

/* general_plays: every rank's plays by strength in the order in force, jokers alone at theirs. */
static int group_moves(const Suited *r, const Deal *d, uint64_t hand, int rv, SPlay *out, int k) {
    int lead = d->table_size == 0, need = d->table_size;
    for (int st = -1; st <= RANKS; st++) {
        if (st == r->joker_strength && (hand & JOKER_BIT) && (lead || (need == 1 &&
                                                                       follows(r, st, d->table_strength))))
            out[k++] = make_play(r, JOKER_BIT, JOKER_RANK, -1, -1);
        if (st < 0 || st >= RANKS) continue;
        int rank = r->at_strength[rv][st];
        if (!suits_of(hand, rank) || (!lead && !follows(r, st, d->table_strength))) continue;
        k = rank_moves(r, hand, rank, need, out, k);
    }
    return k;
}

static int by_key(const void *a, const void *b) {
    const Keyed *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* sequence_plays: every run of three or more of one suit, the joker in a gap, beyond an end or for a card held. */
static int sequence_moves(const Suited *r, const Deal *d, uint64_t hand, int rv, SPlay *out, int k) {
    int lead = d->table_size == 0, need = d->table_size, joker = r->joker_wild && (hand & JOKER_BIT), found = 0;
    uint64_t suit_cards = 0x1111111111111ULL; /* the clubs of every rank; << suit: that suit's */
    for (int suit = 0; suit < 4; suit++) {
        if (__builtin_popcountll(hand & suit_cards << suit) + joker < (lead ? 3 : need)) continue; /* no run */
        int present[15] = {0};
        for (int column = 1; column <= 13; column++)
            present[column] = (hand & card_bit(rank_of_column(column), suit)) != 0;
        for (int low = 0; low < 15; low++) {
            int absent = 0, gap = -1;
            uint64_t bits = 0;
            for (int high = low; high < 15; high++) {
                if (present[high]) {
                    bits |= card_bit(rank_of_column(high), suit);
                } else {
                    gap = high;
                    if (++absent > joker) break;
                }
                int length = high - low + 1;
                if (length < 3 || (!lead && length != need)) continue;
                /* the natural run first, then the joker: in the gap, or for each card of a whole run */
                int first = absent ? 0 : -1, last = absent ? 0 : joker ? high - low : -1;
                for (int choice = first; choice <= last; choice++) {
                    int column = choice < 0 ? -1 : absent ? gap : low + choice;
                    uint64_t cards = column < 0 ? bits : (bits & ~(present[column] ? card_bit(rank_of_column(column),
                                                                                             suit) : 0)) | JOKER_BIT;
                    int lowest = low;
                    while (!present[lowest] || lowest == column) lowest++;
                    SPlay p = column < 0 ? make_play(r, cards, rank_of_column(lowest), -1, -1)
                                         : make_play(r, cards, rank_of_column(lowest), column, suit);
                    if (!lead && p.bottom[rv] <= d->table_strength) continue;
                    if (found >= MAX_PLAYS) return -1;
                    uint64_t key = (uint64_t)(p.bottom[rv] + 2);
                    key = (((key * 16 + (uint64_t)length) * 2 + (uint64_t)p.jokers) * 4 + (uint64_t)suit) * 16 +
                          (uint64_t)(column < 0 ? 0 : column);
                    keyed_plays[found].key = key << 20 | (uint64_t)found;
                    keyed_plays[found++].play = p;
                }
            }
        }
    }
    qsort(keyed_plays, found, sizeof keyed_plays[0], by_key);
    for (int i = 0; i < found && k < MAX_PLAYS; i++) out[k++] = keyed_plays[i].play;
    return k;
}

/* Match.legal_actions on such a table (shaped_plays, the leader's pass); -1 past MAX_PLAYS. */
static int suited_moves(const Suited *r, const Deal *d, SPlay *out) {
    uint64_t hand = d->hand[d->turn];
    int lead = d->table_size == 0, rv = d->rev ^ d->back, k = 0;
    if (!lead && d->table_lone && r->spade_three) {
        if (hand & card_bit(1, 3)) out[k++] = make_play(r, card_bit(1, 3), 1, -1, -1);
        out[k++] = PASS_PLAY;
        return k;
    }
    if (lead || !d->table_seq) k = group_moves(r, d, hand, rv, out, k);
    if (r->sequences && (lead || d->table_seq)) {
        k = sequence_moves(r, d, hand, rv, out, k);
        if (k < 0) return -1;
    }
    if (d->lock) {
        int kept = 0;
        for (int i = 0; i < k; i++)
            if (out[i].lone || out[i].suits == d->lock) out[kept++] = out[i];
        k = kept;
    }
    if (!lead || r->base.leader_may_pass) out[k++] = PASS_PLAY;
    return k;
}

/* Match._play with _revolution_check and _effects; 1 when the deal is over. */
static int suited_play(const Suited *r, Deal *d, int s, const SPlay *p) {
    const Rules *b = &r->base;
    int had_table = d->table_size > 0, beaten_rank = d->table_rank, beaten_lone = d->table_lone;
    int beaten_suits = d->table_suits;
    for (uint64_t rest = p->cards & ~JOKER_BIT; rest; rest &= rest - 1) {
        int at = position(r, __builtin_ctzll(rest) / 4);
        d->count[s][at]--;
        d->held[at]--;
    }
    if (p->jokers) {
        d->wild[s]--;
        d->held_wild--;
    }
    d->hand[s] &= ~p->cards;
    d->size[s] -= p->size;
    d->table_rank = p->rank;
    d->table_size = p->size;
    d->table_seq = p->seq;
    d->table_lone = p->lone;
    d->table_suits = p->suits;
    d->last = d->last_play = s;
    d->passes = 0;
    if (b->mode == ALL_PASS) d->mask = 0;
    else if (b->mode == ONE_ORBIT) d->mask |= (uint64_t)1 << s;
    if (b->revolution) {
        int revolt = b->rev_four && p->size >= (p->seq ? 5 : 4);
        if (b->rev_singles && count_single(d, p->size, p->rank)) revolt = 1;
        if (revolt) {
            d->rev ^= 1;
            if (b->rev_turns) d->dir = -d->dir;
        }
    }
    int stops = 0;
    if (r->suit_lock) {
        if (p->lone) d->lock = 0;
        else if (!d->lock && had_table && !beaten_lone && p->suits == beaten_suits) d->lock = p->suits;
    }
    if (!p->lone) {
        if (b->jack_back && (p->marks & HAS_JACK)) d->back ^= 1;
        if (b->six_reverse && (p->marks & HAS_SIX)) d->dir = -d->dir;
        if (b->eight_stop && (p->marks & HAS_EIGHT)) stops = 1;
    }
    if (!stops) stops = r->spade_three && had_table && beaten_lone;
    d->table_strength = p->strength[d->rev ^ d->back];
    return settle(b, d, s, stops, had_table && beaten_rank == p->rank ? p->size : 0);
}

/* Match._pass; 1 when the pass limit ends the deal. */
static int suited_pass(const Suited *r, Deal *d, int s) {
    d->mask |= (uint64_t)1 << s;
    if (r->base.rev_singles) {
        d->run_pos = -1;
        d->run_len = 0;
    }
    if (r->pass_limit && ++d->passes >= r->pass_limit) return 1;
    int following = next_seat(&r->base, d, s);
    if (following < 0) end_trick(&r->base, d);
    else d->turn = following;
    return 0;
}

static int suited_fight(const Suited *r, const Deal *d, int me) {
    uint64_t hand = d->hand[me];
    int groups = (hand & JOKER_BIT) != 0;
    for (int rank = 0; rank < RANKS; rank++) groups += suits_of(hand, rank) != 0;
    if (groups <= FIGHT) return 1;
    for (int p = 0; p < r->base.n; p++)
        if (p != me && d->size[p] > 0 && d->size[p] <= FIGHT) return 1;
    return 0;
}

static int suited_runs_out(const Suited *r, uint64_t rest, const int *out, int wilds, int reversed) {
    int losers = 0;
    for (int rank = 0; rank < RANKS; rank++) {
        int count = __builtin_popcount(suits_of(rest, rank));
        if (count && !is_boss(&r->base, out, wilds, reversed, position(r, rank), count) && ++losers > 1) return 0;
    }
    return 1;
}

/* Rollout.choose; `groups` and `boss` scratch of nlegal entries. */
static const SPlay *suited_choose(const Suited *r, const Deal *d, const SPlay *legal, int nlegal, int *groups,
                                  int *boss) {
    if (nlegal == 1) return &legal[0];
    int me = d->turn, ng = 0, lead = d->table_size == 0;
    uint64_t hand = d->hand[me];
    for (int i = 0; i < nlegal && legal[i].rank >= 0; i++) {
        if (legal[i].size == d->size[me]) return &legal[i];
        int natural = legal[i].size - (r->joker_wild ? legal[i].jokers : 0);
        int held = legal[i].rank == JOKER_RANK ? (hand & JOKER_BIT) != 0
                                               : __builtin_popcount(suits_of(hand, legal[i].rank));
        if (!natural || held == natural) groups[ng++] = i;
    }
    if (!ng) return lead || suited_fight(r, d, me) ? &legal[0] : &PASS_PLAY;
    int out[RANKS];
    for (int at = 0; at < RANKS; at++) out[at] = d->held[at] - d->count[me][at];
    int wilds = r->joker_wild ? d->held_wild - d->wild[me] : 0, reversed = d->rev;
    for (int g = 0; g < ng; g++) { /* beaten() is False: a natural rank's play that is a boss */
        const SPlay *p = &legal[groups[g]];
        boss[g] = p->rank != JOKER_RANK && is_boss(&r->base, out, wilds, reversed, position(r, p->rank), p->size);
        if (boss[g] && suited_runs_out(r, hand & ~p->cards, out, wilds, reversed)) return p;
    }
    int top = reversed ? 0 : RANKS - 1, spare[MAX_SEATS], ns = 0;
    for (int round = 0; round < 2 && !ns; round++)
        for (int g = 0; g < ng && ns < MAX_SEATS; g++) {
            const SPlay *p = &legal[groups[g]];
            int kept = (r->base.fours && p->size >= 4) || (p->rank != JOKER_RANK && position(r, p->rank) == top) ||
                       (p->rank == JOKER_RANK && r->high_jokers) || (r->joker_wild && p->jokers);
            if (!kept && (round || !(p->size > 1 && boss[g]))) spare[ns++] = groups[g];
        }
    if (lead) {
        if (!ns) return &legal[groups[0]];
        for (int i = 0; i < ns && i < 3; i++) {
            int exposed = 0;
            for (int p = 0; p < r->base.n; p++)
                if (p != me && d->size[p] && d->size[p] == legal[spare[i]].size) exposed = 1;
            if (!exposed) return &legal[spare[i]];
        }
        return &legal[spare[0]];
    }
    if (ns) return &legal[spare[0]];
    return suited_fight(r, d, me) ? &legal[groups[0]] : &PASS_PLAY;
}

static PyObject *run_suited(const Suited *r, Deal *d, const int *players, const SPlay *first, PyObject *moves) {
    static int groups[MAX_PLAYS], boss[MAX_PLAYS];
    int over = 0;
    for (int step = 0; !over; step++) {
        if (step >= MAX_MOVES) {
            PyErr_SetString(PyExc_RuntimeError, "the compiled playout did not end");
            return NULL;
        }
        SPlay m;
        if (step == 0 && first != NULL) {
            m = *first;
        } else {
            int n = suited_moves(r, d, legal_plays);
            if (n < 0) {
                PyErr_SetString(PyExc_RuntimeError, "the compiled playout listed more plays than it holds");
                return NULL;
            }
            m = *suited_choose(r, d, legal_plays, n, groups, boss);
        }
        if (moves != NULL) {
            PyObject *entry = Py_BuildValue("(iKiii)", players[d->turn], (unsigned long long)m.cards, m.rank,
                                            m.cell_col, m.cell_suit);
            if (entry == NULL || PyList_Append(moves, entry) < 0) {
                Py_XDECREF(entry);
                return NULL;
            }
            Py_DECREF(entry);
        }
        if (m.rank < 0) {
            if (suited_pass(r, d, d->turn)) Py_RETURN_NONE;
        } else {
            over = suited_play(r, d, d->turn, &m);
        }
    }
    return places_of(d, players);
}

/* A state of `suited_playout_state` consistent with itself, and a first move of cards the hand to act holds. */
static int valid_suited(const Suited *r, const Deal *d, uint64_t first_cards, int rank, int cell_col,
                        int cell_suit) {
    const Rules *b = &r->base;
    if (d->turn < 0 || d->turn >= b->n || !d->size[d->turn] || (d->dir != 1 && d->dir != -1) ||
        !seat_or_none(b, d->last) || !seat_or_none(b, d->last_play) || d->leader < 0 || d->leader >= b->n ||
        d->table_rank < -1 || d->table_rank > JOKER_RANK || (d->table_rank < 0) != (d->table_size == 0) ||
        d->table_size < 0 || d->run_pos < -1 || d->run_pos > JOKER_RANK || d->run_len < 0 || d->passes < 0)
        return 0;
    uint64_t seen = 0;
    for (int s = 0; s < b->n; s++) {
        if ((d->hand[s] & ~CARD_BITS) || (d->hand[s] & seen)) return 0;
        seen |= d->hand[s];
    }
    if (!valid_seats(b, d)) return 0;
    if (rank == -2) return first_cards == 0;
    if (rank == -1) return first_cards == 0 && cell_col == -1 && cell_suit == -1;
    return rank >= 0 && rank <= JOKER_RANK && first_cards && !(first_cards & ~d->hand[d->turn]) &&
           cell_col >= -1 && cell_col <= 14 && cell_suit >= -1 && cell_suit <= 4 && (cell_col < 0) == (cell_suit < 0);
}

/* The rules and state of `finish_suited` read into `r` and `d` (players by seat into `players`); 0 after an error. */
static int read_suited(PyObject *rules_seq, PyObject *state, Suited *r, Deal *d, int *players) {
    PyObject *out_seq, *players_seq, *hands_seq;
    unsigned long long mask;
    int v[SUITED_RULE_COUNT];
    memset(d, 0, sizeof *d);
    memset(r, 0, sizeof *r);
    if (!PyArg_ParseTuple(state, "iiiiiiiiiiKiiiiiiiiOOO;a suited playout state", &d->turn, &d->table_rank,
                          &d->table_size, &d->table_strength, &d->table_seq, &d->table_lone, &d->table_suits,
                          &d->rev, &d->back, &d->dir, &mask, &d->last, &d->last_play, &d->leader, &d->holders,
                          &d->run_pos, &d->run_len, &d->lock, &d->passes, &out_seq, &players_seq, &hands_seq))
        return 0;
    d->mask = mask;
    if (read_ints(rules_seq, v, SUITED_RULE_COUNT, "rules") < 0) return 0;
    int *fields[21] = {&r->base.n, &r->base.strict, &r->base.mode, &r->base.revolution, &r->base.rev_four,
                       &r->base.rev_singles, &r->base.rev_turns, &r->base.equal_skip, &r->base.leader_may_pass,
                       &r->base.jack_back, &r->base.six_reverse, &r->base.eight_stop, &r->base.fours,
                       &r->high_jokers, &r->joker_wild, &r->joker_cells, &r->sequences, &r->suit_lock,
                       &r->spade_three, &r->pass_limit, &r->joker_strength}; /* Rollout._suited_rules' order */
    for (int i = 0; i < 21; i++) *fields[i] = v[i];
    for (int at = 0; at < RANKS; at++) {
        r->str[0][at] = v[21 + at];
        r->str[1][at] = v[21 + RANKS + at];
        if (r->str[0][at] < 0 || r->str[0][at] >= RANKS || r->str[1][at] < 0 || r->str[1][at] >= RANKS) {
            PyErr_SetString(PyExc_ValueError, "the compiled playout takes rank strengths 0..12");
            return 0;
        }
    }
    int seen[2] = {0, 0};
    for (int at = 0; at < RANKS; at++)
        for (int order = 0; order < 2; order++) {
            r->at_strength[order][r->str[order][at]] = at;
            seen[order] |= 1 << r->str[order][at];
        }
    if (seen[0] != (1 << RANKS) - 1 || seen[1] != (1 << RANKS) - 1) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout takes each strength 0..12 once");
        return 0;
    }
    if (r->base.n < 2 || r->base.n > MAX_SEATS) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout takes 2..64 seats");
        return 0;
    }
    if (read_ints(players_seq, players, r->base.n, "players by seat") < 0) return 0;
    d->nout = read_ints(out_seq, d->out, -1, "seats out");
    if (d->nout < 0) return 0;
    PyObject *hands = PySequence_Fast(hands_seq, "hands");
    if (hands == NULL) return 0;
    if (PySequence_Fast_GET_SIZE(hands) != r->base.n) {
        Py_DECREF(hands);
        PyErr_SetString(PyExc_ValueError, "the compiled playout takes a hand a seat");
        return 0;
    }
    for (int s = 0; s < r->base.n; s++) {
        d->hand[s] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(hands, s));
        if (PyErr_Occurred()) {
            Py_DECREF(hands);
            return 0;
        }
        d->size[s] = __builtin_popcountll(d->hand[s]);
        for (uint64_t rest = d->hand[s] & ~JOKER_BIT & CARD_BITS; rest; rest &= rest - 1) {
            int at = position(r, __builtin_ctzll(rest) / 4);
            d->count[s][at]++;
            d->held[at]++;
        }
        d->wild[s] = (d->hand[s] & JOKER_BIT) != 0;
        d->held_wild += d->wild[s];
    }
    Py_DECREF(hands);
    return 1;
}

static PyObject *finish_suited(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rules_seq, *state, *trace;
    unsigned long long first_cards;
    int first_rank, cell_col, cell_suit, players[MAX_SEATS];
    Suited r;
    Deal d;
    if (!PyArg_ParseTuple(args, "OO(Kiii)O", &rules_seq, &state, &first_cards, &first_rank, &cell_col, &cell_suit,
                          &trace) || !read_suited(rules_seq, state, &r, &d, players))
        return NULL;
    if (!valid_suited(&r, &d, first_cards, first_rank, cell_col, cell_suit)) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout was given a state or a first move out of range");
        return NULL;
    }
    if (trace != Py_None && !PyList_Check(trace)) {
        PyErr_SetString(PyExc_TypeError, "trace must be a list or None");
        return NULL;
    }
    SPlay first = first_rank == -1 ? PASS_PLAY : make_play(&r, first_cards, first_rank, cell_col, cell_suit);
    return run_suited(&r, &d, players, first_rank == -2 ? NULL : &first, trace == Py_None ? NULL : trace);
}

/* The moves `finish_suited` lists in a state, in their order: what tests compare with Match.legal_actions. */
static PyObject *moves_suited(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rules_seq, *state;
    int players[MAX_SEATS];
    Suited r;
    Deal d;
    if (!PyArg_ParseTuple(args, "OO", &rules_seq, &state) || !read_suited(rules_seq, state, &r, &d, players))
        return NULL;
    if (!valid_suited(&r, &d, 0, -2, -1, -1)) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout was given a state out of range");
        return NULL;
    }
    int n = suited_moves(&r, &d, legal_plays);
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "the compiled playout listed more plays than it holds");
        return NULL;
    }
    PyObject *moves = PyList_New(n);
    if (moves == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *move = Py_BuildValue("(Kiii)", (unsigned long long)legal_plays[i].cards, legal_plays[i].rank,
                                       legal_plays[i].cell_col, legal_plays[i].cell_suit);
        if (move == NULL) {
            Py_DECREF(moves);
            return NULL;
        }
        PyList_SET_ITEM(moves, i, move);
    }
    return moves;
}

static PyMethodDef methods[] = {
    {"finish", finish, METH_VARARGS,
     "finish(rules, state, first, trace) -> the players in finishing order"},
    {"finish_suited", finish_suited, METH_VARARGS,
     "finish_suited(rules, state, first, trace) -> the players in finishing order, or None at the pass limit"},
    {"moves_suited", moves_suited, METH_VARARGS, "moves_suited(rules, state) -> the moves of the hand to act"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_playout", NULL, -1, methods};

PyMODINIT_FUNC PyInit__playout(void) { return PyModule_Create(&module); }
