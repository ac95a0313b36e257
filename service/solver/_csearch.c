/* The depth-first and best-first searches of service/solver/search.py
 * (Searcher.dfs, Searcher.best_first), in C.
 *
 * A faithful port: the same position (columns, foundations, talon, p), the same
 * moves in the same order, the same automatic safe foundation plays (not run
 * after a put-down, where they have nothing to play: autoplay_after), the same
 * transposition key and waste dominance, the same pruning (rules 1-4, 6 and 7
 * of search.py; the root's `doomed` check stays in Python).  The transposition
 * table stores an exact encoding of the canonical key (see make_key: 24 bytes,
 * nothing hashed away; a hash only picks the slot), so a hash collision can never
 * prune a position: an exhausted search really is exhaustive.  The Python wrapper (service/solver/fast.py)
 * replays every winning line through the Python move rules and the engine.
 *
 *     Search(cols: list[bytes], found: tuple[int, ...], talon: bytes, p: int,
 *            draw: int, streamline: bool, whole_groups: bool, best_first: bool,
 *            pending: bool)
 *     (best_first=True: the greedy best-first search, same scores and tie-breaks)
 *     (shuffle=S > 0: noise from the seed S added to the moves' scores, see shuffle_noise;
 *      max_bytes=N > 0: the memory budget of the search's tables, see within_memory;
 *      low_autoplay=True: only aces, twos and the cards nothing in play can need are auto-played,
 *      see docs/SOLVER.md;
 *      down=(7 counts): the klondike variant, each column's first cards still face down: a group
 *      moves only from a face-up card, and a column that loses its cards down to them turns the
 *      last one up; None: ours, every card face up)
 *     .step(limit) -> 0 running (limit positions reached), 1 won, 2 exhausted,
 *                     3 stopped at the memory budget (for good)
 *     .nodes       -> positions expanded so far (the root counts 1; a restricted one, rule 7, each
 *                     time it is met: the table does not keep them)
 *     .bytes       -> bytes the search's tables and stacks hold now
 *     .path()      -> list of moves (kind, ...) from the root to the win
 *
 * Moves are the tuples of search.py: (0, src, i, dst) CC, (1, src) CF,
 * (2, i, dst) TC, (3, i) TF, (4, suit, dst) FC.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A column's cards at most: columns only grow by cards that fit their last card (a king: on an empty
 * column), so from a root column whose first k cards stay, at most k + RANK[its k-th card] (<= 7 + 12
 * in any game); Search_init refuses a root that could outgrow it.  The positions of a proof are copied
 * on every step: 40 bytes a column made the search a quarter slower than 20. */
#define MAXCOL 20
#define MAXTALON 24

enum { CC = 0, CF = 1, TC = 2, TF = 3, FC = 4 };
enum { RUNNING = 0, WON = 1, EXHAUSTED = 2, OVER_MEMORY = 3 };
/* Search_init's error for a root whose columns could outgrow MAXCOL (fast.py searches it in Python). */
#define TOO_TALL "a column could outgrow the C core's columns"
/* Search_init's error for a face-down count make_key's 3 bits cannot hold (fast.py searches it in Python). */
#define TOO_MANY_DOWN "more face-down cards in a column than the C core's keys hold"

typedef struct {
    uint8_t cols[7][MAXCOL];
    uint8_t len[7];
    uint8_t found[4];
    uint8_t talon[MAXTALON];
    uint8_t ntalon;
    uint8_t p;
    /* Free cards just put down that the next moves must use (see gen_moves): NO_PEND, or the card
     * (| PEND_FC when it came from a foundation); pend2 is NO_PEND unless two are pending. */
    uint8_t pend, pend2;
    /* Per column, how many cards at its bottom no move has touched since the root: a lower bound of
     * make_key's root part, so that it rarely compares with the root (0 after unpack: unknown). */
    uint8_t untouched[7];
    /* Per column, where the ordered run at its top starts (0 when empty): a card put on a column
     * fits its last card, so only a move that takes the whole run off changes it (apply). */
    uint8_t run[7];
    /* make_key's part of column c (column_code) when bit c of coded is set: a move changes one or
     * two columns, so a key mostly reuses its parent's parts (apply clears the bits it changes). */
    uint8_t coded;
    uint8_t code_bits[7];
    /* The klondike variant: per column, how many of its first cards are face down (always 0 in ours);
     * here, where it fills the padding before code (the positions are copied at every step). */
    uint8_t down[7];
    uint32_t code[7];
    /* Bit k: the root's k-th talon card is still in the talon, which only loses cards and keeps
     * their order (talon_remove clears it): make_key's talon part, and where a card lies in the
     * talon (talon_index). */
    uint32_t talon_bits;
} State;

#define NO_PEND 255
#define PEND_KIND_FC 1
#define PEND_KIND_TC 2
#define IS_RED(c) ((c) >= 13 && (c) < 39)
#define PEND_FC 0x80
#define PEND_CARD 0x3f

typedef struct {
    uint8_t kind, a, b, c;
} Move;

/* -- card tables ------------------------------------------------------------ */

static uint8_t RANK[52], SUIT[52];
static uint8_t OPP[4][2];
static uint8_t SAME_OTHER[4];
static uint8_t NPARENTS[52], PARENTS[52][2];
static uint8_t NCHILDREN[52], CHILDREN[52][2];
static uint8_t CHILD_BIT[52][52]; /* CHILD_BIT[c][x]: k when x == CHILDREN[c][k], 2 when x does not fit c */
static const uint8_t KINGS[4] = {12, 25, 38, 51};
#define KING 12

static void init_tables(void)
{
    for (int c = 0; c < 52; c++) {
        RANK[c] = c % 13;
        SUIT[c] = c / 13;
    }
    OPP[0][0] = 1; OPP[0][1] = 2; OPP[3][0] = 1; OPP[3][1] = 2;
    OPP[1][0] = 0; OPP[1][1] = 3; OPP[2][0] = 0; OPP[2][1] = 3;
    SAME_OTHER[0] = 3; SAME_OTHER[3] = 0; SAME_OTHER[1] = 2; SAME_OTHER[2] = 1;
    for (int c = 0; c < 52; c++) {
        NPARENTS[c] = 0;
        NCHILDREN[c] = 0;
    }
    for (int c = 0; c < 52; c++) {
        if (RANK[c] == KING)
            continue;
        for (int k = 0; k < 2; k++)
            PARENTS[c][NPARENTS[c]++] = OPP[SUIT[c]][k] * 13 + RANK[c] + 1;
    }
    /* CHILDREN[c]: the cards x (ascending) with c among PARENTS[x] */
    for (int x = 0; x < 52; x++)
        for (int k = 0; k < NPARENTS[x]; k++) {
            int c = PARENTS[x][k];
            CHILDREN[c][NCHILDREN[c]++] = (uint8_t)x;
        }
    memset(CHILD_BIT, 2, sizeof CHILD_BIT);
    for (int c = 0; c < 52; c++)
        for (int k = 0; k < NCHILDREN[c]; k++)
            CHILD_BIT[c][CHILDREN[c][k]] = (uint8_t)k;
}

static inline int is_parent(int parent, int card)
{
    return CHILD_BIT[parent][card] != 2;
}

static int safe_to_foundation(int card, const uint8_t *found)
{
    int r = RANK[card] + 1;
    if (r <= 2)
        return 1;
    int s = SUIT[card];
    return found[OPP[s][0]] >= r - 2 && found[OPP[s][1]] >= r - 2 && found[SAME_OTHER[s]] >= r - 3;
}

static int eager_to_foundation(int card, const uint8_t *found)
{
    int r = RANK[card] + 1;
    if (r <= 2)
        return 1;
    int s = SUIT[card];
    return found[OPP[s][0]] >= r - 1 && found[OPP[s][1]] >= r - 1;
}

/* Which foundation plays are made automatically (search.py: Searcher.autoplay): the safe rule, the
 * streamlined searches' eager one, only aces, twos and what nothing in play can need (low_autoplay, see
 * docs/SOLVER.md), or none
 * (autoplay=False: the reference the tests hold the others to). */
