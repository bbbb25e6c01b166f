/* core.c: status names, error messages with context, checked arithmetic and
 * the other small helpers declared in core.h. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#endif
#include "base/core.h"
#include "base/numfmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <time.h>
#include <unistd.h>

static const char *const status_names[] = {
#define STP_NAME_(name, msg) #name,
    STP_STATUS_MAP(STP_NAME_)
#undef STP_NAME_
};

static const char *const status_messages[] = {
#define STP_MSG_(name, msg) msg,
    STP_STATUS_MAP(STP_MSG_)
#undef STP_MSG_
};

static const char *const limit_names[] = {
#define STP_LIMIT_NAME_(name, word) word,
    STP_LIMIT_MAP(STP_LIMIT_NAME_)
#undef STP_LIMIT_NAME_
};

const char *stp_version(void) { return STP_VERSION; }

const char *stp_limit_name(stp_limit_kind k) {
  return (unsigned)k < (unsigned)STP_LIMIT_COUNT_ ? limit_names[k] : "unknown";
}

const char *stp_status_name(stp_status s) {
  if ((unsigned)s >= (unsigned)STP_STATUS_COUNT_)
    return "UNKNOWN";
  return status_names[s];
}

const char *stp_status_message(stp_status s) {
  if ((unsigned)s >= (unsigned)STP_STATUS_COUNT_)
    return "unknown status";
  return status_messages[s];
}

int stp_status_is_input_error(stp_status s) {
  switch (s) {
  case STP_EINVAL:
  case STP_EIO:
  case STP_ELIMIT:
  case STP_EDEADLOCK:
    return 1;
  default:
    return 0;
  }
}

void stp_options_init(stp_options *o) {
  memset(o, 0, sizeof *o);
  o->max_transitions = STP_DEFAULT_MAX_TRANSITIONS;
  o->max_states = STP_DEFAULT_MAX_STATES;
  o->exp_method = STP_EXP_AUTO;
  o->solver_tolerance = 1e-9;
  o->control = (stp_control){0};
}

uint64_t stp_options_memory_budget(const stp_options *o) {
  return stp_control_memory_budget(o ? &o->control : NULL);
}

int stp_cancel_flag(void *data) {
  return data && __atomic_load_n((const int *)data, __ATOMIC_RELAXED) != 0;
}

uint64_t stp_control_memory_budget(const stp_control *c) {
  if (c && c->max_memory)
    return c->max_memory;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0)
    return UINT64_C(4) << 30; /* unknown: 4 GiB */
  return (uint64_t)((double)pages * (double)size * STP_DEFAULT_MEMORY_FRACTION);
}

void stp__progress(const stp_control *c, const char *what, uint64_t done, uint64_t estimate,
                   double t0) {
  if (c && c->progress.fn)
    c->progress.fn(&(stp_progress_info){.what = what, .done = done, .estimate = estimate,
                                        .seconds = stp__now() - t0},
                   c->progress.data);
}

stp_status stp__check_finite(double x, const char *what, stp_error *err) {
  if (isfinite(x))
    return STP_OK;
  return stp__fail(err, STP_ENUMERIC,
                   "%s is %g, not a finite number: an overflow or underflow in the "
                   "computation (times within [%g, %g] should not lead there; please report it)",
                   what, x, STP_TIME_MIN, STP_TIME_MAX);
}

stp_status stp__check_ordered(double lo, double hi, const char *what, stp_error *err) {
  if (isnan(lo) || isnan(hi) || lo <= hi + STP_ORDER_TOL * fmax(fabs(lo), fabs(hi)))
    return STP_OK;
  return stp__fail(err, STP_ENUMERIC, "%s: the lower bound %.17g exceeds the upper bound %.17g",
                   what, lo, hi);
}

double stp__within_theory(double solved, double exact, bool at_most) {
  bool crossed = at_most ? solved > exact : solved < exact;
  if (crossed && fabs(solved - exact) <= STP_ORDER_TOL * fmax(fabs(solved), fabs(exact)))
    return exact;
  return solved;
}

stp_status stp__vfail(stp_error *err, stp_status s, const char *fmt, va_list ap) {
  if (err) {
    err->status = s;
    err->limit = (stp_limit){.kind = STP_LIMIT_NONE};
    stp__vsnprintf(err->message, sizeof err->message, fmt, ap);
  }
  return s;
}

stp_status stp__fail_limit(stp_error *err, stp_limit limit, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  stp__vfail(err, STP_ELIMIT, fmt, ap);
  va_end(ap);
  if (limit.needed <= limit.allowed) /* only known to be beyond: the least that is */
    limit.needed = limit.allowed == UINT64_MAX ? UINT64_MAX : limit.allowed + 1;
  if (err)
    err->limit = limit;
  return STP_ELIMIT;
}

