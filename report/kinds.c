/* kinds.c: the kinds of record, each with its text report and the
 * columns of its CSV and table outputs (docs/format.md lists them). */
#include "report/record.h"

#include <string.h>

/* --format table of eval: the values a reader compares, once each (the
 * bounds are the two throughputs). */
static const char *const eval_table[] = {"file", "model", "deterministic.throughput",
                                         "exponential.throughput", "exact_law.throughput",
                                         "deterministic.critical_resource", NULL};
static const char *const eval_labels[] = {"file", "model", "det throughput", "exp throughput",
                                          "law throughput", "critical", NULL};

static const stp__record_kind kinds[] = {
    {.name = "eval", .text = stp__text_eval, .csv = stp__eval_csv, .table = eval_table,
     .labels = eval_labels, .csv_derived = stp__utilization_csv},
    {.name = "batch-summary"},
    {.name = "generate", .text = stp__text_generate},
    {.name = "optimize", .text = stp__text_optimize},
    {.name = "simulate", .text = stp__text_simulate, .csv = stp__sim_csv,
     .table = stp__sim_table, .labels = stp__sim_labels, .csv_derived = stp__utilization_csv},
    {.name = "redistribute", .text = stp__text_redistribute, .csv = stp__redistribute_csv,
     .table = stp__redistribute_table, .preamble = stp__preamble_redistribute},
    {.name = "bcast", .text = stp__text_bcast, .csv = stp__bcast_csv, .table = stp__bcast_table,
     .summary = stp__summary_bcast},
    {.name = "bcast-model", .text = stp__text_bcast_model},
    {.name = "bcast-partition", .text = stp__text_bcast_partition},
    {.name = "reduce", .text = stp__text_reduce, .csv = stp__reduce_csv,
     .table = stp__reduce_table},
    {.name = "sweep", .text = stp__text_sweep, .csv = stp__sweep_csv, .table = stp__sweep_csv},
    {.name = "teg", .text = stp__text_teg, .csv = stp__teg_csv, .table = stp__teg_table},
    {.name = "graph", .text = stp__text_graph, .csv = stp__graph_csv, .table = stp__graph_table,
     .labels = stp__graph_labels},
    {.name = "ctmc", .text = stp__text_ctmc},
};

const stp__record_kind *stp__kind_find(const char *name) {
  for (size_t k = 0; name && k < sizeof kinds / sizeof kinds[0]; k++)
    if (strcmp(kinds[k].name, name) == 0)
      return &kinds[k];
  return NULL;
}
