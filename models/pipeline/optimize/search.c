/* search.c: the heuristic of stp_optimize and the random baseline
 * (optimize.h, "methods").
 *
 * Constructive start: every free stage gets its fastest free processor
 * (stages of most work first), then the stages that limit the throughput
 * (the items at the minimum) grow, one processor at a time, taking the
 * best of the fastest free processors, while that helps; when no single
 * growth helps, a limiting stage and a neighbour grow together (under exp,
 * teams of 2 and 2 may beat 2 and 3 and lose to 3 and 3: the transfer
 * patterns between them change).
 *
 * Local search: a random move on the current mapping, biased towards the
 * limiting stages (only they can raise the minimum), kept when it is
 * better: a larger value, or the same value reached by fewer items, or a
 * larger second smallest item (so that plateaus where two items tie can be
 * crossed); equal moves are kept now and then.  Moves: grow a team with a
 * free processor (or two neighbouring teams at once), shrink it, give two
 * neighbouring teams new sizes that divide one another, move a member to
 * another team, swap members of two teams, exchange two whole
 * teams, replace a member by a free processor, move a member within its
 * team (the round-robin order matters).  Only the items of the changed
 * teams are evaluated again (optimize.h, "the evaluator").  After many moves without
 * progress, restart: the constructive start seeded at random among each
 * stage's three fastest processors, teams whose consecutive sizes divide
 * one another (transfers of u x 1 or 1 x v patterns, which lose nothing to
 * synchronisation under exp), the best mapping kicked by a few random
 * moves, or a random mapping.  One random stream, seeded: the same
 * seed gives the same sequence of candidates.
 *
 * Size profiles: on problems with at most PROFILES_MAX vectors of team
 * sizes for the free stages (every problem of 4 stages on 10 processors:
 * 210), the constructive start is followed by a sweep of them instead of
 * the climbs above: the profiles by decreasing bound, each that may still
 * beat the best gets a start of its own and a climb whose moves keep the
 * sizes (swap, replace, exchange, transpose, reorder), round after round
 * (later rounds from the profile's best kicked, or a randomized start),
 * until the budget ends or no profile's bound exceeds the best; then the
 * climbs above go on.  Under exp a climb over all sizes stays on the
 * profile whose assignment it has tuned ([4, 4] where [6, 3] is better:
 * the mappings between are worse), a local optimum the sweep does not
 * have (bench/README.md, "Issue 22").
 *
 * Many processors (RANDOM_PHASE_MIN_PROCESSORS): the random method's first
 * draws come first, and a climb from their best (random_phase). */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"
#include "base/xoshiro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct search {
  stp_opt_run *run;
  const stp_opt_space *sp; /* run's */
  stp_opt_eval *ev;        /* run's */
  const stp_opt_bound *b;
  stp_xoshiro rng;
  stp_opt_cand cur;
  stp_opt_vals cv, nv, bv; /* current, neighbour, best neighbour */
  unsigned char *changed; /* N */
  size_t nsaved, saved[2], saved_size[2];
  size_t *saved_team;     /* 2 * kmax */
  size_t *pool;           /* processors allowed at some free stage */
  size_t npool;
  size_t *stages;         /* the free stages */
  size_t nstages;
  size_t *crit;           /* the free stages of the limiting items */
  size_t ncrit;
  size_t *psize;          /* a size for each free stage (a profile) */
  bool keep_sizes;        /* moves keep every team's size (profile climbs) */
  stp_opt_cand alt;       /* a second candidate (the better of two starts) */
  uint64_t end;           /* stop at this many evaluations */
  uint64_t valued;        /* candidates valued exactly (with a value above -INFINITY) */
} search;

static size_t below(search *s, size_t n) { return (size_t)stp__xoshiro_below(&s->rng, n); }
static double unit(search *s) { return stp__xoshiro_unit(&s->rng); }

static void search_free(search *s) {
  s->ev->chain_cap = 0;
  stp__opt_cand_free(&s->cur);
  stp__opt_vals_free(&s->cv);
  stp__opt_vals_free(&s->nv);
  stp__opt_vals_free(&s->bv);
  free(s->changed);
  free(s->saved_team);
  free(s->pool);
  free(s->stages);
  free(s->crit);
  free(s->psize);
  stp__opt_cand_free(&s->alt);
}

static stp_status search_init(search *s, stp_opt_run *run, const stp_opt_bound *b, uint64_t budget,
                              stp_error *err) {
  memset(s, 0, sizeof *s);
  s->run = run;
  s->sp = run->sp;
  s->ev = run->ev;
  const stp_opt_space *sp = run->sp;
  const stp_opt_eval *ev = run->ev;
  s->b = b;
  s->end = budget ? ev->evaluated + budget : UINT64_MAX;
  stp__xoshiro_seed(&s->rng, run->opts->seed, 0x6f7074696d697a65ull); /* "optimize" */
  s->changed = stp__calloc(sp->N, 1);
  s->saved_team = stp__calloc(2 * sp->kmax, sizeof *s->saved_team);
  s->pool = stp__calloc(sp->M, sizeof *s->pool);
  s->stages = stp__calloc(sp->N, sizeof *s->stages);
  s->crit = stp__calloc(sp->N, sizeof *s->crit);
  s->psize = stp__calloc(sp->N, sizeof *s->psize);
  stp_status st = s->changed && s->saved_team && s->pool && s->stages && s->crit && s->psize
                      ? stp__opt_cand_alloc(sp, &s->cur, err)
                      : stp__oom(err, "searching mappings");
  if (st == STP_OK)
    st = stp__opt_cand_alloc(sp, &s->alt, err);
  if (st == STP_OK)
    st = stp__opt_vals_alloc(ev, &s->cv, err);
  if (st == STP_OK)
    st = stp__opt_vals_alloc(ev, &s->nv, err);
  if (st == STP_OK)
    st = stp__opt_vals_alloc(ev, &s->bv, err);
  if (st != STP_OK) {
    search_free(s);
    return st;
  }
  for (size_t i = 0; i < sp->N; i++)
    if (!stp__opt_fixed_size(sp, i))
      s->stages[s->nstages++] = i;
  for (size_t p = 0; p < sp->M; p++)
    for (size_t k = 0; k < s->nstages; k++)
      if (sp->allowed[s->stages[k] * sp->M + p]) {
        s->pool[s->npool++] = p;
        break;
      }
  return STP_OK;
}

static bool stopping(search *s) {
  return stp__opt_stopping(s->run) || s->ev->evaluated >= s->end;
}

static bool allowed(const search *s, size_t i, size_t p) {
  return s->sp->allowed[i * s->sp->M + p];
}

/* ---- moves with undo -------------------------------------------------------------- */
static void save(search *s, size_t i) {
  for (size_t k = 0; k < s->nsaved; k++)
    if (s->saved[k] == i)
      return;
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  s->saved[s->nsaved] = i;
  s->saved_size[s->nsaved] = s->cur.size[i];
  memcpy(s->saved_team + s->nsaved * sp->kmax, stp__opt_team(sp, &s->cur, i),
         s->cur.size[i] * sizeof *s->saved_team);
  s->nsaved++;
  s->changed[i] = 1;
}

static void set_owners(search *s, size_t i, size_t owner) {
  const size_t *t = stp__opt_team(s->sp, &s->cur, i);
  for (size_t k = 0; k < s->cur.size[i]; k++)
    s->cur.owner[t[k]] = owner == STP_OPT_NONE ? STP_OPT_NONE : i;
}

