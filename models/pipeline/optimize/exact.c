/* exact.c: branch and bound over ordered teams (optimize.h, "methods").
 *
 * The tree: stage after stage, first the size R of the team, then its
 * members position by position.  Every node carries an upper bound of all
 * the mappings below it, the smallest of
 *   - the items already known exactly: the computations of complete teams,
 *     the transfer components whose receivers are all placed (Overlap), the
 *     throughput of the pipeline cut after the last complete stage (Strict);
 *   - for each placed member, R over its busy time per data set (its exact
 *     reception time from its known senders, its computation, its fastest
 *     possible emission: optimize.h, "bounds");
 *   - for the team being built, R over the slowest member so far, and for
 *     a size, R over the R-th fastest free processor;
 * and a node is dropped when that bound does not exceed the best mapping
 * found by more than STP_OPT_RTOL, or when the stages still to build cannot
 * all beat it with the processors left (the counting of optimize.h, "bounds").
 * Children are visited best bound first, so good mappings come early.
 *
 * A latency constraint (--max-latency) is checked at the leaves only: the
 * bounds above stay bounds of the mappings that keep it.
 *
 * Symmetry: numbering the data sets from s instead of 0 turns every team
 * by s places and leaves the throughput alone (the unrolled event graph is
 * the same, and so is the set of paths of the latency), so without fixed teams only mappings whose first team starts
 * with its smallest processor are searched.
 *
 * When the search stops early, every mapping not visited lies below a
 * visited node's child not yet explored, or below the node where it
 * stopped: the largest of their bounds is the upper bound proved. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct child {
  double bound;
  size_t what; /* a team size or a processor */
} child;

/* One open node's children being visited: pool[first .. first + n), the
 * k-th now (those before it closed). */
typedef struct frame {
  size_t first, n, k;
} frame;

typedef struct bb {
  stp_opt_run *run;
  const stp_opt_bound *b;
  stp_opt_cand c;
  stp_opt_vals vals;
  double theta;    /* children must beat this: the best so far, plus the tolerance */
  double ub_open;  /* the bound of what a stop left unexplored */
  double ub_lost;  /* the bound of subtrees dropped for the limits */
  bool lost;
  bool symmetric;
  size_t nfree;    /* processors in no team and in no fixed team */
  child *pool;     /* children of the open nodes, a stack */
  size_t used, cap;
  double *slowest; /* per stage: slowest computation placed */
  frame *frames;   /* the path from the root: one per open node */
  size_t depth, max_depth;
} bb;

static void set_theta(bb *t) {
  double best = t->run->best_value;
  t->theta = best > -INFINITY ? best + fabs(best) * STP_OPT_RTOL : -INFINITY;
}

static int by_bound_desc(const void *a, const void *b) {
  const child *x = a, *y = b;
  if (x->bound != y->bound)
    return x->bound > y->bound ? -1 : 1;
  return (x->what > y->what) - (x->what < y->what);
}

static stp_status stage_start(bb *t, size_t s, double known, stp_error *err);

/* Visit the children pool[first..used) (sorted here) with visit(); on a
 * stop, the bound of those left goes to ub_open. */
typedef stp_status (*visit_fn)(bb *t, size_t s, size_t r, const child *ch, stp_error *err);

static stp_status visit_children(bb *t, size_t first, size_t s, size_t r, visit_fn visit,
                                 stp_error *err) {
  size_t n = t->used - first;
  qsort(t->pool + first, n, sizeof *t->pool, by_bound_desc);
  stp_status st = STP_OK;
  frame *f = t->depth < t->max_depth ? &t->frames[t->depth++] : NULL;
  if (f)
    *f = (frame){first, n, 0};
  for (size_t k = 0; k < n && st == STP_OK; k++) {
    if (f)
      f->k = k;
    child ch = t->pool[first + k];
    if (ch.bound <= t->theta)
      break; /* sorted: the others cannot beat the best either */
    if (t->run->stop != STP_OPT_RUNNING) {
      if (ch.bound > t->ub_open)
        t->ub_open = ch.bound;
      break;
    }
    st = visit(t, s, r, &ch, err);
  }
  if (f)
    t->depth--;
  t->used = first;
  return st;
}

/* The run's progress (run.c, refresh): every mapping not yet visited lies
 * below a child not yet visited of a node on the path (pool[first + k + 1]
 * of its frame has the largest bound of them: sorted), below the child
 * being visited at the deepest frame, or in a subtree dropped for the
 * limits (ub_lost); children already visited were searched or pruned
 * below the best (within STP_OPT_RTOL).  The largest of these bounds, and
 * the best, bound every mapping; it only falls as the search goes on.
 * The share closed weighs a frame's closed children by its node's share
 * of the tree, each child an equal part of its parent (an estimate). */
