/* cmd_ctmc.c: `streamtp ctmc FILE`: one Markov chain of a mapping with
 * exponential times (a transfer component's folded pattern under Overlap,
 * the whole chain under Strict), solved and summarised, and optionally
 * written for other tools: PRISM's explicit files and Storm's DRN (the
 * model checkers), the generator in MatrixMarket (scipy.io.mmread) and a
 * CSV of the states (--format with -o, or the older --mtx and --states).
 * The summary is the library's record (stp_chain_json). */
#include "cli/args.h"
#include "cli/cluster.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_option ctmc_options[] = {
    {"component", 'c', "K", "transfer component K (index in the \"components\" of eval --json)"},
    {"model", 0, "overlap|strict", "overlap or strict (default: the file's \"model\", else overlap)"},
    {"format", 0, "prism|storm|mtx|csv", "prism, storm, mtx or csv: what -o writes (docs/format.md)"},
    {"output", 'o', "OUT", "write the chain to OUT in --format (prism: OUT.tra, .sta, .lab, .srew)"},
    {"mtx", 0, "OUT", "write the generator Q to OUT in MatrixMarket format (- for stdout)"},
    {"states", 0, "OUT", "write one CSV line per state to OUT (- for stdout)"},
    {"solver", 0, "auto|direct|iterative", "auto (default), direct (UMFPACK) or iterative (Gauss-Seidel)"},
    {"no-solve", 0, NULL, "build (and write) the chain without solving it"},
    {"tolerance", 0, "X", "accepted scaled residual of the solve (default 1e-9)"},
    {"json", 0, NULL, "print the summary as one JSON object"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain built (default 2000000)"},
    CLI_DISTRIBUTED_OPTION,
    {0}};

typedef struct ctmc_run {
  const cli_command *cmd;
  const cli_args *args;
  stp_options opts;
  stp_solver method;
  bool solve, json, distributed;
  int format; /* out_format of -o, -1 without it */
  cli_limits limits; /* the record's "limits" (options.h) */
} ctmc_run;

static bool parse_solver(const cli_command *cmd, const char *s, stp_solver *out) {
  if (!s || strcmp(s, "auto") == 0)
    *out = STP_SOLVER_AUTO;
  else if (strcmp(s, "direct") == 0)
    *out = STP_SOLVER_DIRECT;
  else if (strcmp(s, "iterative") == 0)
    *out = STP_SOLVER_ITERATIVE;
  else {
    cli_bad_value(cmd, "solver", s, "auto, direct, iterative");
    return false;
  }
  return true;
}

static bool parse_format(const cli_command *cmd, const cli_args *a, int *format);

static bool parse_run(const cli_command *cmd, const cli_args *a, ctmc_run *run, int *models) {
  *run = (ctmc_run){.cmd = cmd, .args = a};
  if (!cli_parse_eval_options(cmd, a, &run->opts, models, false, &run->limits) ||
      !parse_solver(cmd, cli_get(cmd, a, "solver"), &run->method))
    return false;
  const char *tol = cli_get(cmd, a, "tolerance");
  if (tol && !cli_parse_double(cmd, "tolerance", tol, 1e-16, 1, &run->opts.solver_tolerance))
    return false;
  if (!parse_format(cmd, a, &run->format))
    return false;
  run->solve = !cli_flag(cmd, a, "no-solve");
  run->json = cli_flag(cmd, a, "json");
  run->distributed = cli_flag(cmd, a, "distributed");
  if (run->distributed) {
    static const char *const local[] = {"mtx", "states", "output", "no-solve", "solver", NULL};
    for (const char *const *o = local; *o; o++)
      if (cli_get(cmd, a, *o)) {
        cli_usage_error(cmd, "--distributed solves the chain across MPI ranks without building "
                        "it in one process: --%s does not apply", *o);
        return false;
      }
    if (!cli_check_distributed(cmd))
      return false;
    run->opts.distributed = 1;
  }
  return true;
}

/* --component K: -1 when absent; false (message printed) when not an index. */
static bool parse_component(const ctmc_run *run, long *k) {
  const char *s = cli_get(run->cmd, run->args, "component");
  uint64_t v;
  *k = -1;
  if (!s)
    return true;
  if (!cli_parse_u64(run->cmd, "component", s, 0, (uint64_t)LONG_MAX, &v))
    return false;
  *k = (long)v;
  return true;
}

typedef enum { OUT_MTX, OUT_CSV, OUT_STORM, OUT_PRISM } out_format;

