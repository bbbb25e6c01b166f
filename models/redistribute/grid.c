/* grid.c: the communication grid without touching the L elements.  Element
 * i sits on p = floor(i/r) mod P before and q = floor(i/s) mod Q after; over
 * one period i -> (i mod Pr, i mod Qs) is a bijection onto the pairs
 * (a, b) with a = b mod g (Chinese remainders, g = gcd(Pr, Qs)).  So the
 * length of (p, q) is the number of (x, y) in [0, r) x [0, s) with
 * pr + x = qs + y (mod g): with d = x - y, it sums the multiplicity
 * min(r, s, s + d, r - d) of each d in [1 - s, r - 1] congruent to
 * qs - pr mod g.  That multiplicity is piecewise linear (rising, flat,
 * falling: the paper's vol, Fig. 1), and each piece sums in closed form
 * over an arithmetic progression.  The paper also assumes gcd(r, s) = 1
 * (Lemma 1); the count needs no such assumption. */
#include "models/redistribute/grid.h"

#include "base/core.h"

#include <stdlib.h>

typedef __int128 i128;

#define GRID_TABLE_MAX (UINT64_C(1) << 22) /* classes tabulated up to this g */

/* sum of (c0 + c1 d) over d in [lo, hi] with d = c (mod g). */
static i128 ap_sum(i128 lo, i128 hi, i128 c, i128 g, i128 c0, i128 c1) {
  if (lo > hi)
    return 0;
  i128 d0 = lo + (((c - lo) % g) + g) % g;
  if (d0 > hi)
    return 0;
  i128 n = (hi - d0) / g + 1;
  return n * c0 + c1 * (n * d0 + g * (n * (n - 1) / 2));
}

/* The length of every message of class c = (q s - p r) mod g. */
static uint64_t length_of_class(uint64_t r, uint64_t s, uint64_t g, uint64_t cls) {
  i128 G = (i128)g, R = (i128)r, S = (i128)s, c = (i128)cls;
  i128 a = R < S ? R : S;
  i128 mid_lo = a - S + 1, mid_hi = R - a - 1;
  i128 fall_lo = R - a > mid_lo ? R - a : mid_lo;
  i128 total = ap_sum(1 - S, a - S, c, G, S, 1)          /* s + d */
               + ap_sum(mid_lo, mid_hi, c, G, a, 0)      /* min(r, s) */
               + ap_sum(fall_lo, R - 1, c, G, R, -1);    /* r - d */
  return (uint64_t)total;
}

uint64_t stp__redist_count(uint64_t P, uint64_t Q, uint64_t r, uint64_t s, uint64_t g,
                           uint64_t p, uint64_t q) {
  (void)P;
  (void)Q;
  i128 G = (i128)g;
  i128 c = ((((i128)q * (i128)s - (i128)p * (i128)r) % G) + G) % G;
  return length_of_class(r, s, g, (uint64_t)c);
}

static uint64_t class_length(const stp_redist *rd, uint64_t c) {
  return length_of_class(rd->r, rd->s, rd->g, c);
}

static stp_status check_param(const char *name, uint64_t v, uint64_t max, stp_error *err) {
  if (v < 1)
    return stp__fail(err, STP_EINVAL, "%s = %llu: must be a positive integer", name,
                     (unsigned long long)v);
  if (v > max)
    return stp__fail(err, STP_ELIMIT, "%s = %llu: above the limit %llu", name,
                     (unsigned long long)v, (unsigned long long)max);
  return STP_OK;
}

void stp_redist_free(stp_redist *rd) {
  if (!rd)
    return;
  free(rd->len);
  free(rd->from);
  free(rd->to);
  free(rd->mlen);
  free(rd->deg_row);
  free(rd->deg_col);
  free(rd);
}

