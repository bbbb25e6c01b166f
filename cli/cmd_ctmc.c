/* cmd_ctmc.c: `streamtp ctmc FILE`: one Markov chain of a mapping with
 * exponential times (a transfer component's folded pattern under Overlap,
 * the whole chain under Strict), solved and summarised, and optionally
 * written for other tools: the generator in MatrixMarket (PRISM, Storm,
 * scipy.io.mmread) and a CSV of the states. */
#include "cli/cli.h"
#include "cli/report.h"
#include "models/pipeline/components.h"
#include "base/core.h"
#include "engine/chain.h"
#include "models/pipeline/pattern_chain.h"
#include "models/pipeline/strict_chain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const cli_option ctmc_options[] = {
    {"component", 'c', "K", "transfer component K (index in the \"components\" of eval --json)"},
    {"model", 0, "M", "overlap or strict (default: the file's \"model\", else overlap)"},
    {"mtx", 0, "OUT", "write the generator Q to OUT in MatrixMarket format (- for stdout)"},
    {"states", 0, "OUT", "write one CSV line per state to OUT (- for stdout)"},
    {"solver", 0, "S", "auto (default), direct (UMFPACK) or iterative (Gauss-Seidel)"},
    {"no-solve", 0, NULL, "build (and write) the chain without solving it"},
    {"tolerance", 0, "X", "accepted scaled residual of the solve (default 1e-9)"},
    {"json", 0, NULL, "print the summary as one JSON object"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain built (default 2000000)"},
    {0}};

/* What the chain is of, for the summary. */
typedef struct chain_source {
  bool strict;
  size_t component;
  stp_component comp; /* for a transfer component */
} chain_source;

typedef struct ctmc_run {
  const cli_command *cmd;
  const cli_args *args;
  stp_options opts;
  stp_stationary_method method;
  bool solve, json;
} ctmc_run;

static bool parse_solver(const cli_command *cmd, const char *s, stp_stationary_method *out) {
  if (!s || strcmp(s, "auto") == 0)
    *out = STP_STATIONARY_AUTO;
  else if (strcmp(s, "direct") == 0)
    *out = STP_STATIONARY_DIRECT;
  else if (strcmp(s, "iterative") == 0)
    *out = STP_STATIONARY_ITERATIVE;
  else {
    cli_usage_error(cmd, "--solver: '%s' is not one of auto, direct, iterative", s);
    return false;
  }
  return true;
}

static bool parse_run(const cli_command *cmd, const cli_args *a, ctmc_run *run, int *models) {
  *run = (ctmc_run){.cmd = cmd, .args = a};
  if (!cli_parse_eval_options(cmd, a, &run->opts, models, false) ||
      !parse_solver(cmd, cli_get(cmd, a, "solver"), &run->method))
    return false;
  const char *tol = cli_get(cmd, a, "tolerance");
  if (tol && !cli_parse_double(cmd, "tolerance", tol, 1e-16, 1, &run->opts.solver_tolerance))
    return false;
  run->solve = !cli_flag(cmd, a, "no-solve");
  run->json = cli_flag(cmd, a, "json");
  return true;
}

/* "1 (T1 -> T2, 1x2), 4 (T2 -> T3, 2x3)": the transfer components. */
static void list_transfers(const stp_mapping *m, const stp_component_set *cs, char *buf,
                           size_t n) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < cs->n && at < n; k++) {
    const stp_component *c = &cs->c[k];
    if (c->kind != STP_COMPONENT_TRANSFER)
      continue;
    int w = snprintf(buf + at, n - at, "%s%zu (%s -> %s, %zux%zu)", at ? ", " : "", k,
                     m->stages[c->stage].name, m->stages[c->stage + 1].name, c->u, c->v);
    at += w > 0 ? (size_t)w : 0;
  }
}

/* The component named by --component, validated. */
static stp_status pick_component(const ctmc_run *run, const stp_mapping *m,
                                 const stp_component_set *cs, size_t *k, stp_error *err) {
  char list[512];
  list_transfers(m, cs, list, sizeof list);
  const char *s = cli_get(run->cmd, run->args, "component");
  if (!s)
    return stp__fail(err, STP_EINVAL,
                     "%s: --component K is needed under the Overlap model; the transfer components "
                     "are %s",
                     m->file, list[0] ? list : "none (every stage has one processor and one link)");
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '-' || end == s || *end != '\0' || errno == ERANGE || v >= cs->n)
    return stp__fail(err, STP_EINVAL, "%s: --component %s is not a component index (0 to %zu)",
                     m->file, s, cs->n - 1);
  *k = (size_t)v;
  if (cs->c[v].kind == STP_COMPONENT_TRANSFER)
    return STP_OK;
  return stp__fail(err, STP_EINVAL,
                   "%s: component %llu is the computation of %s (stage %s), whose chain is a "
                   "single state; the transfer components are %s",
                   m->file, v, m->procs[cs->c[v].snd[0]].name, m->stages[cs->c[v].stage].name,
                   list[0] ? list : "none");
}

