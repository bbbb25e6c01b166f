/* heuristics.c: the schedules of RR-3117 section 4 and ScaLAPACK's.
 *
 * class (section 4.3.2, Prop. 4): when gcd(r, Q) = gcd(s, P) = 1 the class
 * f(p, q) = (p r - q s) mod g of a message depends only on p and q modulo
 * h = gcd(P, Q), where it pairs each p' with exactly one q'.  With
 * p = alpha h + p', q = beta h + q', A = P/h, B = Q/h, a class splits into
 * max(A, B) complete steps: step t holds the block pairs (alpha, beta) with
 * alpha - beta = t mod A (A >= B; else beta - alpha = t mod B).  The paper
 * writes "one class per step" for P = Q = g and this block permutation in
 * general ("5 steps where 3 blocks of senders send to 3 blocks of
 * receivers").
 *
 * stepwise / greedy (section 4.5): repeatedly remove a maximum-weight
 * matching (weight = message length); stepwise first maximises the number
 * of maximum-degree vertices it covers, which by Konig/Berge is all of
 * them, so the maximum degree drops by one per step.
 *
 * caterpillar (section 3.2): step k = 0..n-1, n = max(P, Q), pairs p with
 * (p - k) mod n. */
#include "models/redistribute/heuristics.h"

#include "base/core.h"
#include "solvers/bmatch.h"

#include <stdlib.h>
#include <string.h>

stp_status stp__redist_class(const stp_redist *rd, uint32_t *step, uint64_t *ns,
                             stp_error *err) {
  STP_CHECK(stp_redist_class_applies(rd, err));
  uint64_t h = stp__gcd_u64(rd->P, rd->Q), A = rd->P / h, B = rd->Q / h;
  uint64_t T = A > B ? A : B;
  /* class of each message, then the distinct classes numbered in order */
  uint64_t *cls = stp__malloc_array(rd->nmsg + 1, sizeof *cls);
  uint64_t *sorted = stp__malloc_array(rd->nmsg + 1, sizeof *sorted);
  if (!cls || !sorted) {
    free(cls);
    free(sorted);
    return stp__oom(err, "class schedule");
  }
  for (size_t k = 0; k < rd->nmsg; k++) {
    unsigned __int128 a = (unsigned __int128)rd->from[k] * rd->r % rd->g;
    unsigned __int128 b = (unsigned __int128)rd->to[k] * rd->s % rd->g;
    cls[k] = sorted[k] = (uint64_t)((a + rd->g - b) % rd->g);
  }
  qsort(sorted, rd->nmsg, sizeof *sorted, stp__cmp_u64);
  size_t nc = 0;
  for (size_t k = 0; k < rd->nmsg; k++)
    if (k == 0 || sorted[k] != sorted[k - 1])
      sorted[nc++] = sorted[k];
  stp_status s = STP_OK;
  if ((uint64_t)nc * T > UINT32_MAX)
    s = stp__fail(err, STP_ELIMIT, "class: %zu classes x %llu steps is too many", nc,
                  (unsigned long long)T);
  for (size_t k = 0; k < rd->nmsg && s == STP_OK; k++) {
    size_t lo = 0, hi = nc; /* index of cls[k] among the distinct classes */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (sorted[mid] < cls[k])
        lo = mid + 1;
      else
        hi = mid;
    }
    uint64_t alpha = rd->from[k] / h, beta = rd->to[k] / h;
    uint64_t t = A >= B ? (alpha + A - beta) % A : (beta + B - alpha) % B;
    step[k] = (uint32_t)(lo * T + t);
  }
  *ns = (uint64_t)nc * T;
  free(cls);
  free(sorted);
  return s;
}

stp_status stp__redist_caterpillar(const stp_redist *rd, uint32_t *step, uint64_t *ns,
                                   stp_error *err) {
  uint64_t n = rd->P > rd->Q ? rd->P : rd->Q;
  (void)err;
  for (size_t k = 0; k < rd->nmsg; k++)
    step[k] = (uint32_t)((rd->from[k] + n - rd->to[k]) % n);
  *ns = n;
  return STP_OK;
}

typedef struct work {
  uint32_t *u, *v, *idx;
  stp_w2 *w;
  unsigned char *chosen;
  uint32_t *deg_row, *deg_col;
} work;

static void work_free(work *w) {
  free(w->u);
  free(w->v);
  free(w->idx);
  free(w->w);
  free(w->chosen);
  free(w->deg_row);
  free(w->deg_col);
}

