/* intra.c: the time of the broadcast inside one cluster (T_j of the
 * heuristics), for the three trees of docs/format.md, and their names. */
#include "base/core.h"
#include "streamtp_bcast.h"

#include <string.h>

static const char *const intra_names[] = {"binomial", "flat", "chain"};

const char *stp_bcast_intra_name(stp_bcast_intra a) {
  return (unsigned)a < 3 ? intra_names[a] : "?";
}

stp_status stp_bcast_intra_parse(const char *s, stp_bcast_intra *a) {
  for (unsigned k = 0; k < 3; k++)
    if (s && strcmp(s, intra_names[k]) == 0) {
      *a = (stp_bcast_intra)k;
      return STP_OK;
    }
  return STP_EINVAL;
}

/* Binomial: ceil(log2 n) gaps and floor(log2 n) latencies on the longest
 * path of MPICH's tree (model.c derives it; Table 1 of the paper prints the
 * two logarithms the other way round, which holds only for powers of 2). */
double stp_bcast_intra_time(stp_bcast_intra a, uint64_t n, double L, double g) {
  if (n <= 1)
    return 0;
  double m = (double)(n - 1);
  switch (a) {
  case STP_BCAST_INTRA_BINOMIAL:
    return stp__ceil_log2(n) * g + stp__floor_log2(n) * L;
  case STP_BCAST_INTRA_FLAT:
    return L + m * g;
  case STP_BCAST_INTRA_CHAIN:
    return m * (g + L);
  }
  return 0;
}
