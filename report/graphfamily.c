/* graphfamily.c: the values that every record of the graph family (graph,
 * reduce, redistribute, bcast: an activity DAG or a timed event graph)
 * writes alike: "exponential", "exact_law", "bounds", "simulation", and
 * their lines in the text reports, read back from the record. */
#include "report/record.h"

#include "base/numfmt.h"

#include <math.h>
#include <string.h>

json_t *stp__exponential_json(const char *key, double value, uint64_t states, const char *method,
                              const char *reason) {
  json_t *e = json_object();
  if (reason) {
    stp__jset(e, key, json_null());
    stp__jset(e, "reason", stp__jstr(reason));
    if (method)
      stp__jset(e, "method", json_string(method));
    return e;
  }
  stp__jset(e, key, stp__jnum(value));
  stp__jset(e, "states", stp__ju64(states));
  stp__jset(e, "method", stp__jstr(method));
  return e;
}

json_t *stp__law_json(const char *law, const char *key, double value, const char *reason) {
  json_t *o = json_object();
  stp__jset(o, "law", stp__jstr(law));
  stp__jset(o, key, stp__jnum(reason ? NAN : value));
  if (reason)
    stp__jset(o, "reason", stp__jstr(reason));
  return o;
}

json_t *stp__graph_law_json(const stp_graph_result *r, const char *law) {
  json_t *o = stp__law_json(law, r->is_dag ? "makespan" : "throughput", r->law_value,
                            r->law_computed ? NULL : r->law_reason);
  if (!r->law_computed)
    return o;
  if (!r->is_dag)
    stp__jset(o, "period", stp__jnum(1 / r->law_value));
  stp__jset(o, "method", stp__jstr(r->law_method));
  stp__jset(o, "states", stp__ju64(r->law_states));
  if (r->law_solver) {
    stp__jset(o, "solver", json_string(r->law_solver));
    stp__jset(o, "sweeps", stp__ju64(r->law_sweeps));
    stp__jset(o, "residual", stp__jnum(r->law_residual));
  }
  return o;
}

json_t *stp__graph_limits_json(uint64_t max_states, const stp_control *c, bool simulating,
                               uint64_t seed) {
  json_t *l = json_object();
  stp__jset(l, "max_states", stp__ju64(max_states ? max_states : STP_GRAPH_DEFAULT_MAX_STATES));
  stp__jset(l, "max_memory", stp__ju64(stp_control_memory_budget(c)));
  if (simulating)
    stp__jset(l, "seed", stp__ju64(seed));
  return l;
}

json_t *stp__bounds_json(double lower, double upper) {
  return json_pack("{s:o,s:o}", "lower", stp__jnum(lower), "upper", stp__jnum(upper));
}

json_t *stp__graph_sim_json(const char *law, uint64_t seed, const stp_graph_sim_result *r,
                            bool dag) {
  json_t *s = json_object();
  stp__jset(s, "law", json_string(law ? law : "exp"));
  stp__jset(s, "runs", stp__ju64(r->runs));
  stp__jset(s, "seed", stp__ju64(seed));
  if (dag) {
    stp__jset(s, "makespan", stp__jnum(r->mean));
  } else {
    stp__jset(s, "throughput", stp__jnum(r->mean));
    stp__jset(s, "period", stp__jnum(r->mean > 0 ? 1 / r->mean : NAN));
  }
  stp__jset(s, "ci95", json_pack("[o,o]", stp__jnum(r->ci95_lo), stp__jnum(r->ci95_hi)));
  return s;
}

/* ---- text ------------------------------------------------------------------------ */
void stp__law_line(FILE *f, const char *law, int width, const char *key, double value,
                   const char *reason, const char *detail) {
  char label[64];
  int n = snprintf(label, sizeof label, "law %s", law);
  if (n >= width)
    fprintf(f, "  %s\n  %-*s", label, width, "");
  else
    fprintf(f, "  %-*s", width, label);
  if (reason)
    fprintf(f, "not computed: %s\n", reason);
  else
    stp__fprintf(f, "%-10s %-14.8g (%s)\n", key, value, detail);
}

void stp__graph_law_text(FILE *f, const json_t *lr, int width) {
  const char *key = stp__jget(lr, "makespan") ? "makespan" : "throughput";
  char detail[256];
  const char *method = stp__jgets(lr, "method"), *solver = stp__jgets(lr, "solver");
  int n = snprintf(detail, sizeof detail, "%s, %llu states", method ? method : "",
                   (unsigned long long)stp__jgetu(lr, "states"));
  if (solver && n > 0 && (size_t)n < sizeof detail)
    n += stp__snprintf(detail + n, sizeof detail - (size_t)n, ", residual %.1e, %s",
                       stp__jgetd(lr, "residual"), solver);
  if (solver && stp__jgetu(lr, "sweeps") && n > 0 && (size_t)n < sizeof detail)
    snprintf(detail + n, sizeof detail - (size_t)n, ", %llu sweeps",
             (unsigned long long)stp__jgetu(lr, "sweeps"));
  stp__law_line(f, stp__jgets(lr, "law"), width, key, stp__jgetd(lr, key),
                stp__jgets(lr, "reason"), detail);
}

const char *stp__position_text(const char *where) {
  return !where || strcmp(where, "unknown") == 0 ? "no exponential bound to place it"
         : strcmp(where, "within") == 0          ? "within the bounds"
         : strcmp(where, "below") == 0           ? "below the bounds"
                                                 : "above the bounds";
}

void stp__ci95_text(FILE *f, const json_t *sim) {
  const json_t *ci = stp__jget(sim, "ci95");
  stp__fprintf(f, "95%% CI [%.10g, %.10g]", json_number_value(json_array_get(ci, 0)),
               json_number_value(json_array_get(ci, 1)));
}
