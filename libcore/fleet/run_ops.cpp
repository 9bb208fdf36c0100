#include "libcore/fleet/run_ops.h"

#include <tuple>

namespace etkit::fleet {

RunOps run_ops(const FleetRun& run) {
  RunOps out{run.input_index, run.file, run.labels, run.program, {}};
  // (op type, block, sample) -> summed time; std::map keeps block then sample order per op.
  std::map<std::tuple<std::string, uint32_t, size_t>, double> sums;
  for (const FleetEvent& event : run.events) {
    if (!event.counted) continue;
    for (size_t s = 0; s < event.samples.size(); ++s) sums[{event.op_type, event.block_index, s}] += event.samples[s];
  }
  for (const auto& [key, total] : sums) out.samples[std::get<0>(key)].push_back(total);
  return out;
}

}  // namespace etkit::fleet
