/* cmd_teg.c: `streamtp teg FILE`: the timed event graph of a mapping, as a
 * summary (the library's record, stp_teg_json) or as Graphviz (--dot), to
 * look at. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gantt.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run.h"
#include "streamtp_graph_file.h"

#include <stdlib.h>

static const cli_option teg_options[] = {
    {"model", 0, "overlap|strict", "overlap or strict (default: the file's \"model\")"},
    {"dot", 0, NULL, "print the graph in Graphviz dot format"},
    {"graph-json", 0, NULL, "print the graph as a graph file (streamtp graph reads it)"},
    {"json", 0, NULL, "print the summary as one JSON object"},
    {"format", 0, "text|jsonl|csv|table", "the summary as text (default), jsonl (as --json), csv "
                                          "or table"},
    CLI_GANTT_OPTIONS,
    CLI_GANTT_PERIODS_OPTION,
    {"law", 0, "SPEC", "--gantt: draw one simulated run with times of this law (default: constant)"},
    {"seed", 0, "S", "--gantt with --law: seed of the run (default 1)"},
    {"max-transitions", 0, "N", "largest event graph built (default 20000000)"},
    {0}};

/* The summary as its record (stp_teg_json), as the text report or one
 * JSON line, written whole through the run contract. */
static const char *const teg_formats[] = {"text", "jsonl", "csv", "table", NULL};

static int print_summary(const stp_mapping *m, const stp_teg_summary *t, int fmt,
                         const cli_limits *limits) {
  stp_error err = {0};
  stp_record *rec = NULL;
  if (stp_teg_json(m, t, &rec, &err) != STP_OK)
    return cli_report_error(&err);
  cli_out out;
  if (!cli_out_open(&out, "teg", fmt, limits)) {
    stp_record_free(rec);
    return CLI_FAILURE;
  }
  int rc = cli_out_put(&out, rec) == 0 ? CLI_OK : CLI_FAILURE; /* cli_finish says why */
  if (cli_out_close(&out) != 0)
    rc = CLI_FAILURE;
  return rc;
}

/* The Gantt chart of the mapping's event graph (streamtp_gantt.h): one row
 * per port and computation (Overlap) or per processor (Strict).  The size
 * limit is checked first, as for --dot. */
static int draw_gantt(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                      gantt_spec *gs) {
  stp_error err = {0};
  stp_teg_summary sum;
  if (stp_mapping_teg_summary(m, model, max_transitions, &sum, &err) != STP_OK)
    return cli_report_mapping_error(&err, model);
  return cli_gantt_mapping(gs, m, model);
}

/* The event graph of the mapping as a graph file (json) or Graphviz dot,
 * written as one record (cli_record: whole or not at all, a full disk
 * reported once by the run contract).  The size limit is checked first
 * (the summary is cheap) so that --max-transitions holds, then the memory
 * of the graph and of its text against --max-memory. */
static int write_graph(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                       bool json) {
  stp_error err = {0};
  stp_teg_summary sum;
  if (stp_mapping_teg_summary(m, model, max_transitions, &sum, &err) != STP_OK)
    return cli_report_mapping_error(&err, model);
  double text = 100.0 * ((double)sum.transitions + (double)sum.places); /* bytes per line */
  double graph = json ? stp_graph_memory_estimate(sum.transitions, sum.places, 0) : 0;
  if (!cli_within_budget(json ? "the event graph and its graph file" : "the dot file",
                         graph + text))
    return CLI_USAGE;
  cli_record r;
  if (!cli_record_open(&r)) {
    cli_error("out of memory");
    return CLI_FAILURE;
  }
  stp_status st;
  if (json) {
    stp_graph *g = NULL;
    st = stp_mapping_graph(m, model, &g, &err);
    if (st == STP_OK)
      st = stp_graph_write_json(g, r.f, &err);
    stp_graph_free(g);
  } else {
    st = stp_mapping_write_dot(m, model, max_transitions, r.f, &err);
  }
  if (st != STP_OK) {
    cli_record_discard(&r);
    return cli_report_mapping_error(&err, model);
  }
  cli_record_close(&r); /* a failed write: the run contract's exit 1 or 141 */
  return CLI_OK;
}

static int run_teg(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(&cli_teg_command, argc, argv, &a);
  if (rc != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  stp_options o;
  int models, fmt;
  cli_limits limits = {0};
  rc = CLI_USAGE;
  if (!cli_parse_eval_options(&cli_teg_command, &a, &o, &models, false, &limits) ||
      !cli_parse_format(&cli_teg_command, &a, teg_formats, CLI_FORMAT_TEXT, &fmt))
    goto out;
  stp_mapping *m;
  stp_model model;
  if ((rc = cli_load_single(&cli_teg_command, &a, models, &m, &model)) != CLI_OK)
    goto out;
  stp_error err = {0};
  stp_teg_summary sum;
  bool dot = cli_flag(&cli_teg_command, &a, "dot"), json = cli_flag(&cli_teg_command, &a, "graph-json");
  bool summary_json = fmt != CLI_FORMAT_TEXT, gantt;
  gantt_spec gs;
  stp_law *law = NULL;
  stp_status st;
  if (!cli_parse_gantt(&cli_teg_command, &a, &gantt, &gs, &law)) {
    stp_mapping_free(m);
    rc = CLI_USAGE;
    goto out;
  }
  if ((cli_get(&cli_teg_command, &a, "law") || cli_get(&cli_teg_command, &a, "seed")) && !gantt) {
    cli_usage_error(&cli_teg_command, "--law and --seed need --gantt");
    stp_law_free(law);
    stp_mapping_free(m);
    rc = CLI_USAGE;
    goto out;
  }
  if (gantt && !dot && !json && !summary_json) {
    rc = draw_gantt(m, model, o.max_transitions, &gs);
    stp_law_free(law);
    stp_mapping_free(m);
    goto out;
  }
  stp_law_free(law);
  if (dot + json + summary_json + gantt > 1) {
    cli_usage_error(&cli_teg_command, "--dot, --graph-json, %s and --gantt exclude each other",
                    cli_get(&cli_teg_command, &a, "format") ? "--format" : "--json");
    stp_mapping_free(m);
    rc = CLI_USAGE;
    goto out;
  }
  if (json || dot)
    rc = write_graph(m, model, o.max_transitions, json);
  else if ((st = stp_mapping_teg_summary(m, model, o.max_transitions, &sum, &err)) != STP_OK)
    rc = cli_report_mapping_error(&err, model);
  else
    rc = print_summary(m, &sum, fmt, &limits);
  stp_mapping_free(m);
out:
  cli_args_free(&a);
  return rc;
}

const cli_command cli_teg_command = {
    .name = "teg",
    .synopsis = "teg FILE [--model overlap|strict] [--dot | --graph-json | --json | --format F | --gantt]",
    .summary = "Build the timed event graph of a mapping (paper section 3) and print a summary,\n"
               "or the whole graph in Graphviz dot format: streamtp teg FILE --dot | dot -Tpng,\n"
               "or as a graph file for `streamtp graph` (--graph-json).",
    .details = "Transitions are boxes (processor and stage, or link, with the firing time) on a\n"
               "grid, one column per computation or transfer, rows in order; places are arrows,\n"
               "one each; red arrows hold tokens; dashed arrows join rows; blue arrows are a\n"
               "critical cycle.  The graph asks for Graphviz's neato layout (positions pinned).",
    .options = teg_options,
    .run = run_teg,
};
