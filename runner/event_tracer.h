// Records what a method does into an ETDump, following the runtime's event
// contract (runtime_events.md §2): blocks, profile events with (chain,
// instruction) ids, debug events for outputs and intermediates, tensors in a
// 64-byte aligned debug buffer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "runner/evalue.h"

namespace etkit::rt {

enum class DebugLevel { kNone = 0, kProgramOutputs = 1, kIntermediateOutputs = 2 };

// The runtime's "unset" state outside any instruction.
inline constexpr int32_t kUnsetChain = -1;
inline constexpr int32_t kUnsetInstruction = 0;

class EventTracer {
 public:
  explicit EventTracer(DebugLevel level = DebugLevel::kNone) : level_(level) {}

  DebugLevel debug_level() const { return level_; }
  // Nanoseconds of a monotonic clock.
  static uint64_t now() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }

  void create_block(std::string_view name) { writer_.begin_block(name); }
  void profile(std::string_view name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
    writer_.add_profile_event(name, chain, instruction, start, end);
  }
  // Logs a Tensor, TensorList, Int, Double or Bool (other kinds are not
  // loggable, as in ETDumpGen). `program_output` marks Tensor/TensorList.
  void log_value(int32_t chain, int32_t instruction, const EValue& value, bool program_output);

  // The ETDump so far (the tracer is empty afterwards) and the used part of
  // the debug buffer.
  std::vector<uint8_t> finish() { return writer_.finish(); }
  const std::vector<uint8_t>& debug_buffer() const { return buffer_.bytes(); }

 private:
  etdump::Tensor record_tensor(const Tensor& t);
  DebugLevel level_;
  etdump::EtDumpWriter writer_;
  etdump::DebugBufferWriter buffer_;
};

}  // namespace etkit::rt
