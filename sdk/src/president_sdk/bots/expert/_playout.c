/* The expert's playout on rank counts: rollout.py's policy and the engine's play loop for plain decks, in C.

   A table whose plays are rank counts (the engine's `Tables.simple`: no wild cards, jokers or suits) plays
   the same deal out here as `Rollout` does on the engine's `Match` (rollout.py is the reference: the
   differential tests compare the two move for move).  The state comes from
   `president_engine.worlds.playout_state`; the loop below follows `Match._play`, `_pass`, `_next_seat`,
   `_end_trick` and `movegen.simple_plays`, the policy `Rollout.choose` with `_Bosses`.
   Ranks are positions 0..12 in the normal order, seats indices. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RANKS 13
#define MAX_SEATS 64
#define MAX_MOVES 100000
#define MAX_COPIES 28 /* of a rank: 7 decks */
#define MAX_LEGAL (RANKS * MAX_COPIES + 1)
#define FIGHT 2

enum { ALL_PASS = 0, ALL_PASS_FINAL = 1, ONE_ORBIT = 2, PASS_COUNT = 3 };

typedef struct {
    int n, strict, mode, revolution, rev_four, rev_singles, rev_turns, equal_skip, leader_may_pass;
    int jack_back, six_reverse, eight_stop, six, eight, jack, fours;
} Rules;

typedef struct {
    int turn, table_pos, table_size, table_strength, rev, back, dir, last, last_play, leader, holders;
    int run_pos, run_len, nout;
    uint64_t mask;
    int size[MAX_SEATS];
    int out[MAX_SEATS];
    uint8_t count[MAX_SEATS][RANKS];
    int held[RANKS];
} Deal;

typedef struct { int pos, size; } Move; /* pos -1: a pass */

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