/* Build the chain that the options ask for. */
static stp_status build_chain(const ctmc_run *run, const stp_mapping *m, stp_model model,
                              chain_source *src, stp_chain **chain, stp_error *err) {
  *src = (chain_source){.strict = model == STP_MODEL_STRICT};
  if (src->strict) {
    if (cli_get(run->cmd, run->args, "component"))
      return stp__fail(err, STP_EINVAL,
                       "%s: --component applies to the Overlap model; under Strict the chain is "
                       "that of the whole event graph", m->file);
    return stp__strict_chain(m, &run->opts, chain, err);
  }
  stp_component_set cs = {0};
  double *times = NULL;
  STP_CHECK(stp__components_build(m, &cs, err));
  stp_status s = pick_component(run, m, &cs, &src->component, err);
  if (s == STP_OK) {
    src->comp = cs.c[src->component];
    s = stp__pattern_times(m, &src->comp, &times, err);
  }
  if (s == STP_OK)
    s = stp__pattern_chain(src->comp.u, src->comp.v, times, run->opts.max_states, chain, err);
  src->comp.snd = src->comp.rcv = NULL; /* owned by cs */
  free(times);
  stp__components_free(&cs);
  return s;
}

/* Write the chain to path ("-": standard output). */
static stp_status write_file(const char *path, const stp_chain *c, bool mtx, const char *comment,
                             stp_error *err) {
  bool std = strcmp(path, "-") == 0;
  FILE *f = std ? stdout : fopen(path, "w");
  if (!f)
    return stp__fail(err, STP_EIO, "cannot open '%s' for writing: %s", path, strerror(errno));
  stp_status s =
      mtx ? stp__chain_write_mtx(c, f, comment, err) : stp__chain_write_states(c, f, err);
  if ((std ? fflush(f) : fclose(f)) != 0 && s == STP_OK)
    s = stp__fail(err, STP_EIO, "cannot write '%s': %s", path, strerror(errno));
  if (s != STP_OK)
    stp__error_prefix(err, "%s", path);
  return s;
}

static char *describe(const stp_mapping *m, const chain_source *src) {
  if (src->strict)
    return stp__asprintf("%s (%s): Markov chain of the Strict event graph", m->file, m->name);
  return stp__asprintf("%s (%s): Markov chain of component %zu, the %zu x %zu pattern of the "
                       "transfer %s -> %s (g = %zu copies)",
                       m->file, m->name, src->component, src->comp.u, src->comp.v,
                       m->stages[src->comp.stage].name, m->stages[src->comp.stage + 1].name,
                       src->comp.g);
}

static double bound_of(const chain_source *src, double rate) {
  return src->strict ? rate : (double)src->comp.g * rate;
}

static void print_text(const char *what, const chain_source *src, const stp_chain *c,
                       const stp_ctmc_info *info, double rate, bool solved) {
  printf("%s\n", what);
  printf("  states          %lld\n  moves           %lld\n  built in        %.3f s\n",
         (long long)c->moves->nrows, (long long)stp__csr_nnz(c->moves), c->seconds_build);
  if (!solved)
    return;
  printf("  solver          %s, %u levels, %zu sweeps, %.3f s, scaled residual %.2e\n",
         info->solver, info->period, info->iterations, info->seconds_solve, info->residual);
  if (src->strict)
    printf("  throughput      %.10g data sets per time unit\n", rate);
  else
    printf("  inner rate      %.10g data sets per time unit (component bound g x rate = %.10g)\n",
           rate, bound_of(src, rate));
}

