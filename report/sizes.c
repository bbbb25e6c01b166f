/* sizes.c: the sizes of the public structures that bindings fill in
 * themselves (the Python module's ctypes mirrors of the option structs):
 * a binding checks its layout against the library it loaded, or allocates
 * a result it only hands back (stp_teg_summary, stp_graph_result, ...) without
 * mirroring it. */
#include "streamtp_batch.h"
#include "streamtp_bcast.h"
#include "streamtp_generate.h"
#include "streamtp_graph.h"
#include "streamtp_optimize.h"
#include "streamtp_redistribute.h"
#include "streamtp_reduce.h"
#include "streamtp_report.h"

#include <string.h>

#define STP_SIZES(X)                                                                      \
  X(stp_error) X(stp_cancel) X(stp_progress) X(stp_progress_info) X(stp_control)          \
  X(stp_options) X(stp_sim_options) X(stp_graph_options) X(stp_graph_sim_options)         \
  X(stp_reduce_spec) X(stp_bcast_options) X(stp_bcast_model_params) X(stp_redist_options) \
  X(stp_redist_cost) X(stp_optimize_options) X(stp_run_limits) X(stp_generate_params)     \
  X(stp_generate_files_options) X(stp_batch_config) X(stp_batch_input) X(stp_law_fit)      \
  X(stp_redist_run_options) X(stp_bcast_run_options) X(stp_bcast_model_options)            \
  X(stp_bcast_partition_options) X(stp_reduce_run_options) X(stp_teg_summary)   \
  X(stp_graph_result) X(stp_graph_sim_result) X(stp_chain_about) X(stp_chain_solution)

size_t stp_struct_size(const char *name) {
#define STP_SIZE_(type)                                                                   \
  if (name && strcmp(name, #type) == 0)                                                   \
    return sizeof(type);
  STP_SIZES(STP_SIZE_)
#undef STP_SIZE_
  return 0;
}
