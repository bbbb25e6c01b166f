/* hash.h: the library's one mixing function, the hashes made of it, and
 * its one open-addressing map (stp_hmap), which numbers entries that the
 * caller keeps and finds them back from their hash: the chains' sets of
 * states (engine/keyset.h), the order ideals' levels, the names of an event
 * graph, the optimiser's cache, the command line's index of input names
 * (stp_names, streamtp_base.h).  docs/design.md, "Hashing", says why one
 * table serves them all and why engine/wordset.h keeps its own. */
#ifndef STP_HASH_H
#define STP_HASH_H

#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- mixing ---------------------------------------------------------------------
 * stp__mix64 is splitmix64's finalizer (Steele, Lea and Flood 2014): a
 * bijection of 64-bit words in which every output bit depends on every
 * input bit, so that a table may keep the hash of a one-word key instead of
 * the key (engine/wordset.h), and a key's home (its high bits) and its
 * fingerprint (its low bits) are independent.  The random generator's
 * splitmix64 is the same function on a Weyl sequence of step
 * STP_HASH_GAMMA (base/xoshiro.c). */
#define STP_HASH_GAMMA UINT64_C(0x9E3779B97F4A7C15) /* 2^64 / golden ratio, odd */
#define STP_HASH_M1 UINT64_C(0xBF58476D1CE4E5B9)
#define STP_HASH_M2 UINT64_C(0x94D049BB133111EB)

static inline uint64_t stp__mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * STP_HASH_M1;
  z = (z ^ (z >> 27)) * STP_HASH_M2;
  return z ^ (z >> 31);
}

/* The hash of n words (a packed marking, a bitset of finished tasks): each
 * word folded in by one multiply, the whole mixed once.  Inline: it runs
 * once per state looked up in the chains' enumerations. */
static inline uint64_t stp__hash_words(const uint64_t *w, size_t n) {
  uint64_t h = STP_HASH_GAMMA ^ n;
  for (size_t k = 0; k < n; k++) {
    h ^= w[k];
    h *= STP_HASH_M1;
    h ^= h >> 31;
  }
  return stp__mix64(h);
}

/* The hash of n bytes (a name, an array of small integers), read 8 at a
 * time. */
static inline uint64_t stp__hash_bytes(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = STP_HASH_GAMMA ^ n;
  for (; n >= 8; n -= 8, b += 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = (h ^ w) * STP_HASH_M1;
    h ^= h >> 31;
  }
  uint64_t w = 0;
  memcpy(&w, b, n);
  return stp__mix64(h ^ w);
}

static inline uint64_t stp__hash_string(const char *s) {
  return stp__hash_bytes(s, strlen(s));
}

/* ---- the map ----------------------------------------------------------------------
 * Entries are numbered 0, 1, 2, ... in the order they are added and stay
 * in the caller's arrays (keys, names, values).  Each 8-byte slot holds an
 * entry's number + 1 and a 32-bit fingerprint of its hash (the low half),
 * so that a probe reads the caller's entry only when the fingerprints
 * match, almost only on a hit.  Linear probing from a home that scales the
 * hash's high half to the table size, which may be any size: the table
 * grows by half when its load passes 3/4 (8 bytes a slot: 11 to 16 bytes
 * an entry), each entry's hash then asked of the caller again.  At most
 * STP_HMAP_MAX entries.
 *
 *   stp_hmap_probe p;
 *   uint32_t i;
 *   for (stp__hmap_probe(m, hash, &p); stp__hmap_next(m, &p, &i);)
 *     if (entry i is the key) return i;
 *   (store the key as entry m->count in the caller's arrays, then)
 *   stp__hmap_add(m, &p, hash_of, ctx, err);
 */
#define STP_HMAP_MAX (UINT32_MAX - 1)

typedef struct stp_hmap {
  uint64_t *slot;  /* (fingerprint << 32) | (number + 1); 0: empty */
  uint64_t size;   /* slots */
  uint64_t count;  /* entries */
} stp_hmap;

