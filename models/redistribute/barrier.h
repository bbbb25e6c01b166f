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

/* E[max over the messages of step k of beta (M/L) len X], X ~ Exp(1). */
stp_status stp__redist_step_expmax(const stp_redist_schedule *sc, uint64_t k, double scale,
                                   double *out, stp_error *err);

#endif /* STP_REDIST_BARRIER_H */
