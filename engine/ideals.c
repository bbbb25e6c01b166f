/* ideals.c: E[makespan] of an exponential activity DAG over its order
 * ideals, two levels at a time (see ideals.h).  An ideal is a bitset of W
 * words; a level is a hash set of such bitsets with one value each.  Graphs
 * of up to MASK_MAX transitions keep one predecessor and one successor mask
 * per transition, so that "is t ready in S" and "is a maximal in S" are W
 * word operations; larger graphs walk adjacency lists instead. */
#include "engine/ideals.h"

#include "base/core.h"
#include "base/hash.h"
#include "solvers/phasetype.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK_MAX 4096

typedef struct level {
  size_t W, n, cap;  /* states held, capacity of keys/val */
  uint64_t *keys;    /* n * W words */
  double *val;       /* E[T(S)] once solved; the weighted sum meanwhile */
  double *rsum;      /* total rate out of S; < 0: S moves on at once */
  stp_hmap map;      /* index by hash (base/hash.h) */
  uint64_t room;     /* bytes this level may grow to (the memory budget's share) */
} level;

/* What level_add returns besides an index. */
#define ADD_OOM SIZE_MAX
#define ADD_OVER_BUDGET (SIZE_MAX - 1)

/* The DAG renumbered so that a chain decomposition (greedy, along places)
 * occupies consecutive bits: the next transition of a chain is then bit
 * t + 1, so the only candidates to be maximal in S are the last bits of
 * chains and the bits of S right before one not in S: a few word operations
 * find them, and each state costs O(chains + W), not O(n). */
typedef struct dag {
  size_t n, W, nchains;
  double *time, *rate;            /* by new number; rate = 1 / time (0: instantaneous) */
  uint64_t *first, *last, *valid; /* W words: chain starts, chain ends, bits < n */
  uint64_t *pred, *succ;          /* n * W masks, or NULL (lists) */
  uint32_t *poff, *padj, *soff, *sadj; /* CSR predecessor/successor lists */
  const stp_coxian **cox;         /* by new number: phase-type law (mean 1), or NULL: exp */
  uint32_t *nph;                  /* by new number: phases (1: exp or instantaneous) */
} dag;

/* Keys are a few words: inline loops beat memcmp/memcpy calls here, which
 * run once per probe and per move (profiled: a third of the time). */
static inline bool key_eq(const uint64_t *a, const uint64_t *b, size_t W) {
  for (size_t w = 0; w < W; w++)
    if (a[w] != b[w]) return false;
  return true;
}

static inline void key_copy(uint64_t *dst, const uint64_t *src, size_t W) {
  for (size_t w = 0; w < W; w++) dst[w] = src[w];
}

static void level_free(level *l) {
  free(l->keys);
  free(l->val);
  free(l->rsum);
  stp__hmap_free(&l->map);
  memset(l, 0, sizeof *l);
}

static uint64_t bytes_of(size_t W, size_t cap, uint64_t nslot) {
  return (uint64_t)cap * (W * 8 + 2 * sizeof(double)) + nslot * sizeof(uint64_t);
}

/* A level about to hold some `expect` states (the neighbouring level's
 * size: levels change size slowly), so that its table rarely regrows. */
static bool level_init(level *l, size_t W, size_t expect, uint64_t room) {
  memset(l, 0, sizeof *l);
  l->W = W;
  l->room = room;
  uint64_t slots = 64; /* room for `expect` at a load of 3/4, within half the room */
  while (slots < expect + expect / 3 + 1 && bytes_of(W, 0, 2 * slots) <= room / 2) slots *= 2;
  return stp__hmap_init(&l->map, slots, NULL) == STP_OK;
}

static uint64_t key_hash(const uint64_t *k, size_t W) { return stp__hash_words(k, W); }

static uint64_t entry_hash(const void *ctx, uint32_t i) {
  const level *l = ctx;
  return key_hash(l->keys + (size_t)i * l->W, l->W);
}

/* Index of key in l, or SIZE_MAX; *p (may be NULL) = where the probe
 * ended, for level_add. */
static size_t level_find(const level *l, const uint64_t *key, stp_hmap_probe *p) {
  stp_hmap_probe local;
  if (!p) p = &local;
  uint32_t i;
  for (stp__hmap_probe(&l->map, key_hash(key, l->W), p); stp__hmap_next(&l->map, p, &i);)
    if (key_eq(l->keys + (size_t)i * l->W, key, l->W)) return i;
  return SIZE_MAX;
}

static uint64_t level_bytes(const level *l) { return bytes_of(l->W, l->cap, l->map.size); }

/* Index of key in l, added (value and rate 0) when absent.  ADD_OOM when
 * out of memory, ADD_OVER_BUDGET when l would grow beyond l->room bytes
 * (checked before the arrays or the table grow, not after). */
