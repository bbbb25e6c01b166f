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
 * one-bit places).
 *
 * Phase-type times (docs/design.md, "Phase-type laws"): a transition whose
 * law has n > 1 phases in Coxian form carries its phase in a field of the
 * key.  While enabled it goes on from phase i to i + 1 (a move of its own)
 * or completes, firing; its field is 0 whenever it is disabled, and a
 * firing resets it to 0, so a transition enabled again starts in phase 0
 * and no state needs a choice.  An event graph has no conflicts (a place
 * feeds one transition), so an enabled transition stays enabled until it
 * fires and its phase is never lost.  The labels of the moves are (t,
 * phase, outcome), grouped into one event per transition for the rates;
 * with exponential times each transition has one label, its own number,
 * and the chain is the exponential one. */
#include "engine/reach.h"

#include "base/core.h"
#include "engine/chain_adjoint.h"
#include "engine/densechain.h"
#include "engine/distchain.h"
#include "solvers/phasetype.h"
#include "solvers/scc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this many steps (transitions x (transitions + places)) the bound of
 * each place is the component's total of tokens, not its fewest on a cycle
 * (wider fields, same chain).  The bounds run before any state is counted
 * and do not poll for Ctrl-C: 10^7 heap steps stay well under a second,
 * where 10^8 took 13 s under the sanitizers (fuzz_shapes: a ring of 5484
 * transitions refused by a cap of 100 states only after them). */
#define STP_REACH_BOUND_WORK UINT64_C(10000000)

/* Bytes per state besides its key, for the memory budget: the key set's
 * slot and fingerprint (11-16), a few moves of 5-6 bytes, the out-degree,
 * the iterate and the reachability check (bench/graph: 70-80 in all). */
#define STP_REACH_BYTES_PER_STATE 80

#define NO_LABEL UINT32_MAX

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
  /* phases (all 1 with exponential times) */
  uint32_t *nph;             /* per transition: phases of its law */
  uint32_t *pword;           /* per transition: the word of its phase field */
  uint8_t *pshift, *pwidth;  /* its bits (width 0: one phase, no field) */
  uint32_t *ph_off;          /* nt + 1, into lab_done and lab_next */
  uint32_t *lab_done;        /* per phase: the label of completing there, or NO_LABEL */
  uint32_t *lab_next;        /* per phase: the label of going on, or NO_LABEL */
  uint32_t nlabels;
  double *lrate;             /* per label */
  uint32_t *event_of;        /* per label: its transition (nt: going on, not a firing) */
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
  free(c->nph);
  free(c->pword);
  free(c->pshift);
  free(c->pwidth);
  free(c->ph_off);
  free(c->lab_done);
  free(c->lab_next);
  free(c->lrate);
  free(c->event_of);
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

/* The next field of `bits` bits: a new word when it would straddle one. */
static void place_field(uint64_t *w, unsigned *used, unsigned bits, uint32_t *word,
                        uint8_t *shift) {
  if (*used + bits > 64) {
    (*w)++;
    *used = 0;
  }
  *word = (uint32_t)*w;
  *shift = (uint8_t)*used;
  *used += bits;
}

/* Words and bits of each place, then of each phase field: fields laid out
 * in order, a new word whenever the next field would straddle one. */
static bool layout(comp *c) {
  uint64_t *bound = stp__malloc_array(c->np ? c->np : 1, sizeof *bound);
  c->word = stp__malloc_array(c->np ? c->np : 1, sizeof *c->word);
  c->shift = stp__malloc_array(c->np ? c->np : 1, 1);
  c->width = stp__malloc_array(c->np ? c->np : 1, 1);
  c->pword = stp__calloc(c->nt, sizeof *c->pword);
  c->pshift = stp__calloc(c->nt, 1);
  c->pwidth = stp__calloc(c->nt, 1);
  bool ok = bound && c->word && c->shift && c->width && c->pword && c->pshift && c->pwidth &&
            place_bounds(c, bound);
  uint64_t w = 0;
  unsigned used = 0;
  for (uint32_t q = 0; ok && q < c->np; q++) {
    unsigned bits = bound[q] ? stp__floor_log2(bound[q]) + 1 : 1;
    place_field(&w, &used, bits, &c->word[q], &c->shift[q]);
    c->width[q] = (uint8_t)bits;
  }
  for (uint32_t t = 0; ok && t < c->nt; t++)
    if (c->nph[t] > 1) {
      unsigned bits = stp__floor_log2(c->nph[t] - 1) + 1;
      place_field(&w, &used, bits, &c->pword[t], &c->pshift[t]);
      c->pwidth[t] = (uint8_t)bits;
    }
  c->words = (size_t)w + 1;
  free(bound);
  return ok && w < UINT32_MAX;
}

