/* reduce_bench.c: time of the reduction trees of RR-7898 (streamtp_reduce.h):
 * one build (tree, orders, schedule) at n = 10^6 for each tree, the sweep
 * n = 1..N of one tree (every n built from scratch, as `streamtp reduce
 * --n 1..N` does), median of several runs.
 * usage: reduce_bench [single N] [sweep N] [reps R] */
#include "base/core.h"
#include "streamtp_reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double build_once(uint64_t n, double d, double c, stp_reduce_tree t, double *makespan) {
  stp_reduce_spec s;
  stp_reduce_spec_init(&s, n, d, c);
  s.tree = t;
  stp_reduce *r;
  stp_error err = {0};
  double t0 = stp__now();
  if (stp_reduce_build(&s, &r, &err) != STP_OK) {
    fprintf(stderr, "reduce_bench: %s\n", err.message);
    exit(1);
  }
  double sec = stp__now() - t0;
  *makespan = stp_reduce_makespan(r);
  stp_reduce_free(r);
  return sec;
}

int main(int argc, char **argv) {
  uint64_t single = 1000000, sweep = 100000;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "single") == 0)
      single = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "sweep") == 0)
      sweep = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "reps") == 0)
      reps = atoi(argv[i + 1]);
  }
  double *t = calloc((size_t)reps, sizeof *t);
  printf("| tree | d | c | n | makespan | median seconds (%d runs) |\n|---|---|---|---|---|---|\n",
         reps);
  for (int tree = 0; tree < 3; tree++) {
    double ms = 0;
    for (int k = 0; k < reps; k++)
      t[k] = build_once(single, 3, 1, (stp_reduce_tree)tree, &ms);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("| %s | 3 | 1 | %llu | %g | %.3f |\n", stp_reduce_tree_name((stp_reduce_tree)tree),
           (unsigned long long)single, ms, t[reps / 2]);
  }
  double t0 = stp__now(), ms = 0, sum = 0;
  for (uint64_t n = 1; n <= sweep; n++) {
    build_once(n, 3, 1, STP_REDUCE_OPTIMAL, &ms);
    sum += ms;
  }
  printf("\nsweep n = 1..%llu, optimal, d = 3, c = 1: %.1f s (sum of makespans %g)\n",
         (unsigned long long)sweep, stp__now() - t0, sum);
  free(t);
  return 0;
}
