/* gantt.c: the --gantt option (cli/gantt.h): parsing, then the library's
 * writer (streamtp_gantt.h) into memory, written whole to standard output
 * or not at all. */
#include "cli/gantt.h"

#include "cli/run.h"

#include <stdlib.h>

bool cli_parse_gantt(const cli_command *cmd, const cli_args *a, bool *on, gantt_spec *s,
                     stp_law **law) {
  *s = (gantt_spec){.periods = STP_GANTT_DEFAULT_PERIODS, .seed = 1};
  *law = NULL;
  *on = cli_flag(cmd, a, "gantt");
  const char *v = cli_get(cmd, a, "periods");
  uint64_t periods;
  if (v && !*on) {
    cli_usage_error(cmd, "--periods needs --gantt");
    return false;
  }
  if (v && !cli_parse_u64(cmd, "periods", v, 1, STP_GANTT_MAX_PERIODS, &periods))
    return false;
  if (v)
    s->periods = (int)periods;
  s->periods_given = v != NULL;
  if (!*on || cli_get(cmd, a, "simulate"))
    return true; /* --law and --seed belong to --simulate */
  if ((v = cli_get(cmd, a, "seed")) && !cli_parse_u64(cmd, "seed", v, 0, UINT64_MAX, &s->seed))
    return false;
  if ((v = cli_get(cmd, a, "law"))) {
    stp_error err = {0};
    if (stp_law_parse(v, NULL, law, &err) != STP_OK) {
      cli_usage_error(cmd, "--law: %s", err.message);
      return false;
    }
    s->law = *law;
  }
  s->random = cli_get(cmd, a, "law") || cli_get(cmd, a, "seed");
  return true;
}

static stp_gantt_options options_of(const gantt_spec *s) {
  stp_gantt_options o;
  stp_gantt_options_init(&o);
  o.title = s->title;
  o.time_unit = s->time_unit;
  o.periods = s->periods_given ? s->periods : 0; /* 0: the default, which a DAG takes */
  o.random = s->random;
  o.law = s->law;
  o.seed = s->seed;
  return o;
}

/* The chart of g (or of m when m is given) into memory, then out whole. */
static int draw(const gantt_spec *s, const stp_mapping *m, stp_model model) {
  if (!m && s->periods_given && stp_graph_is_dag(s->g)) {
    cli_error("--periods: this chart is the one run of an activity DAG, which has no periods "
              "(they belong to timed event graphs)");
    return CLI_USAGE;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_error err = {0};
  stp_gantt_options o = options_of(s);
  stp_status st = m ? stp_mapping_gantt_svg(m, model, &o, mem, &err)
                    : stp_graph_gantt_svg(s->g, &o, mem, &err);
  fclose(mem);
  int rc = st != STP_OK ? (m ? cli_report_mapping_error(&err, model) : cli_report_error(&err))
           : cli_write_record(stdout, buf, len) ? CLI_OK
                                                 : CLI_FAILURE;
  free(buf);
  return rc;
}

int cli_gantt(const gantt_spec *s) { return draw(s, NULL, STP_MODEL_OVERLAP); }

int cli_gantt_mapping(const gantt_spec *s, const stp_mapping *m, stp_model model) {
  return draw(s, m, model);
}
