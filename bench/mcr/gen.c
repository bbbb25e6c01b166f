/* gen.c: writes the benchmark graphs of bench/mcr in the graph file format
 * (graphfile.h), one family per sub-command:
 *
 *   gen strict OUT SEED T1 T2 ... TN   Strict event graph of a mapping with
 *                                      teams of T1..TN processors, random
 *                                      heterogeneous times (stp__teg_build)
 *   gen strict-homog OUT T1 ... TN     the same with every time equal to 1
 *                                      (every cycle ratio ties)
 *   gen torus OUT SEED K [OFFSET]      K x K grid with wraparound (edges right
 *                                      and down); the wraparound edges hold one
 *                                      token; durations OFFSET + U[1, 100]
 *   gen torus-mean OUT SEED K          the same with one token on every edge
 *                                      and integer durations in [1, 100] (a
 *                                      mean-only graph, for LEMON)
 *   gen random OUT SEED N DMIN DMAX    N nodes, out-degree uniform in
 *                                      [DMIN, DMAX], uniform targets; an edge
 *                                      forward in a random topological order
 *                                      holds no token, any other 1..3 tokens
 *   gen chain OUT N                    Howard adversary: the best ratio is
 *                                      N-1 hops down a chain whose nodes all
 *                                      prefer a local loop (see README)
 *   gen ladder OUT N                   Howard adversary for the bias phase
 *   gen ladder-tok OUT N               the same with tokens on the rungs
 *
 * Options before the family: --shuffle SEED renumbers the nodes by a random
 * permutation (node order matters to both solvers). */
#include "bench/common/benchmap.h"
#include "base/core.h"
#include "models/pipeline/teg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen_args {
  int argc;
  char **argv;
} gen_args;

static int die(const char *fmt, const char *what) {
  fprintf(stderr, "gen: ");
  fprintf(stderr, fmt, what);
  fputc('\n', stderr);
  return 2;
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end || errno || s[0] == '-' || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v))
    return -1;
  *out = v;
  return 0;
}

/* ---- writer ---------------------------------------------------------------- */
static int write_graph(const char *path, uint32_t n, const stp_edge_list *el, const uint32_t *perm,
                       const char *comment) {
  FILE *f = fopen(path, "w");
  if (!f)
    return die("cannot write %s", path);
  fprintf(f, "# %s\n%u %llu\n", comment, n, (unsigned long long)el->m);
  for (uint64_t e = 0; e < el->m; e++) {
    uint32_t s = el->src[e], d = el->dst[e];
    if (perm) {
      s = perm[s];
      d = perm[d];
    }
    fprintf(f, "%u %u %.17g %u\n", s, d, el->w[e], el->tok[e]);
  }
  int bad = ferror(f);
  if (fclose(f) || bad)
    return die("error writing %s", path);
  return 0;
}

/* A uniform random permutation of 0..n-1 (Fisher-Yates). */
static uint32_t *random_permutation(uint32_t n, uint64_t seed) {
  uint32_t *p = malloc(((size_t)n + 1) * sizeof *p);
  if (!p)
    return NULL;
  bench_rng r = {seed};
  for (uint32_t k = 0; k < n; k++)
    p[k] = k;
  for (uint32_t k = n; k > 1; k--) {
    uint32_t j = (uint32_t)bench_rng_below(&r, k), t = p[k - 1];
    p[k - 1] = p[j];
    p[j] = t;
  }
  return p;
}

/* ---- families ----------------------------------------------------------------
 * Each fills *n and el (reserved here) or returns non-zero after a message. */
typedef int (*family_fn)(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                         size_t clen);

static int reserve(stp_edge_list *el, uint64_t m) {
  stp_error err = {0};
  if (stp__edges_reserve(el, m, &err) != STP_OK)
    return die("%s", err.message);
  return 0;
}

static int strict_graph(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                        size_t clen, bool homog) {
  int first = homog ? 3 : 4;
  uint64_t seed = 0;
  if (a->argc <= first || (!homog && parse_u64(a->argv[3], 0, UINT64_MAX, &seed)))
    return die("%s: expected [SEED] T1 ... TN", a->argv[1]);
  size_t ns = (size_t)(a->argc - first), teams[64];
  if (ns > 64)
    return die("%s: at most 64 stages", a->argv[1]);
  int at = snprintf(comment, clen, "family=%s seed=%llu teams=", a->argv[1],
                    (unsigned long long)seed);
  for (size_t i = 0; i < ns; i++) {
    uint64_t t;
    if (parse_u64(a->argv[first + (int)i], 1, 100000, &t))
      return die("bad team size %s", a->argv[first + (int)i]);
    teams[i] = (size_t)t;
    if (at >= 0 && (size_t)at < clen)
      at += snprintf(comment + at, clen - (size_t)at, "%s%zu", i ? "," : "", teams[i]);
  }
  char *json = bench_mapping_json(teams, ns, "strict", seed, homog);
  if (!json)
    return die("%s", "out of memory");
  stp_error err = {0};
  stp_mapping *m = NULL;
  stp_teg *t = NULL;
  int rc = 0;
  if (stp_mapping_load_string(json, strlen(json), "generated", &m, &err) != STP_OK ||
      stp__teg_build(m, STP_MODEL_STRICT, UINT64_MAX, &t, &err) != STP_OK) {
    rc = die("%s", err.message);
    goto done;
  }
  const stp_digraph *g = t->g;
  if ((rc = reserve(el, g->m)))
    goto done;
  for (uint32_t u = 0; u < g->n; u++)
    for (uint64_t e = g->off[u]; e < g->off[u + 1]; e++)
      stp__edges_push(el, u, g->dst[e], g->w[e], g->tok[e]);
  *n = g->n;
done:
  stp__teg_free(t);
  stp_mapping_free(m);
  free(json);
  return rc;
}

