#include "libcore/render/instruction_times.h"

#include <algorithm>

namespace etkit::render {

std::map<InstructionRef, double> instruction_time_shares(const etdump::EtDump& dump) {
  std::map<InstructionRef, double> totals;
  for (const auto& run : dump.run_data) {
    if (run.name != "Execute" || !run.events) continue;
    std::map<InstructionRef, uint64_t> longest;
    for (const auto& event : *run.events) {
      if (!event.profile_event) continue;
      const auto& p = *event.profile_event;
      // Framework events sit at chain -1; delegate events are inside their call.
      const bool delegate = p.delegate_debug_id_int != -1 || p.delegate_debug_id_str.has_value();
      if (delegate || p.chain_index < 0 || p.instruction_id < 0 || p.end_time < p.start_time) continue;
      auto& slot = longest[{p.chain_index, p.instruction_id}];
      slot = std::max(slot, p.end_time - p.start_time);
    }
    for (const auto& [ref, ticks] : longest) totals[ref] += static_cast<double>(ticks);
  }
  double sum = 0;
  for (const auto& [ref, ticks] : totals) sum += ticks;
  for (auto& [ref, ticks] : totals) ticks = sum > 0 ? ticks / sum : 0;
  return totals;
}

}  // namespace etkit::render
