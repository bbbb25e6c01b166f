/* graph.c: the record of a graph file's analysis (streamtp graph): the
 * deterministic value and its critical path or cycle, the exponential
 * value, the exact value under a law, the N.B.U.E. bounds, Monte Carlo;
 * and its text report, read back from the record. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"

#include <math.h>
#include <string.h>

static json_t *names_json(const stp_graph *g, const size_t *ts, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, stp__jstr(stp_graph_transition_name(g, ts[k])));
  return a;
}

static json_t *deterministic_json(const stp_graph *g, const stp_graph_result *r) {
  json_t *det = json_object();
  json_t *names = names_json(g, r->critical, r->critical_len);
  if (r->is_dag) {
    stp__jset(det, "makespan", stp__jnum(r->det_makespan));
    stp__jset(det, "critical_path", names);
  } else {
    stp__jset(det, "throughput", stp__jnum(r->det_throughput));
    stp__jset(det, "period", stp__jnum(r->det_period));
    stp__jset(det, "critical_cycle", names);
  }
  return det;
}

/* A TEG's exponential value has its period right after the throughput. */
static json_t *exponential_json(const stp_graph_result *r) {
  const char *what = r->is_dag ? "makespan" : "throughput";
  if (!r->exp_computed)
    return stp__exponential_json(what, NAN, 0, NULL, r->exp_reason);
  if (r->is_dag)
    return stp__exponential_json(what, r->exp_value, r->exp_states, r->exp_method, NULL);
  json_t *e = json_object();
  stp__jset(e, "throughput", stp__jnum(r->exp_value));
  stp__jset(e, "period", stp__jnum(r->exp_value > 0 ? 1 / r->exp_value : NAN));
  stp__jset(e, "states", stp__ju64(r->exp_states));
  stp__jset(e, "method", stp__jstr(r->exp_method));
  return e;
}

/* What only the text report shows: the graph's places and tokens. */
static json_t *shape_json(const stp_graph *g) {
  uint64_t tokens = 0;
  for (size_t p = 0; p < stp_graph_place_count(g); p++) {
    uint64_t k;
    stp_graph_place(g, p, NULL, NULL, &k);
    tokens += k;
  }
  return json_pack("{s:o,s:o}", "places", stp__ju64(stp_graph_place_count(g)), "tokens",
                   stp__ju64(tokens));
}

stp_status stp_graph_result_json(const char *file, const stp_graph *g,
                                 const stp_graph_options *opt, const stp_graph_result *r,
                                 const stp_law *law, const stp_graph_sim_options *sim,
                                 const stp_graph_sim_result *sr, double seconds,
                                 stp_record **out, stp_error *err) {
  *out = NULL;
  if (!g || !opt || !r || (sim && !sr))
    return stp__fail(err, STP_EINVAL, "stp_graph_result_json: graph, options or result is NULL");
  const char *law_name = law ? stp_law_spec(law) : "exp";
  json_t *o = json_object();
  stp__jset(o, "file", stp__jstr(file));
  stp__jset(o, "name", stp__jstr(stp_graph_name(g)));
  stp__jset(o, "transitions", stp__ju64(stp_graph_transition_count(g)));
  stp__jset(o, "mode", json_string(r->is_dag ? "dag" : "teg"));
  stp__jset(o, "deterministic", deterministic_json(g, r));
  stp__jset(o, "exponential", exponential_json(r));
  if (r->law_asked)
    stp__jset(o, "exact_law", stp__graph_law_json(r, law_name));
  stp__jset(o, "bounds", stp__bounds_json(r->bound_lower, r->bound_upper));
  if (sim)
    stp__jset(o, "simulation", stp__graph_sim_json(law_name, sim->seed, sr, r->is_dag));
  stp__jset(o, "seconds", stp__jnum(seconds));
  stp__record_status(o, STP_OK, NULL);
  stp_status s = stp__record_limited(
      "graph", o,
      stp__graph_limits_json(opt->max_states, &opt->control, sim != NULL, sim ? sim->seed : 0),
      out, err);
  if (s == STP_OK)
    (*out)->text_only = shape_json(g);
  return s;
}

stp_status stp_graph_error_json(const char *file, const stp_graph *g, const stp_error *failure,
                                stp_record **out, stp_error *err) {
  json_t *o = json_object();
  stp__jset(o, "file", stp__jstr(file));
  stp__jset(o, "name", g ? stp__jstr(stp_graph_name(g)) : json_null());
  stp__record_status(o, failure->status, failure->message);
  return stp__record_new("graph", o, out, err);
}

