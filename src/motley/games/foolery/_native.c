/* The compiled core of Foolery's rules: legal_actions, _is_legal, _apply and is_terminal of
 * FooleryRules (rules.py), and the shuffle and deal of its shuffle_deal, written against the plain CPython C API.
 *
 * The state stays where the Python engine keeps it: the slots of FooleryRules (hands as Python ints, the
 * log as a list of tuples, ...), read and written here through the offsets of their member descriptors,
 * so every other part of the engine (the exchange, the end of a hand, observations, clone, serialisation,
 * the determinizer) runs unchanged on the same objects. The functions below are the Python methods of
 * rules.py, path for path: a lead in play (its 5-card plays as moves.five_card_plays makes them), a reply to
 * 1-4 cards of a rank, to trumps or to a 5-card hand, a pass, a play, a seat going out and the end of a trick.
 * The rest (the exchange's gives and moves, the end of a hand: _end_hand, an illegal or non-int action) calls
 * the Python method it stands beside, kept by install(). The Python engine's 5-card cache (_fives) is neither
 * read nor filled here: the plays are computed afresh.
 *
 * install(cls, tables) reads the slot offsets and the action tables and returns the method descriptors
 * (bound to cls, so the interpreter calls them as it calls a C type's methods); rules.py sets them on the
 * class unless MOTLEY_PURE_PYTHON=1. Hands are 78-bit masks (card ids 0..77, cards.py), held here as
 * unsigned __int128.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "../../core/_slots.h"
#include <string.h>


typedef unsigned __int128 u128;

#define K_PASS 0
#define K_FOOL 1
#define K_GIVE 2
#define K_NORMAL 3
#define K_TRUMP 4
#define K_FIVE 5
#define PASS 0
#define PLAY_FOOL 1
#define NORMAL_BASE 80
#define PHASE_EXCHANGE 0
#define PHASE_PLAY 1
#define PHASE_OVER 2
#define EV_PLAY 0
#define EV_SKIP 2
#define EV_TRICK 3
#define EV_OUT 4
#define EV_STUCK 5
#define FOOL_CARD 77
#define SUIT_BITS 56
#define MAX_SEATS 8
/* the largest legal list built here without the 5-card plays: pass, Fool, 210 plays of one rank, 1561 trump sets */
#define OUT_CAP 2048

/* ---- what install() reads ------------------------------------------------------------------------ */
enum {
    S_HANDS, S_SIZES, S_PHASE, S_TO_MOVE, S_TOP, S_TOP_SEAT, S_PLAYED, S_LOG, S_LEGAL, S_FIVES, S_NEXT,
    S_LOCKED, S_GAME, S_PLACES, S_NEXT_PLACE, S_TITLES, S_TOTALS, S_DEALER, S_HAND_NUMBER, S_GAVE,
    S_RECEIVED, S_COUNT
};
static const char *SLOT_NAMES[S_COUNT] = {
    "hands", "sizes", "phase", "to_move", "top", "top_seat", "played", "log", "_legal", "_fives", "_next",
    "_locked", "game", "places", "next_place", "titles", "totals", "dealer", "hand_number", "gave",
    "received"};
static Py_ssize_t slot_offset[S_COUNT];

static int num_actions = 0;
static u128 *a_mask = NULL;
static unsigned char *a_kind = NULL, *a_size = NULL, *a_top = NULL;
static int *a_str = NULL, *skip_rank = NULL;
static PyObject **action_obj = NULL;   /* the int object of every action id */
static int pair_id[22][22];            /* the id of the 2-trump set of trumps a < b (numbers 1..21) */
static int triple_id[22][22][22];
static int single_id[22];
static PyObject *pass_events = NULL;   /* rules._PASS_EVENTS */
static PyObject *pass_only = NULL;     /* rules._PASS_ONLY */
static int five_base, five_kind_base, full_house_base;
static int flush_suit_base[4], ace_high_flush[4];
static int *flush_offset = NULL;       /* moves._FLUSH_OFFSET: a flush's place in its suit's block by rank mask */
static int *str_ace_high = NULL;       /* moves.STR_ACE_HIGH */
static const int TRIPLE_INDEX[16] = {-1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, 1, -1, 2, 3, -1};
static const int PAIR_INDEX[16] = {-1, -1, -1, 0, -1, 1, 2, -1, -1, 3, 4, -1, 5, -1, -1, -1};

/* The options of the last game seen (a game's options never change): one entry, holding the game. */
static struct {
    PyObject *game;
    int skip_rule, locks_out, trump_variation, ace_high, any_trump;
    long hands_total;
    PyObject *seats_after, *next_holding;
} opts = {NULL, 0, 0, 0, 0, 0, 0, NULL, NULL};

static PyObject *py_legal_actions = NULL, *py_apply = NULL;
static PyObject *s_ace_high, *s_any_trump, *s_end_hand, *s_trump_variation, *s_skip_rule,
    *s_locks_out, *s_seats_after, *s_next_holding, *s_hands_total;

/* ---- slots and numbers ----------------------------------------------------------------------------- */
static inline PyObject *
get_slot(PyObject *self, int i)
{
    PyObject *v = *(PyObject **)((char *)self + slot_offset[i]);
    if (v == NULL)
        PyErr_Format(PyExc_AttributeError, "a Foolery state without its '%s'", SLOT_NAMES[i]);
    return v;
}

/* Set slot i to v, stealing the reference. */
static inline void
set_slot(PyObject *self, int i, PyObject *v)
{
    PyObject **p = (PyObject **)((char *)self + slot_offset[i]);
    PyObject *old = *p;
    *p = v;
    Py_XDECREF(old);
}

static inline PyObject *
int_obj(long v)
{
    if (v >= 0 && v < num_actions) {
        Py_INCREF(action_obj[v]);
        return action_obj[v];
    }
    return PyLong_FromLong(v);
}

static inline int
set_int_slot(PyObject *self, int i, long v)
{
    PyObject *o = int_obj(v);
    if (o == NULL)
        return -1;
    set_slot(self, i, o);
    return 0;
}

static inline int
read_long(PyObject *v, long *out)
{
    if (v == NULL)
        return -1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyLong_CheckExact(v)) {  /* one 30-bit digit or none: the ints of a state */
        Py_ssize_t size = Py_SIZE(v);
        if (size == 0 || size == 1 || size == -1) {
            long d = size ? (long)((PyLongObject *)v)->ob_digit[0] : 0;
            *out = size < 0 ? -d : d;
            return 0;
        }
    }
#else
    if (PyLong_CheckExact(v) && PyUnstable_Long_IsCompact((PyLongObject *)v)) {
        *out = (long)PyUnstable_Long_CompactValue((PyLongObject *)v);
        return 0;
    }
#endif
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

static inline int
slot_long(PyObject *self, int i, long *out)
{
    return read_long(get_slot(self, i), out);
}

/* A non-negative Python int below 2**128 as a u128. */
static int
to_u128(PyObject *v, u128 *out)
{
    if (!PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "a Foolery hand must be an int");
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    Py_ssize_t n = Py_SIZE(v);
    if (n >= 0 && n <= 4) {  /* 30-bit digits: up to 120 bits */
        const digit *d = ((PyLongObject *)v)->ob_digit;
        u128 x = 0;
        for (Py_ssize_t k = n - 1; k >= 0; k--)
            x = (x << PyLong_SHIFT) | d[k];
        *out = x;
        return 0;
    }
#endif
    unsigned char buf[16];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t r = PyLong_AsNativeBytes(v, buf, 16, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER
                                        | Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (r < 0)
        return -1;
    if (r > 16) {
        PyErr_SetString(PyExc_OverflowError, "a Foolery hand has at most 78 bits");
        return -1;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, buf, 16, 1, 0) < 0)
        return -1;
#endif
    u128 x = 0;
    for (int k = 15; k >= 0; k--)
        x = (x << 8) | buf[k];
    *out = x;
    return 0;
}

