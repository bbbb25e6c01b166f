/* cmd_simulate.c: `streamtp simulate FILE...`: Monte Carlo run of the event
 * graph with random firing times (any I.I.D. law, independent or associated),
 * the throughput with its 95% confidence interval, and where it lies between
 * the exact bounds [exponential, deterministic]. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_option simulate_options[] = {
    {"model", 0, "overlap|strict", "overlap or strict (default: the file's \"model\", else overlap)"},
    {"law", 0, "SPEC", "default law of the times (default: the file's, else exp); see --help"},
    {"associated", 0, NULL, "associated case: task sizes shared by the n-th use of each resource"},
    {"resource-law", 0, "SPEC", "associated case: law of the speed/bandwidth factor (default det)"},
    {"datasets", 'n', "N", "data sets measured after warm-up (default 1000000)"},
    {"warmup", 0, "N", "data sets discarded at the start of each run (default: a tenth)"},
    {"batches", 0, "B", "batch means over one run with B batches (default 20)"},
    {"replications", 0, "K", "K independent runs instead of batch means"},
    {"seed", 0, "S", "seed of the random generator (default 1)"},
    {"json", 0, NULL, "one JSON object per file, one per line (--format jsonl)"},
    {"format", 0, "text|jsonl|csv|table", "text (default), jsonl, csv or table"},
    {"output", 'o', "FILE", "write to FILE instead of standard output"},
    {"no-bounds", 0, NULL, "do not compute the exact bounds"},
    {"histogram", 0, "FILE.csv", "histogram of the intervals between data-set completions"},
    {"exp-method", 0, "auto|closed-form|ctmc|none", "exponential bound: auto (default), closed-form, ctmc, or none"},
    {"max-transitions", 0, "N", "largest full event graph built for the bounds (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved for the bounds (default 2000000)"},
    {"utilization", 0, NULL, "the busy fraction of every processor and port, simulated with its 95% CI"},
    {"latency", 0, NULL, "the steady-state latency of a data set under a throttled source"},
    {"source-rate", 0, "R", "--latency: data sets released per time unit (default 0.95 x the throughput)"},
    {0}};

static bool parse_law(const char *opt, const char *spec, stp_law **out) {
  stp_error err = {0};
  if (stp_law_parse(spec, NULL, out, &err) == STP_OK)
    return true;
  cli_usage_error(&cli_simulate_command, "--%s: %s", opt, err.message);
  return false;
}

static bool parse_counts(const cli_args *a, stp_sim_options *o) {
  return cli_parse_sim_counts(&cli_simulate_command, a, o);
}

/* --utilization, --latency and --source-rate (a rate: the inverse of a time, in the range
 * of every time). */
static bool parse_explain(const cli_args *a, stp_sim_options *o) {
  const cli_command *cmd = &cli_simulate_command;
  const char *s = cli_get(cmd, a, "source-rate");
  o->utilization = cli_flag(cmd, a, "utilization");
  o->latency = cli_flag(cmd, a, "latency");
  if (s && !o->latency) {
    cli_usage_error(cmd, "--source-rate needs --latency");
    return false;
  }
  return !s || cli_parse_time(cmd, "source-rate", s, false, &o->source_rate);
}

/* ---- --histogram: the law of the period ------------------------------------------------- */
#define HIST_BINS 50
#define HIST_MAX_DATASETS UINT64_C(1000000)

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Where the bins stop being equal: the 99th percentile of x[0..n), when a
 * tail beyond it would squeeze the bulk of the law into the first bins (a
 * hyperexponential put 80% of its intervals into the first of 50 equal
 * bins); else the largest. */