static void refresh(stp_opt_run *run, void *data) {
  const bb *t = data;
  if (t->depth == 0 || t->depth > t->max_depth)
    return;
  double open = t->ub_lost, weight = 1, closed = 0;
  for (size_t d = 0; d < t->depth; d++) {
    const frame *f = &t->frames[d];
    if (f->k + 1 < f->n)
      open = fmax(open, t->pool[f->first + f->k + 1].bound);
    if (d + 1 == t->depth)
      open = fmax(open, t->pool[f->first + f->k].bound);
    closed += weight * (double)f->k / (double)f->n;
    weight /= (double)f->n;
  }
  double upper = fmax(run->best_value, open);
  if (upper < run->upper_bound)
    run->upper_bound = upper;
  run->closed = closed;
}

static stp_status push(bb *t, double bound, size_t what, stp_error *err) {
  if (t->used == t->cap) {
    size_t cap = 2 * t->cap;
    child *p = realloc(t->pool, cap * sizeof *p);
    if (!p)
      return stp__oom(err, "searching mappings");
    t->pool = p;
    t->cap = cap;
  }
  t->pool[t->used++] = (child){bound, what};
  return STP_OK;
}

/* A subtree that the limits kept from bounding: no proof below it. */
static void drop(bb *t, double bound) {
  t->run->skipped++;
  t->lost = true;
  if (bound > t->ub_lost)
    t->ub_lost = bound;
}

/* Entering a node: stop, or prune. */
static bool leave_now(bb *t, double known) {
  stp_opt_run *run = t->run;
  run->nodes++;
  if (stp__opt_stopping(run)) {
    if (known > t->ub_open)
      t->ub_open = known;
    return true;
  }
  return known <= t->theta;
}

static stp_status leaf(bb *t, double known, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  if (sp->model == STP_MODEL_OVERLAP) { /* every item is known: known is the value */
    ev->evaluated++;
    bool ok = true;
    double latency;
    if (known > t->theta)
      STP_CHECK(stp__opt_latency_ok(ev, &t->c, &ok, &latency, err));
    if (!ok)
      return STP_OK; /* the latency constraint: not a candidate */
  } else { /* the evaluator checks the latency */
    stp_status s = stp__opt_evaluate(ev, &t->c, NULL, NULL, t->theta, &t->vals, err);
    if (s == STP_ELIMIT) {
      drop(t, known);
      return STP_OK;
    }
    STP_CHECK(s);
    if (!t->vals.exact)
      return STP_OK;
    known = t->vals.value;
  }
  if (known > t->theta) {
    stp__opt_offer(run, &t->c, known);
    set_theta(t);
  }
  return STP_OK;
}

/* The stages after s that are not fixed still need this many processors to
 * beat theta (SIZE_MAX: one of them cannot). */
static size_t future_need(const bb *t, size_t s) {
  const stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  size_t total = 0;
  for (size_t j = s + 1; j < sp->N; j++) {
    if (stp__opt_fixed_size(sp, j))
      continue;
    size_t n = stp__opt_bound_need(sp, t->b, j, t->theta, true, t->c.owner, t->nfree);
    if (n == 0)
      return SIZE_MAX;
    total += n;
  }
  return total;
}

/* Busy time per data set of p at position y of stage s (team of r, whose
 * senders team s-1 is complete): its exact reception, computation and
 * fastest emission, combined as the model says; INFINITY when a link it
 * needs is missing. */
static double busy(const bb *t, size_t s, size_t r, size_t y, size_t p) {
  const stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  size_t at = s * sp->M + p;
  double in = 0;
  if (s > 0) {
    size_t rs = t->c.size[s - 1], g = (size_t)stp__gcd_u64(rs, r), u = rs / g;
    const size_t *snd = stp__opt_team(sp, &t->c, s - 1);
    double sum = 0;
    for (size_t a = y % g; a < rs; a += g) {
      if (!stp__opt_link_ok(sp, s - 1, snd[a], p))
        return INFINITY;
      double bw = sp->bw ? sp->bw[snd[a] * sp->M + p] : stp__link_bandwidth(sp->plat, snd[a], p);
      sum += sp->plat->stages[s - 1].output / bw;
    }
    in = sum / (double)u;
  }
  double c = sp->comp[at], out = t->b->out[at];
  return sp->model == STP_MODEL_STRICT ? in + c + out : fmax(in, fmax(c, out));
}

