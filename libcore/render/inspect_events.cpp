#include "libcore/render/inspect_events.h"

#include <array>
#include <string_view>

namespace etkit::render {

EventLevel event_level(const inspect::Event& event) {
  if (event.is_delegated_op) return EventLevel::kDelegate;
  static constexpr std::array<std::string_view, 4> kMethod = {"Method::execute", "Method::init", "Program::load_method",
                                                              "Method::step"};
  static constexpr std::array<std::string_view, 5> kInstruction = {"OPERATOR_CALL", "DELEGATE_CALL", "JF_CALL",
                                                                   "MOVE_CALL", "FREE_CALL"};
  for (auto name : kMethod) {
    if (event.name == name) return EventLevel::kMethod;
  }
  for (auto name : kInstruction) {
    if (event.name == name) return EventLevel::kInstruction;
  }
  return EventLevel::kKernel;
}

std::optional<InstructionRef> event_instruction(const inspect::Event& event) {
  if (event_level(event) == EventLevel::kMethod || event.instruction_id < 0) return std::nullopt;
  return InstructionRef{0, event.instruction_id};
}

std::string module_path(const inspect::Event& event) {
  for (const auto& [node, stack] : event.module_hierarchy) {
    if (stack && !stack->empty()) return stack->back().path;
  }
  return {};
}

std::string source_location(const inspect::Event& event) {
  for (const auto& [node, trace] : event.stack_traces) {
    if (!trace || trace->empty()) continue;
    // Python frames read `File "<path>", line <n>, in <function>`; the last
    // one is where the op was called.
    const std::string& text = *trace;
    const size_t file = text.rfind("File \"");
    if (file == std::string::npos) continue;
    const size_t path_end = text.find('"', file + 6);
    if (path_end == std::string::npos) continue;
    std::string location = text.substr(file + 6, path_end - file - 6);
    const size_t line = text.find("line ", path_end);
    if (line != std::string::npos) {
      size_t end = line + 5;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      if (end > line + 5) location.append(":").append(text, line + 5, end - line - 5);
    }
    return location;
  }
  return {};
}

}  // namespace etkit::render