stp_status stp__redist_matchings(const stp_redist *rd, int saturate, const stp_control *control,
                                 uint32_t *step, uint64_t *ns, stp_error *err) {
  const char *name = saturate ? "stepwise" : "greedy";
  const stp_cancel *cancel = control ? &control->cancel : NULL;
  double t0 = stp__now();
  uint64_t maxlen = 0;
  for (size_t k = 0; k < rd->nmsg; k++)
    maxlen = rd->mlen[k] > maxlen ? rd->mlen[k] : maxlen;
  /* path costs of the matching stay below (P + Q + 2) times the largest weight */
  if (maxlen > (UINT64_C(1) << 61) / (rd->P + rd->Q + 2))
    return stp__fail(err, STP_ELIMIT, "%s: messages of %llu elements are too long for exact "
                     "integer weights", name, (unsigned long long)maxlen);
  size_t n = rd->nmsg;
  work w = {stp__malloc_array(n + 1, sizeof(uint32_t)), stp__malloc_array(n + 1, sizeof(uint32_t)),
            stp__malloc_array(n + 1, sizeof(uint32_t)), stp__malloc_array(n + 1, sizeof(stp_w2)),
            stp__malloc_array(n + 1, 1), stp__calloc((size_t)rd->P, sizeof(uint32_t)),
            stp__calloc((size_t)rd->Q, sizeof(uint32_t))};
  if (!w.u || !w.v || !w.idx || !w.w || !w.chosen || !w.deg_row || !w.deg_col) {
    work_free(&w);
    return stp__oom(err, name);
  }
  for (size_t k = 0; k < n; k++) {
    w.idx[k] = (uint32_t)k;
    w.deg_row[rd->from[k]]++;
    w.deg_col[rd->to[k]]++;
  }
  size_t left = n;
  uint64_t t = 0;
  stp_status s = STP_OK;
  while (left > 0 && s == STP_OK) {
    stp__progress(control, saturate ? "stepwise: messages scheduled" : "greedy: messages scheduled",
                  n - left, n, t0);
    if (stp__cancelled(cancel)) {
      s = stp__fail(err, STP_EINTERRUPTED, "%s: interrupted", name);
      break;
    }
    uint32_t dmax = 0;
    for (uint64_t p = 0; p < rd->P; p++)
      dmax = w.deg_row[p] > dmax ? w.deg_row[p] : dmax;
    for (uint64_t q = 0; q < rd->Q; q++)
      dmax = w.deg_col[q] > dmax ? w.deg_col[q] : dmax;
    for (size_t i = 0; i < left; i++) {
      size_t k = w.idx[i];
      w.u[i] = rd->from[k];
      w.v[i] = rd->to[k];
      int64_t cover = saturate ? (w.deg_row[rd->from[k]] == dmax) + (w.deg_col[rd->to[k]] == dmax)
                               : 0;
      w.w[i] = (stp_w2){cover, (int64_t)rd->mlen[k]};
    }
    s = stp__bmatch_max_weight((size_t)rd->P, (size_t)rd->Q, left, w.u, w.v, w.w, cancel,
                               w.chosen, NULL, err);
    if (s != STP_OK)
      break;
    size_t kept = 0, taken = 0;
    for (size_t i = 0; i < left; i++) {
      size_t k = w.idx[i];
      if (w.chosen[i]) {
        step[k] = (uint32_t)t;
        w.deg_row[rd->from[k]]--;
        w.deg_col[rd->to[k]]--;
        taken++;
      } else {
        w.idx[kept++] = (uint32_t)k;
      }
    }
    if (taken == 0) {
      s = stp__fail(err, STP_EINTERNAL, "%s: empty matching with %zu messages left", name, left);
      break;
    }
    if (saturate) { /* Berge: every maximum-degree vertex was covered */
      uint32_t d2 = 0;
      for (uint64_t p = 0; p < rd->P; p++)
        d2 = w.deg_row[p] > d2 ? w.deg_row[p] : d2;
      for (uint64_t q = 0; q < rd->Q; q++)
        d2 = w.deg_col[q] > d2 ? w.deg_col[q] : d2;
      if (d2 != dmax - 1)
        s = stp__fail(err, STP_EINTERNAL, "stepwise: step %llu left degree %u after %u",
                      (unsigned long long)t, d2, dmax);
    }
    left = kept;
    t++;
  }
  *ns = t;
  work_free(&w);
  return s;
}
