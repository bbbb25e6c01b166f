/* chain_export.c: a chain written for probabilistic model checkers, in the
 * formats their manuals document (quoted in docs/format.md, "ctmc exports"):
 * PRISM's explicit files (.tra transitions, .sta states, .lab labels, .srew
 * state rewards) and Storm's DRN.  Both take the chain as a CTMC given by
 * rates between distinct states: moves back to the same state (they change
 * no state) are left out, and two moves between the same pair of states are
 * summed, so that each file holds the generator Q of --mtx exactly.  State
 * 0 is labelled "init"; the reward "throughput" of a state is the rate at
 * which it completes data sets, so that its long-run average is the chain's
 * data-set rate. */
#include "engine/chain.h"

#include "base/core.h"
#include "solvers/generator.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
  int64_t to;
  double rate;
} entry;

static int entry_cmp(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return (x->to > y->to) - (x->to < y->to);
}

/* The off-diagonal entries of row s of Q, sorted by column, duplicates
 * summed, into buf (room for the row's moves); returns their count. */
static size_t row_entries(const stp_csr *q, int64_t s, entry *buf) {
  size_t n = 0;
  for (int64_t e = q->p[s]; e < q->p[s + 1]; e++)
    if (q->j[e] != s)
      buf[n++] = (entry){q->j[e], q->x[e]};
  qsort(buf, n, sizeof *buf, entry_cmp);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k > 0 && buf[k - 1].to == buf[i].to)
      buf[k - 1].rate += buf[i].rate;
    else
      buf[k++] = buf[i];
  }
  return k;
}

static int64_t max_row(const stp_csr *q) {
  int64_t m = 1;
  for (int64_t s = 0; s < q->nrows; s++)
    if (q->p[s + 1] - q->p[s] > m)
      m = q->p[s + 1] - q->p[s];
  return m;
}

static stp_status write_failed(stp_error *err, const char *what) {
  return stp__fail(err, STP_EIO, "cannot write the %s", what);
}

/* Number of transitions of the .tra file (off-diagonal entries after merging). */
static stp_status count_entries(const stp_csr *q, entry *buf, uint64_t *out) {
  *out = 0;
  for (int64_t s = 0; s < q->nrows; s++)
    *out += row_entries(q, s, buf);
  return STP_OK;
}

static stp_status write_tra(const stp_csr *q, entry *buf, FILE *f, stp_error *err) {
  uint64_t m;
  count_entries(q, buf, &m);
  fprintf(f, "%lld %llu\n", (long long)q->nrows, (unsigned long long)m);
  for (int64_t s = 0; s < q->nrows; s++) {
    size_t n = row_entries(q, s, buf);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%lld %lld %.17g\n", (long long)s, (long long)buf[i].to, buf[i].rate);
  }
  return ferror(f) ? write_failed(err, "PRISM transitions (.tra) file") : STP_OK;
}

static stp_status write_sta(const stp_csr *q, FILE *f, stp_error *err) {
  uint32_t *level, period;
  STP_CHECK(stp__generator_levels(q, &level, &period, err));
  fputs("(s,level)\n", f);
  for (int64_t s = 0; s < q->nrows; s++)
    fprintf(f, "%lld:(%lld,%u)\n", (long long)s, (long long)s, level[s]);
  free(level);
  return ferror(f) ? write_failed(err, "PRISM states (.sta) file") : STP_OK;
}

/* "init" on state 0; "deadlock" on states with no move to another state
 * (none in the irreducible chains streamtp solves, but PRISM expects the
 * label). */
static stp_status write_lab(const stp_csr *q, entry *buf, FILE *f, stp_error *err) {
  fputs("0=\"init\" 1=\"deadlock\"\n", f);
  for (int64_t s = 0; s < q->nrows; s++) {
    bool dead = row_entries(q, s, buf) == 0;
    if (s == 0 && dead)
      fputs("0: 0 1\n", f);
    else if (s == 0)
      fputs("0: 0\n", f);
    else if (dead)
      fprintf(f, "%lld: 1\n", (long long)s);
  }
  return ferror(f) ? write_failed(err, "PRISM labels (.lab) file") : STP_OK;
}

