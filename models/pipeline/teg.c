/* teg.c: mapping -> timed event graph, for the Overlap and Strict models
 * (docs/design.md section 2).  The graph is linear in R*(2N-1); building it is
 * refused above a size limit rather than attempted. */
#include "models/pipeline/teg.h"

#include "base/core.h"

#include <stdio.h>
#include <stdlib.h>

size_t stp__teg_processor(const stp_teams *tm, uint64_t row, uint32_t col, size_t *to) {
  size_t i = col / 2;
  size_t p = stp__teams_member(tm, i, (size_t)(row % stp__teams_size(tm, i)));
  if (to)
    *to = col % 2 ? stp__teams_member(tm, i + 1, (size_t)(row % stp__teams_size(tm, i + 1)))
                  : SIZE_MAX;
  return p;
}

/* Firing time of transition (row, col): its stage is col / 2 (the
 * platform's processors need not know their stage). */
static double teg_time(const stp_mapping *m, const stp_teams *tm, uint64_t row, uint32_t col) {
  size_t q, p = stp__teg_processor(tm, row, col, &q);
  const stp_stage *st = &m->stages[col / 2];
  return col % 2 ? st->output / stp__link_bandwidth(m, p, q) : st->work / m->procs[p].speed;
}

void stp__teg_free(stp_teg *t) {
  if (!t)
    return;
  free(t->time);
  stp__digraph_free(t->g);
  free(t);
}

static inline uint32_t node(const stp_teg *t, uint64_t row, uint32_t col) {
  return (uint32_t)(row * t->ncols + col);
}

/* Cyclic places over the rows of processor k of team i in column col:
 * rows k, k+R_i, ...; the closing place holds the token. */
static void add_port_cycle(const stp_teg *t, stp_edge_list *el, size_t ri, size_t k, uint32_t col) {
  for (uint64_t j = k; j < t->nrows; j += ri) {
    uint64_t next = j + ri < t->nrows ? j + ri : k;
    stp__edges_push(el, node(t, j, col), node(t, next, col), t->time[node(t, j, col)],
                    next == k ? 1 : 0);
  }
}

/* Strict: from p's last action on row j to its first action on its next row. */
static void add_strict_chain(const stp_teg *t, stp_edge_list *el, size_t ri, size_t k,
                             uint32_t first, uint32_t last) {
  for (uint64_t j = k; j < t->nrows; j += ri) {
    uint64_t next = j + ri < t->nrows ? j + ri : k;
    stp__edges_push(el, node(t, j, last), node(t, next, first), t->time[node(t, j, last)],
                    next == k ? 1 : 0);
  }
}

static uint64_t place_count(const stp_teams *tm, stp_model model, uint64_t rows, uint32_t cols) {
  uint64_t places = rows * (cols - 1); /* row order */
  if (model == STP_MODEL_STRICT)
    return places + rows * tm->nstages;
  for (size_t i = 0; i < tm->nstages; i++)
    places += rows * (1 + (i > 0) + (i + 1 < tm->nstages));
  return places;
}

uint64_t stp__teg_place_count_teams(const stp_mapping *m, const stp_teams *tm, stp_model model) {
  (void)m;
  uint64_t rows;
  if (!stp__teams_lcm(tm, &rows))
    return UINT64_MAX;
  return place_count(tm, model, rows, (uint32_t)(2 * tm->nstages - 1));
}

uint64_t stp__teg_place_count(const stp_mapping *m, stp_model model) {
  stp_teams tm = stp__teams_of(m);
  return stp__teg_place_count_teams(m, &tm, model);
}

stp_status stp__teg_check_size(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                               stp_error *err) {
  stp_teams tm = stp__teams_of(m);
  return stp__teg_check_size_teams(m, &tm, model, max_transitions, err);
}

stp_status stp__teg_check_size_teams(const stp_mapping *m, const stp_teams *tm, stp_model model,
                                     uint64_t max_transitions, stp_error *err) {
  uint64_t rows, n;
  uint32_t cols = (uint32_t)(2 * tm->nstages - 1);
  if (!stp__teams_lcm(tm, &rows) || !stp__mul_u64(rows, cols, &n))
    return stp__fail_limit(err,
                           (stp_limit){STP_LIMIT_TRANSITIONS, UINT64_MAX, max_transitions, 0},
                           "%s: the %s event graph has more than 2^64 transitions (lcm of the "
                           "team sizes overflows)", m->file, stp_model_name(model));
  if (n > max_transitions || n >= STP_DIGRAPH_MAX_NODES)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_TRANSITIONS, n, max_transitions, n},
                           "%s: the %s event graph would have %llu transitions (%llu paths x %u "
                           "columns), above the limit of %llu",
                           m->file, stp_model_name(model), (unsigned long long)n,
                           (unsigned long long)rows, cols, (unsigned long long)max_transitions);
  return STP_OK;
}