static double bins_top(const double *x, uint64_t n, double lo, double hi) {
  double *y = malloc((size_t)n * sizeof *y);
  if (!y)
    return hi; /* equal bins then: still a histogram */
  memcpy(y, x, (size_t)n * sizeof *y);
  qsort(y, (size_t)n, sizeof *y, cmp_double);
  double q = y[(size_t)((double)n * 0.99 + 0.5) - ((double)n * 0.99 + 0.5 >= 1)];
  free(y);
  return q > lo && q < hi && hi - lo > 2 * (q - lo) ? q : hi;
}

/* One run of min(--datasets, 10^6) data sets (same seed and laws), the
 * interval between consecutive in-order completions of each, as CSV: in
 * HIST_BINS equal bins from the smallest to the largest, or, when the
 * largest lies beyond twice the 99th percentile's distance from the
 * smallest, HIST_BINS - 1 equal bins up to that percentile and one last bin
 * for the tail up to the largest. */
static stp_status write_histogram(const char *path, const stp_mapping *m, stp_model model,
                                  const stp_sim_options *o, stp_error *err) {
  double t0 = cli_now();
  uint64_t n = o->datasets < HIST_MAX_DATASETS ? o->datasets : HIST_MAX_DATASETS;
  double *x = malloc((size_t)n * sizeof *x);
  if (!x) {
    snprintf(err->message, sizeof err->message, "out of memory for %llu intervals",
             (unsigned long long)n);
    return err->status = STP_ENOMEM;
  }
  stp_status s = stp_simulate_intervals(m, model, o, n, x, err);
  FILE *f = NULL;
  stp_atomic_file *whole = NULL; /* written whole: a failed write leaves the old file */
  if (s == STP_OK && (s = stp_atomic_open(path, &whole, &f, err)) != STP_OK)
    stp_error_prefix(err, "--histogram");
  if (s == STP_OK) {
    double lo = x[0], hi = x[0], sum = 0;
    for (uint64_t k = 0; k < n; k++) {
      lo = x[k] < lo ? x[k] : lo;
      hi = x[k] > hi ? x[k] : hi;
      sum += x[k];
    }
    uint64_t count[HIST_BINS] = {0};
    double top = bins_top(x, n, lo, hi);
    int equal = top < hi ? HIST_BINS - 1 : HIST_BINS; /* the last bin: the tail */
    double w = (top - lo) / equal;
    for (uint64_t k = 0; k < n; k++) {
      int b = x[k] > top ? HIST_BINS - 1 : w > 0 ? (int)((x[k] - lo) / w) : 0;
      count[b < equal ? b : equal - 1 + (x[k] > top)]++;
    }
    fprintf(f, "# %s (%s), %s model, law %s: intervals between the completions of %llu "
               "consecutive data sets (mean %.10g), seed %llu; its own run took %.3f s\n",
            stp_mapping_file(m), stp_mapping_name(m), stp_model_name(model),
            o->law ? stp_law_spec(o->law) : "(the file's)", (unsigned long long)n,
            sum / (double)n, (unsigned long long)o->seed, cli_now() - t0);
    /* density: the fraction per time unit, which bins of unequal widths
     * (the tail's) compare by; tail: 1 on the bin beyond the percentile */
    fputs("bin_low,bin_high,count,fraction,density,tail\n", f);
    for (int b = 0; b < (w > 0 ? HIST_BINS : 1); b++) {
      double from = b < equal ? lo + b * w : top, to = b + 1 < equal ? lo + (b + 1) * w
                                                       : b + 1 == equal ? top : hi;
      to = w > 0 ? to : hi;
      double fraction = (double)count[b] / (double)n;
      fprintf(f, "%.10g,%.10g,%llu,%.10g,", from, to, (unsigned long long)count[b], fraction);
      if (to > from)
        fprintf(f, "%.10g", fraction / (to - from));
      fprintf(f, ",%d\n", b >= equal);
    }
    if ((s = stp_atomic_commit(whole, err)) != STP_OK)
      stp_error_prefix(err, "--histogram");
  }
  free(x);
  return s;
}

/* ---- the command -------------------------------------------------------------------- */
static const char *const sim_formats[] = {"text", "jsonl", "csv", "table", NULL};

