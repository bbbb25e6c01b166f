/* wordset.c: the numbered set of one-word keys of wordset.h.  Why the hash
 * in the table: in a breadth-first enumeration most lookups find a key
 * already there; with a bijection of the key beside its number, a hit costs
 * the one random access to the table (prefetched by the caller) where a
 * fingerprinted table of numbers (keyset.h) needs a second, dependent one
 * into the key array.  Why hash order: plain linear probing made the
 * enumeration's lookups cost 5.8 slots each on the Strict 5x6 chain
 * (against 2.7 averaged over its keys), since the keys looked up most are
 * the recent ones, inserted at the ends of long clusters; in hash order a
 * key's place does not depend on when it came.  The table does not wrap
 * around: a few spare slots follow the last home, and the table grows
 * early in the (rare) case that they fill up.  Growing walks the old table
 * in order, so the new one is written in order too. */
#include "engine/wordset.h"

#include "base/core.h"
#include "engine/keyset.h"

#include <stdlib.h>
#include <string.h>

#define B STP_WORDSET_BUCKET
#define MIN_HOMES 1280
#define SPARE (64 * B) /* slots after the last home */

static inline uint32_t num_at(const stp_wordset_bucket *t, uint64_t p) {
  return t[p / B].num[p % B];
}

static inline uint64_t hash_at(const stp_wordset_bucket *t, uint64_t p) {
  return t[p / B].hash[p % B];
}

static inline void set_slot(stp_wordset_bucket *t, uint64_t p, uint64_t hash, uint32_t num) {
  t[p / B].hash[p % B] = hash;
  t[p / B].num[p % B] = num;
}

static uint64_t slots_for(uint64_t size) {
  return (size + SPARE + B - 1) / B * B;
}

static stp_wordset_bucket *new_table(uint64_t slots) {
  if (slots / B > SIZE_MAX / sizeof(stp_wordset_bucket))
    return NULL;
  return stp__keyset_table_alloc((size_t)(slots / B) * sizeof(stp_wordset_bucket));
}

/* The old table's entries, in hash order, into a new table of `size`
 * homes: each at its home or just after the previous one.  False when the
 * spare slots do not suffice (then nothing changed). */
static bool rebuild(stp_wordset *ws, uint64_t size, stp_wordset_bucket *t) {
  uint64_t slots = slots_for(size), next = 0;
  for (uint64_t p = 0; p < ws->slots; p++) {
    uint32_t num = num_at(ws->bucket, p);
    if (!num)
      continue;
    uint64_t h = hash_at(ws->bucket, p), home = stp__wordset_home(h, size);
    uint64_t at = home > next ? home : next;
    if (at >= slots)
      return false;
    set_slot(t, at, h, num);
    next = at + 1;
  }
  return true;
}

/* Grows the table to at least `size` homes (more if its spare slots
 * overflow). */
static stp_status table_resize(stp_wordset *ws, uint64_t size, stp_error *err) {
  for (;; size += size / 2) {
    stp_wordset_bucket *t = new_table(slots_for(size));
    if (!t)
      return stp__oom(err, "growing a set of states");
    if (!ws->bucket || rebuild(ws, size, t)) {
      free(ws->bucket);
      ws->bucket = t;
      ws->size = size;
      ws->slots = slots_for(size);
      return STP_OK;
    }
    free(t);
  }
}

stp_status stp__wordset_init(stp_wordset *ws, uint64_t limit, stp_error *err) {
  memset(ws, 0, sizeof *ws);
  ws->limit = limit < STP_WORDSET_MAX ? limit : STP_WORDSET_MAX;
  ws->cap = 1024;
  ws->keys = stp__malloc_array((size_t)ws->cap, sizeof *ws->keys);
  if (!ws->keys)
    return stp__oom(err, "allocating a set of states");
  return table_resize(ws, MIN_HOMES, err);
}

void stp__wordset_free(stp_wordset *ws) {
  if (!ws)
    return;
  free(ws->keys);
  free(ws->bucket);
  memset(ws, 0, sizeof *ws);
}

/* Room for one more key, by half again (realloc remaps large blocks, and
 * room not yet written costs no memory). */
static stp_status keys_grow(stp_wordset *ws, stp_error *err) {
  uint64_t cap = ws->cap + ws->cap / 2;
  if (cap > ws->limit)
    cap = ws->limit;
  uint64_t *keys = realloc(ws->keys, (size_t)cap * sizeof *keys);
  if (!keys)
    return stp__oom(err, "growing a set of states");
  ws->keys = keys;
  ws->cap = cap;
  return STP_OK;
}

/* The first slot from hash's home holding no smaller hash (ws->slots if
 * none). */
static inline uint64_t search(const stp_wordset *ws, uint64_t hash) {
  uint64_t p = stp__wordset_home(hash, ws->size);
  while (p < ws->slots && num_at(ws->bucket, p) && hash_at(ws->bucket, p) < hash)
    p++;
  return p;
}

/* Puts (hash, num) at slot p, moving the run of entries from p up to the
 * next empty slot one slot on.  False when that run reaches the table's end. */
static bool insert_at(stp_wordset *ws, uint64_t p, uint64_t hash, uint32_t num) {
  uint64_t q = p;
  while (q < ws->slots && num_at(ws->bucket, q))
    q++;
  if (q == ws->slots)
    return false;
  for (; q > p; q--)
    set_slot(ws->bucket, q, hash_at(ws->bucket, q - 1), num_at(ws->bucket, q - 1));
  set_slot(ws->bucket, p, hash, num);
  return true;
}

stp_status stp__wordset_add(stp_wordset *ws, uint64_t key, uint64_t hash, uint32_t *number,
                            bool *added, stp_error *err) {
  uint64_t p = search(ws, hash);
  if (p < ws->slots && num_at(ws->bucket, p) && hash_at(ws->bucket, p) == hash) {
    *number = num_at(ws->bucket, p) - 1; /* the hash is a bijection: the same key */
    *added = false;
    return STP_OK;
  }
  if (ws->count >= ws->limit)
    return STP_ELIMIT;
  if (ws->count == ws->cap)
    STP_CHECK(keys_grow(ws, err));
  while (!insert_at(ws, p, hash, (uint32_t)(ws->count + 1))) {
    STP_CHECK(table_resize(ws, ws->size + ws->size / 2, err));
    p = search(ws, hash);
  }
  ws->keys[ws->count] = key;
  *number = (uint32_t)ws->count++;
  *added = true;
  if (4 * ws->count > 3 * ws->size) /* load at most 3/4; grown by half: at least 1/2 */
    return table_resize(ws, ws->size + ws->size / 2, err);
  return STP_OK;
}
