/* mapping_graph.c: a mapping's full event graph (models/pipeline/teg.c) as a
 * generic stp_graph, so that the analyses of streamtp_graph.h, the graph
 * file writer and `streamtp graph` see a pipeline like any other schedule.
 * The places are the event graph's own; the graph adds only names, the
 * resources (processor or link, for Gantt charts) and the outputs (the last column of every row: each of its firings delivers one
 * data set). */
#include "base/core.h"
#include "models/pipeline/teg.h"
#include "streamtp_pipeline.h"

#include <stdio.h>

/* "r3:T2@P4" for a computation, "r3:T2:P4->P7" for a transfer. */
static void transition_name(const stp_teg *t, uint64_t row, uint32_t col, char *buf, size_t n) {
  const stp_mapping *m = t->map;
  size_t q, p = stp__teg_processor(&t->teams, row, col, &q);
  const char *stage = m->stages[col / 2].name;
  if (col % 2 == 0)
    snprintf(buf, n, "r%llu:%s@%s", (unsigned long long)row, stage, m->procs[p].name);
  else
    snprintf(buf, n, "r%llu:%s:%s->%s", (unsigned long long)row, stage, m->procs[p].name,
             m->procs[q].name);
}

/* The resource a transition occupies: its processor ("P4"), or its link
 * ("P4->P7"): the rows of a Gantt chart. */
static void resource_name(const stp_teg *t, uint64_t row, uint32_t col, char *buf, size_t n) {
  const stp_mapping *m = t->map;
  size_t q, p = stp__teg_processor(&t->teams, row, col, &q);
  if (col % 2 == 0)
    snprintf(buf, n, "%s", m->procs[p].name);
  else
    snprintf(buf, n, "%s->%s", m->procs[p].name, m->procs[q].name);
}

static stp_status fill(const stp_teg *t, stp_graph *g, stp_error *err) {
  char name[512];
  for (uint64_t j = 0; j < t->nrows; j++)
    for (uint32_t c = 0; c < t->ncols; c++) {
      size_t k;
      transition_name(t, j, c, name, sizeof name);
      STP_CHECK(stp_graph_add_transition(g, name, t->time[j * t->ncols + c], NULL, &k, err));
      resource_name(t, j, c, name, sizeof name);
      STP_CHECK(stp_graph_set_resource(g, k, name, err));
    }
  for (uint64_t e = 0; e < t->g->m; e++)
    STP_CHECK(stp_graph_add_place(g, t->g->src[e], t->g->dst[e], t->g->tok[e], err));
  for (uint64_t j = 0; j < t->nrows; j++)
    STP_CHECK(stp_graph_set_output(g, (size_t)(j * t->ncols + t->ncols - 1), err));
  return STP_OK;
}

stp_status stp_mapping_graph(const stp_mapping *m, stp_model model, stp_graph **out,
                             stp_error *err) {
  *out = NULL;
  stp_teg *t;
  STP_CHECK(stp__teg_build(m, model, STP_GRAPH_MAX_TRANSITIONS, &t, err));
  stp_graph *g;
  stp_status s = stp_graph_new(m->name, &g, err);
  if (s == STP_OK) s = fill(t, g, err);
  stp__teg_free(t);
  if (s != STP_OK) {
    stp_graph_free(g);
    return s;
  }
  *out = g;
  return STP_OK;
}
