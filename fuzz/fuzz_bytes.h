/* fuzz_bytes.h: the structured fuzz targets (fuzz_shapes, fuzz_params) read
 * their parameters from the input bytes, little-endian, zeros once the input
 * runs out, so that every input means something and the fuzzer's mutations
 * move sizes and times directly, up to the sizes where the time and memory
 * limits act (issue 26). */
#ifndef STP_FUZZ_BYTES_H
#define STP_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_bytes {
  const uint8_t *p;
  size_t n;
} fuzz_bytes;

/* The next k bytes (k <= 8) as an unsigned integer. */
static inline uint64_t fuzz_take(fuzz_bytes *b, int k) {
  uint64_t v = 0;
  for (int i = 0; i < k; i++) {
    uint64_t byte = 0;
    if (b->n) {
      byte = *b->p++;
      b->n--;
    }
    v |= byte << (8 * i);
  }
  return v;
}

/* One of the count entries of table. */
#define FUZZ_PICK(b, table) ((table)[fuzz_take((b), 1) % (sizeof(table) / sizeof((table)[0]))])

/* A size in 1..10^scale: the scale (1..max_scale decades) from one byte,
 * the value from four. */
static inline uint64_t fuzz_size(fuzz_bytes *b, int max_scale) {
  static const uint64_t decade[] = {10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000, 1000000000};
  int scale = (int)(fuzz_take(b, 1) % (uint64_t)max_scale);
  return 1 + fuzz_take(b, 4) % decade[scale];
}

/* A time: the edges of the accepted range [1e-150, 1e150], 0, the values
 * just outside it, and ordinary values. */
static inline double fuzz_time(fuzz_bytes *b) {
  static const double times[] = {1.0, 0.0, 1e-150, 1e150, 1e-151, 1.5e150, 0.25, 7.0,
                                 1e-3, 1e3, 3.0, 1e300, 5e-324, 0.5};
  return FUZZ_PICK(b, times);
}

#endif
