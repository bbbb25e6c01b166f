/* cmd_generate.c: `streamtp generate`: random mapping files following the
 * protocol of the paper's Table 1 (stp_generate), written as
 * DIR/PREFIX-00001.json, ...; seeded, so the same command writes the same
 * files on every machine. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_generate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const generate_formats[] = {"text", "json", "jsonl", NULL};

static const cli_option generate_options[] = {
    {"stages", 0, "N", "number of stages (or the length of --teams)"},
    {"processors", 0, "M", "number of processors, M >= N (all used unless --team-sizes says)"},
    {"teams", 0, "R1,R2,...", "fixed team sizes instead of a random split of M"},
    {"team-sizes", 0, "composition|fit|independent|sequential", "how random team sizes are drawn: composition (default: a\n"
                              "                               uniform split of M), fit (uniform among sizes with sum <= M),\n"
                              "                               independent (each uniform in 1..M/N), or sequential (stage\n"
                              "                               by stage in what is left; the last takes the rest)"},
    {"comp", 0, "A..B", "computation times, uniform in [A, B] (default 5..15; A alone: all A)"},
    {"comm", 0, "A..B", "communication times, uniform in [A, B] (default 5..15)"},
    {"draw", 0, "times|rates|integers", "times (default: uniform times), rates (uniform speeds and\n"
                         "                               bandwidths), or integers (uniform integer times)"},
    {"comp-per", 0, "processor|stage", "processor (default: one computation time each) or stage\n"
                             "                               (one per stage, shared by its team)"},
    {"comm-per", 0, "link|transfer|processor", "link (default: one communication time each), transfer\n"
                             "                               (one per pair of consecutive stages, shared by its links),\n"
                             "                               or processor (one per processor, its private link:\n"
                             "                               p -> q takes the larger of the two)"},
    {"all-links", 0, NULL, "a link for every ordered pair of processors (problems for\n"
                            "                               optimize; per link or per processor)"},
    {"count", 0, "K", "number of mappings (default 1)"},
    {"seed", 0, "S", "seed of the random streams (default 1)"},
    {"model", 0, "overlap|strict", "overlap (default) or strict, written into the files"},
    {"prefix", 0, "P", "file and mapping name prefix (default \"map\")"},
    {"output", 'o', "DIR", "directory to write into (created if missing; refused if it\n"
                           "                               holds PREFIX-*.json files, unless --force)"},
    {"force", 0, NULL, "write into a DIR that already holds PREFIX-*.json files\n"
                       "                               (overwriting those of the same names, leaving the others)"},
    {"json", 0, NULL, "what was written as one JSON object (--format jsonl)"},
    {"format", 0, "text|json|jsonl", "text (default: one line) or json (= jsonl)"},
    {0}};

/* "A..B" or "A" (then B = A), with 0 < A <= B. */
static bool parse_range(const char *opt, const char *s, double *lo, double *hi) {
  const cli_command *cmd = &cli_generate_command;
  const char *dots = strstr(s, "..");
  char first[64];
  size_t n = dots ? (size_t)(dots - s) : strlen(s);
  if (n >= sizeof first) {
    cli_usage_error(cmd, "--%s: '%s' is not a range A..B", opt, s);
    return false;
  }
  memcpy(first, s, n);
  first[n] = '\0';
  if (!cli_parse_double(cmd, opt, first, -HUGE_VAL, HUGE_VAL, lo) ||
      !cli_parse_double(cmd, opt, dots ? dots + 2 : first, -HUGE_VAL, HUGE_VAL, hi))
    return false;
  if (!(*lo > 0)) {
    cli_usage_error(cmd, "--%s: times must be > 0, got %s", opt, s);
    return false;
  }
  if (*hi < *lo) {
    cli_usage_error(cmd, "--%s: the range %s is empty (A > B)", opt, s);
    return false;
  }
  return true;
}

