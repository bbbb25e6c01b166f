/* distchain_petsc.c: the distributed chain of distchain.h, with MPI and
 * PETSc (built only with -DSTP_PETSC=ON).
 *
 * States.  Rank r owns the keys whose hash, remixed (so that the owner does
 * not correlate with the slot the local key set probes), maps to r; it
 * numbers its states 0, 1, ... in discovery order, so that each level of
 * the breadth-first search is a contiguous range of local numbers, and the
 * global number of a state is the count of states of the ranks before its
 * owner plus its local number.
 *
 * Levels.  Each rank expands its states of the current level and sends
 * every successor to its owner as a record of `words` + 1 words: the key,
 * then the source's local number and the move's label.  One MPI_Alltoall
 * of the sizes and one MPI_Alltoallv of the records per level; the owner
 * numbers the keys it receives (a new key joins the next level) and keeps
 * each record as an in-move (target, source rank and number, label): the
 * rows of Q^T are assembled where the moves arrive, with no transpose and
 * no reply.  The source keeps its out-labels (for the firing rates) and its
 * rate out (the diagonal).  The counts of every rank are summed after each
 * level: the limits (max_states over all ranks, the memory budget of each)
 * and the interrupt are decided by all ranks together.
 *
 * Solve.  A = Q^T, one PETSc AIJ matrix over the ranks, its rows in the
 * order of the solve (below), preallocated from the in-moves.  Three
 * routes (measured in bench/README.md, "One chain across MPI ranks"; the
 * PETSc option -stp_dist_method picks one, and PETSc's own options, e.g.
 * PETSC_OPTIONS="-ksp_type gmres -pc_type bjacobi", tune it):
 *   "null"  (default) the singular system A x = 0 itself from x = 1, the
 *           null space of A^T (the constants) attached, by BiCGStab
 *           preconditioned by a forward Gauss-Seidel sweep over each rank's
 *           rows (PETSc's SOR, local): 3 to 12 iterations on 1 to 4 ranks
 *           for 1e6 states (GMRES with block Jacobi / ILU(0): 6 to 21, and a
 *           quarter more memory, its factor and one vector per iteration);
 *   "fixed" row 0 of A replaced by e_0 and b = e_0, a nonsingular system,
 *           by the same Krylov method: about as many iterations (6 and 11
 *           on 1 and 2 ranks for 1.8e5 states; GMRES with ILU(0) stalled
 *           near 1e-11 and took about 65 whatever the ranks);
 *   "eps"   SLEPc (when found): the eigenvector of A for the eigenvalue of
 *           largest real part, 0: 150 to 200 Krylov-Schur iterations, ten
 *           times slower.
 * Every route ends with the scaled residual of the normalised pi, computed
 * as the serial solvers compute it, and restarts (up to a few rounds) from
 * its last iterate while that residual is above STP_DIST_TOLERANCE.
 *
 * Errors.  Every phase ends with an agreement: the worst status of all
 * ranks, and the message of the first rank that failed, reach every rank,
 * so that no rank waits in a collective call for one that gave up. */
#include "engine/distchain.h"

#include "base/core.h"
#include "streamtp_distributed.h"

#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef STP_SLEPC
#include <slepceps.h>
#endif

/* Restarts of a solve whose scaled residual stays above the tolerance. */
#define STP_DIST_ROUNDS 4
/* Bytes per state and per move of the enumeration, for the memory budget:
 * the key set (12 to 16 per key besides the key), the out-labels (4 per
 * move, 4 per state), the rate out (8), the in-moves (16 per move), and
 * the level's send and receive buffers (about 2 x (key + 8) per move of
 * the level). */
#define STP_DIST_STATE_BYTES 32
#define STP_DIST_MOVE_BYTES 20

/* ---- PETSc: started once, errors as statuses ---------------------------------------- */

static bool we_started;

static stp_status petsc_fail(PetscErrorCode e, const char *what, stp_error *err) {
  const char *text = NULL;
  PetscErrorMessage(e, &text, NULL);
  return stp__fail(err, e == PETSC_ERR_MEM ? STP_ENOMEM : STP_ENUMERIC, "PETSc: %s: %s", what,
                   text ? text : "error");
}

#define PCHECK(call, what)                                                    \
  do {                                                                        \
    PetscErrorCode pe_ = (call);                                              \
    if (pe_)                                                                  \
      return petsc_fail(pe_, what, err);                                      \
  } while (0)

static stp_status petsc_start(stp_error *err) {
  PetscBool up = PETSC_FALSE;
  PetscInitialized(&up);
  if (up)
    return STP_OK;
  /* the application keeps its signal handlers (Ctrl-C stops a batch) */
  PetscOptionsSetValue(NULL, "-no_signal_handler", NULL);
#ifdef STP_SLEPC
  PetscErrorCode e = SlepcInitializeNoArguments();
#else
  PetscErrorCode e = PetscInitializeNoArguments();
#endif
  if (e)
    return stp__fail(err, STP_EINTERNAL, "cannot start PETSc (error %d)", (int)e);
  we_started = true;
  /* errors come back as codes, which the library words; nothing printed */
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  return STP_OK;
}

int stp_distributed_available(void) { return 1; }

void stp_distributed_finalize(void) {
  if (!we_started)
    return;
  we_started = false;
#ifdef STP_SLEPC
  SlepcFinalize();
#else
  PetscFinalize();
#endif
}

/* ---- agreement ------------------------------------------------------------------- */

/* The worst status over the ranks; a rank that did not fail gets the
 * message of the first rank that did. */
static stp_status agree(MPI_Comm comm, int rank, int size, stp_status s, stp_error *err) {
  int mine = (int)s, worst;
  (void)MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst == STP_OK)
    return STP_OK;
  int who = s != STP_OK ? rank : size, first;
  (void)MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
  stp_error e = {0};
  if (rank == first && err)
    e = *err;
  (void)MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, comm);
  if (err)
    *err = e;
  return e.status != STP_OK ? e.status : (stp_status)worst;
}

/* ---- the enumeration --------------------------------------------------------------- */

/* A move as its target's owner keeps it: a row of Q^T. */
typedef struct in_move {
  uint32_t target;     /* local number */
  uint32_t src_rank;
  uint32_t src;        /* local number on src_rank */
  uint32_t label;
} in_move;

/* A level of the enumeration, over every rank: the states it found, the
 * words (8 bytes) of records exchanged, the seconds since the start. */
