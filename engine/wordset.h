/* wordset.h: a set of one-word keys (64 bits, e.g. a marking packed as
 * token positions) that numbers them 0, 1, 2, ... in insertion order, like
 * keyset.h, but split into parts chosen by the caller and read without the
 * key array.
 *
 * Parts: the caller says in which part a key lives (a function of the key
 * that it knows before the lookup, such as the level of a marking in a
 * breadth-first enumeration); each part is its own table, so that the
 * lookups of a stretch of work that all go to one part find it in the
 * caches.  Numbers run over the whole set.
 *
 * Tables: each holds, beside each number, the key's hash, a bijection of
 * the key (equal hashes mean equal keys), and keeps its slots in increasing
 * hash order (linear probing in Robin Hood order, without wrapping around):
 * a search stops at the first slot holding a larger hash, and every key
 * costs about the same to find (bench/README.md).  A slot is a hash and a
 * 32-bit number in two arrays (12 bytes), at a load between 1/2 and 3/4, a
 * table grown by half when full; a part gets its table at its first key.
 * The keys are also kept in insertion order (8 bytes each), for the caller
 * to read back by number.  Memory: 24 to 32 bytes per key (less full after
 * a generous stp__wordset_reserve), and one part's two tables for a moment
 * while it grows. */
#ifndef STP_WORDSET_H
#define STP_WORDSET_H

#include "base/hash.h"
#include "streamtp_base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_WORDSET_MAX (UINT32_MAX - 1)

typedef struct stp_wordset_part {
  uint64_t *hash;   /* per slot (NULL until the part's first key) */
  uint32_t *num;    /* per slot: number + 1; 0: empty (in hash's allocation) */
  uint64_t count;   /* keys in this part */
  uint64_t size;    /* slots that are homes; `slots` (a few more) in all */
  uint64_t slots;
} stp_wordset_part;

typedef struct stp_wordset {
  uint64_t count;   /* keys stored */
  uint64_t cap;     /* room in keys */
  uint64_t limit;   /* most keys accepted (at most STP_WORDSET_MAX) */
  uint64_t *keys;   /* in insertion order */
  uint32_t nparts;
  stp_wordset_part *part;
} stp_wordset;

/* An empty set of `nparts` parts (at least 1) accepting at most `limit` keys. */
stp_status stp__wordset_init(stp_wordset *ws, uint32_t nparts, uint64_t limit, stp_error *err);
/* Frees everything (ws may be cleared already). */
void stp__wordset_free(stp_wordset *ws);

/* The hash of a key: a bijection of 64-bit words (the library's mixing
 * function, base/hash.h), so that a table may hold it instead of the key. */
static inline uint64_t stp__wordset_hash(uint64_t key) {
  return stp__mix64(key);
}

/* The slot where the search for a key of this hash starts: the hash's high
 * half scaled to the number of homes (any number, not only powers of two;
 * increasing with the hash, which keeps a table in hash order). */
static inline uint64_t stp__wordset_home(uint64_t hash, uint64_t size) {
  return (uint64_t)(((unsigned __int128)(hash >> 32) * size) >> 32);
}

/* The slot where the search for a key of this hash in part p starts, for
 * the caller to prefetch &part[p].hash[slot] and &part[p].num[slot] (0 when
 * the part is empty).  The prefetch must be written in the caller's loop
 * itself: GCC takes a function holding nothing but a prefetch for one
 * without effect and drops calls to it. */
static inline uint64_t stp__wordset_slot(const stp_wordset *ws, uint32_t p, uint64_t hash) {
  return stp__wordset_home(hash, ws->part[p].size);
}

/* The first slot from hash's home holding no smaller hash (t->slots if
 * none; 0 when the part has no table yet). */
static inline uint64_t stp__wordset_search(const stp_wordset_part *t, uint64_t hash) {
  uint64_t p = stp__wordset_home(hash, t->size);
  while (p < t->slots && t->num[p] && t->hash[p] < hash)
    p++;
  return p;
}

/* 1 + the number of the key whose hash this is, if part p holds it, else 0
 * (the lookup alone, inline: most lookups of an enumeration find their key). */
static inline uint32_t stp__wordset_find(const stp_wordset *ws, uint32_t p, uint64_t hash) {
  const stp_wordset_part *t = &ws->part[p];
  uint64_t at = stp__wordset_search(t, hash);
  return at < t->slots && t->num[at] && t->hash[at] == hash ? t->num[at] : 0; /* a bijection:
                                                                              the same key */
}

/* The number of key (whose hash is stp__wordset_hash(key)) in part p <
 * nparts, adding it when new (*added).  A key must always be looked up in
 * the same part.  STP_ELIMIT (no message: the caller knows what the keys
 * are) when a new key would exceed the limit; STP_ENOMEM when the set
 * cannot grow. */
stp_status stp__wordset_add(stp_wordset *ws, uint32_t p, uint64_t key, uint64_t hash,
                            uint32_t *number, bool *added, stp_error *err);

/* Makes room in part p for `more` keys beyond those it holds, so that
 * adding them grows its table once at most (a hint: a part about to
 * receive many keys is sized once, rather than grown and copied, its
 * fresh memory zeroed, several times).  STP_ENOMEM when out of memory. */
stp_status stp__wordset_reserve(stp_wordset *ws, uint32_t p, uint64_t more, stp_error *err);

/* Key number i < count. */
static inline uint64_t stp__wordset_key(const stp_wordset *ws, uint64_t i) {
  return ws->keys[i];
}

#endif /* STP_WORDSET_H */