/* ---- the phases and the labels ---- */

/* Phases of every transition of c, and its labels: per transition and
 * phase, completing (rate rate_i (1 - next_i) / time) then going on (rate
 * rate_i next_i / time), each where its rate is not 0.  ph: per global
 * transition, its law of mean 1 in Coxian form (NULL array or entry:
 * exponential, one label per transition: its number). */
static bool phases_of(const stp_graph *g, const stp_coxian *const *ph, comp *c) {
  c->nph = stp__malloc_array(c->nt, sizeof *c->nph);
  c->ph_off = stp__malloc_array(c->nt + 1, sizeof *c->ph_off);
  if (!c->nph || !c->ph_off) return false;
  c->ph_off[0] = 0;
  for (uint32_t t = 0; t < c->nt; t++) {
    const stp_coxian *law = ph ? ph[c->trans[t]] : NULL;
    c->nph[t] = law ? law->n : 1;
    if ((uint64_t)c->ph_off[t] + c->nph[t] > UINT32_MAX / 2) return false;
    c->ph_off[t + 1] = c->ph_off[t] + c->nph[t];
  }
  uint32_t nphases = c->ph_off[c->nt];
  c->lab_done = stp__malloc_array(nphases, sizeof *c->lab_done);
  c->lab_next = stp__malloc_array(nphases, sizeof *c->lab_next);
  c->lrate = stp__malloc_array(2 * (size_t)nphases, sizeof *c->lrate);
  c->event_of = stp__malloc_array(2 * (size_t)nphases, sizeof *c->event_of);
  if (!c->lab_done || !c->lab_next || !c->lrate || !c->event_of) return false;
  uint32_t l = 0;
  for (uint32_t t = 0; t < c->nt; t++) {
    const stp_coxian *law = ph ? ph[c->trans[t]] : NULL;
    double time = g->time[c->trans[t]];
    for (uint32_t i = 0; i < c->nph[t]; i++) {
      uint32_t at = c->ph_off[t] + i;
      double rate = law ? law->rate[i] : 1, next = law ? law->next[i] : 0;
      c->lab_done[at] = c->lab_next[at] = NO_LABEL;
      if (next < 1) {
        c->lab_done[at] = l;
        c->lrate[l] = rate * (1 - next) / time;
        c->event_of[l++] = t;
      }
      if (next > 0 && i + 1 < c->nph[t]) { /* not a firing: the event nt, never counted */
        c->lab_next[at] = l;
        c->lrate[l] = rate * next / time;
        c->event_of[l++] = c->nt;
      }
    }
  }
  c->nlabels = l;
  return true;
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

static inline uint32_t phase_of(const comp *c, const uint64_t *m, uint32_t t) {
  if (!c->pwidth[t]) return 0;
  return (uint32_t)((m[c->pword[t]] >> c->pshift[t]) & ((UINT64_C(1) << c->pwidth[t]) - 1));
}

/* The successors of state m: every enabled transition in local order, its
 * completion (the firing, its phase back to 0), then its going on to the
 * next phase. */
static stp_status successors(void *ctx, const uint64_t *m, stp_dense_row *row, stp_error *err) {
  const comp *c = ((const reach_ctx *)ctx)->c;
  for (uint32_t t = 0; t < c->nt; t++) {
    if (!enabled(c, m, t)) continue;
    uint32_t i = phase_of(c, m, t), at = c->ph_off[t] + i;
    if (c->lab_done[at] != NO_LABEL) {
      uint64_t *next = stp__dense_row_next(row);
      if (!next) return stp__oom(err, "the reachability chain");
      memcpy(next, m, c->words * sizeof *next);
      for (uint32_t k = c->delta_off[t]; k < c->delta_off[t + 1]; k++)
        next[c->delta[k].word] += c->delta[k].delta;
      if (i) next[c->pword[t]] -= (uint64_t)i << c->pshift[t];
      stp__dense_row_add(row, c->lab_done[at]);
    }
    if (c->lab_next[at] != NO_LABEL) {
      uint64_t *next = stp__dense_row_next(row);
      if (!next) return stp__oom(err, "the reachability chain");
      memcpy(next, m, c->words * sizeof *next);
      next[c->pword[t]] += UINT64_C(1) << c->pshift[t];
      stp__dense_row_add(row, c->lab_next[at]);
    }
  }
  return STP_OK;
}

static stp_status initial_marking(const comp *c, uint64_t **m0, stp_error *err) {
  *m0 = stp__calloc(c->words, sizeof **m0);
  if (!*m0) return stp__oom(err, "the reachability chain");
  for (uint32_t q = 0; q < c->np; q++) (*m0)[c->word[q]] |= (uint64_t)c->init[q] << c->shift[q];
  return STP_OK;
}

static bool has_phases(const comp *c) { return c->nlabels > c->nt; }

/* A lower bound of the states of c's chain: the transitions enabled in the
 * initial marking go through every phase of their laws while none fires
 * (the Coxian forms reach every phase), independently of one another. */
static uint64_t states_lower_bound(const comp *c, const uint64_t *m0) {
  uint64_t lb = 1;
  for (uint32_t t = 0; t < c->nt; t++)
    if (enabled(c, m0, t) && !stp__mul_u64(lb, c->nph[t], &lb)) return UINT64_MAX;
  return lb;
}

static const char *chain_name(const comp *c) {
  return has_phases(c) ? "the phase-type chain" : "the exponential throughput";
}

/* The largest chain allowed: o->max_states, or fewer where the memory
 * budget holds fewer states of c's key size; refused at once when the
 * lower bound already exceeds it. */
static stp_status state_limit(const comp *c, const uint64_t *m0, const stp_options *o,
                              uint64_t *limit, uint64_t *estimate, stp_error *err) {
  uint64_t per_state = c->words * 8 + STP_REACH_BYTES_PER_STATE;
  uint64_t budget = stp_options_memory_budget(o);
  *limit = o->max_states;
  *estimate = states_lower_bound(c, m0);
  if (*estimate <= *limit && (double)*estimate * (double)per_state <= (double)budget)
    return STP_OK;
  if (*estimate > o->max_states)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, *estimate, o->max_states, 0},
                           "%s needs at least %llu states (the phases of the transitions "
                           "enabled at the start, a component of %u transitions), above the "
                           "limit of %llu", chain_name(c), (unsigned long long)*estimate, c->nt,
                           (unsigned long long)o->max_states);
  double bytes = (double)*estimate * (double)per_state;
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget, 0},
                         "%s needs at least %llu states of %llu bytes (a component of %u "
                         "transitions), above the memory budget of %.3g GiB",
                         chain_name(c), (unsigned long long)*estimate,
                         (unsigned long long)per_state, c->nt, (double)budget / 1073741824.0);
}

