/* gantt.h: the --gantt option of teg, graph, reduce, redistribute and bcast:
 * its parsing (--gantt, --periods, --law, --seed) into a gantt_spec, and the
 * call of the library's writer (streamtp_gantt.h), whose SVG goes to
 * standard output through the run contract. */
#ifndef STP_CLI_GANTT_H
#define STP_CLI_GANTT_H

#include "cli/args.h"
#include "streamtp_gantt.h"

#include <stdbool.h>

typedef struct gantt_spec {
  const stp_graph *g;    /* the graph drawn (cli_gantt) */
  const char *title;     /* the first line of the chart */
  const char *time_unit; /* the axis's unit; NULL: "units of the file" */
  int periods;           /* timed event graphs: periods drawn (1 to 100) */
  bool periods_given;    /* --periods was given: refused for a DAG, which has none */
  bool random;           /* one simulated run instead of the constant times */
  const stp_law *law;    /* random: law of transitions without one; NULL = exp */
  uint64_t seed;         /* random */
} gantt_spec;

/* The options of a command that draws (with CLI_SIM_OPTIONS for --law and
 * --seed, or its own); CLI_GANTT_PERIODS_OPTION too where the chart can be
 * a timed event graph's (teg, graph), not for commands whose chart is always
 * one run of a DAG (reduce, redistribute, bcast). */
#define CLI_GANTT_OPTIONS \
  {"gantt", 0, NULL, "print an SVG Gantt chart of the schedule, critical activities in red"}
#define CLI_GANTT_PERIODS_OPTION \
  {"periods", 0, "N", "--gantt of a timed event graph: periods drawn (default 3)"}

/* --gantt, --periods, and (for one simulated run) --law and --seed into s
 * (s->g and s->title are the caller's).  *on: whether --gantt was given;
 * *law: the parsed --law, for the caller to free.  False after a usage
 * error. */
bool cli_parse_gantt(const cli_command *cmd, const cli_args *a, bool *on, gantt_spec *s,
                     stp_law **law);
/* Draw s->g on standard output (stp_graph_gantt_svg); the exit status. */
int cli_gantt(const gantt_spec *s);
/* Draw the event graph of m under model, one row per port or processor
 * (stp_mapping_gantt_svg); s->g is not used; the exit status. */
int cli_gantt_mapping(const gantt_spec *s, const stp_mapping *m, stp_model model);

#endif /* STP_CLI_GANTT_H */
