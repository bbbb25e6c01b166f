/* laws_ph.c: the phase-type side of the law specs (laws.h): the Coxian
 * form of mean 1 that every phase-type law gets when it is parsed (exp,
 * erlang, hyperexp, coxian, ph and fits), and the parsing of the specs
 * that list phases, with '/' between the entries of a list:
 *
 *   hyperexp:p=P1/P2/...,rate=R1/R2/...   a mixture of exponentials
 *   coxian:rate=R1/.../Rn,next=Q1/.../Q(n-1)   phase i goes on w.p. Qi
 *   ph:alpha=A1/.../An,T=T11/T12/.../Tnn  any acyclic phase-type law
 *
 * The rates give the shape only: every law is scaled to mean 1, and the
 * model's mean times scale it again.  Errors name the law and the entry. */
#include "solvers/laws.h"

#include "base/core.h"
#include "base/numfmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_KEYS 2

/* The lists of one spec: up to LIST_KEYS keys, each with its numbers. */
typedef struct lists {
  const char *spec;
  const char *key[LIST_KEYS]; /* the keys this law takes */
  size_t n[LIST_KEYS];
  double v[LIST_KEYS][STP_PH_MAX_LIST * STP_PH_MAX_LIST];
  bool seen[LIST_KEYS];
} lists;

static bool number(const char *text, size_t len, double *out) {
  char buf[65];
  if (len == 0 || len >= sizeof buf || text[0] == ' ')
    return false;
  memcpy(buf, text, len);
  buf[len] = '\0';
  errno = 0;
  char *end;
  double v = stp__strtod(buf, &end);
  if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(v))
    return false;
  *out = v;
  return true;
}

static stp_status one_list(lists *l, size_t k, const char *value, size_t len, stp_error *err) {
  size_t cap = sizeof l->v[k] / sizeof l->v[k][0];
  const char *at = value, *end = value + len;
  while (at <= end) {
    const char *slash = memchr(at, '/', (size_t)(end - at));
    size_t n = slash ? (size_t)(slash - at) : (size_t)(end - at);
    if (l->n[k] == cap)
      return stp__fail(err, STP_EINVAL, "law \"%s\": %s has more than %zu entries", l->spec,
                       l->key[k], cap);
    if (!number(at, n, &l->v[k][l->n[k]]))
      return stp__fail(err, STP_EINVAL, "law \"%s\": %s entry %zu: \"%.*s\" is not a finite "
                       "number (lists are separated by '/')", l->spec, l->key[k], l->n[k] + 1,
                       (int)n, at);
    l->n[k]++;
    at = slash ? slash + 1 : end + 1;
  }
  return STP_OK;
}

/* params: "key=LIST,key=LIST"; every key of l must come once. */
static stp_status parse_lists(lists *l, const char *params, const char *example,
                              stp_error *err) {
  if (!params || !params[0])
    return stp__fail(err, STP_EINVAL, "law \"%s\": missing parameters (e.g. %s)", l->spec,
                     example);
  for (const char *at = params; at;) {
    const char *comma = strchr(at, ',');
    size_t len = comma ? (size_t)(comma - at) : strlen(at);
    const char *eq = memchr(at, '=', len);
    if (!eq || eq == at)
      return stp__fail(err, STP_EINVAL, "law \"%s\": \"%.*s\" is not of the form NAME=LIST "
                       "(e.g. %s)", l->spec, (int)len, at, example);
    size_t klen = (size_t)(eq - at), k = 0;
    while (k < LIST_KEYS && l->key[k] && !(strlen(l->key[k]) == klen &&
                                           strncmp(l->key[k], at, klen) == 0))
      k++;
    if (k == LIST_KEYS || !l->key[k])
      return stp__fail(err, STP_EINVAL, "law \"%s\": unknown parameter \"%.*s\" (e.g. %s)",
                       l->spec, (int)klen, at, example);
    if (l->seen[k])
      return stp__fail(err, STP_EINVAL, "law \"%s\": parameter %s is given twice", l->spec,
                       l->key[k]);
    l->seen[k] = true;
    STP_CHECK(one_list(l, k, eq + 1, len - klen - 1, err));
    at = comma ? comma + 1 : NULL;
  }
  return STP_OK;
}

