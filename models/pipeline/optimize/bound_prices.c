/* bound_prices.c: the price bound (optimize.h, "bounds"): on problems
 * whose vectors of team sizes are too many for the team bound
 * (bound_teams.c), a Lagrangian relaxation of the disjointness of the
 * teams, bisected on the throughput.
 *
 * Why it is an upper bound.  A mapping of value theta (det or exp, exp <=
 * det) has, for every member p of the team T_i of a free stage i, t_i(p)
 * / R_i <= its resource cycle-time <= the period (optimize.h, "bounds"):
 * t_i(p) <= |T_i| / theta.  Call such a set of processors a valid team of
 * stage i at theta.  For any prices mu_p >= 0 let c_i(mu) be the cheapest
 * valid team's price: over the sizes R, the R cheapest processors among
 * those with t_i(p) <= R / theta.  The teams being disjoint,
 *   sum_i c_i(mu) <= sum_i mu(T_i) <= sum_p mu_p,
 * so prices with sum_i c_i(mu) > sum_p mu_p prove that no mapping reaches
 * theta (a stage without any valid team proves it too).  Such prices are
 * sought by multiplicative updates (a processor that several cheapest
 * teams take costs more, one that none takes less); the bound is the
 * smallest theta proved so, found by bisection: every theta above it is
 * unreachable as well (valid teams only shrink as theta grows).  Where the
 * prices prove nothing the bisection moves up: weaker, never wrong. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bisection steps (the bound to 2^-14 of the counting bound) and price
 * rounds per step (each step goes on from the last one's prices); the
 * work cap (stage x processor cells visited) keeps it within about 0.5 s. */
#define PRICE_STEPS 14
#define PRICE_ROUNDS 300
#define PRICE_WORK 3e8
#define PRICE_POLL 1e6
/* A proof needs this relative margin (the sums are of the same prices in
 * other orders). */
#define PRICE_MARGIN 1e-9
/* The first round's step: a price moves by exp(step x (takes - 1)), and
 * up to N teams take one processor (larger steps oscillated on 20 x 100). */
#define PRICE_STEP 0.05

/* A member of a mapping of value theta or more has t x theta <= R up to a
 * rounding: the valid teams are taken that much wider (a larger set of
 * teams, a weaker proof, never a wrong one). */
#define VALID_SLACK (1 + 1e-12)

typedef struct priced {
  double mu;
  size_t p;
} priced;

typedef struct prices {
  const stp_opt_space *sp;
  const stp_opt_bound *b;
  size_t N, M;
  double *mu;       /* M */
  size_t *rank;     /* M: p's place by increasing price */
  size_t *by_price; /* M */
  priced *sorted;   /* M: scratch of the sort */
  double *fw_sum;   /* M + 1: Fenwick tree over the ranks (sums of prices) */
  size_t *fw_n;     /* M + 1: (counts) */
  size_t *takes;    /* M: how many cheapest teams take p */
  double work, next_poll;
  bool stopped;
  const stp_cancel *cancel;
} prices;

static void fw_add(prices *pr, size_t at, double v) {
  for (size_t k = at + 1; k <= pr->M; k += k & (~k + 1)) {
    pr->fw_sum[k] += v;
    pr->fw_n[k]++;
  }
}

/* The sum of the r cheapest processors inserted (r <= how many are). */
static double fw_cheapest(const prices *pr, size_t r) {
  size_t at = 0, step = 1;
  double sum = 0;
  while (step * 2 <= pr->M)
    step *= 2;
  for (; step; step /= 2)
    if (at + step <= pr->M && pr->fw_n[at + step] < r) {
      at += step;
      r -= pr->fw_n[at];
      sum += pr->fw_sum[at];
    }
  /* the next rank present is the r-th (r = 1 left) */
  return sum + pr->mu[pr->by_price[at]];
}

/* By price, then by processor (qsort is not stable). */
static int by_mu(const void *a, const void *b) {
  const priced *x = a, *y = b;
  if (x->mu != y->mu)
    return x->mu < y->mu ? -1 : 1;
  return (x->p > y->p) - (x->p < y->p);
}

/* Stage i's cheapest valid team at theta: its price (INFINITY: none), and
 * the team counted in takes. */
static double cheapest_team(prices *pr, size_t i, double theta) {
  const stp_opt_space *sp = pr->sp;
  const size_t *ord = pr->b->order + i * pr->M;
  size_t n = pr->b->norder[i], in = 0, best_r = 0;
  double best = INFINITY;
  memset(pr->fw_sum, 0, (pr->M + 1) * sizeof *pr->fw_sum);
  memset(pr->fw_n, 0, (pr->M + 1) * sizeof *pr->fw_n);
  for (size_t r = 1, k = 0; r <= sp->kmax; r++) {
    for (; k < n && pr->b->t[i * pr->M + ord[k]] * theta <= (double)r * VALID_SLACK; k++)
      if (sp->reserved[ord[k]] == STP_OPT_NONE) {
        fw_add(pr, pr->rank[ord[k]], pr->mu[ord[k]]);
        in++;
      }
    if (in >= r) {
      double c = fw_cheapest(pr, r);
      if (c < best) {
        best = c;
        best_r = r;
      }
    }
    if (k == n && in < r)
      break;
  }
  pr->work += (double)n + (double)sp->kmax;
  if (best_r == 0)
    return INFINITY;
  /* the team: the best_r cheapest among t <= best_r / theta */
  for (size_t j = 0, got = 0; j < pr->M && got < best_r; j++) {
    size_t p = pr->by_price[j];
    if (sp->allowed[i * pr->M + p] && sp->reserved[p] == STP_OPT_NONE &&
        pr->b->t[i * pr->M + p] * theta <= (double)best_r * VALID_SLACK) {
      pr->takes[p]++;
      got++;
    }
  }
  return best;
}

