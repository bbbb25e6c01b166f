/* latency.c: the deterministic latency of a mapping over its lcm paths
 * (latency.h; method in docs/design.md, "Latency").
 *
 * The maximum is a dynamic program along the stages whose state after
 * stage i is the data set's residue mod S_i = gcd(lcm(R_0..R_i),
 * lcm(R_i..R_N-1)): by the Chinese remainder theorem, that residue is all
 * the stages before and after i share, so the best prefix for each residue
 * is all the program keeps.  Stage i+1 is added by running over the
 * residues mod lcm(S_i, R_i+1).  R itself never appears: a mapping of
 * 10^30 paths costs what its separators cost. */
#include "models/pipeline/latency.h"

#include "base/core.h"
#include "streamtp_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Table entries beyond which the tables are refused (2 GiB of doubles). */
#define STP_LATENCY_MAX_TABLE (UINT64_C(1) << 28)

void stp__latency_tables_free(stp_latency_tables *t) {
  if (!t)
    return;
  free(t->size);
  free(t->pair);
  free(t->comp);
  free(t->comm);
  free(t->buf);
  memset(t, 0, sizeof *t);
}

stp_status stp__latency_tables_alloc(size_t n, const size_t *sizes, stp_latency_tables *t,
                                     stp_error *err) {
  memset(t, 0, sizeof *t);
  if (n == 0)
    return stp__fail(err, STP_EINVAL, "latency: a pipeline needs at least one stage");
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t pair = 0;
    if (sizes[i] == 0)
      return stp__fail(err, STP_EINVAL, "latency: the team of stage %zu is empty", i);
    if (!stp__add_u64(total, sizes[i], &total) ||
        (i + 1 < n && (!stp__lcm_u64(sizes[i], sizes[i + 1], &pair) ||
                       !stp__add_u64(total, pair, &total))) ||
        total > STP_LATENCY_MAX_TABLE)
      return stp__fail(err, STP_ELIMIT,
                       "latency: the tables of the teams would hold more than %llu times",
                       (unsigned long long)STP_LATENCY_MAX_TABLE);
  }
  t->nstages = n;
  t->size = stp__malloc_array(n, sizeof *t->size);
  t->pair = stp__calloc(n, sizeof *t->pair);
  t->comp = stp__calloc(n, sizeof *t->comp);
  t->comm = stp__calloc(n, sizeof *t->comm);
  t->buf = stp__calloc((size_t)total, sizeof *t->buf);
  if (!t->size || !t->pair || !t->comp || !t->comm || !t->buf) {
    stp__latency_tables_free(t);
    return stp__oom(err, "allocating the latency tables");
  }
  double *at = t->buf;
  for (size_t i = 0; i < n; i++) {
    t->size[i] = sizes[i];
    t->comp[i] = at;
    at += sizes[i];
    if (i + 1 < n) {
      stp__lcm_u64(sizes[i], sizes[i + 1], &t->pair[i]);
      t->comm[i] = at;
      at += t->pair[i];
    }
  }
  return STP_OK;
}

void stp__latency_tables_fill(stp_latency_tables *t, stp_latency_comp_fn comp,
                              stp_latency_comm_fn comm, const void *ctx) {
  for (size_t i = 0; i < t->nstages; i++) {
    for (size_t a = 0; a < t->size[i]; a++)
      t->comp[i][a] = comp(ctx, i, a);
    for (uint64_t z = 0; i + 1 < t->nstages && z < t->pair[i]; z++)
      t->comm[i][z] = comm(ctx, i, (size_t)(z % t->size[i]), (size_t)(z % t->size[i + 1]));
  }
}

static double mapping_comp(const void *ctx, size_t i, size_t a) {
  const stp_mapping *m = ctx;
  return stp__comp_time(m, stp__team_member(m, i, a));
}

static double mapping_comm(const void *ctx, size_t i, size_t a, size_t b) {
  const stp_mapping *m = ctx;
  return stp__comm_time(m, stp__team_member(m, i, a), stp__team_member(m, i + 1, b));
}