static bool parse_format(const cli_command *cmd, const cli_args *a, int *format) {
  static const char *const names[] = {"mtx", "csv", "storm", "prism"};
  const char *f = cli_get(cmd, a, "format"), *o = cli_get(cmd, a, "output");
  *format = -1;
  if (!f && !o)
    return true;
  if (!f || !o) {
    cli_usage_error(cmd, f ? "--format needs -o OUT" : "-o needs --format prism|storm|mtx|csv");
    return false;
  }
  for (int k = 0; k < 4; k++)
    if (strcmp(f, names[k]) == 0)
      *format = k;
  if (*format < 0) {
    cli_bad_value(cmd, "format", f, "prism, storm, mtx, csv");
    return false;
  }
  if (*format == OUT_PRISM && strcmp(o, "-") == 0) {
    cli_usage_error(cmd, "--format prism writes four files: -o needs a file name, not -");
    return false;
  }
  return true;
}

static stp_status write_one(const stp_chain *c, out_format format, FILE *f, stp_error *err) {
  switch (format) {
  case OUT_MTX: return stp_chain_write_mtx(c, f, stp_chain_description(c), err);
  case OUT_CSV: return stp_chain_write_states(c, f, err);
  case OUT_STORM: return stp_chain_write_drn(c, f, stp_chain_description(c), err);
  default: return stp_chain_write_prism(c, f, NULL, NULL, NULL, err);
  }
}

/* PRISM's four files BASE.tra, .sta, .lab, .srew (a .tra ending of OUT is
 * taken as BASE.tra), each written whole, the four renamed together once
 * all are complete. */
static stp_status write_prism(const char *out, const stp_chain *c, stp_error *err) {
  static const char *const ext[] = {".tra", ".sta", ".lab", ".srew"};
  size_t n = strlen(out);
  if (n > 4 && strcmp(out + n - 4, ".tra") == 0)
    n -= 4;
  stp_atomic_file *a[4] = {0};
  FILE *f[4] = {0};
  char path[4][4096];
  stp_status s = STP_OK;
  for (int k = 0; k < 4 && s == STP_OK; k++) {
    snprintf(path[k], sizeof path[k], "%.*s%s", (int)n, out, ext[k]);
    s = stp_atomic_open(path[k], &a[k], &f[k], err);
  }
  if (s == STP_OK)
    s = stp_chain_write_prism(c, f[0], f[1], f[2], f[3], err);
  for (int k = 0; k < 4; k++) {
    if (s == STP_OK)
      s = stp_atomic_commit(a[k], err);
    else
      stp_atomic_abort(a[k]);
  }
  return s;
}

/* Write the chain to path ("-": standard output; a file: written whole). */
static stp_status write_file(const char *path, const stp_chain *c, out_format format,
                             stp_error *err) {
  if (format == OUT_PRISM)
    return write_prism(path, c, err);
  if (strcmp(path, "-") == 0) {
    stp_status s = write_one(c, format, stdout, err);
    if (s == STP_EIO || fflush(stdout) != 0 || ferror(stdout)) {
      cli_stream_failed(errno); /* the run contract reports a failed standard output */
      return err->status = STP_EIO;
    }
    return s;
  }
  stp_atomic_file *a;
  FILE *f;
  stp_status s = stp_atomic_open(path, &a, &f, err);
  if (s != STP_OK)
    return s;
  s = write_one(c, format, f, err);
  if (s == STP_OK || s == STP_EIO)
    return stp_atomic_commit(a, err) == STP_OK ? s : STP_EIO; /* the commit names the path */
  stp_atomic_abort(a);
  stp_error_prefix(err, "%s", path);
  return s;
}

/* The chain's record (made by the library: stp_chain_json and
 * stp_chain_distributed_json) as the text report or one JSON line,
 * written whole; rec NULL: its producer failed (err). */
static int print_record(const ctmc_run *run, stp_record *rec, const stp_error *err) {
  if (!rec)
    return cli_report_error(err);
  cli_out out;
  if (!cli_out_open(&out, "ctmc", run->json ? CLI_FORMAT_JSONL : CLI_FORMAT_TEXT, &run->limits)) {
    stp_record_free(rec);
    return CLI_FAILURE;
  }
  int rc = cli_out_put(&out, rec) == 0 ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
  if (cli_out_close(&out) != 0)
    rc = CLI_FAILURE;
  return rc;
}

/* Build, write, solve and report the chain of one mapping. */
/* Under Overlap without --component the library names the transfer
 * components to choose from (EINVAL); the option that picks one is ours. */