static stp_status missing(const lists *l, size_t k, const char *example, stp_error *err) {
  return stp__fail(err, STP_EINVAL, "law \"%s\": missing parameter %s (e.g. %s)", l->spec,
                   l->key[k], example);
}

/* ---- the three list laws ---------------------------------------------------------- */

static stp_status positive_rates(const lists *l, size_t k, stp_error *err) {
  for (size_t i = 0; i < l->n[k]; i++)
    if (!(l->v[k][i] > 0))
      return stp__fail(err, STP_EINVAL, "law \"%s\": %s entry %zu is %g (rates are > 0)",
                       l->spec, l->key[k], i + 1, l->v[k][i]);
  if (l->n[k] > STP_PH_MAX_LIST)
    return stp__fail(err, STP_EINVAL, "law \"%s\": %zu phases (at most %d)", l->spec, l->n[k],
                     STP_PH_MAX_LIST);
  return STP_OK;
}

#define HYPEREXP_EXAMPLE "hyperexp:p=0.9/0.1,rate=2/0.2"
#define COXIAN_EXAMPLE "coxian:rate=3/1,next=0.4"
#define PH_EXAMPLE "ph:alpha=0.5/0.5,T=-2/1/0/-1"

static stp_status hyperexp_lists(stp_law *law, const char *params, lists *l, stp_error *err) {
  STP_CHECK(parse_lists(l, params, HYPEREXP_EXAMPLE, err));
  for (size_t k = 0; k < 2; k++)
    if (!l->seen[k])
      return missing(l, k, HYPEREXP_EXAMPLE, err);
  if (l->n[0] != l->n[1])
    return stp__fail(err, STP_EINVAL, "law \"%s\": %zu probabilities but %zu rates", law->spec,
                     l->n[0], l->n[1]);
  STP_CHECK(positive_rates(l, 1, err));
  size_t n = l->n[0];
  double *T = stp__calloc(n * n, sizeof *T);
  if (!T)
    return stp__oom(err, "parsing a law");
  for (size_t i = 0; i < n; i++)
    T[i * n + i] = -l->v[1][i];
  char what[STP_ERROR_MAX / 2];
  snprintf(what, sizeof what, "law \"%s\"", law->spec);
  stp_status s = stp__coxian_from_aph(n, l->v[0], T, &law->ph, what, err);
  free(T);
  return s;
}

static stp_status coxian_lists(stp_law *law, const char *params, lists *l, stp_error *err) {
  STP_CHECK(parse_lists(l, params, COXIAN_EXAMPLE, err));
  if (!l->seen[0])
    return missing(l, 0, COXIAN_EXAMPLE, err);
  STP_CHECK(positive_rates(l, 0, err));
  size_t n = l->n[0];
  if (l->n[1] + 1 != n && !(n == 1 && !l->seen[1]))
    return stp__fail(err, STP_EINVAL, "law \"%s\": %zu rates need %zu probabilities of going "
                     "on (next), got %zu", law->spec, n, n - 1, l->n[1]);
  size_t used = 1; /* phases reached: up to the first next of 0 */
  for (size_t i = 0; i + 1 < n; i++) {
    double q = l->v[1][i];
    if (!(q >= 0 && q <= 1))
      return stp__fail(err, STP_EINVAL, "law \"%s\": next entry %zu is %g (a probability, in "
                       "[0, 1])", law->spec, i + 1, q);
    if (used == i + 1 && q > 0)
      used = i + 2;
  }
  STP_CHECK(stp__coxian_alloc(&law->ph, (uint32_t)used, err));
  for (size_t i = 0; i < used; i++) {
    law->ph.rate[i] = l->v[0][i];
    law->ph.next[i] = i + 1 < used ? l->v[1][i] : 0;
  }
  return STP_OK;
}

