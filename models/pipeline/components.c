/* components.c: enumeration of the Overlap components and their folded
 * patterns, and the deterministic bound of each (Howard on the pattern). */
#include "models/pipeline/components.h"

#include "base/core.h"
#include "solvers/mcr_howard.h"

#include <stdlib.h>
#include <string.h>

void stp__components_free(stp_component_set *cs) {
  if (!cs)
    return;
  for (size_t k = 0; k < cs->n; k++) {
    free(cs->c[k].snd);
    free(cs->c[k].rcv);
  }
  free(cs->c);
  cs->c = NULL;
  cs->n = 0;
}

static size_t component_count(const stp_mapping *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->nstages; i++) {
    n += stp__team_size(m, i);
    if (i + 1 < m->nstages)
      n += stp__transfer_shape(m, i).g;
  }
  return n;
}

static stp_status add_compute(const stp_mapping *m, size_t i, size_t k, stp_component *c) {
  *c = (stp_component){.kind = STP_COMPONENT_COMPUTE, .stage = i, .index = k,
                       .g = stp__team_size(m, i), .u = 1, .v = 1};
  c->snd = malloc(sizeof *c->snd);
  if (!c->snd)
    return STP_ENOMEM;
  c->snd[0] = stp__team_member(m, i, k);
  return STP_OK;
}

static stp_status add_transfer(const stp_mapping *m, size_t i, size_t j, stp_component *c) {
  stp_transfer_shape sh = stp__transfer_shape(m, i);
  *c = (stp_component){.kind = STP_COMPONENT_TRANSFER, .stage = i, .index = j, .g = sh.g,
                       .u = sh.u, .v = sh.v};
  c->snd = stp__malloc_array(sh.u, sizeof *c->snd);
  c->rcv = stp__malloc_array(sh.v, sizeof *c->rcv);
  if (!c->snd || !c->rcv)
    return STP_ENOMEM;
  for (size_t a = 0; a < sh.u; a++)
    c->snd[a] = stp__transfer_sender(m, i, j, sh, a);
  for (size_t b = 0; b < sh.v; b++)
    c->rcv[b] = stp__transfer_receiver(m, i, j, sh, b);
  return STP_OK;
}

stp_status stp__components_build(const stp_mapping *m, stp_component_set *out, stp_error *err) {
  out->n = 0;
  out->c = stp__calloc(component_count(m), sizeof *out->c);
  if (!out->c)
    return stp__oom(err, "listing components");
  stp_status s = STP_OK;
  for (size_t i = 0; i < m->nstages && s == STP_OK; i++) {
    for (size_t k = 0; k < stp__team_size(m, i) && s == STP_OK; k++)
      s = add_compute(m, i, k, &out->c[out->n++]);
    if (i + 1 < m->nstages)
      for (size_t j = 0; j < stp__transfer_shape(m, i).g && s == STP_OK; j++)
        s = add_transfer(m, i, j, &out->c[out->n++]);
  }
  if (s != STP_OK) {
    stp__components_free(out);
    return stp__oom(err, "listing components");
  }
  return STP_OK;
}

/* Sender a fires the transitions k = a + t*u (t < v), one per receiver
 * k mod v: its row of link times is looked up at once. */
stp_status stp__pattern_times(const stp_mapping *m, const stp_component *c, double **out,
                              stp_error *err) {
  size_t u = c->u, v = c->v;
  *out = stp__malloc_array(u * v, sizeof **out);
  double *row = stp__malloc_array(v, sizeof *row);
  if (!*out || !row) {
    free(*out);
    free(row);
    *out = NULL;
    return stp__oom(err, "building a transfer pattern");
  }
  for (size_t a = 0; a < u; a++) {
    stp__comm_times_to(m, c->snd[a], c->rcv, v, row);
    for (size_t k = a; k < u * v; k += u)
      (*out)[k] = row[k % v];
  }
  free(row);
  return STP_OK;
}

stp_status stp__pattern_graph(const stp_component *c, const double *times, stp_digraph **out,
                              stp_error *err) {
  size_t u = c->u, v = c->v, n = u * v;
  stp_edge_list el = {0};
  STP_CHECK(stp__edges_reserve(&el, 2 * n, err));
  for (size_t a = 0; a < u; a++) /* sender a fires k = a, a+u, ..., a+(v-1)u */
    for (size_t t = 0; t < v; t++) {
      size_t k = a + t * u, next = t + 1 < v ? k + u : a;
      stp__edges_push(&el, (uint32_t)k, (uint32_t)next, times[k], t + 1 == v);
    }
  for (size_t b = 0; b < v; b++) /* receiver b fires k = b, b+v, ..., b+(u-1)v */
    for (size_t t = 0; t < u; t++) {
      size_t k = b + t * v, next = t + 1 < u ? k + v : b;
      stp__edges_push(&el, (uint32_t)k, (uint32_t)next, times[k], t + 1 == u);
    }
  return stp__digraph_from_edges((uint32_t)n, &el, out, err);
}

stp_status stp__pattern_check_size(const stp_mapping *m, const stp_component *c,
                                   uint64_t max_transitions, stp_error *err) {
  uint64_t n = (uint64_t)c->u * c->v;
  if (n <= max_transitions && n < STP_DIGRAPH_MAX_NODES)
    return STP_OK;
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_TRANSITIONS, n, max_transitions, n},
                         "%s: the transfer pattern after stage \"%s\" has %zu x %zu = %llu "
                         "transitions, above the limit of %llu",
                         m->file, m->stages[c->stage].name, c->u, c->v, (unsigned long long)n,
                         (unsigned long long)max_transitions);
}

stp_status stp__pattern_det_rate(size_t u, size_t v, const double *times, const stp_options *o,
                                 double *rate, stp_error *err) {
  stp_digraph *g = NULL;
  stp_status s = stp__pattern_graph(&(stp_component){.u = u, .v = v}, times, &g, err);
  stp_mcr_result r = {0};
  if (s == STP_OK)
    s = stp__mcr_howard(
        g, &(stp_mcr_options){.cancel = o->control.cancel, .progress = o->control.progress}, &r,
        err);
  if (s == STP_OK)
    *rate = (double)(u * v) / r.ratio;
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
  return s;
}

stp_status stp__component_det_throughput(const stp_mapping *m, const stp_component *c,
                                         const stp_options *o, double *rho, stp_error *err) {
  if (c->kind == STP_COMPONENT_COMPUTE) {
    *rho = (double)c->g / stp__comp_time(m, c->snd[0]);
    return STP_OK;
  }
  STP_CHECK(stp__pattern_check_size(m, c, o->max_transitions, err));
  double bytes = (double)c->u * (double)c->v * STP_PATTERN_DET_BYTES;
  uint64_t budget = stp_options_memory_budget(o);
  if (bytes > (double)budget)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget, 0},
                     "%s: the transfer pattern after stage \"%s\" (%zu x %zu transitions) needs "
                     "about %.3g GiB for its deterministic throughput, above the memory budget "
                     "of %.3g GiB", m->file, m->stages[c->stage].name, c->u, c->v,
                     bytes / 1073741824.0, (double)budget / 1073741824.0);
  double *times, rate = 0;
  STP_CHECK(stp__pattern_times(m, c, &times, err));
  stp_status s = stp__pattern_det_rate(c->u, c->v, times, o, &rate, err);
  if (s == STP_OK)
    *rho = (double)c->g * rate;
  free(times);
  return s;
}