/* One record: a result, or (r NULL) the error of an input that failed, so
 * that JSON lines and CSV keep one record per input (in text, the message
 * went to standard error). */
static int put_sim(cli_out *out, const char *file, const stp_mapping *m, const stp_sim_result *r,
                   const stp_model *model, const stp_error *failure) {
  stp_error err = {0};
  stp_record *rec = NULL;
  if (r)
    stp_sim_result_json(m, r, &rec, &err);
  else
    stp_error_json("simulate", m ? stp_mapping_file(m) : file, m,
                   model ? stp_model_name(*model) : m ? stp_model_name(stp_mapping_model(m)) : NULL,
                   failure, &rec, &err);
  return cli_out_put(out, rec);
}

static int simulate_one(cli_out *out, const char *path, stp_model *model,
                        const stp_sim_options *o, const char *histogram) {
  stp_error err = {0};
  stp_mapping *m = NULL;
  stp_sim_result *r = NULL;
  int status = CLI_OK;
  if (stp_mapping_load_file(path, &m, &err) != STP_OK) {
    status = cli_report_error(&err);
  } else {
    stp_model mo = model ? *model : stp_mapping_model(m);
    if (stp_simulate(m, mo, o, &r, &err) != STP_OK)
      status = cli_report_error(&err);
    else if (histogram && write_histogram(histogram, m, mo, o, &err) != STP_OK)
      status = cli_report_error(&err);
  }
  if (status != CLI_OK) {
    stp_sim_result_free(r);
    r = NULL;
  }
  const char *file = strcmp(path, "-") ? path : "<stdin>";
  if (put_sim(out, file, m, r, model, &err) != 0)
    status = status > CLI_FAILURE ? status : CLI_FAILURE; /* cli_finish says why */
  stp_sim_result_free(r);
  stp_mapping_free(m);
  return status;
}

static int run_simulate(int argc, char **argv) {
  const cli_command *cmd = &cli_simulate_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_sim_options o;
  stp_sim_options_init(&o);
  o.control = cli_control(); /* Ctrl-C stops the runs (and the bounds, through o.eval) */
  stp_law *law = NULL, *resource = NULL;
  int models, status = CLI_OK;
  const char *s;
  cli_limits limits = {0};
  bool ok = cli_parse_eval_options(cmd, &a, &o.eval, &models, false, &limits) &&
            parse_counts(&a, &o);
  if (ok && (s = cli_get(cmd, &a, "law")))
    ok = parse_law("law", s, &law);
  if (ok && (s = cli_get(cmd, &a, "resource-law")))
    ok = parse_law("resource-law", s, &resource);
  o.associated = cli_flag(cmd, &a, "associated");
  if (ok && resource && !o.associated) {
    cli_usage_error(cmd, "--resource-law needs --associated");
    ok = false;
  }
  if (ok && cli_get(cmd, &a, "batches") && cli_get(cmd, &a, "replications")) {
    cli_usage_error(cmd, "--batches and --replications exclude each other");
    ok = false;
  }
  if (ok)
    ok = parse_explain(&a, &o);
  const char *histogram = cli_get(cmd, &a, "histogram");
  if (ok && histogram && a.npos > 1) {
    cli_usage_error(cmd, "--histogram takes one mapping file");
    ok = false;
  }
  size_t hl = histogram ? strlen(histogram) : 0;
  if (ok && histogram && hl > 4 && strcmp(histogram + hl - 4, ".png") == 0) {
    cli_usage_error(cmd, "--histogram writes CSV; draw it with scripts/plot-histogram.py "
                         "FILE.csv FILE.png");
    ok = false;
  }
  if (ok && a.npos == 0) {
    cli_usage_error(cmd, "no mapping file given");
    ok = false;
  }
  if (!ok)
    status = CLI_USAGE;
  o.law = law;
  o.resource_law = resource;
  o.bounds = !cli_flag(cmd, &a, "no-bounds");
  stp_model model = models == CLI_MODEL_STRICT ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
  int fmt = CLI_FORMAT_TEXT;
  if (ok && !cli_parse_format(cmd, &a, sim_formats, CLI_FORMAT_TEXT, &fmt)) {
    ok = false;
    status = CLI_USAGE;
  }
  if (ok && (o.utilization || o.latency) && (fmt == CLI_FORMAT_CSV || fmt == CLI_FORMAT_TABLE)) {
    cli_usage_error(cmd, "--utilization and --latency are not CSV or table columns; "
                         "use --format jsonl or text");
    ok = false;
    status = CLI_USAGE;
  }
  if (ok) {
    limits.has_seed = true; /* every JSON line records the seed */
    limits.seed = o.seed;
  }
  cli_out out = {0};
  if (ok && !cli_out_open(&out, "simulate", fmt, &limits)) {
    ok = false;
    status = CLI_FAILURE;
  }
  for (int k = 0; ok && k < a.npos && cli_output_ok() && !cli_interrupted(); k++) {
    int st = simulate_one(&out, a.pos[k], models == CLI_MODEL_FILE ? NULL : &model, &o,
                          histogram);
    status = st > status ? st : status;
  }
  if (out.sink && cli_out_close(&out) != 0)
    status = status > CLI_FAILURE ? status : CLI_FAILURE;
  stp_law_free(law);
  stp_law_free(resource);
  cli_args_free(&a);
  return status;
}

