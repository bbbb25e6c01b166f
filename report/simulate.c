/* simulate.c: the record of a Monte Carlo run (streamtp simulate) and its
 * text report: "simulation", "bounds" with where the interval lies, the
 * exact value under the same laws when it was computed. */
#include "report/record.h"

#include "base/numfmt.h"

#include <math.h>
#include <string.h>

static json_t *bounds_json(const stp_sim_result *r) {
  json_t *b = json_pack("{s:o,s:o,s:s,s:o}", "lower", stp__jnum(r->lower), "upper",
                        stp__jnum(r->upper), "position", r->position, "relative",
                        stp__jnum(r->relative));
  if (b && r->bounds_reason)
    stp__jset(b, "reason", stp__jstr(r->bounds_reason));
  return b;
}

/* The exact throughput under the simulated laws, and where it lies relative
 * to the 95 % interval ("below", "within", "above" it). */
static const char *exact_position(const stp_sim_result *r) {
  return stp_interval_position(r->law_exact, r->law_exact, r->ci_low, r->ci_high);
}

static json_t *exact_json(const stp_sim_result *r) {
  return json_pack("{s:o,s:o,s:o,s:o,s:s}", "law", stp__jstr(r->law), "throughput",
                   stp__jnum(r->law_exact), "period", stp__jnum(1 / r->law_exact), "states",
                   stp__ju64(r->law_states), "position", exact_position(r));
}

/* The Monte Carlo estimate, under the glossary's "simulation" key. */
static json_t *simulation_json(const stp_sim_result *r) {
  json_t *o = json_object();
  stp__jset(o, "law", stp__jstr(r->law));
  stp__jset(o, "throughput", stp__jnum(r->throughput));
  stp__jset(o, "period", stp__jnum(r->period));
  stp__jset(o, "ci95", json_pack("[o,o]", stp__jnum(r->ci_low), stp__jnum(r->ci_high)));
  stp__jset(o, "stddev", stp__jnum(r->stddev));
  stp__jset(o, "method", json_string(r->replicated ? "replications" : "batch-means"));
  stp__jset(o, r->replicated ? "replications" : "batches", stp__ju64(r->groups));
  stp__jset(o, "datasets", stp__ju64(r->datasets));
  stp__jset(o, "warmup", stp__ju64(r->warmup));
  stp__jset(o, "simulated", stp__ju64(r->simulated));
  stp__jset(o, "firings", stp__ju64(r->firings));
  stp__jset(o, "seed", stp__ju64(r->seed));
  stp__jset(o, "position", json_string(r->position));
  stp__jset(o, "relative", stp__jnum(r->relative));
  return o;
}

static double per(double n, double seconds) { return seconds > 0 ? n / seconds : NAN; }

stp_status stp_sim_result_json(const stp_mapping *m, const stp_sim_result *r, stp_record **out,
                               stp_error *err) {
  json_t *o = json_object();
  stp__jset(o, "file", stp__jstr(stp_mapping_file(m)));
  stp__jset(o, "name", stp__jstr(stp_mapping_name(m)));
  stp__jset(o, "model", json_string(stp_model_name(r->model)));
  stp__jset(o, "law", stp__jstr(r->law));
  stp__jset(o, "laws", stp__laws_json(m, r->column_law, r->ncolumns));
  stp__jset(o, "associated", json_boolean(r->associated));
  stp__jset(o, "resource_law", stp__jstr(r->resource_law));
  stp__jset(o, "nbue", r->nbue < 0 ? json_null() : json_boolean(r->nbue));
  stp__jset(o, "simulation", simulation_json(r));
  stp__jset(o, "bounds", bounds_json(r));
  if (isfinite(r->law_exact))
    stp__jset(o, "exact_law", exact_json(r));
  if (r->utilization)
    stp__jset(o, "utilization", stp__utilization_json(r->utilization));
  if (r->latency)
    stp__jset(o, "latency", stp__latency_json(r->latency, &r->sim_latency));
  stp__jset(o, "seconds", stp__jnum(r->seconds));
  stp__jset(o, "cpu_seconds", stp__jnum(r->cpu_seconds));
  stp__jset(o, "bounds_seconds", stp__jnum(r->bounds_seconds));
  stp__jset(o, "firings_per_second", stp__jnum(per((double)r->firings, r->seconds)));
  stp__jset(o, "firings_per_cpu_second", stp__jnum(per((double)r->firings, r->cpu_seconds)));
  stp__record_status(o, STP_OK, NULL);
  return stp__record_new("simulate", o, out, err);
}

/* CSV: JSON paths. */
const char *const stp__sim_csv[] = {
    "file", "name", "model", "law", "associated", "resource_law", "nbue",
    "simulation.throughput", "simulation.period", "simulation.ci95", "simulation.stddev",
    "simulation.method", "simulation.batches", "simulation.replications",
    "simulation.datasets", "simulation.warmup", "simulation.simulated", "simulation.firings",
    "simulation.seed", "simulation.position", "simulation.relative", "bounds.lower",
    "bounds.upper", "bounds.reason", "seconds", "status", "error", NULL};
/* The bounds as eval's table has them: det before exp. */
const char *const stp__sim_table[] = {"file", "model", "law", "simulation.throughput",
                                      "simulation.ci95", "bounds.upper", "bounds.lower",
                                      "simulation.position", NULL};
