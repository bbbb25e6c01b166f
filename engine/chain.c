/* chain.c: what every Markov chain of an event graph shares, whoever built
 * it: solving it for the rate of its counted firings, writing it for other
 * tools (MatrixMarket generator, CSV of the states), and the public
 * inspection interface of streamtp_chain.h. */
#include "engine/chain.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "solvers/generator.h"
#include "solvers/stationary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void stp__chain_free(stp_chain *c) {
  if (!c)
    return;
  stp__csr_free(c->moves);
  free(c->event);
  free(c->counted);
  free(c->description);
  free(c);
}

void stp_chain_free(stp_chain *c) { stp__chain_free(c); }
int64_t stp_chain_states(const stp_chain *c) { return c ? c->moves->nrows : 0; }
int64_t stp_chain_moves(const stp_chain *c) { return c ? stp__csr_nnz(c->moves) : 0; }
double stp_chain_build_seconds(const stp_chain *c) { return c ? c->seconds_build : 0; }
const char *stp_chain_description(const stp_chain *c) {
  return c && c->description ? c->description : "a Markov chain";
}

/* Rate of the counted firings out of state s. */
double stp__chain_counted_rate(const stp_chain *c, int64_t s) {
  double r = 0;
  for (int64_t e = c->moves->p[s]; e < c->moves->p[s + 1]; e++)
    if (c->counted[c->event[e]])
      r += c->moves->x[e];
  return r;
}

static uint64_t generator_nonzeros(const stp_csr *moves) {
  uint64_t nz = 0;
  for (int64_t s = 0; s < moves->nrows; s++)
    for (int64_t e = moves->p[s]; e < moves->p[s + 1]; e++)
      nz += moves->j[e] != s;
  return nz;
}

/* ncounted x the smallest long-run firing rate of a counted transition. */
static stp_status data_set_rate(const stp_chain *c, const double *pi, double *rate,
                                stp_error *err) {
  double *fire = stp__calloc(c->nevents, sizeof *fire);
  if (!fire)
    return stp__oom(err, "computing firing rates");
  for (int64_t s = 0; s < c->moves->nrows; s++)
    for (int64_t e = c->moves->p[s]; e < c->moves->p[s + 1]; e++)
      fire[c->event[e]] += pi[s] * c->moves->x[e];
  double low = INFINITY;
  uint32_t ncounted = 0;
  for (uint32_t t = 0; t < c->nevents; t++)
    if (c->counted[t]) {
      low = fmin(low, fire[t]);
      ncounted++;
    }
  free(fire);
  *rate = (double)ncounted * low;
  return STP_OK;
}

stp_status stp__chain_solve(const stp_chain *c, const stp_options *o, stp_stationary_method method,
                            double **pi, double *rate, stp_ctmc_info *info, stp_error *err) {
  stp_stationary_options so;
  stp__stationary_options_init(&so);
  so.method = method;
  so.tolerance = o->solver_tolerance;
  so.cancel = o->control.cancel;
  so.max_factor_bytes = (double)stp_options_memory_budget(o); /* 0: none */
  stp_stationary_info si;
  STP_CHECK(stp__stationary_solve(c->moves, &so, pi, &si, err));
  stp_status s = data_set_rate(c, *pi, rate, err);
  if (s != STP_OK) {
    free(*pi);
    *pi = NULL;
    return s;
  }
  *info = (stp_ctmc_info){.states = (uint64_t)c->moves->nrows,
                          .nonzeros = generator_nonzeros(c->moves),
                          .residual = si.residual,
                          .solver = si.solver,
                          .solver_reason = si.reason,
                          .iterations = si.iterations,
                          .period = si.period,
                          .seconds_build = c->seconds_build,
                          .seconds_solve = si.seconds};
  return STP_OK;
}

static stp_status write_failed(stp_error *err, const char *what) {
  return stp__fail(err, STP_EIO, "cannot write the %s", what);
}

