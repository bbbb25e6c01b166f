/* stationary_bands.c: level-order Gauss-Seidel on a compact move store
 * (stationary_bands.h).  A sweep takes the levels in order; the value of
 * each state of level l, pushed into it by the rows of level l-1 (every
 * move of level l-1 lands in level l), is divided by its rate out, read
 * from its own row, and that row then pushes x[i] * rate into level l+1,
 * zeroed before (one read of each row per sweep).  Sources are taken in
 * increasing order, as the transpose of stationary.c lists them, so every
 * sum is taken in the same order and the iterates are the same numbers. */
#include "solvers/stationary_bands.h"

#include "base/core.h"
#include "solvers/stationary_krylov.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bands_work {
  const stp_movestore *ms;
  uint32_t period;
  double qnorm;     /* ||Q||_1 */
  double *x;        /* the iterate, by state */
  double *acc;      /* inflow into one level, by position within the level */
  uint64_t *base;   /* per band: position of its first state within its level */
  double xmax;      /* max |x| after the last sweep (which computed every x[s]) */
  double xsum;      /* the sum of x after the last sweep, in its order */
  bool self_loops;  /* some move goes back to its state (none in event graphs' chains) */
  double *vm;       /* scratch of level_rows_lanes: a value per move of ROW_BLOCK rows */
  unsigned lanes;   /* rows of up to this many moves are taken in lanes (8, 12 or 16) */
} bands_work;

/* Rate out of the state whose row starts at move e and has d moves. */
static inline double out_rate(const stp_movestore *ms, uint64_t s, uint64_t e, uint64_t d) {
  double out = 0;
  for (uint64_t k = 0; k < d; k++)
    if (ms->to[e + k] != s)
      out += ms->rate[stp__movestore_label(ms, e + k)];
  return out;
}

/* Period: the gcd over the moves s -> t of depth(s) + 1 - depth(t). */
static uint32_t chain_period(const stp_movestore *ms) {
  uint64_t g = 0;
  for (uint64_t b = 0; b < ms->nbands; b++) {
    uint64_t e = ms->band_move[b];
    for (uint64_t s = ms->band[b]; s < stp__movestore_band_end(ms, b); s++)
      for (uint64_t k = 0; k < ms->deg[s]; k++, e++) {
        if (ms->to[e] == s)
          continue;
        uint64_t bt = stp__movestore_band_of(ms, ms->to[e], b + 1);
        g = stp__gcd_u64(g, b + 1 - bt); /* bt <= b + 1 in a breadth-first numbering */
      }
  }
  return g > UINT32_MAX ? 0 : (uint32_t)g;
}

/* The states that reach state 0, by a search from 0 along the reversed
 * moves (a transpose of the targets: 12 bytes per state + 4 per move);
 * *count: how many, seen[s] = 1 for each. */
static stp_status reach_0_transposed(const stp_movestore *ms, uint8_t *seen, uint64_t *count,
                                     stp_error *err) {
  uint64_t n = ms->nstates;
  uint64_t *off = stp__calloc((size_t)n + 1, sizeof *off);
  uint32_t *src = stp__malloc_array(ms->nmoves ? ms->nmoves : 1, sizeof *src);
  uint32_t *queue = stp__malloc_array((size_t)n, sizeof *queue);
  stp_status st = STP_OK;
  if (!off || !src || !queue) {
    st = stp__oom(err, "checking that the Markov chain is irreducible");
    goto done;
  }
  for (uint64_t s = 0, e = 0; s < n; s++)
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++)
      off[ms->to[e] + 1]++;
  for (uint64_t s = 0; s < n; s++)
    off[s + 1] += off[s];
  for (uint64_t s = 0, e = 0; s < n; s++) /* off[t] as t's cursor, shifted back below */
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++)
      src[off[ms->to[e]]++] = (uint32_t)s;
  for (uint64_t s = n; s > 0; s--)
    off[s] = off[s - 1];
  off[0] = 0;
  uint64_t head = 0, tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    uint32_t t = queue[head++];
    for (uint64_t k = off[t]; k < off[t + 1]; k++)
      if (!seen[src[k]]) {
        seen[src[k]] = 1;
        queue[tail++] = src[k];
      }
  }
  *count = tail;
