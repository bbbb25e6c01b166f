/* teg.h: the timed event graph of a mapping (docs/design.md section 2, paper
 * section 3): R = lcm(R_i) rows, 2N-1 columns; transition (j, c) is node
 * j*(2N-1)+c; places are edges whose duration is the firing time of their
 * input transition and whose token count is the initial marking. */
#ifndef STP_TEG_H
#define STP_TEG_H

#include "models/pipeline/mapping.h"
#include "solvers/digraph.h"

typedef struct stp_teg {
  const stp_mapping *map; /* borrowed: the platform (stages, processors, links) */
  stp_teams teams;        /* borrowed: the teams it was built for */
  stp_model model;
  uint64_t nrows;  /* R */
  uint32_t ncols;  /* 2N - 1 */
  double *time;    /* firing time per transition */
  stp_digraph *g;    /* places */
} stp_teg;

/* Each function on a mapping m has a twin on (platform m, teams tm) for
 * teams other than m's own (stp_teams, mapping.h). */
/* Places of the full event graph (UINT64_MAX when the lcm overflows). */
uint64_t stp__teg_place_count(const stp_mapping *m, stp_model model);
uint64_t stp__teg_place_count_teams(const stp_mapping *m, const stp_teams *tm, stp_model model);
/* STP_ELIMIT when building the full event graph would need more than
 * `budget` bytes (an estimate from its sizes, before anything is built). */
stp_status stp__teg_check_memory(const stp_mapping *m, stp_model model, uint64_t budget,
                                 stp_error *err);
stp_status stp__teg_check_memory_teams(const stp_mapping *m, const stp_teams *tm,
                                       stp_model model, uint64_t budget, stp_error *err);
/* STP_ELIMIT (with the sizes) when the full event graph would exceed
 * max_transitions: what stp__teg_build checks first, in O(N). */
stp_status stp__teg_check_size(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                               stp_error *err);
stp_status stp__teg_check_size_teams(const stp_mapping *m, const stp_teams *tm, stp_model model,
                                     uint64_t max_transitions, stp_error *err);
/* Build the full event graph; STP_ELIMIT when it would exceed
 * max_transitions transitions (or when R overflows). */
stp_status stp__teg_build(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                          stp_teg **out, stp_error *err);
stp_status stp__teg_build_teams(const stp_mapping *m, const stp_teams *tm, stp_model model,
                                uint64_t max_transitions, stp_teg **out, stp_error *err);
void stp__teg_free(stp_teg *t);

/* Processor running column c of row j of the teams tm: the computing
 * processor for even c, the sender for odd c (the receiver is returned in
 * *to, else SIZE_MAX). */
size_t stp__teg_processor(const stp_teams *tm, uint64_t row, uint32_t col, size_t *to);
/* "row 3, P1 -> P4 (F2)" style label of a transition, for messages and dot. */
void stp__teg_label(const stp_teg *t, uint32_t node, char *buf, size_t n);

#endif /* STP_TEG_H */
