/* sweep_bench.c: one Gauss-Seidel sweep of the compact Strict store against
 * the memory-bandwidth bound, in the same run (issue 35, part 2).
 *
 * For each mapping file: the Strict chain is enumerated into its compact
 * store as `eval` builds it (stp__strict_store), then, in R interleaved
 * rounds, (a) a streaming kernel reads the store's arrays (out-degrees,
 * targets, labels) and reads and writes the iterate once, the sweep's
 * compulsory traffic, with the simplest loops (sums of 64-bit words and a
 * scaling, which GCC vectorises); (b) the solver's loop (stp__bands_time_sweeps: the
 * estimate and one sweep per step, exactly as stp__bands_solve runs them)
 * for K steps from the uniform vector, the first step (which also takes
 * the full residual) left out.  Each time is the thread's CPU time, so
 * that the other jobs of a shared machine take turns without counting;
 * they still share the memory bus.  Printed: the medians of both, their
 * ratio (the median of the rounds' ratios) and the bandwidth of each.
 *
 * --dump DIR writes the iterate after the K steps of the last round to
 * DIR/NAME.x (doubles); --compare DIR reads it back and prints the
 * largest relative difference from this build's iterate: so that two
 * builds are checked to give the same values.
 *
 * Usage: sweep_bench [--rounds R] [--steps K] [--dump DIR | --compare DIR] MAPPING.json...
 * (defaults: 5 rounds, 5 steps). */
#include "base/core.h"
#include "models/pipeline/strict_chain.h"
#include "solvers/movestore.h"
#include "solvers/stationary_bands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Bytes a sweep must move at the least: the store read once, the iterate
 * read and written once. */
static double compulsory_bytes(const stp_movestore *ms) {
  return (double)ms->nstates * (sizeof *ms->deg + 2 * sizeof(double)) +
         (double)ms->nmoves * (sizeof *ms->to + ms->label_bytes);
}

/* The streaming kernel: the same bytes as compulsory_bytes, read and
 * written in order.  scale (1.0, read through a volatile) keeps the
 * iterate's values and the compiler from dropping the writes. */
static volatile double scale_one = 1.0;
static volatile uint64_t sink;

/* The sum of the 64-bit words of p[0 .. bytes) (the tail's bytes alone):
 * a read of the array at the bus's pace. */
static uint64_t sum_words(const void *p, size_t bytes) {
  const unsigned char *c = p;
  uint64_t a[4] = {0}, w;
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int k = 0; k < 4; k++) {
      memcpy(&w, c + i + 8 * k, sizeof w);
      a[k] += w;
    }
  for (; i < bytes; i++)
    a[0] += c[i];
  return a[0] + a[1] + a[2] + a[3];
}

static double stream_once(const stp_movestore *ms, double *x) {
  double t0 = thread_cpu(), f = scale_one;
  uint64_t sum = sum_words(ms->deg, ms->nstates * sizeof *ms->deg) +
                 sum_words(ms->to, ms->nmoves * sizeof *ms->to) +
                 sum_words(ms->label, ms->nmoves * ms->label_bytes);
  for (uint64_t s = 0; s < ms->nstates; s++)
    x[s] *= f;
  sink = sum;
  return thread_cpu() - t0;
}

/* The median time of one step of the solver's loop, steps 1 .. K-1 of
 * one call; *x_out: the iterate after the K steps. */
static int sweep_once(const stp_movestore *ms, size_t steps, double *t, double **x_out,
                      uint32_t *period) {
  double sec[64];
  stp_error err = {0};
  if (stp__bands_time_sweeps(ms, steps, thread_cpu, sec, x_out, period, &err) != STP_OK) {
    fprintf(stderr, "sweep_bench: %s\n", err.message);
    return 1;
  }
  *t = median(sec + 1, steps - 1);
  return 0;
}

/* The iterate written by --dump, against x: the largest |x - y| / max |y|. */
static int compare(const char *path, const double *x, uint64_t n, double *diff) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "sweep_bench: cannot read %s\n", path);
    return 1;
  }
  double ymax = 0, dmax = 0, y;
  uint64_t k = 0;
  for (; k < n && fread(&y, sizeof y, 1, f) == 1; k++) {
    ymax = fabs(y) > ymax ? fabs(y) : ymax;
    dmax = fabs(x[k] - y) > dmax ? fabs(x[k] - y) : dmax;
  }
  fclose(f);
  if (k < n) {
    fprintf(stderr, "sweep_bench: %s holds %llu values, not %llu\n", path,
            (unsigned long long)k, (unsigned long long)n);
    return 1;
  }
  *diff = dmax / ymax;
  return 0;
}