/* Seat s plays `size` cards of position `pos`; 1 when the deal is over. */
static int play(const Rules *r, Deal *d, int s, int pos, int size) {
    int beaten = d->table_pos;
    d->count[s][pos] -= size;
    d->size[s] -= size;
    d->held[pos] -= size;
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

/* movegen.simple_plays: a lead lists every size of every rank, weakest rank first; a follow one play per rank
   that beats, then the pass. */
static int legal_moves(const Rules *r, const Deal *d, Move *out) {
    const uint8_t *c = d->count[d->turn];
    int rv = d->rev ^ d->back, k = 0;
    if (d->table_pos < 0) {
        for (int s = 0; s < RANKS; s++) {
            int pos = rv ? 12 - s : s;
            for (int size = 1; size <= c[pos]; size++) out[k++] = (Move){pos, size};
        }
        if (r->leader_may_pass) out[k++] = (Move){-1, 0};
        return k;
    }
    int need = d->table_size;
    for (int s = r->strict ? d->table_strength + 1 : d->table_strength; s < RANKS; s++) {
        int pos = rv ? 12 - s : s;
        if (c[pos] >= need) out[k++] = (Move){pos, need};
    }
    out[k++] = (Move){-1, 0};
    return k;
}

/* _Bosses.is_boss: no `size` cards still out (`out`) beat `size` cards at `at`, in the revolution's order. */
static int is_boss(const Rules *r, const int *out, int reversed, int at, int size) {
    int equal = r->strict ? 0 : 1;
    int from = reversed ? 0 : at + 1 - equal, to = reversed ? at + equal : RANKS;
    for (int i = from; i < to; i++)
        if ((i != at || equal) && out[i] && out[i] >= size) return 0;
    return 1;
}

static int runs_out(const Rules *r, const uint8_t *hand, const Move *m, const int *out, int reversed) {
    int losers = 0;
    for (int at = 0; at < RANKS; at++) {
        int count = hand[at] - (at == m->pos ? m->size : 0);
        if (count && !is_boss(r, out, reversed, at, count) && ++losers > 1) return 0;
    }
    return 1;
}

static int fight(const Rules *r, const Deal *d, int me) {
    int groups = 0;
    for (int at = 0; at < RANKS; at++) groups += d->count[me][at] > 0;
    if (groups <= FIGHT) return 1;
    for (int p = 0; p < r->n; p++)
        if (p != me && d->size[p] > 0 && d->size[p] <= FIGHT) return 1;
    return 0;
}

static Move choose(const Rules *r, const Deal *d, const Move *legal, int nlegal) {
    static const Move PASS = {-1, 0};
    if (nlegal == 1) return legal[0];
    int me = d->turn;
    const uint8_t *hand = d->count[me];
    Move groups[RANKS];
    int ng = 0;
    for (int i = 0; i < nlegal && legal[i].pos >= 0; i++) {
        if (legal[i].size == d->size[me]) return legal[i];
        if (hand[legal[i].pos] == legal[i].size) groups[ng++] = legal[i];
    }
    int lead = d->table_pos < 0;
    if (!ng) return lead || fight(r, d, me) ? legal[0] : PASS;
    int out[RANKS];
    for (int at = 0; at < RANKS; at++) out[at] = d->held[at] - hand[at];
    int reversed = d->rev;
    int boss[RANKS];
    for (int i = 0; i < ng; i++) {
        boss[i] = is_boss(r, out, reversed, groups[i].pos, groups[i].size);
        if (boss[i] && runs_out(r, hand, &groups[i], out, reversed)) return groups[i];
    }
    int top = reversed ? 0 : 12;
    Move spare[RANKS];
    int ns = 0;
    for (int i = 0; i < ng; i++) {
        int kept = (r->fours && groups[i].size >= 4) || groups[i].pos == top;
        if (!kept && !(groups[i].size > 1 && boss[i])) spare[ns++] = groups[i];
    }
    if (!ns)
        for (int i = 0; i < ng; i++)
            if (!((r->fours && groups[i].size >= 4) || groups[i].pos == top)) spare[ns++] = groups[i];
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

static PyObject *finish(PyObject *self, PyObject *args) {
    PyObject *rules_seq, *out_seq, *players_seq, *trace;
    Py_buffer counts;
    int first_pos, first_size;
    unsigned long long mask;
    Rules r;
    Deal d;
    int rule_values[16];
    memset(&d, 0, sizeof d);
    if (!PyArg_ParseTuple(args, "O(iiiiiiiKiiiiiiOOy*)iiO", &rules_seq, &d.turn, &d.table_pos, &d.table_size,
                          &d.table_strength, &d.rev, &d.back, &d.dir, &mask, &d.last, &d.last_play, &d.leader,
                          &d.holders, &d.run_pos, &d.run_len, &out_seq, &players_seq, &counts, &first_pos,
                          &first_size, &trace))
        return NULL;
    d.mask = mask;
    int players[MAX_SEATS];
    if (read_ints(rules_seq, rule_values, 16, "rules") < 0) goto fail;
    r = (Rules){rule_values[0], rule_values[1], rule_values[2], rule_values[3], rule_values[4], rule_values[5],
                rule_values[6], rule_values[7], rule_values[8], rule_values[9], rule_values[10], rule_values[11],
                rule_values[12], rule_values[13], rule_values[14], rule_values[15]};
    if (r.n < 2 || r.n > MAX_SEATS || counts.len != (Py_ssize_t)r.n * RANKS) {
        PyErr_SetString(PyExc_ValueError, "the compiled playout takes 2..64 seats and 13 counts for each");
        goto fail;
    }
    if (read_ints(players_seq, players, r.n, "players by seat") < 0) goto fail;
    d.nout = read_ints(out_seq, d.out, -1, "seats out");
    if (d.nout < 0) goto fail;
    const uint8_t *bytes = counts.buf;
    for (int s = 0; s < r.n; s++)
        for (int at = 0; at < RANKS; at++) {
            if (bytes[s * RANKS + at] > MAX_COPIES) {
                PyErr_SetString(PyExc_ValueError, "the compiled playout takes at most 28 cards of a rank");
                goto fail;
            }
            d.count[s][at] = bytes[s * RANKS + at];
            d.size[s] += d.count[s][at];
            d.held[at] += d.count[s][at];
        }
    PyBuffer_Release(&counts);
    PyObject *moves = trace == Py_None ? NULL : trace;
    Move legal[MAX_LEGAL];
    int over = 0;
    for (int step = 0; !over; step++) {
        if (step >= MAX_MOVES) {
            PyErr_SetString(PyExc_RuntimeError, "the compiled playout did not end");
            return NULL;
        }
        Move m;
        if (step == 0 && first_size >= 0) {
            m = (Move){first_size ? first_pos : -1, first_size};
        } else {
            m = choose(&r, &d, legal, legal_moves(&r, &d, legal));
        }
        if (moves != NULL) {
            PyObject *entry = Py_BuildValue("(iii)", players[d.turn], m.pos, m.size);
            if (entry == NULL || PyList_Append(moves, entry) < 0) {
                Py_XDECREF(entry);
                return NULL;
            }
            Py_DECREF(entry);
        }
        if (m.pos < 0) pass(&r, &d, d.turn);
        else over = play(&r, &d, d.turn, m.pos, m.size);
    }
    PyObject *places = PyTuple_New(d.nout);
    if (places == NULL) return NULL;
    for (int i = 0; i < d.nout; i++) PyTuple_SET_ITEM(places, i, PyLong_FromLong(players[d.out[i]]));
    return places;
fail:
    PyBuffer_Release(&counts);
    return NULL;
}

static PyMethodDef methods[] = {
    {"finish", finish, METH_VARARGS,
     "finish(rules, state, first_position, first_size, trace) -> the players in finishing order"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_playout", NULL, -1, methods};

PyMODINIT_FUNC PyInit__playout(void) { return PyModule_Create(&module); }
