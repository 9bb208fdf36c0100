#include "libcore/render/inspect_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "libcore/inspect/source_info.h"
#include "libcore/render/inspect_events.h"

namespace etkit::render {

namespace {

std::vector<TraceArg> slice_args(const inspect::EventBlock& block, const inspect::Event& event, size_t run) {
  std::vector<TraceArg> args = {{"event_block", block.name}, {"iteration", static_cast<int64_t>(run)}};
  if (event_instruction(event)) args.push_back({"instruction_id", static_cast<int64_t>(event.instruction_id)});
  args.push_back({"is_delegated_op", event.is_delegated_op});
  if (!event.delegate_debug_identifier.is_none()) {
    args.push_back({"delegate_debug_identifier", event.delegate_debug_identifier.str()});
  }
  if (event.delegate_backend_name) args.push_back({"delegate_backend_name", *event.delegate_backend_name});
  if (!event.op_types.empty()) args.push_back({"op_types", event.op_types});
  if (auto path = inspect::event_module_path(event); !path.empty()) args.push_back({"module_path", path});
  if (auto source = inspect::event_source_line(event); !source.empty()) args.push_back({"source", source});
  if (event.debug_handles) args.push_back({"debug_handles", event.debug_handles->values});
  return args;
}

}  // namespace

Result<TraceInput> trace_from_inspection(const inspect::Inspection& inspection) {
  TraceInput input;
  ETKIT_ASSIGN_OR_RETURN(input.scale, trace_time_scale(inspect::time_scale_name(inspection.source_time_scale)));
  ETKIT_ASSIGN_OR_RETURN(const double factor,
                         inspect::time_scale_factor(inspection.source_time_scale, inspection.target_time_scale));
  std::map<std::string, size_t> name_uses;
  for (const auto& block : inspection.blocks) ++name_uses[block.name];

  for (size_t b = 0; b < inspection.blocks.size(); ++b) {
    const auto& block = inspection.blocks[b];
    TraceProcess process;
    process.name = name_uses[block.name] > 1 ? block.name + " (block " + std::to_string(b) + ")" : block.name;
    // Tracks per sample index: runtime events, then (only if any) delegate events.
    std::vector<TraceTrack> runs, delegates;
    for (const auto& event : block.events) {
      const bool delegated = event_level(event) == EventLevel::kDelegate;
      auto& tracks = delegated ? delegates : runs;
      for (size_t run = 0; run < event.raw.size() && run < event.start_time.size(); ++run) {
        if (tracks.size() <= run) tracks.resize(run + 1);
        // Saturate: a slice must end by the largest tick (and a cast of 2^64 is undefined).
        const uint64_t room = std::numeric_limits<uint64_t>::max() - event.start_time[run];
        const double ticks = std::max(0.0, std::round(event.raw[run] * factor));
        TraceSlice slice;
        slice.name = event.name;
        slice.category = block.name;
        slice.start = event.start_time[run];
        slice.duration = ticks >= static_cast<double>(room) ? room : static_cast<uint64_t>(ticks);
        slice.level = delegated ? 0 : static_cast<int>(event_level(event));
        slice.args = slice_args(block, event, run);
        tracks[run].slices.push_back(std::move(slice));
      }
    }
    for (size_t run = 0; run < std::max(runs.size(), delegates.size()); ++run) {
      if (run < runs.size()) {
        runs[run].name = "run " + std::to_string(run);
        process.tracks.push_back(std::move(runs[run]));
      }
      if (run < delegates.size()) {
        delegates[run].name = "run " + std::to_string(run) + " delegate";
        process.tracks.push_back(std::move(delegates[run]));
      }
    }
    input.processes.push_back(std::move(process));
  }
  return input;
}

}  // namespace etkit::render