typedef struct stp_hmap_probe {
  uint64_t at;     /* the slot looked at next, then the empty one found */
  uint64_t fp;     /* the fingerprint looked for, in place */
} stp_hmap_probe;

/* The hash of entry i < count, asked again when the table grows. */
typedef uint64_t (*stp_hmap_hash_fn)(const void *ctx, uint32_t i);

/* An empty map of `slots` slots (at least 16): room for 3/4 as many
 * entries before it grows.  STP_ENOMEM when out of memory. */
stp_status stp__hmap_init(stp_hmap *m, uint64_t slots, stp_error *err);
/* Frees the table (m may be cleared already). */
void stp__hmap_free(stp_hmap *m);

/* The slot where the search for a hash starts: its high half scaled to the
 * table size (any size, not only powers of two). */
static inline uint64_t stp__hmap_home(uint64_t hash, uint64_t size) {
  return (uint64_t)(((unsigned __int128)(hash >> 32) * size) >> 32);
}

static inline void stp__hmap_probe(const stp_hmap *m, uint64_t hash, stp_hmap_probe *p) {
  uint64_t f = hash & UINT64_C(0xFFFFFFFF);
  p->fp = (f ? f : 1) << 32; /* never 0, so that a slot is never all zero (empty) */
  p->at = stp__hmap_home(hash, m->size);
}

/* The next entry of the probe whose fingerprint matches: true and *i, for
 * the caller to compare with its key; false at the first empty slot, where
 * p then stays for stp__hmap_add. */
static inline bool stp__hmap_next(const stp_hmap *m, stp_hmap_probe *p, uint32_t *i) {
  for (uint64_t s; (s = m->slot[p->at]) != 0;) {
    p->at = p->at + 1 < m->size ? p->at + 1 : 0;
    if ((s & ~UINT64_C(0xFFFFFFFF)) == p->fp) {
      *i = (uint32_t)(s & UINT64_C(0xFFFFFFFF)) - 1;
      return true;
    }
  }
  return false;
}

/* Records entry m->count (which the caller has just stored) in the empty
 * slot where probe p ended, then grows the table when its load passes 3/4
 * (hash_of(ctx, i) for every entry).  STP_ELIMIT (no message) beyond
 * STP_HMAP_MAX entries; STP_ENOMEM when the table cannot grow (the entry
 * is recorded all the same). */
stp_status stp__hmap_add(stp_hmap *m, const stp_hmap_probe *p, stp_hmap_hash_fn hash_of,
                         const void *ctx, stp_error *err);

/* The table's size after the next add (the size itself unless that add
 * makes it grow): what a caller checks its memory budget against. */
static inline uint64_t stp__hmap_size_after_add(const stp_hmap *m) {
  return 4 * (m->count + 1) > 3 * m->size ? m->size + m->size / 2 : m->size;
}

/* ---- names: the map over an array of strings ----------------------------------
 * Entry i is names[i] (the caller's char *array): the index of a name, or
 * SIZE_MAX when absent, with *p where it would go (p may be NULL). */
static inline size_t stp__hmap_find_name(const stp_hmap *m, char *const *names, const char *name,
                                         stp_hmap_probe *p) {
  stp_hmap_probe local;
  if (!p)
    p = &local;
  uint32_t i;
  for (stp__hmap_probe(m, stp__hash_string(name), p); stp__hmap_next(m, p, &i);)
    if (strcmp(names[i], name) == 0)
      return i;
  return SIZE_MAX;
}
/* The stp_hmap_hash_fn of such a map: ctx is the char *const * array. */
uint64_t stp__hmap_name_hash(const void *names, uint32_t i);

/* `bytes` of zeroed memory for a table probed at random (released with
 * free): from 4 MiB on, aligned to and asking for 2 MiB pages, which spare
 * the TLB misses of random access (a hint: no harm if refused).  NULL when
 * out of memory. */
void *stp__hash_table_alloc(size_t bytes);

#endif /* STP_HASH_H */