static PyObject *
from_u128(u128 x)
{
    unsigned long long hi = (unsigned long long)(x >> 64);
    if (hi == 0)
        return PyLong_FromUnsignedLongLong((unsigned long long)x);
#if PY_VERSION_HEX < 0x030C0000
    {  /* 3 to 5 30-bit digits, written directly (the byte-array route costs several times more) */
        Py_ssize_t n = 0;
        digit d[5];
        for (u128 y = x; y; y >>= PyLong_SHIFT)
            d[n++] = (digit)(y & PyLong_MASK);
        PyLongObject *v = _PyLong_New(n);
        if (v == NULL)
            return NULL;
        memcpy(v->ob_digit, d, (size_t)n * sizeof(digit));
        return (PyObject *)v;
    }
#endif
    unsigned char buf[16];
    for (int k = 0; k < 16; k++)
        buf[k] = (unsigned char)(x >> (8 * k));
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, 16, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, 16, 1, 0);
#endif
}

/* Item i of a list as a C long. */
static inline int
list_long(PyObject *list, Py_ssize_t i, long *out)
{
    if (!PyList_Check(list) || i < 0 || i >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "a Foolery state's seat lists do not match its seats");
        return -1;
    }
    return read_long(PyList_GET_ITEM(list, i), out);
}

static inline int
list_set(PyObject *list, Py_ssize_t i, PyObject *v)  /* steals v */
{
    if (v == NULL)
        return -1;
    if (!PyList_Check(list) || i < 0 || i >= PyList_GET_SIZE(list)) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_IndexError, "a Foolery state's seat lists do not match its seats");
        return -1;
    }
    return PyList_SetItem(list, i, v);
}

static int
log_event(PyObject *self, long kind, long seat, long value)
{
    PyObject *log = get_slot(self, S_LOG);
    if (log == NULL)
        return -1;
    PyObject *ev = PyTuple_New(3);
    if (ev == NULL)
        return -1;
    PyTuple_SET_ITEM(ev, 0, int_obj(kind));
    PyTuple_SET_ITEM(ev, 1, int_obj(seat));
    PyTuple_SET_ITEM(ev, 2, int_obj(value));
    int r = PyList_Append(log, ev);
    Py_DECREF(ev);
    return r;
}

static inline int
seat_item(PyObject *seq, long i, long *out)  /* item i of a tuple of seats */
{
    if (!PyTuple_Check(seq) || i < 0 || i >= PyTuple_GET_SIZE(seq)) {
        PyErr_SetString(PyExc_IndexError, "a Foolery turn table does not match the seats");
        return -1;
    }
    return read_long(PyTuple_GET_ITEM(seq, i), out);
}

static int
read_flag(PyObject *game, PyObject *name, int *out)
{
    PyObject *v = PyObject_GetAttr(game, name);
    if (v == NULL)
        return -1;
    *out = PyObject_IsTrue(v);
    Py_DECREF(v);
    return *out < 0 ? -1 : 0;
}

static int
read_game_long(PyObject *game, PyObject *name, long *out)
{
    PyObject *v = PyObject_GetAttr(game, name);
    if (v == NULL)
        return -1;
    int r = read_long(v, out);
    Py_DECREF(v);
    return r;
}

/* The options of the state's game (read once per game object). 0, or -1 with an error. */
static int
load_options(PyObject *self)
{
    PyObject *game = get_slot(self, S_GAME);
    if (game == NULL)
        return -1;
    if (game == opts.game)
        return 0;
    PyObject *after = PyObject_GetAttr(game, s_seats_after), *holding = PyObject_GetAttr(game, s_next_holding);
    if (after == NULL || holding == NULL || !PyTuple_Check(after) || !PyTuple_Check(holding)
        || read_flag(game, s_skip_rule, &opts.skip_rule) < 0 || read_flag(game, s_locks_out, &opts.locks_out) < 0
        || read_flag(game, s_trump_variation, &opts.trump_variation) < 0
        || read_flag(game, s_ace_high, &opts.ace_high) < 0 || read_flag(game, s_any_trump, &opts.any_trump) < 0
        || read_game_long(game, s_hands_total, &opts.hands_total) < 0) {
        Py_XDECREF(after);
        Py_XDECREF(holding);
        Py_CLEAR(opts.game);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "a Foolery game's seat tables must be tuples");
        return -1;
    }
    Py_XSETREF(opts.seats_after, after);
    Py_XSETREF(opts.next_holding, holding);
    Py_INCREF(game);
    Py_XSETREF(opts.game, game);
    return 0;
}

#define OPTION(field) (load_options(self) < 0 ? -1 : opts.field)
static int
game_flag(PyObject *self, int which)
{
    switch (which) {
    case 0: return OPTION(skip_rule);
    case 1: return OPTION(locks_out);
    default: return OPTION(trump_variation);
    }
}

/* ---- legal actions ------------------------------------------------------------------------------------ */
static inline int
ctz128(u128 x)
{
    unsigned long long lo = (unsigned long long)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((unsigned long long)(x >> 64));
}

/* The trump numbers (1..21) of a hand's high part (bit n - 1 = trump n), ascending; their count. */
static inline int
trump_numbers(unsigned long high, int *nums)
{
    int k = 0;
    for (high &= 0x1FFFFF; high; high &= high - 1)
        nums[k++] = __builtin_ctzl(high) + 1;
    return k;
}

/* The k-trump sets (k = 1..3) of the trumps nums[0..m), ascending ids, whose top trump exceeds t. */
static int
trump_sets(const int *nums, int m, int k, int t, int *out, int n)
{
    if (k == 1) {
        for (int i = 0; i < m; i++)
            if (nums[i] > t)
                out[n++] = single_id[nums[i]];
    } else if (k == 2) {
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++)
                if (nums[j] > t)
                    out[n++] = pair_id[nums[i]][nums[j]];
    } else {
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++)
                for (int l = j + 1; l < m; l++)
                    if (nums[l] > t)
                        out[n++] = triple_id[nums[i]][nums[j]][nums[l]];
    }
    return n;
}

/* SUBSETS[k][nib]: the SUBSET_COUNT[k][nib] non-empty subsets of a rank's 4-bit suit mask nib with k cards
 * (k = 1..4; 0: any count), ascending (made by install()). */
static unsigned char SUBSETS[5][16][15], SUBSET_COUNT[5][16];

/* The plays of 1-4 suit cards of one rank (count k, 0 for any) in ranks from..13 of the suit cards h. */
static inline int
rank_plays(unsigned long long h, int from, int k, int *out, int n)
{
    h >>= 4 * from;
    for (int r = from; h; r++, h >>= 4) {
        unsigned nib = (unsigned)h & 15;
        const unsigned char *subs = SUBSETS[k][nib];
        for (int i = 0; i < SUBSET_COUNT[k][nib]; i++)
            out[n++] = NORMAL_BASE + 15 * r + subs[i] - 1;
    }
    return n;
}

/* A new list of the ids out[0..n) followed by the items of the tuple extra (may be NULL). */
static PyObject *
make_list(const int *out, int n, PyObject *extra)
{
    Py_ssize_t more = extra ? PyTuple_GET_SIZE(extra) : 0;
    PyObject *list = PyList_New(n + more);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *o = action_obj[out[i]];
        Py_INCREF(o);
        PyList_SET_ITEM(list, i, o);
    }
    for (Py_ssize_t i = 0; i < more; i++) {
        PyObject *o = PyTuple_GET_ITEM(extra, i);
        Py_INCREF(o);
        PyList_SET_ITEM(list, n + i, o);
    }
    return list;
}

/* A growable list of action ids. */
typedef struct {
    int *ids;
    Py_ssize_t n, cap;
    int local[OUT_CAP];
} Ids;