typedef struct level_log {
  uint64_t states, words;
  double seconds;
} level_log;

typedef struct dist {
  MPI_Comm comm;
  int rank, size;
  const stp_dense_source *src;
  const stp_options *o;
  size_t words, rec;        /* words per key, per record (key + source and label) */
  stp_keyset keys;          /* the states this rank owns */
  /* per local state: out-labels (CSR) and the rate out (moves to itself aside) */
  uint64_t *lab_start;      /* count + 1 */
  uint32_t *labels;
  double *out_rate;
  uint64_t nlab, cap_lab, cap_state;
  in_move *in;
  uint64_t nin, cap_in;
  /* the level's records: as the expansion writes them (with their
   * destinations), by destination rank, then what arrived */
  uint64_t *stage, *send, *recv;
  int *dest;
  uint64_t cap_stage, cap_dest, cap_send, cap_recv, nstage;
  int *scount, *sdispl, *rcount, *rdispl;
  uint64_t *fill;           /* records per destination */
  uint64_t nlocal;          /* states owned, once enumerated */
  uint64_t *start;          /* ndepths + 1: the first local state of each depth */
  uint64_t ndepths, cap_start;
  uint64_t self;            /* in-moves from a state to itself */
  uint64_t levels, global_states, global_moves, global_self;
  uint64_t period;          /* of the chain: levels of the solve's order */
  uint64_t sent_words;      /* over every level, this rank's records */
  double t0;
  level_log *log;           /* per level, over every rank (-stp_dist_log) */
  uint64_t cap_log;
} dist;

static int owner(const dist *d, uint64_t hash) {
  uint64_t h = (hash ^ (hash >> 29)) * UINT64_C(0xBF58476D1CE4E5B9);
  h ^= h >> 32;
  return (int)(((h & UINT64_C(0xFFFFFFFF)) * (uint64_t)d->size) >> 32);
}

static bool grow(void **p, uint64_t *cap, uint64_t need, size_t size) {
  return stp__grow(p, cap, need, size, 1024);
}

/* Room for the out-labels and rate of one more state. */
static bool room_for_state(dist *d, uint64_t s) {
  uint64_t cap = d->cap_state;
  if (!grow((void **)&d->out_rate, &cap, s + 1, sizeof *d->out_rate))
    return false;
  uint64_t cap2 = d->cap_state;
  if (!grow((void **)&d->lab_start, &cap2, s + 2, sizeof *d->lab_start))
    return false;
  d->cap_state = cap < cap2 ? cap : cap2;
  return true;
}

/* Expands local state s: its records into the stage, with their owners. */
static stp_status expand(dist *d, uint64_t s, stp_dense_row *row, stp_error *err) {
  row->n = 0;
  const uint64_t *key = stp__keyset_key(&d->keys, s);
  STP_CHECK(d->src->expand(d->src->ctx, key, row, err));
  if (row->n == 0)
    return stp__fail(err, STP_EDEADLOCK,
                     "the chain reaches a state (level %llu) where no transition can fire",
                     (unsigned long long)d->levels);
  uint64_t n = d->nstage + row->n;
  if (!room_for_state(d, s) ||
      !grow((void **)&d->labels, &d->cap_lab, d->nlab + row->n, sizeof *d->labels) ||
      !grow((void **)&d->stage, &d->cap_stage, n * d->rec, sizeof *d->stage) ||
      !grow((void **)&d->dest, &d->cap_dest, n, sizeof *d->dest))
    return stp__oom(err, "the distributed chain");
  double out = 0;
  for (uint32_t i = 0; i < row->n; i++) {
    const uint64_t *next = row->key + (size_t)i * d->words;
    uint32_t label = row->label[i];
    d->labels[d->nlab++] = label;
    if (memcmp(next, key, d->words * sizeof *key) != 0)
      out += d->src->rate[label];
    uint64_t *rec = d->stage + d->nstage * d->rec;
    memcpy(rec, next, d->words * sizeof *next);
    rec[d->words] = (s << 32) | label;
    d->dest[d->nstage++] = owner(d, row->hash[i]);
  }
  d->out_rate[s] = out;
  d->lab_start[s + 1] = d->nlab;
  return STP_OK;
}

/* The stage sorted by destination into the send buffer (a counting sort). */
static stp_status lay_out(dist *d, stp_error *err) {
  memset(d->fill, 0, (size_t)d->size * sizeof *d->fill);
  for (uint64_t k = 0; k < d->nstage; k++)
    d->fill[d->dest[k]]++;
  uint64_t at = 0;
  for (int q = 0; q < d->size; q++) {
    uint64_t w = d->fill[q] * d->rec;
    if (w > INT32_MAX || at > INT32_MAX)
      return stp__fail(err, STP_ELIMIT, "a level of the distributed chain sends more than 2^31 "
                       "words from one rank: use more ranks");
    d->scount[q] = (int)w;
    d->sdispl[q] = (int)at;
    d->fill[q] = at; /* from here on: where the next record to q goes */
    at += w;
  }
  if (!grow((void **)&d->send, &d->cap_send, at ? at : 1, sizeof *d->send))
    return stp__oom(err, "the distributed chain's messages");
  for (uint64_t k = 0; k < d->nstage; k++) {
    memcpy(d->send + d->fill[d->dest[k]], d->stage + k * d->rec, d->rec * sizeof *d->send);
    d->fill[d->dest[k]] += d->rec;
  }
  d->sent_words += at;
  return STP_OK;
}

static stp_status send_level(dist *d, uint64_t lo, uint64_t hi, stp_dense_row *row,
                             stp_error *err) {
  d->nstage = 0;
  for (uint64_t s = lo; s < hi; s++)
    STP_CHECK(expand(d, s, row, err));
  return lay_out(d, err);
}

