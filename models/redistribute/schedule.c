/* schedule.c: schedules of a redistribution: construction from step
 * numbers, the published order, the validity check every strategy's output
 * goes through, and the public accessors. */
#include "models/redistribute/schedule.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

void stp_redist_schedule_free(stp_redist_schedule *sc) {
  if (!sc)
    return;
  free(sc->start);
  free(sc->msg);
  free(sc->cost);
  free(sc);
}

/* Order of steps by nonincreasing cost, ties by step number (stable). */
typedef struct step_key {
  uint64_t cost;
  uint32_t step;
} step_key;
static int by_cost(const void *a, const void *b) {
  const step_key *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->step < y->step ? -1 : x->step > y->step;
}

stp_status stp__redist_schedule_from_steps(const stp_redist *rd, stp_redist_strategy strategy,
                                           const uint32_t *step, uint64_t ns, bool keep_order,
                                           stp_redist_schedule **out, stp_error *err) {
  *out = NULL;
  for (size_t k = 0; k < rd->nmsg; k++)
    if (step[k] >= ns)
      return stp__fail(err, STP_EINTERNAL, "%s: message %u -> %u has step %u of %llu",
                       stp_redist_strategy_name(strategy), rd->from[k], rd->to[k], step[k],
                       (unsigned long long)ns);
  stp_redist_schedule *sc = stp__calloc(1, sizeof *sc);
  uint64_t *raw_cost = stp__calloc((size_t)ns + 1, sizeof *raw_cost);
  step_key *order = stp__malloc_array((size_t)ns + 1, sizeof *order);
  uint32_t *rank = stp__malloc_array((size_t)ns + 1, sizeof *rank);
  if (sc) {
    sc->start = stp__calloc((size_t)ns + 2, sizeof *sc->start);
    sc->msg = stp__malloc_array(rd->nmsg + 1, sizeof *sc->msg);
    sc->cost = stp__calloc((size_t)ns + 1, sizeof *sc->cost);
  }
  if (!sc || !raw_cost || !order || !rank || !sc->start || !sc->msg || !sc->cost) {
    free(raw_cost);
    free(order);
    free(rank);
    stp_redist_schedule_free(sc);
    return stp__oom(err, "schedule");
  }
  *sc = (stp_redist_schedule){.strategy = strategy, .ns = ns, .start = sc->start,
                              .msg = sc->msg, .cost = sc->cost, .rd = rd};
  size_t *count = (size_t *)sc->start; /* scratch until the offsets are built */
  for (size_t k = 0; k < rd->nmsg; k++) {
    count[step[k]]++;
    if (rd->mlen[k] > raw_cost[step[k]])
      raw_cost[step[k]] = rd->mlen[k];
  }
  uint64_t kept = 0;
  for (uint32_t i = 0; i < ns; i++)
    if (keep_order || count[i] > 0) /* empty steps only where the strategy defines them */
      order[kept++] = (step_key){raw_cost[i], i};
  for (uint32_t i = 0; i < ns; i++)
    rank[i] = UINT32_MAX;
  memset(sc->start, 0, ((size_t)ns + 2) * sizeof *sc->start);
  sc->ns = ns = kept;
  if (!keep_order)
    qsort(order, (size_t)ns, sizeof *order, by_cost);
  for (uint32_t i = 0; i < ns; i++) {
    rank[order[i].step] = i;
    sc->cost[i] = order[i].cost;
    sc->tc += sc->cost[i];
  }
  /* counting sort by rank; messages are row-major, so each step stays
   * sorted by sender */
  for (size_t k = 0; k < rd->nmsg; k++)
    sc->start[rank[step[k]] + 1]++;
  for (uint64_t i = 0; i < ns; i++)
    sc->start[i + 1] += sc->start[i];
  size_t *fill = stp__malloc_array((size_t)ns + 1, sizeof *fill);
  if (!fill) {
    free(raw_cost);
    free(order);
    free(rank);
    stp_redist_schedule_free(sc);
    return stp__oom(err, "schedule");
  }
  memcpy(fill, sc->start, (size_t)ns * sizeof *fill);
  for (size_t k = 0; k < rd->nmsg; k++)
    sc->msg[fill[rank[step[k]]]++] = k;
  free(fill);
  free(raw_cost);
  free(order);
  free(rank);
  stp_status s = stp_redist_schedule_check(rd, sc, err);
  if (s != STP_OK) {
    stp_redist_schedule_free(sc);
    return s;
  }
  *out = sc;
  return STP_OK;
}

