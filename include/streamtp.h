/* streamtp.h: every public header of libstreamtp, for a program that
 * wants the whole library in one line (#include <streamtp/streamtp.h>).
 * Each header also stands alone: streamtp_pipeline.h for mappings,
 * streamtp_graph.h for timed event graphs and DAGs, streamtp_optimize.h,
 * streamtp_batch.h, streamtp_reduce.h, streamtp_redistribute.h,
 * streamtp_bcast.h for the other commands (docs/guide/c.md).
 *
 * Conventions (every header): a fallible function returns an stp_status
 * and writes its outputs through pointers; on failure nothing leaks, *out
 * is NULL and the caller's stp_error holds a message with context.  The
 * library never prints, exits or aborts on bad input.  Free functions
 * accept NULL.
 */
#ifndef STREAMTP_H
#define STREAMTP_H

#include "streamtp_base.h"
#include "streamtp_batch.h"
#include "streamtp_bcast.h"
#include "streamtp_build.h"
#include "streamtp_chain.h"
#include "streamtp_distributed.h"
#include "streamtp_explain.h"
#include "streamtp_explain_report.h"
#include "streamtp_gantt.h"
#include "streamtp_generate.h"
#include "streamtp_graph.h"
#include "streamtp_graph_file.h"
#include "streamtp_law.h"
#include "streamtp_optimize.h"
#include "streamtp_pipeline.h"
#include "streamtp_plot.h"
#include "streamtp_redistribute.h"
#include "streamtp_reduce.h"
#include "streamtp_report.h"

#endif /* STREAMTP_H */