static stp_status over_limit(const comp *c, const stp_options *o, const stp_dense_chain *dc,
                             stp_error *err) {
  if (dc->full)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, 0, o->max_states, 0},
                           "%s needs more than %llu %s (a component of %u transitions)",
                           chain_name(c), (unsigned long long)o->max_states,
                           has_phases(c) ? "states (markings with phases)" : "markings", c->nt);
  uint64_t budget = stp_options_memory_budget(o);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, dc->bytes, budget, 0},
                         "%s needs more than %.3g GiB for the %s of a component of %u "
                         "transitions (%llu so far), above the memory budget of %.3g GiB",
                         chain_name(c), (double)dc->bytes / 1073741824.0,
                         has_phases(c) ? "markings and phases" : "markings", c->nt,
                         (unsigned long long)dc->ms.nstates, (double)budget / 1073741824.0);
}

static void note_info(stp_reach_stats *st, const stp_ctmc_info *info) {
  if (info->states >= st->states) {
    st->states = info->states;
    st->solver = info->solver;
    st->solver_reason = info->solver_reason;
    st->sweeps = info->iterations;
  }
  if (info->residual > st->residual) st->residual = info->residual;
}

/* Firing rate of one component (of local transition 0: all fire equally
 * often) from its chain. */
static stp_status comp_rate(const comp *c, const stp_options *o, double *rate, stp_reach_stats *st,
                            stp_error *err) {
  uint64_t *m0 = NULL, limit = 0, estimate = 0;
  uint8_t *counted = stp__calloc(c->nt + 1, 1); /* the events: firings, then going on */
  stp_status s = counted ? initial_marking(c, &m0, err) : stp__oom(err, "the reachability chain");
  if (s == STP_OK) s = state_limit(c, m0, o, &limit, &estimate, err);
  stp_dense_chain dc = {0};
  stp_dense_events ev = {c->nt + 1, c->event_of, counted};
  stp_ctmc_info info = {0};
  if (s == STP_OK) {
    counted[0] = 1;
    reach_ctx ctx = {c};
    stp_dense_source src = {.words = c->words, .initial = m0, .nlabels = c->nlabels,
                            .rate = c->lrate, .expand = successors, .ctx = &ctx,
                            .max_states = limit, .control = &o->control,
                            .what = has_phases(c) ? "the markings and phases of a component"
                                                  : "the markings of a component",
                            .estimate = estimate, .max_bytes = stp_options_memory_budget(o)};
    if (o->distributed) { /* across MPI ranks (engine/distchain.h): the same source */
      s = stp__dist_events_rate(&src, &ev, o, rate, &info, err);
      if (s == STP_OK) note_info(st, &info);
    } else {
      s = stp__dense_enumerate(&src, &dc, err);
      if (s == STP_ELIMIT && (dc.full || dc.over_budget)) s = over_limit(c, o, &dc, err);
      if (s == STP_OK) s = stp__store_events_rate(&dc.ms, &ev, dc.seconds, o, rate, &info, err);
      if (s == STP_OK) note_info(st, &info);
    }
  }
  stp__dense_chain_free(&dc);
  free(m0);
  free(counted);
  return s;
}

