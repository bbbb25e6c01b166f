/* deterministic.c: throughput with constant times (docs/design.md 3) and the
 * resource cycle-times that give M_ct and the critical resource. */
#include "base/core.h"
#include "models/pipeline/deterministic.h"
#include "models/pipeline/teg.h"
#include "solvers/mcr_howard.h"

#include <math.h>
#include <stdlib.h>

stp_status stp__cycle_times(const stp_mapping *m, const stp_component_set *cs,
                            stp_cycle_times **ct, stp_error *err) {
  stp_cycle_times *t = stp__calloc(m->nprocs, sizeof *t);
  if (!t)
    return stp__oom(err, "computing cycle-times");
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    if (c->kind == STP_COMPONENT_COMPUTE) {
      t[c->snd[0]].comp = stp__comp_time(m, c->snd[0]) / (double)c->g;
      continue;
    }
    /* Each sender talks once to each receiver of its component per
     * g*u*v data sets (gcd(u, v) = 1). */
    double per = (double)c->g * (double)c->u * (double)c->v;
    double *row = stp__malloc_array(c->v, sizeof *row);
    if (!row) {
      free(t);
      return stp__oom(err, "computing cycle-times");
    }
    for (size_t a = 0; a < c->u; a++) {
      stp__comm_times_to(m, c->snd[a], c->rcv, c->v, row);
      for (size_t b = 0; b < c->v; b++) {
        double d = row[b] / per;
        t[c->snd[a]].out += d;
        t[c->rcv[b]].in += d;
      }
    }
    free(row);
  }
  *ct = t;
  return STP_OK;
}

stp_status stp__det_overlap(const stp_mapping *m, const stp_component_set *cs,
                            const stp_options *o, double *comp_rho, double *rho, stp_error *err) {
  double best = INFINITY;
  for (size_t k = 0; k < cs->n; k++) {
    STP_CHECK(stp__component_det_throughput(m, &cs->c[k], o, &comp_rho[k], err));
    if (comp_rho[k] < best)
      best = comp_rho[k];
  }
  *rho = best;
  return STP_OK;
}

stp_status stp__det_strict(const stp_mapping *m, const stp_options *o, double *rho,
                           stp_error *err) {
  stp_teams tm = stp__teams_of(m);
  return stp__det_strict_teams(m, &tm, o, rho, err);
}

stp_status stp__det_strict_teams(const stp_mapping *m, const stp_teams *tm, const stp_options *o,
                                 double *rho, stp_error *err) {
  stp_teg *t;
  STP_CHECK(stp__teg_check_size_teams(m, tm, STP_MODEL_STRICT, o->max_transitions, err));
  STP_CHECK(stp__teg_check_memory_teams(m, tm, STP_MODEL_STRICT, stp_options_memory_budget(o),
                                        err));
  STP_CHECK(stp__teg_build_teams(m, tm, STP_MODEL_STRICT, o->max_transitions, &t, err));
  stp_mcr_result r = {0};
  stp_mcr_options mo = {.cancel = o->control.cancel, .progress = o->control.progress};
  stp_status s = stp__mcr_howard(t->g, &mo, &r, err);
  if (s == STP_OK)
    *rho = (double)t->nrows / r.ratio; /* R data sets complete per cycle time */
  else if (s == STP_EDEADLOCK && r.cycle_len) {
    char label[256];
    stp__teg_label(t, r.cycle[0], label, sizeof label);
    stp__fail(err, STP_EDEADLOCK,
              "%s: deadlock: a cycle of %zu transitions of the strict event graph holds no "
              "token (it goes through %s)",
              m->file, r.cycle_len, label);
  }
  stp__mcr_result_clear(&r);
  stp__teg_free(t);
  return s;
}
