/* exponential.c: throughput when every time is exponential with the mean the
 * mapping gives (docs/design.md 4).  Overlap: min over components of closed forms
 * (computations; homogeneous transfers, Theorem 4) or of the folded pattern's
 * Markov chain.  Strict: the chain of the full event graph.  A result beyond
 * the limits is reported as unavailable with a reason, not as an error. */
#include "models/pipeline/exponential.h"

#include "base/core.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exponential value may exceed the deterministic one only by rounding. */
#define STP_BOUND_RTOL 1e-9

/* All links of the pattern have the same rate, up to rounding in how the
 * file wrote them (0.3 vs 3 * 0.1): Theorem 4 with times[0] is then exact
 * to the same relative precision. */
#define STP_HOMOGENEOUS_RTOL 1e-12

static bool homogeneous(const double *times, size_t n) {
  for (size_t k = 1; k < n; k++)
    if (!stp__close(times[k], times[0], STP_HOMOGENEOUS_RTOL, 0))
      return false;
  return true;
}

typedef struct exp_acc {
  bool used_closed, used_ctmc;
  uint64_t states;
  double residual;
  const char *solver; /* of the largest chain */
  const char *solver_reason;
  size_t sweeps;
} exp_acc;

static void note_ctmc(exp_acc *acc, const stp_ctmc_info *info) {
  acc->used_ctmc = true;
  if (info->states > acc->states || !acc->solver) {
    acc->states = info->states;
    acc->solver = info->solver;
    acc->solver_reason = info->solver_reason;
    acc->sweeps = info->iterations;
  }
  if (info->residual > acc->residual)
    acc->residual = info->residual;
}

stp_status stp__pattern_exp_value(size_t u, size_t v, const double *times, const stp_options *o,
                                  double *rate, const char **method, stp_ctmc_info *info,
                                  stp_error *err) {
  size_t uv = u * v;
  if (homogeneous(times, uv) && o->exp_method != STP_EXP_CTMC) {
    /* Theorem 4: inner rate u*v*lambda / (u+v-1). */
    *rate = (double)uv / times[0] / (double)(u + v - 1);
    *method = "closed-form";
    return STP_OK;
  }
  if (o->exp_method == STP_EXP_CLOSED_FORM)
    return stp__fail(err, STP_ELIMIT, "no closed form: the links have different rates");
  *method = "ctmc";
  return stp__pattern_exp_rate(u, v, times, o, rate, info, err);
}

static stp_status transfer_exp(const stp_mapping *m, const stp_component *c, const stp_options *o,
                               stp_component_result *cr, exp_acc *acc, stp_error *err) {
  double *times;
  STP_CHECK(stp__pattern_times(m, c, &times, err));
  stp_status s;
  if (o->exp_method == STP_EXP_CLOSED_FORM && !homogeneous(times, c->u * c->v)) {
    s = stp__fail(err, STP_ELIMIT,
                  "no closed form for the heterogeneous transfer component %zu after stage "
                  "\"%s\" (its links have different rates): its Markov chain solves it",
                  c->index, m->stages[c->stage].name);
  } else {
    stp_ctmc_info info = {0};
    double rate;
    const char *method = NULL;
    s = stp__pattern_exp_value(c->u, c->v, times, o, &rate, &method, &info, err);
    if (s == STP_OK) {
      cr->exp_throughput = (double)c->g * rate;
      cr->exp_method = method;
      if (info.states) {
        cr->states = info.states;
        cr->residual = info.residual;
        note_ctmc(acc, &info);
      } else {
        acc->used_closed = true;
      }
    } else { /* a limit (reported as a reason) or a failed solve: say which component */
      stp_error_prefix(err, "transfer component %zu after stage \"%s\"", c->index,
                       m->stages[c->stage].name);
    }
  }
  free(times);
  return s;
}

static stp_status overlap_exp(const stp_mapping *m, const stp_component_set *cs,
                              const stp_options *o, stp_result *r, exp_acc *acc,
                              stp_error *err) {
  double best = INFINITY;
  for (size_t k = 0; k < cs->n; k++) {
    const stp_component *c = &cs->c[k];
    stp_component_result *cr = &r->components[k];
    if (c->kind == STP_COMPONENT_COMPUTE) {
      /* One processor in isolation: its rate, R_i of them in turn. */
      cr->exp_throughput = (double)c->g / stp__comp_time(m, c->snd[0]);
      cr->exp_method = "closed-form";
      acc->used_closed = true;
    } else {
      STP_CHECK(transfer_exp(m, c, o, cr, acc, err));
    }
    if (cr->exp_throughput < best)
      best = cr->exp_throughput;
  }
  for (size_t k = 0; k < cs->n; k++)
    r->components[k].limits_exp =
        stp__close(r->components[k].exp_throughput, best, 1e-9, 0);
  r->exp_throughput = best;
  return STP_OK;
}

static const char *method_name(const exp_acc *acc) {
  if (acc->used_ctmc && acc->used_closed)
    return "closed-form+ctmc";
  return acc->used_ctmc ? "ctmc" : "closed-form";
}

static stp_status unavailable(stp_result *r, const char *reason, stp_error *err) {
  r->exp_available = 0;
  r->exp_throughput = r->exp_period = r->lower = NAN;
  free(r->exp_reason);
  r->exp_reason = stp__strdup(reason);
  return r->exp_reason ? STP_OK : stp__oom(err, "recording a reason");
}

stp_status stp__exp_evaluate(const stp_mapping *m, stp_model model, const stp_component_set *cs,
                             const stp_options *o, stp_result *r, stp_error *err) {
  if (o->exp_method == STP_EXP_NONE)
    return unavailable(r, "not requested", err);
  exp_acc acc = {0};
  stp_error local = {0};
  stp_status s;
  if (model == STP_MODEL_OVERLAP) {
    s = overlap_exp(m, cs, o, r, &acc, &local);
  } else {
    stp_ctmc_info info = {0};
    s = stp__strict_exp_throughput(m, o, &r->exp_throughput, &info, &local);
    if (s == STP_OK)
      note_ctmc(&acc, &info);
  }
  if (s == STP_ELIMIT) { /* beyond the limits: a reason, not a failure */
    r->exp_limit = local.limit;
    return unavailable(r, local.message, err);
  }
  if (s != STP_OK) {
    if (err)
      *err = local;
    return s;
  }
  if (r->exp_throughput > r->det_throughput * (1 + STP_BOUND_RTOL))
    return stp__fail(err, STP_ENUMERIC,
                     "%s: the exponential throughput %.17g exceeds the deterministic one %.17g; "
                     "this contradicts the theory and is a bug",
                     m->file, r->exp_throughput, r->det_throughput);
  r->exp_available = 1;
  r->exp_period = 1.0 / r->exp_throughput;
  r->exp_states = acc.states;
  r->exp_residual = acc.residual;
  r->exp_solver = acc.solver;
  r->exp_solver_reason = acc.solver_reason;
  r->exp_sweeps = acc.sweeps;
  r->lower = r->exp_throughput;
  r->exp_method = stp__strdup(method_name(&acc));
  return r->exp_method ? STP_OK : stp__oom(err, "recording the method");
}
