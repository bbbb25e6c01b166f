/* build.c: stp_mapping_build (include/streamtp_build.h), a mapping from C
 * arrays.  It fills the same struct as the file reader and runs the same
 * checks (validate.c); only what a file cannot get wrong in the same way
 * (an index out of range, a NULL array) is checked here. */
#include "base/core.h"
#include "models/pipeline/mapping.h"
#include "models/pipeline/problem.h"
#include "models/pipeline/reader.h"
#include "models/pipeline/validate.h"
#include "streamtp_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stp_build_spec_init(stp_build_spec *spec) {
  if (spec)
    *spec = (stp_build_spec){.model = STP_MODEL_OVERLAP};
}

typedef struct builder {
  const char *label;
  stp_error *err;
  stp_check_sink sink;
  bool no_teams; /* a platform (stp__platform_build): team_sizes and teams both NULL */
} builder;

/* The sink of validate.c: "NAME: PATH: what", the path omitted when the
 * message already names it. */
static stp_status path_and_fail(const stp_check_sink *s, const stp_jpath *path, bool at_key,
                                const char *what) {
  (void)at_key;
  const builder *b = s->ctx;
  char p[256];
  stp__jpath_format(path, p, sizeof p);
  if (path->depth == 0 || strstr(what, p))
    return stp__fail(b->err, STP_EINVAL, "%s: %s", b->label, what);
  return stp__fail(b->err, STP_EINVAL, "%s: %s: %s", b->label, p, what);
}

#define fail(b, ...) stp__check_fail(&(b)->sink, __VA_ARGS__)

static stp_status copy_name(const builder *b, const char *given, stp_jpath path,
                            const char *what, const char *dflt_fmt, size_t dflt_n, char **out) {
  if (given) {
    STP_CHECK(stp__check_name(&b->sink, given, strlen(given), path, what));
    *out = stp__strdup(given);
  } else {
    *out = stp__asprintf(dflt_fmt, dflt_n);
  }
  return *out ? STP_OK : stp__oom(b->err, "building a mapping");
}

static stp_status fill_stages(const builder *b, const stp_build_spec *spec, stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "stages");
  for (size_t i = 0; i < m->nstages; i++) {
    const stp_build_stage *st = &spec->stages[i];
    stp_jpath p = stp__jpath_index(base, i);
    bool last = i + 1 == m->nstages;
    STP_CHECK(copy_name(b, st->name, stp__jpath_key(p, "name"), "a stage name", "T%zu", i + 1,
                        &m->stages[i].name));
    STP_CHECK(stp__check_positive(&b->sink, st->work, stp__jpath_key(p, "work"), "work", false));
    m->stages[i].work = st->work;
    STP_CHECK(stp__check_positive(&b->sink, st->output, stp__jpath_key(p, "output"), "output",
                                  last));
    m->stages[i].output = st->output;
  }
  return stp__check_stage_names(&b->sink, m);
}

static stp_status fill_processors(const builder *b, const stp_build_spec *spec, stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "processors");
  for (size_t q = 0; q < m->nprocs; q++) {
    const stp_build_processor *pr = &spec->processors[q];
    stp_jpath p = stp__jpath_index(base, q);
    STP_CHECK(copy_name(b, pr->name, stp__jpath_key(p, "name"), "a processor name", "P%zu", q,
                        &m->procs[q].name));
    STP_CHECK(stp__check_positive(&b->sink, pr->speed, stp__jpath_key(p, "speed"), "speed", false));
    m->procs[q].speed = pr->speed;
  }
  stp_name_index ix;
  STP_CHECK(stp__name_index_build_procs(&ix, m, b->err));
  stp_status s = stp__check_processor_names(&b->sink, m, &ix);
  stp__name_index_free(&ix);
  return s;
}

static stp_status check_index(const builder *b, size_t q, size_t n, stp_jpath path,
                              const char *what) {
  if (q < n)
    return STP_OK;
  return fail(b, path, false, "%s is processor %zu, but there are %zu processors (0 to %zu)", what,
              q, n, n - 1);
}

static stp_status fill_links(const builder *b, const stp_build_spec *spec, stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "links");
  for (size_t k = 0; k < m->nlinks; k++) {
    const stp_build_link *l = &spec->links[k];
    stp_jpath p = stp__jpath_index(base, k);
    STP_CHECK(check_index(b, l->from, m->nprocs, stp__jpath_key(p, "from"), "a link's \"from\""));
    STP_CHECK(check_index(b, l->to, m->nprocs, stp__jpath_key(p, "to"), "a link's \"to\""));
    m->links[k] = (stp_link){.from = l->from, .to = l->to, .bandwidth = l->bandwidth};
    STP_CHECK(stp__check_link(&b->sink, m, k));
    STP_CHECK(stp__check_positive(&b->sink, l->bandwidth, stp__jpath_key(p, "bandwidth"),
                                  "bandwidth", false));
  }
  return stp__check_links_unique(&b->sink, m);
}

