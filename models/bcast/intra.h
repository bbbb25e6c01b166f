/* intra.h: integer logarithms shared by the intra-cluster times (intra.c)
 * and Table 1 (model.c). */
#ifndef STP_BCAST_INTRA_H
#define STP_BCAST_INTRA_H

#include <stdint.h>

/* floor(log2 n) and ceil(log2 n) for n >= 1, exactly (no floating log). */
unsigned stp__floor_log2(uint64_t n);
unsigned stp__ceil_log2(uint64_t n);

#endif /* STP_BCAST_INTRA_H */
