/* mcr_critical.h: the critical graph of a maximum cycle ratio problem and
 * the one-sided derivatives of lambda* (mcr_critical.c; docs/design.md,
 * "Sensitivities").  lambda* = max over cycles C of w(C) / tok(C) is
 * piecewise linear in the weights; in a direction h (an edge weighs h of
 * its source node) its slope from above is the largest h(C) / tok(C) over
 * the critical cycles, from below the smallest.  The critical cycles are
 * the cycles of the critical graph (the tight edges of a potential), so
 * both slopes are maximum cycle ratios on that graph: Howard again, never
 * an enumeration of cycles, never a finite difference. */
#ifndef STP_MCR_CRITICAL_H
#define STP_MCR_CRITICAL_H

#include "solvers/digraph.h"

#include <stdbool.h>

typedef struct stp_mcr_critical {
  stp_digraph *g;    /* the critical graph, its own node numbers */
  uint32_t *node;    /* g->n: the node of the original graph */
  uint32_t *inside;  /* original n: its node in g, or UINT32_MAX */
  double lambda;
} stp_mcr_critical;

/* The critical graph of g at its maximum cycle ratio lambda (from Howard):
 * edges e = u -> v with x[u] + w(e) - lambda tok(e) = x[v] (within
 * rounding) for a potential x, inside strongly connected components of the
 * tight edges.  STP_ENUMERIC when no cycle is critical (lambda is not g's
 * ratio).  Time O(n m) at worst (Bellman-Ford), O(m) per pass. */
stp_status stp__mcr_critical(const stp_digraph *g, double lambda, stp_mcr_critical *out,
                             stp_error *err);
void stp__mcr_critical_free(stp_mcr_critical *c);

/* Whether some critical node has h != 0 (else both slopes are 0). */
bool stp__mcr_critical_touches(const stp_mcr_critical *c, const double *h);
/* *hi = max, *lo = min over the critical cycles of h(C) / tok(C), h given
 * per node of the original graph. */
stp_status stp__mcr_critical_slopes(stp_mcr_critical *c, const double *h, double *hi, double *lo,
                                    stp_error *err);

#endif /* STP_MCR_CRITICAL_H */