const cli_command cli_simulate_command = {
    .name = "simulate",
    .synopsis = "simulate FILE... [--model overlap|strict] [--law SPEC] [--datasets N] "
                "[--seed S] [--json] [--format F] [-o FILE]",
    .summary = "Monte Carlo simulation of the event graph with random times of any I.I.D. law:\n"
               "throughput, 95% confidence interval, and position within the exact bounds.",
    .details =
        "Every time is the mapping's mean (work/speed, output/bandwidth) times a unit-mean\n"
        "draw of its law.  Law specs: det, exp, uniform:spread=X (0 < X <= 1),\n"
        "gamma:cv=X, weibull:cv=X, lognormal:cv=X, normal:cv=X (truncated at 0),\n"
        "beta:a=X,b=Y (scaled), erlang:k=K, hyperexp:cv=X (X > 1), empirical:FILE\n"
        "(samples, rescaled to the mean), and the phase-type laws hyperexp:p=...,rate=...,\n"
        "coxian:rate=...,next=..., ph:alpha=...,T=..., ph:fit=FILE (docs/format.md).\n"
        "A \"laws\" key in the mapping file sets laws per stage and per transfer; --law\n"
        "replaces the file's default only.  When every law is phase-type, the bounds\n"
        "come with the exact throughput under those laws (--no-bounds skips both).\n"
        "The confidence interval comes from batch means over one run, or from\n"
        "--replications K independent runs.  Same seed, same output.\n"
        "--histogram FILE.csv adds one run of min(--datasets, 10^6) data sets and writes the\n"
        "histogram of the intervals between consecutive data-set completions (the law of\n"
        "the period; scripts/plot-histogram.py draws it).\n"
        "--utilization: the busy fraction of every resource (Overlap: compute, in, out;\n"
        "Strict: the processor), det, exp and law exact, and simulated with its 95% CI.\n"
        "--latency: the latency of one data set alone (det, per lcm path), and a second\n"
        "run with the source releasing a data set every 1/R (--source-rate R, default\n"
        "0.95 x the simulated throughput): mean, 95% CI and quantiles 0.5, 0.9, 0.99.\n"
        "A rate at or above the throughput is refused: the latency would grow without bound.\n"
        "Exit status: 0 success, 1 internal failure, 2 bad input or usage.",
    .options = simulate_options,
    .run = run_simulate,
};
