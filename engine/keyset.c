/* keyset.c: the numbered set of packed keys of keyset.h.  Why fingerprints:
 * in a breadth-first enumeration of a Markov chain most lookups find a key
 * already there, at a random address; comparing the 32-bit fingerprint in
 * the slot first leaves one random access to the key array per hit and
 * almost none per miss, where a table of bare numbers needs one per probe
 * (bench/README.md has the measurements). */
#include "engine/keyset.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 1024

uint64_t stp__keyset_hash(const stp_keyset *ks, const uint64_t *key) {
  uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ ks->words;
  for (size_t k = 0; k < ks->words; k++) {
    h ^= key[k];
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 31;
  }
  h *= UINT64_C(0x94D049BB133111EB);
  return h ^ (h >> 29);
}

/* The fingerprint: the hash's low half, never 0 so that a slot is never
 * all zero (empty). */
static inline uint64_t fingerprint(uint64_t hash) {
  uint64_t f = hash & UINT64_C(0xFFFFFFFF);
  return (f ? f : 1) << 32;
}

void *stp__keyset_table_alloc(size_t bytes) {
  void *p = stp__malloc_huge(bytes ? bytes : 1, 1);
  if (p)
    memset(p, 0, bytes);
  return p;
}

static uint64_t *new_table(uint64_t size) {
  if (size > SIZE_MAX / sizeof(uint64_t))
    return NULL;
  return stp__keyset_table_alloc((size_t)size * sizeof(uint64_t));
}

static stp_status table_resize(stp_keyset *ks, uint64_t size, stp_error *err) {
  uint64_t *slot = new_table(size);
  if (!slot)
    return stp__oom(err, "growing a set of states");
  for (uint64_t i = 0; i < ks->count; i++) {
    uint64_t h = stp__keyset_hash(ks, stp__keyset_key(ks, i));
    uint64_t at = stp__keyset_home(h, size);
    while (slot[at])
      at = at + 1 < size ? at + 1 : 0;
    slot[at] = fingerprint(h) | (i + 1);
  }
  free(ks->slot);
  ks->slot = slot;
  ks->size = size;
  return STP_OK;
}

stp_status stp__keyset_init(stp_keyset *ks, size_t words, uint64_t limit, stp_error *err) {
  memset(ks, 0, sizeof *ks);
  ks->words = words ? words : 1;
  ks->limit = limit < STP_KEYSET_MAX ? limit : STP_KEYSET_MAX;
  ks->cap = MIN_SLOTS;
  ks->keys = stp__malloc_array((size_t)ks->cap * ks->words, sizeof *ks->keys);
  if (!ks->keys)
    return stp__oom(err, "allocating a set of states");
  return table_resize(ks, MIN_SLOTS, err);
}

void stp__keyset_free(stp_keyset *ks) {
  if (!ks)
    return;
  free(ks->keys);
  free(ks->slot);
  memset(ks, 0, sizeof *ks);
}

/* Room for one more key.  Growth by 1.5: realloc moves large blocks by
 * remapping pages, and room not yet written costs no memory. */
static stp_status keys_grow(stp_keyset *ks, stp_error *err) {
  uint64_t cap = ks->cap + ks->cap / 2;
  if (cap > ks->limit)
    cap = ks->limit;
  uint64_t *keys = realloc(ks->keys, (size_t)cap * ks->words * sizeof *keys);
  if (!keys)
    return stp__oom(err, "growing a set of states");
  ks->keys = keys;
  ks->cap = cap;
  return STP_OK;
}

stp_status stp__keyset_add(stp_keyset *ks, const uint64_t *key, uint64_t hash, uint32_t *number,
                           bool *added, stp_error *err) {
  uint64_t fp = fingerprint(hash), at = stp__keyset_home(hash, ks->size);
  size_t bytes = ks->words * sizeof *key;
  for (uint64_t s; (s = ks->slot[at]) != 0; at = at + 1 < ks->size ? at + 1 : 0)
    if ((s & ~UINT64_C(0xFFFFFFFF)) == fp) {
      uint64_t i = (s & UINT64_C(0xFFFFFFFF)) - 1;
      if (memcmp(stp__keyset_key(ks, i), key, bytes) == 0) {
        *number = (uint32_t)i;
        *added = false;
        return STP_OK;
      }
    }
  if (ks->count >= ks->limit)
    return STP_ELIMIT;
  if (ks->count == ks->cap)
    STP_CHECK(keys_grow(ks, err));
  memcpy(ks->keys + ks->count * ks->words, key, bytes);
  ks->slot[at] = fp | (ks->count + 1);
  *number = (uint32_t)ks->count++;
  *added = true;
  if (4 * ks->count > 3 * ks->size) /* load at most 3/4; grown by half: at least 1/2 */
    return table_resize(ks, ks->size + ks->size / 2, err);
  return STP_OK;
}