static size_t level_add(level *l, const uint64_t *key) {
  stp_hmap_probe p;
  size_t i = level_find(l, key, &p);
  if (i != SIZE_MAX) return i;
  if (l->n >= UINT32_MAX - 1) return ADD_OOM;
  uint64_t slots = stp__hmap_size_after_add(&l->map);
  size_t cap = l->n == l->cap ? (l->cap ? 2 * l->cap : 64) : l->cap;
  if ((cap != l->cap || slots != l->map.size) && bytes_of(l->W, cap, slots) > l->room)
    return ADD_OVER_BUDGET;
  if (cap != l->cap) {
    void *const arrays[] = {&l->keys, &l->val, &l->rsum};
    const size_t sizes[] = {l->W * sizeof *l->keys, sizeof *l->val, sizeof *l->rsum};
    if (!stp__grow_arrays(cap, 3, arrays, sizes)) return ADD_OOM;
    l->cap = cap;
  }
  i = l->n++;
  key_copy(l->keys + i * l->W, key, l->W);
  l->val[i] = 0;
  l->rsum[i] = 0;
  if (stp__hmap_add(&l->map, &p, entry_hash, l, NULL) != STP_OK) return ADD_OOM;
  return i;
}

static inline bool has(const uint64_t *s, size_t t) { return (s[t >> 6] >> (t & 63)) & 1; }

/* a in s is maximal in s: none of its successors is in s. */
static bool maximal(const dag *d, const uint64_t *s, size_t a) {
  if (d->succ) {
    const uint64_t *m = d->succ + a * d->W;
    for (size_t w = 0; w < d->W; w++)
      if (m[w] & s[w]) return false;
    return true;
  }
  for (uint32_t e = d->soff[a]; e < d->soff[a + 1]; e++)
    if (has(s, d->sadj[e])) return false;
  return true;
}

/* Children of a block of states, gathered before they are looked up. */
typedef struct batch {
  size_t cap;        /* children held at most (>= chains) */
  uint64_t *keys;    /* cap * W words */
  uint32_t *parent, *move;
} batch;

static void dag_free(dag *d) {
  free(d->time);
  free(d->rate);
  free(d->first);
  free(d->last);
  free(d->valid);
  free(d->pred);
  free(d->succ);
  free(d->poff);
  free(d->padj);
  free(d->soff);
  free(d->sadj);
  free(d->cox);
  free(d->nph);
}

/* Adjacency lists (CSR) of one direction: edge p goes from[p] -> to[p]. */
static bool csr(size_t n, size_t m, const uint32_t *from, const uint32_t *to, uint32_t **off,
                uint32_t **adj) {
  *off = stp__calloc(n + 1, sizeof **off);
  *adj = stp__malloc_array(m ? m : 1, sizeof **adj);
  if (!*off || !*adj) return false;
  for (size_t p = 0; p < m; p++) (*off)[from[p] + 1]++;
  for (size_t t = 0; t < n; t++) (*off)[t + 1] += (*off)[t];
  uint32_t *fill = stp__malloc_array(n + 1, sizeof *fill);
  if (!fill) return false;
  memcpy(fill, *off, (n + 1) * sizeof *fill);
  for (size_t p = 0; p < m; p++) (*adj)[fill[from[p]]++] = to[p];
  free(fill);
  return true;
}

/* pos[t] = new number of transition t: chains laid out one after the
 * other, each in its order.  Greedy decomposition: in topological order, t
 * extends the chain of the first predecessor that still ends its chain. */
static bool chain_numbering(const stp_graph *g, uint32_t *pos, uint8_t *is_first,
                            uint8_t *is_last) {
  size_t n = g->nt;
  uint32_t *order = NULL, *next = stp__malloc_array(n, sizeof *next), *poff = NULL, *padj = NULL;
  uint8_t *tail = stp__calloc(n, 1);
  bool ok = next && tail && csr(n, g->np, g->pto, g->pfrom, &poff, &padj) &&
            stp__graph_topo_order(g, &order, NULL) == STP_OK;
  for (size_t k = 0; ok && k < n; k++) {
    uint32_t t = order[k];
    next[t] = UINT32_MAX;
    is_first[t] = 1;
    for (uint32_t e = poff[t]; e < poff[t + 1]; e++) {
      uint32_t u = padj[e];
      if (tail[u]) {
        tail[u] = 0;
        next[u] = t;
        is_first[t] = 0;
        break;
      }
    }
    tail[t] = 1;
  }
  uint32_t at = 0;
  for (size_t k = 0; ok && k < n; k++)
    if (is_first[order[k]])
      for (uint32_t t = order[k]; t != UINT32_MAX; t = next[t]) {
        is_last[at] = next[t] == UINT32_MAX;
        pos[t] = at++;
      }
  free(order);
  free(next);
  free(poff);
  free(padj);
  free(tail);
  return ok;
}

