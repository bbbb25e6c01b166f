/* reduce.c: the record of one reduction tree (streamtp reduce) and its
 * text: the tree, its schedule, the makespans, the N.B.U.E. bounds, the
 * paper's bounds and Monte Carlo; a range is a table of its records. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_reduce.h"

#include <math.h>
#include <string.h>

static json_t *exponential_json(const stp_reduce_value *v) {
  if (v->exp_reason)
    return stp__exponential_json("makespan", NAN, 0, NULL, v->exp_reason);
  return stp__exponential_json("makespan", v->exp_makespan, v->exp_states, "dag-ctmc", NULL);
}

static json_t *law_json(const char *law, const stp_reduce_value *v) {
  json_t *o = stp__law_json(law, "makespan", v->law_makespan, v->law_reason);
  if (!v->law_reason) {
    stp__jset(o, "method", json_string("dag-ctmc"));
    stp__jset(o, "states", stp__ju64(v->law_states));
  }
  return o;
}

/* The common simulation block, and where it lies in [det, exp]. */
static json_t *simulation_json(const stp_reduce_result *r, const stp_reduce_value *v) {
  const stp_graph_sim_result *s = &v->sim;
  double lo = v->makespan, hi = v->exp_makespan;
  double rel = isfinite(hi) && hi - lo > 1e-12 * hi ? (s->mean - lo) / (hi - lo) : NAN;
  json_t *o = stp__graph_sim_json(r->law, r->options.seed, s, true);
  stp__jset(o, "position", json_string(stp_interval_position(s->ci95_lo, s->ci95_hi, lo, hi)));
  stp__jset(o, "relative", stp__jnum(rel));
  return o;
}

static json_t *deterministic_json(const stp_reduce_value *v) {
  json_t *o = json_pack("{s:o}", "makespan", stp__jnum(v->makespan));
  if (o && v->critical)
    stp__jset(o, "critical_path", stp__jstrs(v->critical, v->critical_len));
  return o;
}

static json_t *arrays_json(const stp_reduce_value *v, json_t *o) {
  json_t *ch = json_array(), *ts = json_array();
  for (uint64_t i = 0; ch && ts && i + 1 < v->n; i++) {
    json_array_append_new(ch, stp__ju64(v->children[i]));
    json_array_append_new(ts, stp__jnum(v->starts[i]));
  }
  stp__jset(o, "children", ch);
  stp__jset(o, "transfer_starts", ts);
  return o;
}

/* The k-th value: a sweep keeps makespans only. */
static stp_reduce_value value_at(const stp_reduce_result *r, size_t k) {
  if (r->values)
    return r->values[k];
  return (stp_reduce_value){
      .n = r->options.n_first + k, .makespan = r->makespans[k], .exp_makespan = NAN,
      .seconds = r->sweep_seconds[k], .exp_reason = r->sweep_reason};
}

stp_status stp_reduce_json(const stp_reduce_result *r, size_t k, stp_record **out,
                           stp_error *err) {
  *out = NULL;
  if (k >= r->count)
    return stp__fail(err, STP_EINVAL, "no n = %zu among %zu", k, r->count);
  const stp_reduce_run_options *o = &r->options;
  stp_reduce_value v = value_at(r, k);
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, v.n, o->d, o->c);
  s.tree = o->tree;
  s.algorithm = o->algorithm;
  s.K = o->K;
  json_t *j = json_object();
  stp__jset(j, "n", stp__ju64(v.n));
  stp__jset(j, "d", stp__jnum(o->d));
  stp__jset(j, "c", stp__jnum(o->c));
  stp__jset(j, "tree", json_string(stp_reduce_tree_name(o->tree)));
  stp__jset(j, "algorithm", json_string(stp_reduce_algorithm_name(o->algorithm)));
  stp__jset(j, "K", o->algorithm == STP_REDUCE_ALG1 ? json_null() : stp__ju64(o->K));
  if (v.children)
    arrays_json(&v, j);
  stp__jset(j, "deterministic", deterministic_json(&v));
  stp__jset(j, "exponential", exponential_json(&v));
  if (v.law_asked)
    stp__jset(j, "exact_law", law_json(r->law, &v));
  stp__jset(j, "bounds", stp__bounds_json(v.makespan, v.exp_makespan));
  stp__jset(j, "opt_bounds", json_pack("[o,o]", stp__jnum(stp_reduce_opt_lower(v.n, o->d, o->c)),
                                       stp__jnum(stp_reduce_opt_upper(v.n, o->d, o->c))));
  stp__jset(j, "length_bound", stp__jnum(stp_reduce_length_bound(&s)));
  if (v.simulated)
    stp__jset(j, "simulation", simulation_json(r, &v));
  stp__jset(j, "seconds", stp__jnum(v.seconds));
  stp__record_status(j, STP_OK, NULL);
  return stp__record_limited("reduce", j,
                             stp__graph_limits_json(o->max_states, &o->control, o->simulate,
                                                    o->seed),
                             out, err);
}

/* ---- the text ------------------------------------------------------------------- */
static void list_text(FILE *f, const char *label, const json_t *a, uint64_t n, bool reals) {
  if (!a)
    return; /* left out of the record */
  fprintf(f, "  %-16s", label);
  if (n > 64) {
    fprintf(f, " (%llu values; --json lists them)\n", (unsigned long long)(n - 1));
    return;
  }
  for (size_t i = 0; i < json_array_size(a); i++)
    if (reals)
      stp__fprintf(f, " %g", json_number_value(json_array_get(a, i)));
    else
      fprintf(f, " %llu", (unsigned long long)json_integer_value(json_array_get(a, i)));
  fprintf(f, "%s\n", n == 1 ? " (none: one element)" : "");
}

