/* redistribute.c: the public entry points of the redistribution family:
 * strategy names, options, and the one function that builds a schedule
 * with any strategy (heuristics.c, optimal.c) and checks it (schedule.c). */
#include "base/core.h"
#include "models/redistribute/heuristics.h"
#include "models/redistribute/optimal.h"
#include "models/redistribute/schedule.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"class", "stepwise", "greedy", "caterpillar", "optimal"};

const char *stp_redist_strategy_name(stp_redist_strategy s) {
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

stp_status stp_redist_strategy_parse(const char *name, stp_redist_strategy *out) {
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(name, names[i]) == 0) {
      *out = (stp_redist_strategy)i;
      return STP_OK;
    }
  return STP_EINVAL;
}

void stp_redist_options_init(stp_redist_options *o) {
  memset(o, 0, sizeof *o);
}

double stp_redist_matching_work(const stp_redist *rd) {
  double k = (double)(rd->P < rd->Q ? rd->P : rd->Q);
  return (double)rd->ns_opt * k * ((double)rd->nmsg + (double)rd->P + (double)rd->Q);
}

/* stepwise and greedy run only when their estimated work is within the
 * limit: refused at once, not after minutes. */
static stp_status check_work(const stp_redist *rd, const stp_redist_options *o, const char *name,
                             stp_error *err) {
  double limit = o->max_work > 0 ? o->max_work : STP_REDIST_DEFAULT_MAX_WORK;
  double work = stp_redist_matching_work(rd);
  if (work <= limit)
    return STP_OK;
  uint64_t need = stp__u64_sat(work);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_WORK, need, stp__u64_sat(limit), need},
                         "%s: about %.3g elementary steps (ns_opt = %llu matchings of up to %llu "
                         "messages among %zu), above the limit of %.3g; the class and "
                         "caterpillar strategies take no search",
                         name, work, (unsigned long long)rd->ns_opt,
                         (unsigned long long)(rd->P < rd->Q ? rd->P : rd->Q), rd->nmsg, limit);
}

/* optimal: the incumbent is the better of stepwise (always within the step
 * limit, since its NS is ns_opt) and greedy when greedy fits the limit. */
static stp_status optimal(const stp_redist *rd, const stp_redist_options *o, uint32_t *step,
                          uint64_t *ns, stp__redist_search *stats, stp_error *err) {
  if (o->max_steps && o->max_steps < rd->ns_opt)
    return stp__fail(err, STP_EINVAL, "optimal: no schedule has at most %llu steps: a "
                     "processor has %llu messages (ns_opt)", (unsigned long long)o->max_steps,
                     (unsigned long long)rd->ns_opt);
  STP_CHECK(check_work(rd, o, "optimal (starting from stepwise and greedy)", err));
  uint32_t *alt = stp__malloc_array(rd->nmsg + 1, sizeof *alt);
  if (!alt)
    return stp__oom(err, "optimal schedule");
  uint64_t ns1, ns2, tc1 = 0, tc2 = 0;
  stp_status s = stp__redist_matchings(rd, 1, &o->control, step, &ns1, err);
  if (s == STP_OK)
    s = stp__redist_matchings(rd, 0, &o->control, alt, &ns2, err);
  if (s == STP_OK) {
    uint64_t *c1 = stp__calloc((size_t)(ns1 + ns2 + 2), sizeof *c1), *c2 = c1 ? c1 + ns1 + 1 : NULL;
    if (!c1)
      s = stp__oom(err, "optimal schedule");
    for (size_t k = 0; s == STP_OK && k < rd->nmsg; k++) {
      c1[step[k]] = rd->mlen[k] > c1[step[k]] ? rd->mlen[k] : c1[step[k]];
      c2[alt[k]] = rd->mlen[k] > c2[alt[k]] ? rd->mlen[k] : c2[alt[k]];
    }
    for (uint64_t k = 0; s == STP_OK && k < ns1; k++)
      tc1 += c1[k];
    for (uint64_t k = 0; s == STP_OK && k < ns2; k++)
      tc2 += c2[k];
    free(c1);
  }
  if (s == STP_OK) {
    bool greedy_better = (!o->max_steps || ns2 <= o->max_steps) &&
                         (tc2 < tc1 || (tc2 == tc1 && ns2 < ns1));
    if (greedy_better) {
      memcpy(step, alt, rd->nmsg * sizeof *step);
      ns1 = ns2;
      tc1 = tc2;
    }
    memcpy(alt, step, rd->nmsg * sizeof *alt);
    s = stp__redist_optimal(rd, o, alt, ns1, tc1, step, ns, stats, err);
  }
  free(alt);
  return s;
}

stp_status stp_redist_schedule_new(const stp_redist *rd, stp_redist_strategy strategy,
                                   const stp_redist_options *o, stp_redist_schedule **out,
                                   stp_error *err) {
  *out = NULL;
  stp_redist_options def;
  if (!o) {
    stp_redist_options_init(&def);
    o = &def;
  }
  uint32_t *step = stp__malloc_array(rd->nmsg + 1, sizeof *step);
  if (!step)
    return stp__oom(err, "schedule");
  uint64_t ns = 0;
  stp__redist_search stats = {0};
  stp_status s;
  switch (strategy) {
  case STP_REDIST_CLASS:
    s = stp__redist_class(rd, step, &ns, err);
    break;
  case STP_REDIST_STEPWISE:
  case STP_REDIST_GREEDY:
    s = check_work(rd, o, stp_redist_strategy_name(strategy), err);
    if (s == STP_OK)
      s = stp__redist_matchings(rd, strategy == STP_REDIST_STEPWISE, &o->control, step, &ns, err);
    break;
  case STP_REDIST_CATERPILLAR:
    s = stp__redist_caterpillar(rd, step, &ns, err);
    break;
  case STP_REDIST_OPTIMAL:
    s = optimal(rd, o, step, &ns, &stats, err);
    break;
  default:
    s = stp__fail(err, STP_EINVAL, "unknown strategy %d", (int)strategy);
  }
  if (s == STP_OK)
    s = stp__redist_schedule_from_steps(rd, strategy, step, ns,
                                        strategy == STP_REDIST_CATERPILLAR, out, err);
  if (s == STP_OK) {
    (*out)->lower_bound = stats.lower_bound;
    (*out)->profiles = stats.profiles;
    (*out)->nodes = stats.nodes;
  }
  free(step);
  return s;
}

void stp_redist_schedule_search(const stp_redist_schedule *sc, uint64_t *lower_bound,
                                uint64_t *profiles, uint64_t *nodes) {
  *lower_bound = sc->lower_bound;
  *profiles = sc->profiles;
  *nodes = sc->nodes;
}