stp_status stp_redist_schedule_check(const stp_redist *rd, const stp_redist_schedule *sc,
                                     stp_error *err) {
  const char *name = stp_redist_strategy_name(sc->strategy);
  if (sc->start[sc->ns] != rd->nmsg)
    return stp__fail(err, STP_EINTERNAL, "%s schedule: %zu messages scheduled, %zu in the grid",
                     name, sc->start[sc->ns], rd->nmsg);
  uint64_t *busy_row = stp__calloc((size_t)rd->P, sizeof *busy_row);
  uint64_t *busy_col = stp__calloc((size_t)rd->Q, sizeof *busy_col);
  unsigned char *seen = stp__calloc(rd->nmsg + 1, 1);
  if (!busy_row || !busy_col || !seen) {
    free(busy_row);
    free(busy_col);
    free(seen);
    return stp__oom(err, "schedule check");
  }
  stp_status s = STP_OK;
  uint64_t tc = 0;
  for (uint64_t k = 0; k < sc->ns && s == STP_OK; k++) {
    uint64_t cost = 0;
    for (size_t i = sc->start[k]; i < sc->start[k + 1] && s == STP_OK; i++) {
      size_t m = sc->msg[i];
      if (m >= rd->nmsg) {
        s = stp__fail(err, STP_EINTERNAL, "%s schedule: message %zu is not in the grid", name, m);
        break;
      }
      uint32_t p = rd->from[m], q = rd->to[m];
      if (seen[m])
        s = stp__fail(err, STP_EINTERNAL, "%s schedule: message %u -> %u appears twice", name,
                      p, q);
      else if (busy_row[p] == k + 1)
        s = stp__fail(err, STP_EINTERNAL, "%s schedule: sender %u sends twice in step %llu",
                      name, p, (unsigned long long)k);
      else if (busy_col[q] == k + 1)
        s = stp__fail(err, STP_EINTERNAL, "%s schedule: receiver %u receives twice in step %llu",
                      name, q, (unsigned long long)k);
      seen[m] = 1;
      busy_row[p] = busy_col[q] = k + 1;
      cost = rd->mlen[m] > cost ? rd->mlen[m] : cost;
    }
    if (s == STP_OK && cost != sc->cost[k])
      s = stp__fail(err, STP_EINTERNAL, "%s schedule: step %llu costs %llu, recorded %llu", name,
                    (unsigned long long)k, (unsigned long long)cost,
                    (unsigned long long)sc->cost[k]);
    tc += cost;
  }
  if (s == STP_OK && tc != sc->tc)
    s = stp__fail(err, STP_EINTERNAL, "%s schedule: total cost %llu, recorded %llu", name,
                  (unsigned long long)tc, (unsigned long long)sc->tc);
  free(busy_row);
  free(busy_col);
  free(seen);
  return s;
}

stp_redist_strategy stp_redist_schedule_strategy(const stp_redist_schedule *sc) {
  return sc->strategy;
}
uint64_t stp_redist_schedule_steps(const stp_redist_schedule *sc) { return sc->ns; }
uint64_t stp_redist_schedule_tc(const stp_redist_schedule *sc) { return sc->tc; }
uint64_t stp_redist_step_size(const stp_redist_schedule *sc, uint64_t k) {
  return k < sc->ns ? sc->start[k + 1] - sc->start[k] : 0;
}
uint64_t stp_redist_step_cost(const stp_redist_schedule *sc, uint64_t k) {
  return k < sc->ns ? sc->cost[k] : 0;
}
void stp_redist_step_message(const stp_redist_schedule *sc, uint64_t k, uint64_t i,
                             uint64_t *from, uint64_t *to, uint64_t *length) {
  size_t m = sc->msg[sc->start[k] + i];
  *from = sc->rd->from[m];
  *to = sc->rd->to[m];
  *length = sc->rd->mlen[m];
}