enum { AUTO_SAFE = 0, AUTO_EAGER = 1, AUTO_LOW = 2, AUTO_NONE = 3 };

static int plays_up(int card, const uint8_t *found, int mode)
{
    if (mode == AUTO_EAGER)
        return eager_to_foundation(card, found);
    if (mode == AUTO_LOW) { /* search.py low_card: docs/SOLVER.md, L1 and L1' */
        int r = RANK[card], s = SUIT[card];
        return r <= 1 || (found[OPP[s][0]] >= r && found[OPP[s][1]] >= r && found[SAME_OTHER[s]] >= r - 1);
    }
    if (mode == AUTO_NONE)
        return 0;
    return safe_to_foundation(card, found);
}

/* -- moves -------------------------------------------------------------------- */

/* Where the ordered run at the top of col[0..len) starts. */
static int run_start(const uint8_t *col, int len)
{
    int start = len ? len - 1 : 0;
    while (start > 0 && is_parent(col[start - 1], col[start]))
        start--;
    return start;
}

static void talon_remove(State *st, int i)
{
    uint32_t bits = st->talon_bits;
    for (int k = 0; k < i; k++)
        bits &= bits - 1;
    st->talon_bits &= ~(bits & -bits); /* the i-th card left is the root's card of the i-th bit set */
    memmove(st->talon + i, st->talon + i + 1, (size_t)(st->ntalon - i - 1));
    st->ntalon--;
    st->p = (uint8_t)i;
}

