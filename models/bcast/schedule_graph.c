/* schedule_graph.c: a broadcast schedule compiled into the generic event
 * graph (one run: an activity DAG), and its analyses through the core.
 * The sends of a coordinator are chained in its send order (it sends one
 * message at a time), a latency is a pure delay (it holds no resource), and
 * a cluster's inside broadcast is one activity after its coordinator's last
 * send.  Every task has one predecessor, so the DAG is a tree rooted at the
 * root's first task; its longest path is the heuristic's makespan. */
#include "models/bcast/platform.h"

#include "base/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE SIZE_MAX

/* Add a task of time `time` on `resource` after `pred` (NONE: at time 0); a
 * zero time adds nothing and `pred` stands for it. */
static stp_status add_task(stp_graph *g, const char *name, const char *resource, double time,
                           size_t pred, size_t *out, stp_error *err) {
  *out = pred;
  if (time == 0)
    return STP_OK;
  STP_CHECK(stp_graph_add_transition(g, name, time, NULL, out, err));
  STP_CHECK(stp_graph_set_resource(g, *out, resource, err));
  return pred == NONE ? STP_OK : stp_graph_add_place(g, pred, *out, 0, err);
}

static stp_status build(const stp_bcast_platform *p, const stp__bcast_times *t,
                        const stp_bcast_schedule *s, stp_graph *g, size_t *last,
                        stp_error *err) {
  size_t n = p->n;
  for (size_t r = 0; r + 1 < n; r++) {
    size_t i = s->sends[r].from, j = s->sends[r].to;
    char name[2 * 300], link[2 * 300];
    snprintf(link, sizeof link, "%s->%s", p->names[i], p->names[j]);
    snprintf(name, sizeof name, "send %s->%s", p->names[i], p->names[j]);
    STP_CHECK(add_task(g, name, p->names[i], t->G[i * n + j], last[i], &last[i], err));
    snprintf(name, sizeof name, "delay %s->%s", p->names[i], p->names[j]);
    STP_CHECK(add_task(g, name, link, t->L[i * n + j], last[i], &last[j], err));
  }
  for (size_t j = 0; j < n; j++) {
    char name[300];
    snprintf(name, sizeof name, "bcast %s", p->names[j]);
    size_t unused;
    STP_CHECK(add_task(g, name, p->names[j], t->T[j], last[j], &unused, err));
  }
  return STP_OK;
}

stp_status stp_bcast_schedule_graph(const stp_bcast_platform *p, const stp_bcast_options *o,
                                    const stp_bcast_schedule *s, stp_graph **out,
                                    stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_graph: out is NULL");
  *out = NULL;
  if (!p || !o || !s || s->nclusters != p->n)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_graph: the schedule is not of this "
                     "platform");
  stp__bcast_times t;
  STP_CHECK(stp__bcast_times_resolve(p, o, &t, err));
  size_t *last = stp__malloc_array(p->n, sizeof *last);
  stp_graph *g = NULL;
  char gname[320];
  snprintf(gname, sizeof gname, "bcast-%s", stp_bcast_heuristic_name(s->heuristic));
  stp_status st = last ? stp_graph_new(gname, &g, err) : stp__oom(err, "building a DAG");
  if (st == STP_OK) {
    for (size_t j = 0; j < p->n; j++)
      last[j] = NONE;
    st = build(p, &t, s, g, last, err);
  }
  free(last);
  stp__bcast_times_free(&t);
  if (st != STP_OK || stp_graph_transition_count(g) == 0) {
    stp_graph_free(g);
    return st;
  }
  *out = g;
  return STP_OK;
}

stp_status stp_bcast_schedule_analyze(const stp_bcast_platform *p, const stp_bcast_options *o,
                                      const stp_bcast_schedule *s, const stp_graph_options *go,
                                      stp_graph_result *r, stp_error *err) {
  if (!go || !r)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_analyze: bad arguments");
  stp_graph *g;
  STP_CHECK(stp_bcast_schedule_graph(p, o, s, &g, err));
  if (!g) { /* every time is zero: nothing to wait for */
    *r = (stp_graph_result){.is_dag = 1, .exp_computed = go->exponential, .exp_states = 1,
                            .exp_method = "dag-ctmc"};
    if (!go->exponential)
      r->bound_upper = NAN;
    return STP_OK;
  }
  stp_status st = stp_graph_analyze(g, go, r, err);
  stp_graph_free(g);
  return st;
}

stp_status stp_bcast_schedule_simulate(const stp_bcast_platform *p, const stp_bcast_options *o,
                                       const stp_bcast_schedule *s,
                                       const stp_graph_sim_options *so,
                                       stp_graph_sim_result *r, stp_error *err) {
  if (!so || !r)
    return stp__fail(err, STP_EINVAL, "stp_bcast_schedule_simulate: bad arguments");
  stp_graph *g;
  STP_CHECK(stp_bcast_schedule_graph(p, o, s, &g, err));
  if (!g) {
    *r = (stp_graph_sim_result){.runs = so->runs};
    return STP_OK;
  }
  stp_status st = stp_graph_simulate(g, so, r, err);
  stp_graph_free(g);
  return st;
}
