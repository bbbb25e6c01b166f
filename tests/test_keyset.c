/* test_keyset.c: the numbered set of packed keys (engine/keyset.h) against
 * a linear search over the keys inserted so far, through several doublings
 * of its table; its limit; and keys differing in a single bit (the
 * fingerprint must never stand in for the key). */
#include "engine/keyset.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

#define WORDS 3

/* A key from a small space, so that keys repeat. */
static void make_key(uint64_t *k, unsigned *state) {
  for (int w = 0; w < WORDS; w++)
    k[w] = (uint64_t)(rand_r(state) % 7) << (w * 5);
  k[rand_r(state) % WORDS] |= (uint64_t)(rand_r(state) % 300) << 20;
}

static int64_t linear_find(const uint64_t *keys, uint64_t n, const uint64_t *k) {
  for (uint64_t i = 0; i < n; i++)
    if (memcmp(keys + i * WORDS, k, sizeof(uint64_t) * WORDS) == 0)
      return (int64_t)i;
  return -1;
}

Test(keyset, numbers_keys_in_insertion_order_like_a_linear_search) {
  stp_keyset ks;
  stp_error err = {0};
  cr_assert_eq(stp__keyset_init(&ks, WORDS, 1000000, &err), STP_OK, "%s", err.message);
  enum { DRAWS = 30000 };
  uint64_t *ref = malloc(sizeof(uint64_t) * WORDS * DRAWS);
  uint64_t nref = 0;
  unsigned state = 7;
  for (int d = 0; d < DRAWS; d++) {
    uint64_t k[WORDS];
    make_key(k, &state);
    int64_t want = linear_find(ref, nref, k);
    uint32_t got;
    bool added;
    cr_assert_eq(stp__keyset_add(&ks, k, stp__keyset_hash(&ks, k), &got, &added, &err), STP_OK,
                 "%s", err.message);
    if (want < 0) {
      cr_assert(added);
      cr_assert_eq(got, nref);
      memcpy(ref + nref * WORDS, k, sizeof k);
      nref++;
    } else {
      cr_assert_not(added);
      cr_assert_eq(got, (uint32_t)want);
    }
  }
  cr_assert_eq(ks.count, nref);
  cr_assert_gt(nref, 5000, "the draws should give thousands of distinct keys (%llu)",
               (unsigned long long)nref);
  cr_assert_gt(ks.map.size, 4 * 1024, "the table should have grown several times");
  for (uint64_t i = 0; i < nref; i++)
    cr_assert_eq(memcmp(stp__keyset_key(&ks, i), ref + i * WORDS, sizeof(uint64_t) * WORDS), 0);
  free(ref);
  stp__keyset_free(&ks);
}

Test(keyset, keys_one_bit_apart_are_different) {
  stp_keyset ks;
  stp_error err = {0};
  cr_assert_eq(stp__keyset_init(&ks, 2, 1000, &err), STP_OK);
  for (uint32_t b = 0; b < 128; b++) {
    uint64_t k[2] = {0, 0};
    k[b / 64] = UINT64_C(1) << (b % 64);
    uint32_t got;
    bool added;
    cr_assert_eq(stp__keyset_add(&ks, k, stp__keyset_hash(&ks, k), &got, &added, &err), STP_OK);
    cr_assert(added, "bit %u", b);
    cr_assert_eq(got, b);
  }
  stp__keyset_free(&ks);
}

Test(keyset, refuses_a_key_beyond_its_limit_but_finds_old_ones) {
  stp_keyset ks;
  stp_error err = {0};
  cr_assert_eq(stp__keyset_init(&ks, 1, 10, &err), STP_OK);
  uint32_t got;
  bool added;
  for (uint64_t k = 0; k < 10; k++)
    cr_assert_eq(stp__keyset_add(&ks, &k, stp__keyset_hash(&ks, &k), &got, &added, &err), STP_OK);
  uint64_t k = 10, old = 3;
  cr_assert_eq(stp__keyset_add(&ks, &k, stp__keyset_hash(&ks, &k), &got, &added, &err),
               STP_ELIMIT);
  cr_assert_eq(stp__keyset_add(&ks, &old, stp__keyset_hash(&ks, &old), &got, &added, &err),
               STP_OK);
  cr_assert_eq(got, 3);
  cr_assert_not(added);
  stp__keyset_free(&ks);
}
