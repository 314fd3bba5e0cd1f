/* The expert's playout on rank counts: rollout.py's policy and the engine's play loop for tables without suits
   or jokers, in C.

   On such a table (no suit order, sequences or suit lock, no jokers, at most one wild rank) a play is a rank,
   a size and a number of wild cards, and a hand is its count of every rank and of wild cards.  This plays the
   same deal out as `Rollout` does on the engine's `Match` (rollout.py is the reference: tests/sdk/
   test_playout.py compares the two move for move).  The state comes from
   `president_engine.worlds.playout_state`; the loop follows `Match._play`, `_pass`, `_next_seat`, `_end_trick`
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
    if (r->equal_skip && beaten >= 0 && beaten == pos) {
        for (int i = 0; i < size; i++) {
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

/* The numbers a state of `playout_state` can hold, consistent with one another (so the loop always ends), and a
   first move of the hand to act (its legality against the table is the caller's: an action the engine listed). */
static int valid(const Rules *r, const Deal *d, const Move *first) {
    if (d->turn < 0 || d->turn >= r->n || !d->size[d->turn] || (d->dir != 1 && d->dir != -1) ||
        !seat_or_none(r, d->last) || !seat_or_none(r, d->last_play) || d->leader < 0 || d->leader >= r->n ||
        d->table_pos < -1 || d->table_pos >= RANKS || (d->table_pos < 0) != (d->table_size == 0) ||
        d->table_size < 0 || d->run_pos < -1 || d->run_pos >= RANKS || d->run_len < 0)
        return 0;
    int holding = 0; /* the holders are the seats with cards, the seats out every other one, each once */
    uint64_t out = 0;
    for (int s = 0; s < r->n; s++) holding += d->size[s] > 0;
    if (d->nout > r->n) return 0; /* read_ints kept the first MAX_SEATS only */
    for (int i = 0; i < d->nout; i++) {
        int s = d->out[i];
        if (s < 0 || s >= r->n || d->size[s] || (out >> s & 1)) return 0;
        out |= (uint64_t)1 << s;
    }
    if (holding < 2 || holding != d->holders || d->nout + holding != r->n) return 0;
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

static PyMethodDef methods[] = {
    {"finish", finish, METH_VARARGS,
     "finish(rules, state, first, trace) -> the players in finishing order"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_playout", NULL, -1, methods};

PyMODINIT_FUNC PyInit__playout(void) { return PyModule_Create(&module); }
