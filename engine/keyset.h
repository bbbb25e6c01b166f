/* keyset.h: a set of fixed-width keys (each `words` 64-bit words, e.g. a
 * packed marking) that numbers them 0, 1, 2, ... in insertion order: the
 * state numbering of a breadth-first enumeration.  The keys sit in one
 * array; the table beside them is open addressing with linear probing, and
 * each 8-byte slot holds a key number with a 32-bit fingerprint of the
 * key's hash, so that a probe touches the key itself only when the
 * fingerprints match (almost only on a hit).  Memory: words * 8 bytes per
 * key, plus 8 bytes per slot at a load between 1/2 and 3/4 (11 to 16 bytes
 * per key; the table grows by half), and both tables for a moment while it
 * grows.
 * Numbers are 32-bit: at most STP_KEYSET_MAX keys. */
#ifndef STP_KEYSET_H
#define STP_KEYSET_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_KEYSET_MAX (UINT32_MAX - 1)

typedef struct stp_keyset {
  size_t words;     /* 64-bit words per key */
  uint64_t count;   /* keys stored */
  uint64_t cap;     /* room in keys */
  uint64_t limit;   /* most keys accepted (at most STP_KEYSET_MAX) */
  uint64_t *keys;   /* count * words */
  uint64_t *slot;   /* (fingerprint << 32) | (number + 1); 0: empty */
  uint64_t size;    /* slots */
} stp_keyset;

/* An empty set of keys of `words` words accepting at most `limit` keys. */
stp_status stp__keyset_init(stp_keyset *ks, size_t words, uint64_t limit, stp_error *err);
/* Frees everything (ks may be cleared already). */
void stp__keyset_free(stp_keyset *ks);

/* The hash of a key; pass it to stp__keyset_add (and prefetch with it). */
uint64_t stp__keyset_hash(const stp_keyset *ks, const uint64_t *key);

/* The slot where the search for a key of this hash starts: the hash's high
 * half scaled to the table size (any size, not only powers of two, so that
 * the table can grow by half; the fingerprint is the low half). */
static inline uint64_t stp__keyset_home(uint64_t hash, uint64_t size) {
  return (uint64_t)(((unsigned __int128)(hash >> 32) * size) >> 32);
}

/* Hints the memory system that key `hash` is about to be looked up. */
static inline void stp__keyset_prefetch(const stp_keyset *ks, uint64_t hash) {
#if defined(__GNUC__)
  __builtin_prefetch(&ks->slot[stp__keyset_home(hash, ks->size)]);
#else
  (void)ks;
  (void)hash;
#endif
}

/* The number of key (whose hash is `hash`), adding it when new (*added).
 * STP_ELIMIT (no message: the caller knows what the keys are) when a new
 * key would exceed the limit; STP_ENOMEM when the set cannot grow. */
stp_status stp__keyset_add(stp_keyset *ks, const uint64_t *key, uint64_t hash, uint32_t *number,
                           bool *added, stp_error *err);

/* `bytes` of zeroed memory for a table probed at random (released with
 * free): from 4 MiB on, aligned to and asking for 2 MiB pages, which spare
 * the TLB misses of random access (a hint: no harm if refused).  NULL when
 * out of memory. */
void *stp__keyset_table_alloc(size_t bytes);

/* Key number i (valid until the next add). */
static inline const uint64_t *stp__keyset_key(const stp_keyset *ks, uint64_t i) {
  return ks->keys + i * ks->words;
}

#endif /* STP_KEYSET_H */
