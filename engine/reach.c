/* reach.c: breadth-first enumeration of the reachable markings of each
 * strongly connected component of a timed event graph, and the firing rate
 * of the component from the chain's stationary distribution (see reach.h),
 * by the dense route of engine/densechain.h.
 *
 * A marking is packed: each internal place gets the bits its count needs.
 * A token never leaves its cycles and the tokens of a cycle stay as many,
 * so a place holds at most the fewest tokens on a cycle through it: its own
 * plus the fewest on a path back from its output transition to its input
 * (shortest paths over the component, token counts as lengths; where that
 * would cost too long on a huge component, the component's total).  A place
 * of a Strict mapping's graph, on a processor cycle of one token, takes one
 * bit.  Fields never straddle a 64-bit word, so firing a transition is one
 * addition per word it touches (the sum of +1 on its outputs and -1 on its
 * inputs, each field staying within its range), and a transition is
 * enabled when each input field is nonzero (one mask test per word for
 * one-bit places). */
#include "engine/reach.h"

#include "base/core.h"
#include "engine/densechain.h"
#include "solvers/mcr_howard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Above this many steps (transitions x (transitions + places)) the bound of
 * each place is the component's total of tokens, not its fewest on a cycle. */
#define STP_REACH_BOUND_WORK UINT64_C(100000000)

/* An enabling test: (m[word] & mask) == mask when all, != 0 otherwise. */
typedef struct in_test {
  uint32_t word;
  bool all;
  uint64_t mask;
} in_test;

/* What firing a transition adds to one word of the marking (mod 2^64). */
typedef struct word_delta {
  uint32_t word;
  uint64_t delta;
} word_delta;

/* One component: its transitions (local numbering) and internal places. */
typedef struct comp {
  uint32_t nt, np;
  uint32_t *trans;           /* local -> global transition */
  uint32_t *in_off, *in_pl;  /* input places (local) of each local transition */
  uint32_t *out_off, *out_pl;
  uint32_t *pfrom, *pto;     /* local transitions of each local place */
  uint32_t *init;            /* initial tokens of each local place */
  uint64_t total;            /* tokens of the component */
  /* the packed marking */
  size_t words;
  uint32_t *word;            /* per place: its word */
  uint8_t *shift, *width;    /* per place: its bits */
  uint32_t *test_off;        /* nt + 1, into test */
  in_test *test;
  uint32_t *delta_off;       /* nt + 1, into delta */
  word_delta *delta;
} comp;

static void comp_free(comp *c) {
  free(c->trans);
  free(c->in_off);
  free(c->in_pl);
  free(c->out_off);
  free(c->out_pl);
  free(c->pfrom);
  free(c->pto);
  free(c->init);
  free(c->word);
  free(c->shift);
  free(c->width);
  free(c->test_off);
  free(c->test);
  free(c->delta_off);
  free(c->delta);
}

/* Gathers component k: its transitions and the places inside it. */
static bool comp_build(const stp_graph *g, const uint32_t *cid, uint32_t k, const uint32_t *local,
                       comp *c) {
  memset(c, 0, sizeof *c);
  for (size_t t = 0; t < g->nt; t++) c->nt += cid[t] == k;
  for (size_t p = 0; p < g->np; p++) c->np += cid[g->pfrom[p]] == k && cid[g->pto[p]] == k;
  size_t np1 = c->np ? c->np : 1;
  c->trans = stp__malloc_array(c->nt, sizeof *c->trans);
  c->in_off = stp__calloc(c->nt + 1, sizeof *c->in_off);
  c->out_off = stp__calloc(c->nt + 1, sizeof *c->out_off);
  c->in_pl = stp__malloc_array(np1, sizeof *c->in_pl);
  c->out_pl = stp__malloc_array(np1, sizeof *c->out_pl);
  c->pfrom = stp__malloc_array(np1, sizeof *c->pfrom);
  c->pto = stp__malloc_array(np1, sizeof *c->pto);
  c->init = stp__malloc_array(np1, sizeof *c->init);
  uint32_t *fill_in = stp__calloc(c->nt + 1, sizeof *fill_in);
  uint32_t *fill_out = stp__calloc(c->nt + 1, sizeof *fill_out);
  bool ok = c->trans && c->in_off && c->out_off && c->in_pl && c->out_pl && c->pfrom && c->pto &&
            c->init && fill_in && fill_out;
  for (size_t t = 0, i = 0; ok && t < g->nt; t++)
    if (cid[t] == k) c->trans[i++] = (uint32_t)t;
  for (size_t p = 0; ok && p < g->np; p++)
    if (cid[g->pfrom[p]] == k && cid[g->pto[p]] == k) {
      c->in_off[local[g->pto[p]] + 1]++;
      c->out_off[local[g->pfrom[p]] + 1]++;
    }
  for (uint32_t t = 0; ok && t < c->nt; t++) {
    c->in_off[t + 1] += c->in_off[t];
    c->out_off[t + 1] += c->out_off[t];
  }
  if (ok) {
    memcpy(fill_in, c->in_off, (c->nt + 1) * sizeof *fill_in);
    memcpy(fill_out, c->out_off, (c->nt + 1) * sizeof *fill_out);
  }
  for (size_t p = 0, q = 0; ok && p < g->np; p++)
    if (cid[g->pfrom[p]] == k && cid[g->pto[p]] == k) {
      c->init[q] = (uint32_t)g->ptok[p];
      c->total += g->ptok[p];
      c->pfrom[q] = local[g->pfrom[p]];
      c->pto[q] = local[g->pto[p]];
      c->in_pl[fill_in[local[g->pto[p]]]++] = (uint32_t)q;
      c->out_pl[fill_out[local[g->pfrom[p]]]++] = (uint32_t)q;
      q++;
    }
  free(fill_in);
  free(fill_out);
  return ok;
}