static bool price_stop(prices *pr) {
  if (!pr->stopped && pr->work > PRICE_WORK)
    pr->stopped = true;
  if (!pr->stopped && pr->work >= pr->next_poll) {
    pr->next_poll = pr->work + PRICE_POLL;
    pr->stopped = stp__cancelled(pr->cancel);
  }
  return pr->stopped;
}

/* Whether prices prove that no mapping reaches theta. */
static bool unreachable(prices *pr, double theta) {
  size_t M = pr->M, nfree = 0;
  for (size_t p = 0; p < M; p++)
    nfree += pr->sp->reserved[p] == STP_OPT_NONE;
  if (nfree == 0)
    return false;
  for (int round = 0; round < PRICE_ROUNDS && !price_stop(pr); round++) {
    for (size_t p = 0; p < M; p++)
      pr->sorted[p] = (priced){pr->mu[p], p};
    qsort(pr->sorted, M, sizeof *pr->sorted, by_mu);
    for (size_t j = 0; j < M; j++) {
      pr->by_price[j] = pr->sorted[j].p;
      pr->rank[pr->by_price[j]] = j;
    }
    memset(pr->takes, 0, M * sizeof *pr->takes);
    double total = 0, paid = 0;
    for (size_t i = 0; i < pr->N; i++) {
      if (stp__opt_fixed_size(pr->sp, i))
        continue;
      double c = cheapest_team(pr, i, theta);
      if (isinf(c))
        return true; /* stage i has no valid team */
      total += c;
    }
    for (size_t p = 0; p < M; p++)
      paid += pr->sp->reserved[p] == STP_OPT_NONE ? pr->mu[p] : 0;
    if (total > paid * (1 + PRICE_MARGIN))
      return true;
    /* dearer where taken twice or more, cheaper where not taken */
    double step = PRICE_STEP / sqrt(1.0 + round), sum = 0;
    for (size_t p = 0; p < M; p++) {
      if (pr->sp->reserved[p] != STP_OPT_NONE)
        continue;
      pr->mu[p] *= exp(step * ((double)pr->takes[p] - 1));
      sum += pr->mu[p];
    }
    for (size_t p = 0; p < M; p++)
      pr->mu[p] *= (double)nfree / sum;
  }
  return false;
}

double stp__opt_bound_prices(const stp_opt_space *sp, const stp_opt_bound *b, double cap,
                             const stp_cancel *cancel) {
  /* only where a bisection step can run its rounds a few times over
   * (3,000 x 3,000: one round is 2e7 cells, the cap would be spent in 15) */
  double round_work = (double)sp->N * (double)(sp->M + sp->kmax);
  if (!(cap > 0) || !isfinite(cap) || round_work * PRICE_ROUNDS * 4 > PRICE_WORK ||
      stp__cancelled(cancel))
    return cap;
  size_t M = sp->M;
  prices pr = {.sp = sp, .b = b, .N = sp->N, .M = M, .cancel = cancel, .next_poll = PRICE_POLL};
  pr.mu = stp__malloc_array(M, sizeof *pr.mu);
  pr.rank = stp__malloc_array(M, sizeof *pr.rank);
  pr.by_price = stp__malloc_array(M, sizeof *pr.by_price);
  pr.fw_sum = stp__malloc_array(M + 1, sizeof *pr.fw_sum);
  pr.fw_n = stp__malloc_array(M + 1, sizeof *pr.fw_n);
  pr.takes = stp__malloc_array(M, sizeof *pr.takes);
  pr.sorted = stp__malloc_array(M, sizeof *pr.sorted);
  double lo = 0, hi = cap;
  bool ready = pr.mu && pr.rank && pr.by_price && pr.fw_sum && pr.fw_n && pr.takes && pr.sorted;
  for (size_t p = 0; ready && p < M; p++)
    pr.mu[p] = 1; /* each step starts from the last step's prices */
  if (ready)
    for (int s = 0; s < PRICE_STEPS && !pr.stopped; s++) {
      double mid = lo + (hi - lo) / 2;
      if (unreachable(&pr, mid))
        hi = mid;
      else if (!pr.stopped)
        lo = mid;
    }
  free(pr.mu);
  free(pr.rank);
  free(pr.by_price);
  free(pr.fw_sum);
  free(pr.fw_n);
  free(pr.takes);
  free(pr.sorted);
  return hi;
}