/* The bound of placing p at position y of stage s (team of r), with the
 * transfer component it completes, if any. */
static stp_status member_bound(bb *t, size_t s, size_t r, size_t y, size_t p, double known,
                               double *bound, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  double time = busy(t, s, r, y, p);
  if (isinf(time)) { /* a link it needs is missing */
    *bound = -INFINITY;
    return STP_OK;
  }
  double b = fmin(known, (double)r / time);
  b = fmin(b, (double)r / fmax(t->slowest[s], sp->comp[s * sp->M + p]));
  *bound = b;
  if (b <= t->theta || s == 0 || sp->model != STP_MODEL_OVERLAP)
    return STP_OK;
  size_t rs = t->c.size[s - 1], g = (size_t)stp__gcd_u64(rs, r);
  if (y + g < r)
    return STP_OK; /* its component still lacks receivers */
  stp__opt_cand_insert(sp, &t->c, s, y, p);
  double v;
  stp_status st = stp__opt_component(ev, &t->c, s - 1, y % g, g, rs / g, r / g, t->theta, &v, err);
  stp__opt_cand_remove(sp, &t->c, s, y);
  if (st == STP_ELIMIT) {
    drop(t, b);
    *bound = -INFINITY;
    return STP_OK;
  }
  STP_CHECK(st);
  *bound = fmin(b, v);
  return STP_OK;
}

static stp_status place(bb *t, size_t s, size_t r, size_t y, double known, stp_error *err);

/* Stages 0..s are complete: under Strict the pipeline cut after s bounds
 * every completion; then the node of stage s + 1. */
static stp_status next_stage(bb *t, size_t s, double known, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  if (sp->model == STP_MODEL_STRICT && s + 1 < sp->N) {
    double v;
    stp_status st = stp__opt_strict_prefix(ev, &t->c, s + 1, t->theta, &v, err);
    if (st == STP_ELIMIT) {
      drop(t, known);
      return STP_OK;
    }
    STP_CHECK(st);
    known = fmin(known, v);
  }
  return stage_start(t, s + 1, known, err);
}

static stp_status visit_member(bb *t, size_t s, size_t r, const child *ch, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  size_t y = t->c.size[s], p = ch->what;
  double slowest = t->slowest[s];
  stp__opt_cand_insert(sp, &t->c, s, y, p);
  t->slowest[s] = fmax(slowest, sp->comp[s * sp->M + p]);
  t->nfree--;
  stp_status st = place(t, s, r, y + 1, ch->bound, err);
  t->nfree++;
  t->slowest[s] = slowest;
  stp__opt_cand_remove(sp, &t->c, s, y);
  return st;
}

/* Whether p may take position y of stage s under the symmetry: the first
 * team starts with its smallest member. */
static bool symmetry_allows(const bb *t, size_t s, size_t r, size_t y, size_t p) {
  const stp_opt_space *sp = t->run->sp;
  if (!t->symmetric || s != 0)
    return true;
  if (y > 0)
    return p > stp__opt_team(sp, &t->c, 0)[0];
  size_t larger = 0; /* the others must all be larger */
  for (size_t q = p + 1; q < sp->M && larger + 1 < r; q++)
    larger += t->c.owner[q] == STP_OPT_NONE && sp->allowed[q];
  return larger + 1 >= r;
}

/* Position y of stage s (team of r): the members that may come next. */
static stp_status place(bb *t, size_t s, size_t r, size_t y, double known, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  if (y == r) /* the team is complete: the next stage's node */
    return known > t->theta ? next_stage(t, s, known, err) : STP_OK;
  if (leave_now(t, known))
    return STP_OK;
  size_t need = future_need(t, s), rest = r - y - 1; /* members after this one */
  if (need == SIZE_MAX || need + rest + 1 > t->nfree)
    return STP_OK;
  /* enough free processors able to beat theta in a team of r for the
   * positions left? (the order is by increasing busy time) */
  const size_t *order = t->b->order + s * sp->M;
  size_t able = 0;
  for (size_t k = 0; k < t->b->norder[s] && able <= rest; k++) {
    size_t p = order[k];
    if (t->b->t[s * sp->M + p] * t->theta >= (double)r)
      break;
    able += t->c.owner[p] == STP_OPT_NONE;
  }
  if (able <= rest)
    return STP_OK;
  size_t first = t->used;
  for (size_t k = 0; k < t->b->norder[s]; k++) {
    size_t p = order[k];
    if (t->b->t[s * sp->M + p] * t->theta >= (double)r)
      break; /* sorted by busy time: the rest are slower still */
    if (t->c.owner[p] != STP_OPT_NONE || !symmetry_allows(t, s, r, y, p))
      continue;
    double bound;
    STP_CHECK(member_bound(t, s, r, y, p, known, &bound, err));
    if (bound > t->theta)
      STP_CHECK(push(t, bound, p, err));
  }
  return visit_children(t, first, s, r, visit_member, err);
}