done:
  free(off);
  free(src);
  free(queue);
  return st;
}

/* One pass of the forward search for the states that reach 0: a state is
 * marked once one of its targets is, states taken in decreasing order
 * (down) or increasing order.  Returns how many it marked. */
static uint64_t reach_0_pass(const stp_movestore *ms, uint8_t *bits, bool down) {
  uint64_t n = ms->nstates, marked = 0;
  for (uint64_t i = 0, e = down ? ms->nmoves : 0; i < n; i++) {
    uint64_t s = down ? n - 1 - i : i, d = ms->deg[s];
    if (down)
      e -= d;
    if (!(bits[s >> 3] >> (s & 7) & 1))
      for (uint64_t k = 0; k < d; k++) {
        uint32_t t = ms->to[e + k];
        if (bits[t >> 3] >> (t & 7) & 1) {
          bits[s >> 3] |= (uint8_t)(1u << (s & 7));
          marked++;
          break;
        }
      }
    if (!down)
      e += d;
  }
  return marked;
}

/* Every state reaches state 0 (that 0 reaches every state is the
 * breadth-first numbering).  Passes of reach_0_pass, alternately down and
 * up, until every state is marked or a pass marks none: one bit per state
 * and sequential reads of the moves, where a transposed search would
 * build and touch 12 bytes per state and 4 per move.  A path to 0 is
 * found in one pass per change of direction of its numbering, so a few
 * passes do on chains numbered breadth first; should a chain need more
 * than STP_REACH_PASSES, the transposed search finishes the job. */
#define STP_REACH_PASSES 16
static stp_status check_reaches_0(const stp_movestore *ms, stp_error *err) {
  uint64_t n = ms->nstates, count = 1, added = 1;
  uint8_t *seen = NULL, *bits = stp__calloc((size_t)(n + 7) / 8, 1);
  if (!bits)
    return stp__oom(err, "checking that the Markov chain is irreducible");
  bits[0] = 1;
  for (unsigned pass = 0; count < n && added && pass < STP_REACH_PASSES; pass++)
    count += added = reach_0_pass(ms, bits, pass % 2 == 0);
  stp_status st = STP_OK;
  if (count < n && added) {
    seen = stp__calloc((size_t)n, 1);
    st = seen ? reach_0_transposed(ms, seen, &count, err)
              : stp__oom(err, "checking that the Markov chain is irreducible");
  }
  if (st == STP_OK && count < n) {
    uint64_t missing = 0;
    while (seen ? seen[missing] : bits[missing >> 3] >> (missing & 7) & 1)
      missing++;
    st = stp__fail(err, STP_ENUMERIC,
                   "the Markov chain is not irreducible: state %llu cannot reach state 0 "
                   "(%llu of %llu states can); it has an absorbing class",
                   (unsigned long long)missing, (unsigned long long)count,
                   (unsigned long long)n);
  }
  free(seen);
  free(bits);
  return st;
}

/* ||Q||_1: the largest column sum of |Q| (x as scratch); *self_loops:
 * whether some move goes back to its state. */
static double column_norm(const stp_movestore *ms, double *col, bool *self_loops) {
  memset(col, 0, (size_t)ms->nstates * sizeof *col);
  *self_loops = false;
  for (uint64_t s = 0, e = 0; s < ms->nstates; s++)
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++)
      if (ms->to[e] == s)
        *self_loops = true;
      else {
        double r = ms->rate[stp__movestore_label(ms, e)];
        col[ms->to[e]] += r;
        col[s] += r;
      }
  double q = 0;
  for (uint64_t s = 0; s < ms->nstates; s++)
    q = col[s] > q ? col[s] : q;
  return q;
}