static bool dag_init(dag *d, const stp_graph *g, const stp_coxian *const *ph) {
  memset(d, 0, sizeof *d);
  size_t n = g->nt, W = (n + 63) / 64;
  d->n = n;
  d->W = W;
  uint32_t *pos = stp__malloc_array(n, sizeof *pos);
  uint32_t *from = stp__malloc_array(g->np ? g->np : 1, sizeof *from);
  uint32_t *to = stp__malloc_array(g->np ? g->np : 1, sizeof *to);
  uint8_t *first_of = stp__calloc(n, 1), *last_at = stp__calloc(n, 1);
  d->time = stp__malloc_array(n, sizeof *d->time);
  d->rate = stp__malloc_array(n, sizeof *d->rate);
  d->first = stp__calloc(W, 8);
  d->last = stp__calloc(W, 8);
  d->valid = stp__calloc(W, 8);
  d->cox = stp__calloc(n, sizeof *d->cox);
  d->nph = stp__malloc_array(n, sizeof *d->nph);
  bool ok = pos && from && to && first_of && last_at && d->time && d->rate && d->first &&
            d->last && d->valid && d->cox && d->nph && chain_numbering(g, pos, first_of, last_at);
  for (size_t t = 0; ok && t < n; t++) {
    uint32_t q = pos[t];
    d->time[q] = g->time[t];
    d->rate[q] = g->time[t] > 0 ? 1 / g->time[t] : 0;
    d->cox[q] = ph && g->time[t] > 0 && ph[t] && ph[t]->n > 1 ? ph[t] : NULL;
    d->nph[q] = d->cox[q] ? d->cox[q]->n : 1;
    if (first_of[t]) d->first[q >> 6] |= UINT64_C(1) << (q & 63);
    d->nchains += first_of[t];
    if (last_at[q]) d->last[q >> 6] |= UINT64_C(1) << (q & 63);
    d->valid[q >> 6] |= UINT64_C(1) << (q & 63);
  }
  for (size_t p = 0; ok && p < g->np; p++) {
    from[p] = pos[g->pfrom[p]];
    to[p] = pos[g->pto[p]];
  }
  ok = ok && csr(n, g->np, to, from, &d->poff, &d->padj) &&
       csr(n, g->np, from, to, &d->soff, &d->sadj);
  if (ok && n <= MASK_MAX) {
    d->pred = stp__calloc(n * W, 8);
    d->succ = stp__calloc(n * W, 8);
    ok = d->pred && d->succ;
    for (size_t p = 0; ok && p < g->np; p++) {
      size_t a = from[p], b = to[p];
      d->pred[b * W + (a >> 6)] |= UINT64_C(1) << (a & 63);
      d->succ[a * W + (b >> 6)] |= UINT64_C(1) << (b & 63);
    }
  }
  free(pos);
  free(from);
  free(to);
  free(first_of);
  free(last_at);
  return ok;
}

/* Bits of S that may be maximal: chain ends, and bits whose chain
 * successor (bit t + 1) is not in S. */
static inline uint64_t maximal_candidates(const dag *d, const uint64_t *S, size_t w) {
  uint64_t next = (S[w] >> 1) | (w + 1 < d->W ? S[w + 1] << 63 : 0);
  return S[w] & (d->last[w] | ~next);
}

/* Bounds from the layers of the DAG by depth (the longest path in places
 * from a source), known before any ideal is built.  A layer is an
 * antichain, and every predecessor of a transition lies in an earlier
 * layer, so the layers before i plus any subset of layer i form an ideal:
 * at least 1 + sum_i (2^w_i - 1) ideals (a chain of n: n + 1; w independent
 * transitions: 2^w), and, the ideals of one size being held together, a
 * level of at least max_i C(w_i, w_i / 2).  Saturating at UINT64_MAX. */
typedef struct layer_bounds {
  size_t widest;       /* the largest layer */
  uint64_t ideals;     /* at least this many ideals */
  uint64_t level;      /* at least this many of one size */
} layer_bounds;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* C(w, w / 2), saturating. */
static uint64_t middle_binomial(size_t w) {
  uint64_t c = 1;
  for (size_t k = 1; k <= w / 2; k++) {
    unsigned __int128 x = (unsigned __int128)c * (w - w / 2 + k) / k;
    if (x > UINT64_MAX) return UINT64_MAX;
    c = (uint64_t)x;
  }
  return c;
}

static bool layers(const dag *d, layer_bounds *b) {
  size_t n = d->n;
  *b = (layer_bounds){.ideals = 1, .level = 1};
  uint32_t *indeg = stp__calloc(n, sizeof *indeg), *depth = stp__calloc(n, sizeof *depth);
  uint32_t *queue = stp__malloc_array(n, sizeof *queue), *count = stp__calloc(n, sizeof *count);
  bool ok = indeg && depth && queue && count;
  size_t head = 0, tail = 0;
  for (size_t t = 0; ok && t < n; t++)
    if ((indeg[t] = d->poff[t + 1] - d->poff[t]) == 0) queue[tail++] = (uint32_t)t;
  while (ok && head < tail) {
    uint32_t t = queue[head++];
    count[depth[t]]++;
    for (uint32_t e = d->soff[t]; e < d->soff[t + 1]; e++) {
      uint32_t u = d->sadj[e];
      if (depth[t] + 1 > depth[u]) depth[u] = depth[t] + 1;
      if (--indeg[u] == 0) queue[tail++] = u;
    }
  }
  for (size_t k = 0; ok && k < n && count[k]; k++) {
    size_t w = count[k];
    if (w > b->widest) b->widest = w;
    b->ideals = sat_add(b->ideals, w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1);
    uint64_t mid = middle_binomial(w);
    if (mid > b->level) b->level = mid;
  }
  free(indeg);
  free(depth);
  free(queue);
  free(count);
  return ok;
}

