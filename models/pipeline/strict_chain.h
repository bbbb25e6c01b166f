/* strict_chain.h: the Markov chain of the reachable markings of the full
 * Strict event graph of a mapping (strict_chain.c; paper section 5.1). */
#ifndef STP_STRICT_CHAIN_H
#define STP_STRICT_CHAIN_H

#include "engine/chain.h"
#include "models/pipeline/mapping.h"
#include "solvers/movestore.h"

/* The chain of the reachable markings of the Strict event graph of m, by
 * breadth-first enumeration (state 0 is the initial marking).  STP_ELIMIT
 * when the graph exceeds max_transitions or the markings max_states (the
 * message says how far the enumeration got); the memory used is bounded
 * by max_states. */
stp_status stp__strict_chain(const stp_mapping *m, const stp_options *o, stp_chain **out,
                             stp_error *err);

/* The same chain with the markings packed into word_bits bits per 64-bit
 * word (stp__strict_chain: 64): fewer only for tests, to enumerate small
 * graphs with markings of several words. */
stp_status stp__strict_chain_packed(const stp_mapping *m, const stp_options *o, unsigned word_bits,
                                    stp_chain **out, stp_error *err);

/* The chain's moves in their compact store (solvers/movestore.h), as the
 * exponential throughput solves them: for benchmarks of the solver on the
 * very chains streamtp builds (bench/ctmc/sweep_bench.c).  *ms is always
 * initialised (free it with stp__movestore_free); errors as
 * stp__strict_chain's. */
stp_status stp__strict_store(const stp_mapping *m, const stp_options *o, stp_movestore *ms,
                             stp_error *err);

/* Throughput of the Strict model with exponential times, from the Markov
 * chain of the reachable markings of the full event graph.  STP_ELIMIT when
 * the enumeration exceeds o->max_states (the message says how far it got). */
stp_status stp__strict_exp_throughput(const stp_mapping *m, const stp_options *o, double *rho,
                                      stp_ctmc_info *info, stp_error *err);
/* The same on the platform m with the teams tm (stp_teams, mapping.h). */
stp_status stp__strict_exp_throughput_teams(const stp_mapping *m, const stp_teams *tm,
                                            const stp_options *o, double *rho,
                                            stp_ctmc_info *info, stp_error *err);

/* A lower bound of the reachable markings of the Strict event graph: the
 * places of the longest processor cycle, and 2^R_1 (the first team's
 * first computations fire independently); UINT64_MAX when R overflows. */
uint64_t stp__strict_min_markings(const stp_mapping *m);
uint64_t stp__strict_min_markings_teams(const stp_teams *tm);

#endif /* STP_STRICT_CHAIN_H */