/* The bits set in x (inline: without -mpopcnt, __builtin_popcount is a library call). */
static inline int bit_count(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* The index in st's talon of a card, -1 when it is not there; talon_at: each card's index in the
 * root's talon (255: none), whose cards left are st's talon_bits, in the same order. */
static inline int talon_index(const State *st, const uint8_t *talon_at, int card)
{
    int at = talon_at[card];
    if (at == 255 || !(st->talon_bits >> at & 1))
        return -1;
    return bit_count(st->talon_bits & ((1u << at) - 1));
}

/* Column c is about to gain cards that fit its last card (a king: c is empty): its run goes on. */
static inline void column_grows(State *st, int c)
{
    if (!st->len[c])
        st->run[c] = 0;
    st->coded &= (uint8_t)~(1u << c);
}

/* Column c has lost cards from its top (klondike: down to its face-down cards, the last turns up). */
static inline void column_shrank(State *st, int c)
{
    int len = st->len[c];
    if (st->down[c] && st->down[c] >= len)
        st->down[c] = (uint8_t)(len - 1);
    if (st->run[c] >= len)
        st->run[c] = (uint8_t)run_start(st->cols[c], len);
    st->coded &= (uint8_t)~(1u << c);
    if (st->untouched[c] > len)
        st->untouched[c] = (uint8_t)len;
}

/* The bookkeeping of a position made from its cards alone (a root, or an unpacked best-first
 * position): each run's start, no key part yet, the talon's bits (talon_at: see SearchObject). */
static void derive_bookkeeping(State *st, const uint8_t *talon_at)
{
    for (int c = 0; c < 7; c++)
        st->run[c] = (uint8_t)run_start(st->cols[c], st->len[c]);
    st->coded = 0;
    st->talon_bits = 0;
    for (int i = 0; i < st->ntalon; i++)
        st->talon_bits |= 1u << talon_at[st->talon[i]];
}

/* Returns 0 when a column would overflow (cannot happen with 52 cards; checked anyway). */
static int apply(State *st, Move m)
{
    switch (m.kind) {
    case CC: {
        int src = m.a, i = m.b, dst = m.c;
        int n = st->len[src] - i;
        if (st->len[dst] + n > MAXCOL)
            return 0;
        memcpy(st->cols[dst] + st->len[dst], st->cols[src] + i, (size_t)n);
        column_grows(st, dst);
        st->len[dst] += n;
        st->len[src] = (uint8_t)i;
        column_shrank(st, src);
        return 1;
    }
    case CF: {
        int src = m.a;
        int card = st->cols[src][--st->len[src]];
        st->found[SUIT[card]]++;
        column_shrank(st, src);
        return 1;
    }
    case TC: {
        int i = m.a, dst = m.b;
        if (st->len[dst] + 1 > MAXCOL)
            return 0;
        column_grows(st, dst);
        st->cols[dst][st->len[dst]++] = st->talon[i];
        talon_remove(st, i);
        return 1;
    }
    case TF: {
        int i = m.a;
        st->found[SUIT[st->talon[i]]]++;
        talon_remove(st, i);
        return 1;
    }
    default: { /* FC */
        int s = m.a, dst = m.b;
        if (st->len[dst] + 1 > MAXCOL)
            return 0;
        column_grows(st, dst);
        st->cols[dst][st->len[dst]++] = (uint8_t)(s * 13 + st->found[s] - 1);
        st->found[s]--;
        return 1;
    }
    }
}

static inline int total_found(const State *st)
{
    return st->found[0] + st->found[1] + st->found[2] + st->found[3];
}

/* -- growable arrays ---------------------------------------------------------- */

typedef struct {
    Move *v;
    size_t n, cap;
} MoveVec;

/* The growable array v (*cap items of size bytes) with room for need items, doubling from first:
 * the (maybe moved) array, or NULL when out of memory (v is then still valid and unchanged). */
static void *reserve(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return v;
    size_t grown = *cap ? *cap : first;
    while (grown < need)
        grown *= 2;
    void *moved = realloc(v, grown * size);
    if (moved)
        *cap = grown;
    return moved;
}

static int mv_reserve(MoveVec *mv, size_t extra)
{
    Move *v = reserve(mv->v, &mv->cap, mv->n + extra, sizeof(Move), 1024);
    if (!v)
        return 0;
    mv->v = v;
    return 1;
}

/* Play every safe foundation move (search.py: Searcher.autoplay), recording each one. */
static int autoplay(State *st, const uint8_t *talon_at, int draw, int mode, MoveVec *rec)
{
    for (;;) {
        Move m = {255, 0, 0, 0};
        for (int s = 0; s < 4 && m.kind == 255; s++) {
            int count = st->found[s];
            if (count == 13)
                continue;
            int card = s * 13 + count;
            if (!plays_up(card, st->found, mode))
                continue; /* where it lies does not matter then */
            for (int c = 0; c < 7; c++)
                if (st->len[c] && st->cols[c][st->len[c] - 1] == card) {
                    m.kind = CF;
                    m.a = (uint8_t)c;
                    break;
                }
            if (m.kind == 255 && draw == 1) {
                int i = talon_index(st, talon_at, card);
                if (i >= 0) {
                    m.kind = TF;
                    m.a = (uint8_t)i;
                }
            }
        }
        if (m.kind == 255)
            return 1;
        if (!mv_reserve(rec, 1))
            return 0;
        rec->v[rec->n++] = m;
        apply(st, m);
    }
}

typedef struct {
    int score;
    Move m;
} Scored;

#define MAXMOVES 512

static inline void add_move(Scored *out, int *n, int score, int kind, int a, int b, int c)
{
    if (*n >= MAXMOVES)
        return; /* cannot happen: a position has far fewer moves */
    out[*n].score = score;
    out[*n].m.kind = (uint8_t)kind;
    out[*n].m.a = (uint8_t)a;
    out[*n].m.b = (uint8_t)b;
    out[*n].m.c = (uint8_t)c;
    (*n)++;
}

/* search.py: talon_reach, as a membership mask. */
static void talon_reach_mask(int n, int p, int draw, uint8_t *reach)
{
    memset(reach, 0, MAXTALON);
    if (draw == 1) {
        memset(reach, 1, (size_t)n);
        return;
    }
    if (p > 0)
        reach[p - 1] = 1;
    int q = p;
    while (q < n) {
        q = q + draw < n ? q + draw : n;
        reach[q - 1] = 1;
    }
    q = 0;
    while (q < n) {
        q = q + draw < n ? q + draw : n;
        reach[q - 1] = 1;
    }
}

/* search.py: shuffle_noise (the same 32-bit hash of the seed and the move). */
#define SHUFFLE_SPREAD 60 /* search.SHUFFLE_SPREAD: test_csearch compares the two searches */
static inline int shuffle_noise(uint32_t seed, const Move *m)
{
    uint32_t h = seed * 0x9E3779B1u
                 ^ (m->kind * 0x85EBCA77u + m->a * 0xC2B2AE3Du + m->b * 0x27D4EB2Fu + m->c * 0x165667B1u);
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return (int)(h % SHUFFLE_SPREAD);
}

/* The score of moving a column's cards from index i of its ordered run (which starts at start)
 * onto another column; lowest: the lowest rank under the run, -1 until first needed. */
static int group_score(const uint8_t *col, int len, int start, int i, int uncovers, int *lowest)
{
    if (i == 0)
        return 70;
    if (i > start)
        return 5 + (uncovers ? 40 : 0);
    if (*lowest < 0) {
        *lowest = 13;
        for (int j = 0; j < start; j++)
            if (RANK[col[j]] < *lowest)
                *lowest = RANK[col[j]];
    }
    return 40 + 2 * (12 - *lowest) + len + (uncovers ? 30 : 0);
}

/* The n scored moves into out, best first: the shuffle's noise added (0: none), then a stable
 * insertion sort, highest score first (Python's sort(reverse=True) is stable). */
static int sorted_moves(Scored *sc, int n, uint32_t shuffle, Move *out)
{
    if (shuffle)
        for (int i = 0; i < n; i++)
            sc[i].score += shuffle_noise(shuffle, &sc[i].m);
    for (int i = 1; i < n; i++) {
        Scored x = sc[i];
        int j = i - 1;
        while (j >= 0 && sc[j].score < x.score) {
            sc[j + 1] = sc[j];
            j--;
        }
        sc[j + 1] = x;
    }
    for (int i = 0; i < n; i++)
        out[i] = sc[i].m;
    return n;
}

static int gen_uses(const State *st, const uint8_t *talon_at, int draw, int mode, int whole_groups,
                    int pend_kinds, uint32_t shuffle, Move *out);

/* tops_col[card]: the column whose last card it is, -1 for none; returns the first empty column (-1: none). */
static int column_tops(const State *st, int8_t *tops_col)
{
    int first_empty = -1;
    memset(tops_col, -1, 52);
    for (int c = 0; c < 7; c++) {
        if (st->len[c])
            tops_col[st->cols[c][st->len[c] - 1]] = (int8_t)c;
        else if (first_empty < 0)
            first_empty = c;
    }
    return first_empty;
}

/* Candidate moves, best first (search.py: Searcher.moves; same scores, stable order); shuffle: a
 * seed whose noise is added to the scores (0: none). */
static int gen_moves(const State *st, const uint8_t *talon_at, int draw, int mode, int whole_groups,
                     int pend_kinds, uint32_t shuffle, Move *out)
{
    if (st->pend != NO_PEND)
        return gen_uses(st, talon_at, draw, mode, whole_groups, pend_kinds, shuffle, out);
    Scored sc[MAXMOVES];
    int n = 0;
    int8_t tops_col[52];
    int first_empty = column_tops(st, tops_col);
    const uint8_t *found = st->found;
    for (int src = 0; src < 7; src++) {
        int len = st->len[src];
        if (!len)
            continue;
        const uint8_t *col = st->cols[src];
        int top = col[len - 1];
        if (found[SUIT[top]] == RANK[top])
            add_move(sc, &n, 90 - RANK[top], CF, src, 0, 0);
        int start = st->run[src] > st->down[src] ? st->run[src] : st->down[src]; /* klondike: face up */
        int lowest = -1; /* the lowest rank under the run, found when first needed */
        for (int i = start; i < len; i++) {
            int card = col[i];
            if (RANK[card] == KING) {
                if (i > 0 && first_empty >= 0)
                    add_move(sc, &n, 50 + 2 * len, CC, src, i, first_empty);
                continue;
            }
            int uncovers = i > 0 && found[SUIT[col[i - 1]]] == RANK[col[i - 1]];
            if (i > start && whole_groups && !uncovers)
                continue;
            for (int k = 0; k < NPARENTS[card]; k++) {
                int dst = tops_col[PARENTS[card][k]];
                if (dst < 0)
                    continue;
                add_move(sc, &n, group_score(col, len, start, i, uncovers, &lowest), CC, src, i, dst);
            }
        }
    }
    if (st->ntalon) {
        uint8_t reach[MAXTALON];
        talon_reach_mask(st->ntalon, st->p, draw, reach);
        for (int s = 0; s < 4; s++) {
            if (found[s] < 13) {
                int i = talon_index(st, talon_at, s * 13 + found[s]);
                if (i >= 0 && reach[i])
                    add_move(sc, &n, 85 - found[s], TF, i, 0, 0);
            }
        }
        /* tops in column order (the Python dict's insertion order) */
        for (int dst = 0; dst < 7; dst++) {
            if (!st->len[dst])
                continue;
            int top = st->cols[dst][st->len[dst] - 1];
            for (int k = 0; k < NCHILDREN[top]; k++) {
                int i = talon_index(st, talon_at, CHILDREN[top][k]);
                if (i >= 0 && reach[i])
                    add_move(sc, &n, 38, TC, i, dst, 0);
            }
        }
        if (first_empty >= 0) {
            for (int k = 0; k < 4; k++) {
                int i = talon_index(st, talon_at, KINGS[k]);
                if (i >= 0 && reach[i])
                    add_move(sc, &n, 35, TC, i, first_empty, 0);
            }
        }
    }
    if (mode != AUTO_EAGER) {
        for (int s = 0; s < 4; s++) {
            int count = found[s];
            if (!count)
                continue;
            int card = s * 13 + count - 1;
            uint8_t reduced[4] = {found[0], found[1], found[2], found[3]};
            reduced[s]--;
            if (plays_up(card, reduced, mode))
                continue; /* rule 3 */
            if (RANK[card] == KING) {
                if (first_empty >= 0)
                    add_move(sc, &n, 1, FC, s, first_empty, 0);
                continue;
            }
            for (int k = 0; k < NPARENTS[card]; k++) {
                int dst = tops_col[PARENTS[card][k]];
                if (dst >= 0)
                    add_move(sc, &n, 2, FC, s, dst, 0);
            }
        }
    }
    return sorted_moves(sc, n, shuffle, out);
}

static inline int twins(int a, int b)
{
    return RANK[a] == RANK[b] && IS_RED(a) != IS_RED(b);
}

/* Rule 7 (search.py: Searcher._uses): the moves of gen_moves that may follow the putting down of
 * st's pending free cards, in gen_moves' order, generated alone.  Most positions of a draw-1 proof
 * are such positions (97 % on the slow deals measured), and most of gen_moves' moves fail the rule.
 * A pending card is the last card of its column: set_pending drops it when a card goes onto it. */
static int gen_uses(const State *st, const uint8_t *talon_at, int draw, int mode, int whole_groups,
                    int pend_kinds, uint32_t shuffle, Move *out)
{
    Scored sc[MAXMOVES];
    int n = 0;
    int8_t tops_col[52];
    int first_empty = column_tops(st, tops_col);
    const uint8_t *found = st->found;
    int x = st->pend & PEND_CARD, x_fc = st->pend & PEND_FC, at_x = tops_col[x];
    if (at_x < 0)
        return 0; /* cannot happen (see above); a move onto column -1 would write out of bounds */
    if (st->pend2 != NO_PEND) {
        /* only a take-back that uses both: from x's foundation onto w, or from w's onto x */
        int w = st->pend2 & PEND_CARD, w_fc = st->pend2 & PEND_FC;
        for (int s = 0; s < 4 && mode != AUTO_EAGER; s++) {
            int onto = x_fc && s == SUIT[x] ? tops_col[w] : w_fc && s == SUIT[w] ? at_x : -1;
            int count = found[s];
            if (onto < 0 || !count)
                continue;
            int card = s * 13 + count - 1;
            uint8_t reduced[4] = {found[0], found[1], found[2], found[3]};
            reduced[s]--;
            if (RANK[card] == KING || plays_up(card, reduced, mode))
                continue; /* a king goes only to an empty column; rule 3 */
            for (int k = 0; k < NPARENTS[card]; k++)
                if (tops_col[PARENTS[card][k]] == onto)
                    add_move(sc, &n, 2, FC, s, onto, 0);
        }
        return sorted_moves(sc, n, shuffle, out);
    }
    /* a group onto x: the card of its run one rank below x */
    for (int src = 0; src < 7; src++) {
        int len = st->len[src];
        if (!len || RANK[st->cols[src][len - 1]] >= RANK[x])
            continue; /* the run's ranks go up from its last card */
        const uint8_t *col = st->cols[src];
        int start = st->run[src] > st->down[src] ? st->run[src] : st->down[src]; /* klondike: face up */
        int i = start + RANK[col[start]] - (RANK[x] - 1);
        if (i < start || i >= len || !is_parent(x, col[i]))
            continue;
        int uncovers = i > 0 && found[SUIT[col[i - 1]]] == RANK[col[i - 1]];
        if (i > start && whole_groups && !uncovers)
            continue;
        int lowest = -1;
        add_move(sc, &n, group_score(col, len, start, i, uncovers, &lowest), CC, src, i, at_x);
    }
    /* a talon card onto x; in draw 1, when x came from a foundation, x's twin put down anywhere */
    int twin_talon = (pend_kinds & PEND_KIND_TC) && x_fc;
    if (st->ntalon && !twin_talon && draw == 1) {
        /* every talon card is reachable: only x's children */
        for (int k = 0; k < NCHILDREN[x]; k++) {
            int i = talon_index(st, talon_at, CHILDREN[x][k]);
            if (i >= 0)
                add_move(sc, &n, 38, TC, i, at_x, 0);
        }
    } else if (st->ntalon) {
        uint8_t reach[MAXTALON];
        talon_reach_mask(st->ntalon, st->p, draw, reach);
        for (int dst = 0; dst < 7; dst++) {
            if (!st->len[dst] || (dst != at_x && !twin_talon))
                continue;
            int top = st->cols[dst][st->len[dst] - 1];
            for (int k = 0; k < NCHILDREN[top]; k++) {
                int card = CHILDREN[top][k], i = talon_index(st, talon_at, card);
                if (i >= 0 && reach[i] && (dst == at_x || twins(card, x)))
                    add_move(sc, &n, 38, TC, i, dst, 0);
            }
        }
        if (twin_talon && first_empty >= 0) {
            for (int k = 0; k < 4; k++) {
                int i = talon_index(st, talon_at, KINGS[k]);
                if (i >= 0 && reach[i] && twins(KINGS[k], x))
                    add_move(sc, &n, 35, TC, i, first_empty, 0);
            }
        }
    }
    /* take-backs: onto x; from x's foundation when x came from it (anywhere); x's twin (anywhere) */
    for (int s = 0; s < 4 && mode != AUTO_EAGER; s++) {
        int count = found[s];
        if (!count)
            continue;
        int card = s * 13 + count - 1;
        int anywhere = (x_fc && s == SUIT[x]) || ((pend_kinds & PEND_KIND_FC) && twins(card, x));
        if (!anywhere && !is_parent(x, card))
            continue;
        uint8_t reduced[4] = {found[0], found[1], found[2], found[3]};
        reduced[s]--;
        if (plays_up(card, reduced, mode))
            continue; /* rule 3 */
        if (RANK[card] == KING) {
            if (first_empty >= 0 && anywhere)
                add_move(sc, &n, 1, FC, s, first_empty, 0);
            continue;
        }
        for (int k = 0; k < NPARENTS[card]; k++) {
            int dst = tops_col[PARENTS[card][k]];
            if (dst >= 0 && (anywhere || dst == at_x))
                add_move(sc, &n, 2, FC, s, dst, 0);
        }
    }
    return sorted_moves(sc, n, shuffle, out);
}

/* -- transposition table (exact compact keys) --------------------------------- */

/* search.py: Searcher.key, the same equivalence, in at most 174 bits instead of one byte per card.
 * Every position the search meets is reached from its root by legal moves, and in this variant a
 * column only gains cards on a card they fit (alternate colours, one rank lower) or, when empty, a
 * king.  So each column is either empty, a king followed by an ordered group (a "king column": it may
 * stand in any column), or a part of the root's column in the same place that no move has touched
 * yet, followed by an ordered group (its first card never moved, so it is the root column's first
 * card).  An ordered group is its first card and, per further card, which of the two cards that fit
 * it comes next: one bit.  The talon only loses cards and keeps their order, so it is a subset of the
 * root's talon: one bit per root talon card.  The foundations are the cards found nowhere else.
 * Layout, from bit 0: per column in place order, the length of its untouched root part (6 bits, 0
 * for an empty or king column) and, when not 0, the length of the group above it (4 bits) and its
 * bits; the number of king columns (3 bits) and each, by suit: suit (2), length - 1 (4), bits; the
 * talon bits.  At most 7 * 10 + 52 + 3 + 4 * 6 + 24 = 173 bits; bit KEY_USED marks a used table
 * slot; bytes 22 and 23 hold the least p met per residue (see table_visit).  Nothing is hashed
 * away: two positions share a key exactly when search.py's keys are equal, so the table can never
 * prune a position it has not met. */
typedef struct {
    uint64_t w[3];
} Key;

#define KEY_USED 175
#define KEY_BITS_MASK ((1ULL << 48) - 1) /* of w[2]: the key's bits, without the p bytes */
#define KEY_NO_P 255

typedef struct {
    Key k;
    int pos;
} KeyWriter;

static inline void put_bits(KeyWriter *kw, uint64_t value, int nbits)
{
    int word = kw->pos >> 6, shift = kw->pos & 63;
    kw->k.w[word] |= value << shift;
    if (shift + nbits > 64)
        kw->k.w[word + 1] |= value >> (64 - shift);
    kw->pos += nbits;
}

/* The ordered group col[from..n) as bits (bit i - from for card i): each card is the first or the
 * second card that fits the one below it (CHILDREN).  Returns 0 when a card does not fit: the
 * position is not one the search can reach from its root. */
static inline int group_bits(const uint8_t *col, int from, int n, uint32_t *bits)
{
    uint32_t b = 0;
    for (int i = from; i < n; i++) {
        uint32_t bit = CHILD_BIT[col[i - 1]][col[i]];
        if (bit > 1)
            return 0;
        b |= bit << (i - from);
    }
    *bits = b;
    return 1;
}

/* Column c's part of make_key: its bits (*nbits of them), or a king column's (length - 1) | its group's
 * bits << 4 with *nbits 0.  Returns 0 when the column is not one the search can reach from root.
 * with_down (the klondike variant, a root with face-down cards): a column keeps its face-down count in
 * 3 more bits after the group's length, and a king column has none face down (else it is a root one). */
static int column_code(const State *st, const State *root, int c, int with_down, uint32_t *code, uint8_t *nbits)
{
    const uint8_t *col = st->cols[c];
    int n = st->len[c];
    uint32_t bits;
    if (!n) {
        *code = 0;
        *nbits = 6;
        return 1;
    }
    if (RANK[col[0]] == KING && !st->down[c] && group_bits(col, 1, n, &bits)) { /* a king column */
        *code = (uint32_t)(n - 1) | bits << 4;
        *nbits = 0;
        return 1;
    }
    int kept = st->untouched[c] < n ? st->untouched[c] : n;
    while (kept < n && kept < root->len[c] && col[kept] == root->cols[c][kept])
        kept++;
    if (!kept || n - kept > 12 || !group_bits(col, kept, n, &bits))
        return 0;
    if (with_down) {
        if (st->down[c] > 7)
            return 0;
        *code = (uint32_t)kept | (uint32_t)(n - kept) << 6 | (uint32_t)st->down[c] << 10 | bits << 13;
        *nbits = (uint8_t)(13 + n - kept);
        return 1;
    }
    *code = (uint32_t)kept | (uint32_t)(n - kept) << 6 | bits << 10;
    *nbits = (uint8_t)(10 + n - kept);
    return 1;
}

/* The key of st (see Key); root: the search's root position.  Returns 0 when st is not reachable
 * from root (cannot happen; checked).  Fills in st's column parts that a move changed (coded). */
static int make_key(State *st, const State *root, int with_down, Key *out)
{
    KeyWriter kw = {{{0, 0, 0}}, 0};
    int king_len[4] = {0, 0, 0, 0}, kings = 0;
    uint32_t king_bits[4];
    for (int c = 0; c < 7; c++) {
        if (!(st->coded >> c & 1)) {
            if (!column_code(st, root, c, with_down, &st->code[c], &st->code_bits[c]))
                return 0;
            st->coded |= (uint8_t)(1u << c);
        }
        uint32_t code = st->code[c];
        if (!st->code_bits[c]) { /* a king column: by suit, after the others */
            int suit = SUIT[st->cols[c][0]];
            king_len[suit] = (int)(code & 15) + 1;
            king_bits[suit] = code >> 4;
            kings++;
            put_bits(&kw, 0, 6);
            continue;
        }
        put_bits(&kw, code, st->code_bits[c]);
    }
    put_bits(&kw, (uint64_t)kings, 3);
    for (int s = 0; s < 4; s++)
        if (king_len[s])
            put_bits(&kw, (uint64_t)s | (uint64_t)(king_len[s] - 1) << 2 | (uint64_t)king_bits[s] << 6,
                     6 + king_len[s] - 1);
    if (bit_count(st->talon_bits) != st->ntalon)
        return 0;
    put_bits(&kw, st->talon_bits, root->ntalon);
    if (kw.pos > KEY_USED)
        return 0;
    kw.k.w[2] |= 1ULL << (KEY_USED - 128);
    *out = kw.k;
    return 1;
}

static inline uint64_t hash_key(const Key *k)
{
    uint64_t h = (k->w[0] ^ 0x9E3779B97F4A7C15ULL) * 0xff51afd7ed558ccdULL;
    h = (h ^ (h >> 32) ^ k->w[1]) * 0xc4ceb9fe1a85ec53ULL;
    h = (h ^ (h >> 32) ^ (k->w[2] & KEY_BITS_MASK)) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

static inline int key_used(const Key *k)
{
    return (int)(k->w[2] >> (KEY_USED - 128)) & 1;
}

static inline int same_key(const Key *a, const Key *b)
{
    return a->w[0] == b->w[0] && a->w[1] == b->w[1] && ((a->w[2] ^ b->w[2]) & KEY_BITS_MASK) == 0;
}

static inline int least_p(const Key *k, int residue)
{
    return (int)(k->w[2] >> (40 + 8 * residue)) & 0xff;
}

static inline void set_least_p(Key *k, int residue, int p)
{
    int shift = 40 + 8 * residue; /* residue 1: byte 6 of w[2], residue 2: byte 7 */
    k->w[2] = (k->w[2] & ~(0xffULL << shift)) | (uint64_t)p << shift;
}

/* Open addressing over the keys themselves (linear probing), at most 3/4 full. */
typedef struct {
    Key *slots;
    size_t cap, count;
} Table;

/* The first slots: small, since most searches meet few positions and a large zeroed block costs a
 * page fault per page its scattered slots touch (measured: the median solve 0.3 ms slower at 1 << 16). */
#define TABLE_FIRST (1u << 12)

static inline int table_full(const Table *t)
{
    return (t->count + 1) * 4 > t->cap * 3; /* load 3/4: measured as fast as 1/2 */
}

static int table_grow(Table *t)
{
    size_t cap = t->cap ? t->cap * 2 : TABLE_FIRST;
    Key *slots = calloc(cap, sizeof(Key));
    if (!slots)
        return 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (!key_used(&t->slots[i]))
            continue;
        size_t j = hash_key(&t->slots[i]) & (cap - 1);
        while (key_used(&slots[j]))
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 1;
}

/* Where the waste stands, as far as it matters: 0 when the talon can be cycled to the start with
 * nothing more reachable than from there (p at a multiple of draw, or at the end; always in draw 1). */
static inline int talon_phase(const State *st, int draw)
{
    return draw == 1 || st->p == st->ntalon || st->p % draw == 0 ? 0 : st->p;
}

/* Whether a position must be expanded, and records it.  The key leaves out p (see make_key): the
 * table keeps, per key and per residue of p modulo draw, the least p met.  From p the player
 * reaches p + draw, p + 2 draw, ... by drawing and phase 0 by recycling, so a position met before
 * with a p' <= p of the same residue (or met at all, for phase 0) reaches every position this one
 * does: it is dominated.
 * Returns 1 to expand, 0 when dominated, -1 when out of memory. */
static int table_visit(Table *t, const Key *k, int phase, int draw)
{
    if (table_full(t) && !table_grow(t))
        return -1;
    size_t mask = t->cap - 1, j = hash_key(k) & mask;
    int residue = phase ? phase % draw : 0; /* 1 or 2 */
    for (; key_used(&t->slots[j]); j = (j + 1) & mask) {
        Key *entry = &t->slots[j];
        if (!same_key(entry, k))
            continue;
        if (!phase || least_p(entry, residue) <= phase)
            return 0;
        set_least_p(entry, residue, phase);
        return 1;
    }
    Key entry = *k;
    set_least_p(&entry, 1, KEY_NO_P);
    set_least_p(&entry, 2, KEY_NO_P);
    if (phase)
        set_least_p(&entry, residue, phase);
    t->slots[j] = entry;
    t->count++;
    return 1;
}

/* Fetch into the cache the slot where table_visit starts looking for k. */
static inline void table_prefetch(const Table *t, const Key *k)
{
    if (t->cap)
        __builtin_prefetch(&t->slots[hash_key(k) & (t->cap - 1)]);
}

static void table_free(Table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* -- the search object ------------------------------------------------------- */

typedef struct {
    State st;
    size_t moves_start; /* its candidate moves: moves.v[moves_start .. moves_start + nmoves) */
    int nmoves, next;
    size_t rec_start; /* the moves that led here (and its auto-plays) start at rec.v[rec_start] */
} Frame;

/* Best-first nodes: every position met, packed, with the move that led to it from its parent. */
#define PACKMAX 72
typedef struct {
    uint8_t packed[PACKMAX];
    int32_t parent; /* -1 for the root */
    Move move;
} BNode;

typedef struct {
    int score;
    int64_t seq; /* later pushes first among equal scores (search.py pushes a decreasing seq) */
    uint32_t node;
} HeapItem;

typedef struct {
    PyObject_HEAD
    int draw, streamline /* the auto-play mode: AUTO_* */, whole_groups, best_first, status, started, pending;
    int klondike; /* the root has face-down cards (State.down): make_key keeps their counts */
    uint32_t shuffle; /* gen_moves' seed */
    long long nodes;
    unsigned long long max_bytes; /* 0: no memory budget */
    Frame *frames;
    size_t nframes, frames_cap;
    MoveVec moves; /* candidate moves of every frame, stacked */
    MoveVec rec;   /* the path: concatenation of every frame's record */
    Table table;
    State root;
    uint8_t talon_at[52]; /* each card's index in the root's talon (255: not in it): talon_index */
    /* best-first only */
    BNode *bnodes;
    size_t nb, bcap;
    HeapItem *heap;
    size_t nheap, heapcap;
    int64_t seq;
    int32_t current; /* the node being expanded, -1 between two */
    State current_st;
    Move current_moves[MAXMOVES];
    int current_n, current_next;
    MoveVec scratch;
} SearchObject;

/* Which moves put down a free card that must then be used: take-backs, and talon cards in draw 1. */
static inline int pend_kinds(const SearchObject *self)
{
    return self->pending ? PEND_KIND_FC | (self->draw == 1 ? PEND_KIND_TC : 0) : 0;
}

/* The bytes held by every growable table and stack of the search. */
static size_t used_bytes(const SearchObject *self)
{
    return self->table.cap * sizeof(Key) + self->frames_cap * sizeof(Frame)
           + (self->moves.cap + self->rec.cap + self->scratch.cap) * sizeof(Move) + self->bcap * sizeof(BNode)
           + self->heapcap * sizeof(HeapItem);
}

/* How many items a growable array of cap items gains to hold need (see reserve). */
static size_t grown_by(size_t cap, size_t need, size_t first)
{
    if (need <= cap)
        return 0;
    size_t grown = cap ? cap : first;
    while (grown < need)
        grown *= 2;
    return grown - cap;
}

/* Whether one more position fits the memory budget: the bytes held now plus every growth that
 * expanding it could trigger (each array doubles when full), so that the budget is never passed,
 * not merely noticed afterwards. */
static int within_memory(const SearchObject *self)
{
    if (!self->max_bytes)
        return 1;
    const Table *t = &self->table;
    size_t grow = grown_by(self->frames_cap, self->nframes + 1, 256) * sizeof(Frame)
                  + grown_by(self->moves.cap, self->moves.n + MAXMOVES, 1024) * sizeof(Move)
                  + grown_by(self->rec.cap, self->rec.n + 64, 1024) * sizeof(Move);
    if (table_full(t))
        grow += (t->cap ? t->cap : TABLE_FIRST) * sizeof(Key);
    if (self->best_first)
        grow += grown_by(self->bcap, self->nb + 1, 4096) * sizeof(BNode)
                + grown_by(self->heapcap, self->nheap + 1, 4096) * sizeof(HeapItem)
                + grown_by(self->scratch.cap, 64, 1024) * sizeof(Move);
    return used_bytes(self) + grow <= self->max_bytes;
}

static int push_frame(SearchObject *self, const State *st, size_t rec_start)
{
    Frame *frames = reserve(self->frames, &self->frames_cap, self->nframes + 1, sizeof(Frame), 256);
    if (!frames)
        return 0;
    self->frames = frames;
    if (!mv_reserve(&self->moves, MAXMOVES))
        return 0;
    Frame *f = &self->frames[self->nframes++];
    f->st = *st;
    f->moves_start = self->moves.n;
    f->nmoves = gen_moves(st, self->talon_at, self->draw, self->streamline, self->whole_groups,
                          pend_kinds(self), self->shuffle, self->moves.v + self->moves.n);
    self->moves.n += (size_t)f->nmoves;
    f->next = 0;
    f->rec_start = rec_start;
    return 1;
}

static void Search_dealloc(SearchObject *self)
{
    free(self->frames);
    free(self->moves.v);
    free(self->rec.v);
    free(self->bnodes);
    free(self->heap);
    free(self->scratch.v);
    table_free(&self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Search_init(SearchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cols", "found", "talon", "p", "draw", "streamline", "whole_groups", "best_first",
                             "pending", "max_bytes", "low_autoplay", "autoplay", "shuffle", "down", NULL};
    PyObject *cols, *found, *down = Py_None;
    Py_buffer talon;
    int p, draw, streamline = 0, whole_groups = 0, best_first = 0, pending = 0, low_autoplay = 0, autoplay_on = 1;
    unsigned long long max_bytes = 0;
    unsigned int shuffle = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOy*ii|ppppKppIO", kwlist, &cols, &found, &talon, &p, &draw,
                                     &streamline, &whole_groups, &best_first, &pending, &max_bytes, &low_autoplay,
                                     &autoplay_on, &shuffle, &down))
        return -1;
    State st;
    memset(&st, 0, sizeof st);
    int ok = 0;
    PyObject *seq = NULL, *fseq = NULL, *dseq = NULL;
    int klondike = 0;
    uint8_t seen[52];
    memset(seen, 0, sizeof seen);
    int cards = 0;
    if (draw < 1 || draw > 3) {
        PyErr_SetString(PyExc_ValueError, "draw must be 1, 2 or 3");
        goto done;
    }
    seq = PySequence_Fast(cols, "cols must be a sequence");
    if (!seq)
        goto done;
    if (PySequence_Fast_GET_SIZE(seq) != 7) {
        PyErr_SetString(PyExc_ValueError, "7 columns expected");
        goto done;
    }
    for (int c = 0; c < 7; c++) {
        Py_buffer b;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, c), &b, PyBUF_SIMPLE) < 0)
            goto done;
        if (b.len > MAXCOL) {
            PyBuffer_Release(&b);
            PyErr_SetString(PyExc_ValueError, TOO_TALL);
            goto done;
        }
        memcpy(st.cols[c], b.buf, (size_t)b.len);
        st.len[c] = (uint8_t)b.len;
        PyBuffer_Release(&b);
        for (int i = 0; i < st.len[c]; i++) {
            if (st.cols[c][i] >= 52 || seen[st.cols[c][i]]++) {
                PyErr_SetString(PyExc_ValueError, "bad or repeated card");
                goto done;
            }
            if (i + 1 + RANK[st.cols[c][i]] > MAXCOL) { /* the first i + 1 cards and a group down to an ace */
                PyErr_SetString(PyExc_ValueError, TOO_TALL);
                goto done;
            }
            cards++;
        }
    }
    fseq = PySequence_Fast(found, "found must be a sequence");
    if (!fseq)
        goto done;
    if (PySequence_Fast_GET_SIZE(fseq) != 4) {
        PyErr_SetString(PyExc_ValueError, "4 foundations expected");
        goto done;
    }
    for (int s = 0; s < 4; s++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fseq, s));
        if (v == -1 && PyErr_Occurred())
            goto done;
        if (v < 0 || v > 13) {
            PyErr_SetString(PyExc_ValueError, "foundation count out of range");
            goto done;
        }
        st.found[s] = (uint8_t)v;
        cards += (int)v;
    }
    if (talon.len > MAXTALON || p < 0 || p > talon.len) {
        PyErr_SetString(PyExc_ValueError, "bad talon");
        goto done;
    }
    memcpy(st.talon, talon.buf, (size_t)talon.len);
    st.ntalon = (uint8_t)talon.len;
    st.p = (uint8_t)p;
    for (int i = 0; i < st.ntalon; i++) {
        if (st.talon[i] >= 52 || seen[st.talon[i]]++) {
            PyErr_SetString(PyExc_ValueError, "bad or repeated card");
            goto done;
        }
        cards++;
    }
    if (cards != 52) {
        PyErr_SetString(PyExc_ValueError, "a position holds the 52 cards");
        goto done;
    }
    if (down != Py_None) {
        dseq = PySequence_Fast(down, "down must be a sequence");
        if (!dseq)
            goto done;
        if (PySequence_Fast_GET_SIZE(dseq) != 7) {
            PyErr_SetString(PyExc_ValueError, "7 face-down counts expected");
            goto done;
        }
        for (int c = 0; c < 7; c++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(dseq, c));
            if (v == -1 && PyErr_Occurred())
                goto done;
            if (v < 0 || (v && v >= st.len[c])) {
                PyErr_SetString(PyExc_ValueError, "a face-down count is below its column's length");
                goto done;
            }
            if (v > 7) { /* never in a game (6 at most are dealt): a position built by hand */
                PyErr_SetString(PyExc_ValueError, TOO_MANY_DOWN);
                goto done;
            }
            st.down[c] = (uint8_t)v;
            klondike |= v > 0;
        }
    }
    st.pend = st.pend2 = NO_PEND;
    memcpy(st.untouched, st.len, sizeof st.untouched);
    memset(self->talon_at, 255, sizeof self->talon_at);
    for (int i = 0; i < st.ntalon; i++)
        self->talon_at[st.talon[i]] = (uint8_t)i;
    derive_bookkeeping(&st, self->talon_at);
    self->root = st;
    self->klondike = klondike;
    self->pending = pending;
    self->max_bytes = max_bytes;
    self->draw = draw;
    /* the auto-play mode */
    self->streamline = streamline ? AUTO_EAGER : !autoplay_on ? AUTO_NONE : low_autoplay ? AUTO_LOW : AUTO_SAFE;
    self->shuffle = shuffle;
    self->whole_groups = whole_groups || streamline;
    self->best_first = best_first;
    self->current = -1;
    self->status = RUNNING;
    self->started = 0;
    self->nodes = 0;
    ok = 1;