static stp_status ph_lists(stp_law *law, const char *params, lists *l, stp_error *err) {
  STP_CHECK(parse_lists(l, params, PH_EXAMPLE, err));
  for (size_t k = 0; k < 2; k++)
    if (!l->seen[k])
      return missing(l, k, PH_EXAMPLE, err);
  size_t n = l->n[0];
  if (n > STP_PH_MAX_LIST)
    return stp__fail(err, STP_EINVAL, "law \"%s\": %zu phases (at most %d)", law->spec, n,
                     STP_PH_MAX_LIST);
  if (l->n[1] != n * n)
    return stp__fail(err, STP_EINVAL, "law \"%s\": %zu initial probabilities need a %zu x %zu "
                     "sub-generator T (%zu entries, row by row), got %zu entries", law->spec, n,
                     n, n, n * n, l->n[1]);
  char what[STP_ERROR_MAX / 2];
  snprintf(what, sizeof what, "law \"%s\"", law->spec);
  return stp__coxian_from_aph(n, l->v[0], l->v[1], &law->ph, what, err);
}

stp_status stp__law_parse_lists(stp_law *law, const char *name, const char *params,
                                stp_error *err) {
  lists *l = calloc(1, sizeof *l); /* 64 KiB: not on a thread's stack */
  if (!l)
    return stp__oom(err, "parsing a law");
  l->spec = law->spec;
  stp_status s;
  if (strcmp(name, "hyperexp") == 0) {
    l->key[0] = "p", l->key[1] = "rate";
    s = hyperexp_lists(law, params, l, err);
  } else if (strcmp(name, "coxian") == 0) {
    l->key[0] = "rate", l->key[1] = "next";
    s = coxian_lists(law, params, l, err);
  } else {
    l->key[0] = "alpha", l->key[1] = "T";
    s = ph_lists(law, params, l, err);
  }
  free(l);
  if (s == STP_OK)
    stp__coxian_scale_to_mean(&law->ph);
  return s == STP_OK ? stp__coxian_check_rates(&law->ph, law->spec, err) : s;
}

/* ---- the Coxian form of the other phase-type laws ---------------------------------- */

stp_status stp__law_set_coxian(stp_law *law, stp_error *err) {
  switch (law->kind) {
  case STP_LAW_EXP:
    STP_CHECK(stp__coxian_alloc(&law->ph, 1, err));
    law->ph.rate[0] = 1;
    return STP_OK;
  case STP_LAW_ERLANG:
    if (law->param[0] > STP_PH_MAX_PHASES)
      return STP_OK; /* a law for simulation only; stp__law_coxian says why */
    return stp__coxian_erlang((uint32_t)law->param[0], &law->ph, err);
  case STP_LAW_HYPEREXP: { /* c[0] = p1, c[1] and c[2] the rates (laws.c) */
    double alpha[2] = {law->c[0], 1 - law->c[0]}, T[4] = {-law->c[1], 0, 0, -law->c[2]};
    STP_CHECK(stp__coxian_from_aph(2, alpha, T, &law->ph, "hyperexp", err));
    stp__coxian_scale_to_mean(&law->ph);
    return STP_OK;
  }
  default:
    return STP_OK;
  }
}

stp_status stp__law_coxian(const stp_law *law, const char *what, const stp_coxian **out,
                           stp_error *err) {
  *out = NULL;
  if (law->ph.n) {
    *out = &law->ph;
    return STP_OK;
  }
  if (law->kind == STP_LAW_ERLANG)
    return stp__fail(err, STP_EINVAL, "%s%slaw \"%s\" has more than %d phases: no exact chain "
                     "(simulate it)", what ? what : "", what ? ": " : "", law->spec,
                     STP_PH_MAX_PHASES);
  return stp__fail(err, STP_EINVAL, "%s%slaw \"%s\" is not phase-type: exact values exist for "
                   "exp, erlang, hyperexp, coxian and ph laws (ph:fit=FILE fits samples)",
                   what ? what : "", what ? ": " : "", law->spec);
}

size_t stp_law_phases(const stp_law *law) { return law ? law->ph.n : 0; }

int stp_law_fit_quality(const stp_law *law, stp_law_fit *out) {
  if (!law || !law->fit)
    return 0;
  if (out)
    *out = *law->fit;
  return 1;
}
