/* args.c: argument parsing primitives (args.h), so that a new command gets
 * them by declaring its options: GNU option parsing (getopt_long over the
 * command's table), help text, usage errors with the nearest accepted word,
 * strict number parsing of option values, "-o FILE", and the options every
 * command takes whatever it declares: --max-memory and --help. */
#include "cli/args.h"

#include "cli/cluster.h"
#include "cli/run.h"
#include "streamtp_base.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_usage_error(const cli_command *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cli_verror(fmt, ap);
  va_end(ap);
  fprintf(stderr, "usage: streamtp %s\nTry 'streamtp %s --help' for more information.\n",
          cmd->synopsis, cmd->name);
}

/* ---- did you mean: the nearest of the accepted words ---------------------- */
/* Levenshtein distance of a[0..la) and b[0..lb) (words of at most 63). */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb) {
  if (la > 63 || lb > 63)
    return SIZE_MAX;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      best = up + 1 < best ? up + 1 : best;
      best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *cli_nearest(const char *s, const char *list, char *out, size_t cap) {
  size_t ls = strlen(s), best = SIZE_MAX;
  const char *pick = NULL;
  size_t pick_len = 0;
  for (const char *w = list; *w;) {
    w += strspn(w, ",| ");
    size_t lw = strcspn(w, ",| ");
    if (!lw)
      break;
    /* a typo (a third of the word at most), or the start of a longer word */
    size_t d = edit_distance(s, ls, w, lw);
    if (ls >= 2 && ls < lw && strncmp(s, w, ls) == 0)
      d = 1;
    size_t room = lw > 3 ? (lw + 1) / 3 : 1;
    if (d <= room && d < best && !(lw == ls && strncmp(s, w, lw) == 0)) {
      best = d;
      pick = w;
      pick_len = lw;
    }
    w += lw;
  }
  if (!pick || pick_len + 1 > cap)
    return NULL;
  memcpy(out, pick, pick_len);
  out[pick_len] = '\0';
  return out;
}

void cli_bad_value(const cli_command *cmd, const char *opt, const char *s, const char *list) {
  char near[64];
  if (cli_nearest(s, list, near, sizeof near))
    cli_usage_error(cmd, "--%s: '%s' is not one of %s (did you mean '%s'?)", opt, s, list, near);
  else
    cli_usage_error(cmd, "--%s: '%s' is not one of %s", opt, s, list);
}

/* The options every command takes besides its own (and --help): cli_parse
 * handles them, so that no command can forget them. */
static const cli_option common_options[] = {
    {"max-memory", 0, "SIZE", "memory budget (default 25% of RAM; 8G, 512M, 50%)"},
    {0}};

/* Option k of the command's table followed by the common ones; NULL past
 * the end. */
static const cli_option *option_at(const cli_command *cmd, int k) {
  int own = 0;
  while (cmd->options[own].name)
    own++;
  if (k < own)
    return &cmd->options[k];
  return common_options[k - own].name ? &common_options[k - own] : NULL;
}

void cli_print_help(FILE *f, const cli_command *cmd) {
  fprintf(f, "usage: streamtp %s\n\n%s\n", cmd->synopsis, cmd->summary);
  if (cmd->details)
    fprintf(f, "\n%s\n", cmd->details);
  fputs("\noptions:\n", f);
  for (int k = 0; option_at(cmd, k); k++) {
    const cli_option *o = option_at(cmd, k);
    char left[128];
    int n = o->short_name ? snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name)
                          : snprintf(left, sizeof left, "    --%s", o->name);
    if (o->metavar && n > 0 && (size_t)n < sizeof left)
      snprintf(left + n, sizeof left - (size_t)n, " %s", o->metavar);
    if (strlen(left) > 28) /* a list of values: the help on the next line */
      fprintf(f, "  %s\n  %-28s %s\n", left, "", o->help);
    else
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

static int find_short(const cli_command *cmd, int c) {
  for (int k = 0; cmd->options[k].name; k++)
    if (c && cmd->options[k].short_name == c)
      return k;
  return -1;
}

void cli_args_free(cli_args *a) {
  free(a->pos);
  a->pos = NULL;
}

/* ---- parsing: getopt_long over the command's table --------------------------------
 * GNU conventions for free: "-j2", "-j 2", "--jobs=2", "--jobs 2",
 * unambiguous abbreviations ("--max-st"), options before or after the files,
 * "--" ends the options and "-" is a file (standard input). */
#define LONG_BASE 1000 /* getopt_long's value for option k: LONG_BASE + k */
#define MEMORY_OPT 999 /* getopt_long's value for --max-memory, which every command takes */

typedef struct getopt_table {
  struct option longs[CLI_MAX_OPTS + 3];
  char shorts[3 * CLI_MAX_OPTS + 4];
} getopt_table;

static void build_table(const cli_command *cmd, getopt_table *t) {
  size_t n = 0, at = 0;
  t->shorts[at++] = ':'; /* a missing value returns ':' rather than '?' */
  for (int k = 0; cmd->options[k].name && n < CLI_MAX_OPTS; k++, n++) {
    const cli_option *o = &cmd->options[k];
    t->longs[n] = (struct option){o->name, o->metavar ? required_argument : no_argument, NULL,
                                  LONG_BASE + k};
    if (o->short_name) {
      t->shorts[at++] = o->short_name;
      if (o->metavar)
        t->shorts[at++] = ':';
    }
  }
  t->longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
  t->longs[n++] = (struct option){"max-memory", required_argument, NULL, MEMORY_OPT};
  t->longs[n] = (struct option){0};
  t->shorts[at++] = 'h';
  t->shorts[at] = '\0';
}

/* A metavar "a|b|c" (lower-case words) lists the only values the option
 * takes: cli_parse checks them (with a "did you mean"), --help shows them
 * and the bash completion offers them (scripts/cli-docs.py). */
static bool is_choice_list(const char *metavar) {
  return metavar && strchr(metavar, '|') && strspn(metavar, "abcdefghijklmnopqrstuvwxyz0123456789-|") ==
                                                   strlen(metavar);
}

static bool in_choice_list(const char *list, const char *s) {
  size_t ls = strlen(s);
  for (const char *w = list; *w; w += strcspn(w, "|"), w += *w == '|')
    if (strcspn(w, "|") == ls && strncmp(w, s, ls) == 0)
      return true;
  return false;
}

/* Every value given to an option with a list of values is one of them. */
static bool check_choices(const cli_command *cmd, const cli_args *a) {
  for (int k = 0; cmd->options[k].name; k++) {
    const char *m = cmd->options[k].metavar, *v = a->value[k];
    if (!v || !is_choice_list(m) || in_choice_list(m, v))
      continue;
    char list[256];
    size_t at = 0;
    for (const char *c = m; *c && at + 3 < sizeof list; c++) {
      if (*c == '|') {
        list[at++] = ',';
        list[at++] = ' ';
      } else {
        list[at++] = *c;
      }
    }
    list[at] = '\0';
    cli_bad_value(cmd, cmd->options[k].name, v, list);
    return false;
  }
  return true;
}

/* getopt_long said no to argv[optind - 1]: say why, as precisely as we can. */
static void explain_refusal(const cli_command *cmd, const char *arg, int opt) {
  if (arg[0] == '-' && arg[1] == '-') {
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int exact = -1, matches = 0, last = -1;
    char list[256] = "";
    size_t used = 0;
    for (int k = 0; option_at(cmd, k); k++)
      if (strncmp(option_at(cmd, k)->name, name, len) == 0) {
        matches++;
        last = k;
        if (strlen(option_at(cmd, k)->name) == len)
          exact = k;
        int w = snprintf(list + used, sizeof list - used, "%s--%s", used ? ", " : "",
                         option_at(cmd, k)->name);
        if (w > 0 && (size_t)w < sizeof list - used)
          used += (size_t)w;
      }
    if (exact < 0 && matches > 1) {
      cli_usage_error(cmd, "option '--%.*s' is ambiguous: %s", (int)len, name, list);
      return;
    }
    if (exact < 0 && matches == 1)
      exact = last; /* the one option it abbreviates */
    if (exact >= 0) {
      const cli_option *o = option_at(cmd, exact);
      if (opt == ':')
        cli_usage_error(cmd, "option '--%s' needs a value (%s)", o->name, o->metavar);
      else
        cli_usage_error(cmd, "option '--%s' takes no value", o->name);
      return;
    }
    char names[1024] = "", near[64];
    for (int k = 0; option_at(cmd, k); k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s ",
               option_at(cmd, k)->name);
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), name);
    if (cli_nearest(word, names, near, sizeof near))
      cli_usage_error(cmd, "unknown option '%s' for '%s' (did you mean '--%s'?)", arg, cmd->name,
                      near);
    else
      cli_usage_error(cmd, "unknown option '%s' for '%s'", arg, cmd->name);
    return;
  }
  int k = find_short(cmd, optopt);
  if (opt == ':' && k >= 0)
    cli_usage_error(cmd, "option '--%s' needs a value (%s)", cmd->options[k].name,
                    cmd->options[k].metavar);
  else
    cli_usage_error(cmd, "unknown option '-%c' for '%s'", optopt ? optopt : '?', cmd->name);
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out) {
  memset(out, 0, sizeof *out);
  out->pos = calloc((size_t)argc + 1, sizeof *out->pos);
  if (!out->pos) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  getopt_table t;
  build_table(cmd, &t);
  /* getopt_long reads argv[0] as the program name: give it the command's. */
  char **av = calloc((size_t)argc + 2, sizeof *av);
  if (!av) {
    cli_args_free(out);
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  av[0] = (char *)cmd->name;
  memcpy(av + 1, argv, (size_t)argc * sizeof *av);
  opterr = 0;
  optind = 0; /* GNU: a full reset, whatever parsed before */
  int rc = CLI_OK, opt, index;
  while (rc == CLI_OK && (opt = getopt_long(argc + 1, av, t.shorts, t.longs, &index)) != -1) {
    if (opt == 'h' && find_short(cmd, 'h') < 0) {
      cli_print_help(stdout, cmd);
      rc = CLI_HELP;
    } else if (opt == '?' || opt == ':') {
      explain_refusal(cmd, av[optind - 1], opt);
      rc = CLI_USAGE;
    } else if (opt == MEMORY_OPT) {
      uint64_t bytes;
      if (cli_parse_size(cmd, "max-memory", optarg, &bytes))
        cli_set_memory_budget(bytes);
      else
        rc = CLI_USAGE;
    } else {
      int k = opt >= LONG_BASE ? opt - LONG_BASE : find_short(cmd, opt);
      out->value[k] = cmd->options[k].metavar ? optarg : "";
    }
  }
  for (int i = optind; rc == CLI_OK && i < argc + 1; i++)
    out->pos[out->npos++] = av[i];
  free(av);
  if (rc == CLI_OK && !check_choices(cmd, out))
    rc = CLI_USAGE;
  if (rc == CLI_OK && !cmd->opens_output)
    rc = cli_open_output(cmd, out);
  if (rc != CLI_OK)
    cli_args_free(out);
  return rc;
}

/* ---- -o FILE ---------------------------------------------------------------------- */
int cli_open_output(const cli_command *cmd, const cli_args *a) {
  int k = find_long(cmd, "output", strlen("output"));
  if (k < 0 || !cmd->options[k].metavar || strcmp(cmd->options[k].metavar, "FILE") != 0)
    return CLI_OK; /* only "-o FILE" means standard output elsewhere (not generate's DIR) */
  const char *path = a->value[k];
  if (!path || strcmp(path, "-") == 0 || cli_mpi_rank() > 0)
    return CLI_OK; /* one rank writes: the others' output goes nowhere */
  return cli_output_whole(path);
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
  if (end == s || *end != '\0' || (!isfinite(v) && errno != ERANGE)) {
    cli_usage_error(cmd, "--%s: '%s' is not a finite number", opt, s);
    return false;
  }
  if (errno == ERANGE) { /* 1e-320 is a number, only too close to 0 to compute with */
    cli_usage_error(cmd, "--%s: %s is too %s for a double (%s); the accepted range is [%g, %g]",
                    opt, s, fabs(v) < 1 ? "close to 0" : "large",
                    fabs(v) < 1 ? "below 2.2e-308" : "beyond 1.8e308", min, max);
    return false;
  }
  if (v < min || v > max) {
    cli_usage_error(cmd, "--%s: %s is out of range [%g, %g]", opt, s, min, max);
    return false;
  }
  *out = v;
  return true;
}

bool cli_parse_time(const cli_command *cmd, const char *opt, const char *s, bool allow_zero,
                    double *out) {
  if (!cli_parse_double(cmd, opt, s, allow_zero ? 0 : STP_TIME_MIN, STP_TIME_MAX, out))
    return false;
  if (*out == 0 || *out >= STP_TIME_MIN)
    return true;
  cli_usage_error(cmd, "--%s: %s is outside [%g, %g] (or 0): sums of such times would "
                  "underflow; rescale the units", opt, s, STP_TIME_MIN, STP_TIME_MAX);
  return false;
}

bool cli_parse_size(const cli_command *cmd, const char *opt, const char *s, uint64_t *out) {
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  double scale = 1;
  if (*end == '%') {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    scale = pages > 0 && size > 0 ? (double)pages * (double)size / 100 : 0;
    end++;
  } else if (*end) {
    const char *units = "KMGT";
    const char *u = strchr(units, *end == 'k' ? 'K' : *end);
    if (u && *end) {
      for (const char *k = units; k <= u; k++)
        scale *= 1024;
      end++;
      if (*end == 'i' && end[1] == 'B')
        end += 2;
      else if (*end == 'B')
        end++;
    }
  }
  double bytes = v * scale;
  if (end == s || *end || errno == ERANGE || !isfinite(bytes) || bytes < 1 << 20 ||
      bytes > 1.8e19 || scale == 0) {
    cli_usage_error(cmd, "--%s: '%s' is not a size of at least 1M (e.g. 512M, 8G, 50%%)", opt,
                    s);
    return false;
  }
  *out = (uint64_t)bytes;
  return true;
}
