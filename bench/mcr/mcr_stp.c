/* mcr_stp.c: times streamtp's Howard solver (stp__mcr_howard) on one
 * benchmark graph file, best of REPEAT runs; only the solve is timed (the
 * graph is read and compressed to CSR first, as the event-graph builder
 * would hand it over).  Prints one line of key=value pairs for run.py.
 *
 * Usage: mcr_stp FILE [REPEAT] */
#include "bench/mcr/graphfile.h"
#include "base/core.h"
#include "solvers/mcr_howard.h"

#include <stdio.h>
#include <stdlib.h>

static int load(const char *path, stp_digraph **out) {
  bench_graph bg;
  char msg[1024];
  if (bench_graph_read(path, &bg, msg, sizeof msg)) {
    fprintf(stderr, "mcr_stp: %s\n", msg);
    return -1;
  }
  stp_edge_list el = {0};
  stp_error err = {0};
  stp_status s = stp__edges_reserve(&el, bg.m, &err);
  for (uint64_t e = 0; s == STP_OK && e < bg.m; e++)
    stp__edges_push(&el, bg.src[e], bg.dst[e], bg.w[e], bg.tok[e]);
  if (s == STP_OK)
    s = stp__digraph_from_edges(bg.n, &el, out, &err);
  else
    stp__edges_free(&el);
  bench_graph_free(&bg);
  if (s != STP_OK)
    fprintf(stderr, "mcr_stp: %s: %s\n", path, err.message);
  return s == STP_OK ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: mcr_stp FILE [REPEAT]\n");
    return 2;
  }
  long repeat;
  if (bench_repeat_arg("mcr_stp", argc, argv, 2, &repeat))
    return 2;
  stp_digraph *g;
  if (load(argv[1], &g))
    return 1;
  double best = INFINITY;
  stp_mcr_result r = {0};
  int rc = 0;
  for (long k = 0; k < repeat; k++) {
    stp__mcr_result_clear(&r);
    stp_error err = {0};
    double t0 = stp__now();
    stp_status s = stp__mcr_howard(g, NULL, &r, &err);
    double dt = stp__now() - t0;
    if (s != STP_OK) {
      fprintf(stderr, "mcr_stp: %s: %s\n", argv[1], err.message);
      rc = 1;
      break;
    }
    if (dt < best)
      best = dt;
  }
  if (rc == 0)
    printf("ratio=%.17g seconds=%.6f iterations=%zu cycle_len=%zu cycle_tokens=%llu\n", r.ratio,
           best, r.iterations, r.cycle_len, (unsigned long long)r.cycle_tokens);
  stp__mcr_result_clear(&r);
  stp__digraph_free(g);
  return rc;
}
