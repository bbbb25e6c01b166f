/* streamtp_gantt.h: Gantt charts of schedules as SVG (report/gantt.c;
 * docs/guide/gantt.md shows them, docs/format.md "Gantt charts" names their
 * classes).  Any event graph is drawn the same way: one bar per firing of
 * its earliest schedule (stp_graph_trace), the critical activities outlined
 * in red, the bars coloured by data set, a legend and the time unit on the
 * axis:
 *   - a timed event graph with constant times: a few periods of its periodic
 *     steady state, the transitions of Howard's critical cycle critical;
 *   - an activity DAG with constant times: its one run, the critical path;
 *   - with random times: one simulated run (a DAG) or a few periods after a
 *     warm-up (a TEG), the chain of activities that bound the last
 *     completion drawn.
 * A graph's rows are its resources (a transition without one gets a row of
 * its own), in order of first use; a mapping's rows are its processors'
 * ports and computations, grouped per processor in stage then team order.
 * Every bar carries its transition, firing, data set, row, start and end as
 * data- attributes so that tests and scripts can read the chart back.  Same
 * conventions as streamtp.h: the writer prints only to the FILE* it is
 * given and names no command-line option. */
#ifndef STREAMTP_GANTT_H
#define STREAMTP_GANTT_H

#include "streamtp_graph.h"
#include "streamtp_pipeline.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STP_GANTT_DEFAULT_PERIODS 3
#define STP_GANTT_MAX_PERIODS 100
#define STP_GANTT_MAX_BARS 20000 /* beyond, the chart is refused: unreadable and heavy */

typedef struct stp_gantt_options {
  const char *title;     /* the first line; NULL: the graph's or mapping's name */
  const char *time_unit; /* the axis reads "time (UNIT)"; NULL: "units of the file" */
  int periods;           /* timed event graph: periods drawn, 1 to STP_GANTT_MAX_PERIODS;
                            0: STP_GANTT_DEFAULT_PERIODS.  Nonzero for a DAG: EINVAL */
  int random;            /* 1: one simulated run instead of the constant times */
  const stp_law *law;    /* random: law of transitions without one; NULL = exp */
  uint64_t seed;         /* random: the seed (default 1) */
} stp_gantt_options;
STP_API void stp_gantt_options_init(stp_gantt_options *o);

/* The chart of g as an SVG document on f, one row per resource.  STP_ELIMIT
 * when it would hold more than STP_GANTT_MAX_BARS bars, STP_EINVAL for
 * periods out of range or given for a DAG; the errors of the analyses
 * otherwise.  Nothing is written on failure. */
STP_API stp_status stp_graph_gantt_svg(const stp_graph *g, const stp_gantt_options *o, FILE *f,
                                       stp_error *err);

/* The chart of m's full event graph under model (stp_mapping_graph), one
 * row per resource: under Overlap a processor's in port (its receives), its
 * computations and its out port (its sends), under Strict one row per
 * processor (it receives, computes and sends in turn); a transfer is drawn
 * in its sender's row and in its receiver's.  Rows are grouped per
 * processor, in stage order then team order; bar colours and labels are
 * data set numbers (row j of the event graph, firing k: data set k R + j
 * for R paths).  Errors: those of stp_mapping_graph and stp_graph_gantt_svg. */
STP_API stp_status stp_mapping_gantt_svg(const stp_mapping *m, stp_model model,
                                         const stp_gantt_options *o, FILE *f, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_GANTT_H */
