/* maxplus.h: the one (max,+) simulation kernel of libstreamtp.  It plays a
 * compact timed event graph row after row: row k fires every transition once
 * (its k-th firing), in an order that respects the places without tokens,
 *
 *     x_t(k) = mean_t(k) * factor_t(k) + max(origin, max over places u -> t
 *              holding m tokens of x_u(k - m)),
 *
 * where x_u(j) for j < 0 is the origin (initial tokens are available at the
 * start).  An activity DAG is one row; a timed event graph is many, and a
 * single-server transition is one with a 1-token self-loop.  Every domain
 * compiles into this form: `graph` files (engine/graph_sim.c) and pipeline
 * mappings, whose transitions are the columns of a data set (a stage's
 * computation, a transfer) with means that cycle through the team members
 * (models/pipeline/simulation.c).
 *
 * History: firing dates row by row (transitions + 1 columns, the last one
 * holding the origin) in a window of W = S + max(S, block) rows, S the
 * largest token count of a place plus one (places holding at least as many
 * tokens as a run has rows never bind and are dropped).  x_u(k - m) is at a
 * fixed offset from row k, so an input is one load; when the window is full
 * its last S rows move to its start (a copy of S rows every W - S rows).
 * Each transition's inputs are padded to a common small degree (the extra
 * ones read the origin column), so the row loop has no test per input; the
 * rest of a large in-degree goes to an overflow list.
 *
 * Firing factors come from a sampler per transition: a per-firing law and,
 * optionally, a factor shared by rounds of consecutive firings (the pipeline's
 * associated case).  Draws are made a block of rows at a time, transition by
 * transition in index order: the stream of a seed is fixed by the graph, the
 * rows and the block size. */
#ifndef STP_MAXPLUS_H
#define STP_MAXPLUS_H

#include "base/rng.h"
#include "solvers/laws.h"
#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unit-free factor of each firing: law (NULL: 1), times, when round_law is
 * set, one draw of round_law shared by `round` consecutive firings. */
typedef struct stp_mp_sampler {
  const stp_law *law;       /* borrowed */
  const stp_law *round_law; /* borrowed; NULL: no shared factor */
  uint64_t round;           /* >= 1 when round_law is set */
} stp_mp_sampler;

/* An input as the row loop reads it: x_u(k - m) is at row_k[off],
 * off = pos(u) - m * stride. */
typedef struct stp_mp_input {
  ptrdiff_t off;
} stp_mp_input;

typedef struct stp_mp_graph {
  size_t n;                 /* transitions */
  size_t block;             /* rows drawn and played per block */
  size_t watch;             /* transition (index) whose completions are tracked */
  /* by transition index, set by the builder: */
  size_t *period;           /* means of t: means[mean_off[t] + (k mod period[t])] */
  size_t *mean_off;
  double *means;
  stp_mp_sampler *sampler;
  size_t nplaces, cap;
  size_t *pfrom, *pto;
  uint64_t *ptok;
  /* set by stp__mp_graph_compile, by evaluation position: */
  size_t *order;            /* position -> transition */
  size_t *pos;              /* transition -> position */
  uint8_t *chain;           /* 1: the first input is the token-free place from the
                               position just before, read from a register; 2: and
                               there is no other input */
  size_t degree;            /* inputs per position in `in` (padded) */
  stp_mp_input *in;         /* n x degree */
  size_t *over_off;         /* n + 1: inputs beyond `degree` at over[over_off[i] ..) */
  stp_mp_input *over;
  size_t keep;              /* S: rows an input reaches back to, plus one */
  size_t window;            /* W: rows of the history */
  size_t stride;            /* n + 1 columns: the last one holds the origin */
  size_t *ext_off;          /* by transition: means cycled over period + block - 1 */
  double *ext;              /* entries (period > 1), so a block reads them in a row */
  bool compiled;
} stp_mp_graph;

/* A graph of n transitions with mean 0 (instantaneous), no sampler and no
 * place. */
stp_status stp__mp_graph_init(stp_mp_graph *g, size_t n, stp_error *err);
void stp__mp_graph_clear(stp_mp_graph *g);

/* Means of transition t, cycled by firing index (period >= 1 values, copied). */
stp_status stp__mp_set_means(stp_mp_graph *g, size_t t, const double *means, size_t period,
                             stp_error *err);
/* The sampler of t; the laws must outlive the graph's runs. */
void stp__mp_set_sampler(stp_mp_graph *g, size_t t, stp_mp_sampler s);
stp_status stp__mp_add_place(stp_mp_graph *g, size_t from, size_t to, uint64_t tokens,
                             stp_error *err);

/* Fix the evaluation order (the identity when it respects the token-free
 * places, else a topological order of them), the history and the inputs.
 * rows_max bounds the rows of one run: a place with at least that many
 * tokens never binds and is dropped.  watch: the transition whose completion
 * dates stp_mp_run.done tracks.  STP_EDEADLOCK when the token-free places
 * have a cycle; STP_ELIMIT when the history would exceed 2^27 dates. */
stp_status stp__mp_graph_compile(stp_mp_graph *g, uint64_t rows_max, size_t watch,
                                 stp_error *err);

/* What a run records besides the completions, for the pipeline's
 * utilization and latency: busy[mean_off[t] + (k mod period[t])] += the
 * firing time of the k-th firing of t (the sums per resource member), and
 * span[j] = x_last(k) - (x_first(k) - firing time of first at row k) for
 * the j-th row played while observed (the time from the start of first to
 * the end of last; span then moves past the rows written).  busy holds
 * g->mean_off[g->n] sums; either may be NULL.  The dates are those of an unobserved run: the same draws and the
 * same operations in the same order. */
typedef struct stp_mp_observer {
  double *busy;
  double *span;
  size_t first, last;
} stp_mp_observer;

/* One run: its generator, history and firing times. */
typedef struct stp_mp_run {
  const stp_mp_graph *g;    /* borrowed */
  stp_rng *rng;
  uint64_t k;               /* rows fired so far */
  double origin;            /* the start, in the current time frame */
  double done;              /* max completion date of `watch` so far */
  double *hist;             /* window x stride */
  size_t row;               /* row of the window that row k goes to */
  size_t *cyc;              /* by position: k mod period */
  double *xi;               /* n x block firing times, position-major */
  double *draws;            /* block: round draws */
  uint64_t *rpos;           /* by transition: position in the current round */
  double *rsize;            /* by transition: factor of the current round */
  stp_mp_observer *obs;     /* borrowed; NULL: nothing recorded (the default) */
} stp_mp_run;

/* A run at the start, drawing from stream `stream` of `seed` (base/rng.h). */
stp_status stp__mp_run_init(stp_mp_run *r, const stp_mp_graph *g, uint64_t seed,
                            uint64_t stream, stp_error *err);
/* Back to the start with another stream, without allocating. */
void stp__mp_run_reset(stp_mp_run *r, uint64_t seed, uint64_t stream);
void stp__mp_run_clear(stp_mp_run *r);

/* Fire n more rows.  The time origin first moves to `done` (the recurrence
 * is translation invariant: long runs keep their precision), so *elapsed is
 * the time from the last completion of `watch` before these rows to its last
 * completion after them.  Checks `cancel` between blocks (STP_EINTERRUPTED).
 * Time: O(n * (transitions + places)); no allocation. */
stp_status stp__mp_run_advance(stp_mp_run *r, uint64_t n, const stp_cancel *cancel,
                               double *elapsed, stp_error *err);

#endif /* STP_MAXPLUS_H */
