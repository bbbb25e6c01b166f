/* densechain.h: the dense route from a state space to its long-run firing
 * rates, shared by every builder of a Markov chain whose states are reached
 * by firing labelled transitions (docs/design.md 4): a breadth-first
 * enumeration that numbers the states 0, 1, 2, ... (a fingerprinted key
 * set, engine/keyset.h), writes each state's moves
 * into a compact store (solvers/movestore.h: a 32-bit target and a label
 * per move, the rates per label), then drops the keys and solves in place
 * by level-order Gauss-Seidel (solvers/stationary_bands.h), or, where the
 * chain has no levels or the sweeps stall, by the general solver (with its
 * UMFPACK fallback) on the same moves.
 *
 * The builder describes its states with a stp_dense_source: the key of
 * state 0 (`words` 64-bit words) and a callback that writes the successors
 * of a key, in the order their moves should take, each with the label of
 * the transition that fires.  The numbering is that of the breadth-first
 * search alone (no hash order enters it): the same successors in the same
 * order give the same states, moves and stationary vector whatever the
 * key's encoding. */
#ifndef STP_DENSECHAIN_H
#define STP_DENSECHAIN_H

#include "engine/chain.h"
#include "engine/keyset.h"
#include "solvers/movestore.h"

#include <stdbool.h>
#include <stdint.h>

/* The successors of the state being expanded, as the callback writes them:
 * n keys of `words` words, each with its hash (ks's, stp__keyset_hash)
 * and the label of its move.  An enumerator zero-initialises one with
 * words and ks set, clears n before each expansion, and frees it with
 * stp__dense_row_free. */
typedef struct stp_dense_row {
  size_t words;
  const stp_keyset *ks; /* for the hash and the prefetch */
  uint32_t n, cap;
  uint64_t *key;        /* cap * words */
  uint64_t *hash;       /* cap */
  uint32_t *label;      /* cap */
} stp_dense_row;
void stp__dense_row_free(stp_dense_row *r);

/* Room for the next successor's key (words words, uninitialised); NULL when
 * out of memory (the callback then returns STP_ENOMEM). */
uint64_t *stp__dense_row_next(stp_dense_row *row);
/* The key just written into stp__dense_row_next's room is a successor,
 * reached by firing `label`. */
void stp__dense_row_add(stp_dense_row *row, uint32_t label);

typedef struct stp_dense_source {
  size_t words;             /* 64-bit words per key */
  const uint64_t *initial;  /* key of state 0 */
  uint32_t nlabels;
  const double *rate;       /* per label: the rate of every move it labels */
  /* Writes the successors of `key` into row (key stays valid until it returns). */
  stp_status (*expand)(void *ctx, const uint64_t *key, stp_dense_row *row, stp_error *err);
  void *ctx;
  uint64_t max_states;      /* STP_ELIMIT (no message) beyond this many states */
  /* Cancel and progress (may be NULL), every 1024 states: stp__progress(
   * control, what, states, estimate, t0). */
  const stp_control *control;
  const char *what;
  uint64_t estimate;
  /* Bytes the keys and the moves may take (0: no limit), checked every
   * 1024 states: STP_ELIMIT (no message) and dc->over_budget beyond. */
  uint64_t max_bytes;
} stp_dense_source;

/* A chain enumerated into its compact store. */
typedef struct stp_dense_chain {
  stp_movestore ms;
  uint64_t depth;    /* depth reached (of the last state expanded) */
  uint64_t expanded; /* states whose rows are written */
  bool full;         /* the enumeration stopped at max_states */
  bool over_budget;  /* the enumeration stopped at max_bytes */
  uint64_t bytes;    /* keys and moves held when it stopped or ended */
  double seconds;    /* of the enumeration */
} stp_dense_chain;

/* Enumerates src breadth first into dc; the keys are freed on return.
 * STP_ELIMIT without a message and dc->full when a new state would exceed
 * src->max_states (or STP_KEYSET_MAX; dc->depth and dc->expanded say how
 * far it got: the caller words the message), or without a message and
 * dc->over_budget when the keys and moves exceed src->max_bytes, STP_ELIMIT with one when a
 * state has more than STP_MOVESTORE_MAX_DEGREE moves, STP_ENOMEM,
 * STP_EINTERRUPTED, or the
 * callback's error.  dc is always initialised (free it with stp__dense_chain_free). */
stp_status stp__dense_enumerate(const stp_dense_source *src, stp_dense_chain *dc,
                                stp_error *err);
void stp__dense_chain_free(stp_dense_chain *dc);

/* ncounted x the smallest long-run firing rate of a counted label (as
 * stp_chain counts data sets; counted[l] for each label), from the
 * stationary distribution solved in place, with info filled as
 * stp__chain_solve fills it.  Where the compact solver refuses the chain
 * (no levels) or does not converge, the general route runs on the same
 * moves (o->solver_tolerance, AUTO) and info->solver says so. */
stp_status stp__dense_rate(const stp_dense_chain *dc, const uint8_t *counted,
                           const stp_options *o, double *rate, stp_ctmc_info *info,
                           stp_error *err);

/* The same chain as a general stp_chain (for exports and the general
 * solvers), with the given counted labels (copied). */
stp_status stp__dense_to_chain(const stp_dense_chain *dc, const uint8_t *counted,
                               stp_chain **out, stp_error *err);

/* Which firings count, where a transition fires by several labels (one
 * per phase and outcome when its time is phase-type, engine/reach.c):
 * labels grouped into events, each event's rate the sum of its labels'. */
typedef struct stp_dense_events {
  uint32_t n;             /* events */
  const uint32_t *of;     /* per label: its event (NULL: label l is event l) */
  const uint8_t *counted; /* per event: 1 when its firing completes a data set */
} stp_dense_events;

/* stp__store_rate and stp__store_to_chain with labels grouped into events
 * (the general chain's events are then ev's). */
stp_status stp__store_events_rate(const stp_movestore *ms, const stp_dense_events *ev,
                                  double seconds_build, const stp_options *o, double *rate,
                                  stp_ctmc_info *info, stp_error *err);
stp_status stp__store_events_to_chain(const stp_movestore *ms, const stp_dense_events *ev,
                                      double seconds_build, stp_chain **out, stp_error *err);

/* The same two for moves already in a compact store, built by a builder
 * with its own enumeration (the Strict chain); seconds_build is reported. */
stp_status stp__store_rate(const stp_movestore *ms, const uint8_t *counted,
                           double seconds_build, const stp_options *o, double *rate,
                           stp_ctmc_info *info, stp_error *err);
stp_status stp__store_to_chain(const stp_movestore *ms, const uint8_t *counted,
                               double seconds_build, stp_chain **out, stp_error *err);

#endif /* STP_DENSECHAIN_H */
