/* test_wordset.c: the numbered set of one-word keys split into parts
 * (engine/wordset.h) against a plain array searched linearly, through many
 * growths of its tables; keys whose hashes crowd the end of a table (the
 * spare slots overflow and the table grows early); its limit; a reserve
 * that changes nothing but the sizes; and the hash's bijectivity. */
#include "engine/wordset.h"
#include "support/testutil.h"

#include <stdlib.h>
#include <string.h>

/* The multiplicative inverse of odd c modulo 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t c) {
  uint64_t x = c;
  for (int i = 0; i < 6; i++)
    x *= 2 - c * x;
  return x;
}

/* x from y = x ^ (x >> s): y ^ (y >> s) ^ (y >> 2s) ^ ... telescopes to x. */
static uint64_t unshift(uint64_t y, unsigned s) {
  uint64_t x = y;
  for (unsigned k = s; k < 64; k += s)
    x ^= y >> k;
  return x;
}

/* The key whose hash is h: stp__wordset_hash (splitmix64's finalizer,
 * base/hash.h) undone step by step. */
static uint64_t unhash(uint64_t h) {
  h = unshift(h, 31);
  h *= inverse(UINT64_C(0x94D049BB133111EB));
  h = unshift(h, 27);
  h *= inverse(UINT64_C(0xBF58476D1CE4E5B9));
  return unshift(h, 30);
}

Test(wordset, the_hash_is_a_bijection) {
  trng rng = {51};
  for (int i = 0; i < 10000; i++) {
    uint64_t k = trng_next(&rng);
    cr_assert_eq(unhash(stp__wordset_hash(k)), k);
    cr_assert_eq(stp__wordset_hash(unhash(k)), k);
  }
}

static int64_t linear_find(const uint64_t *keys, uint64_t n, uint64_t k) {
  for (uint64_t i = 0; i < n; i++)
    if (keys[i] == k)
      return (int64_t)i;
  return -1;
}

/* Adds `draws` keys from make(i) to a set of `parts` parts (a key's part:
 * key mod parts), each checked against a linear search. */
static void against_linear_search(uint32_t parts, int draws, uint64_t (*make)(trng *),
                                  bool reserve) {
  stp_wordset ws;
  stp_error err = {0};
  cr_assert_eq(stp__wordset_init(&ws, parts, 1000000, &err), STP_OK, "%s", err.message);
  uint64_t *ref = malloc(sizeof *ref * (size_t)draws);
  uint64_t nref = 0;
  trng rng = {52};
  for (int d = 0; d < draws; d++) {
    uint64_t k = make(&rng);
    uint32_t p = (uint32_t)(k % parts);
    if (reserve && d % 1000 == 0)
      cr_assert_eq(stp__wordset_reserve(&ws, p, (uint64_t)d, &err), STP_OK);
    int64_t want = linear_find(ref, nref, k);
    uint32_t got;
    bool added;
    cr_assert_eq(stp__wordset_add(&ws, p, k, stp__wordset_hash(k), &got, &added, &err), STP_OK,
                 "%s", err.message);
    if (want < 0) {
      cr_assert(added);
      cr_assert_eq(got, nref);
      ref[nref++] = k;
    } else {
      cr_assert_not(added);
      cr_assert_eq(got, (uint32_t)want);
    }
  }
  cr_assert_eq(ws.count, nref);
  uint64_t in_parts = 0;
  for (uint32_t p = 0; p < parts; p++) {
    in_parts += ws.part[p].count;
    cr_assert_leq(4 * ws.part[p].count, 3 * ws.part[p].size, "part %u is over 3/4 full", p);
  }
  cr_assert_eq(in_parts, nref);
  for (uint64_t i = 0; i < nref; i++)
    cr_assert_eq(stp__wordset_key(&ws, i), ref[i]);
  free(ref);
  stp__wordset_free(&ws);
}

/* Keys from a small space, so that about half the draws repeat one. */
static uint64_t small_space(trng *r) {
  return trng_int(r, 0, 20000) * UINT64_C(0x10001);
}

/* Keys whose hashes all lie in the top 1/50 of the range: they pile up at
 * the end of every table, past its last home, until the table has grown
 * to about 50 slots per key. */
static uint64_t crowded_at_the_end(trng *r) {
  uint64_t h = UINT64_MAX - trng_int(r, 0, 2000) * (UINT64_MAX / 50 / 2000);
  return unhash(h);
}

Test(wordset, numbers_keys_in_insertion_order_like_a_linear_search) {
  against_linear_search(1, 40000, small_space, false);
  against_linear_search(7, 40000, small_space, false);
  against_linear_search(7, 40000, small_space, true);
}

Test(wordset, keys_crowding_the_end_of_the_table_still_fit) {
  against_linear_search(1, 3000, crowded_at_the_end, false);
}

Test(wordset, the_limit_refuses_a_new_key_only) {
  stp_wordset ws;
  stp_error err = {0};
  cr_assert_eq(stp__wordset_init(&ws, 2, 3, &err), STP_OK);
  uint32_t n;
  bool added;
  for (uint64_t k = 10; k < 13; k++)
    cr_assert_eq(stp__wordset_add(&ws, (uint32_t)(k % 2), k, stp__wordset_hash(k), &n, &added,
                                  &err), STP_OK);
  cr_assert_eq(stp__wordset_add(&ws, 0, 14, stp__wordset_hash(14), &n, &added, &err),
               STP_ELIMIT);
  cr_assert_eq(stp__wordset_add(&ws, 1, 11, stp__wordset_hash(11), &n, &added, &err), STP_OK);
  cr_assert_eq(n, 1);
  cr_assert_not(added);
  cr_assert_eq(ws.count, 3);
  stp__wordset_free(&ws);
  stp__wordset_free(&ws); /* freeing twice is harmless */
}