/* ---- the bound of each place: the fewest tokens on a cycle through it ---- */

typedef struct heap_item {
  uint64_t d;
  uint32_t v;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item x) {
  size_t i = (*n)++;
  while (i > 0 && h[(i - 1) / 2].d > x.d) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = x;
}

static heap_item heap_pop(heap_item *h, size_t *n) {
  heap_item top = h[0], last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && h[c + 1].d < h[c].d)
      c++;
    if (h[c].d >= last.d)
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = last;
  return top;
}

/* dist[v] = fewest tokens on a path from local transition src to v
 * (Dijkstra; heap has room for np + 1 items). */
static void fewest_tokens(const comp *c, uint32_t src, uint64_t *dist, heap_item *heap) {
  for (uint32_t v = 0; v < c->nt; v++) dist[v] = UINT64_MAX;
  size_t n = 0;
  dist[src] = 0;
  heap_push(heap, &n, (heap_item){0, src});
  while (n) {
    heap_item it = heap_pop(heap, &n);
    if (it.d > dist[it.v]) continue;
    for (uint32_t k = c->out_off[it.v]; k < c->out_off[it.v + 1]; k++) {
      uint32_t q = c->out_pl[k], w = c->pto[q];
      uint64_t d = it.d + c->init[q];
      if (d < dist[w]) {
        dist[w] = d;
        heap_push(heap, &n, (heap_item){d, w});
      }
    }
  }
}

/* bound[q] for every place (at most the component's total). */
static bool place_bounds(const comp *c, uint64_t *bound) {
  for (uint32_t q = 0; q < c->np; q++) bound[q] = c->total;
  if ((uint64_t)c->nt * ((uint64_t)c->nt + c->np) > STP_REACH_BOUND_WORK) return true;
  uint64_t *dist = stp__malloc_array(c->nt, sizeof *dist);
  heap_item *heap = stp__malloc_array((size_t)c->np + 1, sizeof *heap);
  bool ok = dist && heap;
  for (uint32_t b = 0; ok && b < c->nt; b++) { /* b: the output transition of places */
    if (c->in_off[b] == c->in_off[b + 1]) continue;
    fewest_tokens(c, b, dist, heap);
    for (uint32_t k = c->in_off[b]; k < c->in_off[b + 1]; k++) {
      uint32_t q = c->in_pl[k];
      uint64_t d = dist[c->pfrom[q]];
      if (d != UINT64_MAX && d + c->init[q] < bound[q]) bound[q] = d + c->init[q];
    }
  }
  free(dist);
  free(heap);
  return ok;
}

/* ---- the packed marking ---- */

/* Words and bits of each place: fields laid out in place order, a new word
 * whenever the next field would straddle one. */