/* Positions within levels; returns the size of the largest level. */
static uint64_t level_positions(bands_work *w) {
  const stp_movestore *ms = w->ms;
  uint64_t largest = 0;
  for (uint32_t l = 0; l < w->period; l++) {
    uint64_t at = 0;
    for (uint64_t b = l; b < ms->nbands; b += w->period) {
      w->base[b] = at;
      at += stp__movestore_band_end(ms, b) - ms->band[b];
    }
    largest = at > largest ? at : largest;
  }
  return largest;
}

static inline uint32_t prev_level(const bands_work *w, uint32_t l) {
  return l ? l - 1 : w->period - 1;
}

/* The band of t, the target of a move from band b: band b + 1 where the
 * states are numbered breadth first, band b + 1 - period where each level
 * is one band and the move wraps round to level 0; else a search. */
static inline uint64_t target_band(const bands_work *w, uint64_t t, uint64_t b) {
  const stp_movestore *ms = w->ms;
  uint64_t h = b + 1 < ms->nbands ? b + 1 : b + 1 >= w->period ? b + 1 - w->period : b;
  if (ms->band[h] <= t && t < stp__movestore_band_end(ms, h))
    return h;
  return stp__movestore_band_of(ms, t, h);
}

/* acc = the inflow into level l from the current x (of level l - 1). */
static void level_inflow(const bands_work *w, uint32_t l) {
  const stp_movestore *ms = w->ms;
  uint64_t size = 0;
  for (uint64_t b = l; b < ms->nbands; b += w->period)
    size += stp__movestore_band_end(ms, b) - ms->band[b];
  memset(w->acc, 0, (size_t)size * sizeof *w->acc);
  for (uint64_t b = prev_level(w, l); b < ms->nbands; b += w->period) {
    uint64_t e = ms->band_move[b];
    for (uint64_t s = ms->band[b]; s < stp__movestore_band_end(ms, b); s++)
      for (uint64_t k = 0; k < ms->deg[s]; k++, e++) {
        uint64_t t = ms->to[e];
        if (t == s)
          continue;
        uint64_t bt = target_band(w, t, b);
        w->acc[w->base[bt] + t - ms->band[bt]] += w->x[s] * ms->rate[stp__movestore_label(ms, e)];
      }
  }
}

/* max |inflow - x out| over level l (acc holds its inflow). */
static double level_residual(const bands_work *w, uint32_t l) {
  const stp_movestore *ms = w->ms;
  double rmax = 0;
  for (uint64_t b = l; b < ms->nbands; b += w->period) {
    uint64_t e = ms->band_move[b], at = w->base[b];
    for (uint64_t s = ms->band[b]; s < stp__movestore_band_end(ms, b); s++, at++) {
      double r = fabs(w->acc[at] - w->x[s] * out_rate(ms, s, e, ms->deg[s]));
      rmax = r > rmax ? r : rmax;
      e += ms->deg[s];
    }
  }
  return rmax;
}

static double x_max(const bands_work *w) {
  double pmax = 0;
  for (uint64_t s = 0; s < w->ms->nstates; s++)
    pmax = fabs(w->x[s]) > pmax ? fabs(w->x[s]) : pmax;
  return pmax;
}

static double scaled_by(const bands_work *w, double rmax, double pmax) {
  return w->qnorm * pmax > 0 ? rmax / (w->qnorm * pmax) : 0;
}

static double scaled(const bands_work *w, double rmax) {
  return scaled_by(w, rmax, x_max(w));
}

/* The scaled residual ||x Q||_inf / (||Q||_1 ||x||_inf) (every move goes
 * from one level to the next, so the levels' residuals make up x Q). */
static double full_residual(const bands_work *w) {
  double rmax = 0;
  for (uint32_t l = 0; l < w->period; l++) {
    level_inflow(w, l);
    double r = level_residual(w, l);
    rmax = r > rmax ? r : rmax;
  }
  return scaled(w, rmax);
}

/* The label of move e; lb (its bytes) is a constant where this is inlined,
 * so that a one-byte label is one load. */
