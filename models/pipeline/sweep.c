/* sweep.c: what-if sweeps (streamtp_explain.h): the parsing of a varied
 * quantity and the evaluation of one point, on a view of the mapping whose
 * stages, processors and links are copies (names and laws borrowed), so
 * that the caller's mapping is never touched and points may run in any
 * order.  The drivers (the CLI's `sweep`, Python's streamtp.sweep) loop
 * over the points and write the records. */
#include "base/core.h"
#include "base/numfmt.h"
#include "models/pipeline/mapping.h"
#include "solvers/laws.h"
#include "streamtp_explain.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STP_VARY_DEFAULT_POINTS 11
#define STP_VARY_MAX_POINTS 100000

void stp_vary_free(stp_vary *v) {
  if (!v)
    return;
  free(v->spec);
  free(v->label);
  free(v->name);
  free(v->law_family);
  free(v->law_param);
  free(v);
}

static bool parse_number(const char *s, size_t n, double *out) {
  char buf[64], *end;
  if (n == 0 || n >= sizeof buf)
    return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  errno = 0;
  *out = stp__strtod(buf, &end);
  return *end == 0 && errno == 0 && isfinite(*out);
}

/* "FROM..TO[:N][:log]" into v. */
static stp_status parse_range(const char *spec, const char *r, stp_vary *v, stp_error *err) {
  const char *dots = strstr(r, "..");
  if (!dots)
    return stp__fail(err, STP_EINVAL, "vary %s: the range must read FROM..TO[:N][:log]", spec);
  const char *to = dots + 2, *colon = strchr(to, ':');
  size_t tolen = colon ? (size_t)(colon - to) : strlen(to);
  if (!parse_number(r, (size_t)(dots - r), &v->from) || !parse_number(to, tolen, &v->to))
    return stp__fail(err, STP_EINVAL, "vary %s: FROM and TO must be finite numbers", spec);
  while (colon) {
    const char *opt = colon + 1;
    colon = strchr(opt, ':');
    size_t len = colon ? (size_t)(colon - opt) : strlen(opt);
    double n;
    if (len == 3 && strncmp(opt, "log", 3) == 0) {
      v->log = 1;
    } else if (parse_number(opt, len, &n) && n == floor(n) && n >= 1 &&
               n <= STP_VARY_MAX_POINTS) {
      v->n = (size_t)n;
    } else {
      return stp__fail(err, STP_EINVAL,
                       "vary %s: \"%.*s\" is neither a number of points (1 to %d) nor log",
                       spec, (int)len, opt, STP_VARY_MAX_POINTS);
    }
  }
  if (v->log && !(v->from > 0 && v->to > 0))
    return stp__fail(err, STP_EINVAL, "vary %s: a log range needs FROM and TO > 0", spec);
  if (v->n == 1 && v->from != v->to)
    return stp__fail(err, STP_EINVAL, "vary %s: one point needs FROM = TO", spec);
  return STP_OK;
}

static stp_status parse_kind(const char *spec, const char *kind, size_t len, stp_vary *v,
                             stp_error *err) {
  static const char *const names[] = {"speed", "bandwidth", "work", "output"};
  for (int k = 0; k < 4; k++)
    if (strlen(names[k]) == len && strncmp(kind, names[k], len) == 0) {
      v->kind = (stp_param_kind)k;
      return STP_OK;
    }
  return stp__fail(err, STP_EINVAL,
                   "vary %s: \"%.*s\" is not speed, bandwidth, work, output or law", spec,
                   (int)len, kind);
}

/* "law=FAMILY:PARAM=FROM..TO[:N]" */
static stp_status parse_law(const char *spec, stp_vary *v, stp_error *err) {
  const char *fam = spec + 4, *colon = strchr(fam, ':'), *eq = colon ? strchr(colon, '=') : NULL;
  if (!colon || !eq || colon == fam || eq == colon + 1)
    return stp__fail(err, STP_EINVAL,
                     "vary %s: a law range reads law=FAMILY:PARAM=FROM..TO (law=erlang:k=1..8)",
                     spec);
  v->is_law = 1;
  v->law_family = stp__asprintf("%.*s", (int)(colon - fam), fam);
  v->law_param = stp__asprintf("%.*s", (int)(eq - colon - 1), colon + 1);
  v->label = stp__asprintf("law:%s:%s", v->law_family, v->law_param);
  if (!v->law_family || !v->law_param || !v->label)
    return stp__oom(err, "parsing a vary spec");
  STP_CHECK(parse_range(spec, eq + 1, v, err));
  bool integer = strcmp(v->law_param, "k") == 0;
  if (integer && (v->from != floor(v->from) || v->to != floor(v->to)))
    return stp__fail(err, STP_EINVAL, "vary %s: k takes integers", spec);
  if (integer && v->n == 0 && fabs(v->to - v->from) < STP_VARY_MAX_POINTS)
    v->n = (size_t)fabs(v->to - v->from) + 1;
  return STP_OK;
}

