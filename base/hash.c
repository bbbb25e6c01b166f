/* hash.c: the open-addressing map of hash.h (the mixing functions are
 * inline there).  Why fingerprints: in a breadth-first enumeration of a
 * Markov chain most lookups find a key already there, at a random address;
 * comparing the fingerprint in the slot first leaves one random access to
 * the caller's entry per hit and almost none per miss, where a table of
 * bare numbers needs one per probe (bench/README.md has the measurements). */
#include "base/hash.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 16

void *stp__hash_table_alloc(size_t bytes) {
  void *p = stp__malloc_huge(bytes ? bytes : 1, 1);
  if (p)
    memset(p, 0, bytes);
  return p;
}

static uint64_t *new_table(uint64_t size) {
  if (size > SIZE_MAX / sizeof(uint64_t))
    return NULL;
  return stp__hash_table_alloc((size_t)size * sizeof(uint64_t));
}

stp_status stp__hmap_init(stp_hmap *m, uint64_t slots, stp_error *err) {
  memset(m, 0, sizeof *m);
  m->size = slots < MIN_SLOTS ? MIN_SLOTS : slots;
  m->slot = new_table(m->size);
  return m->slot ? STP_OK : stp__oom(err, "allocating a hash table");
}

void stp__hmap_free(stp_hmap *m) {
  if (!m)
    return;
  free(m->slot);
  memset(m, 0, sizeof *m);
}

/* Every entry again into a table of `size` slots. */
static stp_status resize(stp_hmap *m, uint64_t size, stp_hmap_hash_fn hash_of, const void *ctx,
                         stp_error *err) {
  uint64_t *slot = new_table(size);
  if (!slot)
    return stp__oom(err, "growing a hash table");
  stp_hmap grown = {.slot = slot, .size = size};
  for (uint64_t i = 0; i < m->count; i++) {
    stp_hmap_probe p;
    stp__hmap_probe(&grown, hash_of(ctx, (uint32_t)i), &p);
    while (slot[p.at])
      p.at = p.at + 1 < size ? p.at + 1 : 0;
    slot[p.at] = p.fp | (i + 1);
  }
  free(m->slot);
  m->slot = slot;
  m->size = size;
  return STP_OK;
}

stp_status stp__hmap_add(stp_hmap *m, const stp_hmap_probe *p, stp_hmap_hash_fn hash_of,
                         const void *ctx, stp_error *err) {
  if (m->count >= STP_HMAP_MAX)
    return STP_ELIMIT;
  m->slot[p->at] = p->fp | (m->count + 1);
  m->count++;
  if (4 * m->count > 3 * m->size) /* load at most 3/4; grown by half: at least 1/2 */
    return resize(m, m->size + m->size / 2, hash_of, ctx, err);
  return STP_OK;
}

uint64_t stp__hmap_name_hash(const void *names, uint32_t i) {
  return stp__hash_string(((char *const *)names)[i]);
}

/* ---- stp_names (streamtp_base.h): the map over copies of the names ---------- */
struct stp_names {
  stp_hmap map;
  char **s;
  uint64_t n, cap;
};

stp_status stp_names_new(stp_names **out, stp_error *err) {
  *out = NULL;
  stp_names *x = calloc(1, sizeof *x);
  if (!x)
    return stp__oom(err, "an index of names");
  stp_status s = stp__hmap_init(&x->map, 16, err);
  if (s != STP_OK) {
    free(x);
    return s;
  }
  *out = x;
  return STP_OK;
}

void stp_names_free(stp_names *names) {
  if (!names)
    return;
  for (uint64_t i = 0; i < names->n; i++)
    free(names->s[i]);
  free(names->s);
  stp__hmap_free(&names->map);
  free(names);
}

stp_status stp_names_add(stp_names *names, const char *s, size_t *index, int *added,
                         stp_error *err) {
  if (!names || !s || !index)
    return stp__fail(err, STP_EINVAL, "stp_names_add: names, s or index is NULL");
  stp_hmap_probe p;
  size_t i = stp__hmap_find_name(&names->map, names->s, s, &p);
  if (added)
    *added = i == SIZE_MAX;
  if (i != SIZE_MAX) {
    *index = i;
    return STP_OK;
  }
  if (names->n >= STP_HMAP_MAX)
    return stp__fail(err, STP_ELIMIT, "an index of names holds at most %llu",
                     (unsigned long long)STP_HMAP_MAX);
  char *copy = stp__strdup(s);
  if (!copy || !stp__grow((void **)&names->s, &names->cap, names->n + 1, sizeof *names->s, 16)) {
    free(copy);
    return stp__oom(err, "adding to an index of names");
  }
  names->s[names->n] = copy;
  *index = (size_t)names->n++;
  return stp__hmap_add(&names->map, &p, stp__hmap_name_hash, names->s, err);
}

size_t stp_names_find(const stp_names *names, const char *s) {
  return names && s ? stp__hmap_find_name(&names->map, names->s, s, NULL) : SIZE_MAX;
}
