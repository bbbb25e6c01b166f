/* wordset.h: a set of one-word keys (64 bits, e.g. a marking packed as
 * token positions) that numbers them 0, 1, 2, ... in insertion order, like
 * keyset.h, but a lookup reads the table alone, never the key array.  The
 * table holds, beside each number, the key's hash, which is a bijection of
 * the key (so equal hashes mean equal keys), and keeps its slots in
 * increasing hash order (linear probing in Robin Hood order, without
 * wrapping around): a search stops at the first slot holding a larger hash,
 * and every key costs about the same to find (bench/README.md).  Slots come
 * in buckets of one cache line (five hashes and their numbers: 12.8 bytes
 * per slot), at a load between 1/2 and 3/4, the table grown by half; the
 * keys are also kept in insertion order (8 bytes each), for the caller to
 * read them back by number.  Memory: 25 to 34 bytes per key, and both
 * tables for a moment while the table grows. */
#ifndef STP_WORDSET_H
#define STP_WORDSET_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_WORDSET_MAX (UINT32_MAX - 1)
#define STP_WORDSET_BUCKET 5

typedef struct stp_wordset_bucket {
  uint64_t hash[STP_WORDSET_BUCKET];
  uint32_t num[STP_WORDSET_BUCKET]; /* number + 1; 0: empty */
  uint32_t pad;
} stp_wordset_bucket;

typedef struct stp_wordset {
  uint64_t count;   /* keys stored */
  uint64_t cap;     /* room in keys */
  uint64_t limit;   /* most keys accepted (at most STP_WORDSET_MAX) */
  uint64_t *keys;   /* in insertion order */
  stp_wordset_bucket *bucket;
  uint64_t size;    /* slots that are homes; `slots` (a little more) in all */
  uint64_t slots;
} stp_wordset;

/* An empty set accepting at most `limit` keys. */
stp_status stp__wordset_init(stp_wordset *ws, uint64_t limit, stp_error *err);
/* Frees everything (ws may be cleared already). */
void stp__wordset_free(stp_wordset *ws);

/* The hash of a key: a bijection of 64-bit words (MurmurHash3's
 * finalizer), so that the table may hold it instead of the key. */
static inline uint64_t stp__wordset_hash(uint64_t key) {
  key ^= key >> 33;
  key *= UINT64_C(0xFF51AFD7ED558CCD);
  key ^= key >> 33;
  key *= UINT64_C(0xC4CEB9FE1A85EC53);
  return key ^ (key >> 33);
}

/* The slot where the search for a key of this hash starts: the hash's high
 * half scaled to the number of homes (any number, not only powers of two;
 * increasing with the hash, which keeps the table in hash order). */
static inline uint64_t stp__wordset_home(uint64_t hash, uint64_t size) {
  return (uint64_t)(((unsigned __int128)(hash >> 32) * size) >> 32);
}

/* The cache line where the search for a key of this hash starts, for the
 * caller to prefetch: with `__builtin_prefetch(stp__wordset_line(...))`
 * written in the caller's loop itself, since GCC takes a function holding
 * nothing but a prefetch for one without effect and drops calls to it. */
static inline const void *stp__wordset_line(const stp_wordset *ws, uint64_t hash) {
  return &ws->bucket[stp__wordset_home(hash, ws->size) / STP_WORDSET_BUCKET];
}

/* The number of key (whose hash is stp__wordset_hash(key)), adding it when
 * new (*added).  STP_ELIMIT (no message: the caller knows what the keys
 * are) when a new key would exceed the limit; STP_ENOMEM when the set
 * cannot grow. */
stp_status stp__wordset_add(stp_wordset *ws, uint64_t key, uint64_t hash, uint32_t *number,
                            bool *added, stp_error *err);

/* Key number i < count. */
static inline uint64_t stp__wordset_key(const stp_wordset *ws, uint64_t i) {
  return ws->keys[i];
}

#endif /* STP_WORDSET_H */
