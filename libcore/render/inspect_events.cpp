#include "libcore/render/inspect_events.h"

#include <array>
#include <limits>
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
  if (event.chain_index < 0 || event.chain_index > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return InstructionRef{static_cast<int32_t>(event.chain_index), event.instruction_id};
}

}  // namespace etkit::render