static inline uint32_t label_at(const uint8_t *label, uint64_t e, unsigned lb) {
  if (lb == 1)
    return label[e];
  if (lb == 2)
    return (uint32_t)label[2 * e] | (uint32_t)label[2 * e + 1] << 8;
  uint32_t v = 0; /* little-endian, 3 or 4 bytes */
  for (unsigned k = lb; k-- > 0;)
    v = v << 8 | label[lb * e + k];
  return v;
}

/* What a pass over the rows of a level adds up: the sum and the largest of
 * the values it computes. */
typedef struct pass_sums {
  double sum, max;
} pass_sums;

/* The rows of level l in one pass.  With divide, x[s] = (its inflow) / (its
 * rate out, from its row): the inflow from acc with from_acc (level 0,
 * after the residual estimate), else already in x.  With push, x[s] * rate
 * then goes along the same row into level l + 1, zeroed first.  Each row
 * is thus read from memory once per sweep, not twice (once to push into
 * the next level, once for its own rate out), and the sums into a state of
 * level l + 1 still take its sources in increasing order.  The sum and the
 * largest of the values divided are added to *ps (kept in registers over
 * the pass). */
static inline __attribute__((always_inline)) void
level_rows(const bands_work *w, uint32_t l, bool divide, bool from_acc, bool push, pass_sums *ps,
           unsigned lb, bool self_loops) {
  const stp_movestore *ms = w->ms;
  const uint32_t *to = ms->to;
  const uint8_t *label = ms->label;
  const double *rate = ms->rate;
  double *x = w->x, sum = ps->sum, vmax = ps->max;
  if (push)
    for (uint64_t b = l + 1; b < ms->nbands; b += w->period)
      memset(x + ms->band[b], 0,
             (size_t)(stp__movestore_band_end(ms, b) - ms->band[b]) * sizeof *x);
  for (uint64_t b = l; b < ms->nbands; b += w->period) {
    uint64_t e = ms->band_move[b], at = w->base[b], end = stp__movestore_band_end(ms, b);
    for (uint64_t s = ms->band[b]; s < end; s++, at++) {
      uint64_t d = ms->deg[s];
      if (divide) {
        double out = 0;
        for (uint64_t k = e; k < e + d; k++)
          if (self_loops ? to[k] != s : true)
            out += rate[label_at(label, k, lb)];
        double v = (from_acc ? w->acc[at] : x[s]) / out;
        x[s] = v;
        sum += v;
        vmax = v > vmax ? v : vmax;
      }
      if (push) {
        double xs = x[s];
        for (uint64_t k = e; k < e + d; k++)
          if (self_loops ? to[k] != s : true)
            x[to[k]] += xs * rate[label_at(label, k, lb)];
      }
      e += d;
    }
  }
  ps->sum = sum;
  ps->max = vmax;
}

/* In a chain without moves back to their state, the rate out of a row of
 * at most `lanes` moves (8, 12 or 16, row_lanes) is summed in a loop of
 * exactly that many lanes, those beyond the row's end (the next rows'
 * labels, read but not used) multiplied by 0.0: row lengths vary from
 * state to state (2 to 11 on Strict 5x6, 1 to 13 on 4x9), and a loop that
 * ends with its row mispredicts its exit about once a row.  r * 1.0 == r
 * and s + 0.0 == s for every s but -0.0 (never a sum of rates), so the
 * sums are those of the plain loop, bit for bit.  The last rows of the
 * store, whose lanes would read past its end, and longer rows take the
 * plain loop. */
#define ROW_LANES_MAX 16
static const double lane_on[ROW_LANES_MAX + 1][ROW_LANES_MAX] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};

/* The states of a level are taken ROW_BLOCK at a time.  First every
 * state's value (its rate out, then a division), written to x and to
 * each of its moves in vm; then the block's moves, one flat loop of
 * x[to] += vm * rate.  The pushes go to the next level, so the values do
 * not depend on them: the sums and divisions of a block, independent of
 * each other, overlap instead of each push waiting for its own state's
 * division (the rate out of a row is a chain of dependent additions), and
 * the pushes run as one loop instead of a loop per row.  The rows of a
 * block stay in the first-level cache between the two halves; each target
 * still takes its sources in increasing order. */
#define ROW_BLOCK 16

