/* cmd_optimize.c: `streamtp optimize FILE...`: the mapping of best
 * throughput for each problem file (a mapping file whose "mapping" is
 * optional), under the deterministic, the exponential or a phase-type
 * law's objective, optionally under a latency limit (stp_optimize); a
 * report or a JSON line per file, and with --write-mapping (-o; --output,
 * its former name, for one release) the problem written back with its
 * "mapping" set to the answer, before the report. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_generate.h"
#include "streamtp_law.h"
#include "streamtp_optimize.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_option optimize_options[] = {
    {"objective", 0, "det|exp|law:SPEC", "det (default: deterministic throughput), exp (the exponential\n"
                          "                               throughput, guaranteed for every N.B.U.E. law) or law:SPEC\n"
                          "                               (the exact throughput of eval --law SPEC, a phase-type law)"},
    {"method", 0, "auto|exact|heuristic|random", "auto (default), exact (branch and bound, with a proof), heuristic\n"
                       "                               (local search), or random (best of random mappings)"},
    {"model", 0, "overlap|strict", "overlap or strict (default: the file's \"model\", else overlap)"},
    {"max-team", 0, "K", "largest team (default: no limit)"},
    {"max-latency", 0, "L", "only mappings whose latency (eval --latency: the longest path of\n"
                          "                               one data set alone) is at most L"},
    {"use", 0, "P1,P2,...", "only these processors"},
    {"fix", 0, "T=P1,P2;...", "keep these teams as given, in this order (';' between stages)"},
    {"time-limit", 0, "S", "stop after S seconds with the best so far (heuristic default 10)"},
    {"max-evaluations", 0, "N", "stop after N candidates (heuristic and random: reproducible)"},
    {"seed", 0, "S", "seed of the heuristic and random methods (default 1)"},
    {"json", 0, NULL, "one JSON object per file, one per line"},
    {"write-mapping", 'o', "FILE.json", "write the problem with its \"mapping\" set to the answer,\n"
                          "                               before the report"},
    {"output", 0, "FILE.json", "the former name of --write-mapping, kept for this release"},
    {"exp-method", 0, "auto|closed-form|ctmc|none", "auto (default), closed-form or ctmc"},
    {"max-transitions", 0, "N", "largest event graph or pattern built (default 20000000)"},
    {"max-states", 0, "N", "largest Markov chain solved (default 2000000)"},
    {0}};

/* ---- options ----------------------------------------------------------------------- */
typedef struct run {
  stp_optimize_options o;
  int models;       /* CLI_MODEL_FILE, _OVERLAP, _STRICT */
  cli_limits limits; /* the records' "limits" (options.h) */
  bool json;
  const char *out;  /* --write-mapping (-o, --output) */
  stp_law *law;     /* --objective law:SPEC */
  char *fix_text;   /* --fix, split at ';' into fix[] */
  const char **fix;
} run;

static bool parse_fix(run *r, const char *s) {
  size_t n = 1;
  for (const char *p = s; *p; p++)
    n += *p == ';';
  r->fix_text = strdup(s);
  r->fix = calloc(n, sizeof *r->fix);
  if (!r->fix_text || !r->fix) {
    cli_error("out of memory");
    return false;
  }
  r->o.nfix = 0;
  for (char *part = r->fix_text, *next; part; part = next) {
    next = strchr(part, ';');
    if (next)
      *next++ = '\0';
    if (*part)
      r->fix[r->o.nfix++] = part;
  }
  r->o.fix = r->fix;
  return true;
}

/* det, exp, or law:SPEC (the law read as eval --law reads it). */
static bool parse_objective(const cli_command *cmd, const char *s, run *r) {
  if (strncmp(s, "law:", 4) == 0) {
    stp_error err;
    if (stp_law_parse(s + 4, NULL, &r->law, &err) != STP_OK) {
      cli_usage_error(cmd, "--objective law:SPEC: %s", err.message);
      return false;
    }
    r->o.objective = STP_OBJECTIVE_LAW;
    r->o.eval.law = r->law;
    return true;
  }
  if (stp_objective_parse(s, &r->o.objective) != STP_OK || r->o.objective == STP_OBJECTIVE_LAW) {
    cli_bad_value(cmd, "objective", s, "det, exp, law:SPEC");
    return false;
  }
  return true;
}

