/* bench.c: seconds of the redistribution library on one problem: building
 * the grid, then one schedule; the median of N repetitions of each.
 * usage: bench P Q r s STRATEGY [N] */
#include "streamtp_redistribute.h"
#include "../common/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) { return bench_clock(CLOCK_MONOTONIC); }

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: bench P Q r s STRATEGY [N]\n");
    return 2;
  }
  uint64_t P = strtoull(argv[1], NULL, 10), Q = strtoull(argv[2], NULL, 10);
  uint64_t r = strtoull(argv[3], NULL, 10), s = strtoull(argv[4], NULL, 10);
  stp_redist_strategy st;
  if (stp_redist_strategy_parse(argv[5], &st) != STP_OK)
    return 2;
  int n = argc > 6 ? atoi(argv[6]) : 5;
  double *tg = calloc((size_t)n, sizeof *tg), *ts = calloc((size_t)n, sizeof *ts);
  stp_redist_info in = {0};
  uint64_t ns = 0, tc = 0;
  for (int i = 0; i < n; i++) {
    stp_error err = {0};
    stp_redist *rd;
    double t0 = now();
    if (stp_redist_new(P, Q, r, s, &rd, &err) != STP_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    double t1 = now();
    stp_redist_schedule *sc;
    if (stp_redist_schedule_new(rd, st, NULL, &sc, &err) != STP_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    double t2 = now();
    tg[i] = t1 - t0;
    ts[i] = t2 - t1;
    stp_redist_get_info(rd, &in);
    ns = stp_redist_schedule_steps(sc);
    tc = stp_redist_schedule_tc(sc);
    stp_redist_schedule_free(sc);
    stp_redist_free(rd);
  }
  qsort(tg, (size_t)n, sizeof *tg, cmp);
  qsort(ts, (size_t)n, sizeof *ts, cmp);
  printf("P=%llu Q=%llu r=%llu s=%llu %s: %llu messages, ns_opt %llu, NS %llu, TC %llu; "
         "grid %.4f s, schedule %.4f s, total %.4f s (medians of %d)\n",
         (unsigned long long)P, (unsigned long long)Q, (unsigned long long)r,
         (unsigned long long)s, argv[5], (unsigned long long)in.messages,
         (unsigned long long)in.ns_opt, (unsigned long long)ns, (unsigned long long)tc,
         tg[n / 2], ts[n / 2], tg[n / 2] + ts[n / 2], n);
  free(tg);
  free(ts);
  return 0;
}