static int print_json(const stp_mapping *m, const chain_source *src, const stp_chain *c,
                      const stp_ctmc_info *info, double rate, bool solved) {
  json_t *o = json_object();
  json_object_set_new(o, "file", json_string(m->file));
  json_object_set_new(o, "name", json_string(m->name));
  json_object_set_new(o, "model", json_string(src->strict ? "strict" : "overlap"));
  if (src->strict) {
    json_object_set_new(o, "component", json_null());
  } else {
    json_object_set_new(o, "component", json_integer((json_int_t)src->component));
    json_object_set_new(o, "stage", json_string(m->stages[src->comp.stage].name));
    json_object_set_new(o, "g", json_integer((json_int_t)src->comp.g));
    json_object_set_new(o, "u", json_integer((json_int_t)src->comp.u));
    json_object_set_new(o, "v", json_integer((json_int_t)src->comp.v));
  }
  json_object_set_new(o, "states", json_integer((json_int_t)c->moves->nrows));
  json_object_set_new(o, "moves", json_integer((json_int_t)stp__csr_nnz(c->moves)));
  json_object_set_new(o, "seconds_build", report_number(c->seconds_build));
  if (solved) {
    json_object_set_new(o, "levels", json_integer((json_int_t)info->period));
    json_object_set_new(o, "solver", json_string(info->solver));
    json_object_set_new(o, "iterations", json_integer((json_int_t)info->iterations));
    json_object_set_new(o, "residual", report_number(info->residual));
    json_object_set_new(o, "seconds_solve", report_number(info->seconds_solve));
    json_object_set_new(o, "rate", report_number(rate));
    json_object_set_new(o, "throughput", report_number(bound_of(src, rate)));
  }
  int rc = report_json_line(stdout, o);
  json_decref(o);
  return rc;
}

/* Build, write, solve and report the chain of one mapping. */
static int ctmc_one(const ctmc_run *run, const stp_mapping *m, stp_model model) {
  stp_error err = {0};
  chain_source src;
  stp_chain *c = NULL;
  char *what = NULL;
  double *pi = NULL, rate = 0;
  stp_ctmc_info info = {0};
  stp_status s = build_chain(run, m, model, &src, &c, &err);
  if (s == STP_OK && !(what = describe(m, &src)))
    s = stp__oom(&err, "describing the chain");
  const char *mtx = cli_get(run->cmd, run->args, "mtx");
  const char *states = cli_get(run->cmd, run->args, "states");
  if (s == STP_OK && mtx)
    s = write_file(mtx, c, true, what, &err);
  if (s == STP_OK && states)
    s = write_file(states, c, false, NULL, &err);
  if (s == STP_OK && run->solve)
    s = stp__chain_solve(c, &run->opts, run->method, &pi, &rate, &info, &err);
  /* Standard output holds the chain when "-" is given: no summary then. */
  bool quiet = (mtx && strcmp(mtx, "-") == 0) || (states && strcmp(states, "-") == 0);
  int rc = CLI_OK;
  if (s != STP_OK)
    rc = cli_report_error(&err);
  else if (quiet)
    rc = CLI_OK;
  else if (run->json && print_json(m, &src, c, &info, rate, run->solve) != 0)
    rc = CLI_FAILURE;
  else if (!run->json)
    print_text(what, &src, c, &info, rate, run->solve);
  free(pi);
  free(what);
  stp__chain_free(c);
  return rc;
}

static int run_ctmc(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_ctmc_command, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  ctmc_run run;
  int models;
  rc = CLI_USAGE;
  if (!parse_run(&cli_ctmc_command, &a, &run, &models))
    goto out;
  stp_mapping *m;
  stp_model model;
  if ((rc = cli_load_single(&cli_ctmc_command, &a, models, &m, &model)) != CLI_OK)
    goto out;
  rc = ctmc_one(&run, m, model);
  stp_mapping_free(m);
out:
  cli_args_free(&a);
  return rc;
}

const cli_command cli_ctmc_command = {
    .name = "ctmc",
    .synopsis = "ctmc FILE [--component K] [--model overlap|strict] [--mtx OUT] [--states OUT]",
    .summary = "Build one Markov chain of a mapping with exponential times, solve it, and write\n"
               "it for other tools (PRISM, Storm, scipy): the folded pattern of an Overlap\n"
               "transfer component, or the whole Strict chain.",
    .details =
        "--component K is the index of a transfer component in the \"components\" array of\n"
        "`streamtp eval FILE --json` (from 0); it is required under Overlap and refused under\n"
        "Strict.  --mtx writes Q (rows sum to 0) in MatrixMarket coordinate format, states\n"
        "numbered from 1; --states writes, for state s (from 0, row s+1 of Q), its level\n"
        "(firings since the start, modulo the chain's period), the rate at which it completes\n"
        "data sets, and the event-graph transitions it enables; with OUT = - they go to the\n"
        "standard output instead of the summary.  For a connected event graph the throughput\n"
        "is pi . throughput_rate (times g for a component).",
    .options = ctmc_options,
    .run = run_ctmc,
};
