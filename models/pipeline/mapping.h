/* mapping.h: the in-memory mapping (docs/design.md section 1): stages, processors,
 * links and teams, with the computation and communication times derived from
 * them.  Internal to libstreamtp; users see the opaque stp_mapping. */
#ifndef STP_MAPPING_H
#define STP_MAPPING_H

#include "solvers/laws.h"
#include "streamtp_pipeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STP_NO_STAGE SIZE_MAX

typedef struct stp_stage {
  char *name;
  double work;   /* w_i */
  double output; /* delta_i (unused for the last stage) */
} stp_stage;

typedef struct stp_processor {
  char *name;
  double speed;
  size_t stage; /* stage whose team holds it, STP_NO_STAGE if unused */
  size_t rank;  /* position in that team */
} stp_processor;

typedef struct stp_link {
  size_t from, to;
  double bandwidth;
} stp_link;

struct stp_mapping {
  char *name;
  char *file;
  stp_model model;
  size_t nstages;
  stp_stage *stages;
  size_t nprocs;
  stp_processor *procs;
  double bandwidth; /* default bandwidth, 0 when none is given */
  size_t nlinks;
  stp_link *links; /* sorted by (from, to) once finalised */
  size_t *team_off; /* nstages + 1 offsets into team */
  size_t *team;     /* processor indices, team by team */
  struct stp_law_table *laws; /* the file's "laws" key (below), NULL if absent */
};

/* Allocate an empty mapping with room for the given counts (names NULL). */
stp_status stp__mapping_alloc(size_t nstages, size_t nprocs, size_t nlinks, size_t team_total,
                              stp_mapping **out, stp_error *err);
/* Sort the links and index processors by team.  The caller has filled
 * stages, procs, links and team_off/team, and validated them. */
void stp__mapping_finalize(stp_mapping *m);

static inline size_t stp__team_size(const stp_mapping *m, size_t i) {
  return m->team_off[i + 1] - m->team_off[i];
}
static inline size_t stp__team_member(const stp_mapping *m, size_t i, size_t k) {
  return m->team[m->team_off[i] + k];
}

/* The index of the "links" entry of p -> q (in the sorted links), SIZE_MAX
 * when it has none (it takes the default bandwidth). */
size_t stp__link_entry(const stp_mapping *m, size_t p, size_t q);
/* Bandwidth of the link p -> q: its "links" entry, else the default; 0 when
 * neither exists. */
double stp__link_bandwidth(const stp_mapping *m, size_t p, size_t q);
/* c_p = w_i / s_p for p in team_i. */
double stp__comp_time(const stp_mapping *m, size_t p);
/* d_pq = delta_i / b_pq for p in team_i (q in team_(i+1)). */
double stp__comm_time(const stp_mapping *m, size_t p, size_t q);
/* out[j] = d(p, q[j]) for j < nq: one search for p's links, then short ones. */
void stp__comm_times_to(const stp_mapping *m, size_t p, const size_t *q, size_t nq, double *out);

/* Number of paths R = lcm(R_i); false when it exceeds 2^64 - 1. */
bool stp__mapping_lcm(const stp_mapping *m, uint64_t *out);

/* A mapping's teams apart from its platform (the stages, processors and
 * links of a stp_mapping, whose own teams are then not read): stage
 * i < nstages has the team member[off[i] .. off[i + 1]); nstages may be
 * fewer than the platform's stages (the pipeline cut after them).  The
 * event graph and the Strict analyses take (platform, teams), so that the
 * optimiser evaluates its candidates on the problem's platform as they are. */
typedef struct stp_teams {
  size_t nstages;
  const size_t *off, *member;
} stp_teams;
static inline stp_teams stp__teams_of(const stp_mapping *m) {
  return (stp_teams){m->nstages, m->team_off, m->team};
}
static inline size_t stp__teams_size(const stp_teams *t, size_t i) {
  return t->off[i + 1] - t->off[i];
}
static inline size_t stp__teams_member(const stp_teams *t, size_t i, size_t k) {
  return t->member[t->off[i] + k];
}
/* lcm of the team sizes; false when it exceeds 2^64 - 1. */
bool stp__teams_lcm(const stp_teams *t, uint64_t *out);

/* Transfer column i -> i+1: g = gcd(R_i, R_(i+1)), u = R_i/g, v = R_(i+1)/g.
 * Component j's senders are team_i[j + g*a], receivers team_(i+1)[j + g*b]. */
typedef struct stp_transfer_shape {
  size_t g, u, v;
} stp_transfer_shape;
stp_transfer_shape stp__transfer_shape(const stp_mapping *m, size_t i);
static inline size_t stp__transfer_sender(const stp_mapping *m, size_t i, size_t j,
                                          stp_transfer_shape sh, size_t a) {
  return stp__team_member(m, i, j + sh.g * a);
}
static inline size_t stp__transfer_receiver(const stp_mapping *m, size_t i, size_t j,
                                            stp_transfer_shape sh, size_t b) {
  return stp__team_member(m, i + 1, j + sh.g * b);
}

/* The "laws" key of a mapping file: NULL where the file sets nothing. */
typedef struct stp_law_table {
  size_t n;             /* stages */
  stp_law *dflt;        /* "default" */
  stp_law **stage;      /* n entries: law of the computations of stage i */
  stp_law **transfer;   /* n entries: law of the transfers of the output of stage i */
} stp_law_table;

stp_law_table *stp__law_table_alloc(size_t nstages);
void stp__law_table_free(stp_law_table *t);

#endif /* STP_MAPPING_H */