stp_status stp_vary_parse(const char *spec, stp_vary **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_vary_parse: out is NULL");
  *out = NULL;
  if (!spec)
    return stp__fail(err, STP_EINVAL, "stp_vary_parse: spec is NULL");
  stp_vary *v = calloc(1, sizeof *v);
  if (!v || !(v->spec = stp__strdup(spec))) {
    stp_vary_free(v);
    return stp__oom(err, "parsing a vary spec");
  }
  stp_status s;
  if (strncmp(spec, "law=", 4) == 0) {
    s = parse_law(spec, v, err);
  } else {
    const char *colon = strchr(spec, ':'), *eq = strrchr(spec, '=');
    if (!colon || !eq || eq < colon || eq == colon + 1)
      s = stp__fail(err, STP_EINVAL,
                    "vary %s: expected KIND:NAME=FROM..TO[:N][:log] (speed:P1=1..10)", spec);
    else
      s = parse_kind(spec, spec, (size_t)(colon - spec), v, err);
    if (s == STP_OK) {
      v->name = stp__asprintf("%.*s", (int)(eq - colon - 1), colon + 1);
      v->label = stp__asprintf("%.*s", (int)(eq - spec), spec);
      s = v->name && v->label ? parse_range(spec, eq + 1, v, err)
                              : stp__oom(err, "parsing a vary spec");
    }
    if (s == STP_OK && !(v->from > 0 && v->to > 0))
      s = stp__fail(err, STP_EINVAL, "vary %s: a %s must stay > 0", spec,
                    stp_param_kind_name(v->kind));
  }
  if (s == STP_OK && v->n == 0)
    v->n = v->from == v->to ? 1 : STP_VARY_DEFAULT_POINTS;
  if (s != STP_OK) {
    stp_vary_free(v);
    return s;
  }
  *out = v;
  return STP_OK;
}

double stp_vary_value(const stp_vary *v, size_t k) {
  if (v->n <= 1)
    return v->from;
  if (k + 1 == v->n)
    return v->to; /* exactly, not to rounding */
  double t = (double)k / (double)(v->n - 1);
  return v->log ? v->from * pow(v->to / v->from, t) : v->from + t * (v->to - v->from);
}

/* ---- one point ---------------------------------------------------------------------- */
typedef struct view {
  stp_mapping m;
  stp_stage *stages;
  stp_processor *procs;
  stp_link *links;
} view;

static stp_status view_of(const stp_mapping *m, view *w, stp_error *err) {
  w->m = *m;
  w->stages = stp__malloc_array(m->nstages, sizeof *w->stages);
  w->procs = stp__malloc_array(m->nprocs, sizeof *w->procs);
  w->links = stp__malloc_array(m->nlinks ? m->nlinks : 1, sizeof *w->links);
  if (!w->stages || !w->procs || !w->links)
    return stp__oom(err, "a sweep point");
  memcpy(w->stages, m->stages, m->nstages * sizeof *w->stages);
  memcpy(w->procs, m->procs, m->nprocs * sizeof *w->procs);
  memcpy(w->links, m->links, m->nlinks * sizeof *w->links);
  w->m.stages = w->stages;
  w->m.procs = w->procs;
  w->m.links = w->links;
  return STP_OK;
}

static void view_free(view *w) {
  free(w->stages);
  free(w->procs);
  free(w->links);
}

static size_t stage_named(const stp_mapping *m, const char *name) {
  for (size_t i = 0; i < m->nstages; i++)
    if (strcmp(m->stages[i].name, name) == 0)
      return i;
  return SIZE_MAX;
}

static size_t proc_named(const stp_mapping *m, const char *name) {
  for (size_t p = 0; p < m->nprocs; p++)
    if (strcmp(m->procs[p].name, name) == 0)
      return p;
  return SIZE_MAX;
}