/* Numbers the keys received, keeps their in-moves. */
static stp_status receive_level(dist *d, stp_error *err) {
  (void)MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
  uint64_t at = 0;
  for (int q = 0; q < d->size; q++) {
    if (at > INT32_MAX)
      return stp__fail(err, STP_ELIMIT, "a level of the distributed chain brings a rank more "
                       "than 2^31 words: use more ranks");
    d->rdispl[q] = (int)at;
    at += (uint64_t)d->rcount[q];
  }
  if (!grow((void **)&d->recv, &d->cap_recv, at ? at : 1, sizeof *d->recv))
    return stp__oom(err, "the distributed chain's messages");
  (void)MPI_Alltoallv(d->send, d->scount, d->sdispl, MPI_UINT64_T, d->recv, d->rcount, d->rdispl,
                MPI_UINT64_T, d->comm);
  uint64_t moves = at / d->rec;
  if (!grow((void **)&d->in, &d->cap_in, d->nin + moves, sizeof *d->in))
    return stp__oom(err, "the distributed chain's moves");
  for (int q = 0; q < d->size; q++) {
    for (uint64_t k = (uint64_t)d->rdispl[q]; k < (uint64_t)d->rdispl[q] + (uint64_t)d->rcount[q];
         k += d->rec) {
      const uint64_t *key = d->recv + k;
      uint32_t j;
      bool added;
      stp_status s = stp__keyset_add(&d->keys, key, stp__keyset_hash(&d->keys, key), &j, &added,
                                     err);
      if (s == STP_ELIMIT)
        return stp__fail_limit(err, (stp_limit){STP_LIMIT_STATES, 0, d->keys.limit, 0},
                               "a rank of the distributed chain holds more than %llu states: "
                               "use more ranks", (unsigned long long)d->keys.limit);
      STP_CHECK(s);
      uint64_t tail = key[d->words];
      in_move m = {.target = j, .src_rank = (uint32_t)q, .src = (uint32_t)(tail >> 32),
                   .label = (uint32_t)tail};
      d->self += q == d->rank && m.src == m.target;
      d->in[d->nin++] = m;
    }
  }
  return STP_OK;
}

/* The limits, once the level's counts are summed. */
static stp_status check_limits(dist *d, uint64_t local_moves, uint64_t words, stp_error *err) {
  /* local_moves: the in-moves of this level; words: what this rank sent */
  uint64_t local[4] = {d->keys.count, local_moves, d->self, words}, global[4];
  (void)MPI_Allreduce(local, global, 4, MPI_UINT64_T, MPI_SUM, d->comm);
  if (grow((void **)&d->log, &d->cap_log, d->levels + 1, sizeof *d->log))
    d->log[d->levels] = (level_log){.states = global[0] - d->global_states, .words = global[3],
                                    .seconds = stp__now() - d->t0};
  d->global_states = global[0];
  d->global_moves += global[1];
  d->global_self = global[2];
  if (d->global_states > d->src->max_states)
    return stp__fail_limit(err,
                           (stp_limit){STP_LIMIT_STATES, d->global_states, d->src->max_states, 0},
                           "the chain has more than %llu states (at level %llu, over %d ranks)",
                           (unsigned long long)d->src->max_states, (unsigned long long)d->levels,
                           d->size);
  double bytes = (double)d->keys.count * (double)(d->words * 8 + STP_DIST_STATE_BYTES) +
                 (double)d->nin * STP_DIST_MOVE_BYTES;
  uint64_t budget = stp_options_memory_budget(d->o);
  if (bytes > (double)budget)
    return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget, 0},
                           "a rank's share of the chain (%llu states, %llu moves) needs about "
                           "%.3g GiB, above its memory budget of %.3g GiB: use more ranks",
                           (unsigned long long)d->keys.count, (unsigned long long)d->nin,
                           bytes / 1073741824.0, (double)budget / 1073741824.0);
  return STP_OK;
}

/* The states found since the last call make a new depth. */
static bool new_depth(dist *d) {
  if (!grow((void **)&d->start, &d->cap_start, d->ndepths + 2, sizeof *d->start))
    return false;
  d->start[0] = 0;
  d->start[++d->ndepths] = d->keys.count;
  return true;
}

static stp_status enumerate(dist *d, stp_error *err) {
  stp_dense_row row = {.words = d->words, .ks = &d->keys};
  stp_status s = STP_OK;
  uint64_t h0 = stp__keyset_hash(&d->keys, d->src->initial);
  if (owner(d, h0) == d->rank) {
    uint32_t j;
    bool added;
    s = stp__keyset_add(&d->keys, d->src->initial, h0, &j, &added, err);
  }
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK && (!room_for_state(d, 0) || !new_depth(d)))
    s = stp__oom(err, "the distributed chain");
  if (d->lab_start)
    d->lab_start[0] = 0;
  s = agree(d->comm, d->rank, d->size, s, err);
  for (;;) {
    if (s != STP_OK)
      break;
    /* the last depth found is expanded; its successors make the next */
    uint64_t lo = d->start[d->ndepths - 1], hi = d->start[d->ndepths], before = d->nin;
    uint64_t sent = d->sent_words;
    s = send_level(d, lo, hi, &row, err);
    s = agree(d->comm, d->rank, d->size, s, err);
    if (s == STP_OK)
      s = receive_level(d, err);
    if (s == STP_OK && !new_depth(d))
      s = stp__oom(err, "the distributed chain");
    if (s == STP_OK)
      s = check_limits(d, d->nin - before, d->sent_words - sent, err);
    if (s == STP_OK && stp__cancelled(&d->o->control.cancel))
      s = stp__fail(err, STP_EINTERRUPTED, "interrupted while enumerating the distributed chain");
    s = agree(d->comm, d->rank, d->size, s, err);
    if (s != STP_OK)
      break;
    d->levels++;
    stp__progress(d->src->control, d->src->what ? d->src->what : "the distributed chain",
                  d->global_states, d->src->estimate, d->t0);
    uint64_t fresh = d->keys.count - hi, any;
    (void)MPI_Allreduce(&fresh, &any, 1, MPI_UINT64_T, MPI_SUM, d->comm);
    if (any == 0)
      break;
  }
  stp__dense_row_free(&row);
  return s;
}

/* ---- the order of the solve ----------------------------------------------------------
 * Owning states by hash balances the enumeration but scatters every move
 * across the ranks; a block Jacobi preconditioner over such rows is hardly
 * better than Jacobi (measured: 4,800 GMRES iterations on 2 ranks for a
 * 24,024-state pattern, against 65 on one).  The solve renumbers the
 * states by level: level = depth mod p, p the period of the chain (the gcd
 * over its moves of depth(source) + 1 - depth(target)), so that every move
 * goes from level l to level l + 1 mod p; then by depth, rank and local
 * number.  Each rank solves a contiguous range of this order: within it,
 * the preconditioner's forward sweep (SOR) is a Gauss-Seidel sweep in level
 * order (the serial solver's, stationary.h); only the moves across the K
 * boundaries of the ranges are left to the Krylov iteration. */