static stp_status write_srew(const stp_chain *c, FILE *f, stp_error *err) {
  const stp_csr *q = c->moves;
  uint64_t nz = 0;
  for (int64_t s = 0; s < q->nrows; s++)
    nz += stp__chain_counted_rate(c, s) != 0;
  fprintf(f, "%lld %llu\n", (long long)q->nrows, (unsigned long long)nz);
  for (int64_t s = 0; s < q->nrows; s++) {
    double r = stp__chain_counted_rate(c, s);
    if (r != 0)
      fprintf(f, "%lld %.17g\n", (long long)s, r);
  }
  return ferror(f) ? write_failed(err, "PRISM state rewards (.srew) file") : STP_OK;
}

stp_status stp_chain_write_prism(const stp_chain *c, FILE *tra, FILE *sta, FILE *lab, FILE *srew,
                                 stp_error *err) {
  if (!c)
    return stp__fail(err, STP_EINVAL, "stp_chain_write_prism: chain is NULL");
  entry *buf = stp__malloc_array((size_t)max_row(c->moves), sizeof *buf);
  if (!buf)
    return stp__oom(err, "writing PRISM files");
  stp_status s = STP_OK;
  if (tra)
    s = write_tra(c->moves, buf, tra, err);
  if (s == STP_OK && sta)
    s = write_sta(c->moves, sta, err);
  if (s == STP_OK && lab)
    s = write_lab(c->moves, buf, lab, err);
  if (s == STP_OK && srew)
    s = write_srew(c, srew, err);
  free(buf);
  return s;
}

/* Storm's DRN: a header, then per state "state ID !EXIT_RATE [REWARD]
 * LABELS", its one action, and "TARGET : RATE" per transition (the spaces
 * around the colon are part of the syntax). */
static void drn_header(const stp_chain *c, FILE *f, uint64_t n, const char *comment) {
  for (const char *line = comment; line && *line;) {
    const char *nl = strchr(line, '\n');
    int len = nl ? (int)(nl - line) : (int)strlen(line);
    fprintf(f, "// %.*s\n", len, line);
    line = nl ? nl + 1 : line + len;
  }
  (void)c;
  fputs("// the long-run average of the reward \"throughput\" is the data-set rate\n"
        "@type: CTMC\n@value_type: double\n@parameters\n\n@reward_models\nthroughput\n",
        f);
  fprintf(f, "@nr_states\n%llu\n@nr_choices\n%llu\n@model\n", (unsigned long long)n,
          (unsigned long long)n);
}

stp_status stp_chain_write_drn(const stp_chain *c, FILE *f, const char *comment, stp_error *err) {
  if (!c || !f)
    return stp__fail(err, STP_EINVAL, "stp_chain_write_drn: chain or file is NULL");
  const stp_csr *q = c->moves;
  entry *buf = stp__malloc_array((size_t)max_row(q), sizeof *buf);
  if (!buf)
    return stp__oom(err, "writing a DRN file");
  drn_header(c, f, (uint64_t)q->nrows, comment);
  for (int64_t s = 0; s < q->nrows; s++) {
    size_t n = row_entries(q, s, buf);
    double exit = 0;
    for (size_t i = 0; i < n; i++)
      exit += buf[i].rate;
    fprintf(f, "state %lld !%.17g [%.17g]%s\n\taction 0\n", (long long)s, exit,
            stp__chain_counted_rate(c, s), s == 0 ? " init" : "");
    for (size_t i = 0; i < n; i++)
      fprintf(f, "\t\t%lld : %.17g\n", (long long)buf[i].to, buf[i].rate);
  }
  free(buf);
  return ferror(f) ? write_failed(err, "DRN file") : STP_OK;
}