static void undo(search *s) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  for (size_t k = 0; k < s->nsaved; k++)
    set_owners(s, s->saved[k], STP_OPT_NONE);
  for (size_t k = 0; k < s->nsaved; k++) {
    size_t i = s->saved[k];
    s->cur.size[i] = s->saved_size[k];
    memcpy(stp__opt_team(sp, &s->cur, i), s->saved_team + k * sp->kmax,
           s->saved_size[k] * sizeof *s->saved_team);
    set_owners(s, i, i);
  }
}

static void commit(search *s) {
  for (size_t k = 0; k < s->nsaved; k++)
    s->changed[s->saved[k]] = 0;
  s->nsaved = 0;
}

static void forget(search *s) {
  undo(s);
  commit(s);
}

/* A free processor allowed at stage i, the fastest of three drawn most of
 * the time; STP_OPT_NONE when none was found. */
static size_t free_processor(search *s, size_t i) {
  size_t best = STP_OPT_NONE, draws = unit(s) < 0.3 ? 1 : 3;
  for (size_t tries = 0, got = 0; tries < 24 && got < draws; tries++) {
    size_t p = s->pool[below(s, s->npool)];
    if (s->cur.owner[p] != STP_OPT_NONE || !allowed(s, i, p))
      continue;
    got++;
    if (best == STP_OPT_NONE || s->b->t[i * s->sp->M + p] < s->b->t[i * s->sp->M + best])
      best = p;
  }
  return best;
}

/* A free stage, one of the limiting ones most of the time. */
static size_t pick_stage(search *s) {
  if (s->ncrit && unit(s) < 0.7)
    return s->crit[below(s, s->ncrit)];
  return s->stages[below(s, s->nstages)];
}

static size_t other_stage(search *s, size_t a) {
  if (s->nstages < 2)
    return STP_OPT_NONE;
  size_t b;
  do
    b = s->stages[below(s, s->nstages)];
  while (b == a);
  return b;
}

static bool grow(search *s, size_t a) {
  if (s->cur.size[a] >= s->sp->kmax)
    return false;
  size_t p = free_processor(s, a);
  if (p == STP_OPT_NONE)
    return false;
  save(s, a);
  stp__opt_cand_insert(s->sp, &s->cur, a, below(s, s->cur.size[a] + 1), p);
  return true;
}

/* Grow a team and a neighbour's at once: under exp, teams of 2 and 2 may
 * beat 2 and 3 and lose to 3 and 3 (the patterns between them change), so
 * single growths can all lose where the pair wins. */
static bool grow_pair(search *s, size_t a) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  size_t b = a + 1 < sp->N && (a == 0 || unit(s) < 0.5) ? a + 1 : a - 1;
  if (b >= sp->N || stp__opt_fixed_size(sp, b) || s->cur.size[b] >= sp->kmax || !grow(s, a))
    return false;
  if (grow(s, b))
    return true;
  forget(s); /* the first growth alone is another move */
  return false;
}

static bool shrink(search *s, size_t a) {
  if (s->cur.size[a] < 2)
    return false;
  save(s, a);
  stp__opt_cand_remove(s->sp, &s->cur, a, below(s, s->cur.size[a]));
  return true;
}

static bool replace(search *s, size_t a) {
  size_t p = free_processor(s, a);
  if (p == STP_OPT_NONE)
    return false;
  size_t y = below(s, s->cur.size[a]);
  save(s, a);
  stp__opt_cand_remove(s->sp, &s->cur, a, y);
  stp__opt_cand_insert(s->sp, &s->cur, a, y, p);
  return true;
}

static bool move(search *s, size_t a) {
  size_t b = other_stage(s, a);
  if (b == STP_OPT_NONE || s->cur.size[a] < 2 || s->cur.size[b] >= s->sp->kmax)
    return false;
  size_t y = below(s, s->cur.size[a]), p = stp__opt_team(s->sp, &s->cur, a)[y];
  if (!allowed(s, b, p))
    return false;
  save(s, a);
  save(s, b);
  stp__opt_cand_remove(s->sp, &s->cur, a, y);
  stp__opt_cand_insert(s->sp, &s->cur, b, below(s, s->cur.size[b] + 1), p);
  return true;
}

static bool swap(search *s, size_t a) {
  size_t b = other_stage(s, a);
  if (b == STP_OPT_NONE)
    return false;
  size_t ya = below(s, s->cur.size[a]), yb = below(s, s->cur.size[b]);
  size_t *ta = stp__opt_team(s->sp, &s->cur, a), *tb = stp__opt_team(s->sp, &s->cur, b);
  size_t p = ta[ya], q = tb[yb];
  if (!allowed(s, b, p) || !allowed(s, a, q))
    return false;
  save(s, a);
  save(s, b);
  ta[ya] = q;
  tb[yb] = p;
  s->cur.owner[q] = a;
  s->cur.owner[p] = b;
  return true;
}

/* The teams of stages a and b change places (no check). */
static void swap_teams(search *s, size_t a, size_t b) {
  size_t *ta = stp__opt_team(s->sp, &s->cur, a), *tb = stp__opt_team(s->sp, &s->cur, b);
  for (size_t k = 0; k < s->sp->kmax; k++) {
    size_t t = ta[k];
    ta[k] = tb[k];
    tb[k] = t;
  }
  size_t r = s->cur.size[a];
  s->cur.size[a] = s->cur.size[b];
  s->cur.size[b] = r;
  set_owners(s, a, a);
  set_owners(s, b, b);
}

/* Exchange the whole teams of two stages (a pipeline of similar stages may
 * want its large team elsewhere: one move instead of many worse ones). */
static bool exchange(search *s, size_t a) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  size_t b = other_stage(s, a);
  if (b == STP_OPT_NONE)
    return false;
  size_t *ta = stp__opt_team(sp, &s->cur, a), *tb = stp__opt_team(sp, &s->cur, b);
  for (size_t k = 0; k < s->cur.size[a]; k++)
    if (!allowed(s, b, ta[k]))
      return false;
  for (size_t k = 0; k < s->cur.size[b]; k++)
    if (!allowed(s, a, tb[k]))
      return false;
  save(s, a);
  save(s, b);
  swap_teams(s, a, b);
  return true;
}

/* The teams in reverse stage order (no fixed team): a pipeline of similar
 * stages may want its large teams at the other end, many moves away. */
static bool mirror(search *s) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  if (s->nstages != sp->N || sp->N < 2)
    return false;
  for (size_t i = 0; i < sp->N; i++) {
    const size_t *t = stp__opt_team(sp, &s->cur, i);
    for (size_t k = 0; k < s->cur.size[i]; k++)
      if (!allowed(s, sp->N - 1 - i, t[k]))
        return false;
  }
  for (size_t i = 0; i < sp->N / 2; i++)
    swap_teams(s, i, sp->N - 1 - i);
  return true;
}

static bool reorder(search *s, size_t a) {
  size_t r = s->cur.size[a];
  if (r < 2)
    return false;
  size_t from = below(s, r), to = below(s, r - 1);
  if (to >= from)
    to++;
  save(s, a);
  size_t p = stp__opt_cand_remove(s->sp, &s->cur, a, from);
  stp__opt_cand_insert(s->sp, &s->cur, a, to, p);
  return true;
}

/* Two members of a team change places: which senders pair with which
 * receivers changes for those two alone (reorder shifts every member
 * between). */
