/* bcast.c: the records of a broadcast on a grid of clusters (streamtp
 * bcast) and their text: one per heuristic (its sends, makespans, the
 * N.B.U.E. bounds, Monte Carlo) with a closing comparison of the
 * heuristics; Table 1 (--model); Lowekamp's clusters (--partition). */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"
#include "streamtp_bcast.h"

#include <math.h>
#include <string.h>

/* ---- a platform ------------------------------------------------------------------- */
static json_t *sends_json(const stp_bcast_platform *p, const stp_bcast_schedule *s) {
  json_t *sends = json_array();
  for (size_t k = 0; sends && k + 1 < s->nclusters; k++) {
    const stp_bcast_send *e = &s->sends[k];
    json_array_append_new(sends, json_pack("{s:o,s:o,s:o,s:o}", "from",
                                           stp__jstr(stp_bcast_cluster_name(p, e->from)), "to",
                                           stp__jstr(stp_bcast_cluster_name(p, e->to)), "start",
                                           stp__jnum(e->start), "arrival", stp__jnum(e->arrival)));
  }
  return sends;
}

stp_status stp_bcast_json(const stp_bcast_result *r, size_t k, stp_record **out,
                          stp_error *err) {
  *out = NULL;
  if (k >= r->count)
    return stp__fail(err, STP_EINVAL, "no heuristic %zu among %zu", k, r->count);
  const stp_bcast_platform *p = r->platform;
  const stp_bcast_heuristic_result *x = &r->heuristics[k];
  const stp_bcast_schedule *s = &x->schedule;
  const stp_graph_result *g = &x->analysis;
  json_t *o = json_object(), *T = json_array();
  stp__jset(o, "file", stp__jstr(stp_bcast_platform_file(p)));
  stp__jset(o, "heuristic", json_string(stp_bcast_heuristic_name(s->heuristic)));
  stp__jset(o, "root", stp__jstr(stp_bcast_cluster_name(p, s->root)));
  for (size_t j = 0; T && j < s->nclusters; j++)
    json_array_append_new(T, stp__jnum(s->T[j]));
  stp__jset(o, "T", T);
  stp__jset(o, "sends", sends_json(p, s));
  stp__jset(o, "deterministic", json_pack("{s:o}", "makespan", stp__jnum(s->makespan)));
  /* the method is named even without a value: the one that was refused */
  stp__jset(o, "exponential",
            stp__exponential_json("makespan", g->exp_value, g->exp_states,
                                  g->exp_method ? g->exp_method : "dag-ctmc",
                                  g->exp_computed ? NULL : g->exp_reason));
  if (g->law_asked)
    stp__jset(o, "exact_law", stp__graph_law_json(g, r->law ? r->law : "exp"));
  stp__jset(o, "bounds", stp__bounds_json(g->bound_lower, g->bound_upper));
  if (x->simulated) {
    json_t *sim = stp__graph_sim_json(r->law, r->options.seed, &x->sim, true);
    stp__jset(sim, "position",
              json_string(stp_interval_position(x->sim.ci95_lo, x->sim.ci95_hi, g->bound_lower,
                                                g->exp_computed ? g->bound_upper : NAN)));
    stp__jset(o, "simulation", sim);
  }
  stp__jset(o, "seconds", stp__jnum(x->seconds));
  stp__record_status(o, STP_OK, NULL);
  const stp_bcast_run_options *ro = &r->options;
  return stp__record_limited("bcast", o,
                             stp__graph_limits_json(ro->max_states, &ro->control, ro->simulate,
                                                    ro->seed),
                             out, err);
}

/* "heuristic: makespan M, E[exp] E (N states), N.B.U.E. bounds [a, b]", the
 * law's line, the simulation, then the sends in round order. */
