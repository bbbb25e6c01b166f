/* strict_cycles.h: the markings of the Strict event graph as token
 * positions.  Every place of the Strict graph lies on exactly one
 * processor's cycle (its receive, compute and send actions over its rows),
 * and each cycle holds one token, always: so a reachable marking is, per
 * cycle, the position of its token, packed into bit fields of 64-bit words
 * (a 5x9 mapping's 14 cycles take 61 bits where its 135 places took three
 * words).  A transition lies on one cycle (a computation) or two (a
 * transfer: the sender's and the receiver's); it is enabled when the token
 * of each of its cycles stands just before it, so a marking enables at most
 * one transition per cycle and the enabling test costs O(cycles), not
 * O(transitions); firing moves those one or two tokens one step, an
 * addition to one or two words. */
#ifndef STP_STRICT_CYCLES_H
#define STP_STRICT_CYCLES_H

#include "models/pipeline/teg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The transition that a cycle's token stands before, and what else it
 * needs: that field (word, shift, mask) of the marking equals `pos`.  For a
 * transition on one cycle the test always holds (mask 0, pos 0); a
 * transition on two cycles is tested from its first cycle against the
 * second's token, and from its second cycle never holds (mask 0, pos 1),
 * so that each enabled transition is found once, without a branch. */
typedef struct stp_strict_candidate {
  uint64_t mask;
  uint32_t t;
  uint32_t pos;
  uint32_t word;
  uint8_t shift;
} stp_strict_candidate;

typedef struct stp_strict_cycles {
  uint32_t ncycles;
  uint32_t ntrans;
  size_t words;       /* 64-bit words per packed marking */
  /* Levels: when the graph is connected, two firing sequences that reach
   * the same marking differ by a whole number of firings of every
   * transition (the only T-invariants of a connected event graph), so
   * their lengths agree modulo ntrans, and the depth of a marking modulo
   * ntrans (its level) is the same along every path: a marking's successors
   * are all of the next level.  level_period is ntrans then, else 1. */
  uint64_t level_period;
  /* per cycle c */
  uint32_t *len;      /* places on the cycle (its transitions) */
  uint32_t *word;     /* its position field: word, shift and mask */
  uint8_t *shift;
  uint64_t *mask;     /* the field's mask, unshifted */
  uint32_t *init;     /* its token's position in the initial marking */
  uint64_t *first;    /* ncycles + 1: its rows in `enters` and `place` */
  uint32_t *enters;   /* per (c, x) at first[c] + x: the transition that the
                         place at position x enters */
  uint64_t *place;    /* per (c, x): that place, an edge of the graph */
  stp_strict_candidate *cand; /* per (c, x): the test of that transition */
  /* per transition t: its cycles (1 or 2; the second UINT32_MAX if none)
   * and the position of its input place on each; the additions that fire
   * it (word, delta; delta[1] 0 when one word suffices) */
  uint32_t (*cyc)[2];
  uint32_t (*pos)[2];
  uint32_t (*fire_word)[2];
  uint64_t (*fire_delta)[2];
} stp_strict_cycles;

/* The cycles of t's Strict graph, checked against its places: each place on
 * exactly one cycle, one token per cycle (STP_EINTERNAL otherwise).  The
 * fields are packed into the low word_bits bits of each word (64; fewer
 * only for tests, to have markings of several words on small graphs). */
stp_status stp__strict_cycles_init(stp_strict_cycles *sc, const stp_teg *t, unsigned word_bits,
                                   stp_error *err);
void stp__strict_cycles_free(stp_strict_cycles *sc);

/* Packs one token position per cycle (each below its cycle's length) into
 * key (sc->words words). */
void stp__strict_cycles_pack(const stp_strict_cycles *sc, const uint32_t *position,
                             uint64_t *key);

/* The position of cycle c's token in packed marking m. */
static inline uint32_t stp__strict_cycles_at(const stp_strict_cycles *sc, const uint64_t *m,
                                             uint32_t c) {
  return (uint32_t)((m[sc->word[c]] >> sc->shift[c]) & sc->mask[c]);
}

/* The transitions that m enables, in increasing order, into `out` (room for
 * sc->ncycles); returns how many. */
uint32_t stp__strict_cycles_enabled(const stp_strict_cycles *sc, const uint64_t *m,
                                    uint32_t *out);

/* The transitions that next = m with t fired enables, in increasing order,
 * into `out` (room for sc->ncycles), from those that m enables (`before`,
 * n of them, in increasing order, t among them); returns how many.  Only
 * the transitions of the one or two cycles that t moves can change: t
 * leaves the list and the next transition of each of these cycles may
 * join it.  O(n), against O(cycles) for stp__strict_cycles_enabled. */
uint32_t stp__strict_cycles_enabled_after(const stp_strict_cycles *sc, const uint32_t *before,
                                          uint32_t n, uint32_t t, const uint64_t *next,
                                          uint32_t *out);

/* m with enabled transition t fired, into next (sc->words words). */
static inline void stp__strict_cycles_fire(const stp_strict_cycles *sc, const uint64_t *m,
                                           uint32_t t, uint64_t *next) {
  for (size_t w = 0; w < sc->words; w++)
    next[w] = m[w];
  next[sc->fire_word[t][0]] += sc->fire_delta[t][0];
  next[sc->fire_word[t][1]] += sc->fire_delta[t][1];
}

/* The marking as one bit per place (edge) of the graph, into `places`
 * ((edges + 63) / 64 words, cleared first): for tests. */
void stp__strict_cycles_unpack(const stp_strict_cycles *sc, const uint64_t *m, uint64_t *places);

#endif /* STP_STRICT_CYCLES_H */