static stp_status fill_teams(const builder *b, const stp_build_spec *spec, stp_mapping *m) {
  stp_jpath base = stp__jpath_key((stp_jpath){0}, "mapping");
  size_t at = 0;
  for (size_t i = 0; i < m->nstages; i++) {
    m->team_off[i] = at;
    for (size_t k = 0; k < spec->team_sizes[i]; k++, at++) {
      STP_CHECK(check_index(b, spec->teams[at], m->nprocs,
                            stp__jpath_index(stp__jpath_index(base, i), k), "a team member"));
      m->team[at] = spec->teams[at];
    }
  }
  m->team_off[m->nstages] = at;
  return stp__check_teams(&b->sink, m);
}

/* Counts, limits and arrays, before anything is allocated. */
static stp_status check_shape(const builder *b, const stp_build_spec *spec, size_t *members) {
  STP_CHECK(stp__check_count(&b->sink, "stages", spec->nstages, true, STP_MAX_STAGES));
  STP_CHECK(stp__check_count(&b->sink, "processors", spec->nprocessors, true, STP_MAX_PROCESSORS));
  STP_CHECK(stp__check_count(&b->sink, "links", spec->nlinks, false, STP_MAX_LINKS));
  if (!spec->stages || !spec->processors || (!b->no_teams && (!spec->team_sizes || !spec->teams)) ||
      (spec->nlinks && !spec->links))
    return stp__fail(b->err, STP_EINVAL, "%s: stp_mapping_build: a non-empty array is NULL",
                     b->label);
  if (spec->bandwidth != 0)
    STP_CHECK(stp__check_positive(&b->sink, spec->bandwidth,
                                  stp__jpath_key((stp_jpath){0}, "bandwidth"),
                                  "the default bandwidth", false));
  /* A processor serves at most one team: more members than processors
   * is an error, found here before a huge size is allocated. */
  uint64_t total = 0;
  for (size_t i = 0; i < spec->nstages && !b->no_teams; i++) {
    STP_CHECK(stp__check_team_size(&b->sink, i, spec->team_sizes[i]));
    if (!stp__add_u64(total, spec->team_sizes[i], &total) || total > spec->nprocessors)
      return fail(b, stp__jpath_index(stp__jpath_key((stp_jpath){0}, "mapping"), i), false,
                  "the teams hold more members than the %zu processors", spec->nprocessors);
  }
  *members = (size_t)total;
  return STP_OK;
}

static stp_status build(const stp_build_spec *spec, bool no_teams, stp_mapping **out,
                        stp_error *err) {
  builder b = {.label = spec->name ? spec->name : "mapping", .err = err, .no_teams = no_teams};
  b.sink = (stp_check_sink){.report = path_and_fail, .ctx = &b, .err = err};
  size_t members = 0;
  STP_CHECK(check_shape(&b, spec, &members));
  stp_mapping *m;
  STP_CHECK(stp__mapping_alloc(spec->nstages, spec->nprocessors, spec->nlinks, members, &m, err));
  m->model = spec->model == STP_MODEL_STRICT ? STP_MODEL_STRICT : STP_MODEL_OVERLAP;
  m->bandwidth = spec->bandwidth;
  stp_status s = STP_OK;
  if (spec->name)
    s = stp__check_name(&b.sink, spec->name, strlen(spec->name),
                        stp__jpath_key((stp_jpath){0}, "name"), "\"name\"");
  if (s == STP_OK && !(m->name = stp__strdup(b.label)))
    s = stp__oom(err, "building a mapping");
  if (s == STP_OK)
    s = fill_stages(&b, spec, m);
  if (s == STP_OK)
    s = fill_processors(&b, spec, m);
  if (s == STP_OK)
    s = fill_links(&b, spec, m);
  if (s == STP_OK && !no_teams)
    s = fill_teams(&b, spec, m);
  if (s == STP_OK) {
    stp__mapping_finalize(m);
    if (!no_teams) /* without teams no link carries data yet */
      s = stp__check_times(&b.sink, m);
  }
  if (s == STP_OK && !(m->file = stp__strdup(b.label)))
    s = stp__oom(err, "building a mapping");
  if (s != STP_OK) {
    stp_mapping_free(m);
    return s;
  }
  *out = m;
  return STP_OK;
}

stp_status stp_mapping_build(const stp_build_spec *spec, stp_mapping **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_mapping_build: out is NULL");
  *out = NULL;
  if (!spec)
    return stp__fail(err, STP_EINVAL, "stp_mapping_build: spec is NULL");
  return build(spec, false, out, err);
}

stp_status stp__platform_build(const stp_build_spec *spec, stp_mapping **out, bool *has_teams,
                               stp_error *err) {
  *out = NULL;
  *has_teams = spec->team_sizes || spec->teams;
  return build(spec, !*has_teams, out, err);
}