stp_status stp__latency_tables_of_mapping(const stp_mapping *m, stp_latency_tables *t,
                                          stp_error *err) {
  size_t n = m->nstages;
  size_t *sizes = stp__malloc_array(n ? n : 1, sizeof *sizes);
  if (!sizes)
    return stp__oom(err, "allocating the latency tables");
  for (size_t i = 0; i < n; i++)
    sizes[i] = stp__team_size(m, i);
  stp_status s = stp__latency_tables_alloc(n, sizes, t, err);
  free(sizes);
  if (s != STP_OK)
    return s;
  stp__latency_tables_fill(t, mapping_comp, mapping_comm, m);
  return STP_OK;
}

double stp__latency_path(const stp_latency_tables *t, uint64_t j) {
  double sum = 0;
  for (size_t i = 0; i < t->nstages; i++) {
    sum += t->comp[i][j % t->size[i]];
    if (i + 1 < t->nstages)
      sum += t->comm[i][j % t->pair[i]];
  }
  return sum;
}

/* ---- the mean and the bounds ---------------------------------------------------------- */
/* Every residue mod a divisor of R is met by the same number of paths, so
 * the mean of a sum is the sum of the tables' means. */
static void mean_and_upper(const stp_latency_tables *t, stp_latency *out) {
  double mean = 0, upper = 0;
  for (size_t i = 0; i < t->nstages; i++) {
    double s = 0, mx = 0;
    for (size_t a = 0; a < t->size[i]; a++) {
      s += t->comp[i][a];
      mx = fmax(mx, t->comp[i][a]);
    }
    mean += s / (double)t->size[i];
    upper += mx;
    if (i + 1 == t->nstages)
      break;
    s = mx = 0;
    for (uint64_t z = 0; z < t->pair[i]; z++) {
      s += t->comm[i][z];
      mx = fmax(mx, t->comm[i][z]);
    }
    mean += s / (double)t->pair[i];
    upper += mx;
  }
  out->mean = mean;
  out->max_upper = upper;
}

/* ---- the separators S_i ------------------------------------------------------------- */
static unsigned valuation(size_t *x, size_t p) {
  unsigned e = 0;
  while (*x % p == 0) {
    *x /= p;
    e++;
  }
  return e;
}

/* S_i = prod over primes p of p^min(max_{k<=i} v_p(R_k), max_{k>=i} v_p(R_k)),
 * from the factorisations of the team sizes; false when some S_i exceeds
 * 2^64 - 1 (the program would be beyond any cap then). */
static bool separators(const stp_latency_tables *t, uint64_t *S, unsigned *pre, unsigned *suf) {
  size_t n = t->nstages;
  for (size_t i = 0; i < n; i++)
    S[i] = 1;
  for (size_t i = 0; i < n; i++) {
    size_t rest = t->size[i];
    for (size_t p = 2; rest > 1; p++) {
      if (p > rest / p)
        p = rest; /* what is left is prime */
      if (rest % p)
        continue;
      valuation(&rest, p);
      /* p divides R_i: the first stage where it appears handles it once */
      bool seen = false;
      for (size_t k = 0; k < i && !seen; k++)
        seen = t->size[k] % p == 0;
      if (seen)
        continue;
      for (size_t k = 0; k < n; k++) {
        size_t x = t->size[k];
        pre[k] = valuation(&x, p);
        suf[k] = pre[k];
      }
      for (size_t k = 1; k < n; k++)
        pre[k] = pre[k] > pre[k - 1] ? pre[k] : pre[k - 1];
      for (size_t k = n - 1; k-- > 0;)
        suf[k] = suf[k] > suf[k + 1] ? suf[k] : suf[k + 1];
      for (size_t k = 0; k < n; k++)
        for (unsigned e = pre[k] < suf[k] ? pre[k] : suf[k]; e > 0; e--)
          if (!stp__mul_u64(S[k], p, &S[k]))
            return false;
    }
  }
  return true;
}

/* ---- the path of the maximum: Chinese remainders -------------------------------------- */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
  uint64_t r = 0;
  a %= m;
  for (; b; b >>= 1) {
    if (b & 1)
      r = r >= m - a ? r - (m - a) : r + a;
    a = a >= m - a ? a - (m - a) : a + a;
  }
  return r;
}

