/* keyset.c: the numbered set of packed keys of keyset.h, on the library's
 * map (base/hash.h): the keys in one array that grows by half, the map
 * finding a key's number from its hash. */
#include "engine/keyset.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

#define MIN_KEYS 1024
#define MIN_SLOTS 1024

stp_status stp__keyset_init(stp_keyset *ks, size_t words, uint64_t limit, stp_error *err) {
  memset(ks, 0, sizeof *ks);
  ks->words = words ? words : 1;
  ks->limit = limit < STP_KEYSET_MAX ? limit : STP_KEYSET_MAX;
  ks->cap = MIN_KEYS;
  ks->keys = stp__malloc_array((size_t)ks->cap * ks->words, sizeof *ks->keys);
  if (!ks->keys)
    return stp__oom(err, "allocating a set of states");
  return stp__hmap_init(&ks->map, MIN_SLOTS, err);
}

void stp__keyset_free(stp_keyset *ks) {
  if (!ks)
    return;
  free(ks->keys);
  stp__hmap_free(&ks->map);
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

static uint64_t key_hash(const void *ctx, uint32_t i) {
  const stp_keyset *ks = ctx;
  return stp__keyset_hash(ks, stp__keyset_key(ks, i));
}

stp_status stp__keyset_add(stp_keyset *ks, const uint64_t *key, uint64_t hash, uint32_t *number,
                           bool *added, stp_error *err) {
  stp_hmap_probe p;
  uint32_t i;
  for (stp__hmap_probe(&ks->map, hash, &p); stp__hmap_next(&ks->map, &p, &i);)
    if (memcmp(stp__keyset_key(ks, i), key, ks->words * sizeof *key) == 0) {
      *number = i;
      *added = false;
      return STP_OK;
    }
  if (ks->count >= ks->limit)
    return STP_ELIMIT;
  if (ks->count == ks->cap)
    STP_CHECK(keys_grow(ks, err));
  memcpy(ks->keys + ks->count * ks->words, key, ks->words * sizeof *key);
  *number = (uint32_t)ks->count++;
  *added = true;
  return stp__hmap_add(&ks->map, &p, key_hash, ks, err);
}