static inline int
push(Ids *b, int id)
{
    if (b->n == b->cap) {
        Py_ssize_t cap = 2 * b->cap;
        int *ids = PyMem_Malloc((size_t)cap * sizeof(int));
        if (ids == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(ids, b->ids, (size_t)b->n * sizeof(int));
        if (b->ids != b->local)
            PyMem_Free(b->ids);
        b->ids = ids;
        b->cap = cap;
    }
    b->ids[b->n++] = id;
    return 0;
}

static int
cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The suits (0..3) held in a nibble, ascending; their count. */
static inline int
suits_of(unsigned nib, int *su)
{
    int k = 0;
    for (int i = 0; i < 4; i++)
        if (nib >> i & 1)
            su[k++] = i;
    return k;
}

/* The straights over the 5 ranks from start (10: J-C-Q-K-A) given their nibbles: moves._straights. */
static int
straights(int start, unsigned long chunk, Ids *b)
{
    int su[5][4], k[5];
    for (int i = 0; i < 5; i++)
        k[i] = suits_of((unsigned)(chunk >> (4 * i)) & 15, su[i]);
    int base = five_base + 1024 * start;
    for (int a = 0; a < k[0]; a++)
        for (int c = 0; c < k[1]; c++)
            for (int d = 0; d < k[2]; d++)
                for (int e = 0; e < k[3]; e++)
                    for (int f = 0; f < k[4]; f++)
                        if (push(b, base + 256 * su[0][a] + 64 * su[1][c] + 16 * su[2][d] + 4 * su[3][e] + su[4][f]) < 0)
                            return -1;
    return 0;
}

/* Every 5-card play (FY-R4, FY-D1..D5) in hand under the options, ascending: moves.five_card_plays, sorted
 * (FooleryRules._five_card_plays). Appended to b from b->n on. */
static int
five_card_plays(u128 hand, int ace_high, int any_trump, Ids *b)
{
    unsigned long long suits = (unsigned long long)hand & ((1ULL << SUIT_BITS) - 1);
    int held = __builtin_popcountll(suits);
    Py_ssize_t first = b->n;
    if (held < 4)
        return 0;
    int count[14];
    unsigned present = 0;
    for (int r = 0; r < 14; r++) {
        count[r] = __builtin_popcount((unsigned)(suits >> (4 * r)) & 15);
        if (count[r])
            present |= 1u << r;
    }
    for (int st = 0; st < 10; st++)  /* runs A..5 to 10..K (FY-D2: no wrap) */
        if ((present >> st & 31) == 31 && straights(st, (unsigned long)(suits >> (4 * st)) & 0xFFFFF, b) < 0)
            return -1;
    unsigned ace_high_run = 0x3C01;  /* ranks J C Q K and A */
    if (ace_high && (present & ace_high_run) == ace_high_run
        && straights(10, (unsigned long)((suits >> 40) & 0xFFFF) | (unsigned long)(suits & 15) << 16, b) < 0)
        return -1;
    if (held >= 5)
        for (int su = 0; su < 4; su++) {
            unsigned ranks = 0;
            for (int r = 0; r < 14; r++)
                if (suits >> (4 * r + su) & 1)
                    ranks |= 1u << r;
            int m = __builtin_popcount(ranks), pos[14], k = 0;
            if (m < 5)
                continue;
            for (int r = 0; r < 14; r++)
                if (ranks >> r & 1)
                    pos[k++] = r;
            for (int i0 = 0; i0 < m; i0++)
                for (int i1 = i0 + 1; i1 < m; i1++)
                    for (int i2 = i1 + 1; i2 < m; i2++)
                        for (int i3 = i2 + 1; i3 < m; i3++)
                            for (int i4 = i3 + 1; i4 < m; i4++) {
                                int o = flush_offset[1 << pos[i0] | 1 << pos[i1] | 1 << pos[i2] | 1 << pos[i3]
                                                     | 1 << pos[i4]];
                                if (o >= 0 && push(b, flush_suit_base[su] + o) < 0)
                                    return -1;
                            }
            if (!ace_high && (ranks & ace_high_run) == ace_high_run && push(b, ace_high_flush[su]) < 0)
                return -1;
        }
    for (int r = 0; r < 14; r++) {
        if (count[r] < 3)
            continue;
        unsigned nib = (unsigned)(suits >> (4 * r)) & 15;
        for (int pr = 0; pr < 14; pr++) {
            if (pr == r || count[pr] < 2)
                continue;
            unsigned pnib = (unsigned)(suits >> (4 * pr)) & 15;
            for (unsigned t = 1; t < 16; t++) {
                if ((t & nib) != t || TRIPLE_INDEX[t] < 0)
                    continue;
                for (unsigned pp = 1; pp < 16; pp++)
                    if ((pp & pnib) == pp && PAIR_INDEX[pp] >= 0
                        && push(b, full_house_base + ((r * 4 + TRIPLE_INDEX[t]) * 13 + pr - (pr > r)) * 6
                                       + PAIR_INDEX[pp]) < 0)
                        return -1;
            }
        }
        if (nib == 15) {  /* five of a kind (FY-R4, FY-D3) */
            unsigned long trumps = (unsigned long)(hand >> SUIT_BITS) & 0x1FFFFF;
            if (any_trump) {
                for (int t = 0; t < 21; t++)
                    if (trumps >> t & 1 && push(b, five_kind_base + 21 * r + t) < 0)
                        return -1;
            } else if (trumps >> r & 1 && push(b, five_kind_base + 21 * r + r) < 0) {
                return -1;
            }
        }
    }
    qsort(b->ids + first, (size_t)(b->n - first), sizeof(int), cmp_int);
    return 0;
}

/* Build and cache the legal list (rules.py's legal_actions without the copy): a new reference to the cached
 * object, or NULL with Py_NotImplemented set in *fallback when the Python method must answer. */
static PyObject *
build_legal(PyObject *self, int *fallback)
{
    long top, p, phase;
    *fallback = 0;
    if (slot_long(self, S_TOP, &top) < 0 || slot_long(self, S_TO_MOVE, &p) < 0 || slot_long(self, S_PHASE, &phase) < 0)
        return NULL;
    if ((top < 0 && phase != PHASE_PLAY) || top >= num_actions) {
        *fallback = 1;  /* the exchange's gives, the end */
        return NULL;
    }
    PyObject *hands = get_slot(self, S_HANDS);
    if (hands == NULL || p < 0 || !PyList_Check(hands) || p >= PyList_GET_SIZE(hands)) {
        if (hands != NULL)
            PyErr_SetString(PyExc_IndexError, "a Foolery state's hands do not match its seats");
        return NULL;
    }
    u128 hand;
    if (to_u128(PyList_GET_ITEM(hands, p), &hand) < 0 || load_options(self) < 0)
        return NULL;
    unsigned long long suits = (unsigned long long)hand & ((1ULL << SUIT_BITS) - 1);
    unsigned long high = (unsigned long)(hand >> SUIT_BITS);  /* trump n at bit n - 1, the Fool at bit 21 */
    int fool = (high >> 21) & 1;
    unsigned long trumps = high & 0x1FFFFF;
    int nums[21], m = trump_numbers(trumps, nums);
    Ids b;
    b.ids = b.local;
    b.n = 0;
    b.cap = OUT_CAP;
    int bad = 0;
    if (top < 0) {  /* a lead (FY-R3, FY-R4, FY-R8, FY-R9) */
        if (!suits) {
            for (int k = 1; k <= 3; k++)
                b.n = trump_sets(nums, m, k, 0, b.ids, (int)b.n);
        } else {
            b.n = rank_plays(suits, 0, 0, b.ids, (int)b.n);
            bad = five_card_plays(hand, opts.ace_high, opts.any_trump, &b) < 0;  /* 5-card ids come last */
        }
    } else {
        b.ids[b.n++] = PASS;
        if (fool)  /* FY-R9: the Fool on any turn but a lead */
            b.ids[b.n++] = PLAY_FOOL;
        int t = a_top[top];
        unsigned long above = trumps >> t << t;  /* trumps numbered above the table's top trump */
        if (a_kind[top] == K_NORMAL) {  /* FY-R5: same count, equal or higher rank; FY-R7: 1 or 2 trumps */
            b.n = rank_plays(suits, a_str[top] - 1, a_size[top], b.ids, (int)b.n);
            b.n = trump_sets(nums, m, a_size[top] <= 2 ? 1 : 2, 0, b.ids, (int)b.n);
        } else if (a_kind[top] == K_TRUMP) {  /* FY-R7, FY-R14, FY-D8, FY-D9 */
            if (!above && !fool) {  /* only the pass */
                Py_INCREF(pass_only);
                set_slot(self, S_LEGAL, pass_only);
                Py_INCREF(pass_only);
                return pass_only;
            }
            if (above) {
                int size = a_size[top];
                int want = opts.trump_variation ? size : (size <= 2 ? 1 : 2);
                b.n = trump_sets(nums, m, want, t, b.ids, (int)b.n);
            }
        } else {  /* a 5-card hand (FY-D4): exactly 3 trumps, above a five of a kind's; stronger 5-card hands */
            if (above)
                b.n = trump_sets(nums, m, 3, t, b.ids, (int)b.n);
            Py_ssize_t from = b.n;
            bad = five_card_plays(hand, opts.ace_high, opts.any_trump, &b) < 0;
            const int *strength = opts.ace_high ? str_ace_high : a_str;
            int need = strength[top];
            Py_ssize_t kept = from;
            for (Py_ssize_t i = from; i < b.n; i++)
                if (strength[b.ids[i]] >= need)
                    b.ids[kept++] = b.ids[i];
            b.n = kept;
        }
    }
    PyObject *legal = bad ? NULL : make_list(b.ids, (int)b.n, NULL);
    if (b.ids != b.local)
        PyMem_Free(b.ids);
    if (legal == NULL)
        return NULL;
    Py_INCREF(legal);
    set_slot(self, S_LEGAL, legal);
    return legal;
}

/* The cached legal list (a new reference), built when absent, through Python where C does not answer. */
static PyObject *
cached_legal(PyObject *self)
{
    PyObject *legal = get_slot(self, S_LEGAL);
    if (legal == NULL)
        return NULL;
    if (legal != Py_None) {
        Py_INCREF(legal);
        return legal;
    }
    int fallback;
    legal = build_legal(self, &fallback);
    if (legal != NULL || !fallback)
        return legal;
    PyObject *copy = PyObject_CallOneArg(py_legal_actions, self);
    if (copy == NULL)
        return NULL;
    Py_DECREF(copy);
    legal = get_slot(self, S_LEGAL);
    if (legal == NULL)
        return NULL;
    Py_INCREF(legal);
    return legal;
}

static PyObject *
legal_actions(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *legal = get_slot(self, S_LEGAL);
    if (legal == NULL)
        return NULL;
    if (legal == Py_None) {
        int fallback;
        legal = build_legal(self, &fallback);
        if (legal == NULL)
            return fallback ? PyObject_CallOneArg(py_legal_actions, self) : NULL;
    } else {
        Py_INCREF(legal);
    }
    PyObject *copy = PyList_CheckExact(legal) ? PyList_GetSlice(legal, 0, PyList_GET_SIZE(legal))
                                              : PySequence_List(legal);
    Py_DECREF(legal);
    return copy;
}

/* Row i of one of the game's seat tables (seats_after, next_holding: tuples of tuples, kept by load_options), as
 * a new reference; IndexError naming the table when i is out of its range or the row is not a tuple. */
static PyObject *
seat_table_row(PyObject *table, long i, const char *name)
{
    Py_INCREF(table);
    if (i < 0 || i >= PyTuple_GET_SIZE(table) || !PyTuple_Check(PyTuple_GET_ITEM(table, i))) {
        Py_DECREF(table);
        PyErr_Format(PyExc_IndexError, "a Foolery game's %s does not match its seats", name);
        return NULL;
    }
    PyObject *row = PyTuple_GET_ITEM(table, i);
    Py_INCREF(row);
    Py_DECREF(table);
    return row;
}

/* ---- applying a move ------------------------------------------------------------------------------- */
static int
ring(PyObject *self, long n)  /* _next = FooleryRules._ring() */
{
    int locks = game_flag(self, 1);
    if (locks < 0)
        return -1;
    if (locks) {
        Py_INCREF(Py_None);
        set_slot(self, S_NEXT, Py_None);
        return 0;
    }
    PyObject *sizes = get_slot(self, S_SIZES);
    if (sizes == NULL)
        return -1;
    long live = 0, size;
    for (long q = 0; q < n; q++) {
        if (list_long(sizes, q, &size) < 0)
            return -1;
        if (size)
            live |= 1L << q;
    }
    if (load_options(self) < 0)
        return -1;
    PyObject *row = seat_table_row(opts.next_holding, live, "next_holding");
    if (row == NULL)
        return -1;
    set_slot(self, S_NEXT, row);
    return 0;
}

static int
set_hand(PyObject *self, long seat, u128 hand)
{
    PyObject *hands = get_slot(self, S_HANDS);
    return hands == NULL ? -1 : list_set(hands, seat, from_u128(hand));
}

static int
or_played(PyObject *self, u128 cards)
{
    PyObject *played = get_slot(self, S_PLAYED);
    u128 x;
    if (played == NULL || to_u128(played, &x) < 0)
        return -1;
    PyObject *v = from_u128(x | cards);
    if (v == NULL)
        return -1;
    set_slot(self, S_PLAYED, v);
    return 0;
}

/* FY-D13, FY-D14: when one seat still holds cards it takes the last free place and the hand ends (through the
 * Python _end_hand: scores, the match's end, the next deal): FooleryRules._check_hand_end. 1 if the hand
 * ended, 0 if not, -1 with an error. */
static int
check_hand_end(PyObject *self)
{
    PyObject *sizes = get_slot(self, S_SIZES), *places = get_slot(self, S_PLACES);
    long size, last = -1, left = 0, place;
    if (sizes == NULL || places == NULL || !PyList_Check(sizes))
        return sizes == NULL || places == NULL ? -1 : (PyErr_SetString(PyExc_TypeError, "sizes"), -1);
    for (Py_ssize_t q = 0; q < PyList_GET_SIZE(sizes); q++) {
        if (list_long(sizes, q, &size) < 0)
            return -1;
        if (size > 0) {
            last = (long)q;
            if (++left > 1)
                return 0;
        }
    }
    if (left) {
        if (slot_long(self, S_NEXT_PLACE, &place) < 0 || list_set(places, last, int_obj(place)) < 0
            || log_event(self, EV_OUT, last, place) < 0)
            return -1;
    }
    PyObject *r = PyObject_CallMethodNoArgs(self, s_end_hand);
    Py_XDECREF(r);
    return r == NULL ? -1 : 1;
}

/* FY-R11: p played its last card and takes the next place (FooleryRules._go_out); as check_hand_end. */
static int
go_out(PyObject *self, long p)
{
    PyObject *places = get_slot(self, S_PLACES);
    long place;
    if (places == NULL || slot_long(self, S_NEXT_PLACE, &place) < 0 || list_set(places, p, int_obj(place)) < 0
        || log_event(self, EV_OUT, p, place) < 0 || set_int_slot(self, S_NEXT_PLACE, place + 1) < 0)
        return -1;
    return check_hand_end(self);
}

/* FY-R10: the winner leads; FY-D12: or the next seat with cards; FY-D13: a leader holding only the Fool is
 * the Peasant at once (FooleryRules._end_trick). */
static int
end_trick(PyObject *self, long winner)
{
    PyObject *sizes = get_slot(self, S_SIZES), *hands = get_slot(self, S_HANDS);
    if (sizes == NULL || hands == NULL || !PyList_Check(sizes))
        return sizes == NULL || hands == NULL ? -1 : (PyErr_SetString(PyExc_TypeError, "sizes"), -1);
    long n = PyList_GET_SIZE(sizes), size, leader = winner;
    if (set_int_slot(self, S_TOP, -1) < 0 || set_int_slot(self, S_TOP_SEAT, -1) < 0
        || set_int_slot(self, S_LOCKED, 0) < 0)
        return -1;
    for (;;) {
        sizes = get_slot(self, S_SIZES);
        hands = get_slot(self, S_HANDS);
        if (sizes == NULL || hands == NULL)
            return -1;
        for (long tries = 0;; tries++) {
            if (list_long(sizes, leader, &size) < 0)
                return -1;
            if (size)
                break;
            if (tries > n) {
                PyErr_SetString(PyExc_RuntimeError, "a Foolery trick ended with no seat holding cards");
                return -1;
            }
            leader = leader + 1 < n ? leader + 1 : 0;
        }
        u128 hand;
        if (to_u128(PyList_GET_ITEM(hands, leader), &hand) < 0)
            return -1;
        if (hand != (u128)1 << FOOL_CARD)
            break;
        PyObject *places = get_slot(self, S_PLACES);
        if (places == NULL || set_hand(self, leader, 0) < 0 || list_set(sizes, leader, int_obj(0)) < 0
            || list_set(places, leader, int_obj(n - 1)) < 0)
            return -1;
        Py_INCREF(Py_None);
        set_slot(self, S_NEXT, Py_None);
        if (or_played(self, (u128)1 << FOOL_CARD) < 0 || log_event(self, EV_STUCK, leader, n - 1) < 0)
            return -1;
        int done = check_hand_end(self);
        if (done)
            return done < 0 ? -1 : 0;
    }
    if (log_event(self, EV_TRICK, winner, leader) < 0 || set_int_slot(self, S_TO_MOVE, leader) < 0)
        return -1;
    PyObject *next = get_slot(self, S_NEXT);
    if (next == NULL)
        return -1;
    return next == Py_None ? ring(self, n) : 0;
}

static inline long
skip_key(long a)
{
    return a < 0 ? -1 - num_actions : (skip_rank[a] >= 0 ? skip_rank[a] : -1 - a);
}

/* The turn after p when the ring of holding seats does not say it (a seat went out this trick, or
 * pass_locks_out): walk the seats after p (FooleryRules._apply's last loop). */
static int
walk_turn(PyObject *self, long p, int skip)
{
    PyObject *sizes = get_slot(self, S_SIZES);
    long top_seat, locked, q, size;
    if (sizes == NULL || slot_long(self, S_TOP_SEAT, &top_seat) < 0 || slot_long(self, S_LOCKED, &locked) < 0
        || load_options(self) < 0)
        return -1;
    PyObject *after = seat_table_row(opts.seats_after, p, "seats_after");
    if (after == NULL)
        return -1;
    int r = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(after); i++) {
        if (read_long(PyTuple_GET_ITEM(after, i), &q) < 0) {
            r = -1;
            break;
        }
        if (q == top_seat) {
            r = end_trick(self, q);
            break;
        }
        if (list_long(sizes, q, &size) < 0) {
            r = -1;
            break;
        }
        if (size && !(locked >> q & 1)) {
            if (!skip) {
                r = set_int_slot(self, S_TO_MOVE, q);
                break;
            }
            skip = 0;
            if (log_event(self, EV_SKIP, q, 0) < 0) {
                r = -1;
                break;
            }
        }
    }
    Py_DECREF(after);
    return r;
}

