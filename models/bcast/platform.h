/* platform.h: the in-memory platform of a broadcast (clusters, intra-cluster
 * pLogP parameters, inter-cluster matrices) and the times of one message
 * size, resolved once for the heuristics. */
#ifndef STP_BCAST_PLATFORM_H
#define STP_BCAST_PLATFORM_H

#include "streamtp_bcast.h"

#include <stdbool.h>

/* A gap g(m) = g0 + per_byte * m; a plain number has per_byte = 0 and
 * affine = false (then no size is needed). */
typedef struct stp__bcast_gap {
  double g0, per_byte;
  bool affine;
} stp__bcast_gap;

struct stp_bcast_platform {
  char *file;
  size_t n;               /* clusters */
  char **names;
  uint64_t *sizes;
  double *L;              /* [n] intra-cluster latency */
  stp__bcast_gap *g;      /* [n] intra-cluster gap */
  double *iL;             /* [n*n] inter-cluster latency (diagonal unused) */
  stp__bcast_gap *ig;     /* [n*n] inter-cluster gap (diagonal unused) */
  size_t root;            /* the file's "root", else 0 */
  bool needs_size;
};

/* The times of one run: G[i*n+j] = g_ij(size), L = p->iL, T[j] intra time. */
typedef struct stp__bcast_times {
  size_t n, root;
  const double *L;
  double *G;
  double *T;
} stp__bcast_times;

stp_status stp__bcast_platform_alloc(size_t n, stp_bcast_platform **out, stp_error *err);
double stp__bcast_gap_value(stp__bcast_gap g, double size);
/* Check the options against p (size given when needed, root known) and
 * resolve every time; t is freed by stp__bcast_times_free. */
stp_status stp__bcast_times_resolve(const stp_bcast_platform *p, const stp_bcast_options *o,
                                    stp__bcast_times *t, stp_error *err);
void stp__bcast_times_free(stp__bcast_times *t);

#endif /* STP_BCAST_PLATFORM_H */
