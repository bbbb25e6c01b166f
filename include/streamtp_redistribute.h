/* streamtp_redistribute.h: block-cyclic array redistribution (Desprez,
 * Dongarra, Petitet, Randriamaro, Robert, INRIA RR-3117): moving an array
 * from CYCLIC(r) on P processors to CYCLIC(s) on Q processors as a sequence
 * of steps, each a matching of senders to receivers.  The communication
 * grid, the minimum number of steps, the paper's schedules (class, stepwise,
 * greedy), the ScaLAPACK caterpillar, a proven-optimal schedule, their
 * costs alpha NS + beta (M/L) TC, the exact expected cost with exponential
 * message times between barriers, and the barrier schedule as an event
 * graph for Monte Carlo.  Formats and keys: docs/format.md, "redistribute";
 * the model and the methods: docs/design.md. */
#ifndef STREAMTP_REDISTRIBUTE_H
#define STREAMTP_REDISTRIBUTE_H

#include "streamtp_base.h"
#include "streamtp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits checked by stp_redist_new. */
#define STP_REDIST_MAX_PROCS UINT64_C(1048576)   /* P, Q */
#define STP_REDIST_MAX_CELLS UINT64_C(16777216)  /* P Q */
#define STP_REDIST_MAX_BLOCK UINT64_C(1099511627776) /* r, s (2^40) */
#define STP_REDIST_MAX_L (UINT64_C(1) << 62)

typedef struct stp_redist stp_redist;                   /* one problem and its grid */
typedef struct stp_redist_schedule stp_redist_schedule; /* its steps */

typedef enum {
  STP_REDIST_CLASS,       /* one class of (p r - q s) mod g at a time (Prop. 4) */
  STP_REDIST_STEPWISE,    /* max-weight matchings saturating max-degree vertices */
  STP_REDIST_GREEDY,      /* max-weight matchings */
  STP_REDIST_CATERPILLAR, /* ScaLAPACK's all-to-all: step k pairs p with p - k */
  STP_REDIST_OPTIMAL      /* minimum total cost (then fewest steps), proven */
} stp_redist_strategy;

STP_API const char *stp_redist_strategy_name(stp_redist_strategy s); /* "class", ... */
STP_API stp_status stp_redist_strategy_parse(const char *name, stp_redist_strategy *out);

/* ---- the problem ---------------------------------------------------------- */

/* The grid of CYCLIC(r) on P -> CYCLIC(s) on Q: every argument >= 1 and
 * within the limits above, L = lcm(P r, Q s) <= 2^62; EINVAL or ELIMIT
 * naming the parameter.  Time O(P Q), never O(L). */
STP_API stp_status stp_redist_new(uint64_t P, uint64_t Q, uint64_t r, uint64_t s,
                                  stp_redist **out, stp_error *err);
STP_API void stp_redist_free(stp_redist *rd);

typedef struct stp_redist_info {
  uint64_t P, Q, r, s;
  uint64_t L;        /* lcm(P r, Q s): the pattern's period in elements */
  uint64_t g;        /* gcd(P r, Q s) */
  uint64_t messages; /* nonzero grid entries */
  uint64_t ns_opt;   /* largest number of messages of a sender or a receiver */
} stp_redist_info;
STP_API void stp_redist_get_info(const stp_redist *rd, stp_redist_info *info);

/* Elements that p sends to q per period of L elements (0: no message). */
STP_API uint64_t stp_redist_length(const stp_redist *rd, uint64_t p, uint64_t q);

/* STP_OK when the class strategy applies (gcd(r, Q) = gcd(s, P) = 1), else
 * EINVAL with the reason on err. */
STP_API stp_status stp_redist_class_applies(const stp_redist *rd, stp_error *err);

/* ---- schedules ------------------------------------------------------------------ */

/* stepwise and greedy remove one maximum-weight matching per step, each
 * found by up to min(P, Q) shortest-path searches over the messages left:
 * about ns_opt x min(P, Q) x (messages + P + Q) elementary steps, the
 * estimate checked against max_work before anything runs. */
#define STP_REDIST_DEFAULT_MAX_WORK 5e9
STP_API double stp_redist_matching_work(const stp_redist *rd);

typedef struct stp_redist_options {
  uint64_t max_steps; /* optimal: at most this many steps; 0 = no limit */
  uint64_t max_nodes; /* optimal: search nodes before ELIMIT; 0 = 10^6 */
  /* stepwise, greedy (and optimal, which starts from both): ELIMIT up front
   * when stp_redist_matching_work exceeds it; 0 = STP_REDIST_DEFAULT_MAX_WORK */
  double max_work;
  stp_control control; /* cancel, progress, memory budget (stp_control) */
} stp_redist_options;
STP_API void stp_redist_options_init(stp_redist_options *o);