/* FooleryRules._apply for a legal action; the exchange through the Python method. 0, or -1 with an error. */
static int
apply_legal_action(PyObject *self, long a, PyObject *action)
{
    long p, phase, top_seat, q;
    if (slot_long(self, S_PHASE, &phase) < 0)
        return -1;
    if (a != PASS && phase == PHASE_EXCHANGE) {
        PyObject *r = PyObject_CallFunctionObjArgs(py_apply, self, action, NULL);
        Py_XDECREF(r);
        return r == NULL ? -1 : 0;
    }
    Py_INCREF(Py_None);
    set_slot(self, S_LEGAL, Py_None);
    if (slot_long(self, S_TO_MOVE, &p) < 0 || p < 0 || p >= MAX_SEATS)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_ValueError, "no seat to move"), -1);
    int skip = 0;
    if (a == PASS) {
        PyObject *log = get_slot(self, S_LOG);
        if (log == NULL || PyList_Append(log, PyTuple_GET_ITEM(pass_events, p)) < 0)
            return -1;
        PyObject *after = get_slot(self, S_NEXT);
        if (after == NULL)
            return -1;
        if (after != Py_None) {
            if (seat_item(after, p, &q) < 0 || slot_long(self, S_TOP_SEAT, &top_seat) < 0)
                return -1;
            return q == top_seat ? end_trick(self, q) : set_int_slot(self, S_TO_MOVE, q);
        }
        int locks = game_flag(self, 1);
        if (locks < 0)
            return -1;
        if (locks) {
            long locked;
            if (slot_long(self, S_LOCKED, &locked) < 0 || set_int_slot(self, S_LOCKED, locked | 1L << p) < 0)
                return -1;
        }
        return walk_turn(self, p, 0);
    }
    /* a play */
    PyObject *hands = get_slot(self, S_HANDS), *sizes = get_slot(self, S_SIZES);
    long size, top;
    u128 hand;
    if (hands == NULL || sizes == NULL || !PyList_Check(hands) || p >= PyList_GET_SIZE(hands)
        || to_u128(PyList_GET_ITEM(hands, p), &hand) < 0 || list_long(sizes, p, &size) < 0)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_IndexError, "hands"), -1);
    u128 cards = a_mask[a];
    long left = size - a_size[a];
    if (set_hand(self, p, hand ^ cards) < 0 || list_set(sizes, p, int_obj(left)) < 0 || or_played(self, cards) < 0)
        return -1;
    if (log_event(self, EV_PLAY, p, a) < 0 || slot_long(self, S_TOP, &top) < 0)
        return -1;
    Py_INCREF(action);
    set_slot(self, S_TOP, action);
    if (set_int_slot(self, S_TOP_SEAT, p) < 0)
        return -1;
    if (left == 0) {
        Py_INCREF(Py_None);
        set_slot(self, S_NEXT, Py_None);  /* the turn passes over p, but the trick still ends at p (FY-D12) */
        int done = go_out(self, p);  /* FY-R11, FY-D11 */
        if (done)
            return done < 0 ? -1 : 0;
    }
    if (a == PLAY_FOOL)  /* FY-R9: beats everything and ends the trick at once */
        return end_trick(self, p);
    if (skip_key(a) == skip_key(top)) {  /* FY-R6 */
        skip = game_flag(self, 0);
        if (skip < 0)
            return -1;
    }
    PyObject *after = get_slot(self, S_NEXT);
    if (after == NULL)
        return -1;
    if (after != Py_None) {
        if (seat_item(after, p, &q) < 0)
            return -1;
        if (skip) {
            if (log_event(self, EV_SKIP, q, 0) < 0 || seat_item(after, q, &q) < 0)
                return -1;
            if (q == p)
                return end_trick(self, p);
        }
        return set_int_slot(self, S_TO_MOVE, q);
    }
    return walk_turn(self, p, skip);
}

