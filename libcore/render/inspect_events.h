// What the drawings need to know about Inspector events, shared by the
// Chrome-trace and HTML-report adapters: how deep an event sits by
// construction and which instruction it belongs to.
#pragma once

#include <optional>
#include <string>

#include "libcore/inspect/event_blocks.h"
#include "libcore/render/program_graph.h"

namespace etkit::render {

// Nesting by construction (runtime_events.md §2): 0 method-level framework
// events (Method::execute, Method::init, Program::load_method, Method::step),
// 1 instruction scopes (OPERATOR_CALL, DELEGATE_CALL, JF_CALL, MOVE_CALL,
// FREE_CALL), 2 kernels, 3 delegate events (backend-supplied, own lane).
enum class EventLevel { kMethod = 0, kInstruction = 1, kKernel = 2, kDelegate = 3 };
EventLevel event_level(const inspect::Event& event);

// The instruction an event belongs to, (chain_index, instruction_id): none
// for method-level events and outside any chain (a negative chain index).
std::optional<InstructionRef> event_instruction(const inspect::Event& event);

}  // namespace etkit::render