static bool transpose(search *s, size_t a) {
  size_t r = s->cur.size[a];
  if (r < 2)
    return false;
  size_t y = below(s, r), z = below(s, r - 1);
  z += z >= y;
  save(s, a);
  size_t *t = stp__opt_team(s->sp, &s->cur, a), p = t[y];
  t[y] = t[z];
  t[z] = p;
  return true;
}

/* Whether teams of sizes a and b pair into u x 1 or 1 x v patterns. */
static bool divides(size_t a, size_t b) { return a && b && (a % b == 0 || b % a == 0); }

/* Fill team i up to r members with fast free processors at random places
 * (false when none is left). */
static bool fill_to(search *s, size_t i, size_t r) {
  while (s->cur.size[i] < r) {
    size_t p = free_processor(s, i);
    if (p == STP_OPT_NONE)
      return false;
    stp__opt_cand_insert(s->sp, &s->cur, i, below(s, s->cur.size[i] + 1), p);
  }
  return true;
}

/* Give team a and its neighbour b new sizes that divide one another, in
 * one move: [4, 4] -> [6, 3] takes single growths and shrinks through
 * sizes that do not divide (synchronisation losses under exp) or through
 * worse mappings, a valley the climbs rarely cross.  Members leave at
 * random; newcomers are fast free processors. */
static bool resize(search *s, size_t a) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  size_t b = a + 1 < sp->N && (a == 0 || unit(s) < 0.5) ? a + 1 : a - 1;
  if (b >= sp->N || stp__opt_fixed_size(sp, b))
    return false;
  size_t room = s->cur.size[a] + s->cur.size[b];
  for (size_t k = 0; k < s->npool; k++)
    room += s->cur.owner[s->pool[k]] == STP_OPT_NONE;
  size_t ra = 1 + below(s, sp->kmax < room - 1 ? sp->kmax : room - 1);
  size_t cand[64], n = 0; /* sizes for b: divisors and multiples of ra */
  for (size_t d = 1; d <= ra && d + ra <= room && n < 64; d++)
    if (ra % d == 0)
      cand[n++] = d;
  for (size_t m = 2; m * ra + ra <= room && m * ra <= sp->kmax && n < 64; m++)
    cand[n++] = m * ra;
  size_t rb = n ? cand[below(s, n)] : 0;
  if (!n || (ra == s->cur.size[a] && rb == s->cur.size[b]))
    return false;
  save(s, a);
  save(s, b);
  /* shrink both first: who leaves one team may join the other */
  while (s->cur.size[a] > ra)
    stp__opt_cand_remove(sp, &s->cur, a, below(s, s->cur.size[a]));
  while (s->cur.size[b] > rb)
    stp__opt_cand_remove(sp, &s->cur, b, below(s, s->cur.size[b]));
  if (fill_to(s, a, ra) && fill_to(s, b, rb))
    return true;
  forget(s);
  return false;
}

/* Neighbouring teams of stage i whose sizes do not divide each other, with
 * team i of size r. */
static size_t broken_pairs(const search *s, size_t i, size_t r) {
  size_t n = 0;
  if (i > 0 && s->cur.size[i - 1])
    n += !divides(s->cur.size[i - 1], r);
  if (i + 1 < s->sp->N && s->cur.size[i + 1])
    n += !divides(r, s->cur.size[i + 1]);
  return n;
}

/* Whether the move just made leaves no more neighbouring teams of sizes
 * that do not divide each other than before (its stages are saved). */
static bool keeps_divisible(const search *s) {
  size_t before = 0, after = 0;
  for (size_t k = 0; k < s->nsaved; k++) {
    size_t i = s->saved[k];
    before += broken_pairs(s, i, s->saved_size[k]);
    after += broken_pairs(s, i, s->cur.size[i]);
  }
  return after <= before;
}

/* Whether the move just made left every team's size as it was. */
static bool keeps_sizes(const search *s) {
  for (size_t k = 0; k < s->nsaved; k++)
    if (s->cur.size[s->saved[k]] != s->saved_size[k])
      return false;
  return true;
}

/* Apply one random move (false: none found in a few tries); in a profile
 * climb (keep_sizes) one that keeps every team's size.  Under exp (and
 * law), nine moves in ten must not break the divisibility of team sizes: a u x 1
 * pattern loses nothing to synchronisation and costs no chain, so the good
 * mappings are there, and the others cost a Markov chain each. */
static bool random_move(search *s) {
  if (!s->nstages)
    return false;
  bool divisible = s->ev->objective != STP_OBJECTIVE_DET && unit(s) < 0.9;
  for (int tries = 0; tries < 16; tries++) {
    size_t a = pick_stage(s);
    double u = unit(s);
    if (s->keep_sizes) {
      bool done = u < 0.3    ? swap(s, a)
                  : u < 0.6  ? replace(s, a)
                  : u < 0.65 ? exchange(s, a)
                  : u < 0.9  ? transpose(s, a)
                             : reorder(s, a);
      if (done && !keeps_sizes(s)) {
        forget(s);
        done = false;
      }
      if (done)
        return true;
      continue;
    }
    bool done = u < 0.12   ? grow(s, a)
                : u < 0.2  ? grow_pair(s, a)
                : u < 0.25 ? resize(s, a)
                : u < 0.35 ? shrink(s, a)
                : u < 0.5  ? move(s, a)
                : u < 0.65 ? swap(s, a)
                : u < 0.8  ? replace(s, a)
                : u < 0.85 ? exchange(s, a)
                           : reorder(s, a);
    if (done && divisible && !keeps_divisible(s)) {
      forget(s);
      done = false;
    }
    if (done)
      return true;
  }
  return false;
}

/* ---- evaluation ------------------------------------------------------------------------ */
/* The stages of the items at the minimum of cv. */
static void find_critical(search *s) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  s->ncrit = 0;
  if (sp->model == STP_MODEL_STRICT)
    return;
  unsigned char *mark = s->changed; /* all zero between moves */
  for (size_t col = 0; col < ev->nitems; col++) {
    if (!stp__close(s->cv.item[col], s->cv.value, STP_OPT_RTOL, 0))
      continue;
    mark[col / 2] = 1;
    if (col % 2)
      mark[col / 2 + 1] = 1;
  }
  for (size_t i = 0; i < sp->N; i++) {
    if (mark[i] && !stp__opt_fixed_size(sp, i))
      s->crit[s->ncrit++] = i;
    mark[i] = 0;
  }
}

/* +1 when a is better than b, 0 when equal, -1 when worse. */
static int compare(const stp_opt_vals *a, const stp_opt_vals *b) {
  if (!a->exact || a->value < b->value - fabs(b->value) * STP_OPT_RTOL)
    return -1;
  if (a->value > b->value + fabs(b->value) * STP_OPT_RTOL)
    return 1;
  if (a->at_min != b->at_min)
    return a->at_min < b->at_min ? 1 : -1;
  if (a->second > b->second + fabs(b->second) * STP_OPT_RTOL)
    return 1;
  if (a->second < b->second - fabs(b->second) * STP_OPT_RTOL)
    return -1;
  return 0;
}

/* The chain cap grows while the search has valued no candidate: a problem
 * whose every candidate has a chain above the cap (a Strict pipeline of 12
 * stages on 12 processors: 236,196 states each, above the default cap of
 * 200,000) would otherwise find no mapping at all, or only the problem's
 * own.  It grows fourfold, and goes (0: only the evaluation's limits) once
 * it would reach max_states. */