/* The states of size k and their values, from the states of size k + 1:
 * each state H of hi minus one of its maximal elements a gives S = H - a,
 * and a is ready in S.  Every move S -> S + a of the chain is met exactly
 * once this way (S + a is an ideal of size k + 1, where a is maximal), so
 * the values are summed here, with no second lookup:
 * E[T(S)] = (1 + sum_a rate_a E[T(S + a)]) / sum_a rate_a, or E[T(S + a)]
 * when a takes no time.  Returns one of the outcomes below. */
enum { EXPANDED = 0, TOO_MANY = 1, OUT_OF_MEMORY = -1, OVER_BUDGET = 2, CANCELLED = 3 };

static int expand_level(const dag *d, level *lo, const level *hi, batch *bt, uint64_t room,
                        const stp_cancel *cancel) {
  size_t W = d->W;
  for (size_t h0 = 0; h0 < hi->n;) {
    if (stp__cancelled(cancel)) return CANCELLED;
    /* gather the children of a block of states and prefetch their slots:
     * the table is far larger than the caches on wide DAGs, and the
     * misses, not the arithmetic, bound the speed */
    size_t nb = 0;
    for (; h0 < hi->n && nb + d->nchains <= bt->cap; h0++) {
      const uint64_t *H = hi->keys + h0 * W;
      for (size_t w = 0; w < W; w++)
        for (uint64_t bits = maximal_candidates(d, H, w); bits; bits &= bits - 1) {
          size_t a = w * 64 + (size_t)__builtin_ctzll(bits);
          if (!maximal(d, H, a)) continue;
          uint64_t *k = bt->keys + nb * W;
          key_copy(k, H, W);
          k[a >> 6] &= ~(UINT64_C(1) << (a & 63));
          __builtin_prefetch(&lo->map.slot[stp__hmap_home(key_hash(k, W), lo->map.size)]);
          bt->parent[nb] = (uint32_t)h0;
          bt->move[nb++] = (uint32_t)a;
        }
    }
    for (size_t c = 0; c < nb; c++) {
      size_t i = level_add(lo, bt->keys + c * W), a = bt->move[c];
      if (i == ADD_OOM) return OUT_OF_MEMORY;
      if (i == ADD_OVER_BUDGET) return OVER_BUDGET;
      if (lo->n > room) return TOO_MANY;
      if (lo->rsum[i] < 0) continue;
      double vh = hi->val[bt->parent[c]];
      if (d->rate[a] == 0) { /* instantaneous: S moves to S + a at once */
        lo->val[i] = vh;
        lo->rsum[i] = -1;
      } else {
        lo->val[i] += d->rate[a] * vh;
        lo->rsum[i] += d->rate[a];
      }
    }
  }
  for (size_t i = 0; i < lo->n; i++)
    if (lo->rsum[i] > 0) lo->val[i] = (1 + lo->val[i]) / lo->rsum[i];
  return EXPANDED;
}

/* needed: the lower bound `how` proves, or 0 (more than max_states). */
static stp_status too_many(stp_error *err, uint64_t max_states, uint64_t needed, const char *how) {
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, needed, max_states, 0},
                         "the exponential makespan needs more than %llu states (order ideals)%s",
                         (unsigned long long)max_states, how);
}

static stp_status too_many_ph(stp_error *err, uint64_t max_states, uint64_t needed,
                              const char *how) {
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, needed, max_states, 0},
                         "the phase-type makespan needs more than %llu states (order ideals and "
                         "the phases of their running tasks)%s",
                         (unsigned long long)max_states, how);
}

static stp_status over_budget(stp_error *err, const char *what, uint64_t bytes, uint64_t budget) {
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, bytes, budget, 0},
                         "the exponential makespan needs %s %.3g GiB for its order ideals, above "
                         "the memory budget of %.3g GiB",
                         what, (double)bytes / 1073741824.0, (double)budget / 1073741824.0);
}

/* The walk's scratch: the block of children (about 32 states' worth, enough
 * to hide the misses, less when the keys are long and memory short). */
static bool batch_init(batch *bt, const dag *d, uint64_t budget) {
  size_t chains = d->nchains ? d->nchains : 1, per = d->W * 8 + 8;
  uint64_t fit = budget / 16 / per;
  bt->cap = 32 * chains < fit ? 32 * chains : (fit > chains ? (size_t)fit : chains);
  bt->keys = stp__malloc_array(bt->cap * d->W, 8);
  bt->parent = stp__malloc_array(bt->cap, sizeof *bt->parent);
  bt->move = stp__malloc_array(bt->cap, sizeof *bt->move);
  return bt->keys && bt->parent && bt->move;
}

static void batch_free(batch *bt) {
  free(bt->keys);
  free(bt->parent);
  free(bt->move);
}

