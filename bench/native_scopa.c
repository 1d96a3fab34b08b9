/*
 * native_scopa.c: the native yardstick of `make bench`.
 *
 * A careful single-threaded C program that plays classic 2-player Scopa deals (docs/rules.md
 * sections 1-5) between two random players, with full scoring, as fast as plain C does it.
 * The Python engine's deals per second are reported as a share of this figure.
 *
 *   cc -std=c11 -O2 -o build/native_scopa bench/native_scopa.c
 *   build/native_scopa --deals 1000000 --seed 1
 *
 * prints one JSON line: deals, seconds, deals_per_s, a checksum of every deal's points (so the
 * work cannot be optimised away) and the mean and standard deviation of the points per deal
 * (both sides together), which must agree with the Python engine's random-vs-random mean
 * (tests/test_bench.py). The random numbers differ from the engine's, so only the statistics
 * agree, not the deals.
 *
 * Cards are ids 10 * suit + rank - 1 (coins = suit 0, so the settebello is id 6); a set of
 * cards is a uint64 with bit `id` set. No dependencies beyond libc.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef uint64_t u64;

#define CARDS 40
#define RANKS 10
#define HANDS 6                     /* 2 players: 4 table cards, then 6 hands of 3 each */
#define PLAYS (2 * 3 * HANDS)       /* 36 plays a deal */
#define SUIT 0x3FFull               /* one suit's ten cards, shifted to bits 0-9 */
#define COINS SUIT                  /* the coins: ids 0-9 */
#define SETTEBELLO (1ull << 6)
/* At most 1,698 sets of 2+ cards of ranks 1-9 (four of each) sum to 10: the most sum captures
 * a card can have even with every such card on the table, so this buffer never overflows. */
#define MAX_CAPTURES 2048

/* ---- Random numbers: xoshiro256** (Blackman and Vigna), seeded through splitmix64. ---- */

static u64 rng[4];

static u64 splitmix64(u64 *x) {
    u64 z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }

static inline u64 next_u64(void) {
    u64 result = rotl(rng[1] * 5, 7) * 9;
    u64 t = rng[1] << 17;
    rng[2] ^= rng[0];
    rng[3] ^= rng[1];
    rng[1] ^= rng[2];
    rng[0] ^= rng[3];
    rng[2] ^= t;
    rng[3] = rotl(rng[3], 45);
    return result;
}

/* Uniform integer in [0, n) for n <= 40 or so: the top 32 bits scaled by n (Lemire); the bias,
 * below n / 2^32, is far below anything a simulation could detect. */
static inline unsigned below(unsigned n) {
    return (unsigned)(((next_u64() >> 32) * n) >> 32);
}

/* ---- Cards ---- */

static u64 rank_mask[RANKS + 1];    /* [r]: the four cards of rank r (index 0 unused) */
static u64 upto[RANKS + 1];         /* [r]: every card of rank r or lower */
static int primiera_best[1 << RANKS]; /* best primiera value of one suit's ranks; 0 if void */

static inline int popcount(u64 x) { return __builtin_popcountll(x); }
static inline int lowest(u64 x) { return __builtin_ctzll(x); } /* id of the lowest card */
static inline int rank_of(int card) { return card % RANKS + 1; }

static void init_tables(void) {
    /* Primiera values by rank (docs/rules.md section 1): 7 = 21, 6 = 18, A = 16, 5 = 15, 4 = 14,
     * 3 = 13, 2 = 12, face cards = 10. */
    static const int value[RANKS + 1] = {0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10};
    for (int r = 1; r <= RANKS; r++)
        for (int suit = 0; suit < 4; suit++) rank_mask[r] |= 1ull << (RANKS * suit + r - 1);
    for (int r = 1; r <= RANKS; r++) upto[r] = upto[r - 1] | rank_mask[r];
    for (int pattern = 1; pattern < (1 << RANKS); pattern++)
        for (int r = 1; r <= RANKS; r++)
            if (pattern >> (r - 1) & 1 && value[r] > primiera_best[pattern])
                primiera_best[pattern] = value[r];
}

/* ---- Legal captures (docs/rules.md section 3) ---- */

/* Every set of cards drawn from `cards` that sums to `left`, each added to `set` and written
 * to out[*n]: depth-first, each card either taken (then only later cards that still fit, by
 * the mask of lower ranks) or passed over, so every set is listed exactly once. */
static void sum_captures(u64 cards, int left, u64 set, u64 *out, int *n) {
    for (; cards; cards &= cards - 1) {
        u64 bit = cards & (~cards + 1);
        int r = rank_of(lowest(cards));
        if (r == left)
            out[(*n)++] = set | bit;
        else if (r < left) /* go on with the later cards that still fit */
            sum_captures((cards & (cards - 1)) & upto[left - r], left - r, set | bit, out, n);
    }
}

/* The captures a card of rank v can make from `table`, written to `out`; returns how many
 * (0: the card is laid on the table). Equal rank takes precedence: one capture per table card
 * of rank v. Otherwise every set of two or more table cards summing to v: only cards of lower
 * rank can be in such a set, so a single card never is. */
static int captures(u64 table, int v, u64 *out) {
    int n = 0;
    u64 equal = table & rank_mask[v];
    if (equal) {
        for (; equal; equal &= equal - 1) out[n++] = equal & (~equal + 1);
        return n;
    }
    sum_captures(table & upto[v - 1], v, 0, out, &n);
    return n;
}

/* ---- One deal ---- */

