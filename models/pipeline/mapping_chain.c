/* mapping_chain.c: stp_mapping_chain, the one Markov chain of a mapping that
 * a user asks to look at (streamtp ctmc): the folded pattern of an Overlap
 * transfer component, or the chain of the whole Strict event graph; and
 * stp_mapping_chain_solve_distributed, the same chain solved across MPI
 * ranks (engine/distchain.h) without being built in one process. */
#include "base/core.h"
#include "engine/chain.h"
#include "models/pipeline/components.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"

#include <stdio.h>
#include <stdlib.h>

/* "1 (T1 -> T2, 1x2), 4 (T2 -> T3, 2x3)": the transfer components. */
static void list_transfers(const stp_mapping *m, const stp_component_set *cs, char *buf,
                           size_t n) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < cs->n && at < n; k++) {
    const stp_component *c = &cs->c[k];
    if (c->kind != STP_COMPONENT_TRANSFER)
      continue;
    int w = snprintf(buf + at, n - at, "%s%zu (%s -> %s, %zux%zu)", at ? ", " : "", k,
                     m->stages[c->stage].name, m->stages[c->stage + 1].name, c->u, c->v);
    at += w > 0 ? (size_t)w : 0;
  }
}

/* Component k must be a transfer component. */
static stp_status check_component(const stp_mapping *m, const stp_component_set *cs, long k,
                                  stp_error *err) {
  char list[512];
  list_transfers(m, cs, list, sizeof list);
  if (k < 0)
    return stp__fail(err, STP_EINVAL,
                     "%s: a transfer component is needed under the Overlap model; the transfer "
                     "components are %s",
                     m->file, list[0] ? list : "none (every stage has one processor and one link)");
  if ((size_t)k >= cs->n)
    return stp__fail(err, STP_EINVAL, "%s: component %ld is not a component index (0 to %zu)",
                     m->file, k, cs->n - 1);
  const stp_component *c = &cs->c[k];
  if (c->kind == STP_COMPONENT_TRANSFER)
    return STP_OK;
  return stp__fail(err, STP_EINVAL,
                   "%s: component %ld is the computation of %s (stage %s), whose chain is a "
                   "single state; the transfer components are %s",
                   m->file, k, m->procs[c->snd[0]].name, m->stages[c->stage].name,
                   list[0] ? list : "none");
}

static stp_status component_chain(const stp_mapping *m, long k, const stp_options *o,
                                  stp_chain **out, stp_chain_about *about, stp_error *err) {
  stp_component_set cs = {0};
  double *times = NULL;
  STP_CHECK(stp__components_build(m, &cs, err));
  stp_status s = check_component(m, &cs, k, err);
  const stp_component *c = s == STP_OK ? &cs.c[k] : NULL;
  if (s == STP_OK)
    s = stp__pattern_times(m, c, &times, err);
  if (s == STP_OK)
    s = stp__pattern_check_memory(c->u, c->v, stp_options_memory_budget(o), err);
  if (s == STP_OK)
    s = stp__pattern_chain(c->u, c->v, times, o->max_states, out, err);
  if (s == STP_OK) {
    *about = (stp_chain_about){.model = STP_MODEL_OVERLAP, .component = k, .stage = c->stage,
                               .g = c->g, .u = c->u, .v = c->v};
    (*out)->scale = (double)c->g;
    (*out)->description = stp__asprintf(
        "%s (%s): Markov chain of component %ld, the %zu x %zu pattern of the transfer %s -> %s "
        "(g = %zu copies)", m->file, m->name, k, c->u, c->v, m->stages[c->stage].name,
        m->stages[c->stage + 1].name, c->g);
    if (!(*out)->description)
      s = stp__oom(err, "describing the chain");
  }
  free(times);
  stp__components_free(&cs);
  return s;
}

stp_status stp_mapping_chain(const stp_mapping *m, stp_model model, long component,
                             const stp_options *opts, stp_chain **out, stp_chain_about *about,
                             stp_error *err) {
  if (!out || !about)
    return stp__fail(err, STP_EINVAL, "stp_mapping_chain: out or about is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_mapping_chain: mapping is NULL");
  stp_options defaults;
  if (!opts) {
    stp_options_init(&defaults);
    opts = &defaults;
  }
  stp_status s;
  if (model == STP_MODEL_OVERLAP) {
    s = component_chain(m, component, opts, out, about, err);
  } else if (component >= 0) {
    return stp__fail(err, STP_EINVAL,
                     "%s: a component applies to the Overlap model; under Strict the chain is "
                     "that of the whole event graph", m->file);
  } else {
    s = stp__strict_chain(m, opts, out, err);
    *about = (stp_chain_about){.model = STP_MODEL_STRICT, .component = -1};
    if (s == STP_OK && !((*out)->description = stp__asprintf(
                             "%s (%s): Markov chain of the Strict event graph", m->file, m->name)))
      s = stp__oom(err, "describing the chain");
  }
  if (s != STP_OK) {
    stp__chain_free(*out);
    *out = NULL;
  }
  return s;
}

/* ---- across MPI ranks -------------------------------------------------------------- */

static stp_status component_distributed(const stp_mapping *m, long k, const stp_options *o,
                                        stp_chain_about *about, double *rate,
                                        stp_ctmc_info *info, stp_error *err) {
  stp_component_set cs = {0};
  double *times = NULL;
  STP_CHECK(stp__components_build(m, &cs, err));
  stp_status s = check_component(m, &cs, k, err);
  const stp_component *c = s == STP_OK ? &cs.c[k] : NULL;
  if (s == STP_OK)
    s = stp__pattern_times(m, c, &times, err);
  if (s == STP_OK) {
    *about = (stp_chain_about){.model = STP_MODEL_OVERLAP, .component = k, .stage = c->stage,
                               .g = c->g, .u = c->u, .v = c->v};
    s = stp__pattern_exp_rate(c->u, c->v, times, o, rate, info, err);
  }
  free(times);
  stp__components_free(&cs);
  return s;
}

stp_status stp_mapping_chain_solve_distributed(const stp_mapping *m, stp_model model,
                                               long component, const stp_options *opts,
                                               stp_chain_about *about, stp_chain_solution *out,
                                               int64_t *states, int64_t *moves,
                                               double *seconds_build, stp_error *err) {
  if (!m || !about || !out || !states || !moves || !seconds_build)
    return stp__fail(err, STP_EINVAL,
                     "stp_mapping_chain_solve_distributed: an argument is NULL");
  stp_options o;
  if (opts)
    o = *opts;
  else
    stp_options_init(&o);
  o.distributed = 1;
  double rate = 0;
  stp_ctmc_info info = {0};
  stp_status s;
  if (model == STP_MODEL_OVERLAP) {
    s = component_distributed(m, component, &o, about, &rate, &info, err);
  } else if (component >= 0) {
    return stp__fail(err, STP_EINVAL,
                     "%s: a component applies to the Overlap model; under Strict the chain is "
                     "that of the whole event graph", m->file);
  } else {
    *about = (stp_chain_about){.model = STP_MODEL_STRICT, .component = -1};
    s = stp__strict_exp_throughput(m, &o, &rate, &info, err);
  }
  if (s != STP_OK)
    return s;
  *out = (stp_chain_solution){.rate = rate,
                              .throughput = model == STP_MODEL_OVERLAP ? (double)about->g * rate
                                                                       : rate,
                              .residual = info.residual, .solver = info.solver,
                              .iterations = info.iterations,
                              .seconds = info.seconds_solve};
  *seconds_build = info.seconds_build;
  *states = (int64_t)info.states;
  *moves = (int64_t)info.moves;
  return STP_OK;
}