static bool parse_options(const cli_command *cmd, const cli_args *a, run *r) {
  stp_optimize_options_init(&r->o);
  if (!cli_parse_eval_options(cmd, a, &r->o.eval, &r->models, false, &r->limits))
    return false;
  const char *s;
  if ((s = cli_get(cmd, a, "objective")) && !parse_objective(cmd, s, r))
    return false;
  if ((s = cli_get(cmd, a, "method")) && stp_optimize_method_parse(s, &r->o.method) != STP_OK) {
    cli_bad_value(cmd, "method", s, "auto, exact, heuristic, random");
    return false;
  }
  uint64_t k;
  if ((s = cli_get(cmd, a, "max-team"))) {
    if (!cli_parse_u64(cmd, "max-team", s, 1, UINT64_C(1000000), &k))
      return false;
    r->o.max_team = (size_t)k;
  }
  /* a time, as every time of a file: 0 would mean no limit to the library */
  if ((s = cli_get(cmd, a, "max-latency")) &&
      !cli_parse_double(cmd, "max-latency", s, 1e-150, 1e300, &r->o.max_latency))
    return false;
  r->o.use = cli_get(cmd, a, "use");
  if ((s = cli_get(cmd, a, "fix")) && !parse_fix(r, s))
    return false;
  if ((s = cli_get(cmd, a, "time-limit")) &&
      !cli_parse_double(cmd, "time-limit", s, 1e-3, 1e9, &r->o.time_limit))
    return false;
  if ((s = cli_get(cmd, a, "max-evaluations")) &&
      !cli_parse_u64(cmd, "max-evaluations", s, 1, UINT64_MAX, &r->o.max_evaluations))
    return false;
  if ((s = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", s, 0, UINT64_MAX, &r->o.seed))
    return false;
  r->limits.has_seed = true;
  r->limits.seed = r->o.seed;
  r->json = cli_flag(cmd, a, "json");
  r->out = cli_get(cmd, a, "write-mapping");
  const char *old = cli_get(cmd, a, "output");
  if (r->out && old) {
    cli_usage_error(cmd, "--output is the former name of --write-mapping: give one of them");
    return false;
  }
  r->out = r->out ? r->out : old;
  if (r->out && strcmp(r->out, "-") == 0) {
    cli_usage_error(cmd, "--write-mapping -: standard output holds the report; give it a file "
                         "name");
    return false;
  }
  return true;
}

/* ---- output --------------------------------------------------------------------------- */
static int print_answer(const stp_optimize_result *res, int fmt, const cli_limits *limits) {
  stp_error err = {0};
  stp_record *rec = NULL;
  stp_optimize_result_json(res, &rec, &err);
  cli_out out;
  if (!cli_out_open(&out, "optimize", fmt, limits)) {
    stp_record_free(rec);
    return CLI_FAILURE;
  }
  int rc = cli_out_put(&out, rec);
  rc = cli_out_close(&out) == 0 && rc == 0;
  return rc ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
}

/* -o's "laws": the problem's own, each file they name rewritten relative to
 * the answer's directory (stp_law_spec_rebase), so that `eval` of the
 * answer reads the same samples from wherever it is. */
static bool rebase_law(json_t *v, const char *from, const char *to, stp_error *err) {
  char *spec = NULL;
  if (!json_is_string(v))
    return true; /* the problem's reader refused anything else already */
  if (stp_law_spec_rebase(json_string_value(v), from, to, &spec, err) != STP_OK)
    return false;
  json_string_set(v, spec);
  free(spec);
  return true;
}

static bool rebase_laws(json_t *laws, const char *from, const char *to, stp_error *err) {
  bool ok = rebase_law(json_object_get(laws, "default"), from, to, err);
  const char *key;
  json_t *v;
  for (int k = 0; ok && k < 2; k++)
    json_object_foreach(json_object_get(laws, k ? "transfers" : "stages"), key, v)
      ok = ok && rebase_law(v, from, to, err);
  return ok;
}

/* The directory of a path ("." for a bare name), in buf. */
static const char *dir_of(const char *path, char *buf, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return ".";
  snprintf(buf, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  return buf;
}

/* The text of "laws" to write with the answer, NULL when the problem has none. */
static char *answer_laws(const char *input, const char *in_path, const char *out_path,
                         stp_error *err) {
  json_t *root = json_loads(input, 0, NULL), *laws = root ? json_object_get(root, "laws") : NULL;
  char from[4096], to[4096];
  const char *from_dir = strcmp(in_path, "-") ? dir_of(in_path, from, sizeof from) : NULL;
  char *text = NULL;
  if (laws && rebase_laws(laws, from_dir, dir_of(out_path, to, sizeof to), err))
    text = json_dumps(laws, JSON_PRESERVE_ORDER | JSON_COMPACT);
  json_decref(root);
  return text;
}

/* -o: the answer as a mapping file (every stage, processor and link of
 * the problem, the shortest digits that read back to the same numbers,
 * "model" the one optimised), with the problem's "laws", to f, the
 * temporary of the file written whole (stp_atomic_open before the search,
 * so that a path that cannot be written is said before any time is spent,
 * and the answer is on disk before the report is printed). */
static stp_status write_answer(stp_atomic_file *a, FILE *f, const stp_optimize_result *res,
                               const char *input, const char *in_path, const char *out_path,
                               stp_error *err) {
  char *text = NULL, *laws = NULL;
  size_t len = 0;
  *err = (stp_error){0}; /* answer_laws says OK and NULL when there are none */
  if (stp_mapping_to_json(res->mapping, &text, &len, err) != STP_OK ||
      (!(laws = answer_laws(input, in_path, out_path, err)) && err->status != STP_OK)) {
    stp_atomic_abort(a);
    free(text);
    return err->status;
  }
  /* the writer's text ends with the mapping and "}\n": "laws" goes before */
  if (laws && len >= 2 && strcmp(text + len - 2, "}\n") == 0) {
    len -= 2;
    while (len && text[len - 1] == '\n')
      len--;
    fwrite(text, 1, len, f);
    fprintf(f, ",\n  \"laws\": %s\n}\n", laws);
  } else {
    fwrite(text, 1, len, f);
  }
  int e = ferror(f) ? errno : 0; /* the reason, which the commit can no longer see */
  free(text);
  free(laws);
  if (e) {
    stp_atomic_abort(a);
    *err = (stp_error){.status = STP_EIO};
    snprintf(err->message, sizeof err->message, "%s: cannot write: %s", out_path, strerror(e));
    return STP_EIO;
  }
  return stp_atomic_commit(a, err);
}

/* ---- the command -------------------------------------------------------------------------- */
/* Read no more than this: the library refuses larger files with its message. */
#define READ_MAX ((size_t)64 << 20)

/* The whole input (the answer written by -o keeps its "laws"); false with
 * err set (EIO, ENOMEM). */
static bool read_text(const char *path, char **text, size_t *len, stp_error *err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  *err = (stp_error){.status = STP_EIO};
  if (!f) {
    snprintf(err->message, sizeof err->message, "%s: cannot open: %s", path, strerror(errno));
    return false;
  }
  char *buf = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  for (size_t got = 1; ok && got > 0 && n <= READ_MAX; n += got) {
    if (n + 65536 + 1 > cap) {
      char *b = realloc(buf, cap = 2 * (n + 65536 + 1));
      if (!(ok = b != NULL))
        break;
      buf = b;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
  }
  if (!ok)
    *err = (stp_error){.status = STP_ENOMEM, .message = "out of memory"};
  else if (ferror(f))
    snprintf(err->message, sizeof err->message, "%s: cannot read: %s", path, strerror(errno));
  ok = ok && !ferror(f);
  if (f != stdin)
    fclose(f);
  if (!ok) {
    free(buf);
    return false;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return true;
}

/* An input that failed: its message on standard error, and under --json
 * its record (file, model, status, error) so that each input has one. */
static int failed(const run *r, const char *file, const char *model, const stp_error *err) {
  int rc = cli_report_error(err);
  if (r->json && err->status != STP_EINTERRUPTED) {
    stp_error e = {0};
    stp_record *rec = NULL;
    cli_out out;
    stp_error_json("optimize", file, NULL, model, err, &rec, &e);
    if (!cli_out_open(&out, "optimize", CLI_FORMAT_JSONL, &r->limits)) {
      stp_record_free(rec);
      return CLI_FAILURE;
    }
    if (cli_out_put(&out, rec) != 0 || cli_out_close(&out) != 0)
      rc = CLI_FAILURE;
  }
  return rc;
}

static int optimize_one(run *r, const char *path) {
  char *text;
  size_t len;
  stp_error err = {0};
  const char *label = strcmp(path, "-") ? path : "<stdin>";
  if (!read_text(path, &text, &len, &err))
    return failed(r, label, NULL, &err);
  stp_problem *p = NULL;
  stp_optimize_result *res = NULL;
  int rc;
  if (stp_problem_load_string(text, len, label, &p, &err) != STP_OK) {
    free(text);
    return failed(r, label, NULL, &err);
  }
  r->o.model = r->models == CLI_MODEL_FILE     ? stp_problem_model(p)
               : r->models == CLI_MODEL_STRICT ? STP_MODEL_STRICT
                                               : STP_MODEL_OVERLAP;
  stp_atomic_file *a = NULL;
  FILE *f = NULL;
  if (r->out && stp_atomic_open(r->out, &a, &f, &err) != STP_OK) {
    rc = failed(r, label, stp_model_name(r->o.model), &err);
  } else if (stp_optimize(p, &r->o, &res, &err) != STP_OK) {
    stp_atomic_abort(a);
    rc = failed(r, label, stp_model_name(r->o.model), &err);
  } else {
    /* a write that fails once open (a full disk) is exit 1, as eval -o's */
    rc = a && write_answer(a, f, res, text, path, r->out, &err) != STP_OK
             ? (failed(r, label, stp_model_name(r->o.model), &err), CLI_FAILURE)
             : print_answer(res, r->json ? CLI_FORMAT_JSONL : CLI_FORMAT_TEXT, &r->limits);
    if (rc == CLI_OK && res->interrupted) {
      cli_progress_off();
      fputs("streamtp: interrupted: the best mapping found so far is above\n", stderr);
      rc = CLI_INTERRUPTED;
    }
  }
  stp_optimize_result_free(res);
  stp_problem_free(p);
  free(text);
  return rc;
}

static int run_optimize(int argc, char **argv) {
  const cli_command *cmd = &cli_optimize_command;
  cli_args a;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  run r = {0};
  int status = CLI_OK;
  bool usable = false;
  if (!parse_options(cmd, &a, &r))
    ;
  else if (a.npos == 0)
    cli_usage_error(cmd, "no problem file given");
  else if (r.out && a.npos > 1)
    cli_usage_error(cmd, "--write-mapping writes one answer: give one problem file");
  else
    usable = true;
  if (!usable)
    status = CLI_USAGE;
  for (int k = 0; usable && k < a.npos && cli_output_ok() && !cli_interrupted(); k++) {
    int one = optimize_one(&r, a.pos[k]);
    status = one > status ? one : status;
  }
  free(r.fix_text);
  free(r.fix);
  stp_law_free(r.law);
  cli_args_free(&a);
  return status;
}

const cli_command cli_optimize_command = {
    .name = "optimize",
    .synopsis = "optimize FILE... [--objective det|exp|law:SPEC] [--method auto|exact|heuristic|random] "
                "[--model overlap|strict] [--max-latency L] [--json] [--write-mapping FILE.json]",
    .summary = "Choose the mapping: the teams of best throughput for each problem file (a\n"
               "mapping file whose \"mapping\" is optional), with an upper bound and the gap.",
    .details = "Candidates give every stage a non-empty ordered team; a processor serves at most\n"
               "one stage; a link without bandwidth forbids the pairs that would use it. A given\n"
               "\"mapping\" is the starting point: the answer is never worse. exact proves the\n"
               "optimum (branch and bound; without --time-limit it runs to the proof), heuristic\n"
               "searches large problems (local search and restarts; the same --seed and\n"
               "--max-evaluations give the same answer), auto picks exact for small problems.\n"
               "The upper bound is the deterministic one: it bounds every law's throughput\n"
               "(law:SPEC too, N.B.U.E. or not). --max-latency L keeps the mappings whose\n"
               "deterministic latency is at most L; the report and the JSON give the answer's.\n"
               "-o is --write-mapping; --output, its former name, is kept for this release.\n"
               "Progress on standard error after a second; Ctrl-C prints the best mapping so\n"
               "far and exits 130. FILE '-' reads standard input.\n"
               "Exit status: 0 success, 1 internal failure, 2 bad input or usage, 130\n"
               "interrupted.",
    .options = optimize_options,
    .run = run_optimize,
};