typedef struct order {
  uint64_t ndepths;
  uint64_t *starts;   /* size x (ndepths + 1): every rank's depth starts */
  PetscInt *first;    /* ndepths x size: the new number of (depth, rank)'s first state */
  uint64_t period;
  PetscInt rstart, rend, N; /* this rank's rows of the solve, and all */
  int size;
} order;

static void order_free(order *o) {
  free(o->starts);
  free(o->first);
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The depth of rank q's local state loc. */
static uint64_t depth_of(const order *o, int q, uint64_t loc) {
  const uint64_t *st = o->starts + (size_t)q * (o->ndepths + 1);
  uint64_t lo = 0, hi = o->ndepths; /* st[lo] <= loc < st[hi] */
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    if (st[mid] <= loc)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static PetscInt new_index(const order *o, int q, uint64_t loc) {
  uint64_t dep = depth_of(o, q, loc);
  return o->first[dep * (uint64_t)o->size + (uint64_t)q] +
         (PetscInt)(loc - o->starts[(size_t)q * (o->ndepths + 1) + dep]);
}

/* Rank q solves rows [ceil(q N / K), ceil((q + 1) N / K)): row r is rank
 * floor(r K / N)'s. */
static int row_owner(const order *o, PetscInt r) {
  return (int)(((unsigned __int128)(uint64_t)r * (uint64_t)o->size) / (uint64_t)o->N);
}

static PetscInt range_start(const order *o, int q) {
  return (PetscInt)(((unsigned __int128)(uint64_t)q * (uint64_t)o->N + (uint64_t)o->size - 1) /
                    (uint64_t)o->size);
}

static stp_status make_order(const dist *d, order *o, stp_error *err) {
  memset(o, 0, sizeof *o);
  o->size = d->size;
  o->ndepths = d->ndepths;
  o->N = (PetscInt)d->global_states;
  size_t row = o->ndepths + 1;
  o->starts = malloc((size_t)d->size * row * sizeof *o->starts);
  o->first = malloc((o->ndepths ? o->ndepths : 1) * (size_t)d->size * sizeof *o->first);
  if (!o->starts || !o->first)
    return stp__oom(err, "ordering the distributed chain");
  (void)MPI_Allgather(d->start, (int)row, MPI_UINT64_T, o->starts, (int)row, MPI_UINT64_T,
                      d->comm);
  /* the period: gcd of depth(source) + 1 - depth(target) over the moves */
  uint64_t g = 0;
  for (uint64_t k = 0; k < d->nin; k++) {
    const in_move *m = &d->in[k];
    if ((int)m->src_rank == d->rank && m->src == m->target)
      continue;
    uint64_t dt = depth_of(o, d->rank, m->target), ds = depth_of(o, (int)m->src_rank, m->src);
    g = gcd64(g, ds + 1 >= dt ? ds + 1 - dt : dt - ds - 1);
  }
  uint64_t *all = malloc((size_t)d->size * sizeof *all);
  if (!all)
    return stp__oom(err, "ordering the distributed chain");
  (void)MPI_Allgather(&g, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, d->comm);
  g = 0;
  for (int q = 0; q < d->size; q++)
    g = gcd64(g, all[q]);
  free(all);
  o->period = g ? g : 1;
  /* new numbers: by level, then depth, then rank */
  PetscInt next = 0;
  for (uint64_t level = 0; level < o->period && level < o->ndepths; level++)
    for (uint64_t dep = level; dep < o->ndepths; dep += o->period)
      for (int q = 0; q < d->size; q++) {
        const uint64_t *st = o->starts + (size_t)q * row;
        o->first[dep * (uint64_t)d->size + (uint64_t)q] = next;
        next += (PetscInt)(st[dep + 1] - st[dep]);
      }
  o->rstart = range_start(o, d->rank);
  o->rend = range_start(o, d->rank + 1);
  return STP_OK;
}

/* ---- the matrix A = Q^T, in that order ------------------------------------------------ */

/* Each rank counts, for the rows of its states, the entries in and out of
 * the diagonal block of the rank that solves them, and sends the counts
 * there (preallocation). */
static stp_status count_entries(const dist *d, const order *o, PetscInt *dnz, PetscInt *onz,
                                stp_error *err) {
  uint32_t *dc = calloc(d->nlocal ? d->nlocal : 1, sizeof *dc);
  uint32_t *oc = calloc(d->nlocal ? d->nlocal : 1, sizeof *oc);
  int *scount = calloc((size_t)d->size, sizeof *scount), *sdispl = calloc((size_t)d->size, sizeof *sdispl);
  int *rcount = calloc((size_t)d->size, sizeof *rcount), *rdispl = calloc((size_t)d->size, sizeof *rdispl);
  uint64_t *fill = calloc((size_t)d->size, sizeof *fill), *sendb = NULL, *recvb = NULL;
  stp_status s = dc && oc && scount && sdispl && rcount && rdispl && fill
                     ? STP_OK
                     : stp__oom(err, "preallocating the matrix");
  for (uint64_t k = 0; s == STP_OK && k < d->nin; k++) {
    const in_move *m = &d->in[k];
    if ((int)m->src_rank == d->rank && m->src == m->target)
      continue;
    int rq = row_owner(o, new_index(o, d->rank, m->target));
    int cq = row_owner(o, new_index(o, (int)m->src_rank, m->src));
    if (rq == cq)
      dc[m->target]++;
    else
      oc[m->target]++;
  }
  for (uint64_t j = 0; s == STP_OK && j < d->nlocal; j++)
    scount[row_owner(o, new_index(o, d->rank, j))] += 3;
  uint64_t at = 0;
  for (int q = 0; q < d->size; q++) {
    sdispl[q] = (int)at;
    fill[q] = at;
    at += (uint64_t)scount[q];
  }
  if (s == STP_OK && !(sendb = malloc((at ? at : 1) * sizeof *sendb)))
    s = stp__oom(err, "preallocating the matrix");
  for (uint64_t j = 0; s == STP_OK && j < d->nlocal; j++) {
    PetscInt r = new_index(o, d->rank, j);
    uint64_t *t = sendb + fill[row_owner(o, r)];
    t[0] = (uint64_t)r;
    t[1] = dc[j] + 1; /* the diagonal */
    t[2] = oc[j];
    fill[row_owner(o, r)] += 3;
  }
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK) {
    (void)MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, d->comm);
    uint64_t rat = 0;
    for (int q = 0; q < d->size; q++) {
      rdispl[q] = (int)rat;
      rat += (uint64_t)rcount[q];
    }
    if (!(recvb = malloc((rat ? rat : 1) * sizeof *recvb)))
      s = stp__oom(err, "preallocating the matrix");
    s = agree(d->comm, d->rank, d->size, s, err);
    if (s == STP_OK) {
      (void)MPI_Alltoallv(sendb, scount, sdispl, MPI_UINT64_T, recvb, rcount, rdispl,
                          MPI_UINT64_T, d->comm);
      for (uint64_t k = 0; k + 2 < rat + 2 && k < rat; k += 3) {
        PetscInt r = (PetscInt)recvb[k] - o->rstart;
        dnz[r] = (PetscInt)recvb[k + 1];
        onz[r] = (PetscInt)recvb[k + 2];
      }
    }
  }
  free(dc);
  free(oc);
  free(scount);
  free(sdispl);
  free(rcount);
  free(rdispl);
  free(fill);
  free(sendb);
  free(recvb);
  return s;
}