/* level_rows (divide and push, inflow in x) for a chain without moves back
 * to their state, with rows of up to `lanes` moves in lanes. */
static inline __attribute__((always_inline)) void
level_rows_lanes(const bands_work *w, uint32_t l, pass_sums *ps, unsigned lb, unsigned lanes) {
  const stp_movestore *ms = w->ms;
  const uint32_t *restrict to = ms->to;
  const uint8_t *restrict label = ms->label;
  const double *restrict rate = ms->rate;
  const uint16_t *restrict deg = ms->deg;
  double *restrict x = w->x, *restrict vm = w->vm, sum = ps->sum, vmax = ps->max;
  uint64_t lanes_end = ms->nmoves >= lanes ? ms->nmoves - lanes : 0;
  for (uint64_t b = l + 1; b < ms->nbands; b += w->period)
    memset(x + ms->band[b], 0, (size_t)(stp__movestore_band_end(ms, b) - ms->band[b]) * sizeof *x);
  for (uint64_t b = l; b < ms->nbands; b += w->period) {
    uint64_t e = ms->band_move[b], end = stp__movestore_band_end(ms, b);
    for (uint64_t s0 = ms->band[b]; s0 < end; s0 += ROW_BLOCK) {
      uint64_t n = end - s0 < ROW_BLOCK ? end - s0 : ROW_BLOCK, f = e;
      for (uint64_t s = s0; s < s0 + n; s++) {
        uint64_t d = deg[s];
        double out = 0, v;
        if (d <= lanes && f <= lanes_end) {
          for (unsigned k = 0; k < lanes; k++)
            out += rate[label_at(label, f + k, lb)] * lane_on[d][k];
          v = x[s] / out;
          for (unsigned k = 0; k < lanes; k++)
            vm[f - e + k] = v;
        } else {
          for (uint64_t k = f; k < f + d; k++)
            out += rate[label_at(label, k, lb)];
          v = x[s] / out;
          for (uint64_t k = f; k < f + d; k++)
            vm[k - e] = v;
        }
        x[s] = v;
        sum += v;
        vmax = v > vmax ? v : vmax;
        f += d;
      }
      for (uint64_t k = e; k < f; k++)
        x[to[k]] += vm[k - e] * rate[label_at(label, k, lb)];
      e = f;
    }
  }
  ps->sum = sum;
  ps->max = vmax;
}

/* level_rows with the flags and the label width fixed: the sweep's passes
 * (divide and push; level 0's from acc; the last level's without the push)
 * for the common widths, the others as they come. */
static void level_pass(const bands_work *w, uint32_t l, bool divide, bool from_acc, bool push,
                       pass_sums *ps) {
  unsigned lb = w->ms->label_bytes;
  bool common = divide && push && !from_acc;
  if (common && lb == 1 && !w->self_loops && w->lanes == 8)
    level_rows_lanes(w, l, ps, 1, 8);
  else if (common && lb == 1 && !w->self_loops && w->lanes == 12)
    level_rows_lanes(w, l, ps, 1, 12);
  else if (common && lb == 1 && !w->self_loops)
    level_rows_lanes(w, l, ps, 1, 16);
  else if (common && lb == 2 && !w->self_loops)
    level_rows_lanes(w, l, ps, 2, w->lanes == 8 ? 8 : 16);
  else if (common && lb == 1)
    level_rows(w, l, true, false, true, ps, 1, true);
  else
    level_rows(w, l, divide, from_acc, push, ps, lb, true);
}

/* One sweep; level 0's inflow is in acc.  The iterate is not normalised:
 * a sweep maps the stationary vector to itself whatever its scale, the
 * estimates are ratios, and the sum (checked here, against an iterate
 * that vanishes or overflows) stays that of the start to first order; it
 * is normalised once at the end (x_normalise_swept), so that a sweep reads and
 * writes x once.  w->xmax: the largest value, for the next estimate. */
