/* problem.c: optimisation problems (streamtp_optimize.h): loading one from a
 * file, a string or builder arrays, its accessors, and the candidate
 * mappings of it built through stp_mapping_build (the same checks and
 * messages as a mapping file). */
#include "models/pipeline/problem.h"

#include "base/core.h"
#include "models/pipeline/reader.h"

#include <stdlib.h>
#include <string.h>

void stp_problem_free(stp_problem *p) {
  if (!p)
    return;
  stp_mapping_free(p->base);
  free(p->stages);
  free(p->procs);
  free(p->links);
  free(p);
}

/* Take ownership of base and describe it as builder arrays. */
static stp_status adopt(stp_mapping *base, bool has_start, stp_problem **out, stp_error *err) {
  stp_problem *p = calloc(1, sizeof *p);
  if (!p) {
    stp_mapping_free(base);
    return stp__oom(err, "reading a problem");
  }
  p->base = base;
  p->has_start = has_start;
  p->stages = stp__malloc_array(base->nstages, sizeof *p->stages);
  p->procs = stp__malloc_array(base->nprocs, sizeof *p->procs);
  p->links = stp__malloc_array(base->nlinks ? base->nlinks : 1, sizeof *p->links);
  if (!p->stages || !p->procs || !p->links) {
    stp_problem_free(p);
    return stp__oom(err, "reading a problem");
  }
  for (size_t i = 0; i < base->nstages; i++)
    p->stages[i] = (stp_build_stage){base->stages[i].name, base->stages[i].work,
                                     base->stages[i].output};
  for (size_t q = 0; q < base->nprocs; q++)
    p->procs[q] = (stp_build_processor){base->procs[q].name, base->procs[q].speed};
  for (size_t k = 0; k < base->nlinks; k++)
    p->links[k] = (stp_build_link){base->links[k].from, base->links[k].to,
                                   base->links[k].bandwidth};
  stp_build_spec_init(&p->spec);
  p->spec.name = base->name;
  p->spec.model = base->model;
  p->spec.nstages = base->nstages;
  p->spec.stages = p->stages;
  p->spec.nprocessors = base->nprocs;
  p->spec.processors = p->procs;
  p->spec.bandwidth = base->bandwidth;
  p->spec.nlinks = base->nlinks;
  p->spec.links = p->links;
  *out = p;
  return STP_OK;
}

stp_status stp_problem_load_string(const char *text, size_t len, const char *label,
                                   stp_problem **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_problem_load_string: out is NULL");
  *out = NULL;
  if (!text)
    return stp__fail(err, STP_EINVAL, "stp_problem_load_string: text is NULL");
  stp_mapping *m;
  bool has_start;
  STP_CHECK(stp__problem_read(text, len, label, &m, &has_start, err));
  return adopt(m, has_start, out, err);
}

stp_status stp_problem_load_file(const char *path, stp_problem **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_problem_load_file: out is NULL");
  *out = NULL;
  if (!path)
    return stp__fail(err, STP_EINVAL, "stp_problem_load_file: path is NULL");
  char *text = NULL;
  size_t len = 0;
  STP_CHECK(stp__read_file(path, STP_MAX_FILE_BYTES, &text, &len, err));
  stp_status s = stp_problem_load_string(text, len, strcmp(path, "-") ? path : "<stdin>", out,
                                         err);
  free(text);
  return s;
}

stp_status stp_problem_build(const stp_build_spec *spec, stp_problem **out, stp_error *err) {
  if (!out)
    return stp__fail(err, STP_EINVAL, "stp_problem_build: out is NULL");
  *out = NULL;
  if (!spec)
    return stp__fail(err, STP_EINVAL, "stp_problem_build: spec is NULL");
  stp_mapping *m;
  bool has_start;
  STP_CHECK(stp__platform_build(spec, &m, &has_start, err));
  return adopt(m, has_start, out, err);
}

stp_status stp__problem_mapping(const stp_problem *p, stp_model model, const size_t *sizes,
                                const size_t *teams, stp_mapping **out, stp_error *err) {
  stp_build_spec spec = p->spec;
  spec.model = model;
  spec.team_sizes = sizes;
  spec.teams = teams;
  STP_CHECK(stp_mapping_build(&spec, out, err));
  /* the file label, so that messages about it name the problem's file */
  char *file = stp__strdup(p->base->file);
  if (!file) {
    stp_mapping_free(*out);
    *out = NULL;
    return stp__oom(err, "building a mapping");
  }
  free((*out)->file);
  (*out)->file = file;
  return STP_OK;
}

const char *stp_problem_name(const stp_problem *p) { return p->base->name; }
const char *stp_problem_file(const stp_problem *p) { return p->base->file; }
stp_model stp_problem_model(const stp_problem *p) { return p->base->model; }
size_t stp_problem_stage_count(const stp_problem *p) { return p->base->nstages; }
size_t stp_problem_processor_count(const stp_problem *p) { return p->base->nprocs; }
const stp_mapping *stp_problem_start(const stp_problem *p) {
  return p->has_start ? p->base : NULL;
}