/* Builds a schedule and checks it (every step a matching, every message in
 * exactly one step).  class: EINVAL outside its case (the reason says why).
 * optimal: EINVAL when max_steps < ns_opt (no schedule exists); ELIMIT when
 * the search exceeds max_nodes.  Steps are ordered by nonincreasing cost
 * (caterpillar: step k as defined), messages in a step by sender. */
STP_API stp_status stp_redist_schedule_new(const stp_redist *rd, stp_redist_strategy strategy,
                                           const stp_redist_options *o,
                                           stp_redist_schedule **out, stp_error *err);
STP_API void stp_redist_schedule_free(stp_redist_schedule *sc);

STP_API stp_redist_strategy stp_redist_schedule_strategy(const stp_redist_schedule *sc);
STP_API uint64_t stp_redist_schedule_steps(const stp_redist_schedule *sc); /* NS */
STP_API uint64_t stp_redist_schedule_tc(const stp_redist_schedule *sc);    /* TC */
STP_API uint64_t stp_redist_step_size(const stp_redist_schedule *sc, uint64_t k);
STP_API uint64_t stp_redist_step_cost(const stp_redist_schedule *sc, uint64_t k);
STP_API void stp_redist_step_message(const stp_redist_schedule *sc, uint64_t k, uint64_t i,
                                     uint64_t *from, uint64_t *to, uint64_t *length);

/* optimal: the search behind the proof: the lower bound
 * sum_t (w_t - w_t+1) Delta_t on TC (w_t the distinct lengths, decreasing,
 * Delta_t the maximum degree of the messages of length >= w_t), the cost
 * profiles examined and the search nodes.  Zeros for other strategies. */
STP_API void stp_redist_schedule_search(const stp_redist_schedule *sc, uint64_t *lower_bound,
                                        uint64_t *profiles, uint64_t *nodes);

/* Checks a schedule against its problem: STP_OK, or EINTERNAL naming the
 * step and processor that break a rule. */
STP_API stp_status stp_redist_schedule_check(const stp_redist *rd,
                                             const stp_redist_schedule *sc, stp_error *err);

/* ---- costs ---------------------------------------------------------------------- */

/* Cost model: a message of length len (per period) takes
 * alpha + beta (M/L) len X, X a unit-mean random factor, and steps are
 * separated by barriers.  M: a positive multiple of L (EINVAL otherwise);
 * alpha, beta: finite, >= 0. */
typedef struct stp_redist_cost {
  double alpha, beta;
  uint64_t M;
} stp_redist_cost;

/* STP_OK when c fits rd (M a positive multiple of L; alpha 0 or within
 * [STP_TIME_MIN, STP_TIME_MAX]; every message time beta (M/L) len 0 or
 * within that range), else EINVAL saying what: what stp_redist_evaluate
 * checks first, for callers that check before printing anything. */
STP_API stp_status stp_redist_cost_check(const stp_redist *rd, const stp_redist_cost *c,
                                         stp_error *err);

typedef struct stp_redist_costs {
  double cost;     /* alpha NS + beta (M/L) TC: every X = 1 */
  double exp_cost; /* alpha NS + beta (M/L) sum_k E[max_{e in k} len_e X_e], X ~ Exp(1) */
  const char *exp_method; /* "closed-form" */
} stp_redist_costs;

STP_API stp_status stp_redist_evaluate(const stp_redist *rd, const stp_redist_schedule *sc,
                                       const stp_redist_cost *c, stp_redist_costs *out,
                                       stp_error *err);

/* The expected makespan when every message's time beta (M/L) len is
 * multiplied by an independent factor of the phase-type law `law` (mean 1;
 * streamtp_law.h: exp, erlang, hyperexp, coxian, ph; NULL: exp), steps
 * separated by barriers: alpha NS + sum over the steps of E[max over the
 * step's messages], each maximum the integral over t of
 * 1 - prod F(t / mean) (docs/design.md, "Phase-type laws"; steps with the
 * same lengths are integrated once).  control (may be NULL): cancel
 * (STP_EINTERRUPTED), progress over the steps, and the memory budget of
 * the steps' signatures and the law's checkpoints).  A law that is not
 * phase-type, or a computation beyond the memory budget, is no error:
 * computed = 0 and reason says why. */