static stp_status sweep(bands_work *w, stp_error *err) {
  pass_sums ps = {0, 0};
  for (uint32_t l = 0; l < w->period; l++) /* level l from level l - 1, pushed before */
    level_pass(w, l, true, l == 0, l + 1 < w->period, &ps);
  if (!(ps.sum > 1e-200 && ps.sum < 1e200)) /* also NaN */
    return stp__fail(err, STP_ENUMERIC, "the Gauss-Seidel iterate has sum %g", ps.sum);
  w->xmax = ps.max;
  w->xsum = ps.sum;
  return STP_OK;
}

/* x scaled to sum 1. */
static void x_normalise(const bands_work *w) {
  double sum = 0;
  for (uint64_t s = 0; s < w->ms->nstates; s++)
    sum += w->x[s];
  for (uint64_t s = 0; s < w->ms->nstates; s++)
    w->x[s] /= sum;
}

/* x scaled by the sum of the last sweep (it > 0 sweeps made), taken in
 * its order (by level, then state), as the solver had normalised every
 * sweep: a sum in state order moves the values of Strict 4x9 by 1.2e-12,
 * a compensated one by 4.6e-12 (bench/README.md, issue 35). */
static void x_normalise_swept(const bands_work *w, size_t it) {
  if (it == 0) {
    x_normalise(w);
    return;
  }
  for (uint64_t s = 0; s < w->ms->nstates; s++)
    w->x[s] /= w->xsum;
}

static void start_uniform(const bands_work *w) {
  uint64_t n = w->ms->nstates;
  for (uint64_t s = 0; s < n; s++)
    w->x[s] = 1.0 / (double)n;
}

/* The estimated scaled residual of the iterate after `it` sweeps (the
 * estimate of stationary.c: level 0's residual once a sweep has balanced
 * the others); acc holds level 0's inflow afterwards, as sweep needs it. */
static double estimate(const bands_work *w, size_t it) {
  if (it == 0) {
    double est = full_residual(w);
    level_inflow(w, 0);
    return est;
  }
  level_inflow(w, 0);
  return scaled_by(w, level_residual(w, 0), w->xmax);
}

static stp_status iterate(bands_work *w, const stp_stationary_options *o,
                          stp_stationary_info *info, stp_error *err) {
  start_uniform(w);
  stp_gs_progress prog;
  stp__gs_progress_init(&prog);
  size_t it = 0;
  stp_status st = STP_OK;
  for (;;) {
    double est = estimate(w, it);
    if (stp__gs_done(&prog, est, it, o) || stp__gs_slow(&prog, est, it, o))
      break;
    if (stp__cancelled(&o->cancel)) {
      st = stp__fail(err, STP_EINTERRUPTED, "interrupted after %zu Gauss-Seidel sweeps", it);
      break;
    }
    if ((st = sweep(w, err)) != STP_OK)
      break;
    it++;
  }
  info->iterations = it;
  if (st == STP_OK)
    x_normalise_swept(w, it);
  return st;
}

/* ---- BiCGSTAB on the sweep, where Gauss-Seidel is too slow ---------------------------- */

/* The vector BiCGSTAB works on: the values of level 0, by position within the
 * level (as acc); one sweep computes every other level from them. */
static void level0_put(const bands_work *w, const double *v) {
  const stp_movestore *ms = w->ms;
  for (uint64_t b = 0; b < ms->nbands; b += w->period)
    memcpy(w->x + ms->band[b], v + w->base[b],
           (size_t)(stp__movestore_band_end(ms, b) - ms->band[b]) * sizeof *v);
}

static void level0_get(const bands_work *w, double *v) {
  const stp_movestore *ms = w->ms;
  for (uint64_t b = 0; b < ms->nbands; b += w->period)
    memcpy(v + w->base[b], w->x + ms->band[b],
           (size_t)(stp__movestore_band_end(ms, b) - ms->band[b]) * sizeof *v);
}

/* tv = T v: levels 1 .. p-1 from v, then level 0 from level p-1 (x holds
 * the whole iterate afterwards, acc the inflow into level 0). */