static PyObject *
apply_(PyObject *self, PyObject *action)
{
    long a;
    if (!PyLong_CheckExact(action) || read_long(action, &a) < 0 || a < 0 || a >= num_actions) {
        PyErr_Clear();
        return PyObject_CallFunctionObjArgs(py_apply, self, action, NULL);
    }
    if (apply_legal_action(self, a, action) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Is action (an int) in the cached legal list? 1, 0, or -1 with an error. */
static int
legal_now(PyObject *self, PyObject *action)
{
    long a;
    if (read_long(action, &a) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (a < 0 || a >= num_actions)
        return 0;
    PyObject *legal = cached_legal(self);
    if (legal == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(legal, "a Foolery legal list");
    Py_DECREF(legal);
    if (seq == NULL)
        return -1;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    PyObject *want = action_obj[a];
    int found = 0;
    for (Py_ssize_t i = 0; i < len && !found; i++)  /* the lists built here hold action_obj's ints */
        found = items[i] == want || items[i] == action;
    for (Py_ssize_t i = 0; i < len && !found; i++) {  /* a list the Python engine built */
        long v;
        if (PyLong_Check(items[i]) && read_long(items[i], &v) == 0)
            found = v == a;
        else
            PyErr_Clear();
    }
    Py_DECREF(seq);
    return found;
}

/* _is_legal(action) -> bool: the core's State.apply_action asks this once per move, then calls _apply and
 * records the move itself (the history is the core's, never written here). */
static PyObject *
is_legal(PyObject *self, PyObject *action)
{
    if (!PyLong_Check(action))
        Py_RETURN_FALSE;
    int found = legal_now(self, action);
    if (found < 0)
        return NULL;
    return PyBool_FromLong(found);
}

/* legal_mask_bytes() -> bytes: one byte per action id, 1 at each id of the cached legal list (built when absent, as
 * legal_actions builds it), 0 elsewhere; the compiled State.legal_mask_bytes, without a copy of the list. */
static PyObject *
legal_mask_bytes(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *legal = cached_legal(self);
    if (legal == NULL)
        return NULL;
    PyObject *seq = PySequence_Fast(legal, "a Foolery legal list");
    Py_DECREF(legal);
    if (seq == NULL)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, num_actions);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    char *mask = PyBytes_AS_STRING(out);
    memset(mask, 0, (size_t)num_actions);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < len; i++) {
        long a;
        if (read_long(items[i], &a) < 0 || a < 0 || a >= num_actions) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a Foolery legal list holds an id outside the action space");
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        mask[a] = 1;
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *
is_terminal(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    long phase;
    if (slot_long(self, S_PHASE, &phase) < 0)
        return NULL;
    return PyBool_FromLong(phase == PHASE_OVER);
}

/* ---- the observation tensor ------------------------------------------------------------------------- */
#define CARD_BLOCKS 5
#define TENSOR_CARDS 78
#define SEAT_FIELDS 13
#define NUM_TITLES 5

/* Bits of a list of card ids (a seat's gave or received list) into a u128. 0, or -1 with an error. */
static int
cards_mask(PyObject *list, u128 *out)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "a Foolery state's exchange records must be lists");
        return -1;
    }
    u128 m = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        long c;
        if (read_long(PyList_GET_ITEM(list, i), &c) < 0)
            return -1;
        if (c < 0 || c >= TENSOR_CARDS) {
            PyErr_SetString(PyExc_ValueError, "a Foolery card id is 0..77");
            return -1;
        }
        m |= (u128)1 << c;
    }
    *out = m;
    return 0;
}

