/* options.c: the options several commands share (options.h): an
 * evaluation's model and limits, a phase-type law, the Monte Carlo options
 * of the graph commands, --format, --distributed, and loading the one
 * mapping file of a command. */
#include "cli/options.h"

#include "cli/run.h"
#include "streamtp_distributed.h"

#include <string.h>

int cli_load_single(const cli_command *cmd, const cli_args *a, int models, stp_mapping **m,
                    stp_model *model) {
  *m = NULL;
  if (a->npos != 1) {
    cli_usage_error(cmd, a->npos ? "%s takes one mapping file" : "no mapping file given",
                    cmd->name);
    return CLI_USAGE;
  }
  stp_error err = {0};
  if (stp_mapping_load_file(a->pos[0], m, &err) != STP_OK)
    return cli_report_error(&err);
  *model = models == CLI_MODEL_FILE     ? stp_mapping_model(*m)
           : models == CLI_MODEL_STRICT ? STP_MODEL_STRICT
                                        : STP_MODEL_OVERLAP;
  return CLI_OK;
}

bool cli_parse_max_states(const cli_command *cmd, const cli_args *a, uint64_t *max_states,
                          cli_limits *limits) {
  const char *s = cli_get(cmd, a, "max-states");
  if (s && !cli_parse_u64(cmd, "max-states", s, 1, UINT64_C(1000000000000), max_states))
    return false;
  limits->max_states = *max_states;
  return true;
}

bool cli_parse_eval_options(const cli_command *cmd, const cli_args *a, stp_options *o,
                            int *models, bool both, cli_limits *limits) {
  stp_options_init(o);
  o->control = cli_control();
  const char *s;
  *models = CLI_MODEL_FILE;
  if ((s = cli_get(cmd, a, "model"))) {
    stp_model m;
    if (both && strcmp(s, "both") == 0)
      *models = CLI_MODEL_BOTH;
    else if (stp_model_parse(s, &m) == STP_OK)
      *models = m == STP_MODEL_STRICT ? CLI_MODEL_STRICT : CLI_MODEL_OVERLAP;
    else {
      cli_bad_value(cmd, "model", s, both ? "overlap, strict, both" : "overlap, strict");
      return false;
    }
  }
  if ((s = cli_get(cmd, a, "max-transitions")) &&
      !cli_parse_u64(cmd, "max-transitions", s, 1, UINT64_C(4000000000), &o->max_transitions))
    return false;
  if ((s = cli_get(cmd, a, "max-states")) &&
      !cli_parse_u64(cmd, "max-states", s, 1, UINT64_C(1000000000), &o->max_states))
    return false;
  if ((s = cli_get(cmd, a, "exp-method"))) {
    if (strcmp(s, "auto") == 0)
      o->exp_method = STP_EXP_AUTO;
    else if (strcmp(s, "closed-form") == 0)
      o->exp_method = STP_EXP_CLOSED_FORM;
    else if (strcmp(s, "ctmc") == 0)
      o->exp_method = STP_EXP_CTMC;
    else if (strcmp(s, "none") == 0)
      o->exp_method = STP_EXP_NONE;
    else {
      cli_bad_value(cmd, "exp-method", s, "auto, closed-form, ctmc, none");
      return false;
    }
  }
  limits->max_transitions = o->max_transitions;
  limits->max_states = o->max_states;
  return true;
}

bool cli_parse_law(const cli_command *cmd, const cli_args *a, stp_law **law) {
  *law = NULL;
  const char *spec = cli_get(cmd, a, "law");
  if (!spec)
    return true;
  stp_error err;
  if (stp_law_parse(spec, NULL, law, &err) != STP_OK) {
    cli_usage_error(cmd, "--law: %s", err.message);
    return false;
  }
  return true;
}

const stp_law *cli_exact_law(const stp_law *law, bool simulate) {
  return law && (!simulate || stp_law_phases(law) > 0) ? law : NULL;
}