stp_status stp__chain_write_mtx(const stp_chain *c, FILE *f, const char *comment,
                                stp_error *err) {
  const stp_csr *q = c->moves;
  int64_t n = q->nrows;
  fputs("%%MatrixMarket matrix coordinate real general\n", f);
  for (const char *line = comment; line && *line;) {
    const char *nl = strchr(line, '\n');
    int len = nl ? (int)(nl - line) : (int)strlen(line);
    fprintf(f, "%% %.*s\n", len, line);
    line = nl ? nl + 1 : line + len;
  }
  fprintf(f, "%lld %lld %llu\n", (long long)n, (long long)n,
          (unsigned long long)(generator_nonzeros(q) + (uint64_t)n));
  for (int64_t s = 0; s < n; s++) {
    fprintf(f, "%lld %lld %.17g\n", (long long)s + 1, (long long)s + 1,
            -stp__generator_out_rate(q, s));
    for (int64_t e = q->p[s]; e < q->p[s + 1]; e++)
      if (q->j[e] != s)
        fprintf(f, "%lld %lld %.17g\n", (long long)s + 1, (long long)q->j[e] + 1, q->x[e]);
  }
  return ferror(f) ? write_failed(err, "MatrixMarket file") : STP_OK;
}

stp_status stp__chain_write_states(const stp_chain *c, FILE *f, stp_error *err) {
  const stp_csr *q = c->moves;
  uint32_t *level, period;
  STP_CHECK(stp__generator_levels(q, &level, &period, err));
  fputs("state,level,throughput_rate,enabled\n", f);
  for (int64_t s = 0; s < q->nrows; s++) {
    fprintf(f, "%lld,%u,%.17g,", (long long)s, level[s], stp__chain_counted_rate(c, s));
    for (int64_t e = q->p[s]; e < q->p[s + 1]; e++)
      fprintf(f, "%s%u", e > q->p[s] ? " " : "", c->event[e]);
    fputc('\n', f);
  }
  free(level);
  return ferror(f) ? write_failed(err, "state file") : STP_OK;
}

static stp_stationary_method stationary_method(stp_solver s) {
  switch (s) {
  case STP_SOLVER_DIRECT:
    return STP_STATIONARY_DIRECT;
  case STP_SOLVER_ITERATIVE:
    return STP_STATIONARY_ITERATIVE;
  default:
    return STP_STATIONARY_AUTO;
  }
}

stp_status stp_chain_solve(const stp_chain *c, const stp_options *o, stp_solver method,
                           stp_chain_solution *out, stp_error *err) {
  if (!c || !out)
    return stp__fail(err, STP_EINVAL, "stp_chain_solve: chain or out is NULL");
  stp_options defaults;
  if (!o) {
    stp_options_init(&defaults);
    o = &defaults;
  }
  double *pi = NULL, rate = 0;
  stp_ctmc_info info = {0};
  STP_CHECK(stp__chain_solve(c, o, stationary_method(method), &pi, &rate, &info, err));
  free(pi);
  *out = (stp_chain_solution){.rate = rate, .throughput = c->scale * rate,
                              .residual = info.residual, .solver = info.solver,
                              .iterations = info.iterations, .levels = info.period,
                              .seconds = info.seconds_solve};
  return STP_OK;
}

stp_status stp_chain_write_mtx(const stp_chain *c, FILE *f, const char *comment,
                               stp_error *err) {
  if (!c || !f)
    return stp__fail(err, STP_EINVAL, "stp_chain_write_mtx: chain or file is NULL");
  void *locale = stp__c_locale_enter(); /* numbers print with a '.' in any locale */
  stp_status s = stp__chain_write_mtx(c, f, comment, err);
  stp__c_locale_leave(locale);
  return s;
}

stp_status stp_chain_write_states(const stp_chain *c, FILE *f, stp_error *err) {
  if (!c || !f)
    return stp__fail(err, STP_EINVAL, "stp_chain_write_states: chain or file is NULL");
  void *locale = stp__c_locale_enter();
  stp_status s = stp__chain_write_states(c, f, err);
  stp__c_locale_leave(locale);
  return s;
}