/* BYTE_FLOATS[b][k]: bit k of the byte b as a float (0.0f or 1.0f); filled when the module loads. */
static float BYTE_FLOATS[256][8];

static void
fill_byte_floats(void)
{
    for (int b = 0; b < 256; b++)
        for (int k = 0; k < 8; k++)
            BYTE_FLOATS[b][k] = (float)((b >> k) & 1);
}

/* The TENSOR_CARDS low bits of m as floats, bit c at out[c]: eight at a time from BYTE_FLOATS. */
static inline void
write_bits(float *out, u128 m)
{
    int c = 0;
    for (; c + 8 <= TENSOR_CARDS; c += 8, m >>= 8)
        memcpy(out + c, BYTE_FLOATS[(unsigned)m & 255u], 8 * sizeof(float));
    memcpy(out + c, BYTE_FLOATS[(unsigned)m & 255u], (size_t)(TENSOR_CARDS - c) * sizeof(float));
}

/* The seats that passed in this trick (observe: FooleryRules.passed): the passes logged since the last trick or
 * stuck event; 0 once the match is over. -1 with an error. */
static long
passed_seats(PyObject *self, long phase)
{
    if (phase == PHASE_OVER)
        return 0;
    PyObject *log = get_slot(self, S_LOG);
    if (log == NULL)
        return -1;
    if (!PyList_Check(log)) {
        PyErr_SetString(PyExc_TypeError, "a Foolery state's log must be a list");
        return -1;
    }
    long passed = 0;
    for (Py_ssize_t i = PyList_GET_SIZE(log) - 1; i >= 0; i--) {
        PyObject *ev = PyList_GET_ITEM(log, i);
        long kind, seat;
        if (!PyTuple_Check(ev) || PyTuple_GET_SIZE(ev) != 3) {
            PyErr_SetString(PyExc_TypeError, "a Foolery log event is a (kind, seat, value) tuple");
            return -1;
        }
        if (read_long(PyTuple_GET_ITEM(ev, 0), &kind) < 0)
            return -1;
        if (kind == 1) {  /* EV_PASS */
            if (read_long(PyTuple_GET_ITEM(ev, 1), &seat) < 0)
                return -1;
            if (seat >= 0 && seat < MAX_SEATS)
                passed |= 1L << seat;
        } else if (kind == EV_TRICK || kind == EV_STUCK) {
            break;
        }
    }
    return passed;
}

/* Write the tensor of observe.observation_tensor (the Python reference, observe.reference_tensor) of seat
 * into out, value for value: every division in double, then rounded to float32 as NumPy does. 0, or -1 with an
 * error. */
static int
fill_tensor(PyObject *self, long seat, long n, float *out)
{
    long phase, to_move, top, top_seat, dealer, hand_number;
    PyObject *hands = get_slot(self, S_HANDS), *sizes = get_slot(self, S_SIZES), *places = get_slot(self, S_PLACES);
    PyObject *titles = get_slot(self, S_TITLES), *totals = get_slot(self, S_TOTALS);
    PyObject *gave = get_slot(self, S_GAVE), *received = get_slot(self, S_RECEIVED);
    PyObject *played_obj = get_slot(self, S_PLAYED);
    if (hands == NULL || sizes == NULL || places == NULL || titles == NULL || totals == NULL || gave == NULL
        || received == NULL || played_obj == NULL || slot_long(self, S_PHASE, &phase) < 0
        || slot_long(self, S_TO_MOVE, &to_move) < 0 || slot_long(self, S_TOP, &top) < 0
        || slot_long(self, S_TOP_SEAT, &top_seat) < 0 || slot_long(self, S_DEALER, &dealer) < 0
        || slot_long(self, S_HAND_NUMBER, &hand_number) < 0 || load_options(self) < 0)
        return -1;
    if (!PyList_Check(hands) || !PyList_Check(gave) || !PyList_Check(received) || PyList_GET_SIZE(hands) != n
        || PyList_GET_SIZE(gave) != n || PyList_GET_SIZE(received) != n) {
        PyErr_SetString(PyExc_IndexError, "a Foolery state's seat lists do not match its seats");
        return -1;
    }
    if (top >= num_actions || phase < 0 || phase > PHASE_OVER) {
        PyErr_SetString(PyExc_ValueError, "a Foolery state with a top play or phase out of range");
        return -1;
    }
    u128 hand, played, gave_mask, received_mask;
    if (to_u128(PyList_GET_ITEM(hands, seat), &hand) < 0 || to_u128(played_obj, &played) < 0
        || cards_mask(PyList_GET_ITEM(gave, seat), &gave_mask) < 0
        || cards_mask(PyList_GET_ITEM(received, seat), &received_mask) < 0)
        return -1;
    long passed = passed_seats(self, phase);
    if (passed < 0)
        return -1;
    write_bits(out, hand);
    write_bits(out + TENSOR_CARDS, played);
    write_bits(out + 2 * TENSOR_CARDS, top >= 0 ? a_mask[top] : 0);
    write_bits(out + 3 * TENSOR_CARDS, gave_mask);
    write_bits(out + 4 * TENSOR_CARDS, received_mask);
    float *p = out + CARD_BLOCKS * TENSOR_CARDS;
    long mover = phase == PHASE_OVER ? -1 : to_move;  /* current_player(): TERMINAL when over */
    for (long i = 0; i < n; i++) {
        long q = (seat + i) % n, size, place, title;
        if (list_long(sizes, q, &size) < 0 || list_long(places, q, &place) < 0 || list_long(titles, q, &title) < 0)
            return -1;
        if (title < -1 || title >= NUM_TITLES) {
            PyErr_SetString(PyExc_ValueError, "a Foolery title out of range");
            return -1;
        }
        p[0] = (float)((double)size / 28.0);
        p[1] = place >= 0 ? 1.0f : 0.0f;
        p[2] = place >= 0 ? (float)((double)place / (double)(n - 1)) : 0.0f;
        for (int k = 0; k <= NUM_TITLES; k++)
            p[3 + k] = k == title + 1 ? 1.0f : 0.0f;
        p[9] = (passed >> q) & 1 ? 1.0f : 0.0f;
        p[10] = top_seat == q ? 1.0f : 0.0f;
        p[11] = mover == q ? 1.0f : 0.0f;
        p[12] = dealer == q ? 1.0f : 0.0f;
        p += SEAT_FIELDS;
    }
    double scale = 2.0 * (double)n * (double)n;
    for (long i = 0; i < n; i++) {
        long total;
        if (list_long(totals, (seat + i) % n, &total) < 0)
            return -1;
        double v = (double)total / scale;
        *p++ = (float)(v > 1.0 ? 1.0 : v < -1.0 ? -1.0 : v);
    }
    for (long k = 0; k < 3; k++)
        *p++ = k == phase ? 1.0f : 0.0f;
    if (opts.hands_total) {
        double v = (double)hand_number / (double)opts.hands_total;
        *p++ = (float)(v < 1.0 ? v : 1.0);
    } else {
        *p++ = 1.0f;
    }
    int kind = 0;
    if (top >= 0)
        kind = a_kind[top] == K_NORMAL ? a_size[top] : a_kind[top] == K_FIVE ? 5 : 5 + a_size[top];
    for (int k = 0; k < 9; k++)
        p[k] = k == kind ? 1.0f : 0.0f;
    p += 9;
    *p = top >= 0 ? (float)((double)(opts.ace_high ? str_ace_high : a_str)[top] / 80.0) : 0.0f;
    return 0;
}

