/* test_hash.c: the library's map (base/hash.h) against a linear search,
 * under a hash that gives every entry the same home and fingerprint (every
 * probe then walks the whole cluster, wraps around the table's end, and the
 * fingerprint never stands in for the key) and under the real one, through
 * many growths; the map over names and the public index of names
 * (stp_names); the hashes of bytes at the 8-byte boundaries.  The mixing
 * function itself is checked through splitmix64's published outputs
 * (test_generate.c). */
#include "base/hash.h"
#include "support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entries {
  uint64_t key[5000];
  uint32_t n;
  uint64_t (*hash)(uint64_t key);
} entries;

static uint64_t same_hash(uint64_t key) {
  (void)key;
  return UINT64_C(0xFFFFFFFF00000000); /* the last slot's home, fingerprint 0 (stored as 1) */
}

static uint64_t real_hash(uint64_t key) { return stp__hash_words(&key, 1); }

static uint64_t entry_hash(const void *ctx, uint32_t i) {
  const entries *e = ctx;
  return e->hash(e->key[i]);
}

/* The entry holding key, added when new: through the map, and by a search. */
static uint32_t add(stp_hmap *m, entries *e, uint64_t key, bool *added) {
  stp_hmap_probe p;
  uint32_t i;
  for (stp__hmap_probe(m, e->hash(key), &p); stp__hmap_next(m, &p, &i);)
    if (e->key[i] == key) {
      *added = false;
      return i;
    }
  e->key[e->n] = key;
  stp_error err = {0};
  cr_assert_eq(stp__hmap_add(m, &p, entry_hash, e, &err), STP_OK, "%s", err.message);
  *added = true;
  return e->n++;
}

static void against_a_linear_search(uint64_t (*hash)(uint64_t), uint32_t draws, uint64_t space) {
  static entries e;
  e = (entries){.hash = hash};
  stp_hmap m;
  stp_error err = {0};
  cr_assert_eq(stp__hmap_init(&m, 16, &err), STP_OK);
  unsigned state = 11;
  for (uint32_t d = 0; d < draws; d++) {
    uint64_t key = (uint64_t)rand_r(&state) % space * UINT64_C(0x100000001);
    int64_t want = -1;
    for (uint32_t i = 0; i < e.n && want < 0; i++)
      if (e.key[i] == key)
        want = i;
    bool added;
    uint32_t got = add(&m, &e, key, &added);
    cr_assert_eq(added, want < 0, "draw %u", d);
    cr_assert_eq(got, want < 0 ? e.n - 1 : (uint32_t)want, "draw %u", d);
    cr_assert(4 * m.count <= 3 * m.size, "load %llu / %llu", (unsigned long long)m.count,
              (unsigned long long)m.size);
  }
  cr_assert_eq(m.count, e.n);
  cr_assert_gt(e.n, space / 2, "the draws should meet most of the key space (%u)", e.n);
  cr_assert_gt(m.size, 16 * 8, "the table should have grown several times");
  stp__hmap_free(&m);
}

Test(hash, map_with_one_home_for_all_matches_a_linear_search) {
  against_a_linear_search(same_hash, 3000, 600);
}

Test(hash, map_with_the_real_hash_matches_a_linear_search) {
  against_a_linear_search(real_hash, 20000, 4000);
}

Test(hash, size_after_add_predicts_the_growth) {
  static entries e;
  e = (entries){.hash = real_hash};
  stp_hmap m;
  cr_assert_eq(stp__hmap_init(&m, 20, NULL), STP_OK);
  for (uint64_t k = 0; k < 1000; k++) {
    uint64_t want = stp__hmap_size_after_add(&m);
    bool added;
    add(&m, &e, k, &added);
    cr_assert(added);
    cr_assert_eq(m.size, want, "after %llu entries", (unsigned long long)k + 1);
  }
  stp__hmap_free(&m);
}

Test(hash, names_map_and_the_public_index) {
  stp_names *ix;
  stp_error err = {0};
  cr_assert_eq(stp_names_new(&ix, &err), STP_OK);
  char name[32];
  for (int round = 0; round < 2; round++)
    for (size_t k = 0; k < 3000; k++) {
      snprintf(name, sizeof name, "in/%zu.json", k * 7919 % 3000);
      size_t at;
      int added;
      cr_assert_eq(stp_names_add(ix, name, &at, &added, &err), STP_OK, "%s", err.message);
      cr_assert_eq(added, round == 0, "%s", name);
      cr_assert_eq(at, k, "%s", name);
      cr_assert_eq(stp_names_find(ix, name), k);
    }
  cr_assert_eq(stp_names_find(ix, "in/3000.json"), SIZE_MAX);
  cr_assert_eq(stp_names_find(ix, ""), SIZE_MAX);
  size_t at;
  cr_assert_eq(stp_names_add(ix, "", &at, NULL, &err), STP_OK);
  cr_assert_eq(at, 3000);
  cr_assert_eq(stp_names_find(ix, ""), 3000);
  cr_assert_eq(stp_names_add(ix, NULL, &at, NULL, &err), STP_EINVAL);
  stp_names_free(ix);
  stp_names_free(NULL);
}

Test(hash, bytes_hash_reads_every_byte_at_the_word_boundaries) {
  const char s[] = "abcdefghijklmnopq";
  for (size_t n = 0; n <= 17; n++) {
    uint64_t h = stp__hash_bytes(s, n);
    cr_assert_eq(h, stp__hash_bytes(s, n), "deterministic");
    for (size_t m = 0; m < n; m++)
      cr_assert_neq(h, stp__hash_bytes(s, m), "lengths %zu and %zu", n, m);
    char t[17];
    memcpy(t, s, n);
    for (size_t b = 0; b < n; b++) { /* one byte changed, wherever it is */
      t[b] ^= 1;
      cr_assert_neq(h, stp__hash_bytes(t, n), "byte %zu of %zu", b, n);
      t[b] ^= 1;
    }
  }
  cr_assert_eq(stp__hash_string("abc"), stp__hash_bytes("abc", 3));
}