done:
    Py_XDECREF(seq);
    Py_XDECREF(fseq);
    Py_XDECREF(dseq);
    PyBuffer_Release(&talon);
    return ok ? 0 : -1;
}

/* make_key met a position its root cannot reach: a bug, reported rather than searched on. */
static int unreachable(void)
{
    PyErr_SetString(PyExc_RuntimeError, "a position outside its root's reach");
    return -1;
}

enum { FRESH_ERROR = -2 };

/* Whether a search expands a child position: 1, or 0 when the table has it (or dominates it);
 * -1 out of memory, FRESH_ERROR with an exception set.  A restricted position (a free card pending,
 * rule 7) is neither looked up nor recorded: a lookup pruned about one in a hundred of them, for a
 * key and a probe on each (most positions of a draw-1 proof), and recorded, it would hide the same
 * position met without the restriction.  made: the child's key when already made, else NULL. */
static int fresh_child(SearchObject *self, State *child, const Key *made)
{
    if (child->pend != NO_PEND)
        return 1;
    Key key;
    if (made)
        key = *made;
    else if (!make_key(child, &self->root, self->klondike, &key)) {
        unreachable();
        return FRESH_ERROR;
    }
    return table_visit(&self->table, &key, talon_phase(child, self->draw), self->draw);
}

