/* The compiled observation tensor of Fool!: observe.observation_tensor (the reference, Python) written by C from a
 * state's slots (FoolState.observation_tensor, so the PettingZoo and Gymnasium environments; the batch observer's
 * rows). It reads the state, it plays no rule: the moves, their legality and every other field stay the Python
 * engine's (rules.py).
 *
 * install(cls, tables) reads the slot offsets of the state class (FoolRules) and the tables observe.py gives it
 * (the layout's offsets per player count, the colour of each card id), and returns {"_write_tensor": method},
 * a method descriptor bound to cls; observe.py keeps it (NATIVE_WRITE) unless MOTLEY_PURE_PYTHON=1. The values
 * are computed as the reference computes them (the same double divisions rounded to float32, the W1 counts added
 * 1/6 at a time in float32), so the bytes are the same (tests/games/test_fool_native_tensor.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "../../core/_slots.h"
#include <math.h>
#include <string.h>

#define H 83            /* a card block: 82 coloured cards, then the W1 count / 6 */
#define W1 82           /* the id every W1 is held and played as (FL-D12) */
#define NUM_CARDS 88
#define WILD 4          /* the colour index of the W1s */
#define MAX_SEATS 8

enum { S_HANDS, S_TRICK, S_TRICKS, S_LEAD, S_SIZES, S_OUT, S_DONE, S_ORDER, S_POS, S_DEALER, S_ROUND, S_TOTALS,
       S_BONUSES, S_LAST, S_GAME, S_COUNT };
static const char *SLOT_NAMES[S_COUNT] = {
    "hands", "trick", "tricks", "lead", "sizes", "out", "done", "order", "pos", "dealer", "round_number", "totals",
    "bonuses", "last", "game"};
static Py_ssize_t slot_offset[S_COUNT];

/* The layout's offsets (observe.tensor_layout) per player count, in this order; size 0: no layout. */
enum { L_SIZE, L_HAND, L_PLAYED, L_TRICK, L_LEAD, L_SIZES, L_OUT, L_MOVE, L_DEALER, L_LEADER, L_VOIDS, L_TOTALS,
       L_BONUSES, L_LAST, L_DECK, L_ROUND, L_TRICKS_DONE, L_OVER, L_ASSUMED, L_TWO_FOOLS, L_COUNT };
static Py_ssize_t layout[MAX_SEATS + 1][L_COUNT];
static unsigned char colour[NUM_CARDS];
static int installed = 0;

/* What the tensor reads of a game (a game's options never change). */
typedef struct {
    PyObject *game;
    float deck[H];
    float assumed, two_fools;
    double bonus_scale;
} GameConsts;
/* The last game read: one entry, holding the game; replaced whole, with no Python code run in between. */
static GameConsts game_consts = {NULL, {0}, 0, 0, 1.0};

static PyObject *s_deck_block, *s_deck_assumed, *s_num_fools, *s_params, *s_end_bonus_count, *s_scores;

/* ---- reading the state ---------------------------------------------------------------------------------- */
static inline PyObject *
get_slot(PyObject *self, int i)
{
    PyObject *v = *(PyObject **)((char *)self + slot_offset[i]);
    if (v == NULL)
        PyErr_Format(PyExc_AttributeError, "a Fool! state without its '%s'", SLOT_NAMES[i]);
    return v;
}

/* The items and length of a list or a tuple (borrowed); -1 with TypeError for anything else. */
static inline int
items_of(PyObject *seq, PyObject ***items, Py_ssize_t *len, const char *what)
{
    if (PyList_Check(seq)) {
        *items = ((PyListObject *)seq)->ob_item;
        *len = PyList_GET_SIZE(seq);
        return 0;
    }
    if (PyTuple_Check(seq)) {
        *items = ((PyTupleObject *)seq)->ob_item;
        *len = PyTuple_GET_SIZE(seq);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "a Fool! state's %s must be a list or a tuple", what);
    return -1;
}

