/* keyset.h: a set of fixed-width keys (each `words` 64-bit words, e.g. a
 * packed marking) that numbers them 0, 1, 2, ... in insertion order: the
 * state numbering of a breadth-first enumeration.  The keys sit in one
 * array, the library's map (base/hash.h) beside them.  Memory: words * 8
 * bytes per key, plus 8 bytes per slot at a load between 1/2 and 3/4 (11 to
 * 16 bytes per key), and both tables for a moment while it grows.
 * Numbers are 32-bit: at most STP_KEYSET_MAX keys. */
#ifndef STP_KEYSET_H
#define STP_KEYSET_H

#include "base/hash.h"
#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_KEYSET_MAX STP_HMAP_MAX

typedef struct stp_keyset {
  size_t words;     /* 64-bit words per key */
  uint64_t count;   /* keys stored */
  uint64_t cap;     /* room in keys */
  uint64_t limit;   /* most keys accepted (at most STP_KEYSET_MAX) */
  uint64_t *keys;   /* count * words */
  stp_hmap map;     /* key number by hash */
} stp_keyset;

/* An empty set of keys of `words` words accepting at most `limit` keys. */
stp_status stp__keyset_init(stp_keyset *ks, size_t words, uint64_t limit, stp_error *err);
/* Frees everything (ks may be cleared already). */
void stp__keyset_free(stp_keyset *ks);

/* The hash of a key; pass it to stp__keyset_add (and prefetch with it). */
static inline uint64_t stp__keyset_hash(const stp_keyset *ks, const uint64_t *key) {
  return stp__hash_words(key, ks->words);
}

/* Hints the memory system that key `hash` is about to be looked up. */
static inline void stp__keyset_prefetch(const stp_keyset *ks, uint64_t hash) {
#if defined(__GNUC__)
  __builtin_prefetch(&ks->map.slot[stp__hmap_home(hash, ks->map.size)]);
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

/* Key number i (valid until the next add). */
static inline const uint64_t *stp__keyset_key(const stp_keyset *ks, uint64_t i) {
  return ks->keys + i * ks->words;
}

/* Bytes held: the keys' room and the map's table. */
static inline uint64_t stp__keyset_bytes(const stp_keyset *ks) {
  return ks->cap * ks->words * 8 + ks->map.size * 8;
}

#endif /* STP_KEYSET_H */
