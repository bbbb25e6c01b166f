/* analyze.c: stp_graph_analyze, the exact analyses of any event graph.
 * A DAG gets its deterministic makespan and critical path (longest path)
 * and its exponential makespan from the order-ideal chain; a timed event
 * graph gets its period and critical cycle from Howard's algorithm and its
 * exponential throughput from the reachability chain of its markings
 * (engine/reach.c).  Either way the N.B.U.E. interval closes the result. */
#include "engine/graph.h"
#include "engine/ideals.h"
#include "engine/reach.h"

#include "base/core.h"
#include "solvers/laws.h"
#include "solvers/mcr_howard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest path: transitions in Kahn's order push their finish date to
 * their successors; the critical path is walked back from the latest. */
static stp_status dag_deterministic(const stp_graph *g, stp_graph_result *r, stp_error *err) {
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  size_t n = g->nt;
  double *start = stp__calloc(n, sizeof *start);
  uint32_t *from = stp__malloc_array(n, sizeof *from), *order = stp__malloc_array(n, sizeof *order);
  uint32_t *indeg = stp__calloc(n, sizeof *indeg);
  stp_status s = STP_OK;
  if (!start || !from || !order || !indeg) {
    s = stp__oom(err, "longest path");
    goto done;
  }
  for (uint64_t e = 0; e < d->m; e++) indeg[d->dst[e]]++;
  size_t tail = 0;
  for (uint32_t t = 0; t < n; t++) {
    from[t] = UINT32_MAX;
    if (!indeg[t]) order[tail++] = t;
  }
  uint32_t last = order[0];
  double makespan = -1;
  for (size_t head = 0; head < tail; head++) {
    uint32_t t = order[head];
    double finish = start[t] + g->time[t];
    if (finish > makespan) makespan = finish, last = t;
    for (uint64_t e = d->off[t]; e < d->off[t + 1]; e++) {
      uint32_t u = d->dst[e];
      if (from[u] == UINT32_MAX || finish > start[u]) start[u] = finish, from[u] = t;
      if (--indeg[u] == 0) order[tail++] = u;
    }
  }
  size_t len = 0;
  for (uint32_t t = last; t != UINT32_MAX; t = from[t]) order[len++] = t;
  r->critical = stp__malloc_array(len, sizeof *r->critical);
  if (!r->critical) {
    s = stp__oom(err, "critical path");
    goto done;
  }
  for (size_t i = 0; i < len; i++) r->critical[i] = order[len - 1 - i];
  r->critical_len = len;
  r->det_makespan = makespan;
done:
  free(start);
  free(from);
  free(order);
  free(indeg);
  stp__digraph_free(d);
  return s;
}

/* reason into buf[0..size), cut when longer. */
static void copy_reason(char *buf, size_t size, const char *reason) {
  size_t n = strlen(reason);
  if (n >= size) n = size - 1;
  memcpy(buf, reason, n);
  buf[n] = '\0';
}

/* A missing exponential value: the reason goes to the result, not to err. */
static void exp_missing(stp_graph_result *r, const char *reason) {
  r->exp_computed = 0;
  copy_reason(r->exp_reason, sizeof r->exp_reason, reason);
}

/* The exponential chain's outcome s: a value, or over max_states the
 * reason in the result (not an error), or a failure passed on in err. */
static stp_status exp_outcome(stp_graph_result *r, stp_status s, const stp_error *e2,
                              stp_error *err) {
  if (s == STP_ELIMIT) {
    exp_missing(r, e2->message);
    r->exp_limit = e2->limit;
    return STP_OK;
  }
  if (s != STP_OK) {
    if (err) *err = *e2;
    return s;
  }
  r->exp_computed = 1;
  return STP_OK;
}

static stp_status dag_analyze(const stp_graph *g, const stp_graph_options *o, stp_graph_result *r,
                              stp_error *err) {
  STP_CHECK(dag_deterministic(g, r, err));
  r->exp_method = "dag-ctmc";
  r->bound_lower = r->det_makespan;
  r->bound_upper = NAN;
  if (!o->exponential) {
    exp_missing(r, "not asked for");
    return STP_OK;
  }
  stp_ideals_stats st;
  stp_error e2 = {0};
  stp_status s = stp__ideals_makespan(g, o->max_states, &o->control, &r->exp_value, &st, &e2);
  r->exp_states = st.states;
  STP_CHECK(exp_outcome(r, s, &e2, err));
  if (r->exp_computed) {
    r->exp_value = stp__within_theory(r->exp_value, r->det_makespan, false);
    r->bound_upper = r->exp_value;
  }
  return STP_OK;
}