static int fam_strict(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c, size_t cl) {
  return strict_graph(a, n, el, c, cl, false);
}

static int fam_strict_homog(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c,
                            size_t cl) {
  return strict_graph(a, n, el, c, cl, true);
}

static int torus_graph(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                       size_t clen, bool mean) {
  uint64_t seed, k;
  double offset = 0;
  if (a->argc < 5 || a->argc > 6 - mean || parse_u64(a->argv[3], 0, UINT64_MAX, &seed) ||
      parse_u64(a->argv[4], 2, 60000, &k) || (a->argc == 6 && parse_double(a->argv[5], &offset)))
    return die("%s: expected SEED K [OFFSET] with 2 <= K <= 60000", a->argv[1]);
  snprintf(comment, clen, "family=%s seed=%llu k=%llu offset=%g", a->argv[1],
           (unsigned long long)seed, (unsigned long long)k, offset);
  if (reserve(el, 2 * k * k))
    return 1;
  bench_rng r = {seed};
  for (uint64_t i = 0; i < k; i++)
    for (uint64_t j = 0; j < k; j++) {
      uint32_t u = (uint32_t)(i * k + j);
      uint32_t right = (uint32_t)(i * k + (j + 1) % k), down = (uint32_t)(((i + 1) % k) * k + j);
      double wr = bench_rng_uniform(&r, 1, 100), wd = bench_rng_uniform(&r, 1, 100);
      if (mean) { /* LEMON's Howard loops on real-valued costs: keep them integers */
        wr = floor(wr);
        wd = floor(wd);
      }
      stp__edges_push(el, u, right, offset + wr, mean || j + 1 == k);
      stp__edges_push(el, u, down, offset + wd, mean || i + 1 == k);
    }
  *n = (uint32_t)(k * k);
  return 0;
}

static int fam_torus(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c, size_t cl) {
  return torus_graph(a, n, el, c, cl, false);
}

static int fam_torus_mean(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c, size_t cl) {
  return torus_graph(a, n, el, c, cl, true);
}

static int fam_random(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                      size_t clen) {
  uint64_t seed, nn, dmin, dmax;
  if (a->argc != 7 || parse_u64(a->argv[3], 0, UINT64_MAX, &seed) ||
      parse_u64(a->argv[4], 1, UINT32_MAX - 1, &nn) || parse_u64(a->argv[5], 1, 1000, &dmin) ||
      parse_u64(a->argv[6], dmin, 1000, &dmax))
    return die("%s: expected SEED N DMIN DMAX with 1 <= DMIN <= DMAX <= 1000", a->argv[1]);
  snprintf(comment, clen, "family=random seed=%llu n=%llu degree=%llu..%llu",
           (unsigned long long)seed, (unsigned long long)nn, (unsigned long long)dmin,
           (unsigned long long)dmax);
  uint32_t *pos = random_permutation((uint32_t)nn, seed ^ UINT64_C(0x5eed));
  if (!pos || reserve(el, nn * dmax)) {
    free(pos);
    return die("%s", "out of memory");
  }
  bench_rng r = {seed};
  for (uint32_t u = 0; u < nn; u++) {
    uint64_t deg = dmin + bench_rng_below(&r, dmax - dmin + 1);
    for (uint64_t k = 0; k < deg; k++) {
      uint32_t v = (uint32_t)bench_rng_below(&r, nn);
      uint32_t tok = pos[v] > pos[u] ? 0 : 1 + (uint32_t)bench_rng_below(&r, 3);
      stp__edges_push(el, u, v, bench_rng_uniform(&r, 1, 100), tok);
    }
  }
  free(pos);
  *n = (uint32_t)nn;
  return 0;
}

/* chain: nodes 0..N-1; i -> i+1 (duration 1, no token); a loop on every
 * node (duration 2, one token; 3 on the last node); N-1 -> 0 (duration 0,
 * one token).  Every node first prefers its loop (heavier edge), and the
 * better loop at the end is only one hop closer per round of a Howard that
 * improves ratios edge by edge: N rounds of O(N). */