/* The number of seats of a Foolery state (its sizes list, 2..8 of them); -1 with an exception set otherwise. */
static long
seat_count(PyObject *self)
{
    PyObject *sizes = get_slot(self, S_SIZES);
    if (sizes == NULL)
        return -1;
    if (!PyList_Check(sizes) || PyList_GET_SIZE(sizes) < 2 || PyList_GET_SIZE(sizes) > MAX_SEATS) {
        PyErr_SetString(PyExc_ValueError, "a Foolery state's sizes must be a list of 2..8 seats");
        return -1;
    }
    return (long)PyList_GET_SIZE(sizes);
}

/* The observation tensor's length (float32 values) at n seats (observe.observation_tensor). */
static Py_ssize_t
tensor_length(long n)
{
    return CARD_BLOCKS * TENSOR_CARDS + (SEAT_FIELDS + 1) * n + 14;
}

/* _write_tensor(seat, out) -> bool: the observation tensor of seat written into out (a writable, C-contiguous
 * float32 buffer of the tensor's length); False, writing nothing, for a seat that is no int of 0..N-1 (the
 * caller raises the game's own error). */
static PyObject *
write_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_write_tensor(seat, out) takes 2 arguments");
        return NULL;
    }
    long n = seat_count(self), seat;
    if (n < 0)
        return NULL;
    if (!PyLong_CheckExact(args[0]) || read_long(args[0], &seat) < 0 || seat < 0 || seat >= n) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t length = tensor_length(n);
    if (view.format == NULL || strcmp(view.format, "f") != 0 || view.itemsize != 4 || view.len != 4 * length) {
        PyErr_Format(PyExc_ValueError, "_write_tensor: out must be float32 of %zd values", length);
        PyBuffer_Release(&view);
        return NULL;
    }
    int r = fill_tensor(self, seat, n, (float *)view.buf);
    PyBuffer_Release(&view);
    if (r < 0)
        return NULL;
    Py_RETURN_TRUE;
}

/* observation_bytes(seat) -> bytes: the observation tensor of seat (observe.observation_tensor) as its float32 bytes,
 * the compiled State.observation_bytes. A seat that is no int of 0..N-1 is checked by the state's check_seat (the
 * game's own error), then taken as an index (a NumPy integer seat). */
static PyObject *
observation_bytes(PyObject *self, PyObject *seat_obj)
{
    long n = seat_count(self), seat;
    if (n < 0)
        return NULL;
    if (!PyLong_CheckExact(seat_obj) || read_long(seat_obj, &seat) < 0 || seat < 0 || seat >= n) {
        PyErr_Clear();
        PyObject *checked = PyObject_CallMethod(self, "check_seat", "O", seat_obj);
        if (checked == NULL)
            return NULL;
        Py_DECREF(checked);
        PyObject *index = PyNumber_Index(seat_obj);
        if (index == NULL)
            return NULL;
        int bad = read_long(index, &seat) < 0;
        Py_DECREF(index);
        if (bad || seat < 0 || seat >= n) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "observation_bytes: the seat is out of range");
            return NULL;
        }
    }
    Py_ssize_t length = tensor_length(n);
    PyObject *out = PyBytes_FromStringAndSize(NULL, length * (Py_ssize_t)sizeof(float));
    if (out == NULL)
        return NULL;
    if (fill_tensor(self, seat, n, (float *)PyBytes_AS_STRING(out)) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyMethodDef state_methods[] = {
    {"legal_actions", legal_actions, METH_NOARGS,
     "Legal action ids, sorted (cached until the next move); the compiled FooleryRules.legal_actions."},
    {"_is_legal", is_legal, METH_O,
     "Is action legal now? Read from the cached legal list (FooleryRules._is_legal), compiled."},
    {"_apply", apply_, METH_O, "Apply a legal action (FooleryRules._apply), compiled."},
    {"is_terminal", is_terminal, METH_NOARGS, "Whether the match is over."},
    {"observation_bytes", observation_bytes, METH_O,
     "The observation tensor of a seat as its float32 bytes (State.observation_bytes), compiled."},
    {"legal_mask_bytes", legal_mask_bytes, METH_NOARGS,
     "One byte per action id, 1 at the legal ones (State.legal_mask_bytes), compiled: read from the cached legal list."},
    {"_write_tensor", (PyCFunction)(void (*)(void))write_tensor, METH_FASTCALL,
     "_write_tensor(seat, out) -> bool: seat's observation tensor (observe.observation_tensor) written into out, a\n"
     "writable C-contiguous float32 buffer of its length; False, writing nothing, for a seat that is no int 0..N-1.\n\n"
     "Raises:\n    ValueError: for an out of another type or length."},
    {NULL, NULL, 0, NULL}};

/* ---- install ------------------------------------------------------------------------------------------ */
static int
int_table(PyObject *tables, const char *name, int **out)
{
    PyObject *seq = PyDict_GetItemString(tables, name);
    if (seq == NULL || (!PyList_Check(seq) && !PyTuple_Check(seq)) || PySequence_Size(seq) != num_actions) {
        PyErr_Format(PyExc_ValueError, "install: table '%s' must hold one int per action", name);
        return -1;
    }
    int *t = PyMem_Calloc((size_t)num_actions, sizeof(int));
    if (t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int a = 0; a < num_actions; a++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, a);
        long v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(t);
            return -1;
        }
        t[a] = (int)v;
    }
    *out = t;
    return 0;
}