static int dump(const char *path, const double *x, uint64_t n) {
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(x, sizeof *x, n, f) != n;
  if (f)
    bad |= fclose(f) != 0;
  if (bad)
    fprintf(stderr, "sweep_bench: cannot write %s\n", path);
  return bad;
}

typedef struct bench_args {
  size_t rounds, steps;
  const char *dump_dir, *compare_dir;
} bench_args;

static int check_values(const bench_args *a, const char *file, const double *x, uint64_t n) {
  if (!a->dump_dir && !a->compare_dir)
    return 0;
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.x", a->dump_dir ? a->dump_dir : a->compare_dir, base);
  if (a->dump_dir)
    return dump(path, x, n);
  double diff;
  if (compare(path, x, n, &diff))
    return 1;
  printf("  iterate after %zu steps against %s: largest relative difference %.2g\n", a->steps,
         path, diff);
  return 0;
}

static int bench_file(const bench_args *a, const char *file) {
  stp_error err = {0};
  stp_mapping *m = NULL;
  stp_options o;
  stp_options_init(&o);
  o.max_states = UINT32_MAX;
  stp_movestore ms;
  double t0 = thread_cpu();
  if (stp_mapping_load_file(file, &m, &err) != STP_OK ||
      stp__strict_store(m, &o, &ms, &err) != STP_OK) {
    fprintf(stderr, "sweep_bench: %s\n", err.message);
    stp_mapping_free(m);
    return 1;
  }
  stp_mapping_free(m);
  double bytes = compulsory_bytes(&ms), build = thread_cpu() - t0;
  double *ts = calloc(a->rounds, sizeof *ts), *tw = calloc(a->rounds, sizeof *tw),
         *ratio = calloc(a->rounds, sizeof *ratio), *x = NULL;
  int bad = !ts || !tw || !ratio;
  uint32_t period = 0;
  for (size_t r = 0; !bad && r < a->rounds; r++) {
    free(x);
    x = NULL;
    bad = sweep_once(&ms, a->steps, &tw[r], &x, &period);
    if (!bad) {
      ts[r] = stream_once(&ms, x);
      ratio[r] = tw[r] / ts[r];
    }
  }
  if (!bad) {
    double mw = median(tw, a->rounds), mt = median(ts, a->rounds);
    printf("| %s | %llu | %llu | %u | %.0f | %.1f | %.2f (%.1f GB/s) | %.2f (%.1f GB/s) | "
           "%.2f |\n",
           file, (unsigned long long)ms.nstates, (unsigned long long)ms.nmoves, period,
           bytes / 1e6, build, 1e3 * mw, bytes / mw / 1e9, 1e3 * mt, bytes / mt / 1e9,
           median(ratio, a->rounds));
    bad = check_values(a, file, x, ms.nstates);
  }
  free(x);
  free(ts);
  free(tw);
  free(ratio);
  stp__movestore_free(&ms);
  return bad;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  bench_args a = {.rounds = 5, .steps = 5};
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--rounds"))
      a.rounds = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--steps"))
      a.steps = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--dump"))
      a.dump_dir = argv[i + 1];
    else if (!strcmp(argv[i], "--compare"))
      a.compare_dir = argv[i + 1];
    else
      break;
  }
  if (i >= argc || a.rounds < 1 || a.steps < 2 || a.steps > 64) {
    fprintf(stderr, "usage: sweep_bench [--rounds R] [--steps K (2..64)] "
                    "[--dump DIR | --compare DIR] MAPPING.json...\n");
    return 2;
  }
  printf("| chain | states | moves | period | compulsory MB | build CPU s | sweep ms | "
         "stream ms | sweep / stream |\n|---|---|---|---|---|---|---|---|---|\n");
  int bad = 0;
  for (; i < argc; i++)
    bad |= bench_file(&a, argv[i]);
  return bad;
}