/* What a built graph holds per transition (its time, its node in the CSR
 * graph) and per place (source, target, weight, tokens, and the edge list
 * it is built from); measured sizes rounded up. */
#define TEG_BYTES_PER_TRANSITION 24.0
#define TEG_BYTES_PER_PLACE 80.0

stp_status stp__teg_check_memory(const stp_mapping *m, stp_model model, uint64_t budget,
                                 stp_error *err) {
  stp_teams tm = stp__teams_of(m);
  return stp__teg_check_memory_teams(m, &tm, model, budget, err);
}

stp_status stp__teg_check_memory_teams(const stp_mapping *m, const stp_teams *tm,
                                       stp_model model, uint64_t budget, stp_error *err) {
  uint64_t rows;
  if (!stp__teams_lcm(tm, &rows))
    return STP_OK; /* stp__teg_check_size refuses it */
  double n = (double)rows * (double)(2 * tm->nstages - 1);
  double bytes = n * TEG_BYTES_PER_TRANSITION +
                 (double)stp__teg_place_count_teams(m, tm, model) * TEG_BYTES_PER_PLACE;
  if (bytes <= (double)budget)
    return STP_OK;
  uint64_t need = stp__u64_sat(bytes);
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, need, budget, need},
                         "%s: the %s event graph (%.4g transitions) would need about %.3g GiB, "
                         "above the memory budget of %.3g GiB",
                         m->file, stp_model_name(model), n, bytes / 1073741824.0,
                         (double)budget / 1073741824.0);
}

stp_status stp__teg_build(const stp_mapping *m, stp_model model, uint64_t max_transitions,
                          stp_teg **out, stp_error *err) {
  stp_teams tm = stp__teams_of(m);
  return stp__teg_build_teams(m, &tm, model, max_transitions, out, err);
}

stp_status stp__teg_build_teams(const stp_mapping *m, const stp_teams *tm, stp_model model,
                                uint64_t max_transitions, stp_teg **out, stp_error *err) {
  *out = NULL;
  STP_CHECK(stp__teg_check_size_teams(m, tm, model, max_transitions, err));
  uint64_t rows, n;
  uint32_t cols = (uint32_t)(2 * tm->nstages - 1);
  stp__teams_lcm(tm, &rows); /* checked above: neither overflows */
  stp__mul_u64(rows, cols, &n);
  stp_teg *t = calloc(1, sizeof *t);
  if (!t)
    return stp__oom(err, "building the event graph");
  t->map = m;
  t->teams = *tm;
  t->model = model;
  t->nrows = rows;
  t->ncols = cols;
  t->time = stp__malloc_array((size_t)n, sizeof *t->time);
  stp_edge_list el = {0};
  stp_status s = t->time ? stp__edges_reserve(&el, place_count(tm, model, rows, cols), err)
                         : stp__oom(err, "building the event graph");
  if (s != STP_OK) {
    stp__edges_free(&el);
    stp__teg_free(t);
    return s;
  }
  for (uint64_t j = 0; j < rows; j++)
    for (uint32_t c = 0; c < cols; c++)
      t->time[node(t, j, c)] = teg_time(m, tm, j, c);
  for (uint64_t j = 0; j < rows; j++)
    for (uint32_t c = 0; c + 1 < cols; c++)
      stp__edges_push(&el, node(t, j, c), node(t, j, c + 1), t->time[node(t, j, c)], 0);
  for (size_t i = 0; i < tm->nstages; i++) {
    size_t ri = stp__teams_size(tm, i);
    uint32_t comp = (uint32_t)(2 * i);
    bool has_in = i > 0, has_out = i + 1 < tm->nstages;
    for (size_t k = 0; k < ri; k++) {
      if (model == STP_MODEL_STRICT) {
        add_strict_chain(t, &el, ri, k, has_in ? comp - 1 : comp, has_out ? comp + 1 : comp);
        continue;
      }
      add_port_cycle(t, &el, ri, k, comp);
      if (has_out)
        add_port_cycle(t, &el, ri, k, comp + 1);
      if (has_in)
        add_port_cycle(t, &el, ri, k, comp - 1);
    }
  }
  s = stp__digraph_from_edges((uint32_t)n, &el, &t->g, err);
  if (s != STP_OK) {
    stp__teg_free(t);
    return s;
  }
  *out = t;
  return STP_OK;
}

void stp__teg_label(const stp_teg *t, uint32_t nd, char *buf, size_t n) {
  const stp_mapping *m = t->map;
  uint64_t row = nd / t->ncols;
  uint32_t col = nd % t->ncols;
  size_t q, p = stp__teg_processor(&t->teams, row, col, &q);
  if (col % 2 == 0)
    snprintf(buf, n, "row %llu: %s computes %s", (unsigned long long)row, m->procs[p].name,
             m->stages[col / 2].name);
  else
    snprintf(buf, n, "row %llu: %s -> %s (output of %s)", (unsigned long long)row,
             m->procs[p].name, m->procs[q].name, m->stages[col / 2].name);
}