/* ---- the text ------------------------------------------------------------------- */
static void names_text(FILE *f, const json_t *names) {
  for (size_t k = 0; k < json_array_size(names); k++)
    fprintf(f, "%s%s", k ? " -> " : "", json_string_value(json_array_get(names, k)));
  fputc('\n', f);
}

static void head_text(FILE *f, const json_t *rec, bool dag) {
  fprintf(f, "%s: %s, %s of %llu transitions, %llu places", stp__jgets(rec, "file"),
          stp__jgets(rec, "name"), dag ? "activity DAG" : "timed event graph",
          (unsigned long long)stp__jgetu(rec, "transitions"),
          (unsigned long long)stp__jgetu(rec, "places"));
  if (!dag)
    fprintf(f, ", %llu tokens", (unsigned long long)stp__jgetu(rec, "tokens"));
  fputc('\n', f);
  if (dag)
    stp__fprintf(f, "  deterministic   makespan   %.8g\n  critical path   ",
                 stp__jgetd(rec, "deterministic.makespan"));
  else
    stp__fprintf(f, "  deterministic   throughput %-14.8g period %.8g\n  critical cycle  ",
                 stp__jgetd(rec, "deterministic.throughput"),
                 stp__jgetd(rec, "deterministic.period"));
  names_text(f, stp__jget(rec, dag ? "deterministic.critical_path"
                                   : "deterministic.critical_cycle"));
}

static void simulation_text(FILE *f, const json_t *sim, bool dag) {
  const json_t *ci = stp__jget(sim, "ci95");
  stp__fprintf(f, "  simulation      %s %-14.8g 95%% [%.8g, %.8g] (%s, %llu runs, seed %llu)\n",
               dag ? "makespan  " : "throughput", stp__jgetd(sim, dag ? "makespan" : "throughput"),
               json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
               stp__jgets(sim, "law"), (unsigned long long)stp__jgetu(sim, "runs"),
               (unsigned long long)stp__jgetu(sim, "seed"));
}

void stp__text_graph(FILE *f, const json_t *rec, size_t index) {
  bool dag = strcmp(stp__jgets(rec, "mode"), "dag") == 0;
  const char *key = dag ? "makespan" : "throughput";
  if (index)
    fputc('\n', f);
  head_text(f, rec, dag);
  const json_t *ex = stp__jget(rec, "exponential"), *lr = stp__jget(rec, "exact_law");
  const char *reason = stp__jgets(ex, "reason");
  if (!reason)
    stp__fprintf(f, "  exponential     %s %-14.8g (%s, %llu states)\n", dag ? "makespan  " : key,
                 stp__jgetd(ex, key), stp__jgets(ex, "method"),
                 (unsigned long long)stp__jgetu(ex, "states"));
  else
    fprintf(f, "  exponential     not computed: %s\n", reason);
  if (lr)
    stp__graph_law_text(f, lr, 16);
  if (!reason)
    stp__fprintf(f, "  N.B.U.E. bounds [%.8g, %.8g] on the %s for independent N.B.U.E. times "
                    "with these means\n",
                 stp__jgetd(rec, "bounds.lower"), stp__jgetd(rec, "bounds.upper"),
                 dag ? "expected makespan" : "throughput");
  const json_t *sim = stp__jget(rec, "simulation");
  if (sim)
    simulation_text(f, sim, dag);
}

/* --format csv and table: a row per graph file, DAG (makespans) and timed
 * event graph (throughputs) alike, the other's cells empty. */
const char *const stp__graph_csv[] = {
    "file", "name", "mode", "transitions", "deterministic.throughput", "deterministic.period",
    "deterministic.makespan", "exponential.throughput", "exponential.makespan",
    "exponential.states", "exact_law.law", "exact_law.throughput", "exact_law.makespan",
    "exact_law.reason",
    "bounds.lower", "bounds.upper", "simulation.law", "simulation.throughput",
    "simulation.makespan", "seconds", "status", "error", NULL};
const char *const stp__graph_table[] = {"file", "mode", "deterministic.throughput",
                                        "exponential.throughput", "exact_law.throughput",
                                        "deterministic.makespan", "exponential.makespan",
                                        "exact_law.makespan", NULL};
const char *const stp__graph_labels[] = {"file", "mode", "det throughput", "exp throughput",
                                         "law throughput", "det makespan", "exp makespan",
                                         "law makespan", NULL};