static stp_status walk(const dag *d, uint64_t max_states, const stp_control *control,
                       uint64_t budget, uint64_t estimate, double *makespan,
                       stp_ideals_stats *st, stp_error *err) {
  size_t W = d->W;
  level hi, lo;
  batch bt;
  uint64_t *tmp = stp__calloc(W, 8);
  bool ready = batch_init(&bt, d, budget);
  uint64_t fixed = (uint64_t)bt.cap * (W * 8 + 8) + W * 8;
  if (!tmp || !ready || !level_init(&hi, W, 1, budget)) {
    free(tmp);
    batch_free(&bt);
    return stp__oom(err, "order ideal chain");
  }
  stp_status s = STP_OK;
  double t0 = stp__now();
  for (size_t t = 0; t < d->n; t++) tmp[t >> 6] |= UINT64_C(1) << (t & 63);
  if (level_add(&hi, tmp) >= ADD_OVER_BUDGET) s = stp__oom(err, "order ideal chain");
  if (hi.val) hi.val[0] = 0;
  st->states = 1;
  st->peak_level = 1;
  for (size_t k = d->n; s == STP_OK && k-- > 0;) {
    stp__progress(control, "order ideals of the DAG", st->states, estimate, t0);
    uint64_t used = fixed + level_bytes(&hi), room = budget > used ? budget - used : 0;
    int x = level_init(&lo, W, hi.n, room)
                ? expand_level(d, &lo, &hi, &bt, max_states - st->states, &control->cancel)
                : OUT_OF_MEMORY;
    st->states += lo.n;
    if (lo.n > st->peak_level) st->peak_level = lo.n;
    uint64_t bytes = level_bytes(&lo) + level_bytes(&hi);
    if (bytes > st->peak_bytes) st->peak_bytes = bytes;
    if (x != EXPANDED) {
      uint64_t held = used + level_bytes(&lo);
      level_free(&lo);
      s = x == OUT_OF_MEMORY ? stp__oom(err, "order ideal chain")
          : x == CANCELLED   ? stp__fail(err, STP_EINTERRUPTED,
                                         "interrupted while walking the order ideals")
          : x == OVER_BUDGET ? over_budget(err, "more than", held, budget)
                             : too_many(err, max_states, 0, "");
      break;
    }
    level_free(&hi);
    hi = lo;
  }
  if (s == STP_OK) *makespan = hi.val[0];
  level_free(&hi);
  free(tmp);
  batch_free(&bt);
  return s;
}

/* ---- phase-type times ------------------------------------------------------------------
 * A state is an ideal S and the phase of each task of its frontier F(S)
 * (the ready tasks: all running).  The phases of one ideal form a block,
 * indexed in mixed radix over F(S) in increasing (new) number, the first
 * task's phase varying fastest.  Going on from phase i to i + 1 raises the
 * index by that task's stride, so a block solved from its last index down
 * meets every such target solved; a completion of task a leads to the
 * ideal S + a of the level above, already solved, where the tasks a made
 * ready start in phase 0 and the others keep theirs.  Levels are still
 * made from the level above (each ideal of size k + 1 minus a maximal
 * element), then each state is solved by looking its moves up. */

typedef struct ph_level {
  level set;      /* the ideals (set.val and set.rsum unused) */
  uint64_t *boff; /* set.n + 1: the first state of each ideal's block */
  double *val;    /* E[T] of each state */
} ph_level;

static void ph_level_free(ph_level *l) {
  level_free(&l->set);
  free(l->boff);
  free(l->val);
  memset(l, 0, sizeof *l);
}

/* Every predecessor of t is in S. */
static bool ready_in(const dag *d, const uint64_t *S, size_t t) {
  if (d->pred) {
    const uint64_t *m = d->pred + t * d->W;
    for (size_t w = 0; w < d->W; w++)
      if (m[w] & ~S[w]) return false;
    return true;
  }
  for (uint32_t e = d->poff[t]; e < d->poff[t + 1]; e++)
    if (!has(S, d->padj[e])) return false;
  return true;
}

/* F(S) in increasing order into f; returns its size.  A task is ready only
 * when its chain predecessor (bit t - 1, where t starts no chain) is in S,
 * so the candidates are chain starts and bits right after one of S. */
static size_t frontier(const dag *d, const uint64_t *S, uint32_t *f) {
  size_t r = 0;
  for (size_t w = 0; w < d->W; w++) {
    uint64_t after = (S[w] << 1) | (w ? S[w - 1] >> 63 : 0);
    for (uint64_t bits = ~S[w] & d->valid[w] & (d->first[w] | after); bits; bits &= bits - 1) {
      size_t t = w * 64 + (size_t)__builtin_ctzll(bits);
      if (ready_in(d, S, t)) f[r++] = (uint32_t)t;
    }
  }
  return r;
}

/* Scratch of one block: frontier, strides, digits, and per task of the
 * frontier the block of S + f above and the strides of the others there. */
typedef struct ph_scratch {
  uint32_t *f, *fh;
  uint64_t *stride, *hoff, *hs, *digit;
  uint64_t *key;
  size_t hs_cap; /* entries of hs: grown to r^2 for a frontier of r tasks */
} ph_scratch;

static void scratch_free(ph_scratch *sc) {
  free(sc->f);
  free(sc->fh);
  free(sc->stride);
  free(sc->hoff);
  free(sc->hs);
  free(sc->digit);
  free(sc->key);
}

