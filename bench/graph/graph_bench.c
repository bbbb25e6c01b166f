/* graph_bench.c: the two targets of the generic graph core (issue 9).
 *
 * 1. The order-ideal chain (engine/ideals.c) on wide DAGs of k independent
 *    chains of L exponential transitions ((L+1)^k ideals): states per second
 *    and bytes per state (the largest memory the chain holds at once, over
 *    the number of ideals).  Targets: >= 5e6 states/s, <= 24 bytes/state.
 *    The largest such DAG under the default cap (1e6 states) is 6 chains of
 *    9 (10^6 ideals); larger ones run with a raised cap.
 * 2. Howard on the exported event graph of a Strict mapping with about 1e6
 *    transitions (stp_mapping_graph + stp_graph_analyze, deterministic only)
 *    against the pipeline's own path (stp_evaluate, Strict, exp none), the
 *    same mapping loaded once.  Target: graph <= 1.2 x pipeline.
 *
 * Each time is the median of REPEATS runs, in CPU seconds of the process.  Usage: graph_bench [REPEATS] */
#include "bench/common/benchmap.h"
#include "engine/ideals.h"
#include "streamtp.h"
#include "../common/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU seconds of this process: the machine is shared (2 cores, several
 * jobs), and wall time there measures the neighbours as much as the code. */
static double now(void) { return bench_clock(CLOCK_PROCESS_CPUTIME_ID); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what, const stp_error *err) {
  fprintf(stderr, "graph_bench: %s: %s\n", what, err->message);
  exit(1);
}

static stp_graph *chains(size_t k, size_t len) {
  stp_graph *g;
  stp_error err = {0};
  if (stp_graph_new("wide", &g, &err) != STP_OK) die("new", &err);
  char name[32];
  for (size_t c = 0; c < k; c++)
    for (size_t i = 0; i < len; i++) {
      snprintf(name, sizeof name, "c%zu_%zu", c, i);
      size_t t;
      if (stp_graph_add_transition(g, name, 1.0 + 0.1 * (double)c, NULL, &t, &err) != STP_OK)
        die("add", &err);
      if (i && stp_graph_add_place(g, t - 1, t, 0, &err) != STP_OK) die("place", &err);
    }
  return g;
}

static void ideals_table(int repeats) {
  static const struct {
    size_t k, len;
  } cases[] = {{6, 9}, {8, 4}, {12, 2}, {20, 1}, {8, 6}, {8, 7}, {4, 60}};
  printf("## Order-ideal chain (exact E[makespan], k chains of L exponential transitions)\n\n");
  printf("| DAG | ideals | CPU seconds | states/s | bytes/state | peak level |\n");
  printf("|---|---:|---:|---:|---:|---:|\n");
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    stp_graph *g = chains(cases[c].k, cases[c].len);
    double t[16], v = 0;
    stp_ideals_stats st = {0};
    for (int r = 0; r < repeats; r++) {
      stp_error err = {0};
      stp_cancel none = {0};
      double t0 = now();
      if (stp__ideals_makespan(g, UINT64_C(1) << 40, &none, &v, &st, &err) != STP_OK)
        die("ideals", &err);
      t[r] = now() - t0;
    }
    double s = median(t, repeats);
    printf("| %zu x %zu | %llu | %.3f | %.2e | %.1f | %llu |\n", cases[c].k, cases[c].len,
           (unsigned long long)st.states, s, (double)st.states / s,
           (double)st.peak_bytes / (double)st.states, (unsigned long long)st.peak_level);
    fflush(stdout);
    stp_graph_free(g);
  }
  printf("\n");
}

static void howard_table(int repeats) {
  const size_t teams[] = {11, 13, 16, 9, 5};
  char *json = bench_mapping_json(teams, 5, "strict", 7, false);
  stp_mapping *m;
  stp_error err = {0};
  if (!json || stp_mapping_load_string(json, strlen(json), "bench", &m, &err) != STP_OK)
    die("mapping", &err);
  free(json);
  stp_options o;
  stp_options_init(&o);
  o.exp_method = STP_EXP_NONE;
  double tp[16], tg[16], te[16], det_p = 0, det_g = 0;
  stp_graph *g = NULL;
  for (int r = 0; r < repeats; r++) {
    double t0 = now();
    stp_result *res;
    if (stp_evaluate(m, STP_MODEL_STRICT, &o, &res, &err) != STP_OK) die("evaluate", &err);
    tp[r] = now() - t0;
    det_p = res->det_throughput;
    stp_result_free(res);
    stp_graph_free(g);
    t0 = now();
    if (stp_mapping_graph(m, STP_MODEL_STRICT, &g, &err) != STP_OK) die("export", &err);
    te[r] = now() - t0;
    stp_graph_options go;
    stp_graph_options_init(&go);
    go.exponential = 0;
    stp_graph_result gr;
    t0 = now();
    if (stp_graph_analyze(g, &go, &gr, &err) != STP_OK) die("analyze", &err);
    tg[r] = now() - t0;
    det_g = gr.det_throughput;
    stp_graph_result_free(&gr);
  }
  double p = median(tp, repeats), a = median(tg, repeats), e = median(te, repeats);
  printf("## Howard: exported Strict graph vs pipeline path (teams 11 13 16 9 5)\n\n");
  printf("| path | transitions | CPU seconds | ratio |\n|---|---:|---:|---:|\n");
  printf("| pipeline (stp_evaluate, Strict, exp none) | %zu | %.3f | 1.00 |\n",
         stp_graph_transition_count(g), p);
  printf("| graph (stp_graph_analyze, det only) | %zu | %.3f | %.2f |\n",
         stp_graph_transition_count(g), a, a / p);
  printf("| export (stp_mapping_graph, once) | %zu | %.3f | %.2f |\n\n",
         stp_graph_transition_count(g), e, e / p);
  printf("throughputs: pipeline %.17g, graph %.17g (relative difference %.1e)\n\n", det_p, det_g,
         (det_g - det_p) / det_p);
  stp_graph_free(g);
  stp_mapping_free(m);
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 3;
  if (repeats < 1 || repeats > 16) {
    fprintf(stderr, "usage: graph_bench [REPEATS 1..16]\n");
    return 2;
  }
  ideals_table(repeats);
  howard_table(repeats);
  return 0;
}
