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
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define MIN_HOMES 64
#define SPARE 32 /* slots after the last home */

static uint64_t slots_for(uint64_t size) {
  return size + SPARE;
}

/* A table of `slots` slots (hashes, then numbers, in one block). */
static bool new_table(stp_wordset_part *t, uint64_t slots) {
  if (slots > SIZE_MAX / (sizeof *t->hash + sizeof *t->num))
    return false;
  t->hash = stp__hash_table_alloc((size_t)slots * (sizeof *t->hash + sizeof *t->num));
  t->num = t->hash ? (uint32_t *)(t->hash + slots) : NULL;
  t->slots = slots;
  return t->hash != NULL;
}

/* The old table's entries, in hash order, into new table t of `size`
 * homes: each at its home or just after the previous one.  False when the
 * spare slots do not suffice. */
static bool rebuild(const stp_wordset_part *old, uint64_t size, stp_wordset_part *t) {
  uint64_t next = 0;
  for (uint64_t p = 0; p < old->slots; p++) {
    if (!old->num[p])
      continue;
    uint64_t home = stp__wordset_home(old->hash[p], size);
    uint64_t at = home > next ? home : next;
    if (at >= t->slots)
      return false;
    t->hash[at] = old->hash[p];
    t->num[at] = old->num[p];
    next = at + 1;
  }
  return true;
}

/* Grows a part's table to at least `size` homes (more if its spare slots
 * overflow). */
static stp_status table_resize(stp_wordset_part *part, uint64_t size, stp_error *err) {
  for (;; size += size / 2) {
    stp_wordset_part t = {.count = part->count, .size = size};
    if (!new_table(&t, slots_for(size)))
      return stp__oom(err, "growing a set of states");
    if (!part->hash || rebuild(part, size, &t)) {
      free(part->hash);
      *part = t;
      return STP_OK;
    }
    free(t.hash);
  }
}

stp_status stp__wordset_init(stp_wordset *ws, uint32_t nparts, uint64_t limit, stp_error *err) {
  memset(ws, 0, sizeof *ws);
  ws->limit = limit < STP_WORDSET_MAX ? limit : STP_WORDSET_MAX;
  ws->cap = 1024;
  ws->nparts = nparts ? nparts : 1;
  ws->keys = stp__malloc_array((size_t)ws->cap, sizeof *ws->keys);
  ws->part = stp__calloc(ws->nparts, sizeof *ws->part);
  if (!ws->keys || !ws->part) {
    stp__wordset_free(ws);
    return stp__oom(err, "allocating a set of states");
  }
  return STP_OK;
}

void stp__wordset_free(stp_wordset *ws) {
  if (!ws)
    return;
  for (uint32_t p = 0; ws->part && p < ws->nparts; p++)
    free(ws->part[p].hash);
  free(ws->part);
  free(ws->keys);
  memset(ws, 0, sizeof *ws);
}

stp_status stp__wordset_reserve(stp_wordset *ws, uint32_t p, uint64_t more, stp_error *err) {
  stp_wordset_part *t = &ws->part[p];
  uint64_t size = (t->count + more) / 3 * 4 + MIN_HOMES; /* a load of 3/4 once they are in */
  return size > t->size ? table_resize(t, size, err) : STP_OK;
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

static inline uint64_t search(const stp_wordset_part *t, uint64_t hash) {
  return stp__wordset_search(t, hash);
}

/* Puts (hash, num) at slot p, moving the run of entries from p up to the
 * next empty slot one slot on.  False when that run reaches the table's end. */
static bool insert_at(stp_wordset_part *t, uint64_t p, uint64_t hash, uint32_t num) {
  uint64_t q = p;
  while (q < t->slots && t->num[q])
    q++;
  if (q == t->slots)
    return false;
  for (; q > p; q--) { /* a few slots: a loop beats two calls to memmove */
    t->hash[q] = t->hash[q - 1];
    t->num[q] = t->num[q - 1];
  }
  t->hash[p] = hash;
  t->num[p] = num;
  return true;
}

stp_status stp__wordset_add(stp_wordset *ws, uint32_t part, uint64_t key, uint64_t hash,
                            uint32_t *number, bool *added, stp_error *err) {
  stp_wordset_part *t = &ws->part[part];
  uint32_t found = stp__wordset_find(ws, part, hash);
  if (found) {
    *number = found - 1;
    *added = false;
    return STP_OK;
  }
  if (ws->count >= ws->limit)
    return STP_ELIMIT;
  if (ws->count == ws->cap)
    STP_CHECK(keys_grow(ws, err));
  if (!t->hash)
    STP_CHECK(table_resize(t, MIN_HOMES, err));
  while (!insert_at(t, search(t, hash), hash, (uint32_t)(ws->count + 1)))
    STP_CHECK(table_resize(t, t->size + t->size / 2, err));
  ws->keys[ws->count] = key;
  *number = (uint32_t)ws->count++;
  *added = true;
  if (4 * ++t->count > 3 * t->size) /* load at most 3/4; grown by half: at least 1/2 */
    return table_resize(t, t->size + t->size / 2, err);
  return STP_OK;
}
