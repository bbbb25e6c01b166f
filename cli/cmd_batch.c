/* cmd_batch.c: `streamtp batch FILE|DIR...`: evaluate many mapping files on
 * worker threads (stp_batch_run) and write one row per file and model, in
 * input order, as CSV or JSON lines.  A bad file gives a row with its error
 * and the batch goes on; Ctrl-C stops it cleanly, keeping the rows done.
 * As one job of a campaign (campaign.h): --shard takes a share of the
 * inputs, --resume appends what an earlier run left undone, --merge puts
 * the jobs' rows back together in input order. */
#include "cli/args.h"
#include "cli/batch_mpi.h"
#include "cli/campaign.h"
#include "cli/cluster.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/rowfile.h"
#include "cli/run.h"
#include "streamtp_batch.h"
#include "streamtp_explain.h"

#include <errno.h>
#include <inttypes.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLAIN_PROGRESS_EVERY 5.0 /* seconds between progress lines off a terminal */

static const cli_option batch_options[] = {
    {"jobs", 'j', "N", "worker threads (default: the number of online cores)"},
    {"model", 0, "overlap|strict|both", "overlap, strict or both (default: each file's \"model\")"},
    {"format", 0, "csv|jsonl", "csv (default) or jsonl"},
    {"output", 'o', "FILE", "write the rows to FILE (default, or '-': standard output)"},
    {"quiet", 'q', NULL, "no progress and no summary on standard error"},
    {"exp-method", 0, "auto|closed-form|ctmc|none", "auto (default), closed-form, ctmc, or none"},
    {"law", 0, "SPEC", "also the exact throughput under this phase-type law (as eval --law)"},
    {"max-transitions", 0, "N", "largest full event graph built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    {"shard", 0, "I/N", "only the inputs k with k mod N = I (default: from SLURM_ARRAY_TASK_ID)"},
    {"resume", 0, "OUT", "append to OUT the rows it lacks: the inputs it holds are skipped"},
    {"merge", 0, "PARTS", "merge the rows in PARTS (a directory or a file) into one run's"},
    {"sensitivity", 0, NULL, "each row also holds the elasticities of eval --sensitivity"},
    {"rank-by", 0, "det|exp|law", "the objective that ranks them (default exp where computed)"},
    {"top", 0, "K", "keep the K largest sensitivities only (JSON lines)"},
    {"utilization", 0, NULL, "each row also holds the busy fractions of eval --utilization"},
    {"latency", 0, NULL, "each row also holds the latency of eval --latency"},
    {"simulate", 0, NULL, "rows of simulate --json instead of eval (Monte Carlo, the same seed for every file)"},
    {"datasets", 'n', "N", "--simulate: data sets measured after warm-up (default 1000000)"},
    {"warmup", 0, "N", "--simulate: data sets discarded at the start of each run (default: a tenth)"},
    {"batches", 0, "B", "--simulate: batch means over one run with B batches (default 20)"},
    {"replications", 0, "K", "--simulate: K independent runs instead of batch means"},
    {"seed", 0, "S", "--simulate: seed of the random generator (default 1)"},
    {"associated", 0, NULL, "--simulate: task sizes shared by the n-th use of each resource"},
    {"resource-law", 0, "SPEC", "--simulate --associated: law of the speed/bandwidth factor"},
    {"no-bounds", 0, NULL, "--simulate: do not compute the exact bounds"},
    {"source-rate", 0, "R", "--simulate --latency: data sets released per time unit"},
    {0}};

typedef struct batch_cli {
  FILE *out;
  bool csv, quiet, tty;
  int format;       /* ROWFILE_GUESS unless --format was given */
  double last_line; /* when the last plain progress line was printed */
  uint64_t shard, shards;
  const char *shard_from; /* the variables the shard comes from; NULL: --shard */
  const char *resume, *merge;
  stp_law *law; /* --law: every row's exact_law (the library only reads it) */
  /* --simulate: the runs' options (cfg->simulate points here) */
  bool simulate;
  stp_sim_options sim;
  stp_law *resource_law;
  const stp_batch_config *cfg; /* the rows' columns follow from it */
  char want[3][32];            /* the values of the campaign's keys (campaign_keys) */
  /* --resume: the slots OUT holds (their rows are not written again), and
   * the statuses of its rows, which count in the exit status */
  const campaign *camp;
  const size_t *orig; /* index in the campaign of each input run */
  const uint8_t *done;
  size_t prior_rows, prior_input_errors, prior_internal_errors;
  cli_out rows; /* the rows' sink, once the format is known (rows_open) */
  cli_limits limits; /* the rows' "limits" (options.h) */
} batch_cli;

/* The kind of the rows: eval's records, or simulate's. */
static const char *rows_kind(const batch_cli *c) { return c->simulate ? "simulate" : "eval"; }

#define BATCH_MAX_COLUMNS 96

/* The CSV columns of these rows: eval's (simulate's) and what the options add. */
static bool rows_columns(const batch_cli *c, stp_sink *sink) {
  const char *cols[BATCH_MAX_COLUMNS];
  stp_error err = {0};
  if (stp_batch_csv_columns(c->cfg, cols, BATCH_MAX_COLUMNS) >= BATCH_MAX_COLUMNS ||
      stp_sink_columns(sink, cols, NULL, &err) != STP_OK) {
    cli_error("cannot set the columns of the rows");
    return false;
  }
  return true;
}

/* The sink of the rows, in the format decided by then (--format, or the
 * file --resume appends to). */
static bool rows_open(batch_cli *c) {
  if (c->rows.sink)
    return true;
  if (!cli_out_open_file(&c->rows, c->out, rows_kind(c),
                         c->csv ? CLI_FORMAT_CSV : CLI_FORMAT_JSONL, &c->limits))
    return false;
  return !c->csv || rows_columns(c, c->rows.sink);
}

/* The CSV header: written (a new output), or only taken as written (a file
 * appended to has it). */
static int rows_header(batch_cli *c, bool write) {
  return rows_open(c) ? cli_out_header(&c->rows, write) : -1;
}

/* OUT holds this row already (--resume after a run killed between two rows
 * of one input): it is not written again. */
static bool held(const batch_cli *c, size_t k, bool model_known, stp_model model) {
  return c->done && model_known &&
         c->done[campaign_row_slot(c->camp, c->orig[k], model)] != ROW_CUT;
}

static stp_status put_row(batch_cli *c, stp_record *rec, const char *path, stp_error *err) {
  int rc = rows_open(c) ? cli_out_put(&c->rows, rec) : (stp_record_free(rec), -1);
  if (rc == 0)
    return STP_OK;
  err->status = STP_EIO;
  snprintf(err->message, sizeof err->message, "cannot write the row of %s", path);
  return STP_EIO;
}

static stp_status write_row(const stp_batch_row *row, void *ctx, stp_error *err) {
  batch_cli *c = ctx;
  if (held(c, row->input, row->model_known, row->model))
    return STP_OK;
  stp_record *rec = NULL;
  stp_batch_row_json(row, &rec, err);
  return put_row(c, rec, row->path, err);
}

#ifdef STP_MPI
/* A row that another rank made (mpirun): the same output. */
static stp_status write_json_row(void *ctx, size_t k, const batch_mpi_row *row,
                                 stp_error *err) {
  batch_cli *c = ctx;
  if (held(c, k, row->model_known, row->model))
    return STP_OK;
  stp_record *rec = NULL;
  if (stp_record_parse(rows_kind(c), row->json, row->len, &rec, err) != STP_OK)
    return STP_EINTERNAL;
  return put_row(c, rec, row->path, err);
}
#endif

static void format_duration(char *buf, size_t n, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void progress_bar(const stp_batch_summary *s) {
  enum { WIDTH = 30 };
  double frac = s->inputs ? (double)s->inputs_done / (double)s->inputs : 1;
  int fill = (int)(frac * WIDTH);
  char bar[WIDTH + 1], eta[32] = "-";
  for (int k = 0; k < WIDTH; k++)
    bar[k] = k < fill ? '#' : '.';
  bar[WIDTH] = '\0';
  double rate = s->seconds > 0 ? (double)s->inputs_done / s->seconds : 0;
  if (rate > 0)
    format_duration(eta, sizeof eta, (double)(s->inputs - s->inputs_done) / rate);
  fprintf(stderr, "\r[%s] %3.0f%% %zu/%zu files  %.1f files/s  ETA %s  %zu failed\033[K", bar,
          100 * frac, s->inputs_done, s->inputs, rate, eta, s->failed_rows);
}

static void on_progress(const stp_batch_summary *s, void *ctx) {
  batch_cli *c = ctx;
  fflush(c->out); /* rows become visible as they are done */
  if (c->quiet)
    return;
  if (c->tty) {
    progress_bar(s);
  } else if (s->seconds - c->last_line >= PLAIN_PROGRESS_EVERY &&
             s->inputs_done < s->inputs) {
    c->last_line = s->seconds;
    fprintf(stderr, "streamtp: batch: %zu/%zu files, %.1f files/s, %zu failed rows\n",
            s->inputs_done, s->inputs, s->seconds > 0 ? (double)s->inputs_done / s->seconds : 0,
            s->failed_rows);
  }
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static void report_failed(size_t rows, size_t input_errors, size_t internal_errors) {
  if (input_errors + internal_errors)
    cli_error("%zu of %zu rows failed (%zu bad input, %zu internal); see the error column",
              input_errors + internal_errors, rows, input_errors, internal_errors);
}

static void print_summary(const batch_cli *c, const stp_batch_summary *s) {
  if (c->tty && !c->quiet)
    fputs("\r\033[K", stderr);
  if (s->interrupted)
    fprintf(stderr,
            "streamtp: interrupted: %zu of %zu files done, %zu row%s written (%zu failed)\n",
            s->inputs_done, s->inputs, s->rows, plural(s->rows), s->failed_rows);
  else if (!c->quiet && cli_output_ok()) /* a failed write: cli_finish says it (or not: EPIPE) */
    fprintf(stderr, "streamtp: batch: %zu file%s, %zu row%s, %zu failed, %.2f s, %.1f files/s\n",
            s->inputs, plural(s->inputs), s->rows, plural(s->rows), s->failed_rows, s->seconds,
            s->seconds > 0 ? (double)s->inputs / s->seconds : 0);
  if (!s->interrupted)
    report_failed(s->rows + c->prior_rows, s->input_errors + c->prior_input_errors,
                  s->internal_errors + c->prior_internal_errors);
}

#ifdef STP_MPI
/* Under mpirun: how the inputs fell on the ranks (the leader, rank 0, evaluates none). */
static void print_ranks(const batch_cli *c, const size_t *per_rank) {
  if (c->quiet || !per_rank)
    return;
  fprintf(stderr, "streamtp: batch: %d ranks, inputs evaluated by ranks 1..%d:", cli_mpi_size(),
          cli_mpi_size() - 1);
  for (int q = 1; q < cli_mpi_size(); q++)
    fprintf(stderr, " %zu", per_rank[q]);
  fputc('\n', stderr);
}
#endif

/* --sensitivity, --rank-by, --top, --utilization, --latency: as eval's. */
static bool parse_explain(const cli_args *a, stp_batch_config *cfg) {
  const cli_command *cmd = &cli_batch_command;
  cfg->sensitivity = cli_flag(cmd, a, "sensitivity");
  cfg->utilization = cli_flag(cmd, a, "utilization");
  cfg->latency = cli_flag(cmd, a, "latency");
  const char *rank = cli_get(cmd, a, "rank-by"), *top = cli_get(cmd, a, "top");
  if (rank) {
    if (!strcmp(rank, "det"))
      cfg->rank_by = STP_RANK_DET;
    else if (!strcmp(rank, "exp"))
      cfg->rank_by = STP_RANK_EXP;
    else if (!strcmp(rank, "law"))
      cfg->rank_by = STP_RANK_LAW;
    else {
      cli_bad_value(cmd, "rank-by", rank, "det exp law");
      return false;
    }
  }
  uint64_t k = 0;
  if (top && !cli_parse_u64(cmd, "top", top, 1, UINT64_MAX, &k))
    return false;
  cfg->top = (size_t)k;
  if ((rank || top) && !cfg->sensitivity) {
    cli_usage_error(cmd, "--%s needs --sensitivity", rank ? "rank-by" : "top");
    return false;
  }
  return true;
}

/* --datasets, --warmup, --batches | --replications, --seed: as simulate's. */
static bool parse_sim_counts(const cli_args *a, stp_sim_options *o) {
  const cli_command *cmd = &cli_batch_command;
  if (cli_get(cmd, a, "batches") && cli_get(cmd, a, "replications")) {
    cli_usage_error(cmd, "--batches and --replications exclude each other");
    return false;
  }
  return cli_parse_sim_counts(cmd, a, o);
}

/* --associated, --resource-law, --no-bounds, --latency's --source-rate. */
static bool parse_sim_case(const cli_args *a, batch_cli *c) {
  const cli_command *cmd = &cli_batch_command;
  stp_sim_options *o = &c->sim;
  const char *s;
  o->associated = cli_flag(cmd, a, "associated");
  if ((s = cli_get(cmd, a, "resource-law"))) {
    stp_error err = {0};
    if (!o->associated) {
      cli_usage_error(cmd, "--resource-law needs --associated");
      return false;
    }
    if (stp_law_parse(s, NULL, &c->resource_law, &err) != STP_OK) {
      cli_usage_error(cmd, "--resource-law: %s", err.message);
      return false;
    }
  }
  o->bounds = !cli_flag(cmd, a, "no-bounds");
  if ((s = cli_get(cmd, a, "source-rate")) && !o->latency) {
    cli_usage_error(cmd, "--source-rate needs --latency");
    return false;
  }
  return !s || cli_parse_time(cmd, "source-rate", s, false, &o->source_rate);
}

/* --simulate and the options of simulate it takes (each refused without
 * it): every row a Monte Carlo run. */
static bool parse_simulate(const cli_args *a, stp_batch_config *cfg, batch_cli *c) {
  const cli_command *cmd = &cli_batch_command;
  static const char *const only[] = {"datasets", "warmup", "batches", "replications", "seed",
                                     "associated", "resource-law", "no-bounds", "source-rate",
                                     NULL};
  c->simulate = cli_flag(cmd, a, "simulate");
  for (int k = 0; only[k] && !c->simulate; k++)
    if (cli_flag(cmd, a, only[k])) {
      cli_usage_error(cmd, "--%s needs --simulate", only[k]);
      return false;
    }
  if (!c->simulate)
    return true;
  if (cfg->sensitivity) {
    cli_usage_error(cmd, "--sensitivity is eval's: not with --simulate");
    return false;
  }
  stp_sim_options *o = &c->sim;
  stp_sim_options_init(o);
  o->utilization = cfg->utilization;
  o->latency = cfg->latency;
  if (!parse_sim_counts(a, o) || !parse_sim_case(a, c))
    return false;
  /* as simulate: --law is the simulation's default law, the bounds as eval's */
  o->law = c->law;
  o->resource_law = c->resource_law;
  o->eval = cfg->options;
  o->eval.law = NULL;
  cfg->simulate = o;
  cfg->utilization = cfg->latency = 0; /* the simulation's own */
  c->limits.has_seed = true;           /* every JSON line records the seed */
  c->limits.seed = o->seed;
  return true;
}

static bool parse_batch_options(const cli_args *a, stp_batch_config *cfg, batch_cli *c) {
  const cli_command *cmd = &cli_batch_command;
  stp_batch_config_init(cfg);
  int models;
  if (!cli_parse_eval_options(cmd, a, &cfg->options, &models, true, &c->limits) ||
      !cli_parse_law(cmd, a, &c->law))
    return false;
  cfg->options.law = c->law;
  c->cfg = cfg;
  if (!parse_explain(a, cfg) || !parse_simulate(a, cfg, c))
    return false;
  cfg->models = models == CLI_MODEL_OVERLAP  ? STP_BATCH_OVERLAP
                : models == CLI_MODEL_STRICT ? STP_BATCH_STRICT
                : models == CLI_MODEL_BOTH   ? STP_BATCH_BOTH
                                             : STP_BATCH_FILE_MODEL;
  const char *s;
  char msg[512];
  c->format = ROWFILE_GUESS;
  if ((s = cli_get(cmd, a, "shard")) &&
      !campaign_parse_shard(s, &c->shard, &c->shards, msg, sizeof msg)) {
    cli_usage_error(cmd, "%s", msg);
    return false;
  }
  c->resume = cli_get(cmd, a, "resume");
  c->merge = cli_get(cmd, a, "merge");
  if (c->resume && c->merge) {
    cli_usage_error(cmd, "--resume and --merge do not go together: resume each part, then merge");
    return false;
  }
  if (c->resume && cli_get(cmd, a, "output")) {
    cli_usage_error(cmd, "--resume OUT writes to OUT: drop -o");
    return false;
  }
  if (c->resume && strcmp(c->resume, "-") == 0) {
    cli_usage_error(cmd, "--resume needs a file, not standard output");
    return false;
  }
  uint64_t jobs = 0;
  if ((s = cli_get(cmd, a, "jobs")) && !cli_parse_u64(cmd, "jobs", s, 1, 1024, &jobs))
    return false;
  cfg->jobs = (size_t)jobs; /* 0: the library uses the online cores */
  c->csv = true;
  if ((s = cli_get(cmd, a, "format"))) {
    if (strcmp(s, "jsonl") == 0) {
      c->csv = false;
      c->format = ROWFILE_JSONL;
    } else if (strcmp(s, "csv") == 0) {
      c->format = ROWFILE_CSV;
    } else {
      cli_bad_value(cmd, "format", s, "csv, jsonl");
      return false;
    }
  }
  c->quiet = cli_flag(cmd, a, "quiet");
  c->tty = isatty(STDERR_FILENO);
  if (a->npos == 0) {
    cli_usage_error(cmd, "no mapping file or directory given");
    return false;
  }
  return true;
}

/* Exit status of a finished batch: 2 if any row has an input error, else 1
 * if any has an internal failure, else 0 (as eval: the worst wins). */
static int errors_status(size_t input_errors, size_t internal_errors) {
  return input_errors ? CLI_USAGE : internal_errors ? CLI_FAILURE : CLI_OK;
}

static int rows_status(const stp_batch_summary *s, const batch_cli *c) {
  return errors_status(s->input_errors + c->prior_input_errors,
                       s->internal_errors + c->prior_internal_errors);
}

static int run_with_inputs(const stp_batch_input *in, size_t n, stp_batch_config *cfg,
                           batch_cli *c, bool header) {
  if (rows_header(c, header) != 0)
    return CLI_FAILURE; /* cli_finish says why */
  cfg->options.control = cli_control(); /* Ctrl-C: cli_run_command catches it */
  cfg->options.control.progress = (stp_progress){0}; /* workers in parallel: the bar says it */
  cli_progress_off();
  cfg->sink = write_row;
  cfg->progress = on_progress;
  cfg->ctx = c;
  stp_batch_summary sum;
  stp_error err = {0};
  stp_status s;
#ifdef STP_MPI
  if (cli_mpi_size() > 1) { /* mpirun: the other ranks evaluate */
    batch_mpi_sink sink = {.put = write_json_row, .progress = on_progress, .ctx = c};
    size_t *per_rank = calloc((size_t)cli_mpi_size(), sizeof *per_rank);
    s = batch_mpi_lead(in, n, &sink, &cfg->options.control.cancel, &sum, per_rank, &err);
    print_summary(c, &sum);
    print_ranks(c, per_rank);
    free(per_rank);
  } else
#endif
  {
    s = stp_batch_run(in, n, cfg, &sum, &err);
    print_summary(c, &sum);
  }
  if (s == STP_EINTERRUPTED)
    return CLI_INTERRUPTED;
  if (s != STP_OK && !cli_output_ok())
    return CLI_FAILURE; /* cli_finish says why (or nothing, on a closed pipe) */
  if (s != STP_OK) {
    cli_error("%s", err.message);
    return CLI_FAILURE; /* threads, memory or output: never the input's fault */
  }
  return rows_status(&sum, c);
}

/* The shard this job takes: --shard, else a Slurm job array's (not for a
 * merge, which a single job runs); the inputs of the shard into *mine. */
static int pick_shard(batch_cli *c, const stp_batch_input *in, size_t n, stp_batch_input **mine,
                      size_t *nmine, char *from, size_t nfrom) {
  char msg[512];
  if (!c->shards && !c->merge) {
    int got = campaign_shard_from_env(&c->shard, &c->shards, from, nfrom, msg, sizeof msg);
    if (got < 0) {
      cli_error("%s", msg);
      return CLI_USAGE;
    }
    c->shard_from = got ? from : NULL;
  }
  if (!c->shards)
    c->shards = 1;
  if (!campaign_select_shard(in, n, c->shard, c->shards, mine, nmine)) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  if (c->shards > 1 && !c->quiet)
    fprintf(stderr, "streamtp: batch: shard %" PRIu64 "/%" PRIu64 "%s%s%s: %zu of %zu inputs\n",
            c->shard, c->shards, c->shard_from ? " (" : "", c->shard_from ? c->shard_from : "",
            c->shard_from ? ")" : "", *nmine, n);
  return CLI_OK;
}

static int merge(const cli_command *cmd, const cli_args *a, const campaign *camp, batch_cli *c) {
  char msg[512], **parts = NULL;
  size_t nparts = 0;
  if (!campaign_list_parts(c->merge, &parts, &nparts, msg, sizeof msg)) {
    cli_error("%s", msg);
    return CLI_USAGE;
  }
  int rc = CLI_OK;
  for (size_t k = 0; rc == CLI_OK && k < nparts; k++) {
    char holder[512];
    if (campaign_lock_holder(parts[k], holder, sizeof holder)) {
      cli_error("%s is being written by %s: merge once it has ended", parts[k], holder);
      rc = CLI_USAGE;
    }
  }
  campaign_plan plan = {0};
  if (rc == CLI_OK)
    rc = campaign_merge_check(camp, parts, nparts, c->format, &plan);
  const char *out = cli_get(cmd, a, "output");
  if (rc == CLI_OK && out && strcmp(out, "-") != 0 && campaign_plan_has_file(&plan, out)) {
    cli_error("-o %s is one of the parts being merged: write the merge elsewhere", out);
    rc = CLI_USAGE;
  }
  /* -o OUT is written whole: a failure leaves the old OUT */
  FILE *f = stdout;
  stp_atomic_file *whole = NULL;
  if (rc == CLI_OK && out && strcmp(out, "-") != 0)
    rc = campaign_make_parent(out);
  if (rc == CLI_OK && out && strcmp(out, "-") != 0)
    rc = cli_open_whole(out, &whole, &f);
  campaign_merged m;
  if (rc == CLI_OK)
    rc = campaign_merge_write(&plan, f, &m);
  if (whole && (rc == CLI_OK || ferror(f))) { /* a failed write: the commit says why */
    int done = cli_commit_whole(whole, f, out);
    rc = rc == CLI_OK ? done : rc;
  } else {
    stp_atomic_abort(whole);
  }
  if (rc == CLI_OK) {
    if (!c->quiet)
      fprintf(stderr, "streamtp: batch: merged %zu part%s: %zu row%s, %zu failed\n", nparts,
              nparts == 1 ? "" : "s", m.rows, m.rows == 1 ? "" : "s", m.failed_rows);
    report_failed(m.rows, m.input_errors, m.internal_errors);
    rc = errors_status(m.input_errors, m.internal_errors);
  }
  campaign_plan_free(&plan);
  for (size_t k = 0; k < nparts; k++)
    free(parts[k]);
  free(parts);
  return rc;
}

/* --resume OUT: the inputs OUT lacks, appended to it (OUT locked). */
static int resume_locked(const campaign *camp, stp_batch_config *cfg, batch_cli *c) {
  char msg[1024];
  char *header = NULL;
  stp_sink *probe = NULL;
  stp_error e = {0};
  if (stp_sink_new(rows_kind(c), STP_FORMAT_CSV, NULL, &probe, &e) == STP_OK &&
      rows_columns(c, probe))
    stp_sink_header(probe, &header, NULL, &e);
  stp_sink_free(probe);
  campaign_resume r = {0};
  int got = header ? campaign_resume_read(camp, c->resume, c->format, header, &r, msg, sizeof msg)
                   : CLI_FAILURE;
  if (got != CLI_OK) {
    cli_error("%s", header ? msg : "out of memory");
    stp_free(header);
    campaign_resume_free(&r);
    return got;
  }
  stp_free(header);
  if (r.dropped) /* said even under --quiet: the file was changed */
    fprintf(stderr, "streamtp: batch: %s: its last row was incomplete (%" PRIu64 " bytes without "
            "a line break: a run killed while writing it): cut off\n", c->resume, r.dropped);
  c->csv = r.format == ROWFILE_CSV;
  stp_batch_input *todo = malloc((camp->n ? camp->n : 1) * sizeof *todo);
  size_t *orig = malloc((camp->n ? camp->n : 1) * sizeof *orig), ntodo = 0;
  for (size_t k = 0; todo && orig && k < camp->n; k++) {
    bool all = true;
    for (size_t j = 0; j < camp->per; j++) {
      uint8_t st = r.status[k * camp->per + j];
      all = all && st != ROW_CUT;
      c->prior_rows += st != ROW_CUT;
      c->prior_input_errors += st == ROW_INPUT_ERROR;
      c->prior_internal_errors += st == ROW_INTERNAL_ERROR;
    }
    if (!all) {
      todo[ntodo] = camp->in[k];
      orig[ntodo++] = k;
    }
  }
  int rc = CLI_OK;
  if (!todo || !orig) {
    cli_error("out of memory");
    rc = CLI_FAILURE;
  } else if (!freopen(c->resume, "a", stdout)) {
    cli_error("%s: cannot open for appending: %s", c->resume, strerror(errno));
    rc = CLI_USAGE;
  } else {
    if (!c->quiet)
      fprintf(stderr, "streamtp: batch: resuming %s: %zu of %zu inputs done, %zu to do\n",
              c->resume, r.inputs_done, camp->n, ntodo);
    c->camp = camp;
    c->orig = orig;
    c->done = r.status;
    if (ntodo) {
      rc = run_with_inputs(todo, ntodo, cfg, c, !r.has_header);
    } else {
      report_failed(c->prior_rows, c->prior_input_errors, c->prior_internal_errors);
      rc = errors_status(c->prior_input_errors, c->prior_internal_errors);
      if (rows_header(c, !r.has_header) != 0)
        rc = CLI_FAILURE; /* an empty campaign still gets its header */
    }
  }
  free(todo);
  free(orig);
  campaign_resume_free(&r);
  return rc;
}

/* One writer per output: the lock is held until every row is out. */
static int resume(const campaign *camp, stp_batch_config *cfg, batch_cli *c) {
  campaign_lock lock;
  int rc = campaign_lock_take(c->resume, &lock);
  if (rc == CLI_OK)
    rc = resume_locked(camp, cfg, c);
  fflush(stdout);
  campaign_lock_release(&lock);
  return rc;
}

/* A plain run: -o OUT is locked, then truncated, and written row by row
 * (a run killed halfway can be resumed). */
static int run_plain(const cli_command *cmd, const cli_args *a, const stp_batch_input *in,
                     size_t n, stp_batch_config *cfg, batch_cli *c) {
  const char *out = cli_get(cmd, a, "output");
  if (!out || strcmp(out, "-") == 0 || cli_mpi_rank() > 0)
    return run_with_inputs(in, n, cfg, c, true);
  campaign_lock lock;
  int rc = campaign_lock_take(out, &lock);
  if (rc == CLI_OK && !freopen(out, "w", stdout)) {
    cli_error("%s: cannot create: %s", out, strerror(errno));
    rc = CLI_USAGE;
  }
  if (rc == CLI_OK)
    rc = run_with_inputs(in, n, cfg, c, true);
  fflush(stdout);
  campaign_lock_release(&lock);
  return rc;
}

/* What the rows of this batch hold, so that --resume and --merge call the
 * rows of a batch with other options foreign (as those of another
 * --model): what each row adds (JSON lines; a CSV header has the columns
 * of its options, which --resume checks), and a simulation's seed,
 * measured data sets, groups, case and law. */
static void campaign_keys(campaign *camp, batch_cli *c) {
  const stp_batch_config *cfg = c->cfg;
  size_t k = 0;
  const char *present = "*";
#define KEY(path, value) (camp->keys[k] = (path), camp->want[k++] = (value))
  if (!c->simulate) {
    KEY("sensitivity", cfg->sensitivity ? present : NULL);
    KEY("utilization", cfg->utilization ? present : NULL);
    KEY("latency", cfg->latency ? present : NULL);
    KEY("simulation.seed", NULL); /* a simulation's rows: CSV and JSON */
  } else {
    const stp_sim_options *o = cfg->simulate;
    bool replicated = o->replications >= 2;
    uint64_t groups = replicated ? o->replications : o->batches;
    snprintf(c->want[0], sizeof c->want[0], "%" PRIu64, o->seed);
    snprintf(c->want[1], sizeof c->want[1], "%" PRIu64, groups ? o->datasets / groups * groups : 0);
    snprintf(c->want[2], sizeof c->want[2], "%" PRIu64, groups);
    KEY("simulation.seed", c->want[0]);
    KEY("simulation.datasets", c->want[1]);
    KEY("simulation.batches", replicated ? NULL : c->want[2]);
    KEY("simulation.replications", replicated ? c->want[2] : NULL);
    KEY("associated", o->associated ? "true" : "false");
    KEY("utilization", o->utilization ? present : NULL);
    KEY("latency", o->latency ? present : NULL);
    KEY("deterministic.throughput", NULL); /* an evaluation's rows: CSV and JSON */
    if (o->law)
      KEY("law", stp_law_spec(o->law));
  }
#undef KEY
  camp->keys[k] = NULL;
}

static int run_inputs(const cli_command *cmd, const cli_args *a, stp_batch_input *in, size_t n,
                      stp_batch_config *cfg, batch_cli *c) {
  char from[128], msg[512];
  stp_batch_input *mine = NULL;
  size_t nmine = 0;
  int rc = pick_shard(c, in, n, &mine, &nmine, from, sizeof from);
  if (rc != CLI_OK)
    return rc;
  campaign camp = {0};
  bool planned = !c->resume && !c->merge;
  if (!planned && campaign_init(&camp, mine, nmine, cfg->models, msg, sizeof msg)) {
    campaign_keys(&camp, c);
    planned = true;
  }
  if (!planned) {
    cli_error("%s", msg);
    rc = CLI_USAGE;
  } else if (c->merge) {
    rc = merge(cmd, a, &camp, c);
  } else if (c->resume) {
    rc = resume(&camp, cfg, c);
  } else {
    rc = run_plain(cmd, a, mine, nmine, cfg, c);
  }
  campaign_free(&camp);
  free(mine);
  return rc;
}

static int run_batch(int argc, char **argv) {
  const cli_command *cmd = &cli_batch_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_batch_config cfg;
  batch_cli c = {.out = stdout};
  stp_batch_input *in = NULL;
  size_t n = 0;
  stp_error err = {0};
  if (!parse_batch_options(&a, &cfg, &c)) {
    rc = CLI_USAGE;
  } else if (!cli_mpi_built() && cli_mpi_launched_size() > 1) {
    cli_error("this streamtp was built without MPI: under mpirun each of the %d ranks would "
              "run the whole batch (cmake -DSTP_MPI=ON; docs/cluster.md)",
              cli_mpi_launched_size());
    rc = CLI_USAGE;
#ifdef STP_MPI
  } else if (cli_mpi_rank() > 0) { /* mpirun: rank 0 lists the inputs and sends them */
    cfg.options.control.cancel = cli_cancel();
    cli_progress_off();
    rc = batch_mpi_work(&cfg);
#endif
  } else if (stp_batch_collect((const char *const *)a.pos, (size_t)a.npos, &in, &n, &err) !=
             STP_OK) {
    rc = cli_report_error(&err);
  } else if (n == 0) {
    cli_error("no mapping file (*.json) found in the given directories");
    rc = CLI_USAGE;
  } else {
    rc = run_inputs(cmd, &a, in, n, &cfg, &c);
  }
  if (c.rows.sink && cli_out_close(&c.rows) != 0)
    rc = rc ? rc : CLI_FAILURE;
  stp_batch_inputs_free(in, n);
  stp_law_free(c.law);
  stp_law_free(c.resource_law);
  cli_args_free(&a);
#ifdef STP_MPI
  batch_mpi_release(); /* whatever happened, no rank waits for inputs any longer */
#endif
  return rc;
}

const cli_command cli_batch_command = {
    .name = "batch",
    .synopsis = "batch FILE|DIR... [--jobs N] [--model overlap|strict|both] [--format csv|jsonl] "
                "[--law SPEC] [-o OUT] [--shard I/N] [--resume OUT | --merge PARTS] "
                "[--sensitivity] [--utilization] [--latency] [--simulate [--datasets N] [--seed S]]",
    .summary = "Evaluate many mapping files on worker threads: one row per file and model, in\n"
               "input order, as CSV or JSON lines.",
    .details = "A directory stands for every *.json file below it (recursively, sorted by path).\n"
               "Rows hold the keys of `eval --json`, flattened (see docs/guide/batch.md).  A file\n"
               "that cannot be read or evaluated gives a row with `status` and `error` filled,\n"
               "and the batch goes on.  Progress goes to standard error: a bar on a terminal, a\n"
               "line every 5 s otherwise.  Ctrl-C stops cleanly: the rows already done are\n"
               "written in order, then a summary.\n"
               "Exit status: 0 every row succeeded, 2 some row has an input error, 1 some row\n"
               "failed internally (or the output could not be written), 130 interrupted.\n"
               "Campaigns (docs/cluster.md): --shard I/N takes the inputs k with k mod N = I\n"
               "(by default, in a Slurm job array, I and N of the array task); --resume OUT skips\n"
               "the inputs OUT holds (rows not cut short by an interrupt) and appends the\n"
               "others' rows; --merge PARTS writes the rows of the parts in input order, as one\n"
               "run would, and fails, naming them, on lost, duplicated or foreign rows (rows\n"
               "made with other options among them).\n"
               "--sensitivity, --utilization, --latency: each row also holds what eval gives\n"
               "(JSON lines: the whole lists; CSV: summary columns: the top-ranked sensitivity,\n"
               "the resource of the largest busy time, the saturated count, the latency).\n"
               "--simulate: each row is simulate --json's of its file (--law is the runs' law;\n"
               "--datasets, --warmup, --batches, --replications, --seed, --associated,\n"
               "--resource-law, --no-bounds, --source-rate as simulate's); every file starts\n"
               "from the same seed, so a row is the same whatever --jobs, --shard or --resume.",
    .options = batch_options,
    .run = run_batch,
    .opens_output = true,
};
