/* fuzz_shapes.c: libFuzzer target of the graph analyses at the sizes where
 * the issue-26 defects lived (a 10^6-transition path that took 99 s and
 * 1.2 GB to refuse, token totals above 2^32, chains in parallel whose
 * ideals explode).  The input bytes pick a shape, its size (up to 10^6
 * transitions), its times and tokens (fuzz_bytes.h), a chain cap and a
 * memory budget; the graph is built through the public builder, analysed,
 * and the results checked against closed forms, not only for being finite
 * and ordered (fuzz_check.h):
 *   path of n transitions of time t:  makespan n t, deterministic and exp;
 *   fork-join of k branches, all t:   det 3t, exp (2 + H_k) t (E max of k exp);
 *   k chains of length m, all t:      det m t;
 *   ring of n transitions of time t holding M tokens in all (a cyclic
 *   network of n exp servers): det throughput min(M / n, 1) / t, exp
 *   M / (M + n - 1) / t (Buzen's G(M - 1) / G(M) for identical stations).
 * The memory budget (at most 8 MB) and the chain cap keep each input well
 * under libFuzzer's -timeout: a refusal must come before the work. */
#include "fuzz_bytes.h"
#include "fuzz_check.h"
#include "streamtp_graph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { PATH, FORK_JOIN, CHAINS, RING, SHAPES };

typedef struct shape {
  int kind;
  uint64_t n, k; /* transitions (path, ring), branches or chains; chain length */
  double t;
  uint64_t tokens_total;
} shape;

static stp_status add(stp_graph *g, uint64_t i, double t, size_t *idx, stp_error *err) {
  char name[32];
  snprintf(name, sizeof name, "t%llu", (unsigned long long)i);
  return stp_graph_add_transition(g, name, t, NULL, idx, err);
}

/* Transitions 0..n-1 linked i -> i+1 with `tokens` on each place (0: a DAG). */
static stp_status add_line(stp_graph *g, uint64_t first, uint64_t n, double t, stp_error *err) {
  for (uint64_t i = 0; i < n; i++) {
    size_t idx;
    stp_status st = add(g, first + i, t, &idx, err);
    if (st == STP_OK && i)
      st = stp_graph_add_place(g, idx - 1, idx, 0, err);
    if (st != STP_OK)
      return st;
  }
  return STP_OK;
}

static stp_status build(fuzz_bytes *b, shape *s, stp_graph **out, stp_error *err) {
  stp_status st = stp_graph_new("shape", out, err);
  stp_graph *g = *out;
  for (uint64_t c = 0; st == STP_OK && s->kind == CHAINS && c < s->k; c++)
    st = add_line(g, c * s->n, s->n, s->t, err);
  if (st == STP_OK && s->kind == PATH)
    st = add_line(g, 0, s->n, s->t, err);
  if (st == STP_OK && s->kind == FORK_JOIN) {
    size_t src, sink, br;
    st = add(g, 0, s->t, &src, err);
    for (uint64_t i = 0; st == STP_OK && i < s->k; i++)
      if ((st = add(g, 2 + i, s->t, &br, err)) == STP_OK)
        st = stp_graph_add_place(g, src, br, 0, err);
    if (st == STP_OK && (st = add(g, 1, s->t, &sink, err)) == STP_OK)
      for (uint64_t i = 0; st == STP_OK && i < s->k; i++)
        st = stp_graph_add_place(g, src + 1 + i, sink, 0, err);
  }
  if (st == STP_OK && s->kind == RING) {
    for (uint64_t i = 0; st == STP_OK && i < s->n; i++)
      st = add(g, i, s->t, NULL, err);
    /* tokens per place: one byte's choice between 0, 1, a few and 10^9 */
    static const uint64_t tokens[] = {0, 1, 2, 3, 1000000000, 0, 1, 999999999};
    for (uint64_t i = 0; st == STP_OK && i < s->n; i++) {
      uint64_t m = i + 1 == s->n && !s->tokens_total ? 1 : FUZZ_PICK(b, tokens);
      s->tokens_total += m;
      st = stp_graph_add_place(g, i, (i + 1) % s->n, m, err);
    }
  }
  return st;
}