/* The first step of either search: the root's auto-plays (kept in rec), then its key.
 * Returns RUNNING to go on from *st, WON when the auto-plays win, -1 with an exception set. */
static int start(SearchObject *self, State *st)
{
    if (!within_memory(self))
        return self->status = OVER_MEMORY;
    self->started = 1;
    *st = self->root;
    self->rec.n = 0;
    if (!autoplay(st, self->talon_at, self->draw, self->streamline, &self->rec)) {
        PyErr_NoMemory();
        return -1;
    }
    if (total_found(st) == 52)
        return self->status = WON;
    Key key;
    if (!make_key(st, &self->root, self->klondike, &key))
        return unreachable();
    if (table_visit(&self->table, &key, talon_phase(st, self->draw), self->draw) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->nodes = 1;
    return RUNNING;
}

/* Whether move m puts a free card down (rule 7: a take-back; in draw 1, a talon card onto a column). */
static inline int puts_down(const SearchObject *self, Move m)
{
    int kinds = pend_kinds(self);
    return (m.kind == FC && (kinds & PEND_KIND_FC)) || (m.kind == TC && (kinds & PEND_KIND_TC));
}

/* Auto-play of a child after move m.  After a put-down it has nothing to play (docs/SOLVER.md §3), so
 * it is not run: the parent has nothing to play (it was auto-played, or it is itself a put-down's
 * child: by induction), a foundation one card lower makes no card playable that was not (every
 * auto-play rule only asks for foundations high enough), and the card put down was not playable
 * where it was (a take-back that auto-play would play back is never generated, rule 3; in draw 1
 * auto-play plays from the talon too).  Most children of a draw-1 proof are such. */
static int autoplay_after(const SearchObject *self, State *child, Move m, MoveVec *rec)
{
    return puts_down(self, m) || autoplay(child, self->talon_at, self->draw, self->streamline, rec);
}

/* The pending cards of a child after move m (see gen_moves): only a put-down makes some, and no
 * auto-play follows it (autoplay_after). */
static void set_pending(const SearchObject *self, State *child, Move m)
{
    if (!puts_down(self, m)) {
        child->pend = child->pend2 = NO_PEND;
        return;
    }
    int dst = m.b, len = child->len[dst];
    int put = child->cols[dst][len - 1], under = len > 1 ? child->cols[dst][len - 2] : -1;
    uint8_t keep[2];
    int nkeep = 0;
    uint8_t was[2] = {child->pend, child->pend2};
    for (int k = 0; k < 2; k++) {
        if (was[k] == NO_PEND)
            continue;
        int x = was[k] & PEND_CARD;
        int used = x == under || ((was[k] & PEND_FC) && m.kind == FC && m.a == SUIT[x]);
        if (!used)
            keep[nkeep++] = was[k];
    }
    child->pend = (uint8_t)(put | (m.kind == FC ? PEND_FC : 0));
    child->pend2 = nkeep ? keep[0] : NO_PEND; /* gen_moves allows at most one to stay */
}

/* -- best-first (search.py: Searcher.best_first) ----------------------------- */

static void pack(const State *st, uint8_t *out)
{
    int n = 0;
    for (int c = 0; c < 7; c++) {
        out[n++] = (uint8_t)(st->len[c] | st->down[c] << 5); /* a length is at most MAXCOL < 32 */
        memcpy(out + n, st->cols[c], st->len[c]);
        n += st->len[c];
    }
    memcpy(out + n, st->found, 4);
    n += 4;
    out[n++] = st->ntalon;
    memcpy(out + n, st->talon, st->ntalon);
    n += st->ntalon;
    out[n++] = st->p;
    out[n++] = st->pend;
    out[n] = st->pend2;
}

static void unpack(const uint8_t *in, State *st, const uint8_t *talon_at)
{
    int n = 0;
    for (int c = 0; c < 7; c++) {
        st->down[c] = in[n] >> 5;
        st->len[c] = in[n++] & 31;
        memcpy(st->cols[c], in + n, st->len[c]);
        n += st->len[c];
    }
    memcpy(st->found, in + n, 4);
    n += 4;
    st->ntalon = in[n++];
    memcpy(st->talon, in + n, st->ntalon);
    n += st->ntalon;
    st->p = in[n++];
    st->pend = in[n++];
    st->pend2 = in[n];
    memset(st->untouched, 0, sizeof st->untouched);
    derive_bookkeeping(st, talon_at);
}

/* search.py: Searcher.column_score (how well ordered a column is). */
static int column_score(const uint8_t *col, int n)
{
    int good = 0;
    if (n && RANK[col[0]] == KING) {
        good = 1;
        while (good < n && is_parent(col[good - 1], col[good]))
            good++;
    }
    int score = good - (n - good);
    int low[4] = {13, 13, 13, 13};
    for (int i = 0; i < n; i++) {
        int card = col[i], s = SUIT[card];
        if (i >= good && low[s] < RANK[card])
            score -= 2;
        if (RANK[card] < low[s])
            low[s] = RANK[card];
    }
    return score;
}

/* search.py: Searcher.score. */
static int position_score(const State *st)
{
    int total = 6 * total_found(st) - st->ntalon / 2;
    for (int c = 0; c < 7; c++)
        total += st->len[c] ? column_score(st->cols[c], st->len[c]) : 2;
    return total;
}

static inline int heap_before(const HeapItem *a, const HeapItem *b)
{
    return a->score > b->score || (a->score == b->score && a->seq > b->seq);
}

static int heap_push(SearchObject *self, HeapItem item)
{
    HeapItem *heap = reserve(self->heap, &self->heapcap, self->nheap + 1, sizeof(HeapItem), 4096);
    if (!heap)
        return 0;
    self->heap = heap;
    size_t i = self->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_before(&item, &self->heap[up]))
            break;
        self->heap[i] = self->heap[up];
        i = up;
    }
    self->heap[i] = item;
    return 1;
}

