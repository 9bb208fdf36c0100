// Runs a loaded method: chains in order, instructions by program counter,
// with the runtime's semantics for every instruction kind (pte_spec.md
// §4.5) and, when a tracer is given, its events (runtime_events.md §2.2).
// The hot path only indexes what load_method prepared.
#pragma once

#include "runner/event_tracer.h"
#include "runner/method.h"

namespace etkit::rt {

// The official runtime's bound on executed instructions per execute().
inline constexpr uint64_t kMaxInstructions = 10'000'000;

class Executor {
 public:
  // `tracer` may be null (no events, no debug output).
  static Status execute(LoadedMethod& method, EventTracer* tracer);
};

inline Status execute(LoadedMethod& method, EventTracer* tracer = nullptr) { return Executor::execute(method, tracer); }

}  // namespace etkit::rt