static const char *algorithm_text(const char *algorithm) {
  return strcmp(algorithm, "alg2") == 0   ? "Algorithm 2, at most K concurrent transfers"
         : strcmp(algorithm, "alg3") == 0 ? "Algorithm 3, at most K reducers"
                                          : "Algorithm 1";
}

static void values_text(FILE *f, const json_t *rec) {
  const json_t *ex = stp__jget(rec, "exponential"), *lr = stp__jget(rec, "exact_law");
  double e = stp__jgetd(ex, "makespan");
  if (isfinite(e))
    stp__fprintf(f, "  %-16s %.10g (dag-ctmc, %llu order ideals)\n", "exponential", e,
                 (unsigned long long)stp__jgetu(ex, "states"));
  else
    fprintf(f, "  %-16s not computed: %s\n", "exponential", stp__jgets(ex, "reason"));
  if (lr && stp__jgets(lr, "reason"))
    fprintf(f, "  law %-12s not computed: %s\n", stp__jgets(lr, "law"), stp__jgets(lr, "reason"));
  else if (lr && stp__jgetu(rec, "n") > 1)
    stp__fprintf(f, "  law %-12s %.10g (dag-ctmc, %llu states)\n", stp__jgets(lr, "law"),
                 stp__jgetd(lr, "makespan"), (unsigned long long)stp__jgetu(lr, "states"));
  const json_t *path = stp__jget(rec, "deterministic.critical_path");
  if (json_array_size(path) && json_array_size(path) <= 40) {
    fprintf(f, "  %-16s", "critical path");
    for (size_t k = 0; k < json_array_size(path); k++)
      fprintf(f, " %s", json_string_value(json_array_get(path, k)));
    fprintf(f, "\n");
  }
  if (isfinite(e))
    stp__fprintf(f, "  N.B.U.E. bounds [%.10g, %.10g]\n", stp__jgetd(rec, "bounds.lower"), e);
}

static void bounds_text(FILE *f, const json_t *rec) {
  const json_t *opt = stp__jget(rec, "opt_bounds");
  stp__fprintf(f, "  %-16s %g <= OPT <= %g (Lemma 5, Proposition 6)\n", "optimal length",
               json_number_value(json_array_get(opt, 0)), json_number_value(json_array_get(opt, 1)));
  double lb = stp__jgetd(rec, "length_bound");
  if (isfinite(lb))
    stp__fprintf(f, "  %-16s %g (%s)\n", "length bound", lb,
                 strcmp(stp__jgets(rec, "algorithm"), "alg2") == 0 ? "Proposition 8, corrected"
                                                                   : "Corollary 11");
  const json_t *sim = stp__jget(rec, "simulation");
  if (!sim)
    return;
  stp__fprintf(f, "  %-16s %s, %llu runs, seed %llu: mean %.10g, ", "simulation",
               stp__jgets(sim, "law"), (unsigned long long)stp__jgetu(sim, "runs"),
               (unsigned long long)stp__jgetu(sim, "seed"), stp__jgetd(sim, "makespan"));
  stp__ci95_text(f, sim);
  fprintf(f, ", %s\n", stp__position_text(stp__jgets(sim, "position")));
}

void stp__text_reduce(FILE *f, const json_t *rec, size_t index) {
  uint64_t n = stp__jgetu(rec, "n");
  if (index)
    fputc('\n', f);
  stp__fprintf(f, "n = %llu, d = %g, c = %g: %s tree (%s", (unsigned long long)n,
               stp__jgetd(rec, "d"), stp__jgetd(rec, "c"), stp__jgets(rec, "tree"),
               algorithm_text(stp__jgets(rec, "algorithm")));
  if (!json_is_null(stp__jget(rec, "K")))
    fprintf(f, ", K = %llu", (unsigned long long)stp__jgetu(rec, "K"));
  fprintf(f, ")\n");
  list_text(f, "children", stp__jget(rec, "children"), n, false);
  list_text(f, "transfer starts", stp__jget(rec, "transfer_starts"), n, true);
  stp__fprintf(f, "  %-16s %.10g\n", "makespan", stp__jgetd(rec, "deterministic.makespan"));
  values_text(f, rec);
  bounds_text(f, rec);
}

const char *const stp__reduce_csv[] = {
    "n", "d", "c", "tree", "algorithm", "K", "deterministic.makespan", "exponential.makespan",
    "exponential.states", "exponential.method", "exponential.reason", "exact_law.law",
    "exact_law.makespan", "exact_law.states", "exact_law.reason", "bounds.lower",
    "bounds.upper", "opt_bounds", "length_bound", "simulation.law", "simulation.runs",
    "simulation.seed", "simulation.makespan", "simulation.ci95", "simulation.position",
    "simulation.relative", "seconds", "status", "error", NULL};
const char *const stp__reduce_table[] = {
    "n", "deterministic.makespan", "exponential.makespan", "exponential.states",
    "exact_law.makespan", "opt_bounds", "length_bound", "simulation.makespan", NULL};
