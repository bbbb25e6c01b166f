/* streamtp_plot.h: the pictures of explain as SVG (report/plot.c;
 * docs/guide/sweep.md shows each): a sweep's throughputs with the
 * N.B.U.E. band and the critical resource's changes named, and the
 * sensitivities as a bar chart.  Same conventions as streamtp.h; the text
 * handed out is released with stp_free (streamtp_report.h). */
#ifndef STREAMTP_PLOT_H
#define STREAMTP_PLOT_H

#include "streamtp_explain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The points of a sweep (in the order of stp_sweep_point_eval, the first
 * vary fastest or alone) against the first vary's values: one curve per
 * throughput computed (det solid, exp dashed, the law dotted; with two
 * varies a colour per value of the second), the N.B.U.E. band between exp
 * and det (one vary), the simulation's 95 % intervals, and a circle with
 * the new name at every point whose critical resources differ from the
 * previous point's (class "change", data-value and data-critical). */
STP_API stp_status stp_sweep_plot_svg(const stp_vary *const *vary, size_t nvary,
                                      const stp_sweep_point *points, size_t n, const char *title,
                                      char **svg, size_t *len, stp_error *err);

/* The first `top` items of r (0: all) as horizontal bars of their
 * elasticity under `by` (class "bar", data-parameter, data-elasticity),
 * with a tick at the other one-sided value where they differ. */
STP_API stp_status stp_sensitivity_plot_svg(const stp_sensitivity_result *r, stp_rank_by by,
                                            size_t top, const char *title, char **svg,
                                            size_t *len, stp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_PLOT_H */