static bool scratch_init(ph_scratch *sc, const dag *d) {
  size_t n = d->n ? d->n : 1;
  sc->f = stp__malloc_array(n, sizeof *sc->f);
  sc->fh = stp__malloc_array(n, sizeof *sc->fh);
  sc->stride = stp__malloc_array(n, sizeof *sc->stride);
  sc->hoff = stp__malloc_array(n, sizeof *sc->hoff);
  sc->digit = stp__malloc_array(n, sizeof *sc->digit);
  sc->key = stp__malloc_array(d->W, sizeof *sc->key);
  return sc->f && sc->fh && sc->stride && sc->hoff && sc->digit && sc->key;
}

/* Room in hs for the strides of a frontier of r tasks (r^2: r is the
 * width of the frontier, not the DAG's size, whose square took 80 GB for
 * a path of 100,000 transitions). */
static bool scratch_fit(ph_scratch *sc, size_t r) {
  size_t need = r > 1 ? r * r : 1;
  if (need <= sc->hs_cap)
    return true;
  uint64_t *hs = realloc(sc->hs, need * sizeof *hs);
  if (!hs)
    return false;
  sc->hs = hs;
  sc->hs_cap = need;
  return true;
}

/* The states of S's block (r = |F(S)| tasks in sc->f, strides set).  For
 * each task f_j: H = S + f_j above, its block (hoff[j]) and the stride of
 * every other f_k there (hs[j r + k]); tasks f made ready have phase 0. */
static void moves_up(const dag *d, const uint64_t *S, size_t r, const ph_level *hi,
                     ph_scratch *sc) {
  for (size_t j = 0; j < r; j++) {
    key_copy(sc->key, S, d->W);
    sc->key[sc->f[j] >> 6] |= UINT64_C(1) << (sc->f[j] & 63);
    size_t h = level_find(&hi->set, sc->key, NULL); /* an ideal of size k + 1: present */
    sc->hoff[j] = hi->boff[h];
    size_t rh = frontier(d, sc->key, sc->fh), at = 0;
    uint64_t stride = 1;
    for (size_t x = 0, k = 0; x < rh; x++) { /* both lists increasing */
      while (k < r && sc->f[k] < sc->fh[x]) sc->hs[j * r + k++] = 0;
      if (k < r && sc->f[k] == sc->fh[x]) sc->hs[j * r + k++] = stride;
      stride *= d->nph[sc->fh[x]];
      at = k;
    }
    for (size_t k = at; k < r; k++) sc->hs[j * r + k] = 0;
  }
}

static inline uint64_t index_above(const ph_scratch *sc, size_t r, size_t j) {
  uint64_t h = sc->hoff[j];
  for (size_t k = 0; k < r; k++) h += sc->digit[k] * sc->hs[j * r + k];
  return h;
}

/* E[T] of every state of S's block into val (block of the level being
 * solved), from its last index down. */
static void solve_block(const dag *d, size_t r, uint64_t size, const ph_level *hi,
                        const ph_scratch *sc, double *val) {
  size_t now = r; /* a ready instantaneous task: the state moves on at once */
  for (size_t j = 0; j < r && now == r; j++)
    if (d->rate[sc->f[j]] == 0) now = j;
  for (size_t k = 0; k < r; k++) sc->digit[k] = d->nph[sc->f[k]] - 1;
  for (uint64_t idx = size; idx-- > 0;) {
    if (now < r) {
      val[idx] = hi->val[index_above(sc, r, now)];
    } else {
      double num = 1, den = 0;
      for (size_t j = 0; j < r; j++) {
        uint32_t f = sc->f[j];
        const stp_coxian *c = d->cox[f];
        uint64_t i = sc->digit[j];
        double rate = (c ? c->rate[i] : 1) * d->rate[f], q = c ? c->next[i] : 0;
        den += rate;
        if (q < 1) num += rate * (1 - q) * hi->val[index_above(sc, r, j)];
        if (q > 0) num += rate * q * val[idx + sc->stride[j]];
      }
      val[idx] = num / den;
    }
    for (size_t k = 0; k < r && idx; k++) { /* the odometer, down by one */
      if (sc->digit[k]) {
        sc->digit[k]--;
        break;
      }
      sc->digit[k] = d->nph[sc->f[k]] - 1;
    }
  }
}

/* The ideals of size k from those of size k + 1 (each minus a maximal
 * element): EXPANDED, OUT_OF_MEMORY, OVER_BUDGET or CANCELLED. */
static int gather_level(const dag *d, level *lo, const level *hi, uint64_t *key,
                        const stp_cancel *cancel) {
  size_t W = d->W;
  for (size_t h = 0; h < hi->n; h++) {
    if (h % 1024 == 0 && stp__cancelled(cancel)) return CANCELLED;
    const uint64_t *H = hi->keys + h * W;
    for (size_t w = 0; w < W; w++)
      for (uint64_t bits = maximal_candidates(d, H, w); bits; bits &= bits - 1) {
        size_t a = w * 64 + (size_t)__builtin_ctzll(bits);
        if (!maximal(d, H, a)) continue;
        key_copy(key, H, W);
        key[a >> 6] &= ~(UINT64_C(1) << (a & 63));
        size_t i = level_add(lo, key);
        if (i == ADD_OOM) return OUT_OF_MEMORY;
        if (i == ADD_OVER_BUDGET) return OVER_BUDGET;
      }
  }
  return EXPANDED;
}