static void level0_apply(void *ctx, const double *v, double *tv) {
  const bands_work *w = ctx;
  const stp_movestore *ms = w->ms;
  pass_sums ps = {0, 0};
  level0_put(w, v);
  level_pass(w, 0, false, false, true, &ps);
  for (uint32_t l = 1; l < w->period; l++)
    level_pass(w, l, true, false, l + 1 < w->period, &ps);
  level_inflow(w, 0);
  for (uint64_t b = 0; b < ms->nbands; b += w->period) {
    uint64_t e = ms->band_move[b], at = w->base[b];
    for (uint64_t s = ms->band[b]; s < stp__movestore_band_end(ms, b); s++, at++) {
      tv[at] = w->acc[at] / out_rate(ms, s, e, ms->deg[s]);
      e += ms->deg[s];
    }
  }
}

/* The estimate of the sweeps: level 0's imbalance, the others balanced. */
static double level0_estimate(void *ctx, const double *v, const double *tv) {
  (void)v;
  (void)tv;
  const bands_work *w = ctx;
  return scaled(w, level_residual(w, 0));
}

/* BiCGSTAB from the Gauss-Seidel iterate in x; x is its result. */
static stp_status bicgstab(bands_work *w, uint64_t level0_size, const stp_stationary_options *o,
                        stp_stationary_info *info, stp_error *err) {
  stp_sweep_map f = {.n = (size_t)level0_size, .ctx = w, .apply = level0_apply,
                     .estimate = level0_estimate};
  double *v = stp__malloc_array((size_t)level0_size, sizeof *v);
  if (!v)
    return stp__oom(err, "preparing the BiCGSTAB fallback of the stationary solve");
  level0_get(w, v);
  size_t sweeps;
  double est;
  stp_status st = stp__bicgstab_fixed_point(&f, v, o, &sweeps, &est, err);
  info->iterations += sweeps;
  free(v);
  if (st == STP_OK) /* the last sweep computed x from the returned v */
    x_normalise(w);
  return st;
}

/* The size of level 0. */
static uint64_t level0_size(const bands_work *w) {
  uint64_t size = 0;
  for (uint64_t b = 0; b < w->ms->nbands; b += w->period)
    size += stp__movestore_band_end(w->ms, b) - w->ms->band[b];
  return size;
}

/* n doubles in huge pages where the system offers them: the iterate is
 * swept in full, and 2 MB pages take 512 times fewer faults to touch. */
static double *big_vector(uint64_t n) {
  return n < SIZE_MAX / sizeof(double) ? stp__malloc_huge((size_t)n, sizeof(double)) : NULL;
}

/* Gauss-Seidel, then (AUTO) BiCGSTAB if its result is above the tolerance. */
static stp_status solve(bands_work *w, const stp_stationary_options *o, stp_stationary_info *info,
                        stp_error *err) {
  STP_CHECK(iterate(w, o, info, err));
  info->residual = full_residual(w);
  if (info->residual <= o->tolerance || o->method != STP_STATIONARY_AUTO)
    return STP_OK;
  info->solver = "bicgstab on level-order sweeps (gauss-seidel stalled, compact)";
  STP_CHECK(bicgstab(w, level0_size(w), o, info, err));
  info->residual = full_residual(w);
  return STP_OK;
}

/* The lanes of the rows (8, 12 or 16): the fewest that hold the rows of
 * 98 % of the states (a row beyond takes the plain loop and, with it, a
 * misprediction or two; a lane beyond the row costs a load and two
 * arithmetic instructions); *max: the longest row. */
static unsigned row_lanes(const stp_movestore *ms, uint64_t *max) {
  uint64_t upto[ROW_LANES_MAX + 1] = {0}, d = 0;
  for (uint64_t s = 0; s < ms->nstates; s++) {
    d = ms->deg[s] > d ? ms->deg[s] : d;
    upto[ms->deg[s] < ROW_LANES_MAX ? ms->deg[s] : ROW_LANES_MAX]++;
  }
  *max = d;
  for (unsigned k = 1; k <= ROW_LANES_MAX; k++)
    upto[k] += upto[k - 1];
  return upto[8] >= 0.98 * (double)ms->nstates ? 8 : upto[12] >= 0.98 * (double)ms->nstates ? 12 : 16;
}

