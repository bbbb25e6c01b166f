/* testutil.c: RNG, random mappings and JSON loading for the test suites. */
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t trng_next(trng *r) {
  uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

double trng_uniform(trng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(trng_next(r) >> 11) * 0x1.0p-53;
}

size_t trng_int(trng *r, size_t lo, size_t hi) {
  return lo + (size_t)(trng_next(r) % (uint64_t)(hi - lo + 1));
}

stp_mapping *tgen_mapping_teams(trng *r, const size_t *teams, size_t nstages,
                                bool homogeneous_links) {
  size_t total = 0;
  for (size_t i = 0; i < nstages; i++)
    total += teams[i];
  size_t nlinks = 0;
  for (size_t i = 0; i + 1 < nstages && !homogeneous_links; i++)
    nlinks += teams[i] * teams[i + 1];
  stp_mapping *m;
  stp_error err;
  cr_assert_eq(stp__mapping_alloc(nstages, total, nlinks, total, &m, &err), STP_OK);
  m->name = stp__strdup("random");
  m->file = stp__strdup("random.json");
  for (size_t i = 0; i < nstages; i++) {
    m->stages[i].name = stp__asprintf("T%zu", i + 1);
    m->stages[i].work = trng_uniform(r, 1, 10);
    m->stages[i].output = trng_uniform(r, 1, 10);
  }
  size_t at = 0;
  for (size_t i = 0; i < nstages; i++) {
    m->team_off[i] = at;
    for (size_t k = 0; k < teams[i]; k++, at++) {
      m->procs[at].name = stp__asprintf("P%zu", at);
      m->procs[at].speed = trng_uniform(r, 1, 10);
      m->team[at] = at;
    }
  }
  m->team_off[nstages] = at;
  m->bandwidth = trng_uniform(r, 1, 10);
  size_t l = 0;
  for (size_t i = 0; i + 1 < nstages && !homogeneous_links; i++)
    for (size_t a = 0; a < teams[i]; a++)
      for (size_t b = 0; b < teams[i + 1]; b++)
        m->links[l++] = (stp_link){.from = m->team[m->team_off[i] + a],
                                   .to = m->team[m->team_off[i + 1] + b],
                                   .bandwidth = trng_uniform(r, 1, 10)};
  stp__mapping_finalize(m);
  return m;
}

stp_mapping *tgen_mapping(trng *r, const tgen *p) {
  size_t teams[64];
  cr_assert(p->nstages <= 64);
  for (size_t i = 0; i < p->nstages; i++)
    teams[i] = trng_int(r, 1, p->max_team);
  stp_mapping *m = tgen_mapping_teams(r, teams, p->nstages, p->homogeneous_links);
  m->model = p->model;
  return m;
}

int test_flag_cancel(void *flag) { return flag && atomic_load((atomic_int *)flag); }

stp_mapping *load_json(const char *json) {
  stp_mapping *m = NULL;
  stp_error err = {0};
  stp_status s = stp_mapping_load_string(json, strlen(json), "test.json", &m, &err);
  cr_assert_eq(s, STP_OK, "loading failed: %s", err.message);
  return m;
}

const char *load_json_error(const char *json, stp_status *status) {
  static stp_error err;
  stp_mapping *m = NULL;
  memset(&err, 0, sizeof err);
  *status = stp_mapping_load_string(json, strlen(json), "test.json", &m, &err);
  cr_assert_neq(*status, STP_OK, "loading should have failed");
  cr_assert_null(m);
  return err.message;
}
