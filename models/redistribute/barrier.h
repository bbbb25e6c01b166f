/* barrier.h: costs of a schedule whose steps are separated by barriers:
 * deterministic (alpha NS + beta (M/L) TC) and the exact expectation with
 * exponential message times. */
#ifndef STP_REDIST_BARRIER_H
#define STP_REDIST_BARRIER_H

#include "models/redistribute/schedule.h"

/* EINVAL unless M is a positive multiple of rd->L and alpha, beta are
 * finite and >= 0; the message names the parameter. */
stp_status stp__redist_cost_check(const stp_redist *rd, const stp_redist_cost *c,
                                  stp_error *err);

/* The messages of a step as groups of equal times: len[0..n) sorted, each
 * run of equal lengths one group, its mean scale * length in mean[] and
 * its size in count[] (room for n each); returns the number of groups. */
size_t stp__redist_length_groups(const uint64_t *len, size_t n, double scale, double *mean,
                                 uint64_t *count);

/* E[max over the messages of step k of beta (M/L) len X], X ~ Exp(1). */
stp_status stp__redist_step_expmax(const stp_redist_schedule *sc, uint64_t k, double scale,
                                   double *out, stp_error *err);

#endif /* STP_REDIST_BARRIER_H */
