/* utilization.c: the busy fraction of every resource in the long run
 * (streamtp_explain.h; docs/design.md, "Utilization"): the throughput
 * times the mean busy time per data set, which is the resource cycle-time
 * of docs/design.md 3 (C_comp = c_p / R_i, C_in and C_out the port's
 * transfers per data set; Strict: their sum).  It holds under any law with
 * the same means: a resource serves a fixed share of the data sets, each
 * for its mean time on average. */
#include "base/core.h"
#include "models/pipeline/components.h"
#include "models/pipeline/deterministic.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdlib.h>

/* A resource at its limit: the same rounding as a critical resource. */
#define SATURATED_RTOL 1e-9

void stp_utilization_free(stp_utilization *u) {
  if (!u)
    return;
  for (size_t k = 0; k < u->n; k++)
    free(u->items[k].resource);
  free(u->items);
  free(u);
}

static const char *port_suffix(stp_port port) {
  return port == STP_PORT_IN ? " in" : port == STP_PORT_OUT ? " out" : "";
}

static stp_status add_item(const stp_mapping *m, const stp_result *r, size_t p, stp_port port,
                           double busy, stp_utilization *u, stp_error *err) {
  stp_utilization_item *it = &u->items[u->n];
  double law = r->exact_law.available ? r->exact_law.throughput : NAN;
  *it = (stp_utilization_item){.processor = p, .port = port, .busy = busy,
                               .det = r->det_throughput * busy,
                               .exp = r->exp_available ? r->exp_throughput * busy : NAN,
                               .law = law * busy, .sim = NAN, .sim_low = NAN,
                               .sim_high = NAN};
  it->saturated = stp__close(it->det, 1, SATURATED_RTOL, 0) || it->det > 1;
  it->resource = stp__asprintf("%s%s", m->procs[p].name, port_suffix(port));
  if (!it->resource)
    return stp__oom(err, "naming resources");
  u->n++;
  return STP_OK;
}

stp_status stp_utilization_compute(const stp_mapping *m, const stp_result *r,
                                   stp_utilization **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_utilization_compute: out is NULL");
  *out = NULL;
  if (!m || !r)
    return stp__fail(err, STP_EINVAL, "stp_utilization_compute: mapping or result is NULL");
  stp_component_set cs = {0};
  stp_cycle_times *ct = NULL;
  stp_utilization *u = calloc(1, sizeof *u);
  stp_status s = u ? stp__components_build(m, &cs, err) : stp__oom(err, "computing utilization");
  if (s == STP_OK)
    s = stp__cycle_times(m, &cs, &ct, err);
  if (s == STP_OK && !(u->items = stp__calloc(3 * m->nprocs + 1, sizeof *u->items)))
    s = stp__oom(err, "computing utilization");
  for (size_t p = 0; s == STP_OK && p < m->nprocs; p++) {
    size_t i = m->procs[p].stage;
    if (i == STP_NO_STAGE)
      continue;
    if (r->model == STP_MODEL_STRICT) {
      s = add_item(m, r, p, STP_PORT_COMPUTE, ct[p].in + ct[p].comp + ct[p].out, u, err);
      continue;
    }
    s = add_item(m, r, p, STP_PORT_COMPUTE, ct[p].comp, u, err);
    if (s == STP_OK && i > 0)
      s = add_item(m, r, p, STP_PORT_IN, ct[p].in, u, err);
    if (s == STP_OK && i + 1 < m->nstages)
      s = add_item(m, r, p, STP_PORT_OUT, ct[p].out, u, err);
  }
  free(ct);
  stp__components_free(&cs);
  if (s != STP_OK) {
    stp_utilization_free(u);
    return s;
  }
  *out = u;
  return STP_OK;
}
