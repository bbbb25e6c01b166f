/* cli.c: option parsing for every subcommand (long options with a space or
 * "=", short aliases, "--" to end options), help text, and strict number
 * parsing of option values. */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("streamtp: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_usage_error(const cli_command *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("streamtp: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fprintf(stderr, "usage: streamtp %s\nTry 'streamtp %s --help' for more information.\n",
          cmd->synopsis, cmd->name);
}

int cli_report_error(const stp_error *err) {
  cli_error("%s", err->message[0] ? err->message : stp_status_message(err->status));
  return stp_status_is_input_error(err->status) ? CLI_USAGE : CLI_FAILURE;
}

void cli_print_help(FILE *f, const cli_command *cmd) {
  fprintf(f, "usage: streamtp %s\n\n%s\n", cmd->synopsis, cmd->summary);
  if (cmd->details)
    fprintf(f, "\n%s\n", cmd->details);
  fputs("\noptions:\n", f);
  for (const cli_option *o = cmd->options; o->name; o++) {
    char left[64];
    int n = o->short_name ? snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name)
                          : snprintf(left, sizeof left, "    --%s", o->name);
    if (o->metavar && n > 0 && (size_t)n < sizeof left)
      snprintf(left + n, sizeof left - (size_t)n, " %s", o->metavar);
    fprintf(f, "  %-28s %s\n", left, o->help);
  }
  fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
}

static int find_long(const cli_command *cmd, const char *name, size_t len) {
  for (int k = 0; cmd->options[k].name; k++)
    if (strlen(cmd->options[k].name) == len && strncmp(cmd->options[k].name, name, len) == 0)
      return k;
  return -1;
}

static int find_short(const cli_command *cmd, char c) {
  for (int k = 0; cmd->options[k].name; k++)
    if (c && cmd->options[k].short_name == c)
      return k;
  return -1;
}

void cli_args_free(cli_args *a) {
  free(a->pos);
  a->pos = NULL;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out) {
  memset(out, 0, sizeof *out);
  out->pos = calloc((size_t)argc + 1, sizeof *out->pos);
  if (!out->pos) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  bool only_pos = false;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (only_pos || arg[0] != '-' || arg[1] == '\0') {
      out->pos[out->npos++] = argv[i];
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      only_pos = true;
      continue;
    }
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cli_print_help(stdout, cmd);
      cli_args_free(out);
      return CLI_HELP;
    }
    int k;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
      const char *eq = strchr(arg + 2, '=');
      size_t len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
      k = find_long(cmd, arg + 2, len);
      inline_value = eq ? eq + 1 : NULL;
    } else {
      k = arg[2] == '\0' ? find_short(cmd, arg[1]) : -1;
    }
    if (k < 0) {
      cli_usage_error(cmd, "unknown option '%s' for '%s'", arg, cmd->name);
      cli_args_free(out);
      return CLI_USAGE;
    }
    const cli_option *o = &cmd->options[k];
    if (!o->metavar) {
      if (inline_value) {
        cli_usage_error(cmd, "option '--%s' takes no value", o->name);
        cli_args_free(out);
        return CLI_USAGE;
      }
      out->value[k] = "";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        cli_usage_error(cmd, "option '--%s' needs a value (%s)", o->name, o->metavar);
        cli_args_free(out);
        return CLI_USAGE;
      }
      inline_value = argv[++i];
    }
    out->value[k] = inline_value;
  }
  return CLI_OK;
}

const char *cli_get(const cli_command *cmd, const cli_args *a, const char *name) {
  int k = find_long(cmd, name, strlen(name));
  return k < 0 ? NULL : a->value[k];
}

bool cli_flag(const cli_command *cmd, const cli_args *a, const char *name) {
  return cli_get(cmd, a, name) != NULL;
}

bool cli_parse_u64(const cli_command *cmd, const char *opt, const char *s, uint64_t min,
                   uint64_t max, uint64_t *out) {
  const char *p = s;
  while (*p == ' ')
    p++;
  if (*p == '-' || *p == '+' || *p == '\0') {
    cli_usage_error(cmd, "--%s: '%s' is not a non-negative integer", opt, s);
    return false;
  }
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  double scaled = 0;
  if (*end == 'e' || *end == 'E') { /* accept 1e6 as a convenience */
    char *end2;
    errno = 0;
    scaled = strtod(p, &end2);
    if (*end2 == '\0' && errno == 0 && isfinite(scaled) && scaled == floor(scaled) &&
        scaled >= 0 && scaled < 1.8e19) {
      v = (unsigned long long)scaled;
      end = end2;
    }
  }
  if (errno == ERANGE || *end != '\0' || end == p) {
    cli_usage_error(cmd, "--%s: '%s' is not a non-negative integer", opt, s);
    return false;
  }
  if (v < min || v > max) {
    cli_usage_error(cmd, "--%s: %s is out of range [%llu, %llu]", opt, s,
                    (unsigned long long)min, (unsigned long long)max);
    return false;
  }
  *out = v;
  return true;
}

bool cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min,
                      double max, double *out) {
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    cli_usage_error(cmd, "--%s: '%s' is not a finite number", opt, s);
    return false;
  }
  if (v < min || v > max) {
    cli_usage_error(cmd, "--%s: %s is out of range [%g, %g]", opt, s, min, max);
    return false;
  }
  *out = v;
  return true;
}

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

bool cli_parse_eval_options(const cli_command *cmd, const cli_args *a, stp_options *o,
                            int *models, bool both) {
  stp_options_init(o);
  const char *s;
  *models = CLI_MODEL_FILE;
  if ((s = cli_get(cmd, a, "model"))) {
    stp_model m;
    if (both && strcmp(s, "both") == 0)
      *models = CLI_MODEL_BOTH;
    else if (stp_model_parse(s, &m) == STP_OK)
      *models = m == STP_MODEL_STRICT ? CLI_MODEL_STRICT : CLI_MODEL_OVERLAP;
    else {
      cli_usage_error(cmd, "--model: '%s' is not one of overlap, strict%s", s,
                      both ? ", both" : "");
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
      cli_usage_error(cmd, "--exp-method: '%s' is not one of auto, closed-form, ctmc, none", s);
      return false;
    }
  }
  return true;
}

bool cli_parse_sim_options(const cli_command *cmd, const cli_args *a, bool has_firings,
                           bool *enabled, stp_graph_sim_options *o, stp_law **law) {
  /* Defaults stated in docs/format.md ("graph"); set here rather than by a
   * library call so the CLI's help and its behaviour are read in one place. */
  memset(o, 0, sizeof *o);
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
  if (has_firings && (s = cli_get(cmd, a, "firings")) &&
      !cli_parse_u64(cmd, "firings", s, 1, UINT64_C(1000000000000), &o->firings))
    return false;
  const char *spec = cli_get(cmd, a, "law");
  if (!*enabled && (spec || cli_get(cmd, a, "seed") ||
                    (has_firings && cli_get(cmd, a, "firings")))) {
    cli_usage_error(cmd, "--law, --seed and --firings need --simulate R");
    return false;
  }
  if (spec) {
    stp_error err;
    if (stp_law_parse(spec, NULL, law, &err) != STP_OK) {
      cli_usage_error(cmd, "--law: %s", err.message);
      return false;
    }
    o->law = *law;
  }
  return true;
}
