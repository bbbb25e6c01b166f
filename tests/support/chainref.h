/* chainref.h: deliberately naive references for the Markov-chain tests:
 * the reachable markings of an event graph by breadth-first search with
 * token vectors and linear search (no bit packing, no hashing, no
 * ranking), the stationary distribution by dense Gaussian elimination, and
 * a check that two chains are the same labelled transition system. */
#ifndef STP_CHAINREF_H
#define STP_CHAINREF_H

#include "engine/chain.h"
#include "solvers/digraph.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ref_move {
  size_t from, to;
  uint32_t event;
  double rate;
} ref_move;

typedef struct ref_chain {
  size_t n;           /* states (0 = the initial marking) */
  size_t nmoves;
  ref_move *moves;
  uint32_t nevents;
} ref_chain;

/* Markings reachable from g's initial marking (tok), transition t firing at
 * rate 1/time[t]; asserts at most max_states markings. */
ref_chain ref_enumerate(const stp_digraph *g, const double *time, size_t max_states);
void ref_chain_free(ref_chain *c);

/* pi of the chain by dense Gaussian elimination (partial pivoting) on
 * Q^T pi = 0 with the last equation replaced by sum(pi) = 1. */
double *ref_stationary(const ref_chain *c);
/* The data-set rate: ncounted x the smallest firing rate (sum over its
 * moves of pi[from] * rate) of a counted event (counted NULL: every
 * event). */
double ref_rate(const ref_chain *c, const double *pi, const uint8_t *counted);

/* Asserts that chain c is the labelled transition system r: a bijection of
 * the states maps r's initial state to some state of c and every move of
 * either chain (event, rate) onto a move of the other. */
void ref_assert_isomorphic(const ref_chain *r, const stp_chain *c);

#endif /* STP_CHAINREF_H */