#define CAP_GROWTH 4

static bool grow_cap(search *s) {
  stp_opt_eval *ev = s->ev;
  stp_opt_run *run = s->run;
  if (!ev->chain_cap || s->valued)
    return false;
  uint64_t most = ev->opts.max_states;
  ev->chain_cap = ev->chain_cap >= most / CAP_GROWTH ? 0 : ev->chain_cap * CAP_GROWTH;
  run->capped_at = ev->chain_cap ? ev->chain_cap : most;
  return true;
}

/* Evaluate cur into out, incrementally from cv when incremental; limits
 * make a candidate worthless, not an error.  A candidate dropped for the
 * chain cap while there is no best yet is evaluated again under a larger
 * cap (grow_cap), counted once. */
static stp_status evaluate(search *s, bool incremental, double threshold, stp_opt_vals *out,
                           stp_error *err) {
  stp_status st = stp__opt_evaluate(s->ev, &s->cur, incremental ? &s->cv : NULL, s->changed,
                                    threshold, out, err);
  while (st == STP_ELIMIT && s->ev->capped_now && grow_cap(s)) {
    s->ev->capped_now = false;
    s->ev->evaluated--;
    st = stp__opt_evaluate(s->ev, &s->cur, incremental ? &s->cv : NULL, s->changed, threshold,
                           out, err);
  }
  if (st == STP_ELIMIT) {
    if (s->ev->capped_now)
      s->run->capped++;
    else
      s->run->skipped++;
    s->ev->capped_now = false;
    out->exact = false;
    out->value = -INFINITY;
    return STP_OK;
  }
  s->valued += st == STP_OK && out->exact && out->value > -INFINITY;
  return st;
}

/* cur was replaced: evaluate it fully as the current mapping. */
static stp_status reset_current(search *s, stp_error *err) {
  STP_CHECK(evaluate(s, false, -INFINITY, &s->cv, err));
  if (s->cv.exact)
    stp__opt_offer(s->run, &s->cur, s->cv.value);
  find_critical(s);
  return STP_OK;
}

static double threshold_of(const stp_opt_vals *v) {
  return v->exact ? v->value - fabs(v->value) * STP_OPT_RTOL : -INFINITY;
}

/* ---- starts -------------------------------------------------------------------------- */
/* A random mapping in cur: the fixed teams, then a random number of free
 * processors in random order, split at random among the free stages.
 * False when the draw broke a constraint (draw again). */
static bool random_mapping(search *s) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp__opt_cand_fixed(sp, &s->cur);
  size_t n = s->nstages;
  if (n == 0)
    return true;
  if (s->npool < n)
    return false;
  size_t most = n * sp->kmax < s->npool ? n * sp->kmax : s->npool;
  size_t k = n + below(s, most - n + 1);
  for (size_t j = 0; j < k; j++) { /* the first k of a random permutation */
    size_t at = j + below(s, s->npool - j), t = s->pool[j];
    s->pool[j] = s->pool[at];
    s->pool[at] = t;
  }
  /* sizes: n - 1 distinct cuts among the k - 1 gaps */
  size_t *cut = s->crit; /* n entries of scratch; find_critical rebuilds it */
  for (size_t tries = 0; tries < 64; tries++) {
    size_t m = 0;
    while (m + 1 < n) {
      size_t c = 1 + below(s, k - 1), dup = 0;
      for (size_t q = 0; q < m; q++)
        dup |= cut[q] == c;
      if (!dup)
        cut[m++] = c;
    }
    for (size_t a = 1; a < m; a++) /* insertion sort: n is small */
      for (size_t b = a; b > 0 && cut[b - 1] > cut[b]; b--) {
        size_t t = cut[b];
        cut[b] = cut[b - 1];
        cut[b - 1] = t;
      }
    size_t prev = 0, ok = 1;
    for (size_t st = 0; st < n && ok; st++) {
      size_t end = st + 1 < n ? cut[st] : k;
      ok = end - prev <= sp->kmax;
      prev = end;
    }
    if (!ok)
      continue;
    prev = 0;
    for (size_t st = 0; st < n; st++) {
      size_t end = st + 1 < n ? cut[st] : k, i = s->stages[st];
      for (size_t j = prev; j < end; j++) {
        if (!allowed(s, i, s->pool[j]))
          return false;
        stp__opt_cand_insert(sp, &s->cur, i, s->cur.size[i], s->pool[j]);
      }
      prev = end;
    }
    return true;
  }
  return false;
}

static size_t kth_free(const search *s, size_t i, size_t k, size_t not);

/* A random mapping that evaluates (false: none in many draws). */
static stp_status random_start(search *s, bool *found, stp_error *err) {
  *found = false;
  for (int tries = 0; tries < 100 && !stopping(s); tries++) {
    if (!random_mapping(s))
      continue;
    STP_CHECK(reset_current(s, err));
    if (s->cv.exact && s->cv.value > -INFINITY) {
      *found = true;
      return STP_OK;
    }
  }
  return STP_OK;
}

/* A size for the free stage after one of size r: a divisor or a multiple
 * of r, at most `room`. */
static size_t divisible_size(search *s, size_t r, size_t room) {
  size_t cand[64], n = 0;
  for (size_t d = 1; d <= r && d <= room && n < 64; d++)
    if (r % d == 0)
      cand[n++] = d;
  for (size_t k = 2; k * r <= room && n < 64; k++)
    cand[n++] = k * r;
  return n ? cand[below(s, n)] : 1;
}

/* Teams whose consecutive sizes divide one another (the transfer patterns
 * are then u x 1 or 1 x v: no loss to synchronisation under exp, a shape
 * single moves rarely reach from others), filled with the fastest free
 * processors, stages of most work first, members in random order; false
 * when that breaks a constraint. */
static bool divisible_mapping(search *s) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp__opt_cand_fixed(sp, &s->cur);
  size_t n = s->nstages, left = s->npool, r = 0;
  if (n == 0 || left < n)
    return n == 0;
  size_t *size = s->crit; /* scratch: find_critical rebuilds it */
  for (size_t k = 0; k < n; k++) {
    size_t room = left - (n - 1 - k);
    room = room < sp->kmax ? room : sp->kmax;
    r = k == 0 ? 1 + below(s, room) : divisible_size(s, r, room);
    size[k] = r;
    left -= r;
  }
  for (size_t k = 0; k < n; k++) {
    size_t i = s->stages[k];
    for (size_t j = 0; j < size[k]; j++) {
      size_t p = kth_free(s, i, 0, STP_OPT_NONE);
      if (p == STP_OPT_NONE)
        return false;
      stp__opt_cand_insert(sp, &s->cur, i, below(s, s->cur.size[i] + 1), p);
    }
  }
  return true;
}

/* Teams of the sizes of the profile size[] (one per free stage), built as
 * chains through the pipeline: member m of each team is the free processor
 * allowed there whose slowest of its computation and its links from the
 * members of the previous team that send to it (those x = m mod gcd of the
 * two sizes) is the smallest (one of the two best at random when
 * randomized).  With equal sizes r every transfer is r components of one
 * link (exp = det), and the links are chosen fast.  False when the
 * profile does not fit. */