/* A component without internal places: one transition, its own single
 * server, firing at 1 / (its mean time) whatever its law (a renewal
 * process). */
static double lone_rate(const stp_graph *g, const comp *c) { return 1 / g->time[c->trans[0]]; }

/* ---- refusals known before any table is built (phase-type laws; reach.h) ----
 * The chain of a live component C has at least max(prod P_t over the
 * transitions enabled at the start, sum P_t / T_C) states: the first as
 * states_lower_bound; the second because every transition of C is enabled
 * in some marking, a marking enables at most T_C transitions (each needs a
 * marked place of its own), and its enabled transitions go through every
 * phase while none fires, so a marking enabling the set E has at least
 * prod_E P_t >= sum_E P_t / T_C states. */
#define STP_REACH_BYTES_PER_PHASE 32 /* lab_done, lab_next, two rates, two events */

uint64_t stp__reach_phases(const stp_coxian *c) {
  uint64_t n = 1;
  while (c && n < c->n && c->next[n - 1] > 0) n++;
  return n;
}

stp_status stp__reach_ph_precheck(uint64_t phases, uint64_t tokens, uint64_t start,
                                  const stp_options *o, stp_error *err) {
  uint64_t spread = tokens ? phases / tokens + (phases % tokens != 0) : 0;
  uint64_t least = start > spread ? start : spread, budget = stp_options_memory_budget(o);
  char count[64];
  snprintf(count, sizeof count, least == UINT64_MAX ? "more than 2^64" : "at least %llu",
           (unsigned long long)least);
  if (least > o->max_states)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, least, o->max_states, 0},
                     "the phase-type chain needs %s states (%s), above the limit of %llu", count,
                     least == start ? "the phases of the transitions enabled at the start"
                                    : "the phases of every transition, at most as many enabled "
                                      "at once as the component holds tokens",
                     (unsigned long long)o->max_states);
  if ((double)phases * STP_REACH_BYTES_PER_PHASE > (double)budget)
    return stp__fail_limit(err,
                     (stp_limit){STP_LIMIT_MEMORY,
                                 stp__u64_sat((double)phases * STP_REACH_BYTES_PER_PHASE), budget,
                                 0},
                     "the phase-type chain's tables need %.3g GiB (%llu phases of the laws of "
                     "the transitions of a component), above the memory budget of %.3g GiB",
                     (double)phases * STP_REACH_BYTES_PER_PHASE / 1073741824.0,
                     (unsigned long long)phases, (double)budget / 1073741824.0);
  if ((double)least * (8 + STP_REACH_BYTES_PER_STATE) > (double)budget)
    return stp__fail_limit(err,
                     (stp_limit){STP_LIMIT_MEMORY,
                                 stp__u64_sat((double)least * (8 + STP_REACH_BYTES_PER_STATE)),
                                 budget, 0},
                     "the phase-type chain needs %s states of at least %d bytes, above the "
                     "memory budget of %.3g GiB", count,
                     8 + STP_REACH_BYTES_PER_STATE, (double)budget / 1073741824.0);
  return STP_OK;
}