const char *const stp__sim_labels[] = {"file", "model", "law", "throughput", "95% CI",
                                       "det bound", "exp bound", "position", NULL};

/* ---- the text report ---------------------------------------------------------------- */
/* A bound, or "?" when it is unknown. */
static const char *bound_text(double x, char *buf, size_t n) {
  if (!isfinite(x))
    return "?";
  stp__snprintf(buf, n, "%.8g", x);
  return buf;
}

static void bounds_text(FILE *f, const json_t *b, const json_t *nbue) {
  static const char *const words[] = {
      "the laws are not all N.B.U.E.: the bounds need not hold",
      "the laws are N.B.U.E.: the throughput lies within the bounds",
      "N.B.U.E. unknown for these laws"};
  char lo[32], hi[32];
  fprintf(f, "  bounds         [%s, %s] (exponential, deterministic): %s",
          bound_text(stp__jgetd(b, "lower"), lo, sizeof lo),
          bound_text(stp__jgetd(b, "upper"), hi, sizeof hi), stp__jgets(b, "position"));
  if (isfinite(stp__jgetd(b, "relative")))
    stp__fprintf(f, ", at %.3f from exponential (0) to deterministic (1)",
                 stp__jgetd(b, "relative"));
  fputc('\n', f);
  if (stp__jgets(b, "reason"))
    fprintf(f, "                 missing: %s\n", stp__jgets(b, "reason"));
  bool has_lo = isfinite(stp__jgetd(b, "lower")), has_hi = isfinite(stp__jgetd(b, "upper"));
  if (json_is_true(nbue) && has_lo != has_hi) /* one end only: say which holds */
    fprintf(f, "                 the laws are N.B.U.E.: the throughput is at %s %s bound (the "
               "%s one is unknown)\n", has_hi ? "most the" : "least the",
            has_hi ? "deterministic" : "exponential", has_hi ? "exponential" : "deterministic");
  else if (has_lo || !json_is_true(nbue)) /* no bound to lie within: nothing to say of it */
    fprintf(f, "                 %s\n", words[json_is_null(nbue) ? 2 : json_is_true(nbue)]);
}

void stp__text_simulate(FILE *f, const json_t *rec, size_t index) {
  const json_t *sim = stp__jget(rec, "simulation");
  bool associated = json_is_true(stp__jget(rec, "associated"));
  bool replicated = stp__jget(sim, "replications") != NULL;
  uint64_t groups = stp__jgetu(sim, replicated ? "replications" : "batches");
  uint64_t datasets = stp__jgetu(sim, "datasets"), firings = stp__jgetu(sim, "firings");
  double seconds = stp__jgetd(rec, "seconds");
  if (index)
    fputc('\n', f);
  fprintf(f, "%s: %s, %s model, law %s (%s)\n", stp__jgets(rec, "file"), stp__jgets(rec, "name"),
          stp__jgets(rec, "model"), stp__jgets(rec, "law"),
          associated ? "associated" : "independent");
  if (associated)
    fprintf(f, "  resource law   %s\n", stp__jgets(rec, "resource_law"));
  if (stp__laws_mixed(stp__jget(rec, "laws"), stp__jgets(rec, "law")))
    stp__laws_text(f, "  laws           ", stp__jget(rec, "laws"));
  stp__fprintf(f, "  throughput     %.8g (period %.8g)\n", stp__jgetd(sim, "throughput"),
               stp__jgetd(sim, "period"));
  const json_t *ci = stp__jget(sim, "ci95");
  stp__fprintf(f, "  95%% CI         [%.8g, %.8g], %s of %llu data sets\n",
               json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
               replicated ? "independent replications" : "batch means",
               (unsigned long long)(groups ? datasets / groups : 0));
  stp__fprintf(f, "  stddev         %.3g across %llu %s\n", stp__jgetd(sim, "stddev"),
               (unsigned long long)groups, replicated ? "replications" : "batches");
  fprintf(f, "  data sets      %llu measured, %llu warm-up per run (%llu simulated, %llu "
             "firings, seed %llu)\n",
          (unsigned long long)datasets, (unsigned long long)stp__jgetu(sim, "warmup"),
          (unsigned long long)stp__jgetu(sim, "simulated"), (unsigned long long)firings,
          (unsigned long long)stp__jgetu(sim, "seed"));
  bounds_text(f, stp__jget(rec, "bounds"), stp__jget(rec, "nbue"));
  const json_t *ex = stp__jget(rec, "exact_law");
  if (ex)
    stp__fprintf(f, "  exact          %.8g under these laws (ctmc, %llu states): %s the 95%% CI\n",
                 stp__jgetd(ex, "throughput"), (unsigned long long)stp__jgetu(ex, "states"),
                 stp__jgets(ex, "position"));
  stp__fprintf(f, "  time           %.3f s (%.1f million firings/s), bounds %.3f s\n", seconds,
               seconds > 0 ? 1e-6 * (double)firings / seconds : 0.0,
               stp__jgetd(rec, "bounds_seconds"));
  if (stp__jget(rec, "utilization"))
    stp__utilization_text(f, stp__jget(rec, "utilization"));
  if (stp__jget(rec, "latency"))
    stp__latency_text(f, stp__jget(rec, "latency"));
}