stp_status stp__fail(stp_error *err, stp_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  stp__vfail(err, s, fmt, ap);
  va_end(ap);
  return s;
}

void stp_error_prefix(stp_error *err, const char *fmt, ...) {
  if (!err)
    return;
  char old[STP_ERROR_MAX];
  memcpy(old, err->message, sizeof old);
  va_list ap;
  va_start(ap, fmt);
  int n = stp__vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - (size_t)n, ": %s", old);
}

void stp__error_clear(stp_error *err) {
  if (err) {
    err->status = STP_OK;
    err->message[0] = '\0';
    err->limit = (stp_limit){.kind = STP_LIMIT_NONE};
  }
}

void *stp__calloc(size_t n, size_t size) {
  if (n == 0 || size == 0)
    return calloc(1, 1);
  return calloc(n, size); /* calloc checks n*size itself */
}

void *stp__malloc_array(size_t n, size_t size) {
  if (n != 0 && size > SIZE_MAX / n)
    return NULL;
  size_t bytes = n * size;
  return malloc(bytes ? bytes : 1);
}

void *stp__malloc_huge(size_t n, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (n != 0 && size > SIZE_MAX / n)
    return NULL;
  size_t bytes = n * size;
  if (bytes >= (4u << 20)) {
    void *p = NULL;
    if (posix_memalign(&p, 2u << 20, bytes) != 0)
      return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* a hint: no harm if refused */
    return p;
  }
#endif
  return stp__malloc_array(n, size);
}

const char *stp_interval_position(double lo, double hi, double lower, double upper) {
  const double rtol = 1e-9; /* the bounds are exact; the slack absorbs their rounding */
  bool has_lower = isfinite(lower), has_upper = isfinite(upper);
  if (has_upper && lo > upper * (1 + rtol))
    return "above";
  if (has_lower && hi < lower * (1 - rtol))
    return "below";
  return has_lower && has_upper ? "within" : "unknown";
}

bool stp__grow_arrays(size_t cap, size_t n, void *const arrays[], const size_t sizes[]) {
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    /* The pointer is read and written through memcpy: the variable may be
     * a uint32_t * or a double *, not a void *. */
    void *old, *q = NULL;
    memcpy(&old, arrays[i], sizeof old);
    if (sizes[i] == 0 || cap <= SIZE_MAX / sizes[i]) {
      size_t bytes = cap * sizes[i];
      q = realloc(old, bytes ? bytes : 1);
    }
    if (q)
      memcpy(arrays[i], &q, sizeof q);
    else
      ok = false;
  }
  return ok;
}

bool stp__grow(void **p, uint64_t *cap, uint64_t need, size_t size, uint64_t least) {
  if (need <= *cap)
    return true;
  uint64_t c = *cap < least ? least : *cap + *cap / 2;
  if (c < need)
    c = need;
  void *q = realloc(*p, (size_t)c * size);
  if (!q)
    return false;
  *p = q;
  *cap = c;
  return true;
}

char *stp__strdup(const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

char *stp__asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = stp__vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s)
    return NULL;
  va_start(ap, fmt);
  stp__vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

stp_status stp__oom(stp_error *err, const char *what) {
  return stp__fail(err, STP_ENOMEM, "out of memory while %s", what);
}

bool stp__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool stp__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

int stp__cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

uint64_t stp__u64_sat(double x) {
  if (!(x > 0))
    return 0;
  return x >= 0x1p64 ? UINT64_MAX : (uint64_t)x;
}

uint64_t stp__gcd_u64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

unsigned stp__floor_log2(uint64_t n) {
  unsigned k = 0;
  while (n >>= 1)
    k++;
  return k;
}

unsigned stp__ceil_log2(uint64_t n) {
  unsigned f = stp__floor_log2(n);
  return (n & (n - 1)) ? f + 1 : f;
}

bool stp__lcm_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  return stp__mul_u64(a / stp__gcd_u64(a, b), b, out);
}

bool stp__close(double a, double b, double rel_tol, double abs_tol) {
  if (a == b) /* also equal infinities */
    return true;
  if (!isfinite(a) || !isfinite(b))
    return false;
  double scale = fmax(fabs(a), fabs(b));
  return fabs(a - b) <= abs_tol + rel_tol * scale;
}

double stp__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

stp_status stp__within_budget(const stp_control *c, const char *what, double bytes,
                              stp_error *err) {
  uint64_t budget = stp_control_memory_budget(c);
  if (bytes <= (double)budget)
    return STP_OK;
  return stp__fail_limit(err, (stp_limit){STP_LIMIT_MEMORY, stp__u64_sat(bytes), budget,
                                          stp__u64_sat(bytes)},
                         "%s needs about %.3g GiB, above the memory budget of %.3g GiB", what,
                         bytes / 1073741824.0, (double)budget / 1073741824.0);
}