static bool layout(comp *c) {
  uint64_t *bound = stp__malloc_array(c->np ? c->np : 1, sizeof *bound);
  c->word = stp__malloc_array(c->np ? c->np : 1, sizeof *c->word);
  c->shift = stp__malloc_array(c->np ? c->np : 1, 1);
  c->width = stp__malloc_array(c->np ? c->np : 1, 1);
  bool ok = bound && c->word && c->shift && c->width && place_bounds(c, bound);
  uint64_t w = 0;
  unsigned used = 0;
  for (uint32_t q = 0; ok && q < c->np; q++) {
    unsigned bits = bound[q] ? stp__floor_log2(bound[q]) + 1 : 1;
    if (used + bits > 64) {
      w++;
      used = 0;
    }
    c->word[q] = (uint32_t)w;
    c->shift[q] = (uint8_t)used;
    c->width[q] = (uint8_t)bits;
    used += bits;
  }
  c->words = (size_t)w + 1;
  free(bound);
  return ok && w < UINT32_MAX;
}

static inline uint64_t field_mask(const comp *c, uint32_t q) {
  return (c->width[q] == 64 ? UINT64_MAX : (UINT64_C(1) << c->width[q]) - 1) << c->shift[q];
}

/* The enabling tests and the firing deltas of every transition. */
static bool firing_rules(comp *c) {
  c->test_off = stp__calloc(c->nt + 1, sizeof *c->test_off);
  c->delta_off = stp__calloc(c->nt + 1, sizeof *c->delta_off);
  c->test = stp__malloc_array(c->np ? c->np : 1, sizeof *c->test);
  c->delta = stp__malloc_array(2 * (size_t)c->np + 1, sizeof *c->delta);
  uint64_t *sum = stp__calloc(c->words, sizeof *sum);
  uint8_t *touched = stp__calloc(c->words, 1);
  uint32_t *list = stp__malloc_array(2 * (size_t)c->np + 1, sizeof *list);
  bool ok = c->test_off && c->delta_off && c->test && c->delta && sum && touched && list;
  uint32_t nt = 0, nd = 0;
  for (uint32_t t = 0; ok && t < c->nt; t++) {
    c->test_off[t] = nt;
    c->delta_off[t] = nd;
    uint32_t nl = 0;
    for (uint32_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
      uint32_t q = c->in_pl[k];
      bool one = c->width[q] == 1;
      if (one && nt > c->test_off[t] && c->test[nt - 1].all && c->test[nt - 1].word == c->word[q])
        c->test[nt - 1].mask |= field_mask(c, q);
      else
        c->test[nt++] = (in_test){c->word[q], one, field_mask(c, q)};
      if (!touched[c->word[q]]) touched[c->word[q]] = 1, list[nl++] = c->word[q];
      sum[c->word[q]] -= UINT64_C(1) << c->shift[q];
    }
    for (uint32_t k = c->out_off[t]; k < c->out_off[t + 1]; k++) {
      uint32_t q = c->out_pl[k];
      if (!touched[c->word[q]]) touched[c->word[q]] = 1, list[nl++] = c->word[q];
      sum[c->word[q]] += UINT64_C(1) << c->shift[q];
    }
    for (uint32_t i = 0; i < nl; i++) {
      if (sum[list[i]]) c->delta[nd++] = (word_delta){list[i], sum[list[i]]};
      sum[list[i]] = 0;
      touched[list[i]] = 0;
    }
  }
  if (ok) {
    c->test_off[c->nt] = nt;
    c->delta_off[c->nt] = nd;
  }
  free(sum);
  free(touched);
  free(list);
  return ok;
}

/* ---- the chain ---- */

typedef struct reach_ctx {
  const comp *c;
} reach_ctx;

static inline bool enabled(const comp *c, const uint64_t *m, uint32_t t) {
  for (uint32_t k = c->test_off[t]; k < c->test_off[t + 1]; k++) {
    uint64_t v = m[c->test[k].word] & c->test[k].mask;
    if (c->test[k].all ? v != c->test[k].mask : v == 0) return false;
  }
  return true;
}

/* The successors of marking m: every enabled transition in local order. */
static stp_status successors(void *ctx, const uint64_t *m, stp_dense_row *row, stp_error *err) {
  const comp *c = ((const reach_ctx *)ctx)->c;
  for (uint32_t t = 0; t < c->nt; t++) {
    if (!enabled(c, m, t)) continue;
    uint64_t *next = stp__dense_row_next(row);
    if (!next) return stp__oom(err, "the reachability chain");
    memcpy(next, m, c->words * sizeof *next);
    for (uint32_t k = c->delta_off[t]; k < c->delta_off[t + 1]; k++)
      next[c->delta[k].word] += c->delta[k].delta;
    stp__dense_row_add(row, t);
  }
  return STP_OK;
}

