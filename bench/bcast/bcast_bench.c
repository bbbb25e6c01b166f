/* bcast_bench.c: seconds of each inter-cluster heuristic on a random
 * platform of C clusters (the ranges of Steffenel 2006, Table 3: L in
 * [1, 15] ms, g in [100, 600] ms, T in [20, 3000] ms), and of Lowekamp's
 * partition of N machines drawn in clusters of random sizes.  Prints a
 * markdown table, the median of R repetitions per cell.
 * Usage: bcast_bench [CLUSTERS [MACHINES [REPEATS]]]   (default 200 2000 5) */
#include "streamtp_bcast.h"
#include "../common/clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t state = 12345;
static double uniform(double lo, double hi) { /* splitmix64 */
  uint64_t z = (state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) / 9007199254740992.0;
}

static double now(void) { return bench_clock(CLOCK_MONOTONIC); }

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp);
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* A platform of c clusters as JSON text (size 2, L 0, g = T: T_j = T). */
static char *platform_json(size_t c) {
  size_t cap = 64 + c * 64 + 2 * c * c * 24, at = 0;
  char *s = malloc(cap);
  double *L = malloc(c * c * sizeof *L), *g = malloc(c * c * sizeof *g);
  for (size_t i = 0; i < c; i++)
    for (size_t j = 0; j <= i; j++) {
      L[i * c + j] = L[j * c + i] = i == j ? 0 : uniform(1, 15);
      g[i * c + j] = g[j * c + i] = i == j ? 0 : uniform(100, 600);
    }
  at += (size_t)sprintf(s + at, "{\"clusters\": [");
  for (size_t j = 0; j < c; j++)
    at += (size_t)sprintf(s + at, "%s{\"name\": \"c%zu\", \"size\": 2, \"L\": 0, \"g\": %.6f}",
                          j ? "," : "", j, uniform(20, 3000));
  for (int m = 0; m < 2; m++) {
    at += (size_t)sprintf(s + at, m ? "], \"g\": [" : "], \"inter\": {\"L\": [");
    for (size_t i = 0; i < c; i++) {
      at += (size_t)sprintf(s + at, "%s[", i ? "," : "");
      for (size_t j = 0; j < c; j++)
        at += (size_t)sprintf(s + at, "%s%.6f", j ? "," : "", (m ? g : L)[i * c + j]);
      at += (size_t)sprintf(s + at, "]");
    }
  }
  sprintf(s + at, "]}}");
  free(L);
  free(g);
  return s;
}

int main(int argc, char **argv) {
  size_t c = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (c < 1 || n < 1 || reps < 1 || reps > 100) {
    fprintf(stderr, "usage: bcast_bench [CLUSTERS [MACHINES [REPEATS]]]\n");
    return 2;
  }
  char *text = platform_json(c);
  stp_error err = {0};
  stp_bcast_platform *p;
  double t0 = now();
  if (stp_bcast_platform_load_string(text, strlen(text), "random.json", &p, &err) != STP_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  printf("| task | size | median seconds (%d runs) | result |\n|---|---|---|---|\n", reps);
  printf("| read the platform | %zu clusters | %.4f | %zu bytes of JSON |\n", c, now() - t0,
         strlen(text));
  free(text);
  stp_bcast_options o;
  stp_bcast_options_init(&o);
  double times[100], total = 0;
  for (int h = 0; h < STP_BCAST_HEURISTIC_COUNT; h++) {
    double makespan = 0;
    for (int r = 0; r < reps; r++) {
      stp_bcast_schedule s;
      t0 = now();
      if (stp_bcast_schedule_compute(p, &o, (stp_bcast_heuristic)h, &s, &err) != STP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
      }
      times[r] = now() - t0;
      makespan = s.makespan;
      stp_bcast_schedule_free(&s);
    }
    double m = median(times, reps);
    total += m;
    printf("| %s | %zu clusters | %.4f | makespan %.1f |\n",
           stp_bcast_heuristic_name((stp_bcast_heuristic)h), c, m, makespan);
  }
  printf("| all seven | %zu clusters | %.4f | |\n", c, total);
  stp_bcast_platform_free(p);

  /* Machines in clusters of 1..2 sqrt(n) machines: 50 us inside, 1-10 ms between. */
  double *w = malloc(n * n * sizeof *w);
  size_t *of = malloc(n * sizeof *of), nc = 0;
  for (size_t a = 0; a < n;) {
    size_t k = 1 + (size_t)uniform(0, 40);
    for (size_t e = 0; e < k && a < n; e++)
      of[a++] = nc;
    nc++;
  }
  double *between = malloc(nc * nc * sizeof *between);
  for (size_t i = 0; i < nc; i++)
    for (size_t j = 0; j <= i; j++)
      between[i * nc + j] = between[j * nc + i] = i == j ? uniform(20, 60) : uniform(1000, 10000);
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      w[a * n + b] = a == b ? 0 : between[of[a] * nc + of[b]];
  size_t found = 0;
  for (int r = 0; r < reps; r++) {
    stp_bcast_partition part;
    t0 = now();
    if (stp_bcast_partition_compute(w, n, 0.3, &part, &err) != STP_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    times[r] = now() - t0;
    found = part.nclusters;
    stp_bcast_partition_free(&part);
  }
  printf("| Lowekamp, rho 0.3 | %zu machines | %.4f | %zu clusters found, %zu drawn |\n", n,
         median(times, reps), found, nc);
  free(w);
  free(of);
  free(between);
  return found == nc ? 0 : 1;
}
