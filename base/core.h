/* core.h: small internal helpers shared by every module of libstreamtp:
 * error reporting with context, status propagation, checked integer
 * arithmetic (sizes and lcm must never wrap), float comparison with a
 * relative-plus-absolute tolerance, and monotonic time. */
#ifndef STP_CORE_H
#define STP_CORE_H

#include "streamtp_base.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define STP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define STP_PRINTF(a, b)
#endif

/* Record a status and a formatted message on err (which may be NULL) and
 * return the status, so that callers can write `return stp__fail(...)`. */
stp_status stp__fail(stp_error *err, stp_status s, const char *fmt, ...) STP_PRINTF(3, 4);
stp_status stp__vfail(stp_error *err, stp_status s, const char *fmt, va_list ap);
/* STP_ELIMIT with the limit's detail and a message that describes it in the
 * library's words, naming no option of a front end (streamtp_base.h,
 * "limits"): what every limit a caller sets fails with.  A limit.needed not
 * above limit.allowed (0: a count stopped at the limit) becomes allowed + 1. */
stp_status stp__fail_limit(stp_error *err, stp_limit limit, const char *fmt, ...) STP_PRINTF(3, 4);
void stp__error_clear(stp_error *err);
/* STP_OK when `bytes` (an estimate of what `what` is about to allocate) fit
 * c's memory budget, else the ELIMIT of STP_LIMIT_MEMORY: "WHAT needs about
 * X GiB, above the memory budget of Y GiB" (c may be NULL: the default). */
stp_status stp__within_budget(const stp_control *c, const char *what, double bytes,
                              stp_error *err);

/* Propagate a failing status to the caller (igraph's IGRAPH_CHECK). */
#define STP_CHECK(expr)                  \
  do {                                   \
    stp_status stp_check_s_ = (expr);    \
    if (stp_check_s_ != STP_OK)          \
      return stp_check_s_;               \
  } while (0)

/* Allocation helpers: stp__calloc checks n*size for overflow. */
void *stp__calloc(size_t n, size_t size);
void *stp__malloc_array(size_t n, size_t size);
/* n * size bytes, uninitialized, freed with free(): from 4 MB on, aligned
 * to 2 MB and marked for transparent huge pages where the system offers
 * them (512 times fewer page faults to touch, and far fewer TLB misses on
 * random access).  NULL on overflow or when memory is short. */
void *stp__malloc_huge(size_t n, size_t size);
/* Grows n parallel arrays together to cap elements each: arrays[i] is the
 * address of a pointer variable (any object pointer type), sizes[i] the
 * size of its elements.  Every array that could be grown is kept, so on
 * failure (false: out of memory or cap * size overflows) each still holds
 * at least its old capacity and the caller keeps that capacity. */
bool stp__grow_arrays(size_t cap, size_t n, void *const arrays[], const size_t sizes[]);
/* Grows *p (*cap items of `size` bytes) to hold `need` items: to at least
 * `least`, else by half, else to need.  False when memory is short (*p and
 * *cap kept). */
bool stp__grow(void **p, uint64_t *cap, uint64_t need, size_t size, uint64_t least);
char *stp__strdup(const char *s);
char *stp__asprintf(const char *fmt, ...) STP_PRINTF(1, 2);
stp_status stp__oom(stp_error *err, const char *what);

/* Checked arithmetic: return false on overflow. */
bool stp__mul_u64(uint64_t a, uint64_t b, uint64_t *out);
bool stp__add_u64(uint64_t a, uint64_t b, uint64_t *out);
uint64_t stp__gcd_u64(uint64_t a, uint64_t b);
/* x rounded down to a uint64_t, saturated: 0 below 0 and for NaN,
 * UINT64_MAX from 2^64 on (a size estimated in floating point). */
uint64_t stp__u64_sat(double x);
/* qsort's comparison of two uint64_t, ascending. */
int stp__cmp_u64(const void *a, const void *b);
/* floor(log2 n) and ceil(log2 n) for n >= 1, exactly (no floating log);
 * both are 0 for n = 0. */
unsigned stp__floor_log2(uint64_t n);
unsigned stp__ceil_log2(uint64_t n);
bool stp__lcm_u64(uint64_t a, uint64_t b, uint64_t *out);

/* The last check of every result: STP_ENUMERIC naming `what` unless x is a
 * finite number (an overflow is an error, never a null with success). */
stp_status stp__check_finite(double x, const char *what, stp_error *err);
/* STP_ENUMERIC unless lo <= hi within STP_ORDER_TOL (an interval whose
 * bounds cross is a bug to report, not a result); NaN ends pass (missing). */
stp_status stp__check_ordered(double lo, double hi, const char *what, stp_error *err);
/* The rounding a solved chain's value may carry past the value theory bounds
 * it by (relative): a stiff chain, times 1e6 apart, crossed by 2.9e-9. */
#define STP_ORDER_TOL 1e-6
/* `solved` where it keeps to the side of `exact` theory puts it on (at most
 * it when at_most, at least it otherwise); `exact` where it crosses by no
 * more than STP_ORDER_TOL, which is the solve's rounding and of which
 * `exact` is the better value; `solved` beyond, for the check to refuse. */
double stp__within_theory(double solved, double exact, bool at_most);

/* |a - b| <= abs_tol + rel_tol * max(|a|, |b|). */
bool stp__close(double a, double b, double rel_tol, double abs_tol);

/* True when the caller asked to stop (stp_cancel). */
static inline bool stp__cancelled(const stp_cancel *c) {
  return c && c->fn && c->fn(c->data);
}

/* Report progress through c->progress (c may be NULL); t0 from stp__now. */
void stp__progress(const stp_control *c, const char *what, uint64_t done, uint64_t estimate,
                   double t0);

/* Seconds from a monotonic clock. */
double stp__now(void);

#endif /* STP_CORE_H */