/* Block offsets of lo's ideals: TOO_MANY when they hold more than room
 * states. */
static int block_offsets(const dag *d, ph_level *lo, ph_scratch *sc, uint64_t room) {
  uint64_t total = 0;
  for (size_t i = 0; i < lo->set.n; i++) {
    lo->boff[i] = total;
    size_t r = frontier(d, lo->set.keys + i * d->W, sc->f);
    uint64_t size = 1;
    for (size_t j = 0; j < r; j++)
      if (!stp__mul_u64(size, d->nph[sc->f[j]], &size)) return TOO_MANY;
    if (!stp__add_u64(total, size, &total) || total > room) return TOO_MANY;
  }
  lo->boff[lo->set.n] = total;
  return EXPANDED;
}

/* Level lo (ideals gathered) solved from hi: EXPANDED, TOO_MANY (more
 * than room states), OVER_BUDGET (values beyond `bytes`), OUT_OF_MEMORY
 * or CANCELLED. */
static int solve_level(const dag *d, ph_level *lo, const ph_level *hi, ph_scratch *sc,
                       uint64_t room, uint64_t bytes, const stp_cancel *cancel) {
  if (!(lo->boff = stp__malloc_array(lo->set.n + 1, sizeof *lo->boff))) return OUT_OF_MEMORY;
  int x = block_offsets(d, lo, sc, room);
  if (x != EXPANDED) return x;
  uint64_t total = lo->boff[lo->set.n];
  if (total > bytes / sizeof *lo->val) return OVER_BUDGET;
  if (!(lo->val = stp__malloc_array(total ? total : 1, sizeof *lo->val))) return OUT_OF_MEMORY;
  for (size_t i = 0; i < lo->set.n; i++) {
    if (i % 1024 == 0 && stp__cancelled(cancel)) return CANCELLED;
    const uint64_t *S = lo->set.keys + i * d->W;
    size_t r = frontier(d, S, sc->f);
    uint64_t size = 1;
    for (size_t j = 0; j < r; j++) {
      sc->stride[j] = size;
      size *= d->nph[sc->f[j]];
    }
    if (!scratch_fit(sc, r))
      return OUT_OF_MEMORY;
    moves_up(d, S, r, hi, sc);
    solve_block(d, r, size, hi, sc, lo->val + lo->boff[i]);
  }
  return EXPANDED;
}

static uint64_t ph_level_bytes(const ph_level *l) {
  return level_bytes(&l->set) + (l->set.n + 1) * 8 + (l->boff ? l->boff[l->set.n] * 8 : 8);
}

static stp_status walk_ph(const dag *d, uint64_t max_states, const stp_control *control,
                          uint64_t budget, uint64_t estimate, double *makespan,
                          stp_ideals_stats *st, stp_error *err) {
  ph_level hi = {0}, lo = {0};
  ph_scratch sc = {0};
  stp_status s = STP_OK;
  hi.boff = stp__malloc_array(2, sizeof *hi.boff);
  hi.val = stp__malloc_array(1, sizeof *hi.val);
  if (!scratch_init(&sc, d) || !hi.boff || !hi.val || !level_init(&hi.set, d->W, 1, budget)) {
    s = stp__oom(err, "order ideal chain");
    goto done;
  }
  memset(sc.key, 0, d->W * 8);
  for (size_t t = 0; t < d->n; t++) sc.key[t >> 6] |= UINT64_C(1) << (t & 63);
  if (level_add(&hi.set, sc.key) >= ADD_OVER_BUDGET) {
    s = stp__oom(err, "order ideal chain");
    goto done;
  }
  hi.boff[0] = 0, hi.boff[1] = 1, hi.val[0] = 0;
  st->states = st->peak_level = 1;
  double t0 = stp__now();
  for (size_t k = d->n; k-- > 0;) {
    stp__progress(control, "order ideals of the DAG and their phases", st->states, estimate, t0);
    uint64_t used = ph_level_bytes(&hi), room = budget > used ? budget - used : 0;
    int x = level_init(&lo.set, d->W, hi.set.n, room / 2)
                ? gather_level(d, &lo.set, &hi.set, sc.key, &control->cancel)
                : OUT_OF_MEMORY;
    if (x == EXPANDED) {
      uint64_t keys = level_bytes(&lo.set), left = room > keys ? room - keys : 0;
      x = solve_level(d, &lo, &hi, &sc, max_states - st->states, left, &control->cancel);
    }
    if (x != EXPANDED) {
      uint64_t held = used + ph_level_bytes(&lo);
      s = x == OUT_OF_MEMORY ? stp__oom(err, "order ideal chain")
          : x == CANCELLED   ? stp__fail(err, STP_EINTERRUPTED,
                                         "interrupted while walking the order ideals")
          : x == OVER_BUDGET ? stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, held, budget, 0},
                                               "the phase-type makespan needs more than %.3g GiB "
                                               "for its order ideals and their phases, above the "
                                               "memory budget of %.3g GiB",
                                               (double)held / 1073741824.0,
                                               (double)budget / 1073741824.0)
                             : too_many_ph(err, max_states, 0, "");
      break;
    }
    st->states += lo.boff[lo.set.n];
    if (lo.boff[lo.set.n] > st->peak_level) st->peak_level = lo.boff[lo.set.n];
    uint64_t bytes = ph_level_bytes(&lo) + ph_level_bytes(&hi);
    if (bytes > st->peak_bytes) st->peak_bytes = bytes;
    ph_level_free(&hi);
    hi = lo;
    memset(&lo, 0, sizeof lo);
  }
  if (s == STP_OK) *makespan = hi.val[0]; /* the empty ideal, its sources in phase 0 */