/* "1,3,4" (commas or spaces) -> sizes; *n is the count. */
static bool parse_teams(const char *s, size_t **out, size_t *n) {
  const cli_command *cmd = &cli_generate_command;
  size_t cap = 1;
  for (const char *p = s; *p; p++)
    cap += *p == ',' || *p == ' ';
  size_t *t = calloc(cap, sizeof *t);
  char *copy = malloc(strlen(s) + 1);
  if (!t || !copy) {
    free(t);
    free(copy);
    cli_error("out of memory");
    return false;
  }
  strcpy(copy, s);
  *n = 0;
  bool ok = true;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ", ", &save); tok && ok; tok = strtok_r(NULL, ", ", &save)) {
    uint64_t v;
    ok = cli_parse_u64(cmd, "teams", tok, 1, STP_GENERATE_MAX_PROCESSORS, &v);
    t[(*n)++] = (size_t)v;
  }
  free(copy);
  if (ok && *n == 0) {
    cli_usage_error(cmd, "--teams: no team size in '%s'", s);
    ok = false;
  }
  if (!ok) {
    free(t);
    return false;
  }
  *out = t;
  return true;
}

typedef struct generate_job {
  stp_generate_params params;
  size_t *teams;
  stp_generate_files_options files;
  int format;
} generate_job;

static bool parse_sizes(const cli_args *a, generate_job *job) {
  const cli_command *cmd = &cli_generate_command;
  stp_generate_params *p = &job->params;
  const char *s, *st = cli_get(cmd, a, "stages"), *pr = cli_get(cmd, a, "processors");
  uint64_t v;
  p->processors = 0;
  if ((s = cli_get(cmd, a, "teams"))) {
    if (!parse_teams(s, &job->teams, &p->stages))
      return false;
    p->teams = job->teams;
    if (st && !cli_parse_u64(cmd, "stages", st, 1, STP_GENERATE_MAX_STAGES, &v))
      return false;
    if (st && v != p->stages) {
      cli_usage_error(cmd, "--stages %s disagrees with the %zu teams of --teams", st, p->stages);
      return false;
    }
  } else if (!st || !pr) {
    cli_usage_error(cmd, "give --stages and --processors, or --teams");
    return false;
  } else if (!cli_parse_u64(cmd, "stages", st, 1, STP_GENERATE_MAX_STAGES, &v)) {
    return false;
  } else {
    p->stages = (size_t)v;
  }
  if (pr) {
    if (!cli_parse_u64(cmd, "processors", pr, 1, STP_GENERATE_MAX_PROCESSORS, &v))
      return false;
    p->processors = (size_t)v;
  }
  return true;
}