static unsigned char *
byte_table(const int *t)
{
    unsigned char *b = PyMem_Calloc((size_t)num_actions, 1);
    if (b == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (int a = 0; a < num_actions; a++)
        b[a] = (unsigned char)t[a];
    return b;
}

static PyObject *
install(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *cls, *tables;
    if (!PyArg_ParseTuple(args, "O!O!:install", &PyType_Type, &cls, &PyDict_Type, &tables))
        return NULL;
    if (num_actions) {
        PyErr_SetString(PyExc_RuntimeError, "install: the compiled Foolery core is installed once");
        return NULL;
    }
    if (read_slot_offsets(cls, SLOT_NAMES, S_COUNT, slot_offset) < 0)
        return NULL;
    PyObject *masks = PyDict_GetItemString(tables, "A_MASK");
    if (masks == NULL || !PyList_Check(masks)) {
        PyErr_SetString(PyExc_ValueError, "install: A_MASK must be a list");
        return NULL;
    }
    num_actions = (int)PyList_GET_SIZE(masks);
    int *kind, *size, *top;
    if (int_table(tables, "A_KIND", &kind) < 0 || int_table(tables, "A_SIZE", &size) < 0
        || int_table(tables, "A_TOP", &top) < 0 || int_table(tables, "A_STR", &a_str) < 0
        || int_table(tables, "SKIP_RANK", &skip_rank) < 0)
        goto fail;
    if (int_table(tables, "STR_ACE_HIGH", &str_ace_high) < 0)
        goto fail;
    {
        PyObject *offsets = PyDict_GetItemString(tables, "FLUSH_OFFSET");
        PyObject *bases = PyDict_GetItemString(tables, "FLUSH_SUIT_BASE");
        PyObject *aces = PyDict_GetItemString(tables, "ACE_HIGH_FLUSH");
        PyObject *firsts = PyDict_GetItemString(tables, "BASES");
        if (offsets == NULL || !PyList_Check(offsets) || PyList_GET_SIZE(offsets) != 1 << 14 || bases == NULL
            || !PyTuple_Check(bases) || PyTuple_GET_SIZE(bases) != 4 || aces == NULL || !PyTuple_Check(aces)
            || PyTuple_GET_SIZE(aces) != 4 || firsts == NULL || !PyTuple_Check(firsts) || PyTuple_GET_SIZE(firsts) != 3) {
            PyErr_SetString(PyExc_ValueError, "install: the 5-card tables are missing or of the wrong size");
            goto fail;
        }
        flush_offset = PyMem_Calloc(1 << 14, sizeof(int));
        if (flush_offset == NULL)
            goto fail;
        for (int i = 0; i < 1 << 14; i++)
            flush_offset[i] = (int)PyLong_AsLong(PyList_GET_ITEM(offsets, i));
        for (int i = 0; i < 4; i++) {
            flush_suit_base[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(bases, i));
            ace_high_flush[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(aces, i));
        }
        five_base = (int)PyLong_AsLong(PyTuple_GET_ITEM(firsts, 0));
        full_house_base = (int)PyLong_AsLong(PyTuple_GET_ITEM(firsts, 1));
        five_kind_base = (int)PyLong_AsLong(PyTuple_GET_ITEM(firsts, 2));
        if (PyErr_Occurred())
            goto fail;
    }
    a_kind = byte_table(kind);
    a_size = byte_table(size);
    a_top = byte_table(top);
    PyMem_Free(kind);
    PyMem_Free(size);
    PyMem_Free(top);
    a_mask = PyMem_Calloc((size_t)num_actions, sizeof(u128));
    action_obj = PyMem_Calloc((size_t)num_actions, sizeof(PyObject *));
    if (a_kind == NULL || a_size == NULL || a_top == NULL || a_mask == NULL || action_obj == NULL)
        goto fail;
    for (int a = 0; a < num_actions; a++) {
        if (to_u128(PyList_GET_ITEM(masks, a), &a_mask[a]) < 0 || (action_obj[a] = PyLong_FromLong(a)) == NULL)
            goto fail;
        if (a_kind[a] == K_TRUMP) {  /* the trump numbers of the set, ascending */
            int nums[3], k = 0;
            u128 m = a_mask[a];
            while (m && k < 3) {
                int c = ctz128(m);
                nums[k++] = c - 55;
                m &= m - 1;
            }
            if (k == 1)
                single_id[nums[0]] = a;
            else if (k == 2)
                pair_id[nums[0]][nums[1]] = a;
            else
                triple_id[nums[0]][nums[1]][nums[2]] = a;
        }
    }
    for (unsigned nib = 0; nib < 16; nib++)
        for (unsigned sub = 1; sub < 16; sub++)
            if ((sub & nib) == sub) {
                int k = __builtin_popcount(sub);
                SUBSETS[0][nib][SUBSET_COUNT[0][nib]++] = (unsigned char)sub;
                SUBSETS[k][nib][SUBSET_COUNT[k][nib]++] = (unsigned char)sub;
            }
    pass_events = PyDict_GetItemString(tables, "PASS_EVENTS");
    pass_only = PyDict_GetItemString(tables, "PASS_ONLY");
    py_legal_actions = PyObject_GetAttrString(cls, "legal_actions");
    py_apply = PyObject_GetAttrString(cls, "_apply");
    if (pass_events == NULL || !PyTuple_Check(pass_events) || PyTuple_GET_SIZE(pass_events) < MAX_SEATS
        || pass_only == NULL || py_legal_actions == NULL || py_apply == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "install: PASS_EVENTS (8 events) and PASS_ONLY are needed");
        goto fail;
    }
    Py_INCREF(pass_events);
    Py_INCREF(pass_only);
    PyObject *out = bind_methods(cls, state_methods);
    if (out == NULL)
        goto fail;
    return out;
fail:
    num_actions = 0;
    return NULL;
}

/* deal(rng, players, dealer) -> hands: FooleryRules.shuffle_deal's hands (FY-R1, FY-D19) from a random.Random,
 * drawing exactly the numbers cards.shuffle_as_random draws (random.Random.shuffle's Fisher-Yates loop with its
 * rejection sampling): getrandbits(k) for k <= 32 is the top k bits of the generator's next 32-bit word, and
 * getrandbits(32 m) is its next m words, the first the lowest; so the words are drawn in batches, never more
 * than the steps left need (each takes at least one word), and the generator ends where the loop leaves it. */
static PyObject *
deal(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    long players, dealer;
    if (nargs != 3 || read_long(args[1], &players) < 0 || read_long(args[2], &dealer) < 0 || players < 1
        || players > MAX_SEATS || dealer < 0 || dealer >= players) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "deal(rng, players, dealer): players 1..8, dealer a seat");
        return NULL;
    }
    PyObject *getrandbits = PyObject_GetAttrString(args[0], "getrandbits");
    if (getrandbits == NULL)
        return NULL;
    int items[78];
    unsigned int words[78];
    unsigned char bytes[4 * 78];
    int have = 0, used = 0;
    for (int c = 0; c < 78; c++)
        items[c] = c;
    for (int i = 77; i > 0; i--) {
        int n = i + 1, k = 32 - __builtin_clz((unsigned)n);
        unsigned j;
        do {
            if (used == have) {
                int batch = PY_LITTLE_ENDIAN ? i : 1;  /* the steps left, this one included */
                PyObject *bits = PyLong_FromLong(32L * batch);
                PyObject *v = bits == NULL ? NULL : PyObject_CallOneArg(getrandbits, bits);
                Py_XDECREF(bits);
                int bad = v == NULL || !PyLong_Check(v);
#if PY_VERSION_HEX >= 0x030D0000
                bad = bad || PyLong_AsNativeBytes(v, bytes, 4 * batch, Py_ASNATIVEBYTES_LITTLE_ENDIAN
                                                  | Py_ASNATIVEBYTES_UNSIGNED_BUFFER) < 0;
#else
                bad = bad || _PyLong_AsByteArray((PyLongObject *)v, bytes, (size_t)(4 * batch), 1, 0) < 0;
#endif
                Py_XDECREF(v);
                if (bad) {
                    Py_DECREF(getrandbits);
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_TypeError, "rng.getrandbits must return an int");
                    return NULL;
                }
                for (int w = 0; w < batch; w++)
                    words[w] = (unsigned)bytes[4 * w] | (unsigned)bytes[4 * w + 1] << 8
                               | (unsigned)bytes[4 * w + 2] << 16 | (unsigned)bytes[4 * w + 3] << 24;
                have = batch;
                used = 0;
            }
            j = words[used++] >> (32 - k);
        } while (j >= (unsigned)n);
        int t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
    Py_DECREF(getrandbits);
    u128 hands[MAX_SEATS] = {0};
    for (int i = 0; i < 78; i++)
        hands[(dealer + 1 + i % players) % players] |= (u128)1 << items[i];
    PyObject *out = PyList_New(players);
    if (out == NULL)
        return NULL;
    for (long q = 0; q < players; q++) {
        PyObject *h = from_u128(hands[q]);
        if (h == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, q, h);
    }
    return out;
}

static PyMethodDef module_methods[] = {
    {"deal", (PyCFunction)(void (*)(void))deal, METH_FASTCALL,
     "deal(rng, players, dealer) -> hands: the shuffle and deal of FooleryRules.shuffle_deal, compiled."},
    {"install", install, METH_VARARGS,
     "install(cls, tables) -> {name: method}: the compiled methods of the Foolery state class cls (rules.py)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "motley.games.foolery._native",
    "The compiled core of Foolery's rules (legal_actions, _is_legal, _apply, is_terminal); see rules.py.", -1,
    module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    fill_byte_floats();
#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) { Py_DECREF(m); return NULL; }
    INTERN(s_ace_high, "ace_high")
    INTERN(s_any_trump, "any_trump")
    INTERN(s_end_hand, "_end_hand")
    INTERN(s_trump_variation, "trump_variation")
    INTERN(s_skip_rule, "skip_rule")
    INTERN(s_locks_out, "locks_out")
    INTERN(s_seats_after, "seats_after")
    INTERN(s_next_holding, "next_holding")
    INTERN(s_hands_total, "hands_total")
#undef INTERN
    return m;
}