/* The parameter a vary names in the view. */
static stp_status param_of(const stp_vary *v, view *w, double **out, stp_error *err) {
  stp_mapping *m = &w->m;
  const char *file = m->file;
  size_t i;
  switch (v->kind) {
  case STP_PARAM_SPEED:
    if ((i = proc_named(m, v->name)) == SIZE_MAX)
      return stp__fail(err, STP_EINVAL, "vary %s: %s has no processor \"%s\"", v->spec, file,
                       v->name);
    *out = &w->procs[i].speed;
    return STP_OK;
  case STP_PARAM_WORK:
  case STP_PARAM_OUTPUT:
    if ((i = stage_named(m, v->name)) == SIZE_MAX)
      return stp__fail(err, STP_EINVAL, "vary %s: %s has no stage \"%s\"", v->spec, file,
                       v->name);
    if (v->kind == STP_PARAM_OUTPUT && i + 1 == m->nstages)
      return stp__fail(err, STP_EINVAL, "vary %s: the output of the last stage is not sent",
                       v->spec);
    *out = v->kind == STP_PARAM_WORK ? &w->stages[i].work : &w->stages[i].output;
    return STP_OK;
  case STP_PARAM_BANDWIDTH:
    break;
  }
  if (strcmp(v->name, "default") == 0) {
    if (!(m->bandwidth > 0))
      return stp__fail(err, STP_EINVAL, "vary %s: %s has no default bandwidth", v->spec, file);
    *out = &m->bandwidth;
    return STP_OK;
  }
  const char *arrow = strstr(v->name, "->");
  for (size_t l = 0; arrow && l < m->nlinks; l++) {
    const char *from = m->procs[m->links[l].from].name, *to = m->procs[m->links[l].to].name;
    if (strlen(from) == (size_t)(arrow - v->name) && strncmp(v->name, from, strlen(from)) == 0 &&
        strcmp(arrow + 2, to) == 0) {
      *out = &w->links[l].bandwidth;
      return STP_OK;
    }
  }
  return stp__fail(err, STP_EINVAL,
                   "vary %s: %s has no link entry \"%s\" (FROM->TO of its \"links\"; links "
                   "without an entry take bandwidth:default)",
                   v->spec, file, v->name);
}

static char *join_critical(const stp_result *r) {
  if (r->ncritical == 0)
    return NULL;
  size_t len = 1;
  for (size_t k = 0; k < r->ncritical; k++)
    len += strlen(r->critical[k]) + 2;
  char *s = malloc(len);
  if (!s)
    return NULL;
  s[0] = 0;
  for (size_t k = 0; k < r->ncritical; k++) {
    if (k)
      strcat(s, ", ");
    strcat(s, r->critical[k]);
  }
  return s;
}

void stp_sweep_point_clear(stp_sweep_point *p) {
  if (!p)
    return;
  stp_result_free(p->result);
  stp_sim_result_free(p->sim);
  free(p->critical);
  memset(p, 0, sizeof *p);
}

/* Sets the point's values into the view (and its law, allocated into *law). */
static stp_status set_values(const stp_vary *const *vary, size_t nvary, const size_t *index,
                             view *w, stp_sweep_point *out, stp_law **law, stp_error *err) {
  for (size_t j = 0; j < nvary; j++) {
    const stp_vary *v = vary[j];
    if (index[j] >= v->n)
      return stp__fail(err, STP_EINVAL, "vary %s: point %zu of %zu", v->spec, index[j], v->n);
    double x = stp_vary_value(v, index[j]);
    out->vary[j] = x;
    if (v->is_law) {
      char spec[256];
      stp__snprintf(spec, sizeof spec, "%s:%s=%.17g", v->law_family, v->law_param, x);
      stp__law_free(*law);
      *law = NULL;
      STP_CHECK(stp__law_parse(spec, NULL, law, err));
      continue;
    }
    double *p = NULL;
    STP_CHECK(param_of(v, w, &p, err));
    *p = x;
  }
  return STP_OK;
}

stp_status stp_sweep_point_eval(const stp_mapping *m, stp_model model,
                                const stp_vary *const *vary, size_t nvary, const size_t *index,
                                const stp_options *o, const stp_sim_options *sim,
                                stp_sweep_point *out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_sweep_point_eval: out is NULL");
  memset(out, 0, sizeof *out);
  if (!m || !vary || !index || nvary < 1 || nvary > 2)
    return stp__fail(err, STP_EINVAL, "stp_sweep_point_eval: a mapping and 1 or 2 varies");
  stp_options defaults;
  if (!o) {
    stp_options_init(&defaults);
    o = &defaults;
  }
  out->nvary = nvary;
  view w = {0};
  stp_law *law = NULL;
  stp_status s = view_of(m, &w, err);
  if (s == STP_OK)
    s = set_values(vary, nvary, index, &w, out, &law, err);
  stp_options eo = *o;
  if (law)
    eo.law = law;
  if (s == STP_OK)
    s = stp_evaluate(&w.m, model, &eo, &out->result, err);
  if (s == STP_OK && out->result->ncritical && !(out->critical = join_critical(out->result)))
    s = stp__oom(err, "a sweep point");
  if (s == STP_OK && sim) {
    stp_sim_options so = *sim;
    if (law)
      so.law = law;
    s = stp_simulate(&w.m, model, &so, &out->sim, err);
  }
  stp__law_free(law);
  view_free(&w);
  if (s != STP_OK)
    stp_sweep_point_clear(out);
  return s;
}
