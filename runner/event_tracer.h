// Records what a method does into an ETDump, following the runtime's event
// contract (runtime_events.md §2): blocks, profile events with (chain,
// instruction) ids, debug events for outputs and intermediates, tensors in a
// 64-byte aligned debug buffer.
//
// The hot path only appends fixed-size records: timestamps are raw ticks
// (the x86 TSC where it is constant, else the monotonic clock), and the
// FlatBuffer is built once, in finish(), where ticks become nanoseconds of
// the monotonic clock (calibrated over the tracer's lifetime).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump.h"
#include "runner/evalue.h"

namespace etkit::rt {

enum class DebugLevel { kNone = 0, kProgramOutputs = 1, kIntermediateOutputs = 2 };

// The runtime's "unset" state outside any instruction.
inline constexpr int32_t kUnsetChain = -1;
inline constexpr int32_t kUnsetInstruction = 0;

// How a delegate names one of its events: an integer or a string, never
// both (the ETDump carries exactly one).
struct DelegateDebugId {
  int32_t integer = -1;
  std::string text;
  bool is_text() const { return integer < 0; }
};

class EventTracer {
 public:
  explicit EventTracer(DebugLevel level = DebugLevel::kNone);

  DebugLevel debug_level() const { return level_; }

  // Bound on what one ETDump may hold (events and logged tensor bytes, by a
  // conservative estimate of their encoded size); the executor stops a run
  // that reaches it.
  void set_max_bytes(uint64_t max_bytes) { max_bytes_ = max_bytes; }
  uint64_t max_bytes() const { return max_bytes_; }
  bool over_limit() const { return records_.size() * kBytesPerEvent + buffer_.bytes().size() > max_bytes_; }
  // A raw timestamp for profile(); cheap (about 10 ns with the TSC).
  static uint64_t ticks();

  void create_block(std::string_view name);
  // `name` must stay valid until finish() (event names of a LoadedMethod and
  // string literals do); timestamps come from ticks().
  void profile(std::string_view name, int32_t chain, int32_t instruction, uint64_t start_ticks, uint64_t end_ticks) {
    records_.push_back(Record{Record::kProfile, chain, instruction, 0, name, start_ticks, end_ticks});
  }
  // A delegate's own profiling event: no name, its debug id, and metadata
  // (written even when empty, as the runtime does).
  void profile_delegate(int32_t chain, int32_t instruction, const DelegateDebugId& id, ByteSpan metadata,
                        uint64_t start_ticks, uint64_t end_ticks);
  // A delegate's intermediate output (a DebugEvent with its debug id).
  void log_delegate_output(int32_t chain, int32_t instruction, const DelegateDebugId& id, const Tensor& tensor);

  // Logs a Tensor, TensorList, Int, Double or Bool (other kinds are not
  // loggable, as in ETDumpGen). `program_output` marks Tensor/TensorList.
  void log_value(int32_t chain, int32_t instruction, const EValue& value, bool program_output);

  // An encoded ProfileEvent takes 40-70 bytes and a DebugEvent with its
  // Tensor table more: 96 overestimates both.
  static constexpr uint64_t kBytesPerEvent = 96;
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

  // The ETDump of everything recorded (the tracer is empty afterwards) and
  // the used part of the debug buffer.
  std::vector<uint8_t> finish();
  const std::vector<uint8_t>& debug_buffer() const { return buffer_.bytes(); }

 private:
  struct Record {
    enum Kind : uint8_t { kBlock, kProfile, kDebug, kDelegateProfile } kind;
    int32_t chain;
    int32_t instruction;
    uint32_t index;  // kBlock: into block_names_; kDebug: into debug_events_; kDelegateProfile: delegate_events_
    std::string_view name;
    uint64_t start;
    uint64_t end;
  };
  etdump::Tensor record_tensor(const Tensor& t);

  DebugLevel level_;
  std::vector<Record> records_;
  std::deque<std::string> block_names_;
  std::vector<etdump::DebugEvent> debug_events_;
  std::vector<etdump::ProfileEvent> delegate_events_;  // times filled in by finish()
  etdump::DebugBufferWriter buffer_;
  size_t bytes_before_block_ = 0;  // buffer size when the current block began
  uint64_t start_ticks_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t max_bytes_ = kDefaultMaxBytes;
};

}  // namespace etkit::rt