static bool profile_chains(search *s, const size_t *size, bool randomized) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp__opt_cand_fixed(sp, &s->cur);
  for (size_t k = 0; k < s->nstages; k++) {
    size_t i = s->stages[k], r = size[k];
    if (r == 0 || r > sp->kmax)
      return false;
    const size_t *prev = i > 0 ? stp__opt_team(sp, &s->cur, i - 1) : NULL;
    size_t nprev = i > 0 ? s->cur.size[i - 1] : 0;
    size_t g = nprev ? (size_t)stp__gcd_u64(nprev, r) : 1;
    for (size_t m = 0; m < r; m++) {
      size_t best[2] = {STP_OPT_NONE, STP_OPT_NONE};
      double cost[2] = {INFINITY, INFINITY};
      for (size_t j = 0; j < s->npool; j++) {
        size_t p = s->pool[j];
        if (s->cur.owner[p] != STP_OPT_NONE || !allowed(s, i, p))
          continue;
        double c = sp->comp[i * sp->M + p];
        for (size_t y = m % g; y < nprev && c < INFINITY; y += g) {
          size_t q = prev[y];
          double bw = sp->bw ? sp->bw[q * sp->M + p] : stp__link_bandwidth(sp->plat, q, p);
          c = stp__opt_link_ok(sp, i - 1, q, p) ? fmax(c, sp->plat->stages[i - 1].output / bw)
                                               : INFINITY;
        }
        if (c == INFINITY)
          continue;
        if (c < cost[0]) {
          best[1] = best[0], cost[1] = cost[0];
          best[0] = p, cost[0] = c;
        } else if (c < cost[1]) {
          best[1] = p, cost[1] = c;
        }
      }
      size_t p = randomized && best[1] != STP_OPT_NONE && unit(s) < 0.5 ? best[1] : best[0];
      if (p == STP_OPT_NONE)
        return false;
      stp__opt_cand_insert(sp, &s->cur, i, s->cur.size[i], p);
    }
  }
  return true;
}

/* Chains of r members per team (profile_chains). */
static bool chains_mapping(search *s, size_t r, bool randomized) {
  for (size_t k = 0; k < s->nstages; k++)
    s->psize[k] = r;
  return r > 0 && r * s->nstages <= s->npool && profile_chains(s, s->psize, randomized);
}

/* The fastest free processor of stage i whose links to the teams already
 * placed around it exist, put at its end; false when none. */
static bool seed_stage(search *s, size_t i, size_t skip) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  const size_t *order = s->b->order + i * sp->M;
  for (size_t k = 0; k < s->b->norder[i]; k++) {
    size_t p = order[k];
    if (s->cur.owner[p] != STP_OPT_NONE || (skip && skip--))
      continue;
    stp__opt_cand_insert(sp, &s->cur, i, s->cur.size[i], p);
    bool ok = (i == 0 || !s->cur.size[i - 1] || stp__opt_transfer_ok(sp, &s->cur, i - 1)) &&
              (i + 1 == sp->N || !s->cur.size[i + 1] || stp__opt_transfer_ok(sp, &s->cur, i));
    if (ok)
      return true;
    stp__opt_cand_remove(sp, &s->cur, i, s->cur.size[i] - 1);
  }
  return false;
}

/* Grow a limiting stage by the best of its fastest free processors, while
 * that improves the mapping; when no single growth does, grow it together
 * with a neighbour (see grow_pair). */
#define GROW_CANDIDATES 16
#define PAIR_CANDIDATES 4

/* The k-th fastest free processor allowed at stage i other than `not`. */
static size_t kth_free(const search *s, size_t i, size_t k, size_t not) {
  const size_t *order = s->b->order + i * s->sp->M;
  for (size_t j = 0; j < s->b->norder[i]; j++)
    if (s->cur.owner[order[j]] == STP_OPT_NONE && order[j] != not && k-- == 0)
      return order[j];
  return STP_OPT_NONE;
}

typedef struct growth {
  size_t stage[2], p[2], n; /* n = 0: none */
} growth;

/* Try cur plus g; keep it in *best (values in bv) when it beats the best so
 * far (or cv). */
static stp_status try_growth(search *s, const growth *g, growth *best, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  const stp_opt_vals *ref = best->n ? &s->bv : &s->cv;
  for (size_t k = 0; k < g->n; k++) {
    save(s, g->stage[k]);
    stp__opt_cand_insert(sp, &s->cur, g->stage[k], s->cur.size[g->stage[k]], g->p[k]);
  }
  STP_CHECK(evaluate(s, true, threshold_of(ref), &s->nv, err));
  forget(s);
  if (compare(&s->nv, ref) > 0) {
    *best = *g;
    stp__opt_vals_copy(ev, &s->bv, &s->nv);
  }
  return STP_OK;
}

static stp_status best_growth(search *s, bool pairs, growth *best, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  best->n = 0;
  for (size_t c = 0; c < s->ncrit && !stopping(s); c++) {
    size_t i = s->crit[c];
    if (s->cur.size[i] >= sp->kmax)
      continue;
    for (size_t k = 0; !pairs && k < GROW_CANDIDATES; k++) {
      growth g = {{i}, {kth_free(s, i, k, STP_OPT_NONE)}, 1};
      if (g.p[0] == STP_OPT_NONE)
        break;
      STP_CHECK(try_growth(s, &g, best, err));
    }
    for (size_t side = 0; pairs && side < 2; side++) {
      size_t j = side ? i + 1 : i - 1; /* i - 1 wraps for i = 0: out of range */
      if (j >= sp->N || stp__opt_fixed_size(sp, j) || s->cur.size[j] >= sp->kmax)
        continue;
      for (size_t a = 0; a < PAIR_CANDIDATES; a++)
        for (size_t b = 0; b < PAIR_CANDIDATES; b++) {
          growth g = {{i, j}, {kth_free(s, i, a, STP_OPT_NONE), 0}, 2};
          if (g.p[0] == STP_OPT_NONE || (g.p[1] = kth_free(s, j, b, g.p[0])) == STP_OPT_NONE)
            continue;
          STP_CHECK(try_growth(s, &g, best, err));
        }
    }
  }
  return STP_OK;
}

static stp_status grow_limiting(search *s, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  while (!stopping(s)) {
    growth best;
    STP_CHECK(best_growth(s, false, &best, err));
    if (!best.n)
      STP_CHECK(best_growth(s, true, &best, err));
    if (!best.n)
      return STP_OK;
    for (size_t k = 0; k < best.n; k++)
      stp__opt_cand_insert(sp, &s->cur, best.stage[k], s->cur.size[best.stage[k]], best.p[k]);
    stp__opt_vals_copy(ev, &s->cv, &s->bv);
    stp__opt_offer(run, &s->cur, s->cv.value);
    find_critical(s);
  }
  return STP_OK;
}

/* The constructive start ends with the best of itself and of the chains of
 * every size r (chains_mapping), evaluated in turn. */
static stp_status best_chains(search *s, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  stp_opt_cand keep;
  STP_CHECK(stp__opt_cand_alloc(sp, &keep, err));
  stp__opt_cand_copy(sp, &keep, &s->cur);
  stp__opt_vals_copy(ev, &s->bv, &s->cv);
  bool improved = false;
  stp_status st = STP_OK;
  for (size_t r = 1; st == STP_OK && r <= sp->kmax && !stopping(s); r++) {
    if (!chains_mapping(s, r, false))
      break;
    st = evaluate(s, false, threshold_of(&s->bv), &s->nv, err);
    if (st == STP_OK && compare(&s->nv, &s->bv) > 0) {
      stp__opt_cand_copy(sp, &keep, &s->cur);
      stp__opt_vals_copy(ev, &s->bv, &s->nv);
      improved = true;
    }
  }
  stp__opt_cand_copy(sp, &s->cur, &keep);
  stp__opt_cand_free(&keep);
  if (st == STP_OK && improved) {
    stp__opt_vals_copy(ev, &s->cv, &s->bv);
    stp__opt_offer(run, &s->cur, s->cv.value);
    find_critical(s);
  }
  return st;
}