/* A small int in [low, high) (a card, a seat, a colour); -1 with an error otherwise. */
static inline int
small_int(PyObject *obj, long low, long high, long *out, const char *what)
{
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < low || v >= high) {
        PyErr_Format(PyExc_ValueError, "a Fool! state's %s is out of range: %ld", what, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* A number as Python's true division by a float takes it: an int as float(int) (exact below 2**53), a float as it is. */
static inline int
as_double(PyObject *obj, double *out)
{
    if (PyLong_CheckExact(obj)) {
        int overflow;
        long v = PyLong_AsLongAndOverflow(obj, &overflow);
        if (!overflow && v > -(1L << 53) && v < (1L << 53)) {
            *out = (double)v;
            return 0;
        }
        if (v == -1 && PyErr_Occurred())
            return -1;
    }
    else if (PyFloat_CheckExact(obj)) {
        *out = PyFloat_AS_DOUBLE(obj);
        return 0;
    }
    *out = PyFloat_AsDouble(obj);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

/* The relative seat of seat s seen from seat (both 0..n-1): (s - seat) mod n. */
static inline long
rel(long s, long seat, long n)
{
    long r = s - seat;
    return r < 0 ? r + n : r;
}

static inline double
clip(double v, double low, double high)
{
    return v > high ? high : (v < low ? low : v);
}

/* What the tensor takes from the game (the deck's block, the deck table assumed, two Fools, the bonus count of the
 * match's end) into *g: the entry kept, or read and kept (read into a local first: reading runs Python code, during
 * which another thread may read another game). */
static int
read_game(PyObject *game, GameConsts *g)
{
    if (game == game_consts.game) {
        *g = game_consts;
        return 0;
    }
    g->game = game;
    PyObject *deck = PyObject_GetAttr(game, s_deck_block);
    if (deck == NULL)
        return -1;
    Py_buffer view;
    int bad = PyObject_GetBuffer(deck, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS);
    Py_DECREF(deck);
    if (bad < 0)
        return -1;
    if (view.format == NULL || strcmp(view.format, "f") != 0 || view.len != H * 4) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the game's deck_block must be float32 of 83 values");
        return -1;
    }
    memcpy(g->deck, view.buf, sizeof g->deck);
    PyBuffer_Release(&view);
    PyObject *assumed = PyObject_GetAttr(game, s_deck_assumed);
    PyObject *fools = assumed == NULL ? NULL : PyObject_GetAttr(game, s_num_fools);
    PyObject *params = fools == NULL ? NULL : PyObject_GetAttr(game, s_params);
    PyObject *count = params == NULL ? NULL : PyObject_GetItem(params, s_end_bonus_count);
    int ok = count != NULL;
    int truth = ok ? PyObject_IsTrue(assumed) : -1;
    long num_fools = ok ? PyLong_AsLong(fools) : -1;
    double scale = ok ? PyFloat_AsDouble(count) : -1.0;
    Py_XDECREF(assumed);
    Py_XDECREF(fools);
    Py_XDECREF(params);
    Py_XDECREF(count);
    if (!ok || truth < 0 || PyErr_Occurred())
        return -1;
    g->assumed = truth ? 1.0f : 0.0f;
    g->two_fools = num_fools == 2 ? 1.0f : 0.0f;
    g->bonus_scale = scale;
    PyObject *old = game_consts.game;
    Py_INCREF(game);
    game_consts = *g;
    Py_XDECREF(old);
    return 0;
}

/* One trick's plays (seat << 7 | card): the cards each seat played (the played blocks; the trick blocks too when
 * current), the W1s each seat played (w1, added 1/6 at a time in float32 as the reference adds them) and the voids
 * they show (FL-R6: a card of another colour after the lead colour was set, by the first card that is no W1;
 * FL-R7: a W1 shows nothing). */
static int
read_plays(PyObject *plays, long seat, long n, const Py_ssize_t *L, float *out, float *w1, int *voids,
           int current)
{
    PyObject **items;
    Py_ssize_t len;
    if (items_of(plays, &items, &len, "trick") < 0)
        return -1;
    const float sixth = (float)(1.0 / 6.0);
    int lead = -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        long t;
        if (small_int(items[i], 0, (long)n << 7, &t, "play") < 0)
            return -1;
        long p = t >> 7, c = t & 127;
        if (c >= NUM_CARDS) {
            PyErr_Format(PyExc_ValueError, "a Fool! state's play holds no card: %ld", t);
            return -1;
        }
        long r = rel(p, seat, n);
        if (c >= W1) {
            w1[p] += sixth;
            if (current)
                out[L[L_TRICK] + H * r + W1] += sixth;
            continue;  /* FL-R7: a W1 sets no colour and shows no void */
        }
        out[L[L_PLAYED] + H * r + c] = 1.0f;
        if (current)
            out[L[L_TRICK] + H * r + c] = 1.0f;
        int col = colour[c];
        if (lead < 0)
            lead = col;
        else if (col != lead)
            voids[p] |= 1 << lead;
    }
    return 0;
}

/* Per seat s, out[at + r(s)] = values[s] / scale clipped to [low, high], at the relative seat r(s) of s. */
static int
per_seat(PyObject *values, long seat, long n, float *out, Py_ssize_t at, double scale, double low, double high,
         const char *what)
{
    PyObject **items;
    Py_ssize_t len;
    if (items_of(values, &items, &len, what) < 0)
        return -1;
    if (len != n) {
        PyErr_Format(PyExc_ValueError, "a Fool! state's %s must hold one value per seat", what);
        return -1;
    }
    for (long s = 0; s < n; s++) {
        double v;
        if (as_double(items[s], &v) < 0)
            return -1;
        out[at + rel(s, seat, n)] = (float)clip(v / scale, low, high);
    }
    return 0;
}

/* The observation tensor of seat at n seats (observe.observation_tensor), written into out (L: its layout). */
static int
fill_tensor(PyObject *self, long seat, long n, float *out)
{
    const Py_ssize_t *L = layout[n];
    GameConsts consts;
    PyObject *game = get_slot(self, S_GAME);
    if (game == NULL || read_game(game, &consts) < 0)
        return -1;
    memset(out, 0, (size_t)L[L_SIZE] * sizeof(float));
    PyObject **items, **colours;
    Py_ssize_t len, count;
    /* my hand: its coloured cards, the W1 count / 6 */
    PyObject *hands = get_slot(self, S_HANDS);
    if (hands == NULL || items_of(hands, &items, &len, "hands") < 0)
        return -1;
    if (len != n) {
        PyErr_SetString(PyExc_ValueError, "a Fool! state must hold one hand per seat");
        return -1;
    }
    if (items_of(items[seat], &colours, &count, "hand") < 0)
        return -1;
    if (count != 5) {
        PyErr_SetString(PyExc_ValueError, "a Fool! hand must hold five lists (G R Y B W)");
        return -1;
    }
    for (int col = 0; col < 4; col++) {
        PyObject **cards;
        Py_ssize_t k;
        if (items_of(colours[col], &cards, &k, "hand") < 0)
            return -1;
        for (Py_ssize_t i = 0; i < k; i++) {
            long c;
            if (small_int(cards[i], 0, W1, &c, "card") < 0)
                return -1;
            out[L[L_HAND] + c] = 1.0f;
        }
    }
    if (items_of(colours[WILD], &items, &len, "hand") < 0)
        return -1;
    out[L[L_HAND] + W1] = (float)((double)len / 6.0);
    /* the cards played this round (completed tricks, then the trick on the table) and the voids they show */
    float w1[MAX_SEATS] = {0};
    int voids[MAX_SEATS] = {0};
    PyObject *tricks = get_slot(self, S_TRICKS);
    Py_ssize_t done_tricks;
    if (tricks == NULL || items_of(tricks, &items, &done_tricks, "tricks") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < done_tricks; i++) {
        PyObject **fields;
        if (items_of(items[i], &fields, &len, "completed trick") < 0)
            return -1;
        if (len < 1) {
            PyErr_SetString(PyExc_ValueError, "a Fool! state's completed trick holds no plays");
            return -1;
        }
        if (read_plays(fields[0], seat, n, L, out, w1, voids, 0) < 0)
            return -1;
    }
    PyObject *trick = get_slot(self, S_TRICK);
    if (trick == NULL || read_plays(trick, seat, n, L, out, w1, voids, 1) < 0)
        return -1;
    for (long s = 0; s < n; s++) {
        long r = rel(s, seat, n);
        if (w1[s] != 0.0f)
            out[L[L_PLAYED] + H * r + W1] = w1[s];
        for (int col = 0; col < 4; col++)
            if (voids[s] >> col & 1)
                out[L[L_VOIDS] + 4 * r + col] = 1.0f;
    }
    long v;
    PyObject *lead = get_slot(self, S_LEAD);
    if (lead == NULL || small_int(lead, -1, 4, &v, "lead colour") < 0)
        return -1;
    if (v >= 0)
        out[L[L_LEAD] + v] = 1.0f;
    PyObject *sizes = get_slot(self, S_SIZES);
    if (sizes == NULL || per_seat(sizes, seat, n, out, L[L_SIZES], 12.0, -INFINITY, INFINITY, "hand sizes") < 0)
        return -1;
    PyObject *sitting = get_slot(self, S_OUT);
    if (sitting == NULL || items_of(sitting, &items, &len, "seats sitting out") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        if (small_int(items[i], 0, n, &v, "seat") < 0)
            return -1;
        out[L[L_OUT] + rel(v, seat, n)] = 1.0f;
    }
    PyObject *done = get_slot(self, S_DONE);
    if (done == NULL)
        return -1;
    int over = PyObject_IsTrue(done);
    if (over < 0)
        return -1;
    if (!over) {  /* the seat to move and the trick's leader */
        PyObject *order = get_slot(self, S_ORDER), *pos = get_slot(self, S_POS);
        long at, mover, leader;
        if (order == NULL || pos == NULL || items_of(order, &items, &len, "order") < 0
            || small_int(pos, 0, len, &at, "position in the trick") < 0
            || small_int(items[at], 0, n, &mover, "seat") < 0 || small_int(items[0], 0, n, &leader, "seat") < 0)
            return -1;
        out[L[L_MOVE] + rel(mover, seat, n)] = 1.0f;
        out[L[L_LEADER] + rel(leader, seat, n)] = 1.0f;
    }
    out[L[L_TRICKS_DONE]] = (float)clip((double)done_tricks / 12.0, 0.0, 1.0);
    out[L[L_OVER]] = over ? 1.0f : 0.0f;
    /* the fields that stay the same through a round */
    PyObject *dealer = get_slot(self, S_DEALER);
    if (dealer == NULL || small_int(dealer, 0, n, &v, "dealer") < 0)
        return -1;
    out[L[L_DEALER] + rel(v, seat, n)] = 1.0f;
    PyObject *totals = get_slot(self, S_TOTALS), *bonuses = get_slot(self, S_BONUSES);
    if (totals == NULL || bonuses == NULL
        || per_seat(totals, seat, n, out, L[L_TOTALS], 100.0, -1.0, 1.0, "totals") < 0
        || per_seat(bonuses, seat, n, out, L[L_BONUSES], consts.bonus_scale, -INFINITY, 1.0,
                    "bonus counts") < 0)
        return -1;
    PyObject *last = get_slot(self, S_LAST);
    if (last == NULL)
        return -1;
    if (last != Py_None) {
        PyObject *scores = PyObject_GetItem(last, s_scores);
        if (scores == NULL)
            return -1;
        int bad = per_seat(scores, seat, n, out, L[L_LAST], 100.0, -1.0, 1.0, "last round's scores");
        Py_DECREF(scores);
        if (bad < 0)
            return -1;
    }
    memcpy(out + L[L_DECK], consts.deck, sizeof consts.deck);
    double round_number;
    PyObject *round = get_slot(self, S_ROUND);
    if (round == NULL || as_double(round, &round_number) < 0)
        return -1;
    out[L[L_ROUND]] = (float)(round_number / 20.0 > 1.0 ? 1.0 : round_number / 20.0);
    out[L[L_ASSUMED]] = consts.assumed;
    out[L[L_TWO_FOOLS]] = consts.two_fools;
    return 0;
}

/* The number of seats of a state (its hands), with a layout for it; -1 with an error otherwise. */
static long
seat_count(PyObject *self)
{
    PyObject *hands = get_slot(self, S_HANDS);
    if (hands == NULL)
        return -1;
    if (!PyList_Check(hands)) {
        PyErr_SetString(PyExc_TypeError, "a Fool! state's hands must be a list");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(hands);
    if (n < 1 || n > MAX_SEATS || layout[n][L_SIZE] == 0) {
        PyErr_Format(PyExc_ValueError, "no tensor layout for %zd seats", n);
        return -1;
    }
    return (long)n;
}

/* _write_tensor(seat, out) -> bool: the observation tensor of seat written into out (a writable, C-contiguous
 * float32 buffer of the tensor's length); False, writing nothing, for a seat that is no int of 0..n-1 (the
 * caller raises the game's own error). */
static PyObject *
write_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_write_tensor(seat, out) takes 2 arguments");
        return NULL;
    }
    long n = seat_count(self);
    if (n < 0)
        return NULL;
    int overflow;
    long seat = PyLong_CheckExact(args[0]) ? PyLong_AsLongAndOverflow(args[0], &overflow) : -1;
    if (seat < 0 || seat >= n) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t length = layout[n][L_SIZE];
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

static PyMethodDef state_methods[] = {
    {"_write_tensor", (PyCFunction)(void (*)(void))write_tensor, METH_FASTCALL,
     "_write_tensor(seat, out) -> bool: seat's observation tensor (observe.observation_tensor) written into out, a\n"
     "writable C-contiguous float32 buffer of its length (ValueError otherwise); False, nothing written, for a seat\n"
     "that is no int of 0..n-1."},
    {NULL, NULL, 0, NULL}};

/* ---- install ---------------------------------------------------------------------------------------------- */
static PyObject *
install(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *cls, *tables;
    if (!PyArg_ParseTuple(args, "O!O!:install", &PyType_Type, &cls, &PyDict_Type, &tables))
        return NULL;
    if (installed) {
        PyErr_SetString(PyExc_RuntimeError, "install: the compiled Fool! tensor is installed once");
        return NULL;
    }
    if (read_slot_offsets(cls, SLOT_NAMES, S_COUNT, slot_offset) < 0)
        return NULL;
    PyObject *colours = PyDict_GetItemString(tables, "COLOUR");
    if (colours == NULL || !PyTuple_Check(colours) || PyTuple_GET_SIZE(colours) != NUM_CARDS) {
        PyErr_SetString(PyExc_ValueError, "install: COLOUR must be a tuple of 88 colours");
        return NULL;
    }
    for (int c = 0; c < NUM_CARDS; c++) {
        long col;
        if (small_int(PyTuple_GET_ITEM(colours, c), 0, 5, &col, "colour") < 0)
            return NULL;
        colour[c] = (unsigned char)col;
    }
    PyObject *layouts = PyDict_GetItemString(tables, "LAYOUT");
    if (layouts == NULL || !PyDict_Check(layouts)) {
        PyErr_SetString(PyExc_ValueError, "install: LAYOUT must be a dict {players: offsets}");
        return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(layouts, &pos, &key, &value)) {
        long n;
        if (small_int(key, 1, MAX_SEATS + 1, &n, "player count") < 0)
            return NULL;
        if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != L_COUNT) {
            PyErr_Format(PyExc_ValueError, "install: LAYOUT[%ld] must be a tuple of %d offsets", n, L_COUNT);
            return NULL;
        }
        for (int i = 0; i < L_COUNT; i++) {
            Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(value, i));
            if (at == -1 && PyErr_Occurred())
                return NULL;
            layout[n][i] = at;
        }
    }
    PyObject *methods = bind_methods(cls, state_methods);
    if (methods == NULL)
        return NULL;
    installed = 1;
    return methods;
}

static PyMethodDef module_methods[] = {
    {"install", install, METH_VARARGS,
     "install(cls, tables) -> {name: method}: the compiled tensor writer of the Fool! state class cls (game.py)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "motley.games.fool._native",
    "The compiled observation tensor of Fool! (observe.observation_tensor, written from the state's slots).", -1,
    module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
#define INTERN(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) { Py_DECREF(m); return NULL; }
    INTERN(s_deck_block, "deck_block")
    INTERN(s_deck_assumed, "deck_assumed")
    INTERN(s_num_fools, "num_fools")
    INTERN(s_params, "params")
    INTERN(s_end_bonus_count, "end_bonus_count")
    INTERN(s_scores, "scores")
#undef INTERN
    return m;
}
