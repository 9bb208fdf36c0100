// Runs a loaded method: chains in order, instructions by program counter,
// with the runtime's semantics for every instruction kind (pte_spec.md
// §4.5) and, when a tracer is given, its events (runtime_events.md §2.2).
// The hot path only indexes what load_method prepared.
//
// A program can loop (JumpFalseCall), so one execution is bounded: by a
// count of executed instructions, optionally by wall time, and by the size
// of the ETDump its tracer may record.
#pragma once

#include <chrono>

#include "runner/event_tracer.h"
#include "runner/method.h"

namespace etkit::rt {

// Default bound on the instructions one execute() runs. Exported programs
// run each instruction once unless they loop (higher-order map), so this is
// far above any real program and low enough that an endless loop ends in
// well under a second untraced.
inline constexpr uint64_t kDefaultMaxInstructions = 1'000'000;

struct ExecuteLimits {
  uint64_t max_instructions = kDefaultMaxInstructions;
  // Zero: no time limit. Checked between instructions (a running kernel is
  // not interrupted).
  std::chrono::nanoseconds timeout{0};
};

class Executor {
 public:
  // `tracer` may be null (no events, no debug output).
  static Status execute(LoadedMethod& method, EventTracer* tracer, const ExecuteLimits& limits = {});
};

inline Status execute(LoadedMethod& method, EventTracer* tracer = nullptr, const ExecuteLimits& limits = {}) {
  return Executor::execute(method, tracer, limits);
}

}  // namespace etkit::rt