static stp_status visit_size(bb *t, size_t s, size_t r, const child *ch, stp_error *err) {
  (void)r;
  return place(t, s, ch->what, 0, ch->bound, err);
}

/* A fixed team: its computation, and the transfer into it once both ends
 * are known. */
static stp_status fixed_stage(bb *t, size_t s, double known, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  double v;
  if (sp->model == STP_MODEL_OVERLAP) {
    STP_CHECK(stp__opt_item(ev, &t->c, 2 * s, t->theta, &v, err));
    known = fmin(known, v);
    if (s > 0 && known > t->theta) {
      stp_status st = stp__opt_item(ev, &t->c, 2 * s - 1, t->theta, &v, err);
      if (st == STP_ELIMIT) {
        drop(t, known);
        return STP_OK;
      }
      STP_CHECK(st);
      known = fmin(known, v);
    }
  }
  return next_stage(t, s, known, err);
}

static stp_status stage_start(bb *t, size_t s, double known, stp_error *err) {
  stp_opt_run *run = t->run;
  const stp_opt_space *sp = run->sp;
  if (s == sp->N)
    return leave_now(t, known) ? STP_OK : leaf(t, known, err);
  if (stp__opt_fixed_size(sp, s))
    return leave_now(t, known) ? STP_OK : fixed_stage(t, s, known, err);
  if (leave_now(t, known))
    return STP_OK;
  size_t need = future_need(t, s);
  if (need == SIZE_MAX || need >= t->nfree)
    return STP_OK;
  size_t room = t->nfree - need, first = t->used;
  const size_t *order = t->b->order + s * sp->M;
  size_t r = 0;
  for (size_t k = 0; k < t->b->norder[s] && r < sp->kmax && r < room; k++) {
    size_t p = order[k];
    if (t->c.owner[p] != STP_OPT_NONE || sp->reserved[p] != STP_OPT_NONE)
      continue;
    r++; /* a team of r is no faster than r over the r-th fastest free member */
    double bound = fmin(known, (double)r / t->b->t[s * sp->M + p]);
    if (bound > t->theta)
      STP_CHECK(push(t, bound, r, err));
  }
  return visit_children(t, first, s, 0, visit_size, err);
}

stp_status stp__opt_exact(stp_opt_run *run, const stp_opt_bound *b, double root, bool *proved,
                          double *upper, stp_error *err) {
  const stp_opt_space *sp = run->sp;
  bb t = {.run = run, .b = b, .ub_open = -INFINITY, .ub_lost = -INFINITY, .nfree = b->nfree,
          .symmetric = sp->fixed_off[sp->N] == 0, .cap = 256};
  t.pool = stp__malloc_array(t.cap, sizeof *t.pool);
  t.slowest = stp__calloc(sp->N, sizeof *t.slowest);
  /* a stage's size, then its members: N (kmax + 1) levels at most */
  t.max_depth = sp->N * (sp->kmax + 1);
  t.frames = stp__malloc_array(t.max_depth, sizeof *t.frames);
  stp_status s = t.pool && t.slowest && t.frames ? stp__opt_cand_alloc(sp, &t.c, err)
                                                 : stp__oom(err, "searching mappings");
  run->upper_bound = fmin(run->upper_bound, root);
  run->closed = 0;
  run->refresh = refresh;
  run->refresh_data = &t;
  if (s == STP_OK)
    s = stp__opt_vals_alloc(run->ev, &t.vals, err);
  if (s == STP_OK) {
    stp__opt_cand_fixed(sp, &t.c);
    set_theta(&t);
    s = stage_start(&t, 0, root, err);
  }
  if (s == STP_OK) {
    bool ended = run->stop == STP_OPT_RUNNING;
    double best = run->best_value;
    *proved = ended && !t.lost && best > -INFINITY;
    double open = fmax(t.ub_lost, ended ? -INFINITY : t.ub_open);
    *upper = fmin(fmin(root, run->upper_bound), fmax(best, open));
    if (*proved)
      *upper = best;
  }
  run->refresh = NULL;
  run->refresh_data = NULL;
  run->closed = NAN;
  stp__opt_vals_free(&t.vals);
  stp__opt_cand_free(&t.c);
  free(t.pool);
  free(t.slowest);
  free(t.frames);
  return s;
}
