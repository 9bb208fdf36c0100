#include "libcore/inspect/source_info.h"

#include "libcore/formats/etrecord/node_metadata.h"

namespace etkit::inspect {

std::string event_module_path(const Event& event) {
  for (const auto& [node, stack] : event.module_hierarchy) {
    if (!stack) continue;
    if (std::string path = etrecord::module_path(*stack); !path.empty()) return path;
  }
  return {};
}

std::string event_source_line(const Event& event) {
  for (const auto& [node, trace] : event.stack_traces) {
    if (!trace) continue;
    if (std::string line = etrecord::source_line(*trace); !line.empty()) return line;
  }
  return {};
}

}  // namespace etkit::inspect