/* Entries whose row another rank solves wait in PETSc's stash until an
 * assembly sends them: a flush every 2^18 entries (on every rank alike: it
 * is collective) bounds the stash, which would otherwise hold a copy of
 * (K - 1)/K of this rank's entries beside the in-moves and the matrix, and
 * set the rank's peak memory.  Measured on 1e6 states and 4 ranks: 177 MiB
 * per rank without flushes, 152 with flushes of 2^20 entries, 129 with
 * 2^18 (and with 2^16); on 8.7e6 states and 2 ranks, 2,149 and 1,558 MiB
 * (none, 2^20).  The PETSc option -stp_dist_fill_chunk N changes the 2^18
 * (the cluster test makes it small). */
static uint64_t fill_chunk(void) {
  PetscInt n = 1 << 18;
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetInt(NULL, NULL, "-stp_dist_fill_chunk", &n, &set);
  return n > 0 ? (uint64_t)n : 1;
}

static stp_status fill_matrix(const dist *d, const order *o, Mat A, stp_error *err) {
  uint64_t total = d->nin + d->nlocal, k = 0, chunk = fill_chunk();
  uint64_t rounds = (total + chunk - 1) / chunk, most = 0;
  (void)MPI_Allreduce(&rounds, &most, 1, MPI_UINT64_T, MPI_MAX, d->comm);
  for (uint64_t round = 0; round < most; round++) {
    uint64_t end = k + chunk < total ? k + chunk : total;
    for (; k < end; k++) {
      PetscInt i, j;
      PetscScalar v;
      if (k < d->nin) { /* a move: Q^T[target][source] */
        const in_move *m = &d->in[k];
        if ((int)m->src_rank == d->rank && m->src == m->target)
          continue; /* a move back to its state: not in the generator */
        i = new_index(o, d->rank, m->target);
        j = new_index(o, (int)m->src_rank, m->src);
        v = d->src->rate[m->label];
      } else { /* a state's diagonal */
        i = j = new_index(o, d->rank, k - d->nin);
        v = -d->out_rate[k - d->nin];
      }
      PCHECK(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES), "filling the matrix");
    }
    if (round + 1 < most) {
      PCHECK(MatAssemblyBegin(A, MAT_FLUSH_ASSEMBLY), "assembling the matrix");
      PCHECK(MatAssemblyEnd(A, MAT_FLUSH_ASSEMBLY), "assembling the matrix");
    }
  }
  PCHECK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "assembling the matrix");
  PCHECK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "assembling the matrix");
  return STP_OK;
}

static stp_status assemble(const dist *d, const order *o, Mat *A, stp_error *err) {
  PetscInt n = o->rend - o->rstart;
  PetscInt *dnz = calloc((size_t)(n ? n : 1), sizeof *dnz);
  PetscInt *onz = calloc((size_t)(n ? n : 1), sizeof *onz);
  stp_status s = dnz && onz ? count_entries(d, o, dnz, onz, err)
                            : stp__oom(err, "the distributed chain's matrix");
  if (s == STP_OK) {
    PetscErrorCode e = MatCreateAIJ(d->comm, n, n, o->N, o->N, 0, dnz, 0, onz, A);
    s = e ? petsc_fail(e, "creating the matrix", err) : STP_OK;
  }
  free(dnz);
  free(onz);
  s = agree(d->comm, d->rank, d->size, s, err);
  return s == STP_OK ? fill_matrix(d, o, *A, err) : s;
}

/* ---- the solve ------------------------------------------------------------------- */

typedef enum { ROUTE_KSP, ROUTE_NULL, ROUTE_EPS } route;

typedef struct solve {
  route how;
  char name[160];
  PetscInt iterations;
  double residual;
} solve;

/* pi = x / sum(x). */
static stp_status normalise(Vec x, stp_error *err) {
  PetscScalar sum;
  PCHECK(VecSum(x, &sum), "normalising pi");
  if (!(fabs(sum) > 0) || !isfinite(sum))
    return stp__fail(err, STP_ENUMERIC, "the distributed solve gave a vector of sum %g", sum);
  PCHECK(VecScale(x, 1.0 / sum), "normalising pi");
  return STP_OK;
}

/* ||A pi||_inf / (||A||_inf ||pi||_inf), where A is Q^T whose row 0 may
 * have been replaced (fixed): its residual is then minus the sum of the
 * others', since every column of Q^T sums to zero. */
static stp_status scaled_residual(Mat A, Vec pi, Vec r, double norm_a, bool fixed, int rank,
                                  double *out, stp_error *err) {
  PCHECK(MatMult(A, pi, r), "the residual");
  if (fixed) {
    PetscScalar total, r0 = 0;
    if (rank == 0)
      PCHECK(VecGetValues(r, 1, (PetscInt[]){0}, &r0), "the residual");
    PCHECK(VecSum(r, &total), "the residual");
    (void)MPI_Bcast(&r0, 1, MPIU_SCALAR, 0, PetscObjectComm((PetscObject)A));
    if (rank == 0)
      PCHECK(VecSetValue(r, 0, -(total - r0), INSERT_VALUES), "the residual");
    PCHECK(VecAssemblyBegin(r), "the residual");
    PCHECK(VecAssemblyEnd(r), "the residual");
  }
  PetscReal rn, pn;
  PCHECK(VecNorm(r, NORM_INFINITY, &rn), "the residual");
  PCHECK(VecNorm(pi, NORM_INFINITY, &pn), "the residual");
  *out = norm_a * pn > 0 ? rn / (norm_a * pn) : 0;
  return STP_OK;
}