static HeapItem heap_pop(SearchObject *self)
{
    HeapItem top = self->heap[0], last = self->heap[--self->nheap];
    size_t i = 0, n = self->nheap;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n)
            break;
        if (child + 1 < n && heap_before(&self->heap[child + 1], &self->heap[child]))
            child++;
        if (!heap_before(&self->heap[child], &last))
            break;
        self->heap[i] = self->heap[child];
        i = child;
    }
    if (n)
        self->heap[i] = last;
    return top;
}

static int add_bnode(SearchObject *self, const State *st, int32_t parent, Move m)
{
    BNode *bnodes = reserve(self->bnodes, &self->bcap, self->nb + 1, sizeof(BNode), 4096);
    if (!bnodes)
        return 0;
    self->bnodes = bnodes;
    BNode *b = &self->bnodes[self->nb++];
    pack(st, b->packed);
    b->parent = parent;
    b->move = m;
    return 1;
}

/* The win's path into self->rec: the root's auto-plays, then each node's move and auto-plays. */
static int best_first_path(SearchObject *self, int32_t node, Move last)
{
    int32_t chain_len = 0;
    for (int32_t k = node; self->bnodes[k].parent >= 0; k = self->bnodes[k].parent)
        chain_len++;
    Move *chain = malloc(((size_t)chain_len + 1) * sizeof(Move));
    if (!chain)
        return 0;
    chain[chain_len] = last;
    int32_t i = chain_len;
    for (int32_t k = node; self->bnodes[k].parent >= 0; k = self->bnodes[k].parent)
        chain[--i] = self->bnodes[k].move;
    State st = self->root;
    self->rec.n = 0;
    int ok = autoplay(&st, self->talon_at, self->draw, self->streamline, &self->rec);
    for (int32_t j = 0; ok && j <= chain_len; j++) {
        ok = mv_reserve(&self->rec, 1);
        if (ok) {
            self->rec.v[self->rec.n++] = chain[j];
            ok = apply(&st, chain[j])
                 && autoplay(&st, self->talon_at, self->draw, self->streamline, &self->rec);
        }
    }
    free(chain);
    return ok;
}