done:
  ph_level_free(&hi);
  ph_level_free(&lo);
  scratch_free(&sc);
  return s;
}

/* States of the empty ideal alone: the sources' phases. */
static uint64_t first_block(const dag *d) {
  uint64_t size = 1;
  for (size_t t = 0; t < d->n; t++)
    if (d->poff[t] == d->poff[t + 1] && !stp__mul_u64(size, d->nph[t], &size)) return UINT64_MAX;
  return size;
}

static bool any_phases(const dag *d) {
  for (size_t t = 0; t < d->n; t++)
    if (d->nph[t] > 1) return true;
  return false;
}

/* Refusals known before the walk: too many ideals, or too many of one size
 * for the memory budget. */
static stp_status refuse_early(const dag *d, const layer_bounds *b, uint64_t max_states,
                               uint64_t budget, stp_error *err) {
  char how[160];
  if (b->widest < 64 && (UINT64_C(1) << b->widest) > max_states) {
    snprintf(how, sizeof how, "; %zu transitions are pairwise independent, so at least 2^%zu",
             b->widest, b->widest);
    return too_many(err, max_states, UINT64_C(1) << b->widest, how);
  }
  if (b->ideals > max_states) {
    if (b->ideals == UINT64_MAX)
      snprintf(how, sizeof how, "; its layers of independent transitions give more than 2^64");
    else
      snprintf(how, sizeof how, "; its %s give at least %llu",
               b->widest == 1 ? "transitions in a chain" : "layers of independent transitions",
               (unsigned long long)b->ideals);
    return too_many(err, max_states, b->ideals, how);
  }
  double per_state = (double)d->W * 8 + 2 * sizeof(double) + 2 * sizeof(uint32_t);
  double bytes = (double)b->level * per_state;
  if (bytes > (double)budget)
    return over_budget(err, "at least", bytes >= 1.8e19 ? UINT64_MAX : (uint64_t)bytes, budget);
  return STP_OK;
}

/* "the exponential makespan needs ..." of refuse_early, said of the
 * phase-type makespan (it has at least the ideals' states). */
static void reword_for_phases(stp_error *err) {
  static const char from[] = "the exponential makespan needs";
  if (!err || strncmp(err->message, from, sizeof from - 1) != 0) return;
  char rest[STP_ERROR_MAX];
  snprintf(rest, sizeof rest, "%s", err->message + sizeof from - 1);
  snprintf(err->message, sizeof err->message, "the phase-type makespan needs%.*s",
           (int)(sizeof err->message - sizeof from - 8), rest);
}

stp_status stp__ideals_makespan(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                double *makespan, stp_ideals_stats *stats, stp_error *err) {
  return stp__ideals_makespan_ph(g, max_states, control, NULL, makespan, stats, err);
}

stp_status stp__ideals_makespan_ph(const stp_graph *g, uint64_t max_states,
                                   const stp_control *control, const stp_coxian *const *ph,
                                   double *makespan, stp_ideals_stats *stats, stp_error *err) {
  stp_ideals_stats local;
  stp_ideals_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  stp_control none = {0};
  if (!control) control = &none;
  uint64_t budget = stp_control_memory_budget(control);
  dag d;
  stp_status s = STP_OK;
  layer_bounds lb;
  if (!dag_init(&d, g, ph) || !layers(&d, &lb))
    s = stp__oom(err, "order ideal chain");
  bool phases = s == STP_OK && any_phases(&d);
  if (s == STP_OK) s = refuse_early(&d, &lb, max_states, budget, err);
  if (s == STP_ELIMIT && phases) /* the same bounds hold a fortiori: worded for this chain */
    reword_for_phases(err);
  uint64_t first = phases ? first_block(&d) : 1;
  if (s == STP_OK && first > max_states) {
    char how[128];
    if (first == UINT64_MAX)
      snprintf(how, sizeof how, "; the phases of the tasks ready at the start alone make more "
               "than 2^64");
    else
      snprintf(how, sizeof how, "; the phases of the tasks ready at the start alone make %llu",
               (unsigned long long)first);
    s = too_many_ph(err, max_states, first, how);
  }
  if (s == STP_OK)
    s = phases ? walk_ph(&d, max_states, control, budget, lb.ideals, makespan, st, err)
               : walk(&d, max_states, control, budget, lb.ideals, makespan, st, err);
  dag_free(&d);
  return s;
}