static void shuffle(int *pack) { /* Fisher-Yates */
    for (int i = CARDS - 1; i > 0; i--) {
        int j = (int)below((unsigned)i + 1), t = pack[i];
        pack[i] = pack[j];
        pack[j] = t;
    }
}

/* A side's primiera: the best card of each suit summed; -1 when a suit is void (no primiera). */
static int primiera(u64 cards) {
    int total = 0;
    for (int suit = 0; suit < 4; suit++) {
        int best = primiera_best[(cards >> (RANKS * suit)) & SUIT];
        if (!best) return -1;
        total += best;
    }
    return total;
}

/* Award one point to the side with strictly more (a tie scores nothing). */
static inline void most(int a, int b, int *points) {
    if (a != b) points[a > b ? 0 : 1] += 1;
}

/* Play one deal with seat 0 (the leader) on side `leader`; the points of each side. Returns
 * the number of throw-ins before the deal. */
static int play_deal(int *pack, int leader, int *points) {
    static u64 options[MAX_CAPTURES];
    int throw_ins = -1;
    u64 table;
    do { /* throw-in (docs/rules.md section 2): 3 or 4 kings among the 4 table cards -> redeal */
        shuffle(pack);
        throw_ins++;
        table = 0;
        for (int i = 0; i < 4; i++) table |= 1ull << pack[i];
    } while (popcount(table & rank_mask[10]) >= 3);

    u64 hand[2], captured[2] = {0, 0};
    int scope[2] = {0, 0}, last = -1, position = 4, play = 0;
    for (int h = 0; h < HANDS; h++) {
        for (int seat = 0; seat < 2; seat++, position += 3)
            hand[seat] = 1ull << pack[position] | 1ull << pack[position + 1]
                       | 1ull << pack[position + 2];
        for (int turn = 0; turn < 3; turn++)
            for (int seat = 0; seat < 2; seat++, play++) {
                int side = (leader + seat) & 1;
                /* The random player: a hand card uniformly (3 - turn are left in the hand),
                 * then one of its captures uniformly. A card that can capture must. */
                u64 rest = hand[seat];
                for (unsigned k = below(3u - (unsigned)turn); k; k--) rest &= rest - 1;
                int card = lowest(rest);
                u64 bit = 1ull << card;
                hand[seat] &= ~bit;
                int n = captures(table, rank_of(card), options);
                if (n == 0) { /* a card that cannot capture stays on the table */
                    table |= bit;
                    continue;
                }
                u64 taken = options[n > 1 ? below((unsigned)n) : 0];
                table &= ~taken;
                captured[side] |= taken | bit;
                last = side;
                if (table == 0 && play != PLAYS - 1) scope[side]++; /* no scopa on the last play */
            }
    }
    if (last >= 0) captured[last] |= table; /* the last capturer takes the leftovers */

    /* Scoring (docs/rules.md section 5): cards, coins, settebello, primiera, scope. */
    points[0] = scope[0];
    points[1] = scope[1];
    most(popcount(captured[0]), popcount(captured[1]), points);
    most(popcount(captured[0] & COINS), popcount(captured[1] & COINS), points);
    for (int s = 0; s < 2; s++) points[s] += (captured[s] & SETTEBELLO) != 0;
    most(primiera(captured[0]), primiera(captured[1]), points); /* void (-1) never wins */
    return throw_ins;
}

/* ---- Command line ---- */

static double peak_mb(void) { /* VmHWM: this program's own peak, unlike an inherited maxrss */
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kib) == 1) break;
    if (f) fclose(f);
    if (kib < 0) {
        struct rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        kib = usage.ru_maxrss;
    }
    return kib / 1024.0;
}

static int usage(void) {
    fputs("usage: native_scopa [--deals N] [--seed S]\n"
          "Plays N classic 2-player Scopa deals, random vs random; prints one JSON line.\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    long long deals = 1000000;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 < argc && !strcmp(argv[i], "--deals"))
            deals = strtoll(argv[++i], &end, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--seed"))
            seed = strtoull(argv[++i], &end, 10);
        else
            return usage();
        if (!end || *end || deals < 1) return usage();
    }
    init_tables();
    u64 x = seed;
    for (int i = 0; i < 4; i++) rng[i] = splitmix64(&x);

    int pack[CARDS], points[2];
    for (int i = 0; i < CARDS; i++) pack[i] = i;
    u64 checksum = 0xCBF29CE484222325ull; /* FNV-1a over each deal's points */
    long long total = 0, squares = 0, throw_ins = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long d = 0; d < deals; d++) {
        throw_ins += play_deal(pack, (int)(d & 1), points); /* the deal passes each time */
        int both = points[0] + points[1];
        total += both;
        squares += both * both;
        checksum = (checksum ^ (u64)(points[0] << 8 | points[1])) * 0x100000001B3ull;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double mean = (double)total / deals;
    double sd = deals > 1 ? sqrt(((double)squares - deals * mean * mean) / (deals - 1)) : 0;
    printf("{\"case\": \"native C, random vs random\", \"deals\": %lld, \"seconds\": %.6f, "
           "\"deals_per_s\": %.0f, \"checksum\": \"%016llx\", \"points_per_deal\": %.6f, "
           "\"points_sd\": %.6f, \"throw_ins\": %lld, \"seed\": %llu, \"peak_memory_mb\": %.1f}\n",
           deals, seconds, deals / seconds, (unsigned long long)checksum, mean, sd, throw_ins,
           seed, peak_mb());
    return 0;
}
