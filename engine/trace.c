/* trace.c: the earliest schedule of an event graph, firing by firing
 * (stp_graph_trace, include/streamtp_graph.h), for the Gantt charts of the
 * command line: the deterministic schedule (every time its mean) or one
 * random run.  The recurrence is that of the simulation kernel
 * (engine/maxplus.h), played out in full instead of in a window, with the
 * binding predecessor of every firing kept so that critical chains can be
 * followed back.  Rounds are fired in a topological order of the
 * token-free places, so every input of a firing is known when it starts. */
#include "base/core.h"
#include "base/rng.h"
#include "engine/graph.h"
#include "solvers/laws.h"

#include <math.h>
#include <stdlib.h>

#define TRACE_MAX_FIRINGS UINT64_C(100000000)

void stp_graph_trace_options_init(stp_graph_trace_options *o) {
  *o = (stp_graph_trace_options){.rounds = 1, .seed = 1};
}

/* Times of round k: the means, or the means times draws of their laws. */
static void round_times(const stp_graph *g, const stp_graph_trace_options *o,
                        const stp_law *dflt, stp_rng *rng, double *x) {
  for (size_t t = 0; t < g->nt; t++) {
    x[t] = g->time[t];
    if (o->random && x[t] > 0) {
      double f;
      stp__law_fill(g->law[t] ? g->law[t] : dflt, rng, &f, 1);
      x[t] *= f;
    }
  }
}

/* Firing k of transition t: its start, end and cause. */
static void fire(const stp_graph *g, bool dag, double pace, size_t k, size_t t,
                 const size_t *off, const uint32_t *in, double time, double *start, double *end,
                 size_t *cause) {
  size_t n = g->nt, i = k * n + t, why = SIZE_MAX;
  double s = 0;
  for (size_t q = off[t]; q < off[t + 1]; q++) {
    uint32_t p = in[q];
    uint64_t m = g->ptok[p];
    if (m > k) continue; /* an initial token: there at time 0 */
    size_t j = (k - (size_t)m) * n + g->pfrom[p];
    if (why == SIZE_MAX || end[j] > s) {
      s = end[j];
      why = j;
    }
  }
  if (!dag && k > 0 && (why == SIZE_MAX || end[i - n] > s)) { /* a single server */
    s = end[i - n];
    why = i - n;
  }
  if (!dag && k > 0 && pace > 0 && start[i - n] + pace > s) { /* the pace */
    s = start[i - n] + pace;
    why = i - n;
  }
  start[i] = s;
  end[i] = s + time;
  if (cause) cause[i] = why;
}

stp_status stp_graph_trace(const stp_graph *g, const stp_graph_trace_options *o, double *start,
                           double *end, size_t *cause, stp_error *err) {
  STP_CHECK(stp_graph_check(g, err));
  bool dag = stp_graph_is_dag(g);
  uint64_t rounds = dag ? 1 : o->rounds;
  if (rounds < 1) return stp__fail(err, STP_EINVAL, "a trace needs at least one round");
  if (!(o->pace >= 0) || !isfinite(o->pace))
    return stp__fail(err, STP_EINVAL, "the pace of a trace must be finite and >= 0, not %g",
                     o->pace);
  if (rounds > TRACE_MAX_FIRINGS / (g->nt ? g->nt : 1))
    return stp__fail(err, STP_ELIMIT, "a trace of %llu rounds of %zu transitions exceeds %llu "
                     "firings", (unsigned long long)rounds, g->nt,
                     (unsigned long long)TRACE_MAX_FIRINGS);
  uint32_t *order = NULL, *in = NULL;
  size_t *off = NULL;
  stp_law *exp_law = NULL;
  stp_rng *rng = NULL;
  double *x = stp__calloc(g->nt, sizeof *x);
  stp_status st = x ? STP_OK : stp__oom(err, "a trace");
  if (st == STP_OK) st = stp__graph_topo_order(g, &order, err);
  if (st == STP_OK) st = stp__graph_adjacency(g, true, &off, &in, err);
  if (st == STP_OK && o->random && !o->law) st = stp__law_parse("exp", NULL, &exp_law, err);
  if (st == STP_OK && o->random && !(rng = stp__rng_alloc(o->seed, 0)))
    st = stp__oom(err, "a random stream");
  for (uint64_t k = 0; st == STP_OK && k < rounds; k++) {
    round_times(g, o, o->law ? o->law : exp_law, rng, x);
    for (size_t q = 0; q < g->nt; q++)
      fire(g, dag, o->pace, (size_t)k, order[q], off, in, x[order[q]], start, end, cause);
  }
  stp__rng_free(rng);
  stp__law_free(exp_law);
  free(order);
  free(off);
  free(in);
  free(x);
  return st;
}