static stp_status initial_marking(const comp *c, uint64_t **m0, stp_error *err) {
  *m0 = stp__calloc(c->words, sizeof **m0);
  if (!*m0) return stp__oom(err, "the reachability chain");
  for (uint32_t q = 0; q < c->np; q++) (*m0)[c->word[q]] |= (uint64_t)c->init[q] << c->shift[q];
  return STP_OK;
}

/* Firing rate of one component (of local transition 0: all fire equally
 * often) from its chain. */
static stp_status comp_rate(const stp_graph *g, const comp *c, uint64_t max_states,
                            const stp_control *control, double *rate, stp_reach_stats *st,
                            stp_error *err) {
  uint64_t *m0 = NULL;
  double *rates = stp__malloc_array(c->nt, sizeof *rates);
  uint8_t *counted = stp__calloc(c->nt, 1);
  stp_status s = rates && counted ? initial_marking(c, &m0, err) : stp__oom(err, "the reachability chain");
  for (uint32_t t = 0; s == STP_OK && t < c->nt; t++) rates[t] = 1 / g->time[c->trans[t]];
  stp_dense_chain dc = {0};
  if (s == STP_OK) {
    counted[0] = 1;
    reach_ctx ctx = {c};
    uint64_t budget = stp_control_memory_budget(control);
    stp_dense_source src = {.words = c->words, .initial = m0, .nlabels = c->nt, .rate = rates,
                            .expand = successors, .ctx = &ctx, .max_states = max_states,
                            .control = control, .what = "the markings of a component",
                            .max_bytes = budget};
    s = stp__dense_enumerate(&src, &dc, err);
    if (s == STP_ELIMIT && dc.full)
      s = stp__fail(err, STP_ELIMIT,
                    "the exponential throughput needs more than %llu markings (a component "
                    "of %u transitions); raise --max-states",
                    (unsigned long long)max_states, c->nt);
    else if (s == STP_ELIMIT && dc.over_budget)
      s = stp__fail(err, STP_ELIMIT,
                    "the exponential throughput needs more than %.3g GiB for the markings of a "
                    "component of %u transitions (%llu so far), above the memory budget of "
                    "%.3g GiB (--max-memory)",
                    (double)dc.bytes / 1073741824.0, c->nt, (unsigned long long)dc.ms.nstates,
                    (double)budget / 1073741824.0);
  }
  if (s == STP_OK) {
    stp_options o;
    stp_options_init(&o);
    o.max_states = max_states;
    o.control = *control;
    stp_ctmc_info info = {0};
    s = stp__dense_rate(&dc, counted, &o, rate, &info, err);
    if (s == STP_OK && info.states >= st->states) {
      st->states = info.states;
      st->solver = info.solver;
    }
    if (s == STP_OK && info.residual > st->residual) st->residual = info.residual;
  }
  stp__dense_chain_free(&dc);
  free(m0);
  free(rates);
  free(counted);
  return s;
}

stp_status stp__reach_throughput(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                 double *throughput, stp_reach_stats *st, stp_error *err) {
  memset(st, 0, sizeof *st);
  stp_control none = {0};
  if (!control) control = &none;
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  uint32_t *cid = stp__malloc_array(g->nt, sizeof *cid), count = 0;
  uint32_t *local = stp__malloc_array(g->nt, sizeof *local), *seen = NULL;
  stp_status s = cid && local ? stp__scc(d, cid, &count, err) : stp__oom(err, "components");
  stp__digraph_free(d);
  if (s == STP_OK && !(seen = stp__calloc(count ? count : 1, sizeof *seen)))
    s = stp__oom(err, "components");
  for (size_t t = 0; s == STP_OK && t < g->nt; t++) local[t] = seen[cid[t]]++;
  double slowest = INFINITY;
  st->components = count;
  for (uint32_t k = 0; s == STP_OK && k < count; k++) {
    comp c;
    double rate;
    if (!comp_build(g, cid, k, local, &c) || (c.np && (!layout(&c) || !firing_rules(&c))))
      s = stp__oom(err, "components");
    else if (c.np == 0) /* a lone transition: its own single server */
      rate = 1 / g->time[c.trans[0]];
    else
      s = comp_rate(g, &c, max_states, control, &rate, st, err);
    if (s == STP_OK && rate < slowest) slowest = rate;
    if (s == STP_OK && c.np == 0 && st->states == 0) st->states = 1;
    comp_free(&c);
  }
  free(cid);
  free(local);
  free(seen);
  if (s == STP_OK) *throughput = (g->noutputs > 1 ? (double)g->noutputs : 1.0) * slowest;
  return s;
}
