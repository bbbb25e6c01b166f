/* run.c: one run of stp_optimize (optimize.h): its budget (deadline,
 * evaluations, cancellation, checked between candidates and, through the
 * evaluator's cancel, inside each one), the best mapping so far and the
 * progress line. */
#include "models/pipeline/optimize/optimize.h"

#include "base/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The evaluator's cancel: the caller's, or the deadline passed. */
static int run_cancelled(void *data) {
  const stp_opt_run *run = data;
  return stp__cancelled(&run->user_cancel) || (isfinite(run->deadline) &&
                                               stp__now() >= run->deadline);
}

stp_status stp__opt_run_init(stp_opt_run *run, const stp_opt_space *sp, stp_opt_eval *ev,
                             const stp_optimize_options *o, double t0, stp_error *err) {
  memset(run, 0, sizeof *run);
  run->sp = sp;
  run->ev = ev;
  run->opts = o;
  run->user_cancel = o->eval.control.cancel;
  run->shown = o->eval.control.progress;
  run->best_value = -INFINITY;
  run->upper_bound = INFINITY;
  run->t0 = run->last_progress = t0;
  run->deadline = o->time_limit > 0 ? t0 + o->time_limit : INFINITY;
  run->max_evals = o->max_evaluations;
  ev->opts.control.cancel = (stp_cancel){.fn = run_cancelled, .data = run};
  return stp__opt_cand_alloc(sp, &run->best, err);
}

void stp__opt_run_free(stp_opt_run *run) {
  if (!run)
    return;
  stp__opt_cand_free(&run->best);
}

void stp__opt_offer(stp_opt_run *run, const stp_opt_cand *c, double v) {
  if (!(v > run->best_value))
    return;
  run->best_value = v;
  stp__opt_cand_copy(run->sp, &run->best, c);
}

bool stp__opt_reached_bound(const stp_opt_run *run) {
  return run->best_value >= run->upper_bound - fabs(run->upper_bound) * STP_OPT_RTOL;
}

/* Progress about ten times a second. */
#define PROGRESS_EVERY 0.1

/* To the options' callback with numbers, and through the run contract's
 * control.progress as a line ("optimizing: best 0.21, bound 0.3, gap 30 %,
 * candidates: 1234 so far, ..." on the command line). */
static void report_progress(stp_opt_run *run, double t) {
  if (run->refresh)
    run->refresh(run, run->refresh_data);
  double best = run->best_value > -INFINITY ? run->best_value : NAN;
  stp_optimize_progress_info info = {.best = best, .upper_bound = run->upper_bound,
                                     .gap = (run->upper_bound - best) / run->upper_bound,
                                     .evaluated = run->ev->evaluated, .nodes = run->nodes,
                                     .seconds = t - run->t0};
  if (run->opts->progress)
    run->opts->progress(&info, run->opts->progress_data);
  if (!run->shown.fn)
    return;
  char what[160]; /* the command line keeps 96 */
  if (run->refresh && run->closed > 0) /* the exact method: the share of its tree closed, and
                                          the time to the proof at the rate so far (an
                                          estimate: subtrees differ); short, for a line of 96 */
    snprintf(what, sizeof what, "exact: best %.6g, bound %.6g, gap %.2f %%, closed %.2g %%, ~%.2g s "
             "left, nodes", best, info.upper_bound, 100 * info.gap, 100 * run->closed,
             info.seconds / run->closed * (1 - run->closed));
  else
    snprintf(what, sizeof what, "optimizing: best %.6g, bound %.6g, gap %.2f %%, %s", best,
             info.upper_bound, 100 * info.gap, run->nodes ? "search nodes" : "candidates");
  run->shown.fn(&(stp_progress_info){.what = what,
                                     .done = run->nodes ? run->nodes : run->ev->evaluated,
                                     .seconds = info.seconds},
                run->shown.data);
}

bool stp__opt_stopping(stp_opt_run *run) {
  if (run->stop != STP_OPT_RUNNING)
    return true;
  if (stp__cancelled(&run->user_cancel)) {
    run->stop = STP_OPT_CANCEL;
    return true;
  }
  if (run->max_evals && run->ev->evaluated >= run->max_evals) {
    run->stop = STP_OPT_EVALS;
    return true;
  }
  double t = stp__now();
  if (t >= run->deadline) {
    run->stop = STP_OPT_TIME;
    return true;
  }
  if ((run->opts->progress || run->shown.fn) && t - run->last_progress >= PROGRESS_EVERY) {
    run->last_progress = t;
    report_progress(run, t);
  }
  return false;
}

void stp__opt_interrupted(stp_opt_run *run) {
  if (run->stop == STP_OPT_RUNNING)
    run->stop = stp__cancelled(&run->user_cancel) ? STP_OPT_CANCEL : STP_OPT_TIME;
}