/* Howard on the places alone.  Transitions are single servers (a one-token
 * self-loop each), but an elementary cycle is either a cycle of places or
 * one self-loop, so the period is max(Howard's ratio, the largest time):
 * no n extra edges for Howard to walk.  Howard also finds a token-free
 * cycle (a deadlock), named like stp_graph_check does.  The critical cycle
 * is rotated to start at its transition listed first. */
static stp_status teg_deterministic(const stp_graph *g, const stp_graph_options *o,
                                    stp_graph_result *r, stp_error *err) {
  stp_digraph *d;
  STP_CHECK(stp__graph_digraph(g, false, &d, err));
  stp_mcr_options mo = {.cancel = o->control.cancel, .progress = o->control.progress};
  stp_mcr_result mr = {0};
  stp_status s = stp__mcr_howard(d, &mo, &mr, err);
  stp__digraph_free(d);
  if (s == STP_EDEADLOCK && mr.cycle) s = stp__graph_deadlock(g, mr.cycle, mr.cycle_len, err);
  if (s != STP_OK) {
    stp__mcr_result_clear(&mr);
    return s;
  }
  size_t slowest = 0;
  for (size_t t = 1; t < g->nt; t++)
    if (g->time[t] > g->time[slowest]) slowest = t;
  if (!mr.has_cycle || g->time[slowest] > mr.ratio) {
    stp__mcr_result_clear(&mr);
    mr = (stp_mcr_result){.has_cycle = true, .ratio = g->time[slowest], .cycle_len = 1};
    if (!(mr.cycle = malloc(sizeof *mr.cycle))) return stp__oom(err, "critical cycle");
    mr.cycle[0] = (uint32_t)slowest;
  }
  size_t len = mr.cycle_len, first = 0;
  for (size_t i = 1; i < len; i++)
    if (mr.cycle[i] < mr.cycle[first]) first = i;
  r->critical = stp__malloc_array(len ? len : 1, sizeof *r->critical);
  if (!r->critical) {
    stp__mcr_result_clear(&mr);
    return stp__oom(err, "critical cycle");
  }
  for (size_t i = 0; i < len; i++) r->critical[i] = mr.cycle[(first + i) % len];
  r->critical_len = len;
  double outputs = g->noutputs > 1 ? (double)g->noutputs : 1.0;
  r->det_period = mr.ratio / outputs;
  r->det_throughput = outputs / mr.ratio;
  stp__mcr_result_clear(&mr);
  return STP_OK;
}

static stp_status teg_analyze(const stp_graph *g, const stp_graph_options *o, stp_graph_result *r,
                              stp_error *err) {
  STP_CHECK(teg_deterministic(g, o, r, err));
  r->exp_method = "ctmc";
  r->bound_upper = r->det_throughput;
  r->bound_lower = NAN;
  if (!o->exponential) {
    exp_missing(r, "not asked for");
    return STP_OK;
  }
  stp_reach_stats st = {0};
  stp_error e2 = {0};
  stp_options so; /* the chain of each component, here or across MPI ranks */
  stp_options_init(&so);
  so.max_states = o->max_states;
  so.control = o->control;
  so.distributed = o->distributed;
  stp_status s = stp__reach_throughput_ph(g, &so, NULL, &r->exp_value, &st, &e2);
  r->exp_states = st.states;
  STP_CHECK(exp_outcome(r, s, &e2, err));
  if (r->exp_computed) {
    r->exp_value = stp__within_theory(r->exp_value, r->det_throughput, true);
    r->bound_lower = r->exp_value;
  }
  return STP_OK;
}

/* ---- phase-type laws ---- */

static void law_missing(stp_graph_result *r, const char *reason) {
  r->law_computed = 0;
  copy_reason(r->law_reason, sizeof r->law_reason, reason);
}

/* Asked by o->law, or by the transitions' own laws when they are all
 * phase-type (laws meant for simulation only give no "not phase-type"
 * reason). */
static bool law_asked(const stp_graph *g, const stp_graph_options *o) {
  if (o->law) return true;
  bool any = false;
  for (size_t t = 0; t < g->nt; t++)
    if (g->law[t]) {
      if (!stp_law_phases(g->law[t])) return false;
      any = true;
    }
  return any;
}

/* ph[t]: the Coxian form of the law of each transition (its own, else
 * o->law, else NULL: exponential); STP_EINVAL naming the transition whose
 * law is not phase-type. */