static void component_advice(stp_error *err, stp_model model, long component) {
  size_t n = strlen(err->message);
  if (err->status == STP_EINVAL && model == STP_MODEL_OVERLAP && component < 0)
    snprintf(err->message + n, sizeof err->message - n, "; choose one with --component K");
}

static int ctmc_one(const ctmc_run *run, const stp_mapping *m, stp_model model, long component) {
  stp_error err = {0};
  stp_chain *c = NULL;
  stp_chain_about about;
  stp_chain_solution sol = {0};
  stp_status s = stp_mapping_chain(m, model, component, &run->opts, &c, &about, &err);
  component_advice(&err, model, component);
  const char *mtx = cli_get(run->cmd, run->args, "mtx");
  const char *states = cli_get(run->cmd, run->args, "states");
  const char *out = cli_get(run->cmd, run->args, "output");
  if (s == STP_OK && mtx)
    s = write_file(mtx, c, OUT_MTX, &err);
  if (s == STP_OK && states)
    s = write_file(states, c, OUT_CSV, &err);
  if (s == STP_OK && out)
    s = write_file(out, c, (out_format)run->format, &err);
  if (s == STP_OK && run->solve)
    s = stp_chain_solve(c, &run->opts, run->method, &sol, &err);
  /* Standard output holds the chain when "-" is given: no summary then. */
  bool quiet = (mtx && strcmp(mtx, "-") == 0) || (states && strcmp(states, "-") == 0) ||
               (out && strcmp(out, "-") == 0);
  int rc = CLI_OK;
  if (s != STP_OK) {
    rc = cli_output_ok() ? cli_report_mapping_error(&err, model) : CLI_FAILURE;
  } else if (!quiet) {
    stp_record *rec = NULL;
    stp_chain_json(m, c, &about, run->solve ? &sol : NULL, &rec, &err);
    rc = print_record(run, rec, &err);
  }
  stp_chain_free(c);
  return rc;
}

/* The chain solved across the MPI ranks: never built in one process. */
static int ctmc_distributed(const ctmc_run *run, const stp_mapping *m, stp_model model,
                            long component) {
  stp_error err = {0};
  stp_chain_about about;
  stp_chain_solution sol = {0};
  int64_t states, moves;
  double seconds_build;
  if (stp_mapping_chain_solve_distributed(m, model, component, &run->opts, &about, &sol,
                                          &states, &moves, &seconds_build, &err) != STP_OK) {
    component_advice(&err, model, component);
    return cli_report_mapping_error(&err, model);
  }
  char what[1024];
  int ranks = cli_mpi_size();
  if (about.model == STP_MODEL_STRICT)
    snprintf(what, sizeof what, "%s (%s): Markov chain of the Strict event graph, across %d MPI "
             "rank%s", stp_mapping_file(m), stp_mapping_name(m), ranks, ranks == 1 ? "" : "s");
  else
    snprintf(what, sizeof what, "%s (%s): Markov chain of component %ld, the %zu x %zu pattern "
             "of the transfer %s -> %s (g = %zu copies), across %d MPI rank%s",
             stp_mapping_file(m), stp_mapping_name(m), about.component, about.u, about.v,
             stp_mapping_stage_name(m, about.stage), stp_mapping_stage_name(m, about.stage + 1),
             about.g, ranks, ranks == 1 ? "" : "s");
  stp_record *rec = NULL;
  stp_chain_distributed_json(m, what, states, moves, seconds_build, &about, &sol, &rec, &err);
  return print_record(run, rec, &err);
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
  long component;
  if (!parse_component(&run, &component))
    goto out;
  stp_mapping *m;
  stp_model model;
  if ((rc = cli_load_single(&cli_ctmc_command, &a, models, &m, &model)) != CLI_OK)
    goto out;
  rc = run.distributed ? ctmc_distributed(&run, m, model, component)
                       : ctmc_one(&run, m, model, component);
  stp_mapping_free(m);
out:
  cli_args_free(&a);
  return rc;
}

const cli_command cli_ctmc_command = {
    .name = "ctmc",
    .synopsis = "ctmc FILE [--component K] [--model overlap|strict] [--format prism|storm|mtx|csv -o OUT]",
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
        "is pi . throughput_rate (times g for a component).\n"
        "--format prism -o BASE writes PRISM's explicit files BASE.tra, BASE.sta, BASE.lab and\n"
        "BASE.srew (prism -importmodel BASE.all -ctmc); --format storm -o F.drn Storm's DRN\n"
        "(storm --explicit-drn F.drn); mtx and csv are --mtx and --states.  Both model\n"
        "checkers get the state reward \"throughput\", whose long-run average is the rate.",
    .options = ctmc_options,
    .run = run_ctmc,
};
