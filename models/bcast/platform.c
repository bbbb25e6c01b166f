/* platform.c: allocation, accessors and per-size resolution of broadcast
 * platforms (the reader, platform_reader.c, fills them in). */
#include "models/bcast/platform.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

stp_status stp__bcast_platform_alloc(size_t n, stp_bcast_platform **out, stp_error *err) {
  *out = NULL;
  stp_bcast_platform *p = stp__calloc(1, sizeof *p);
  if (!p)
    return stp__oom(err, "allocating a platform");
  p->n = n;
  size_t nn = n * n; /* n <= STP_BCAST_MAX_CLUSTERS: no overflow */
  p->names = stp__calloc(n, sizeof *p->names);
  p->sizes = stp__calloc(n, sizeof *p->sizes);
  p->L = stp__calloc(n, sizeof *p->L);
  p->g = stp__calloc(n, sizeof *p->g);
  p->iL = stp__calloc(nn, sizeof *p->iL);
  p->ig = stp__calloc(nn, sizeof *p->ig);
  if (!p->names || !p->sizes || !p->L || !p->g || !p->iL || !p->ig) {
    stp_bcast_platform_free(p);
    return stp__oom(err, "allocating a platform");
  }
  *out = p;
  return STP_OK;
}

void stp_bcast_platform_free(stp_bcast_platform *p) {
  if (!p)
    return;
  if (p->names)
    for (size_t j = 0; j < p->n; j++)
      free(p->names[j]);
  free(p->names);
  free(p->sizes);
  free(p->L);
  free(p->g);
  free(p->iL);
  free(p->ig);
  free(p->file);
  free(p);
}

const char *stp_bcast_platform_file(const stp_bcast_platform *p) {
  return p->file ? p->file : "";
}
size_t stp_bcast_cluster_count(const stp_bcast_platform *p) { return p->n; }
const char *stp_bcast_cluster_name(const stp_bcast_platform *p, size_t j) { return p->names[j]; }
uint64_t stp_bcast_cluster_size(const stp_bcast_platform *p, size_t j) { return p->sizes[j]; }
int stp_bcast_platform_needs_size(const stp_bcast_platform *p) { return p->needs_size; }

stp_status stp_bcast_cluster_find(const stp_bcast_platform *p, const char *name, size_t *j,
                                  stp_error *err) {
  for (size_t k = 0; k < p->n; k++)
    if (strcmp(p->names[k], name) == 0) {
      *j = k;
      return STP_OK;
    }
  return stp__fail(err, STP_EINVAL, "unknown cluster \"%s\"", name);
}

void stp_bcast_options_init(stp_bcast_options *o) {
  *o = (stp_bcast_options){.size = 0, .has_size = 0, .root = SIZE_MAX,
                           .intra = STP_BCAST_INTRA_BINOMIAL};
}

double stp__bcast_gap_value(stp__bcast_gap g, double size) {
  return g.affine ? g.g0 + g.per_byte * size : g.g0;
}

void stp__bcast_times_free(stp__bcast_times *t) {
  free(t->G);
  free(t->T);
  t->G = t->T = NULL;
}

/* A time made of the platform's and --size: 0 or within the times' range
 * (an affine gap a + b m, or a cluster's broadcast of n machines, may leave it). */
static stp_status check_time(double x, const char *what, const char *a, const char *b,
                             stp_error *err) {
  if (x == 0 || (x >= STP_TIME_MIN && x <= STP_TIME_MAX))
    return STP_OK;
  return stp__fail(err, STP_EINVAL, "the %s of %s%s%s is %g at this message size, outside [%g, %g] "
                   "(or 0); rescale the units", what, a, b ? " -> " : "", b ? b : "", x,
                   STP_TIME_MIN, STP_TIME_MAX);
}

stp_status stp__bcast_times_resolve(const stp_bcast_platform *p, const stp_bcast_options *o,
                                    stp__bcast_times *t, stp_error *err) {
  *t = (stp__bcast_times){.n = p->n, .L = p->iL};
  if (p->needs_size && !o->has_size)
    return stp__fail(err, STP_EINVAL,
                     "a message size is required, since a gap of %s depends on it",
                     p->file ? p->file : "the platform");
  if (o->has_size && !(isfinite(o->size) && o->size >= 1 && o->size <= STP_TIME_MAX))
    return stp__fail(err, STP_EINVAL, "the message size must be within [1, %g] bytes, got %g",
                     STP_TIME_MAX, o->size);
  t->root = o->root == SIZE_MAX ? p->root : o->root;
  if (t->root >= p->n)
    return stp__fail(err, STP_EINVAL, "root: cluster %zu does not exist", t->root);
  size_t n = p->n;
  t->G = stp__malloc_array(n * n, sizeof *t->G);
  t->T = stp__malloc_array(n, sizeof *t->T);
  if (!t->G || !t->T) {
    stp__bcast_times_free(t);
    return stp__oom(err, "resolving the platform's times");
  }
  stp_status s = STP_OK;
  for (size_t j = 0; j < n && s == STP_OK; j++) {
    t->T[j] = stp_bcast_intra_time(o->intra, p->sizes[j], p->L[j],
                                   stp__bcast_gap_value(p->g[j], o->size));
    s = check_time(t->T[j], "intra-cluster time", p->names[j], NULL, err);
    for (size_t i = 0; i < n && s == STP_OK; i++) {
      t->G[i * n + j] = i == j ? 0 : stp__bcast_gap_value(p->ig[i * n + j], o->size);
      s = check_time(t->G[i * n + j], "gap", p->names[i], p->names[j], err);
    }
  }
  if (s != STP_OK)
    stp__bcast_times_free(t);
  return s;
}
