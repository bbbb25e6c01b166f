/* fuzz_check.h: the checks every fuzz target makes of the results it gets,
 * not only that nothing crashed (issue 26): every value finite, every
 * interval ordered, and the N.B.U.E. order between a deterministic value and
 * the same quantity under random times of the same means.  The latter is
 * Jensen's inequality over the (max,+) recurrence (docs/design.md): with
 * random times a makespan can only grow and a throughput only drop, so the
 * deterministic value and the exact value under exp or any phase-type law
 * are two computations that must agree on a side.  A failed check prints
 * what failed and aborts, which libFuzzer reports as a finding. */
#ifndef STP_FUZZ_CHECK_H
#define STP_FUZZ_CHECK_H

#include "streamtp.h"
#include "streamtp_graph.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Relative slack of comparisons between values of different solvers (the
 * stationary solves stop at a scaled residual near 1e-10). */
#define FUZZ_SLACK 1e-6

/* The input as the file at path (the targets that read files: row files,
 * sample files); false when it cannot be written (the input is skipped). */
static inline bool fuzz_write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  fwrite(data, 1, size, f);
  fclose(f);
  return true;
}

static inline void fuzz_fail(const char *what, double a, double b) {
  fprintf(stderr, "fuzz check failed: %s (%.17g, %.17g)\n", what, a, b);
  abort();
}

/* A refusal must say why. */
static inline void fuzz_refusal(const stp_error *err) {
  if (!err->message[0])
    fuzz_fail("a refusal without a message", (double)err->status, 0);
}

static inline void fuzz_finite(const char *what, double x) {
  if (!isfinite(x))
    fuzz_fail(what, x, 0);
}

/* a <= b up to the slack, both finite. */
static inline void fuzz_le(const char *what, double a, double b) {
  fuzz_finite(what, a);
  fuzz_finite(what, b);
  if (!(a <= b + FUZZ_SLACK * fabs(b) + 1e-300))
    fuzz_fail(what, a, b);
}

/* a == b up to the slack. */
static inline void fuzz_near(const char *what, double a, double b) {
  fuzz_le(what, a, b);
  fuzz_le(what, b, a);
}

/* An interval whose ends may be NaN (missing) but are finite and ordered
 * when present. */
static inline void fuzz_interval(const char *what, double lo, double hi) {
  if (!isnan(lo))
    fuzz_finite(what, lo);
  if (!isnan(hi))
    fuzz_finite(what, hi);
  if (!isnan(lo) && !isnan(hi))
    fuzz_le(what, lo, hi);
}

/* stp_graph_analyze's result: DAG makespans det <= exp, det <= law; TEG
 * throughputs exp <= det, law <= det; the interval ordered. */
static inline void fuzz_check_graph_result(const stp_graph_result *r) {
  if (r->is_dag) {
    fuzz_le("DAG: deterministic makespan >= 0", 0, r->det_makespan);
    if (r->exp_computed)
      fuzz_le("DAG: deterministic makespan <= exponential", r->det_makespan, r->exp_value);
    if (r->law_computed)
      fuzz_le("DAG: deterministic makespan <= phase-type", r->det_makespan, r->law_value);
  } else {
    fuzz_finite("TEG: deterministic period", r->det_period);
    if (!(r->det_throughput > 0))
      fuzz_fail("TEG: deterministic throughput > 0", r->det_throughput, 0);
    fuzz_finite("TEG: deterministic throughput", r->det_throughput);
    if (r->exp_computed)
      fuzz_le("TEG: exponential throughput <= deterministic", r->exp_value, r->det_throughput);
    if (r->law_computed)
      fuzz_le("TEG: phase-type throughput <= deterministic", r->law_value, r->det_throughput);
  }
  if (r->exp_computed)
    fuzz_le("exponential value >= 0", 0, r->exp_value);
  if (r->law_computed)
    fuzz_le("phase-type value >= 0", 0, r->law_value);
  fuzz_interval("graph N.B.U.E. interval", r->bound_lower, r->bound_upper);
}

/* stp_graph_simulate's result: finite, the interval around the mean. */
static inline void fuzz_check_graph_sim(const stp_graph_sim_result *s) {
  fuzz_le("simulation: mean >= 0", 0, s->mean);
  fuzz_le("simulation: stddev >= 0", 0, s->stddev);
  fuzz_le("simulation: ci95 lower <= mean", s->ci95_lo, s->mean);
  fuzz_le("simulation: mean <= ci95 upper", s->mean, s->ci95_hi);
}

/* A short Monte Carlo of g (runs runs of `firings` firings): checked, or
 * refused with a message. */
static inline void fuzz_simulate_graph(const stp_graph *g, uint64_t runs, uint64_t firings) {
  stp_graph_sim_options so;
  stp_graph_sim_options_init(&so);
  so.runs = runs, so.firings = firings;
  stp_graph_sim_result s;
  stp_error err = {0};
  if (stp_graph_simulate(g, &so, &s, &err) == STP_OK)
    fuzz_check_graph_sim(&s);
  else
    fuzz_refusal(&err);
}

/* stp_evaluate's result: throughputs finite and positive, period = 1 /
 * throughput, exp <= det (N.B.U.E.), every component likewise. */
static inline void fuzz_check_eval_result(const stp_result *r) {
  if (!(r->det_throughput > 0))
    fuzz_fail("eval: deterministic throughput > 0", r->det_throughput, 0);
  fuzz_finite("eval: deterministic throughput", r->det_throughput);
  fuzz_near("eval: period = 1 / throughput", r->det_period * r->det_throughput, 1);
  if (r->exp_available) {
    fuzz_le("eval: exponential throughput > 0", 0, r->exp_throughput);
    fuzz_le("eval: exponential <= deterministic", r->exp_throughput, r->det_throughput);
  }
  fuzz_interval("eval: N.B.U.E. interval", r->lower, r->upper);
  for (size_t k = 0; k < r->ncomponents; k++) {
    const stp_component_result *c = &r->components[k];
    fuzz_finite("eval: component deterministic throughput", c->det_throughput);
    fuzz_le("eval: the mapping is no faster than a component", r->det_throughput,
            c->det_throughput);
    if (!isnan(c->exp_throughput))
      fuzz_le("eval: component exponential <= deterministic", c->exp_throughput,
              c->det_throughput);
  }
  if (r->exact_law.available)
    fuzz_le("eval: phase-type <= deterministic", r->exact_law.throughput, r->det_throughput);
}

#endif