/* The constructive start; randomized, each stage is seeded with one of its
 * three fastest free processors at random (restarts: other good starts). */
static stp_status constructive(search *s, bool randomized, bool *found, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  *found = false;
  stp__opt_cand_fixed(sp, &s->cur);
  size_t *order = s->crit; /* the free stages, most work first */
  memcpy(order, s->stages, s->nstages * sizeof *order);
  for (size_t a = 1; a < s->nstages; a++)
    for (size_t b = a; b > 0 && sp->plat->stages[order[b - 1]].work <
                                    sp->plat->stages[order[b]].work; b--) {
      size_t t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  for (size_t k = 0; k < s->nstages; k++)
    if (!seed_stage(s, order[k], randomized ? below(s, 3) : 0) &&
        !(randomized && seed_stage(s, order[k], 0)))
      return STP_OK;
  STP_CHECK(reset_current(s, err));
  if (!(s->cv.exact && s->cv.value > -INFINITY))
    return STP_OK;
  *found = true;
  STP_CHECK(grow_limiting(s, err));
  return randomized ? STP_OK : best_chains(s, err);
}

/* ---- local search ----------------------------------------------------------------------- */
/* Climb from cur until `patience` moves in a row bring nothing better than
 * the best of this climb.  With tolerance tau > 0 (record-to-record
 * travel) a worse move is kept too when it stays within tau of that best:
 * the climb can cross the valleys between two good mappings that no single
 * move joins (swapping two members changes which senders pair with which
 * receivers). */
static stp_status climb(search *s, uint64_t patience, double tau, stp_error *err) {
  stp_opt_run *run = s->run;
  stp_opt_eval *ev = run->ev;
  double record = s->cv.value;
  uint64_t fails = 0;
  while (fails < patience && !stopping(s) &&
         !(run->best_value >= run->upper_bound - fabs(run->upper_bound) * STP_OPT_RTOL)) {
    if (!random_move(s)) {
      fails++;
      continue;
    }
    double floor = tau > 0 ? fmin(record * (1 - tau), threshold_of(&s->cv)) : threshold_of(&s->cv);
    STP_CHECK(evaluate(s, true, floor, &s->nv, err));
    int c = compare(&s->nv, &s->cv);
    bool travel = tau > 0 && c < 0 && s->nv.exact;
    if (c > 0 || (c == 0 && unit(s) < 0.3) || travel) {
      commit(s);
      stp__opt_vals_copy(ev, &s->cv, &s->nv);
      if (s->cv.value > record + fabs(record) * STP_OPT_RTOL) {
        record = s->cv.value;
        stp__opt_offer(run, &s->cur, s->cv.value);
      }
      /* progress is a better score than the current one: the value, or
       * fewer items at it, or a larger second item (many items tie on
       * large problems); travelling down is not */
      fails = c > 0 ? 0 : fails + 1;
      find_critical(s);
    } else {
      forget(s);
      fails++;
    }
  }
  return STP_OK;
}

/* ---- size profiles ------------------------------------------------------------------ */
/* On small problems the heuristic first sweeps the size profiles: every
 * vector of team sizes of the free stages (PROFILES_MAX at most: 210 for 4
 * stages on 10 processors), best bound first.  Each gets a start of its
 * own, the better of two constructions, and a climb whose moves keep the
 * sizes, so that the profiles are compared on good assignments: a search
 * that changes sizes a move at a time stays on the profile whose
 * assignment it has tuned ([4, 4] where [6, 3] is better under exp: the
 * mappings between are worse).  A profile whose bound does not exceed the
 * best value is skipped: stage i with R_i members is at most R_i over the
 * R_i-th smallest t_i(p) (optimize.h, "bounds"), exp <= det included. */
#define PROFILES_MAX 4096
#define FIRST_PATIENCE 50
#define PROFILE_PATIENCE 300

typedef struct profiles {
  size_t n;           /* profiles */
  size_t *size;       /* n * nstages */
  double *bound;      /* n */
  size_t *order;      /* n: by decreasing bound */
  stp_opt_cand *best; /* n: each one's best mapping so far (size NULL: none) */
  double *value;      /* n: its value */
} profiles;

static void profiles_free(profiles *pr) {
  for (size_t j = 0; pr->best && j < pr->n; j++)
    stp__opt_cand_free(&pr->best[j]);
  free(pr->best);
  free(pr->value);
  free(pr->size);
  free(pr->bound);
  free(pr->order);
  *pr = (profiles){0}; /* make_profiles frees on failure; the caller frees again */
}

/* How many profiles of stages k.. with `left` processors, at most `cap`
 * (a saturating count: the recursion is cut there). */
static size_t count_profiles(const search *s, size_t k, size_t left, size_t cap) {
  if (k == s->nstages)
    return 1;
  size_t n = 0;
  for (size_t r = 1; r <= s->sp->kmax && r + (s->nstages - k - 1) <= left && n <= cap; r++)
    n += count_profiles(s, k + 1, left - r, cap - n);
  return n;
}

static void list_profiles(const search *s, profiles *pr, size_t *v, size_t k, size_t left) {
  if (k == s->nstages) {
    memcpy(pr->size + pr->n * s->nstages, v, s->nstages * sizeof *v);
    pr->bound[pr->n] = stp__opt_profile_bound(s->sp, s->b, s->stages, s->nstages, v);
    pr->n++;
    return;
  }
  for (size_t r = 1; r <= s->sp->kmax && r + (s->nstages - k - 1) <= left; r++) {
    v[k] = r;
    list_profiles(s, pr, v, k + 1, left - r);
  }
}

typedef struct ranked {
  double bound;
  size_t at;
} ranked;

/* Decreasing bound, then the order of listing (qsort is not stable). */
static int by_bound(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->bound != y->bound)
    return x->bound > y->bound ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

/* Every profile, best bound first; none (pr->n = 0) when there are more
 * than PROFILES_MAX. */
static stp_status make_profiles(const search *s, profiles *pr, stp_error *err) {
  memset(pr, 0, sizeof *pr);
  size_t n = s->nstages ? count_profiles(s, 0, s->npool, PROFILES_MAX) : 0;
  if (n == 0 || n > PROFILES_MAX)
    return STP_OK;
  pr->size = stp__malloc_array(n * s->nstages, sizeof *pr->size);
  pr->bound = stp__malloc_array(n, sizeof *pr->bound);
  pr->order = stp__malloc_array(n, sizeof *pr->order);
  pr->best = stp__calloc(n, sizeof *pr->best);
  pr->value = stp__malloc_array(n, sizeof *pr->value);
  if (!pr->size || !pr->bound || !pr->order || !pr->best || !pr->value) {
    profiles_free(pr);
    return stp__oom(err, "listing team sizes");
  }
  list_profiles(s, pr, s->psize, 0, s->npool);
  ranked *rk = stp__malloc_array(pr->n, sizeof *rk);
  if (!rk) {
    profiles_free(pr);
    return stp__oom(err, "listing team sizes");
  }
  for (size_t j = 0; j < pr->n; j++)
    rk[j] = (ranked){pr->bound[j], j};
  qsort(rk, pr->n, sizeof *rk, by_bound);
  for (size_t j = 0; j < pr->n; j++)
    pr->order[j] = rk[j].at;
  free(rk);
  return STP_OK;
}

/* The profile's teams from the fastest free processors, the stages of
 * most work per member first (one processor skipped now and then when
 * randomized); false when they do not fit. */
static bool profile_fastest(search *s, const size_t *size, bool randomized) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp__opt_cand_fixed(sp, &s->cur);
  size_t *order = s->crit; /* scratch (find_critical rebuilds it): free stages by load */
  for (size_t k = 0; k < s->nstages; k++)
    order[k] = k;
  for (size_t a = 1; a < s->nstages; a++)
    for (size_t b = a; b > 0; b--) {
      size_t p = order[b - 1], q = order[b];
      if (sp->plat->stages[s->stages[p]].work / (double)size[p] >=
          sp->plat->stages[s->stages[q]].work / (double)size[q])
        break;
      order[b - 1] = q;
      order[b] = p;
    }
  for (size_t a = 0; a < s->nstages; a++) {
    size_t k = order[a], i = s->stages[k];
    for (size_t j = 0; j < size[k]; j++) {
      size_t p = kth_free(s, i, randomized && unit(s) < 0.3, STP_OPT_NONE);
      if (p == STP_OPT_NONE && randomized)
        p = kth_free(s, i, 0, STP_OPT_NONE);
      if (p == STP_OPT_NONE)
        return false;
      stp__opt_cand_insert(sp, &s->cur, i, s->cur.size[i], p);
    }
  }
  return true;
}