static route pick_route(void) {
  char how[16] = "null";
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetString(NULL, NULL, "-stp_dist_method", how, sizeof how, &set);
  if (strcmp(how, "fixed") == 0)
    return ROUTE_KSP;
#ifdef STP_SLEPC
  if (strcmp(how, "eps") == 0)
    return ROUTE_EPS;
#endif
  return ROUTE_NULL;
}

static stp_status ksp_solve(Mat A, Vec x, Vec b, route how, double norm_a, int rank, int size,
                            solve *sv, stp_error *err) {
  KSP ksp;
  PC pc;
  Vec r;
  MatNullSpace ns = NULL;
  PCHECK(VecDuplicate(x, &r), "the solver's vectors");
  PCHECK(KSPCreate(PetscObjectComm((PetscObject)A), &ksp), "the Krylov solver");
  PCHECK(KSPSetOperators(ksp, A, A), "the Krylov solver");
  /* BiCGStab (a fixed handful of vectors, where GMRES keeps one per
   * iteration) preconditioned by one forward Gauss-Seidel sweep over each
   * rank's rows (in level order: the serial solver's sweep) */
  PCHECK(KSPSetType(ksp, KSPBCGS), "the Krylov solver");
  PCHECK(KSPGetPC(ksp, &pc), "the Krylov solver");
  PCHECK(PCSetType(pc, PCSOR), "the Krylov solver");
  PCHECK(PCSORSetSymmetric(pc, SOR_LOCAL_FORWARD_SWEEP), "the Krylov solver");
  PCHECK(KSPSetTolerances(ksp, 1e-12, 1e-300, PETSC_DEFAULT, 20000), "the Krylov solver");
  if (how == ROUTE_NULL) {
    /* A x = 0 from x = 1: the left null space of A (constants) attached;
     * a zero pivot of the singular factor shifted */
    PCHECK(MatNullSpaceCreate(PetscObjectComm((PetscObject)A), PETSC_TRUE, 0, NULL, &ns),
           "the null space");
    PCHECK(MatSetTransposeNullSpace(A, ns), "the null space");
    PCHECK(VecSet(b, 0), "the right-hand side");
    PCHECK(VecSet(x, 1), "the initial guess");
    PCHECK(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "the Krylov solver");
    PCHECK(PetscOptionsSetValue(NULL, "-sub_pc_factor_shift_type", "nonzero"), "options");
    PCHECK(PetscOptionsSetValue(NULL, "-pc_factor_shift_type", "nonzero"), "options");
  }
  PCHECK(KSPSetFromOptions(ksp), "the Krylov solver");
  KSPType kt;
  PCType pt;
  KSPGetType(ksp, &kt);
  PCGetType(pc, &pt);
  snprintf(sv->name, sizeof sv->name, "petsc %s + %s (%s, %d rank%s)", kt, pt,
           how == ROUTE_NULL ? "singular system with its null space" : "row 0 fixed", size,
           size == 1 ? "" : "s");
  stp_status s = STP_OK;
  for (int round = 0; round < STP_DIST_ROUNDS && s == STP_OK; round++) {
    if (round)
      PCHECK(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE), "the Krylov solver");
    PetscErrorCode e = KSPSolve(ksp, b, x);
    if (e)
      return petsc_fail(e, "the Krylov solve", err);
    PetscInt its;
    KSPGetIterationNumber(ksp, &its);
    sv->iterations += its;
    Vec pi;
    PCHECK(VecDuplicate(x, &pi), "the solver's vectors");
    PCHECK(VecCopy(x, pi), "the solver's vectors");
    s = normalise(pi, err);
    if (s == STP_OK)
      s = scaled_residual(A, pi, r, norm_a, how == ROUTE_KSP, rank, &sv->residual, err);
    VecDestroy(&pi);
    if (s == STP_OK && sv->residual <= STP_DIST_TOLERANCE)
      break;
  }
  KSPDestroy(&ksp);
  VecDestroy(&r);
  if (ns) {
    MatNullSpaceDestroy(&ns);
    PetscOptionsClearValue(NULL, "-sub_pc_factor_shift_type");
    PetscOptionsClearValue(NULL, "-pc_factor_shift_type");
  }
  return s == STP_OK ? normalise(x, err) : s;
}

#ifdef STP_SLEPC
static stp_status eps_solve(Mat A, Vec x, double norm_a, int rank, int size, solve *sv,
                            stp_error *err) {
  EPS eps;
  Vec r;
  PCHECK(VecDuplicate(x, &r), "the solver's vectors");
  PCHECK(EPSCreate(PetscObjectComm((PetscObject)A), &eps), "the eigensolver");
  PCHECK(EPSSetOperators(eps, A, NULL), "the eigensolver");
  PCHECK(EPSSetProblemType(eps, EPS_NHEP), "the eigensolver");
  PCHECK(EPSSetWhichEigenpairs(eps, EPS_LARGEST_REAL), "the eigensolver");
  PCHECK(EPSSetDimensions(eps, 1, PETSC_DEFAULT, PETSC_DEFAULT), "the eigensolver");
  PCHECK(EPSSetTolerances(eps, 1e-14, 100000), "the eigensolver");
  PCHECK(EPSSetFromOptions(eps), "the eigensolver");
  EPSType et;
  EPSGetType(eps, &et);
  snprintf(sv->name, sizeof sv->name, "slepc %s, eigenvalue of largest real part (%d rank%s)",
           et, size, size == 1 ? "" : "s");
  stp_status s = STP_OK;
  for (int round = 0; round < STP_DIST_ROUNDS && s == STP_OK; round++) {
    if (round)
      PCHECK(EPSSetInitialSpace(eps, 1, &x), "the eigensolver");
    PetscErrorCode e = EPSSolve(eps);
    if (e)
      return petsc_fail(e, "the eigensolve", err);
    PetscInt its, nconv;
    EPSGetIterationNumber(eps, &its);
    EPSGetConverged(eps, &nconv);
    sv->iterations += its;
    if (nconv < 1)
      return stp__fail(err, STP_ENUMERIC, "SLEPc found no eigenpair after %d iterations",
                       (int)sv->iterations);
    PetscScalar kr, ki;
    PCHECK(EPSGetEigenpair(eps, 0, &kr, &ki, x, NULL), "the eigenvector");
    s = normalise(x, err);
    if (s == STP_OK)
      s = scaled_residual(A, x, r, norm_a, false, rank, &sv->residual, err);
    if (s == STP_OK && sv->residual <= STP_DIST_TOLERANCE)
      break;
  }
  EPSDestroy(&eps);
  VecDestroy(&r);
  return s;
}
#endif

