/* movestore.h: the moves of a Markov chain in compact form, as a
 * breadth-first enumeration writes them: states are numbered in discovery
 * order, so the states of one depth are consecutive (a "band"), and each
 * state's row lists its moves as a 32-bit target and a label whose rate is
 * stored once per label (a firing transition: every move it labels has the
 * same rate).  A move costs 5 bytes (labels of 1 byte, up to 256 labels),
 * 6 (2 bytes, up to 65536) or more (3 or 4 bytes for the event graphs of
 * large mappings), a state 2 bytes of out-degree, against 20
 * bytes per move in an stp_csr with its event array.  Rows are read in
 * order only: row offsets are kept per band, not per state.
 * stationary_bands.h solves such a chain; stp__movestore_to_csr hands it to
 * the general solvers. */
#ifndef STP_MOVESTORE_H
#define STP_MOVESTORE_H

#include "solvers/sparse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_MOVESTORE_MAX_DEGREE UINT16_MAX

typedef struct stp_movestore {
  uint64_t nstates;   /* rows written */
  uint64_t nmoves;
  uint16_t *deg;      /* per state: moves in its row */
  uint32_t *to;       /* per move: target state */
  uint8_t *label;     /* per move: label_bytes bytes (little-endian) */
  unsigned label_bytes;
  uint32_t nlabels;
  double *rate;       /* per label */
  uint64_t nbands;
  uint64_t *band;      /* nbands: first state of each band */
  uint64_t *band_move; /* nbands: first move of each band */
  uint64_t cap_states, cap_moves, cap_bands;
} stp_movestore;

/* An empty store whose labels 0..nlabels-1 have the given rates (copied).
 * Labels take 1 to 4 bytes, as nlabels needs. */
stp_status stp__movestore_init(stp_movestore *ms, uint32_t nlabels, const double *rate,
                               stp_error *err);
void stp__movestore_free(stp_movestore *ms);

/* Appends a move to the row being written. */
stp_status stp__movestore_push(stp_movestore *ms, uint32_t to, uint32_t label, stp_error *err);
/* Closes the row being written (of state nstates).  new_band: this state
 * is the first of a new band (the first row always is).  STP_ELIMIT when
 * the row has more than STP_MOVESTORE_MAX_DEGREE moves. */
stp_status stp__movestore_end_row(stp_movestore *ms, uint64_t row_start_move, bool new_band,
                                  stp_error *err);

static inline uint32_t stp__movestore_label(const stp_movestore *ms, uint64_t e) {
  if (ms->label_bytes == 1)
    return ms->label[e];
  if (ms->label_bytes == 2)
    return (uint32_t)ms->label[2 * e] | (uint32_t)ms->label[2 * e + 1] << 8;
  const uint8_t *l = ms->label + ms->label_bytes * e; /* little-endian, 3 or 4 bytes */
  uint32_t v = 0;
  for (unsigned k = ms->label_bytes; k-- > 0;)
    v = v << 8 | l[k];
  return v;
}

/* Band b holds states band[b] .. stp__movestore_band_end(b) - 1. */
static inline uint64_t stp__movestore_band_end(const stp_movestore *ms, uint64_t b) {
  return b + 1 < ms->nbands ? ms->band[b + 1] : ms->nstates;
}
static inline uint64_t stp__movestore_band_move_end(const stp_movestore *ms, uint64_t b) {
  return b + 1 < ms->nbands ? ms->band_move[b + 1] : ms->nmoves;
}

/* The band of state s < nstates (binary search; hint: a band to try first). */
uint64_t stp__movestore_band_of(const stp_movestore *ms, uint64_t s, uint64_t hint);

/* The moves as an stp_csr (64-bit targets, a rate per move) and the label
 * of each move (allocated), for the general solvers and writers. */
stp_status stp__movestore_to_csr(const stp_movestore *ms, stp_csr **moves, uint32_t **label,
                                 stp_error *err);

/* Bytes held by the store (its arrays' used parts). */
uint64_t stp__movestore_bytes(const stp_movestore *ms);

#endif /* STP_MOVESTORE_H */
