/* ctmc.c: the record of one Markov chain of a mapping (streamtp ctmc):
 * what it is of (the Strict event graph, or an Overlap transfer
 * component's pattern), its size, and its stationary solve; the text
 * report, read back from the record. */
#include "report/record.h"

#include "base/core.h"
#include "base/numfmt.h"

#include <math.h>
#include <string.h>

/* What the record says of a chain: built in this process, or solved
 * across MPI ranks without being built in one (no levels then). */
typedef struct chain_shape {
  const char *description;
  int64_t states, moves;
  double seconds_build;
  bool distributed;
} chain_shape;

static void about_json(json_t *o, const stp_mapping *m, const stp_chain_about *about) {
  if (about->model == STP_MODEL_STRICT) {
    stp__jset(o, "component", json_null());
    return;
  }
  stp__jset(o, "component", json_integer((json_int_t)about->component));
  stp__jset(o, "stage", stp__jstr(stp_mapping_stage_name(m, about->stage)));
  stp__jset(o, "g", stp__ju64(about->g));
  stp__jset(o, "u", stp__ju64(about->u));
  stp__jset(o, "v", stp__ju64(about->v));
}

static void solution_json(json_t *o, const chain_shape *c, const stp_chain_solution *sol) {
  stp__jset(o, "levels", c->distributed ? json_null() : stp__ju64(sol->levels));
  stp__jset(o, "solver", stp__jstr(sol->solver));
  stp__jset(o, "sweeps", stp__ju64(sol->iterations));
  stp__jset(o, "residual", stp__jnum(sol->residual));
  stp__jset(o, "seconds_solve", stp__jnum(sol->seconds));
  stp__jset(o, "rate", stp__jnum(sol->rate));
  stp__jset(o, "throughput", stp__jnum(sol->throughput));
  stp__jset(o, "period", stp__jnum(sol->throughput > 0 ? 1 / sol->throughput : NAN));
}

static stp_status chain_record(const stp_mapping *m, const chain_shape *c,
                               const stp_chain_about *about, const stp_chain_solution *sol,
                               stp_record **out, stp_error *err) {
  *out = NULL;
  if (!m || !about)
    return stp__fail(err, STP_EINVAL, "stp_chain_json: mapping or about is NULL");
  json_t *o = json_object();
  stp__jset(o, "file", stp__jstr(stp_mapping_file(m)));
  stp__jset(o, "name", stp__jstr(stp_mapping_name(m)));
  stp__jset(o, "model", json_string(stp_model_name(about->model)));
  about_json(o, m, about);
  stp__jset(o, "states", json_integer((json_int_t)c->states));
  stp__jset(o, "moves", json_integer((json_int_t)c->moves));
  stp__jset(o, "seconds_build", stp__jnum(c->seconds_build));
  if (sol)
    solution_json(o, c, sol);
  stp__jset(o, "seconds", stp__jnum(c->seconds_build + (sol ? sol->seconds : 0)));
  if (sol) /* "sweeps" was "iterations" before the glossary: one release (NEWS.md) */
    stp__jset(o, "iterations", stp__ju64(sol->iterations));
  stp__record_status(o, STP_OK, NULL); /* every record has them, a failure's too */
  stp_status s = stp__record_new("ctmc", o, out, err);
  if (s == STP_OK) /* the text's first line, which the JSON never had */
    (*out)->text_only = json_pack("{s:o}", "description", stp__jstr(c->description));
  return s;
}

stp_status stp_chain_json(const stp_mapping *m, const stp_chain *c, const stp_chain_about *about,
                          const stp_chain_solution *sol, stp_record **out, stp_error *err) {
  if (!c) {
    *out = NULL;
    return stp__fail(err, STP_EINVAL, "stp_chain_json: chain is NULL");
  }
  chain_shape shape = {.description = stp_chain_description(c), .states = stp_chain_states(c),
                       .moves = stp_chain_moves(c), .seconds_build = stp_chain_build_seconds(c)};
  return chain_record(m, &shape, about, sol, out, err);
}

stp_status stp_chain_distributed_json(const stp_mapping *m, const char *description,
                                      int64_t states, int64_t moves, double seconds_build,
                                      const stp_chain_about *about,
                                      const stp_chain_solution *sol, stp_record **out,
                                      stp_error *err) {
  chain_shape shape = {.description = description, .states = states, .moves = moves,
                       .seconds_build = seconds_build, .distributed = true};
  return chain_record(m, &shape, about, sol, out, err);
}

/* ---- the text ------------------------------------------------------------------- */
static void solution_text(FILE *f, const json_t *rec) {
  if (json_is_null(stp__jget(rec, "levels")))
    stp__fprintf(f, "  solver          %s, %llu iterations, %.3f s, scaled residual %.2e\n",
                 stp__jgets(rec, "solver"), (unsigned long long)stp__jgetu(rec, "sweeps"),
                 stp__jgetd(rec, "seconds_solve"), stp__jgetd(rec, "residual"));
  else
    stp__fprintf(f, "  solver          %s, %llu levels, %llu sweeps, %.3f s, scaled residual "
                    "%.2e\n",
                 stp__jgets(rec, "solver"), (unsigned long long)stp__jgetu(rec, "levels"),
                 (unsigned long long)stp__jgetu(rec, "sweeps"), stp__jgetd(rec, "seconds_solve"),
                 stp__jgetd(rec, "residual"));
  if (strcmp(stp__jgets(rec, "model"), "strict") == 0)
    stp__fprintf(f, "  throughput      %.10g data sets per time unit\n", stp__jgetd(rec, "rate"));
  else
    stp__fprintf(f, "  inner rate      %.10g data sets per time unit (component bound g x rate "
                    "= %.10g)\n",
                 stp__jgetd(rec, "rate"), stp__jgetd(rec, "throughput"));
}

void stp__text_ctmc(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  fprintf(f, "%s\n", stp__jgets(rec, "description"));
  stp__fprintf(f, "  states          %lld\n  moves           %lld\n  built in        %.3f s\n",
               (long long)json_integer_value(stp__jget(rec, "states")),
               (long long)json_integer_value(stp__jget(rec, "moves")),
               stp__jgetd(rec, "seconds_build"));
  if (stp__jget(rec, "solver"))
    solution_text(f, rec);
}
