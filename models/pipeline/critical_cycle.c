/* critical_cycle.c: the resources on the critical cycles of a mapping's
 * deterministic event graph (streamtp_explain.h): what limits a Strict
 * mapping that has no critical resource (its period exceeds every
 * resource's cycle-time, so no one resource explains it).  The critical
 * graph (solvers/mcr_critical.h) holds every critical cycle; its
 * transitions name the resources: a computation its processor, a transfer
 * its sender and receiver (Strict: both processors; Overlap: the sender's
 * out-port and the receiver's in-port). */
#include "models/pipeline/critical_cycle.h"

#include "base/core.h"
#include "models/pipeline/teg.h"
#include "solvers/mcr_critical.h"
#include "solvers/mcr_howard.h"
#include "streamtp_explain.h"

#include <stdlib.h>
#include <string.h>

void stp_critical_cycle_free(stp_critical_cycle *c) {
  if (!c)
    return;
  for (size_t k = 0; k < c->nresources; k++)
    free(c->resources[k]);
  free(c->resources);
  for (size_t k = 0; k < c->ntransitions; k++)
    free(c->transitions[k]);
  free(c->transitions);
  free(c);
}

/* Flags of the resources a transition occupies: 3 p (+1 in, +2 out). */
static void mark_node(const stp_teg *t, uint32_t node, unsigned char *used) {
  uint64_t row = node / t->ncols;
  uint32_t col = node % t->ncols;
  size_t q, p = stp__teg_processor(&t->teams, row, col, &q);
  bool strict = t->model == STP_MODEL_STRICT;
  if (col % 2 == 0) {
    used[3 * p] = 1;
    return;
  }
  used[3 * p + (strict ? 0 : 2)] = 1;
  used[3 * q + (strict ? 0 : 1)] = 1;
}

static stp_status name_resources(const stp_mapping *m, const unsigned char *used,
                                 stp_critical_cycle *c, stp_error *err) {
  static const char *const suffix[3] = {"", " in", " out"};
  size_t n = 0;
  for (size_t k = 0; k < 3 * m->nprocs; k++)
    n += used[k];
  c->resources = stp__calloc(n ? n : 1, sizeof *c->resources);
  if (!c->resources)
    return stp__oom(err, "naming resources");
  for (size_t k = 0; k < 3 * m->nprocs; k++)
    if (used[k] &&
        !(c->resources[c->nresources++] = stp__asprintf("%s%s", m->procs[k / 3].name, suffix[k % 3])))
      return stp__oom(err, "naming resources");
  return STP_OK;
}

static stp_status name_cycle(const stp_teg *t, const stp_mcr_result *r, stp_critical_cycle *c,
                             stp_error *err) {
  c->transitions = stp__calloc(r->cycle_len ? r->cycle_len : 1, sizeof *c->transitions);
  if (!c->transitions)
    return stp__oom(err, "naming the critical cycle");
  char label[512];
  for (size_t k = 0; k < r->cycle_len; k++) {
    stp__teg_label(t, r->cycle[k], label, sizeof label);
    if (!(c->transitions[c->ntransitions++] = stp__strdup(label)))
      return stp__oom(err, "naming the critical cycle");
  }
  return STP_OK;
}

stp_status stp_critical_cycle_compute(const stp_mapping *m, stp_model model,
                                      const stp_options *opts, stp_critical_cycle **out,
                                      stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_critical_cycle_compute: out is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_critical_cycle_compute: mapping is NULL");
  stp_options defaults;
  if (!opts) {
    stp_options_init(&defaults);
    opts = &defaults;
  }
  STP_CHECK(stp__teg_check_size(m, model, opts->max_transitions, err));
  STP_CHECK(stp__teg_check_memory(m, model, stp_options_memory_budget(opts), err));
  stp_teg *t = NULL;
  stp_mcr_result r = {0};
  stp_mcr_critical crit = {0};
  unsigned char *used = stp__calloc(3 * m->nprocs, 1);
  stp_critical_cycle *c = calloc(1, sizeof *c);
  stp_status s = used && c ? stp__teg_build(m, model, opts->max_transitions, &t, err)
                           : stp__oom(err, "finding the critical cycle");
  if (s == STP_OK)
    s = stp__mcr_howard(t->g, NULL, &r, err);
  if (s == STP_OK)
    s = stp__mcr_critical(t->g, r.ratio, &crit, err);
  if (s == STP_OK) {
    c->period = r.ratio / (double)t->nrows;
    c->cycle_tokens = r.cycle_tokens;
    for (uint32_t k = 0; k < crit.g->n; k++)
      mark_node(t, crit.node[k], used);
    s = name_resources(m, used, c, err);
  }
  if (s == STP_OK)
    s = name_cycle(t, &r, c, err);
  stp__mcr_critical_free(&crit);
  stp__mcr_result_clear(&r);
  stp__teg_free(t);
  free(used);
  if (s != STP_OK) {
    stp_critical_cycle_free(c);
    return s;
  }
  *out = c;
  return STP_OK;
}

stp_status stp__critical_cycle_resources(const stp_mapping *m, stp_model model,
                                         const stp_options *o, char ***names, size_t *n,
                                         stp_error *err) {
  stp_critical_cycle *c;
  *names = NULL;
  *n = 0;
  STP_CHECK(stp_critical_cycle_compute(m, model, o, &c, err));
  *names = c->resources; /* handed over */
  *n = c->nresources;
  c->resources = NULL;
  c->nresources = 0;
  stp_critical_cycle_free(c);
  return STP_OK;
}