static PyObject *best_first_step(SearchObject *self, long long limit)
{
    if (!self->started) {
        State st;
        int first = start(self, &st);
        if (first != RUNNING)
            return first < 0 ? NULL : PyLong_FromLong(first);
        if (!add_bnode(self, &st, -1, (Move){0, 0, 0, 0}) || !heap_push(self, (HeapItem){0, 0, 0}))
            return PyErr_NoMemory();
        if (self->nodes >= limit)
            return PyLong_FromLong(RUNNING);
    }
    for (;;) {
        if (self->current < 0) {
            if (!self->nheap)
                break;
            HeapItem top = heap_pop(self);
            self->current = (int32_t)top.node;
            unpack(self->bnodes[top.node].packed, &self->current_st, self->talon_at);
            self->current_n = gen_moves(&self->current_st, self->talon_at, self->draw, self->streamline,
                                        self->whole_groups, pend_kinds(self), self->shuffle, self->current_moves);
            self->current_next = 0;
        }
        if (self->current_next >= self->current_n) {
            self->current = -1;
            continue;
        }
        if (!within_memory(self))
            return PyLong_FromLong(self->status = OVER_MEMORY);
        Move m = self->current_moves[self->current_next++];
        State child = self->current_st;
        self->scratch.n = 0;
        if (!apply(&child, m)) {
            PyErr_SetString(PyExc_RuntimeError, "column overflow");
            return NULL;
        }
        if (!autoplay_after(self, &child, m, &self->scratch))
            return PyErr_NoMemory();
        set_pending(self, &child, m);
        if (total_found(&child) == 52) {
            if (!best_first_path(self, self->current, m))
                return PyErr_NoMemory();
            self->status = WON;
            return PyLong_FromLong(WON);
        }
        int fresh = fresh_child(self, &child, NULL);
        if (fresh < 0)
            return fresh == FRESH_ERROR ? NULL : PyErr_NoMemory();
        if (!fresh)
            continue;
        if (self->nb >= INT32_MAX || !add_bnode(self, &child, self->current, m))
            return PyErr_NoMemory();
        self->nodes++;
        self->seq++;
        if (!heap_push(self, (HeapItem){position_score(&child), self->seq, (uint32_t)(self->nb - 1)}))
            return PyErr_NoMemory();
        if (self->nodes >= limit)
            return PyLong_FromLong(RUNNING);
    }
    self->status = EXHAUSTED;
    return PyLong_FromLong(EXHAUSTED);
}