/* pi, over the ranks, into x. */
static stp_status solve_chain(Mat A, Vec x, int rank, int size, solve *sv, stp_error *err) {
  PetscReal norm_a;
  PCHECK(MatNorm(A, NORM_INFINITY, &norm_a), "the matrix norm");
  PetscInt n;
  PCHECK(MatGetSize(A, &n, NULL), "the matrix size");
  if (n == 1) { /* one state: pi = 1, nothing to solve (its moves go back to it) */
    PCHECK(VecSet(x, 1.0), "pi");
    snprintf(sv->name, sizeof sv->name, "one state (%d rank%s)", size, size == 1 ? "" : "s");
    sv->residual = 0;
    return STP_OK;
  }
  sv->how = pick_route();
#ifdef STP_SLEPC
  if (sv->how == ROUTE_EPS)
    return eps_solve(A, x, norm_a, rank, size, sv, err);
#endif
  Vec b;
  PCHECK(VecDuplicate(x, &b), "the solver's vectors");
  PCHECK(VecSet(b, 0), "the right-hand side");
  if (sv->how == ROUTE_KSP) {
    /* row 0 becomes e_0 and b = e_0: x_0 = 1 fixes the scale */
    PetscInt zero = 0;
    PCHECK(MatZeroRows(A, rank == 0 ? 1 : 0, &zero, 1.0, NULL, NULL), "fixing row 0");
    if (rank == 0)
      PCHECK(VecSetValue(b, 0, 1.0, INSERT_VALUES), "the right-hand side");
    PCHECK(VecAssemblyBegin(b), "the right-hand side");
    PCHECK(VecAssemblyEnd(b), "the right-hand side");
  }
  stp_status s = ksp_solve(A, x, b, sv->how, norm_a, rank, size, sv, err);
  VecDestroy(&b);
  return s;
}

/* pi of this rank's states (their new numbers), into a local vector. */
static stp_status local_pi(const dist *d, const order *o, Vec x, Vec *mine, stp_error *err) {
  PetscInt *idx = malloc((d->nlocal ? d->nlocal : 1) * sizeof *idx);
  if (!idx)
    return stp__oom(err, "gathering pi");
  for (uint64_t j = 0; j < d->nlocal; j++)
    idx[j] = new_index(o, d->rank, j);
  IS is;
  VecScatter sc;
  PetscErrorCode e = ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)d->nlocal, idx, PETSC_OWN_POINTER,
                                     &is);
  if (e) {
    free(idx);
    return petsc_fail(e, "gathering pi", err);
  }
  PCHECK(VecCreateSeq(PETSC_COMM_SELF, (PetscInt)d->nlocal, mine), "gathering pi");
  PCHECK(VecScatterCreate(x, is, *mine, NULL, &sc), "gathering pi");
  PCHECK(VecScatterBegin(sc, x, *mine, INSERT_VALUES, SCATTER_FORWARD), "gathering pi");
  PCHECK(VecScatterEnd(sc, x, *mine, INSERT_VALUES, SCATTER_FORWARD), "gathering pi");
  VecScatterDestroy(&sc);
  ISDestroy(&is);
  return STP_OK;
}

/* fire[l] = sum over the local states s of pi_s * rate_l per move l out
 * of s, summed over the ranks; the rate as stp__dense_rate words it.
 * x: pi of this rank's states, in local order. */
static stp_status firing_rate(const dist *d, Vec x, const stp_dense_events *ev, double *rate,
                              stp_error *err) {
  uint32_t nl = d->src->nlabels, ne = ev->n;
  double *fire = calloc(nl ? nl : 1, sizeof *fire), *all = calloc(nl ? nl : 1, sizeof *all);
  double *event = calloc(ne ? ne : 1, sizeof *event);
  if (!fire || !all || !event) {
    free(fire);
    free(all);
    free(event);
    return stp__oom(err, "the firing rates");
  }
  const PetscScalar *pi;
  PetscErrorCode e = VecGetArrayRead(x, &pi);
  for (uint64_t s = 0; !e && s < d->nlocal; s++)
    for (uint64_t k = d->lab_start[s]; k < d->lab_start[s + 1]; k++)
      fire[d->labels[k]] += pi[s] * d->src->rate[d->labels[k]];
  if (!e)
    VecRestoreArrayRead(x, &pi);
  (void)MPI_Allreduce(fire, all, (int)nl, MPI_DOUBLE, MPI_SUM, d->comm);
  for (uint32_t l = 0; l < nl; l++)
    event[ev->of ? ev->of[l] : l] += all[l];
  double low = INFINITY;
  uint32_t ncounted = 0;
  for (uint32_t k = 0; k < ne; k++)
    if (ev->counted[k]) {
      low = fmin(low, event[k]);
      ncounted++;
    }
  free(fire);
  free(all);
  free(event);
  if (e)
    return petsc_fail(e, "reading pi", err);
  *rate = (double)ncounted * low;
  return STP_OK;
}

static void dist_free(dist *d) {
  stp__keyset_free(&d->keys);
  free(d->lab_start);
  free(d->labels);
  free(d->out_rate);
  free(d->in);
  free(d->start);
  free(d->log);
  free(d->stage);
  free(d->dest);
  free(d->send);
  free(d->recv);
  free(d->scount);
  free(d->sdispl);
  free(d->rcount);
  free(d->rdispl);
  free(d->fill);
}

