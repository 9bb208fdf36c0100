#include "libcore/compare/locations.h"

#include <vector>

namespace etkit::compare {

std::string last_source_line(std::string_view stack_trace) {
  static constexpr std::string_view kFile = "File \"", kLine = "\", line ";
  std::string out;
  for (size_t at = stack_trace.find(kFile); at != std::string_view::npos; at = stack_trace.find(kFile, at + 1)) {
    const size_t name_start = at + kFile.size();
    const size_t name_end = stack_trace.find(kLine, name_start);
    if (name_end == std::string_view::npos) break;
    const size_t digits_start = name_end + kLine.size();
    size_t digits_end = digits_start;
    while (digits_end < stack_trace.size() && stack_trace[digits_end] >= '0' && stack_trace[digits_end] <= '9') ++digits_end;
    if (digits_end == digits_start) continue;
    out = std::string(stack_trace.substr(name_start, name_end - name_start)) + ":" +
          std::string(stack_trace.substr(digits_start, digits_end - digits_start));
  }
  return out;
}

InstructionLocator locator_from_links(const inspect::RecordLinks& links) {
  return [&links](int64_t, int32_t instruction_id) -> std::string {
    auto it = links.debug_handle_map.find(std::to_string(instruction_id));
    if (it == links.debug_handle_map.end()) return {};
    // The first node (graph order) of the first handle that has one.
    for (int64_t handle : it->second.values) {
      for (const auto& node : links.op_nodes) {
        if (node.debug_handle != handle) continue;
        std::string module;
        if (node.nn_module_stack) {
          for (const auto& entry : *node.nn_module_stack) {
            if (!entry.path.empty()) module = entry.path;  // innermost non-root wins
          }
        }
        const std::string line = node.stack_trace ? last_source_line(*node.stack_trace) : std::string();
        if (module.empty() && line.empty()) return node.name;
        if (line.empty()) return module;
        return module.empty() ? line : module + " at " + line;
      }
    }
    return {};
  };
}

}  // namespace etkit::compare