/* stp__reach_ph_precheck of every component with internal places. */
static stp_status precheck(const stp_graph *g, const stp_coxian *const *ph, const uint32_t *cid,
                           uint32_t count, const stp_options *o, stp_error *err) {
  /* per component: phases, tokens, the start's product, internal places */
  uint64_t *sum = stp__calloc(count ? count : 1, 4 * sizeof *sum);
  uint8_t *blocked = stp__calloc(g->nt ? g->nt : 1, 1);
  if (!sum || !blocked) {
    free(sum);
    free(blocked);
    return stp__oom(err, "components");
  }
  for (size_t p = 0; p < g->np; p++)
    if (cid[g->pfrom[p]] == cid[g->pto[p]]) {
      sum[4 * cid[g->pto[p]] + 1] += g->ptok[p];
      sum[4 * cid[g->pto[p]] + 3]++;
      blocked[g->pto[p]] |= g->ptok[p] == 0;
    }
  for (uint32_t k = 0; k < count; k++) sum[4 * k + 2] = 1;
  for (size_t t = 0; t < g->nt; t++) {
    uint64_t n = stp__reach_phases(ph[t]), *c = sum + 4 * cid[t];
    c[0] = n > UINT64_MAX - c[0] ? UINT64_MAX : c[0] + n;
    if (!blocked[t] && !stp__mul_u64(c[2], n, &c[2])) c[2] = UINT64_MAX;
  }
  stp_status s = STP_OK;
  for (uint32_t k = 0; s == STP_OK && k < count; k++)
    if (sum[4 * k + 3]) /* else a lone transition: no chain (lone_rate) */
      s = stp__reach_ph_precheck(sum[4 * k], sum[4 * k + 1], sum[4 * k + 2], o, err);
  free(sum);
  free(blocked);
  return s;
}