/* The inverse of a mod m (gcd(a, m) = 1, m >= 1). */
static uint64_t invmod(uint64_t a, uint64_t m) {
  uint64_t r0 = m, r1 = a % m, t0 = 0, t1 = 1 % m;
  while (r1) {
    uint64_t q = r0 / r1, r2 = r0 - q * r1;
    uint64_t t2 = (t0 + m - mulmod(q, t1, m)) % m;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  return t0;
}

/* x = a mod M and x = b mod T (consistent, lcm(M, T) <= 2^64 - 1): x mod
 * lcm(M, T) in *a, the lcm in *M. */
static void crt_merge(uint64_t *a, uint64_t *M, uint64_t b, uint64_t T) {
  uint64_t g = stp__gcd_u64(*M, T), Tg = T / g;
  uint64_t diff = (b % T + T - *a % T) % T / g;
  uint64_t k = mulmod(diff, invmod((*M / g) % Tg, Tg), Tg);
  *a += *M * k;
  *M *= Tg;
}

/* ---- the program ---------------------------------------------------------------------- */
typedef struct dp_work {
  uint64_t *S, *T;   /* separators, and lcm(S_i, R_i+1) */
  unsigned *pre, *suf;
  double *cur, *next;
  uint64_t **arg;    /* arg[i+1][s]: the residue mod T_i that gave F_i+1(s) */
  uint64_t *argbuf;
} dp_work;

static void dp_free(dp_work *w) {
  free(w->S);
  free(w->T);
  free(w->pre);
  free(w->suf);
  free(w->cur);
  free(w->next);
  free(w->arg);
  free(w->argbuf);
}

/* The sizes of the program; false when beyond max_cells. */
static bool dp_plan(const stp_latency_tables *t, dp_work *w, uint64_t max_cells, uint64_t *cells,
                    uint64_t *states) {
  size_t n = t->nstages;
  *cells = t->size[0];
  *states = 0;
  if (!separators(t, w->S, w->pre, w->suf))
    return false;
  for (size_t i = 0; i + 1 < n; i++)
    if (!stp__lcm_u64(w->S[i], t->size[i + 1], &w->T[i]) ||
        !stp__add_u64(*cells, w->T[i], cells) || !stp__add_u64(*states, w->S[i + 1], states) ||
        *cells > max_cells)
      return false;
  return *cells <= max_cells;
}

/* Runs the program planned in w: the maximum, and one path attaining it
 * when R fits in 64 bits. */
static void dp_run(const stp_latency_tables *t, dp_work *w, stp_latency *out) {
  size_t n = t->nstages;
  for (size_t a = 0; a < t->size[0]; a++)
    w->cur[a] = t->comp[0][a];
  uint64_t *argat = w->argbuf;
  for (size_t i = 0; i + 1 < n; i++) {
    uint64_t Si = w->S[i], Sn = w->S[i + 1], Ti = w->T[i];
    w->arg[i + 1] = argat;
    argat += Sn;
    for (uint64_t s = 0; s < Sn; s++)
      w->next[s] = -INFINITY;
    const double *comm = t->comm[i], *comp = t->comp[i + 1];
    uint64_t pair = t->pair[i], Rn = t->size[i + 1];
    for (uint64_t z = 0; z < Ti; z++) {
      double v = w->cur[z % Si] + comm[z % pair] + comp[z % Rn];
      uint64_t s = z % Sn;
      if (v > w->next[s]) {
        w->next[s] = v;
        w->arg[i + 1][s] = z;
      }
    }
    double *tmp = w->cur;
    w->cur = w->next;
    w->next = tmp;
  }
  uint64_t best = 0, last = t->size[n - 1];
  for (uint64_t s = 1; s < last; s++)
    if (w->cur[s] > w->cur[best])
      best = s;
  out->max = out->max_lower = out->max_upper = w->cur[best];
  out->max_exact = true;
  if (out->paths == 0)
    return;
  /* back along the program: each stage's residue mod T_i, merged */
  uint64_t x = best, M = last, s = best;
  for (size_t i = n - 1; i > 0; i--) {
    uint64_t z = w->arg[i][s];
    crt_merge(&x, &M, z, w->T[i - 1]);
    s = z % w->S[i - 1];
  }
  out->has_argmax = true;
  out->argmax = x;
}

/* Beyond the cap: the largest of as many paths as the budget allows. */
static void enumerate_some(const stp_latency_tables *t, uint64_t max_cells, stp_latency *out) {
  uint64_t count = max_cells / (2 * t->nstages);
  if (out->paths && out->paths < count)
    count = out->paths;
  if (count == 0)
    count = 1;
  double lo = -INFINITY;
  for (uint64_t j = 0; j < count; j++)
    lo = fmax(lo, stp__latency_path(t, j));
  out->max_lower = lo;
  out->max = NAN;
  out->max_exact = false;
}

stp_status stp__latency_solve(const stp_latency_tables *t, uint64_t max_cells, stp_latency *out,
                              stp_error *err) {
  memset(out, 0, sizeof *out);
  size_t n = t->nstages;
  if (max_cells == 0)
    max_cells = STP_LATENCY_MAX_CELLS;
  uint64_t R = 1;
  for (size_t i = 0; i < n && R; i++)
    if (!stp__lcm_u64(R, t->size[i], &R))
      R = 0;
  out->paths = R;
  mean_and_upper(t, out);

  dp_work w = {0};
  w.S = stp__calloc(n, sizeof *w.S);
  w.T = stp__calloc(n, sizeof *w.T);
  w.pre = stp__calloc(n, sizeof *w.pre);
  w.suf = stp__calloc(n, sizeof *w.suf);
  w.arg = stp__calloc(n, sizeof *w.arg);
  if (!w.S || !w.T || !w.pre || !w.suf || !w.arg) {
    dp_free(&w);
    return stp__oom(err, "allocating the latency program");
  }
  uint64_t cells, states;
  if (!dp_plan(t, &w, max_cells, &cells, &states)) {
    dp_free(&w);
    out->cells = 0;
    enumerate_some(t, max_cells, out);
    return STP_OK;
  }
  uint64_t widest = 1;
  for (size_t i = 0; i < n; i++)
    widest = w.S[i] > widest ? w.S[i] : widest;
  w.cur = stp__malloc_array((size_t)widest, sizeof *w.cur);
  w.next = stp__malloc_array((size_t)widest, sizeof *w.next);
  w.argbuf = stp__malloc_array((size_t)(states ? states : 1), sizeof *w.argbuf);
  if (!w.cur || !w.next || !w.argbuf) {
    dp_free(&w);
    return stp__oom(err, "allocating the latency program");
  }
  out->cells = cells;
  dp_run(t, &w, out);
  dp_free(&w);
  return STP_OK;
}

stp_status stp__mapping_latency(const stp_mapping *m, uint64_t max_cells, stp_latency *out,
                                stp_error *err) {
  stp_latency_tables t;
  memset(out, 0, sizeof *out);
  STP_CHECK(stp__latency_tables_of_mapping(m, &t, err));
  stp_status s = stp__latency_solve(&t, max_cells, out, err);
  stp__latency_tables_free(&t);
  return s;
}

/* ---- the public interface (streamtp_explain.h) ----------------------------------------- */
void stp_latency_result_free(stp_latency_result *l) {
  if (!l)
    return;
  free(l->path);
  free(l);
}

stp_status stp_latency_compute(const stp_mapping *m, size_t max_listed, stp_latency_result **out,
                               stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_latency_compute: out is NULL");
  *out = NULL;
  if (!m)
    return stp__fail(err, STP_EINVAL, "stp_latency_compute: mapping is NULL");
  stp_latency_tables t;
  STP_CHECK(stp__latency_tables_of_mapping(m, &t, err));
  stp_latency l;
  stp_latency_result *r = calloc(1, sizeof *r);
  stp_status s = r ? stp__latency_solve(&t, 0, &l, err) : stp__oom(err, "computing the latency");
  if (s == STP_OK) {
    *r = (stp_latency_result){.max = l.max, .mean = l.mean, .max_exact = l.max_exact,
                              .max_lower = l.max_lower, .max_upper = l.max_upper,
                              .paths = l.paths, .has_argmax = l.has_argmax, .argmax = l.argmax};
    if (l.paths > 0 && l.paths <= max_listed) {
      r->path = stp__malloc_array((size_t)l.paths, sizeof *r->path);
      if (!r->path)
        s = stp__oom(err, "listing the latency of each path");
      for (uint64_t j = 0; r->path && j < l.paths; j++)
        r->path[j] = stp__latency_path(&t, j);
      r->nlisted = r->path ? (size_t)l.paths : 0;
    }
  }
  stp__latency_tables_free(&t);
  if (s != STP_OK) {
    stp_latency_result_free(r);
    return s;
  }
  *out = r;
  return STP_OK;
}