static stp_status dist_init(dist *d, const stp_dense_source *src, const stp_options *o,
                            stp_error *err) {
  memset(d, 0, sizeof *d);
  d->comm = PETSC_COMM_WORLD;
  MPI_Comm_rank(d->comm, &d->rank);
  MPI_Comm_size(d->comm, &d->size);
  d->src = src;
  d->o = o;
  d->words = src->words ? src->words : 1;
  d->rec = d->words + 1;
  d->t0 = stp__now();
  size_t k = (size_t)d->size;
  d->scount = calloc(k, sizeof *d->scount);
  d->sdispl = calloc(k, sizeof *d->sdispl);
  d->rcount = calloc(k, sizeof *d->rcount);
  d->rdispl = calloc(k, sizeof *d->rdispl);
  d->fill = calloc(k, sizeof *d->fill);
  if (!d->scount || !d->sdispl || !d->rcount || !d->rdispl || !d->fill)
    return stp__oom(err, "the distributed chain");
  uint64_t limit = src->max_states < STP_KEYSET_MAX ? src->max_states : STP_KEYSET_MAX;
  return stp__keyset_init(&d->keys, d->words, limit, err);
}

/* The matrix, the solve and the rate, once the states are enumerated. */
static stp_status solve_rate(dist *d, const stp_dense_events *ev, double *rate, solve *sv,
                             stp_error *err) {
  order o = {0};
  Mat A = NULL;
  Vec x = NULL, mine = NULL;
  stp_status s = d->global_states > (uint64_t)PETSC_MAX_INT
                     ? stp__fail(err, STP_ELIMIT, "the chain has more states than this PETSc's "
                                 "indices hold (%lld): a PETSc with 64-bit indices is needed",
                                 (long long)PETSC_MAX_INT)
                     : make_order(d, &o, err);
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK)
    s = assemble(d, &o, &A, err);
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK) { /* the in-moves are in the matrix now */
    free(d->in);
    d->in = NULL;
    d->cap_in = 0;
    d->period = o.period;
    PetscErrorCode e = MatCreateVecs(A, &x, NULL);
    s = e ? petsc_fail(e, "the solution vector", err) : solve_chain(A, x, d->rank, d->size, sv, err);
  }
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK && !(sv->residual <= STP_DIST_TOLERANCE))
    s = stp__fail(err, STP_ENUMERIC, "the distributed solve (%s, %d iterations) reached a scaled "
                  "residual of %.3g, above %.0e", sv->name, (int)sv->iterations, sv->residual,
                  STP_DIST_TOLERANCE);
  if (A)
    MatDestroy(&A); /* before pi is gathered: the largest block of memory */
  if (s == STP_OK)
    s = local_pi(d, &o, x, &mine, err);
  s = agree(d->comm, d->rank, d->size, s, err);
  if (s == STP_OK)
    s = firing_rate(d, mine, ev, rate, err);
  if (mine)
    VecDestroy(&mine);
  if (x)
    VecDestroy(&x);
  order_free(&o);
  return agree(d->comm, d->rank, d->size, s, err);
}

/* -stp_dist_log FILE (a PETSc option, e.g. in PETSC_OPTIONS): rank 0
 * appends one JSON line per chain solved, for the measurements of
 * bench/distributed: the ranks, states, moves, period, seconds of the
 * enumeration and of the solve, iterations, residual, solver, the peak
 * memory (maximum resident set, KiB) of each rank so far, and per level
 * [states found, words of 8 bytes exchanged, seconds since the start]. */
static void write_log(const dist *d, const solve *sv, double built, double solved) {
  char path[1024] = "";
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetString(NULL, NULL, "-stp_dist_log", path, sizeof path, &set);
  if (!set || !path[0])
    return;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long peak = ru.ru_maxrss, *peaks = d->rank == 0 ? malloc((size_t)d->size * sizeof *peaks) : NULL;
  (void)MPI_Gather(&peak, 1, MPI_LONG, peaks, 1, MPI_LONG, 0, d->comm);
  FILE *f = d->rank == 0 && peaks && d->log ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "{\"ranks\":%d,\"states\":%llu,\"moves\":%llu,\"period\":%llu,"
            "\"seconds_build\":%.6g,\"seconds_solve\":%.6g,\"iterations\":%d,"
            "\"residual\":%.3g,\"solver\":\"%s\",\"peak_kib\":[", d->size,
            (unsigned long long)d->global_states, (unsigned long long)d->global_moves,
            (unsigned long long)d->period, built, solved, (int)sv->iterations, sv->residual,
            sv->name);
    for (int q = 0; q < d->size; q++)
      fprintf(f, "%s%ld", q ? "," : "", peaks[q]);
    fputs("],\"levels\":[", f);
    for (uint64_t l = 0; l < d->levels; l++)
      fprintf(f, "%s[%llu,%llu,%.4f]", l ? "," : "", (unsigned long long)d->log[l].states,
              (unsigned long long)d->log[l].words, d->log[l].seconds);
    fputs("]}\n", f);
    fclose(f);
  }
  free(peaks);
}

stp_status stp__dist_events_rate(const stp_dense_source *src, const stp_dense_events *ev,
                                 const stp_options *o, double *rate, stp_ctmc_info *info,
                                 stp_error *err) {
  STP_CHECK(petsc_start(err));
  static char solver_name[160]; /* info->solver is a static string */
  dist d;
  stp_status s = dist_init(&d, src, o, err);
  s = agree(PETSC_COMM_WORLD, d.rank, d.size, s, err);
  if (s == STP_OK)
    s = enumerate(&d, err);
  double built = stp__now() - d.t0;
  if (s == STP_OK) { /* only the numbers matter from here on */
    d.nlocal = d.keys.count;
    stp__keyset_free(&d.keys);
    free(d.stage);
    free(d.dest);
    free(d.send);
    free(d.recv);
    d.stage = d.send = d.recv = NULL;
    d.dest = NULL;
  }
  solve sv = {0};
  double t1 = stp__now();
  if (s == STP_OK)
    s = solve_rate(&d, ev, rate, &sv, err);
  if (s == STP_OK) {
    snprintf(solver_name, sizeof solver_name, "%s", sv.name);
    *info = (stp_ctmc_info){.states = d.global_states,
                            .nonzeros = d.global_moves - d.global_self,
                            .moves = d.global_moves,
                            .residual = sv.residual,
                            .solver = solver_name,
                            .iterations = (size_t)sv.iterations,
                            .seconds_build = built,
                            .seconds_solve = stp__now() - t1};
    write_log(&d, &sv, built, info->seconds_solve);
  }
  dist_free(&d);
  return s;
}