stp_status stp__reach_throughput_ph(const stp_graph *g, const stp_options *o,
                                    const stp_coxian *const *ph, double *throughput,
                                    stp_reach_stats *st, stp_error *err) {
  memset(st, 0, sizeof *st);
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  uint32_t *cid = stp__malloc_array(g->nt, sizeof *cid), count = 0;
  uint32_t *local = stp__malloc_array(g->nt, sizeof *local), *seen = NULL;
  stp_status s = cid && local ? stp__scc(d, cid, &count, err) : stp__oom(err, "components");
  stp__digraph_free(d);
  if (s == STP_OK && !(seen = stp__calloc(count ? count : 1, sizeof *seen)))
    s = stp__oom(err, "components");
  for (size_t t = 0; s == STP_OK && t < g->nt; t++) local[t] = seen[cid[t]]++;
  if (s == STP_OK && ph) s = precheck(g, ph, cid, count, o, err);
  double slowest = INFINITY;
  st->components = count;
  for (uint32_t k = 0; s == STP_OK && k < count; k++) {
    comp c;
    double rate;
    if (!comp_build(g, cid, k, local, &c) || !phases_of(g, ph, &c) ||
        (c.np && (!layout(&c) || !firing_rules(&c))))
      s = stp__oom(err, "components");
    else if (c.np == 0)
      rate = lone_rate(g, &c);
    else
      s = comp_rate(&c, o, &rate, st, err);
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

stp_status stp__reach_throughput(const stp_graph *g, uint64_t max_states, const stp_control *control,
                                 double *throughput, stp_reach_stats *st, stp_error *err) {
  stp_options o;
  stp_options_init(&o);
  o.max_states = max_states;
  if (control) o.control = *control;
  return stp__reach_throughput_ph(g, &o, NULL, throughput, st, err);
}

/* ---- sensitivities: the gradient of the slowest components ----------------------------- */
typedef struct comps {
  uint32_t *cid, *local, count;
} comps;

static void comps_free(comps *cc) {
  free(cc->cid);
  free(cc->local);
}

static stp_status comps_of(const stp_graph *g, comps *cc, stp_error *err) {
  memset(cc, 0, sizeof *cc);
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  cc->cid = stp__malloc_array(g->nt ? g->nt : 1, sizeof *cc->cid);
  cc->local = stp__malloc_array(g->nt ? g->nt : 1, sizeof *cc->local);
  uint32_t *seen = NULL;
  stp_status s = cc->cid && cc->local ? stp__scc(d, cc->cid, &cc->count, err)
                                      : stp__oom(err, "components");
  stp__digraph_free(d);
  if (s == STP_OK && !(seen = stp__calloc(cc->count ? cc->count : 1, sizeof *seen)))
    s = stp__oom(err, "components");
  for (size_t t = 0; s == STP_OK && t < g->nt; t++) cc->local[t] = seen[cc->cid[t]]++;
  free(seen);
  return s;
}

static stp_status comp_setup(const stp_graph *g, const comps *cc, uint32_t k,
                             const stp_coxian *const *ph, comp *c, stp_error *err) {
  if (!comp_build(g, cc->cid, k, cc->local, c) || !phases_of(g, ph, c) ||
      (c->np && (!layout(c) || !firing_rules(c))))
    return stp__oom(err, "components");
  return STP_OK;
}

/* d log rate / d log time of component c's transitions into dlog (global
 * numbering): its chain with one event per label, solved, and the adjoint
 * with the completions of local transition 0 as the reward. */
static stp_status comp_gradient(const comp *c, const stp_options *o, double *dlog,
                                double *residual, stp_error *err) {
  uint64_t *m0 = NULL, limit = 0, estimate = 0;
  stp_dense_chain dc = {0};
  stp_chain *ch = NULL;
  double *pi = NULL, *weight = NULL, *grad = NULL, rate = 0, value = 0;
  uint32_t *trans_of = stp__malloc_array(c->nlabels ? c->nlabels : 1, sizeof *trans_of);
  uint8_t *counted = stp__calloc(c->nlabels ? c->nlabels : 1, 1);
  stp_status s = trans_of && counted ? initial_marking(c, &m0, err)
                                     : stp__oom(err, "the reachability chain");
  if (s == STP_OK) s = state_limit(c, m0, o, &limit, &estimate, err);
  if (s == STP_OK) {
    for (uint32_t t = 0; t < c->nt; t++)
      for (uint32_t at = c->ph_off[t]; at < c->ph_off[t + 1]; at++) {
        if (c->lab_done[at] != NO_LABEL) trans_of[c->lab_done[at]] = t;
        if (c->lab_next[at] != NO_LABEL) trans_of[c->lab_next[at]] = t;
      }
    for (uint32_t at = c->ph_off[0]; at < c->ph_off[1]; at++)
      if (c->lab_done[at] != NO_LABEL) counted[c->lab_done[at]] = 1;
    reach_ctx ctx = {c};
    stp_dense_source src = {.words = c->words, .initial = m0, .nlabels = c->nlabels,
                            .rate = c->lrate, .expand = successors, .ctx = &ctx,
                            .max_states = limit, .control = &o->control,
                            .what = "the chain of a component, for its gradient",
                            .estimate = estimate, .max_bytes = stp_options_memory_budget(o)};
    s = stp__dense_enumerate(&src, &dc, err);
    if (s == STP_ELIMIT && (dc.full || dc.over_budget)) s = over_limit(c, o, &dc, err);
  }
  if (s == STP_OK) s = stp__dense_to_chain(&dc, counted, &ch, err);
  stp__dense_chain_free(&dc);
  if (s == STP_OK) {
    stp_ctmc_info info;
    s = stp__chain_solve(ch, o, STP_STATIONARY_AUTO, &pi, &rate, &info, err);
  }
  if (s == STP_OK) {
    weight = stp__malloc_array(ch->nevents, sizeof *weight);
    grad = stp__malloc_array(ch->nevents, sizeof *grad);
    s = weight && grad ? STP_OK : stp__oom(err, "the gradient of a component");
  }
  if (s == STP_OK) {
    for (uint32_t l = 0; l < ch->nevents; l++) weight[l] = counted[l];
    stp_adjoint_info ai;
    s = stp__chain_reward_gradient(ch, pi, weight, o, &value, grad, &ai, err);
    if (s == STP_OK) *residual = fmax(*residual, ai.residual);
  }
  for (uint32_t l = 0; s == STP_OK && l < ch->nevents; l++) /* d log mu = -d log x */
    dlog[c->trans[trans_of[l]]] -= grad[l] / value;
  stp__chain_free(ch);
  free(pi);
  free(weight);
  free(grad);
  free(m0);
  free(trans_of);
  free(counted);
  return s;
}

stp_status stp__reach_gradient_ph(const stp_graph *g, const stp_options *o,
                                  const stp_coxian *const *ph, double tie_rtol,
                                  stp_reach_gradient_fn fn, void *ctx, double *throughput,
                                  stp_reach_stats *st, double *adjoint_residual,
                                  stp_error *err) {
  memset(st, 0, sizeof *st);
  *adjoint_residual = 0;
  comps cc;
  stp_status s = comps_of(g, &cc, err);
  double *rate = s == STP_OK ? stp__malloc_array(cc.count ? cc.count : 1, sizeof *rate) : NULL;
  double *dlog = s == STP_OK ? stp__malloc_array(g->nt ? g->nt : 1, sizeof *dlog) : NULL;
  if (s == STP_OK && (!rate || !dlog)) s = stp__oom(err, "components");
  double slowest = INFINITY;
  st->components = cc.count;
  for (uint32_t k = 0; s == STP_OK && k < cc.count; k++) {
    comp c;
    s = comp_setup(g, &cc, k, ph, &c, err);
    if (s == STP_OK) s = c.np == 0 ? (rate[k] = lone_rate(g, &c), STP_OK)
                                   : comp_rate(&c, o, &rate[k], st, err);
    if (s == STP_OK) slowest = fmin(slowest, rate[k]);
    comp_free(&c);
  }
  for (uint32_t k = 0; s == STP_OK && k < cc.count; k++) {
    if (!stp__close(rate[k], slowest, tie_rtol, 0)) continue;
    comp c;
    s = comp_setup(g, &cc, k, ph, &c, err);
    for (size_t t = 0; s == STP_OK && t < g->nt; t++) dlog[t] = 0;
    if (s == STP_OK && c.np == 0) dlog[c.trans[0]] = -1; /* a renewal process: 1 / time */
    else if (s == STP_OK) s = comp_gradient(&c, o, dlog, adjoint_residual, err);
    comp_free(&c);
    if (s == STP_OK) s = fn(ctx, dlog, err);
  }
  if (s == STP_OK) *throughput = (g->noutputs > 1 ? (double)g->noutputs : 1.0) * slowest;
  free(rate);
  free(dlog);
  comps_free(&cc);
  return s;
}
