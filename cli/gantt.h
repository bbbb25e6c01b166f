/* gantt.h: Gantt charts of schedules as SVG (the --gantt option of teg,
 * graph, reduce, redistribute and bcast).  Any event graph is drawn the same
 * way: one row per resource (processor, link, machine; a transition without
 * one gets a row of its own), one bar per firing of the earliest schedule
 * (stp_graph_trace), the critical activities in red:
 *   - a timed event graph with constant times: a few periods of its periodic
 *     steady state, the transitions of Howard's critical cycle in red;
 *   - an activity DAG with constant times: its one run, the critical path
 *     in red;
 *   - with a law (random): one simulated run (a DAG) or a few periods after
 *     a warm-up (a TEG), the chain of activities that bound the last
 *     completion drawn in the window in red.
 * Every bar carries its transition, firing, start and end as attributes, so
 * that tests and scripts can read the chart back (tests/gantt/check.py). */
#ifndef STP_CLI_GANTT_H
#define STP_CLI_GANTT_H

#include "cli/args.h"
#include "streamtp_graph.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GANTT_DEFAULT_PERIODS 3
#define GANTT_MAX_BARS 20000 /* beyond, the chart is refused: unreadable and heavy */

typedef struct gantt_spec {
  const stp_graph *g;
  const char *title;      /* the first line of the chart */
  int periods;            /* timed event graphs: periods drawn (>= 1) */
  bool periods_given;     /* --periods was given: refused for a DAG, which has none */
  bool random;            /* one simulated run instead of the constant times */
  const stp_law *law;     /* random: law of transitions without one; NULL = exp */
  uint64_t seed;          /* random */
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
/* Draw s on standard output; the exit status. */
int cli_gantt(const gantt_spec *s);

/* The chart as an SVG document on f.  STP_ELIMIT when it would hold more
 * than GANTT_MAX_BARS bars; the errors of the analyses otherwise. */
stp_status gantt_write(FILE *f, const gantt_spec *s, stp_error *err);

#endif /* STP_CLI_GANTT_H */