void stp__text_bcast(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  const json_t *ex = stp__jget(rec, "exponential"), *sim = stp__jget(rec, "simulation");
  stp__fprintf(f, "%s: makespan %.10g", stp__jgets(rec, "heuristic"),
               stp__jgetd(rec, "deterministic.makespan"));
  if (json_is_null(stp__jget(ex, "makespan")))
    fprintf(f, ", E[exp] not computed: %s\n", stp__jgets(ex, "reason"));
  else
    stp__fprintf(f, ", E[exp] %.10g (%llu states), N.B.U.E. bounds [%.10g, %.10g]\n",
                 stp__jgetd(ex, "makespan"), (unsigned long long)stp__jgetu(ex, "states"),
                 stp__jgetd(rec, "bounds.lower"), stp__jgetd(rec, "bounds.upper"));
  if (stp__jget(rec, "exact_law"))
    stp__graph_law_text(f, stp__jget(rec, "exact_law"), 16);
  if (sim) {
    stp__fprintf(f, "  simulation (%s, %llu runs, seed %llu): mean %.10g, ",
                 stp__jgets(sim, "law"), (unsigned long long)stp__jgetu(sim, "runs"),
                 (unsigned long long)stp__jgetu(sim, "seed"), stp__jgetd(sim, "makespan"));
    stp__ci95_text(f, sim);
    fprintf(f, ", %s\n", stp__position_text(stp__jgets(sim, "position")));
  }
  const json_t *sends = stp__jget(rec, "sends");
  for (size_t k = 0; k < json_array_size(sends); k++) {
    const json_t *e = json_array_get(sends, k);
    stp__fprintf(f, "  %-12s -> %-12s start %-14.10g arrival %.10g\n", stp__jgets(e, "from"),
                 stp__jgets(e, "to"), stp__jgetd(e, "start"), stp__jgetd(e, "arrival"));
  }
}

/* "V" or "V*" when V is the smallest of its column, "-" when missing. */
static void marked(char *buf, size_t n, double v, double best) {
  if (isnan(v))
    snprintf(buf, n, "-");
  else
    stp__snprintf(buf, n, "%.10g%s", v, v == best ? "*" : "");
}

/* After several heuristics: one line each, the smallest makespans starred. */
void stp__summary_bcast(FILE *f, const json_t *recs) {
  size_t n = json_array_size(recs);
  if (n < 2)
    return;
  double best_det = INFINITY, best_exp = INFINITY;
  bool simulated = false;
  for (size_t k = 0; k < n; k++) {
    const json_t *r = json_array_get(recs, k);
    best_det = fmin(best_det, stp__jgetd(r, "deterministic.makespan"));
    double e = stp__jgetd(r, "exponential.makespan");
    best_exp = isnan(e) ? best_exp : fmin(best_exp, e);
    simulated = simulated || stp__jget(r, "simulation");
  }
  fprintf(f, "\n%-14s %14s %16s", "heuristic", "makespan", "E[exp]");
  if (simulated)
    fprintf(f, " %16s %33s  %s", "simulated mean", "95% CI", "position");
  fputc('\n', f);
  for (size_t k = 0; k < n; k++) {
    const json_t *r = json_array_get(recs, k), *sim = stp__jget(r, "simulation");
    char d[40], e[40];
    marked(d, sizeof d, stp__jgetd(r, "deterministic.makespan"), best_det);
    marked(e, sizeof e, stp__jgetd(r, "exponential.makespan"), best_exp);
    fprintf(f, "%-14s %14s %16s", stp__jgets(r, "heuristic"), d, e);
    if (sim) {
      const json_t *ci = stp__jget(sim, "ci95");
      stp__fprintf(f, " %16.10g   [%14.10g, %14.10g]  %s", stp__jgetd(sim, "makespan"),
                   json_number_value(json_array_get(ci, 0)),
                   json_number_value(json_array_get(ci, 1)), stp__jgets(sim, "position"));
    }
    fputc('\n', f);
  }
  fputs("(* the smallest of its column)\n", f);
}

const char *const stp__bcast_csv[] = {
    "file", "heuristic", "root", "deterministic.makespan", "exponential.makespan",
    "exponential.states", "exponential.method", "exponential.reason", "exact_law.law",
    "exact_law.makespan", "exact_law.method", "exact_law.states", "exact_law.reason",
    "bounds.lower", "bounds.upper", "simulation.law", "simulation.runs", "simulation.seed",
    "simulation.makespan", "simulation.ci95", "simulation.position", "seconds", "status",
    "error", NULL};
const char *const stp__bcast_table[] = {
    "heuristic", "deterministic.makespan", "exponential.makespan", "exact_law.makespan",
    "simulation.makespan", "simulation.ci95", "simulation.position", NULL};