static stp_status fill_grid(stp_redist *rd, stp_error *err) {
  size_t cells = (size_t)(rd->P * rd->Q);
  rd->len = stp__malloc_array(cells, sizeof *rd->len);
  rd->deg_row = stp__calloc((size_t)rd->P, sizeof *rd->deg_row);
  rd->deg_col = stp__calloc((size_t)rd->Q, sizeof *rd->deg_col);
  if (!rd->len || !rd->deg_row || !rd->deg_col)
    return stp__oom(err, "communication grid");
  /* The length depends only on c = (q s - p r) mod g: a table over c when g
   * is small, the closed form per cell otherwise; c advances by s mod g
   * along a row (no division per cell). */
  uint64_t *table = NULL;
  if (rd->g <= GRID_TABLE_MAX) {
    table = stp__malloc_array((size_t)rd->g, sizeof *table);
    if (!table)
      return stp__oom(err, "communication grid");
    for (uint64_t c = 0; c < rd->g; c++)
      table[c] = class_length(rd, c);
  }
  uint64_t smod = rd->s % rd->g;
  for (uint64_t p = 0; p < rd->P; p++) {
    uint64_t c = (rd->g - (uint64_t)((unsigned __int128)p * rd->r % rd->g)) % rd->g;
    for (uint64_t q = 0; q < rd->Q; q++, c = c + smod >= rd->g ? c + smod - rd->g : c + smod) {
      uint64_t l = table ? table[c] : class_length(rd, c);
      rd->len[p * rd->Q + q] = l;
      if (l > 0) {
        rd->nmsg++;
        rd->deg_row[p]++;
        rd->deg_col[q]++;
      }
    }
  }
  free(table);
  rd->from = stp__malloc_array(rd->nmsg, sizeof *rd->from);
  rd->to = stp__malloc_array(rd->nmsg, sizeof *rd->to);
  rd->mlen = stp__malloc_array(rd->nmsg, sizeof *rd->mlen);
  if (rd->nmsg && (!rd->from || !rd->to || !rd->mlen))
    return stp__oom(err, "message list");
  size_t k = 0;
  for (uint64_t p = 0; p < rd->P; p++)
    for (uint64_t q = 0; q < rd->Q; q++)
      if (rd->len[p * rd->Q + q] > 0) {
        rd->from[k] = (uint32_t)p;
        rd->to[k] = (uint32_t)q;
        rd->mlen[k] = rd->len[p * rd->Q + q];
        k++;
      }
  for (uint64_t p = 0; p < rd->P; p++)
    rd->ns_opt = rd->deg_row[p] > rd->ns_opt ? rd->deg_row[p] : rd->ns_opt;
  for (uint64_t q = 0; q < rd->Q; q++)
    rd->ns_opt = rd->deg_col[q] > rd->ns_opt ? rd->deg_col[q] : rd->ns_opt;
  return STP_OK;
}

stp_status stp_redist_new(uint64_t P, uint64_t Q, uint64_t r, uint64_t s, stp_redist **out,
                          stp_error *err) {
  *out = NULL;
  STP_CHECK(check_param("P", P, STP_REDIST_MAX_PROCS, err));
  STP_CHECK(check_param("Q", Q, STP_REDIST_MAX_PROCS, err));
  STP_CHECK(check_param("r", r, STP_REDIST_MAX_BLOCK, err));
  STP_CHECK(check_param("s", s, STP_REDIST_MAX_BLOCK, err));
  if (P * Q > STP_REDIST_MAX_CELLS)
    return stp__fail(err, STP_ELIMIT, "P = %llu, Q = %llu: %llu grid cells, above the limit %llu",
                     (unsigned long long)P, (unsigned long long)Q,
                     (unsigned long long)(P * Q), (unsigned long long)STP_REDIST_MAX_CELLS);
  uint64_t L;
  if (!stp__lcm_u64(P * r, Q * s, &L) || L > STP_REDIST_MAX_L)
    return stp__fail(err, STP_ELIMIT, "L = lcm(P r, Q s) = lcm(%llu, %llu) is above 2^62",
                     (unsigned long long)(P * r), (unsigned long long)(Q * s));
  stp_redist *rd = stp__calloc(1, sizeof *rd);
  if (!rd)
    return stp__oom(err, "redistribution");
  *rd = (stp_redist){.P = P, .Q = Q, .r = r, .s = s, .L = L, .g = stp__gcd_u64(P * r, Q * s)};
  stp_status st = fill_grid(rd, err);
  if (st != STP_OK) {
    stp_redist_free(rd);
    return st;
  }
  *out = rd;
  return STP_OK;
}

void stp_redist_get_info(const stp_redist *rd, stp_redist_info *info) {
  *info = (stp_redist_info){.P = rd->P, .Q = rd->Q, .r = rd->r, .s = rd->s, .L = rd->L,
                            .g = rd->g, .messages = rd->nmsg, .ns_opt = rd->ns_opt};
}

uint64_t stp_redist_length(const stp_redist *rd, uint64_t p, uint64_t q) {
  return p < rd->P && q < rd->Q ? rd->len[p * rd->Q + q] : 0;
}

size_t stp__redist_find(const stp_redist *rd, uint64_t p, uint64_t q) {
  if (p >= rd->P || q >= rd->Q || rd->len[p * rd->Q + q] == 0)
    return SIZE_MAX;
  /* row-major: binary search on (from, to) */
  size_t lo = 0, hi = rd->nmsg;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rd->from[mid] < p || (rd->from[mid] == p && rd->to[mid] < q))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

stp_status stp_redist_class_applies(const stp_redist *rd, stp_error *err) {
  uint64_t a = stp__gcd_u64(rd->r, rd->Q), b = stp__gcd_u64(rd->s, rd->P);
  if (a == 1 && b == 1)
    return STP_OK;
  return stp__fail(err, STP_EINVAL,
                   "class: the paper's simple case needs gcd(r, Q) = gcd(s, P) = 1, here "
                   "gcd(r, Q) = gcd(%llu, %llu) = %llu and gcd(s, P) = gcd(%llu, %llu) = %llu "
                   "(use stepwise, greedy or optimal)",
                   (unsigned long long)rd->r, (unsigned long long)rd->Q, (unsigned long long)a,
                   (unsigned long long)rd->s, (unsigned long long)rd->P, (unsigned long long)b);
}
