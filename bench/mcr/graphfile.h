/* graphfile.h: the benchmark graph file (bench/README.md, "Graph files"),
 * read by every solver program of bench/mcr so that streamtp, Boost and
 * LEMON see exactly the same graph.  Plain C that also compiles as C++.
 *
 *   # comment lines first (family, parameters)
 *   n m
 *   src dst duration tokens        (m lines; 0 <= src, dst < n)
 *
 * Durations are written with 17 significant digits, so they read back as
 * the same doubles. */
#ifndef BENCH_GRAPHFILE_H
#define BENCH_GRAPHFILE_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_graph {
  uint32_t n;
  uint64_t m;
  uint32_t *src, *dst, *tok;
  double *w;
} bench_graph;

static void bench_graph_free(bench_graph *g) {
  free(g->src);
  free(g->dst);
  free(g->tok);
  free(g->w);
  memset(g, 0, sizeof *g);
}

/* Parse an unsigned field; returns 0 and sets *end past it on success. */
static int bench_field_u64(char **p, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(*p, &end, 10);
  if (end == *p || errno || v > max || **p == '-')
    return -1;
  *out = v;
  *p = end;
  return 0;
}

static int bench_field_double(char **p, double *out) {
  char *end;
  errno = 0;
  double v = strtod(*p, &end);
  if (end == *p || errno || !isfinite(v))
    return -1;
  *out = v;
  *p = end;
  return 0;
}

/* The REPEAT argument of the solver programs: argv[i] if given, else 1;
 * returns -1 (after a message naming prog) unless it is a positive integer. */
static int bench_repeat_arg(const char *prog, int argc, char **argv, int i, long *repeat) {
  *repeat = 1;
  if (i >= argc)
    return 0;
  char *end;
  errno = 0;
  *repeat = strtol(argv[i], &end, 10);
  if (end == argv[i] || *end || errno || *repeat < 1) {
    fprintf(stderr, "%s: REPEAT must be a positive integer\n", prog);
    return -1;
  }
  return 0;
}

/* Read a whole file; returns 0, or -1 with a message in err. */
static int bench_graph_read(const char *path, bench_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char line[512];
  uint64_t lineno = 0, n = 0, m = 0, e = 0;
  int header = 0, rc = -1;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (!header) {
      if (bench_field_u64(&p, UINT32_MAX - 1, &n) || bench_field_u64(&p, UINT64_MAX / 32, &m))
        goto bad;
      g->src = (uint32_t *)malloc((m ? m : 1) * sizeof *g->src);
      g->dst = (uint32_t *)malloc((m ? m : 1) * sizeof *g->dst);
      g->tok = (uint32_t *)malloc((m ? m : 1) * sizeof *g->tok);
      g->w = (double *)malloc((m ? m : 1) * sizeof *g->w);
      if (!g->src || !g->dst || !g->tok || !g->w) {
        snprintf(err, errlen, "%s: out of memory for %llu edges", path, (unsigned long long)m);
        goto done;
      }
      header = 1;
      continue;
    }
    uint64_t s, d, t;
    double w;
    if (e == m || n == 0 || bench_field_u64(&p, n - 1, &s) || bench_field_u64(&p, n - 1, &d) ||
        bench_field_double(&p, &w) || bench_field_u64(&p, UINT32_MAX, &t))
      goto bad;
    g->src[e] = (uint32_t)s;
    g->dst[e] = (uint32_t)d;
    g->w[e] = w;
    g->tok[e] = (uint32_t)t;
    e++;
  }
  if (!header || e != m) {
    snprintf(err, errlen, "%s: expected %llu edges, found %llu", path, (unsigned long long)m,
             (unsigned long long)e);
    goto done;
  }
  g->n = (uint32_t)n;
  g->m = m;
  rc = 0;
  goto done;
bad:
  snprintf(err, errlen, "%s:%llu: expected \"%s\"", path, (unsigned long long)lineno,
           header ? "src dst duration tokens" : "n m");
done:
  fclose(f);
  if (rc)
    bench_graph_free(g);
  return rc;
}

#endif /* BENCH_GRAPHFILE_H */