bool cli_parse_sim_options(const cli_command *cmd, const cli_args *a, bool has_firings,
                           bool law_alone, bool *enabled, stp_graph_sim_options *o,
                           stp_law **law, cli_limits *limits) {
  /* Defaults stated in docs/format.md ("graph"); set here rather than by a
   * library call so the CLI's help and its behaviour are read in one place. */
  memset(o, 0, sizeof *o);
  o->control = cli_control();
  o->runs = 0;
  o->seed = 1;
  o->firings = 10000;
  *law = NULL;
  const char *s = cli_get(cmd, a, "simulate");
  *enabled = s != NULL;
  if (s && !cli_parse_u64(cmd, "simulate", s, 1, UINT64_C(1000000000000), &o->runs))
    return false;
  if ((s = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", s, 0, UINT64_MAX, &o->seed))
    return false;
  if (*enabled) {
    limits->has_seed = true;
    limits->seed = o->seed;
  }
  if (has_firings && (s = cli_get(cmd, a, "firings")) &&
      !cli_parse_u64(cmd, "firings", s, 1, UINT64_C(1000000000000), &o->firings))
    return false;
  const char *spec = cli_get(cmd, a, "law");
  /* --gantt draws one run of --law (cli/gantt.h): there --seed needs no --simulate */
  bool gantt = cli_flag(cmd, a, "gantt");
  if (!*enabled && ((((spec && !law_alone) || cli_get(cmd, a, "seed")) && !gantt) ||
                    (has_firings && cli_get(cmd, a, "firings")))) {
    cli_usage_error(cmd, law_alone ? "--seed and --firings need --simulate R"
                                   : "--law, --seed and --firings need --simulate R");
    return false;
  }
  if (!cli_parse_law(cmd, a, law))
    return false;
  o->law = *law;
  return true;
}

bool cli_parse_format(const cli_command *cmd, const cli_args *a, const char *const *allowed,
                      int dflt, int *fmt) {
  static const char *const names[] = {"text", "jsonl", "csv", "table"};
  *fmt = dflt;
  const char *s = cli_get(cmd, a, "format");
  if (cli_flag(cmd, a, "json")) { /* false where the command has none */
    if (s && strcmp(s, "jsonl") != 0 && strcmp(s, "json") != 0) {
      cli_usage_error(cmd, "--json and --format %s exclude each other", s);
      return false;
    }
    *fmt = CLI_FORMAT_JSONL;
  }
  if (!s)
    return true;
  char list[64] = "";
  for (const char *const *n = allowed; *n; n++) {
    if (strcmp(*n, s) == 0) {
      for (int k = 0; k < 4; k++)
        if (strcmp(names[k], s) == 0 || (k == CLI_FORMAT_JSONL && strcmp(s, "json") == 0))
          *fmt = k; /* json: one JSON object per line, as jsonl */
      return true;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n == allowed ? "" : ", ",
             *n);
  }
  cli_bad_value(cmd, "format", s, list);
  return false;
}

bool cli_check_distributed(const cli_command *cmd) {
  if (stp_distributed_available())
    return true;
  cli_usage_error(cmd, "--distributed: this streamtp was built without PETSc (cmake "
                  "-DSTP_PETSC=ON, after scripts/deps.sh cluster; docs/cluster.md)");
  return false;
}

bool cli_parse_sim_counts(const cli_command *cmd, const cli_args *a, stp_sim_options *o) {
  const char *s;
  uint64_t v;
  if ((s = cli_get(cmd, a, "datasets")) &&
      !cli_parse_u64(cmd, "datasets", s, 2, UINT64_C(1) << 50, &o->datasets))
    return false;
  if ((s = cli_get(cmd, a, "warmup")) &&
      !cli_parse_u64(cmd, "warmup", s, 0, UINT64_C(1) << 50, &o->warmup))
    return false;
  if ((s = cli_get(cmd, a, "batches"))) {
    if (!cli_parse_u64(cmd, "batches", s, 2, CLI_MAX_GROUPS, &v))
      return false;
    o->batches = (uint32_t)v;
  }
  if ((s = cli_get(cmd, a, "replications"))) {
    if (!cli_parse_u64(cmd, "replications", s, 2, CLI_MAX_GROUPS, &v))
      return false;
    o->replications = (uint32_t)v;
  }
  return !(s = cli_get(cmd, a, "seed")) || cli_parse_u64(cmd, "seed", s, 0, UINT64_MAX, &o->seed);
}