/* The profile's teams from free processors drawn at random, in random
 * order; false when they do not fit. */
static bool profile_random(search *s, const size_t *size) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp__opt_cand_fixed(sp, &s->cur);
  for (size_t k = 0; k < s->nstages; k++)
    for (size_t j = 0; j < size[k]; j++) {
      size_t i = s->stages[k], p = STP_OPT_NONE;
      for (int tries = 0; tries < 64 && p == STP_OPT_NONE; tries++) {
        size_t q = s->pool[below(s, s->npool)];
        if (s->cur.owner[q] == STP_OPT_NONE && allowed(s, i, q))
          p = q;
      }
      if (p == STP_OPT_NONE && (p = kth_free(s, i, 0, STP_OPT_NONE)) == STP_OPT_NONE)
        return false;
      stp__opt_cand_insert(sp, &s->cur, i, s->cur.size[i], p);
    }
  return true;
}

/* The better of the profile's two starts into cur and cv (found false when
 * neither evaluates). */
static stp_status profile_start(search *s, const size_t *size, bool randomized, bool *found,
                                stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  stp_opt_eval *ev = run->ev;
  *found = false;
  int ways = randomized ? 1 : 2, pick = randomized ? (int)below(s, 3) : 0;
  for (int way = 0; way < ways; way++) {
    int w = way + pick;
    bool made = w == 2   ? profile_random(s, size)
                : w == 1 ? profile_chains(s, size, randomized)
                         : profile_fastest(s, size, randomized);
    if (!made)
      continue;
    STP_CHECK(evaluate(s, false, -INFINITY, &s->nv, err));
    if (!(s->nv.exact && s->nv.value > -INFINITY) || (*found && compare(&s->nv, &s->bv) <= 0))
      continue;
    *found = true;
    stp__opt_cand_copy(sp, &s->alt, &s->cur);
    stp__opt_vals_copy(ev, &s->bv, &s->nv);
  }
  if (*found) {
    stp__opt_cand_copy(sp, &s->cur, &s->alt);
    stp__opt_vals_copy(ev, &s->cv, &s->bv);
    stp__opt_offer(run, &s->cur, s->cv.value);
    find_critical(s);
  }
  return STP_OK;
}

/* The sweep, one profile at a time: in bound order, each profile that may
 * still beat the best; the first round from the profile's starts, the
 * next ones from its best kicked by a few moves (or, now and then, from a
 * randomized start), so that the profiles get climbs in turn until the
 * budget ends.  The first round's climbs are short (a survey: every
 * profile early), the later ones longer. */

typedef struct sweep {
  profiles pr;
  size_t j;      /* next position in pr.order */
  bool any;      /* the round visited a profile */
  uint64_t at;   /* evaluations when the round began */
  bool proved;   /* done because no profile's bound exceeds the best */
  bool done;     /* no profile may beat the best */
  size_t round;
} sweep;

/* Climb in the profile at pr.order[sw->j] (cur and cv: its mapping; *found
 * false when none evaluates). */
static stp_status sweep_visit(search *s, sweep *sw, size_t at, bool *found, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  profiles *pr = &sw->pr;
  stp_status st = STP_OK;
  s->keep_sizes = true;
  if (sw->round > 0 && pr->best[at].size && unit(s) < 0.5) {
    stp__opt_cand_copy(sp, &s->cur, &pr->best[at]);
    for (size_t k = 2 + below(s, 3); k > 0; k--) {
      random_move(s);
      commit(s);
    }
    st = reset_current(s, err);
    *found = st == STP_OK && s->cv.exact && s->cv.value > -INFINITY;
  } else {
    st = profile_start(s, pr->size + at * s->nstages, sw->round > 0, found, err);
  }
  if (st == STP_OK && *found)
    st = climb(s, sw->round ? PROFILE_PATIENCE : FIRST_PATIENCE, 0, err);
  s->keep_sizes = false;
  if (st == STP_OK && *found && (!pr->best[at].size || s->cv.value > pr->value[at])) {
    if (!pr->best[at].size)
      st = stp__opt_cand_alloc(sp, &pr->best[at], err);
    if (st == STP_OK) {
      stp__opt_cand_copy(sp, &pr->best[at], &s->cur);
      pr->value[at] = s->cv.value;
    }
  }
  return st;
}

/* A sweep of every profile of s's problem, from its first round (done at
 * once when there are too many profiles). */
static stp_status sweep_begin(const search *s, sweep *sw, stp_error *err) {
  *sw = (sweep){.at = s->ev->evaluated};
  stp_status st = make_profiles(s, &sw->pr, err);
  sw->done = sw->pr.n == 0;
  return st;
}

/* The next visit of the sweep (sw->done when there is none left). */
static stp_status sweep_step(search *s, sweep *sw, bool *found, stp_error *err) {
  stp_opt_run *run = s->run;
  stp_opt_eval *ev = run->ev;
  *found = false;
  for (;;) {
    if (sw->j < sw->pr.n) {
      size_t at = sw->pr.order[sw->j++];
      if (run->best_value == -INFINITY ||
          sw->pr.bound[at] > run->best_value + fabs(run->best_value) * STP_OPT_RTOL) {
        sw->any = true;
        return sweep_visit(s, sw, at, found, err);
      }
    }
    /* this one and the rest of the round cannot beat the best; a round
     * that evaluated nothing ends the sweep too (no profile could be
     * filled) */
    if (!sw->any || ev->evaluated == sw->at) {
      sw->done = true;
      sw->proved = !sw->any;
      return STP_OK;
    }
    sw->round++;
    sw->j = 0;
    sw->any = false;
    sw->at = ev->evaluated;
  }
}

/* Restart: a randomized constructive start, teams of divisible sizes or
 * chains, the best mapping kicked by a few random moves or mirrored, or a
 * random mapping. */