static int fam_chain(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                     size_t clen) {
  uint64_t nn;
  if (a->argc != 4 || parse_u64(a->argv[3], 2, UINT32_MAX / 2, &nn))
    return die("%s: expected N >= 2", a->argv[1]);
  snprintf(comment, clen, "family=chain n=%llu", (unsigned long long)nn);
  if (reserve(el, 2 * nn))
    return 1;
  for (uint32_t u = 0; u < nn; u++) {
    stp__edges_push(el, u, u, u + 1 == nn ? 3 : 2, 1);
    stp__edges_push(el, u, u + 1 == nn ? 0 : u + 1, u + 1 == nn ? 0 : 1, u + 1 == nn);
  }
  *n = (uint32_t)nn;
  return 0;
}

/* ladder: nodes 0..N-2 and a hub H = N-1 with a heavy loop (duration L,
 * one token: the best ratio).  Node i has a "rail" edge to H of duration
 * D*(N-1-i) (D = 3), except the last node N-2 whose rail is heavier than
 * every sum below, and a "rung" i -> i+1 of duration 1; H -> 0 holds the
 * token that closes the other cycles.  The rail beats the rung at node i
 * until node i+1 has switched to its rung, so a Howard that only looks one
 * edge ahead in its bias phase switches one node per iteration.
 * ladder-tok: the same with one token and duration L + 1 on every rung
 * (the same gains at ratio L), so that the rungs are not token-free paths
 * and the topological sweep does not carry the gain: the worklist must. */
static int ladder_graph(const gen_args *a, uint32_t *n, stp_edge_list *el, char *comment,
                        size_t clen, bool rung_tokens) {
  uint64_t nn;
  if (a->argc != 4 || parse_u64(a->argv[3], 3, 1u << 24, &nn))
    return die("%s: expected 3 <= N <= 2^24", a->argv[1]);
  snprintf(comment, clen, "family=%s n=%llu", a->argv[1], (unsigned long long)nn);
  if (reserve(el, 2 * nn + 1))
    return 1;
  uint32_t hub = (uint32_t)nn - 1;
  double d = 3, top = d * (double)nn * 4, loop = 2 * top + d * (double)nn;
  for (uint32_t i = 0; i + 1 < hub; i++) {
    stp__edges_push(el, i, hub, d * (double)(hub - i), 0);
    stp__edges_push(el, i, i + 1, rung_tokens ? loop + 1 : 1, rung_tokens);
  }
  stp__edges_push(el, hub - 1, hub, top, 0);
  stp__edges_push(el, hub, hub, loop, 1);
  stp__edges_push(el, hub, 0, 0, 1);
  *n = (uint32_t)nn;
  return 0;
}

static int fam_ladder(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c, size_t cl) {
  return ladder_graph(a, n, el, c, cl, false);
}

static int fam_ladder_tok(const gen_args *a, uint32_t *n, stp_edge_list *el, char *c, size_t cl) {
  return ladder_graph(a, n, el, c, cl, true);
}

static const struct {
  const char *name;
  family_fn fn;
} families[] = {
    {"strict", fam_strict}, {"strict-homog", fam_strict_homog}, {"torus", fam_torus},
    {"torus-mean", fam_torus_mean}, {"random", fam_random}, {"chain", fam_chain},
    {"ladder", fam_ladder}, {"ladder-tok", fam_ladder_tok},
};

int main(int argc, char **argv) {
  uint64_t shuffle = 0;
  bool shuffled = false;
  if (argc > 2 && !strcmp(argv[1], "--shuffle")) {
    if (parse_u64(argv[2], 0, UINT64_MAX, &shuffle))
      return die("--shuffle: bad seed %s", argv[2]);
    shuffled = true;
    argc -= 2;
    argv += 2;
  }
  if (argc < 3)
    return die("%s", "usage: gen [--shuffle SEED] FAMILY OUT ARGS... (see gen.c)");
  gen_args a = {argc, argv};
  for (size_t k = 0; k < sizeof families / sizeof families[0]; k++) {
    if (strcmp(argv[1], families[k].name))
      continue;
    uint32_t n = 0;
    stp_edge_list el = {0};
    char comment[512];
    int rc = families[k].fn(&a, &n, &el, comment, sizeof comment);
    uint32_t *perm = NULL;
    if (!rc && shuffled && !(perm = random_permutation(n, shuffle)))
      rc = die("%s", "out of memory");
    if (!rc && shuffled) {
      size_t len = strlen(comment);
      snprintf(comment + len, sizeof comment - len, " shuffle=%llu", (unsigned long long)shuffle);
    }
    if (!rc)
      rc = write_graph(argv[2], n, &el, perm, comment);
    free(perm);
    stp__edges_free(&el);
    return rc;
  }
  return die("unknown family %s", argv[1]);
}