/* s as one of names[0..n), whose index goes to *out. */
static bool parse_choice(const char *opt, const char *s, const char *const *names, int n,
                         int *out) {
  for (int k = 0; k < n; k++)
    if (strcmp(s, names[k]) == 0) {
      *out = k;
      return true;
    }
  char list[128] = "";
  for (int k = 0; k < n; k++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", names[k]);
  cli_bad_value(&cli_generate_command, opt, s, list);
  return false;
}

/* --team-sizes, --comp-per, --comm-per: the readings of the paper's protocol. */
static bool parse_readings(const cli_args *a, stp_generate_params *p) {
  static const char *const teams[] = {"composition", "fit", "independent", "sequential"};
  static const char *const comp[] = {"processor", "stage"};
  static const char *const comm[] = {"link", "transfer", "processor"};
  const cli_command *cmd = &cli_generate_command;
  const char *s;
  int k;
  if ((s = cli_get(cmd, a, "team-sizes"))) {
    if (!parse_choice("team-sizes", s, teams, 4, &k))
      return false;
    if (p->teams) {
      cli_usage_error(cmd, "--team-sizes draws team sizes, --teams fixes them: give one");
      return false;
    }
    p->team_sizes = (stp_generate_teams)k;
  }
  if ((s = cli_get(cmd, a, "comp-per"))) {
    if (!parse_choice("comp-per", s, comp, 2, &k))
      return false;
    p->comp_per = (stp_generate_comp)k;
  }
  if ((s = cli_get(cmd, a, "comm-per"))) {
    if (!parse_choice("comm-per", s, comm, 3, &k))
      return false;
    p->comm_per = (stp_generate_comm)k;
  }
  return true;
}

static bool parse_generate_options(const cli_args *a, generate_job *job) {
  const cli_command *cmd = &cli_generate_command;
  stp_generate_params *p = &job->params;
  stp_generate_params_init(p);
  const char *s;
  stp_generate_files_options_init(&job->files);
  if (a->npos) {
    cli_usage_error(cmd, "unexpected argument '%s'", a->pos[0]);
    return false;
  }
  if (!(job->files.directory = cli_get(cmd, a, "output")) || !*job->files.directory) {
    cli_usage_error(cmd, "no output directory (-o DIR)");
    return false;
  }
  if (!parse_sizes(a, job))
    return false;
  if ((s = cli_get(cmd, a, "comp")) && !parse_range("comp", s, &p->comp_min, &p->comp_max))
    return false;
  if ((s = cli_get(cmd, a, "comm")) && !parse_range("comm", s, &p->comm_min, &p->comm_max))
    return false;
  if ((s = cli_get(cmd, a, "draw"))) {
    if (strcmp(s, "times") == 0)
      p->draw = STP_DRAW_TIMES;
    else if (strcmp(s, "rates") == 0)
      p->draw = STP_DRAW_RATES;
    else if (strcmp(s, "integers") == 0)
      p->draw = STP_DRAW_INTEGER_TIMES;
    else {
      cli_bad_value(cmd, "draw", s, "times, rates, integers");
      return false;
    }
  }
  if (!parse_readings(a, p))
    return false;
  p->all_links = cli_flag(cmd, a, "all-links");
  if ((s = cli_get(cmd, a, "count")) &&
      !cli_parse_u64(cmd, "count", s, 1, STP_GENERATE_MAX_FILES, &job->files.count))
    return false;
  if ((s = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", s, 0, UINT64_MAX, &p->seed))
    return false;
  if ((s = cli_get(cmd, a, "model")) && stp_model_parse(s, &p->model) != STP_OK) {
    cli_bad_value(cmd, "model", s, "overlap, strict");
    return false;
  }
  if ((s = cli_get(cmd, a, "prefix")))
    job->files.prefix = s;
  job->files.force = cli_flag(cmd, a, "force");
  return cli_parse_format(cmd, a, generate_formats, CLI_FORMAT_TEXT, &job->format);
}

/* The files, then what was written, as a record. */
static int write_all(generate_job *job) {
  job->files.control = cli_control(); /* Ctrl-C: no new file (every file written is whole) */
  stp_error err = {0};
  stp_generate_files_result *r = NULL;
  if (stp_generate_files(&job->params, &job->files, &r, &err) != STP_OK) {
    if (err.status == STP_EINVAL && strstr(err.message, "from another run")) /* the advice */
      snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
               " (--prefix, --force)");
    return cli_report_error(&err);
  }
  stp_record *rec = NULL;
  stp_generate_files_json(r, &rec, &err);
  stp_generate_files_result_free(r);
  cli_out out;
  if (!cli_out_open(&out, "generate", job->format, NULL)) {
    stp_record_free(rec);
    return CLI_FAILURE;
  }
  int rc = cli_out_put(&out, rec);
  return cli_out_close(&out) == 0 && rc == 0 ? CLI_OK : CLI_FAILURE;
}

static int run_generate(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_generate_command, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  generate_job job = {0};
  rc = parse_generate_options(&a, &job) ? write_all(&job) : CLI_USAGE;
  free(job.teams);
  cli_args_free(&a);
  return rc;
}

const cli_command cli_generate_command = {
    .name = "generate",
    .synopsis = "generate --stages N --processors M [--comp A..B] [--comm A..B] [--count K] "
                "[--seed S] -o DIR",
    .summary = "Write random mapping files following the protocol of the paper's Table 1.",
    .details =
        "Every processor joins exactly one team; the team sizes are a uniformly random\n"
        "split of M into N positive parts (or --teams; --team-sizes gives other readings,\n"
        "some leaving processors unused).  Computation times (one per processor, or per\n"
        "stage with --comp-per stage) and communication times (one per link that carries\n"
        "data, or per transfer or per processor with --comm-per) are drawn in their ranges\n"
        "(--draw): the files hold work = output = 1, speed = 1/time and bandwidth =\n"
        "1/time (one default bandwidth when --comm is a single value).\n"
        "Mapping k is DIR/PREFIX-0000k.json; it depends only on the options, the seed\n"
        "and k, never on the machine or on --count.",
    .options = generate_options,
    .run = run_generate,
};