/* What every solve needs before its first sweep: the period (STP_ENUMERIC
 * below 2), the check that every state reaches 0, the iterate, the
 * levels' positions, ||Q||_1 and acc.  Free with release. */
static stp_status prepare(bands_work *w, const stp_movestore *ms, stp_stationary_info *info,
                          stp_error *err) {
  *w = (bands_work){.ms = ms};
  if (ms->nstates < 2 || ms->nstates > UINT32_MAX)
    return stp__fail(err, STP_ENUMERIC, "the compact solver needs 2 to 2^32 states, not %llu",
                     (unsigned long long)ms->nstates);
  w->period = chain_period(ms);
  info->period = w->period;
  if (w->period < 2)
    return stp__fail(err, STP_ENUMERIC, "the Markov chain has no levels (period %u)", w->period);
  STP_CHECK(check_reaches_0(ms, err));
  w->x = big_vector(ms->nstates);
  w->base = stp__malloc_array((size_t)ms->nbands, sizeof *w->base);
  if (!w->x || !w->base)
    return stp__oom(err, "preparing the iterative solver");
  w->qnorm = column_norm(ms, w->x, &w->self_loops);
  w->acc = big_vector(level_positions(w));
  uint64_t longest;
  w->lanes = row_lanes(ms, &longest);
  w->vm = stp__malloc_array((size_t)ROW_BLOCK * longest + ROW_LANES_MAX, sizeof *w->vm);
  return w->acc && w->vm ? STP_OK : stp__oom(err, "preparing the iterative solver");
}

/* Frees what prepare allocated, the iterate too unless keep_x. */
static void release(bands_work *w, bool keep_x) {
  free(w->acc);
  free(w->vm);
  free(w->base);
  if (!keep_x)
    free(w->x);
}

stp_status stp__bands_solve(const stp_movestore *ms, const stp_stationary_options *o,
                            double **pi_out, stp_stationary_info *info, stp_error *err) {
  *pi_out = NULL;
  memset(info, 0, sizeof *info);
  double t0 = stp__now();
  info->solver = "gauss-seidel (level order, compact)";
  bands_work w;
  stp_status st = prepare(&w, ms, info, err);
  if (st == STP_OK)
    st = solve(&w, o, info, err);
  if (st == STP_OK && !(info->residual <= o->tolerance))
    st = stp__fail(err, STP_ENUMERIC,
                   "the stationary solve (%s, %zu sweeps) reached a scaled residual of %.3g, "
                   "above the tolerance %.3g",
                   info->solver, info->iterations, info->residual, o->tolerance);
  release(&w, st == STP_OK);
  info->seconds = stp__now() - t0;
  if (st == STP_OK)
    *pi_out = w.x;
  return st;
}

stp_status stp__bands_time_sweeps(const stp_movestore *ms, size_t sweeps, double (*clock)(void),
                                  double *seconds, double **x_out, uint32_t *period,
                                  stp_error *err) {
  *x_out = NULL;
  stp_stationary_info info = {0};
  bands_work w;
  stp_status st = prepare(&w, ms, &info, err);
  *period = info.period;
  if (st == STP_OK)
    start_uniform(&w);
  for (size_t it = 0; st == STP_OK && it < sweeps; it++) {
    double t0 = clock();
    (void)estimate(&w, it);
    st = sweep(&w, err);
    seconds[it] = clock() - t0;
  }
  if (st == STP_OK)
    x_normalise_swept(&w, sweeps);
  release(&w, st == STP_OK);
  if (st == STP_OK)
    *x_out = w.x;
  return st;
}

void stp__bands_label_rates(const stp_movestore *ms, const double *pi, double *fire) {
  memset(fire, 0, ms->nlabels * sizeof *fire);
  for (uint64_t s = 0, e = 0; s < ms->nstates; s++)
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++) {
      uint32_t l = stp__movestore_label(ms, e);
      fire[l] += pi[s] * ms->rate[l];
    }
}