/* ---- --model ------------------------------------------------------------------------- */
stp_status stp_bcast_model_json(const stp_bcast_model_result *r, stp_record **out,
                                stp_error *err) {
  const stp_bcast_model_params *q = &r->params;
  json_t *o = json_object(), *algs = json_object();
  stp__jset(o, "P", stp__ju64(q->P));
  stp__jset(o, "L", stp__jnum(q->L));
  stp__jset(o, "g", stp__jnum(q->g));
  stp__jset(o, "k", stp__ju64(q->k));
  stp__jset(o, "gs", stp__jnum(q->gs));
  stp__jset(o, "g1", stp__jnum(q->g1));
  for (int a = 0; algs && a < STP_BCAST_ALG_COUNT; a++)
    stp__jset(algs, stp_bcast_alg_name((stp_bcast_alg)a),
              json_pack("{s:o,s:o}", "formula", stp__jnum(r->formula[a]), "dag",
                        stp__jnum(r->dag[a])));
  stp__jset(o, "algorithms", algs);
  stp__record_status(o, STP_OK, NULL);
  return stp__record_limited("bcast-model", o, json_pack("{s:o}", "max_memory", stp__ju64(r->max_memory)),
                     out, err);
}

void stp__text_bcast_model(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  stp__fprintf(f, "Table 1, P = %llu, L = %g, g = %g, k = %llu, gs = %g, g1 = %g\n",
               (unsigned long long)stp__jgetu(rec, "P"), stp__jgetd(rec, "L"),
               stp__jgetd(rec, "g"), (unsigned long long)stp__jgetu(rec, "k"),
               stp__jgetd(rec, "gs"), stp__jgetd(rec, "g1"));
  fprintf(f, "  %-16s %16s %16s\n", "algorithm", "formula", "dag");
  const char *name;
  json_t *a;
  json_object_foreach((json_t *)stp__jget(rec, "algorithms"), name, a) {
    double formula = stp__jgetd(a, "formula"), dag = stp__jgetd(a, "dag");
    char d[32] = "-";
    if (!isnan(dag))
      stp__snprintf(d, sizeof d, "%.10g", dag);
    bool differs = !isnan(dag) && fabs(dag - formula) > 1e-9 * fmax(1, fabs(dag));
    stp__fprintf(f, "  %-16s %16.10g %16s%s\n", name, formula, d,
                 differs ? "  (differs: see docs/design.md)" : "");
  }
}

/* ---- --partition ---------------------------------------------------------------------- */
stp_status stp_bcast_partition_json(const stp_bcast_partition_result *r, stp_record **out,
                                    stp_error *err) {
  const stp_bcast_partition *p = &r->partition;
  json_t *o = json_object(), *sizes = json_array(), *cl = json_array();
  stp__jset(o, "file", stp__jstr(r->file));
  stp__jset(o, "rho", stp__jnum(r->rho));
  for (size_t c = 0; sizes && cl && c < p->nclusters; c++) {
    json_t *m = json_array();
    for (size_t k = p->offsets[c]; m && k < p->offsets[c + 1]; k++)
      json_array_append_new(m, stp__ju64(p->nodes[k]));
    json_array_append_new(sizes, stp__ju64(p->sizes[c]));
    json_array_append_new(cl, m);
  }
  stp__jset(o, "sizes", sizes);
  stp__jset(o, "clusters", cl);
  stp__record_status(o, STP_OK, NULL);
  return stp__record_limited("bcast-partition", o,
                     json_pack("{s:o}", "max_memory", stp__ju64(r->max_memory)), out, err);
}

/* Machines as ranges: "0-30 31 33-40". */
static void ranges_text(FILE *f, const json_t *machines) {
  size_t n = json_array_size(machines);
  for (size_t k = 0; k < n;) {
    size_t e = k;
    while (e + 1 < n && json_integer_value(json_array_get(machines, e + 1)) ==
                            json_integer_value(json_array_get(machines, e)) + 1)
      e++;
    fprintf(f, "%s%lld", k ? " " : "", (long long)json_integer_value(json_array_get(machines, k)));
    if (e > k)
      fprintf(f, "-%lld", (long long)json_integer_value(json_array_get(machines, e)));
    k = e + 1;
  }
}

void stp__text_bcast_partition(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  const json_t *sizes = stp__jget(rec, "sizes"), *cl = stp__jget(rec, "clusters");
  uint64_t machines = 0;
  for (size_t c = 0; c < json_array_size(sizes); c++)
    machines += (uint64_t)json_integer_value(json_array_get(sizes, c));
  stp__fprintf(f, "%s: %llu machines, %zu clusters (rho %g)\n", stp__jgets(rec, "file"),
               (unsigned long long)machines, json_array_size(sizes), stp__jgetd(rec, "rho"));
  for (size_t c = 0; c < json_array_size(cl); c++) {
    fprintf(f, "  cluster %zu (%lld): ", c, (long long)json_integer_value(json_array_get(sizes, c)));
    ranges_text(f, json_array_get(cl, c));
    fputc('\n', f);
  }
}