static stp_status restart(search *s, bool *found, stp_error *err) {
  stp_opt_run *run = s->run;
  const stp_opt_space *sp = run->sp;
  double u = unit(s);
  if (u < 0.25) {
    STP_CHECK(constructive(s, true, found, err));
    if (*found)
      return STP_OK;
  } else if (u < 0.5) {
    bool made = unit(s) < 0.5 ? divisible_mapping(s)
                              : chains_mapping(s, 1 + below(s, s->npool / s->nstages), true);
    if (made) {
      STP_CHECK(reset_current(s, err));
      if ((*found = s->cv.exact && s->cv.value > -INFINITY))
        return STP_OK;
    }
  } else if (u < 0.8 && run->best_value > -INFINITY) {
    stp__opt_cand_copy(sp, &s->cur, &run->best);
    size_t kicks = 2 + below(s, 4);
    if (unit(s) < 0.3 && mirror(s))
      kicks = below(s, 3); /* the mirror, and maybe a move or two */
    for (size_t k = kicks; k > 0; k--) {
      random_move(s);
      commit(s);
    }
    STP_CHECK(reset_current(s, err));
    if (s->cv.exact && s->cv.value > -INFINITY) {
      *found = true;
      return STP_OK;
    }
  }
  return random_start(s, found, err);
}

/* The search's context, with the heuristic's cap on chains. */
static stp_status search_start(search *s, stp_opt_run *run, const stp_opt_bound *b, uint64_t budget,
                               stp_error *err) {
  STP_CHECK(search_init(s, run, b, budget, err));
  stp_opt_eval *ev = run->ev;
  ev->chain_cap = ev->opts.max_states / (run->sp->model == STP_MODEL_STRICT
                                             ? STP_OPT_SEARCH_STRICT_SHARE
                                             : STP_OPT_SEARCH_CHAIN_SHARE);
  ev->chain_cap += !ev->chain_cap; /* 0 would mean no cap */
  run->capped_at = ev->chain_cap;
  return STP_OK;
}

stp_status stp__opt_sweep(stp_opt_run *run, const stp_opt_bound *b, uint64_t budget, bool *swept,
                          bool *proved, stp_error *err) {
  search s;
  STP_CHECK(search_start(&s, run, b, budget, err));
  sweep sw;
  stp_status st = sweep_begin(&s, &sw, err);
  *swept = sw.pr.n > 0;
  bool found;
  while (st == STP_OK && !sw.done && !stopping(&s) && !stp__opt_reached_bound(run))
    st = sweep_step(&s, &sw, &found, err);
  *proved = sw.proved;
  profiles_free(&sw.pr);
  search_free(&s);
  return st;
}

/* Draws that break a constraint in a row before the random method gives up. */
#define RANDOM_MAX_FAILS 10000

/* Random mappings, each offered to the run, until the search stops, `count`
 * have been evaluated or the clock reaches `until`. */
static stp_status random_draws(search *s, uint64_t count, double until, stp_error *err) {
  stp_opt_run *run = s->run;
  uint64_t end = s->ev->evaluated + count < s->ev->evaluated ? UINT64_MAX
                                                             : s->ev->evaluated + count;
  stp_status st = STP_OK;
  for (size_t fails = 0; st == STP_OK && fails < RANDOM_MAX_FAILS && !stopping(s) &&
                         s->ev->evaluated < end && !(until < INFINITY && stp__now() >= until);) {
    if (!random_mapping(s)) {
      fails++;
      continue;
    }
    fails = 0;
    st = evaluate(s, false, run->best_value, &s->cv, err);
    if (st == STP_OK && s->cv.exact)
      stp__opt_offer(run, &s->cur, s->cv.value);
  }
  return st;
}

/* On many processors the heuristic begins as the random method does: the
 * constructive start grows teams one processor at a time, 16 candidates a
 * step, and on 3 stages x 1,000 processors it had not ended after 10 s
 * (value 15 against 19.2 for 1,000 random mappings in 0.24 s).  Its first
 * RANDOM_PHASE_COUNT evaluations (fewer when the budget is smaller, and at
 * most half the time left) are the random method's draws (same seed, same
 * stream), then it climbs from their best: with the same budget of
 * evaluations it is never below the random method's first 1,000 draws. */
#define RANDOM_PHASE_MIN_PROCESSORS 200
#define RANDOM_PHASE_COUNT 1000

static stp_status random_phase(search *s, uint64_t budget, stp_error *err) {
  stp_opt_run *run = s->run;
  uint64_t count = RANDOM_PHASE_COUNT;
  if (budget && budget < count)
    count = budget;
  double until = isfinite(run->deadline) ? stp__now() + (run->deadline - stp__now()) / 2
                                         : INFINITY;
  stp_status st = random_draws(s, count, until, err);
  if (st != STP_OK || run->best_value == -INFINITY || stopping(s))
    return st;
  stp__opt_cand_copy(s->sp, &s->cur, &run->best);
  STP_CHECK(reset_current(s, err));
  if (!(s->cv.exact && s->cv.value > -INFINITY))
    return STP_OK;
  return climb(s, 100 + 10 * (uint64_t)s->sp->M, 0, err);
}

stp_status stp__opt_heuristic(stp_opt_run *run, const stp_opt_bound *b, uint64_t budget,
                              double *constructive_value, stp_error *err) {
  search s;
  STP_CHECK(search_start(&s, run, b, budget, err));
  *constructive_value = NAN;
  bool found;
  stp_status st = STP_OK;
  if (run->sp->M >= RANDOM_PHASE_MIN_PROCESSORS)
    st = random_phase(&s, budget, err);
  if (st == STP_OK)
    st = constructive(&s, false, &found, err);
  if (st == STP_OK && found)
    *constructive_value = s.cv.value;
  if (st == STP_OK && !found)
    st = random_start(&s, &found, err);
  const stp_opt_space *sp = run->sp;
  uint64_t patience = 100 + 10 * (uint64_t)sp->M;
  sweep sw = {.done = true};
  if (st == STP_OK)
    st = sweep_begin(&s, &sw, err);
  while (st == STP_OK && !stopping(&s) && !stp__opt_reached_bound(run)) {
    if (!sw.done) {
      st = sweep_step(&s, &sw, &found, err);
      if (st == STP_OK && sw.done && !found && run->best_value > -INFINITY) {
        stp__opt_cand_copy(sp, &s.cur, &run->best); /* the climbs go on from the best */
        st = reset_current(&s, err);
        found = s.cv.exact && s.cv.value > -INFINITY;
      }
      continue;
    }
    if (!found)
      break;
    /* climbs travel within up to 16 % of their record on 10 processors,
     * less on more (the more items, the more a wander loses: 1.6 % on 100) */
    static const double taus[] = {0, 1.0 / 16, 1.0 / 8, 1.0 / 4, 3.0 / 8, 1.0 / 2, 3.0 / 4, 1};
    double widest = 0.16 * fmin(1.0, 10.0 / (double)sp->M);
    st = climb(&s, patience, widest * taus[below(&s, 8)], err);
    if (st == STP_OK && !stopping(&s))
      st = restart(&s, &found, err);
  }
  profiles_free(&sw.pr);
  search_free(&s);
  return st;
}

stp_status stp__opt_random(stp_opt_run *run, stp_error *err) {
  search s;
  STP_CHECK(search_init(&s, run, NULL, 0, err));
  stp_status st = random_draws(&s, UINT64_MAX, INFINITY, err);
  search_free(&s);
  return st;
}