/* Search until `limit` positions have been expanded in all, a win, or exhaustion. */
static PyObject *Search_step(SearchObject *self, PyObject *arg)
{
    long long limit = PyLong_AsLongLong(arg);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (self->status != RUNNING)
        return PyLong_FromLong(self->status);
    if (self->best_first)
        return best_first_step(self, limit);
    if (!self->started) {
        State st;
        int first = start(self, &st);
        if (first != RUNNING)
            return first < 0 ? NULL : PyLong_FromLong(first);
        if (!push_frame(self, &st, 0))
            return PyErr_NoMemory();
        if (self->nodes >= limit)
            return PyLong_FromLong(RUNNING);
    }
    while (self->nframes) {
        Frame *f = &self->frames[self->nframes - 1];
        if (f->next >= f->nmoves) {
            self->moves.n = f->moves_start;
            self->rec.n = f->rec_start;
            self->nframes--;
            continue;
        }
        if (!within_memory(self))
            return PyLong_FromLong(self->status = OVER_MEMORY);
        Move m = self->moves.v[f->moves_start + f->next++];
        State child = f->st;
        size_t rec_start = self->rec.n;
        if (!mv_reserve(&self->rec, 1))
            return PyErr_NoMemory();
        self->rec.v[self->rec.n++] = m;
        if (!apply(&child, m)) {
            PyErr_SetString(PyExc_RuntimeError, "column overflow");
            return NULL;
        }
        /* The key before auto-play, its table slot (mostly a cache miss: 72 % of a draw-3 proof's
         * keys are of positions met before, far apart) fetched while auto-play runs; auto-play
         * mostly plays nothing, and then the key stands. */
        Key key;
        int keyed = !puts_down(self, m) && make_key(&child, &self->root, self->klondike, &key);
        if (keyed)
            table_prefetch(&self->table, &key);
        size_t before_autoplay = self->rec.n;
        if (!autoplay_after(self, &child, m, &self->rec))
            return PyErr_NoMemory();
        set_pending(self, &child, m);
        if (total_found(&child) == 52) {
            self->status = WON;
            return PyLong_FromLong(WON);
        }
        int fresh = fresh_child(self, &child, keyed && self->rec.n == before_autoplay ? &key : NULL);
        if (fresh < 0)
            return fresh == FRESH_ERROR ? NULL : PyErr_NoMemory();
        if (!fresh) {
            self->rec.n = rec_start;
            continue;
        }
        self->nodes++;
        if (!push_frame(self, &child, rec_start))
            return PyErr_NoMemory();
        if (self->nodes >= limit)
            return PyLong_FromLong(RUNNING);
    }
    self->status = EXHAUSTED;
    return PyLong_FromLong(EXHAUSTED);
}

static PyObject *Search_path(SearchObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->status != WON)
        Py_RETURN_NONE;
    PyObject *list = PyList_New((Py_ssize_t)self->rec.n);
    if (!list)
        return NULL;
    for (size_t i = 0; i < self->rec.n; i++) {
        Move m = self->rec.v[i];
        PyObject *t;
        switch (m.kind) {
        case CC: t = Py_BuildValue("(iiii)", CC, m.a, m.b, m.c); break;
        case CF: t = Py_BuildValue("(ii)", CF, m.a); break;
        case TC: t = Py_BuildValue("(iii)", TC, m.a, m.b); break;
        case TF: t = Py_BuildValue("(ii)", TF, m.a); break;
        default: t = Py_BuildValue("(iii)", FC, m.a, m.b); break;
        }
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

static PyObject *Search_get_nodes(SearchObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(self->nodes);
}

static PyObject *Search_get_bytes(SearchObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(used_bytes(self));
}

static PyMethodDef Search_methods[] = {
    {"step", (PyCFunction)Search_step, METH_O,
     "step(limit) -> 0 running (limit positions met), 1 won, 2 exhausted (no win exists), 3 over memory"},
    {"path", (PyCFunction)Search_path, METH_NOARGS, "the moves of the win from the root, or None"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"nodes", (getter)Search_get_nodes, NULL, "positions expanded so far (a restricted one each time it is met)", NULL},
    {"bytes", (getter)Search_get_bytes, NULL, "bytes held by the search's tables and stacks", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "service.solver._csearch.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The depth-first (or best-first) search of search.py (Searcher.dfs, .best_first), resumable.",
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
    .tp_init = (initproc)Search_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_csearch", "C core of the solver's depth-first search.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__csearch(void)
{
    init_tables();
    if (PyType_Ready(&SearchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