typedef struct stp_redist_law_costs {
  int computed;       /* 1: makespan holds; 0: see reason */
  double makespan;    /* alpha NS + sum_k E[max_{e in k} beta (M/L) len_e X_e], X ~ law */
  double error;       /* estimate of |makespan - exact| (quadrature and tail; phmax.h) */
  const char *method; /* "quadrature" */
  uint64_t distinct;  /* steps integrated (distinct multisets of lengths) */
  char reason[256];   /* why makespan is missing ("" when present) */
  stp_limit limit;    /* the limit it is beyond, if that is why (streamtp_base.h) */
} stp_redist_law_costs;

STP_API stp_status stp_redist_evaluate_law(const stp_redist *rd, const stp_redist_schedule *sc,
                                           const stp_redist_cost *c, const stp_law *law,
                                           const stp_control *control,
                                           stp_redist_law_costs *out, stp_error *err);

/* The barrier schedule as an activity DAG: per step k a transition "step<k>" (k from 1)
 * (time alpha, law det) after every message of step k-1 (or after step k-1
 * itself when k-1 is empty), and per message a transition "m<p>-<q>" (time
 * beta (M/L) len, no law: the simulation's law applies) after its step's
 * transition.  Its makespan is the schedule's cost. */
STP_API stp_status stp_redist_schedule_graph(const stp_redist *rd,
                                             const stp_redist_schedule *sc,
                                             const stp_redist_cost *c, stp_graph **out,
                                             stp_error *err);

/* ---- the command: one call (streamtp redistribute, streamtp.redistribute) ---------- */

/* strategy of stp_redist_run_options besides one stp_redist_strategy. */
#define STP_REDIST_STRATEGY_DEFAULT (-1) /* class where it applies, else stepwise */
#define STP_REDIST_STRATEGY_ALL (-2)     /* class (where it applies), stepwise, greedy,
                                            caterpillar */

typedef struct stp_redist_run_options {
  uint64_t P, Q, r, s;        /* CYCLIC(r) on P -> CYCLIC(s) on Q */
  stp_redist_cost cost;       /* cost.M 0: L */
  int strategy;               /* a stp_redist_strategy, or STP_REDIST_STRATEGY_* */
  uint64_t max_steps, max_nodes; /* optimal (stp_redist_options) */
  double max_work;            /* stepwise, greedy, optimal (stp_redist_options) */
  /* The law of the message factors: the exact expected cost under it when
   * it is phase-type (or when there is no simulation: else the reason),
   * and the law of the simulation (NULL: exp, no exact cost). */
  const stp_law *law;
  uint64_t simulate;          /* Monte Carlo runs of the barrier schedule; 0: none */
  uint64_t seed;              /* of the runs (default 1) */
  stp_control control;        /* cancel, progress, memory budget of everything */
} stp_redist_run_options;
STP_API void stp_redist_run_options_init(stp_redist_run_options *o);

/* One strategy's schedule and prices. */
typedef struct stp_redist_strategy_result {
  stp_redist_schedule *schedule;
  stp_redist_costs costs;
  int law_asked;              /* law holds the exact cost under the law */
  stp_redist_law_costs law;
  int simulated;
  stp_graph_sim_result sim;   /* Monte Carlo of the barrier schedule */
  double seconds;             /* wall time of this strategy */
} stp_redist_strategy_result;

typedef struct stp_redist_result {
  stp_redist *rd;             /* the problem and its grid */
  stp_redist_info info;
  stp_redist_run_options options; /* as run: cost.M resolved, law NULL (see law) */
  char *law;                  /* the law's spec, or NULL */
  size_t count;               /* strategies done, in the order run */
  stp_redist_strategy_result *strategies;
} stp_redist_result;

/* Everything `streamtp redistribute` computes: the grid, then each strategy
 * asked for, its costs, its exact cost under o->law and its Monte Carlo.
 * Checks first, before anything is computed: the parameters (EINVAL or
 * ELIMIT naming them), the cost model (stp_redist_cost_check), the class
 * strategy's case, the memory of the record (the grid and every message)
 * against the budget; *out is NULL when one fails.  A strategy that fails
 * (max_steps < ns_opt, a search beyond max_nodes, a simulated event graph
 * beyond the budget, an interrupt) stops the run with its error, *out
 * holding the strategies done before it: the caller frees *out in every
 * case. */
STP_API stp_status stp_redist_run(const stp_redist_run_options *o, stp_redist_result **out,
                                  stp_error *err);
STP_API void stp_redist_result_free(stp_redist_result *r);
/* r->count, for bindings that do not read the structure. */
STP_API size_t stp_redist_result_count(const stp_redist_result *r);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_REDISTRIBUTE_H */