static stp_status coxian_laws(const stp_graph *g, const stp_graph_options *o,
                              const stp_coxian ***out, stp_error *err) {
  const stp_coxian **ph = stp__calloc(g->nt ? g->nt : 1, sizeof *ph);
  if (!ph) return stp__oom(err, "phase-type laws");
  for (size_t t = 0; t < g->nt; t++) {
    const stp_law *law = g->law[t] ? g->law[t] : o->law;
    if (!law) continue;
    char what[300];
    snprintf(what, sizeof what, "transition \"%s\"", g->tname[t]);
    stp_status s = stp__law_coxian(law, what, &ph[t], err);
    if (s != STP_OK) {
      free(ph);
      return s;
    }
  }
  *out = ph;
  return STP_OK;
}

/* The exact value under phase-type laws, into r->law_*: a law that is not
 * phase-type or a chain beyond the limits gives a reason, not an error. */
static stp_status law_analyze(const stp_graph *g, const stp_graph_options *o, stp_graph_result *r,
                              stp_error *err) {
  r->law_asked = 1;
  r->law_method = r->is_dag ? "dag-ctmc" : "ctmc";
  const stp_coxian **ph = NULL;
  stp_error e2 = {0};
  stp_status s = coxian_laws(g, o, &ph, &e2);
  if (s == STP_OK && r->is_dag) {
    stp_ideals_stats st;
    s = stp__ideals_makespan_ph(g, o->max_states, &o->control, ph, &r->law_value, &st, &e2);
    r->law_states = st.states;
  } else if (s == STP_OK) {
    stp_options so;
    stp_options_init(&so);
    so.max_states = o->max_states;
    so.control = o->control;
    so.distributed = o->distributed;
    stp_reach_stats st = {0};
    s = stp__reach_throughput_ph(g, &so, ph, &r->law_value, &st, &e2);
    r->law_states = st.states;
    r->law_solver = st.solver;
    r->law_sweeps = st.sweeps;
    r->law_residual = st.residual;
  }
  free(ph);
  if (s == STP_EINVAL || s == STP_ELIMIT) {
    r->law_value = NAN;
    law_missing(r, e2.message);
    r->law_limit = e2.limit;
    return STP_OK;
  }
  if (s != STP_OK) {
    if (err) *err = e2;
    return s;
  }
  r->law_computed = 1;
  /* Under any law of these means, as under the exponential, the makespan
   * is at least the deterministic one and the throughput at most it. */
  r->law_value = r->is_dag ? stp__within_theory(r->law_value, r->det_makespan, false)
                           : stp__within_theory(r->law_value, r->det_throughput, true);
  return STP_OK;
}

/* Every value finite and the interval ordered: an overflow is an error,
 * never a null with success. */
static stp_status check_result(const stp_graph_result *r, stp_error *err) {
  if (r->is_dag) {
    STP_CHECK(stp__check_finite(r->det_makespan, "the deterministic makespan", err));
  } else {
    STP_CHECK(stp__check_finite(r->det_throughput, "the deterministic throughput", err));
    STP_CHECK(stp__check_finite(r->det_period, "the deterministic period", err));
  }
  if (r->exp_computed)
    STP_CHECK(stp__check_finite(r->exp_value, r->is_dag ? "the exponential makespan"
                                                        : "the exponential throughput", err));
  if (r->law_computed)
    STP_CHECK(stp__check_finite(r->law_value, "the exact value under the phase-type laws", err));
  return stp__check_ordered(r->bound_lower, r->bound_upper, "the N.B.U.E. interval", err);
}

stp_status stp_graph_analyze(const stp_graph *g, const stp_graph_options *o, stp_graph_result *r,
                             stp_error *err) {
  stp_graph_options defaults;
  if (!o) {
    stp_graph_options_init(&defaults);
    o = &defaults;
  }
  stp_graph_options opt = *o;
  if (!opt.max_states) opt.max_states = STP_GRAPH_DEFAULT_MAX_STATES;
  memset(r, 0, sizeof *r);
  r->det_makespan = r->det_period = r->det_throughput = r->exp_value = NAN;
  r->is_dag = stp_graph_is_dag(g);
  /* a DAG is checked whole; a timed event graph's cycles are Howard's */
  STP_CHECK(r->is_dag ? stp_graph_check(g, err) : stp__graph_check_basic(g, err));
  stp_status s = r->is_dag ? dag_analyze(g, &opt, r, err) : teg_analyze(g, &opt, r, err);
  r->law_value = NAN;
  if (s == STP_OK && law_asked(g, &opt)) s = law_analyze(g, &opt, r, err);
  if (s == STP_OK) s = check_result(r, err);
  if (s != STP_OK) stp_graph_result_free(r);
  return s;
}

void stp_graph_result_free(stp_graph_result *r) {
  if (!r) return;
  free(r->critical);
  r->critical = NULL;
  r->critical_len = 0;
}