static double harmonic(uint64_t k) {
  double h = 0;
  for (uint64_t i = k; i >= 1; i--)
    h += 1.0 / (double)i;
  return h;
}

static void check_closed_forms(const shape *s, const stp_graph_result *r) {
  double t = s->t, n = (double)s->n, k = (double)s->k;
  switch (s->kind) {
  case PATH:
    fuzz_near("path: det makespan = n t", r->det_makespan, n * t);
    if (r->exp_computed)
      fuzz_near("path: exp makespan = n t", r->exp_value, n * t);
    break;
  case FORK_JOIN:
    fuzz_near("fork-join: det makespan = 3 t", r->det_makespan, 3 * t);
    if (r->exp_computed)
      fuzz_near("fork-join: exp makespan = (2 + H_k) t", r->exp_value,
                (2 + harmonic(s->k)) * t);
    break;
  case CHAINS:
    fuzz_near("chains: det makespan = m t", r->det_makespan, n * t);
    (void)k;
    break;
  case RING: {
    double M = (double)s->tokens_total;
    fuzz_near("ring: det throughput = min(M / n, 1) / t", r->det_throughput,
              (M < n ? M / n : 1.0) / t);
    if (r->exp_computed)
      fuzz_near("ring: exp throughput = M / (M + n - 1) / t", r->exp_value,
                M / (M + n - 1) / t);
    break;
  }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_bytes b = {data, size};
  shape s = {0};
  s.kind = (int)(fuzz_take(&b, 1) % SHAPES);
  s.t = fuzz_time(&b);
  switch (s.kind) {
  case PATH: s.n = fuzz_size(&b, 6); break;                 /* up to 10^6 */
  case FORK_JOIN: s.k = fuzz_size(&b, 5); break;            /* up to 10^5 branches */
  case CHAINS: s.k = 1 + fuzz_take(&b, 1) % 24, s.n = fuzz_size(&b, 4); break;
  case RING: s.n = fuzz_size(&b, 4); break;                 /* up to 10^4, tokens below */
  }
  static const uint64_t caps[] = {100, 10000, 1000000, 1000000000};
  static const uint64_t budgets[] = {1 << 20, 4 << 20, 8 << 20};
  stp_graph_options o;
  stp_graph_options_init(&o);
  o.max_states = FUZZ_PICK(&b, caps);
  o.control.max_memory = FUZZ_PICK(&b, budgets);

  stp_graph *g = NULL;
  stp_error err = {0};
  if (build(&b, &s, &g, &err) != STP_OK) {
    fuzz_refusal(&err);
    stp_graph_free(g);
    return 0;
  }
  /* The ideal walk costs (ideals) x (transitions / 64) word operations: a
   * path of 72,487 transitions (0.8 s in a release build) took 17 s of CPU
   * under the sanitizers.  Beyond 2e7 the cap drops to 100, so that what is
   * fuzzed at that size is the refusal, not the sanitizers' speed. */
  double ideals = s.kind == PATH ? (double)s.n + 1
                  : s.kind == FORK_JOIN ? ldexp(1, s.k < 60 ? (int)s.k : 60) + 2
                  : s.kind == CHAINS ? pow((double)s.n + 1, (double)s.k) : 0;
  if (ideals * ((double)stp_graph_transition_count(g) / 64 + 1) > 2e7 && o.max_states > 100)
    o.max_states = 100;
  stp_graph_result r;
  if (stp_graph_analyze(g, &o, &r, &err) == STP_OK) {
    fuzz_check_graph_result(&r);
    check_closed_forms(&s, &r);
    if (!r.exp_computed && !r.exp_reason[0])
      fuzz_fail("exp missing without a reason", 0, 0);
    stp_graph_result_free(&r);
  } else {
    fuzz_refusal(&err);
  }
  if (stp_graph_transition_count(g) <= 10000)
    fuzz_simulate_graph(g, 2, 50);
  stp_graph_free(g);
  return 0;
}
