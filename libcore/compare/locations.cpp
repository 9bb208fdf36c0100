#include "libcore/compare/locations.h"

#include <map>
#include <memory>

#include "libcore/inspect/source_info.h"

namespace etkit::compare {

InstructionLocator locator_from_linked_events(const inspect::Inspection& linked) {
  auto locations = std::make_shared<std::map<int32_t, std::string>>();
  for (const auto& block : linked.blocks) {
    for (const auto& event : block.events) {
      if (locations->count(event.instruction_id)) continue;
      const std::string module = inspect::event_module_path(event), line = inspect::event_source_line(event);
      if (module.empty() && line.empty()) continue;  // framework events are never linked to nodes
      (*locations)[event.instruction_id] = module.empty() ? line : line.empty() ? module : module + " at " + line;
    }
  }
  return [locations](int64_t, int32_t instruction_id) -> std::string {
    auto it = locations->find(instruction_id);
    return it == locations->end() ? std::string() : it->second;
  };
}

}  // namespace etkit::compare
