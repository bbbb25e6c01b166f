/* movestore.c: the compact move store of movestore.h.  The arrays grow by
 * half again when full: realloc moves a large block by remapping its pages
 * (no copy, no second block), and room that is never written costs no
 * memory. */
#include "solvers/movestore.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

stp_status stp__movestore_init(stp_movestore *ms, uint32_t nlabels, const double *rate,
                               stp_error *err) {
  memset(ms, 0, sizeof *ms);
  ms->nlabels = nlabels;
  ms->label_bytes = nlabels <= (UINT32_C(1) << 8) ? 1 : nlabels <= (UINT32_C(1) << 16) ? 2
                  : nlabels <= (UINT32_C(1) << 24) ? 3 : 4;
  ms->rate = stp__malloc_array(nlabels ? nlabels : 1, sizeof *ms->rate);
  ms->band = stp__malloc_array(2, sizeof *ms->band);
  ms->band_move = stp__malloc_array(2, sizeof *ms->band_move);
  if (!ms->rate || !ms->band || !ms->band_move) {
    stp__movestore_free(ms);
    return stp__oom(err, "allocating the moves of a Markov chain");
  }
  if (nlabels)
    memcpy(ms->rate, rate, nlabels * sizeof *rate);
  ms->cap_bands = 2;
  return STP_OK;
}

void stp__movestore_free(stp_movestore *ms) {
  if (!ms)
    return;
  free(ms->deg);
  free(ms->to);
  free(ms->label);
  free(ms->rate);
  free(ms->band);
  free(ms->band_move);
  memset(ms, 0, sizeof *ms);
}

/* Grow *p (of *cap items of `size` bytes) to hold `need` items. */
static bool grow(void **p, uint64_t *cap, uint64_t need, size_t size) {
  return stp__grow(p, cap, need, size, 4096);
}

stp_status stp__movestore_push(stp_movestore *ms, uint32_t to, uint32_t label, stp_error *err) {
  if (ms->nmoves == ms->cap_moves) {
    uint64_t cap = ms->cap_moves;
    void *t = ms->to, *l = ms->label;
    bool ok = grow(&t, &cap, ms->nmoves + 1, sizeof *ms->to);
    ms->to = t;
    cap = ms->cap_moves;
    ok = ok && grow(&l, &cap, ms->nmoves + 1, ms->label_bytes);
    ms->label = l;
    if (!ok)
      return stp__oom(err, "storing the moves of a Markov chain");
    ms->cap_moves = cap;
  }
  ms->to[ms->nmoves] = to;
  for (unsigned k = 0; k < ms->label_bytes; k++) /* little-endian */
    ms->label[ms->label_bytes * ms->nmoves + k] = (uint8_t)(label >> (8 * k));
  ms->nmoves++;
  return STP_OK;
}

stp_status stp__movestore_end_row(stp_movestore *ms, uint64_t row_start_move, bool new_band,
                                  stp_error *err) {
  uint64_t d = ms->nmoves - row_start_move;
  if (d > STP_MOVESTORE_MAX_DEGREE)
    return stp__fail(err, STP_ELIMIT, "state %llu has %llu moves, more than a compact move "
                     "store takes (%u)", (unsigned long long)ms->nstates,
                     (unsigned long long)d, (unsigned)STP_MOVESTORE_MAX_DEGREE);
  void *dg = ms->deg;
  bool ok = grow(&dg, &ms->cap_states, ms->nstates + 1, sizeof *ms->deg);
  ms->deg = dg;
  if (ok && (new_band || ms->nbands == 0)) {
    uint64_t cap = ms->cap_bands;
    void *b = ms->band, *bm = ms->band_move;
    ok = grow(&b, &cap, ms->nbands + 1, sizeof *ms->band);
    ms->band = b;
    cap = ms->cap_bands;
    ok = ok && grow(&bm, &cap, ms->nbands + 1, sizeof *ms->band_move);
    ms->band_move = bm;
    if (ok) {
      ms->cap_bands = cap;
      ms->band[ms->nbands] = ms->nstates;
      ms->band_move[ms->nbands] = row_start_move;
      ms->nbands++;
    }
  }
  if (!ok)
    return stp__oom(err, "storing the moves of a Markov chain");
  ms->deg[ms->nstates++] = (uint16_t)d;
  return STP_OK;
}

uint64_t stp__movestore_band_of(const stp_movestore *ms, uint64_t s, uint64_t hint) {
  if (hint < ms->nbands && ms->band[hint] <= s && s < stp__movestore_band_end(ms, hint))
    return hint;
  uint64_t lo = 0, hi = ms->nbands; /* the last band whose start is <= s */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (ms->band[mid] <= s)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

stp_status stp__movestore_to_csr(const stp_movestore *ms, stp_csr **moves, uint32_t **label,
                                 stp_error *err) {
  *label = NULL;
  STP_CHECK(stp__csr_alloc((int64_t)ms->nstates, (int64_t)ms->nstates, (int64_t)ms->nmoves,
                           moves, err));
  *label = stp__malloc_array(ms->nmoves ? ms->nmoves : 1, sizeof **label);
  if (!*label) {
    stp__csr_free(*moves);
    *moves = NULL;
    return stp__oom(err, "building a Markov chain");
  }
  stp_csr *a = *moves;
  uint64_t e = 0;
  for (uint64_t s = 0; s < ms->nstates; s++) {
    a->p[s] = (int64_t)e;
    for (uint64_t k = 0; k < ms->deg[s]; k++, e++) {
      uint32_t l = stp__movestore_label(ms, e);
      a->j[e] = ms->to[e];
      a->x[e] = ms->rate[l];
      (*label)[e] = l;
    }
  }
  a->p[ms->nstates] = (int64_t)e;
  return STP_OK;
}

uint64_t stp__movestore_bytes(const stp_movestore *ms) {
  return ms->nstates * sizeof *ms->deg + ms->nmoves * (sizeof *ms->to + ms->label_bytes) +
         2 * ms->nbands * sizeof *ms->band;
}
