/* maxplus_ref.c: deterministic replay (see maxplus_ref.h).  Every resource
 * keeps the end time of its previous use; a data set's operation starts when
 * its input is ready and the resource is free, exactly as the places of the
 * event graph say (Overlap: per port; Strict: per processor). */
#include "maxplus_ref.h"

#include <math.h>
#include <stdlib.h>

static double max2(double a, double b) { return a > b ? a : b; }

void maxplus_replay(const stp_mapping *m, stp_model model, size_t n, double *out) {
  size_t np = m->nprocs;
  double *comp_free = calloc(np, sizeof *comp_free); /* Overlap ports */
  double *out_free = calloc(np, sizeof *out_free);
  double *in_free = calloc(np, sizeof *in_free);
  double *proc_free = calloc(np, sizeof *proc_free); /* Strict: end of last action */
  for (size_t ds = 0; ds < n; ds++) {
    double ready = 0; /* end of the previous operation of this data set */
    for (size_t i = 0; i < m->nstages; i++) {
      size_t p = stp__team_member(m, i, ds % stp__team_size(m, i));
      if (i > 0) { /* reception of F_(i-1) from the previous stage's processor */
        size_t s = stp__team_member(m, i - 1, ds % stp__team_size(m, i - 1));
        double start = model == STP_MODEL_OVERLAP ? max2(ready, max2(out_free[s], in_free[p]))
                                                  : max2(ready, proc_free[p]);
        ready = start + stp__comm_time(m, s, p);
        out_free[s] = in_free[p] = ready;
        if (model == STP_MODEL_STRICT)
          proc_free[s] = ready; /* the sender's last action for this data set */
      }
      double start = model == STP_MODEL_OVERLAP ? max2(ready, comp_free[p])
                                                : (i == 0 ? max2(ready, proc_free[p]) : ready);
      ready = start + stp__comp_time(m, p);
      comp_free[p] = ready;
      if (model == STP_MODEL_STRICT && i + 1 == m->nstages)
        proc_free[p] = ready;
    }
    out[ds] = ready;
  }
  free(comp_free);
  free(out_free);
  free(in_free);
  free(proc_free);
}

double maxplus_rate(const stp_mapping *m, stp_model model, size_t from, size_t periods) {
  /* In the periodic regime, D(n + kR) = D(n) + k*lambda for k a multiple of
   * the cyclicity; a window of periods * R * lcm(1..12) data sets removes
   * the endpoint effect for every cyclicity up to 12. */
  uint64_t rows;
  stp__mapping_lcm(m, &rows);
  size_t window = periods * (size_t)rows * 27720, to = from + window + 1;
  double *c = malloc(to * sizeof *c);
  maxplus_replay(m, model, to, c);
  for (size_t k = 1; k < to; k++) /* data sets are delivered in order */
    c[k] = c[k] > c[k - 1] ? c[k] : c[k - 1];
  double rate = (double)window / (c[from + window] - c[from]);
  free(c);
  return rate;
}
