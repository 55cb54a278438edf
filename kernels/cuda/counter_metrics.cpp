// The hardware counters circles reads, by Nsight Compute's metric names, and a report's lookup:
// plain C++, so that a build without CUDA lists them too (the viewer's Counters panel, --help).
#include <string>
#include <vector>

#include "kernels/cuda/counters.h"

namespace circles {

const std::vector<CounterSpec>& counter_metrics() {
  static const std::vector<CounterSpec> specs = {
      {"dram__bytes_read.sum", "DRAM read", "bytes", "bytes read from device memory (HBM or GDDR), after L2"},
      {"dram__bytes_write.sum", "DRAM written", "bytes", "bytes written to device memory, after L2"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts", "count",
       "passes of the shared-memory data stage for loads; a warp's load without conflicts takes one"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank conflicts", "count",
       "extra shared-memory load passes caused by lanes hitting the same bank at different addresses"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", "%",
       "warps resident per SM, as a share of the SM's maximum, while the SM was active"},
      {"smsp__thread_inst_executed_per_inst_executed.ratio", "threads per warp instruction", "ratio",
       "active threads per executed warp instruction; / 32 = warp execution efficiency (32: no divergence)"},
      {"sm__inst_executed.sum", "warp instructions", "count", "warp-level instructions executed, all SMs"},
      {"sm__inst_issued.avg.pct_of_peak_sustained_active", "issue slots busy", "%",
       "cycles an SM sub-partition issued an instruction, as a share of its active cycles"},
  };
  return specs;
}

const CounterSpec* find_counter_metric(const std::string& metric) {
  for (const CounterSpec& s : counter_metrics())
    if (s.metric == metric) return &s;
  return nullptr;
}

const CounterValue* CounterReport::find(const std::string& metric) const {
  for (const CounterValue& v : values)
    if (v.metric == metric) return &v;
  return nullptr;
}

}  // namespace circles
