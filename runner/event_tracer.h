// Records what a method does into an ETDump, following the runtime's event
// contract (runtime_events.md §2): blocks, profile events with (chain,
// instruction) ids, debug events for outputs and intermediates, tensors in a
// 64-byte aligned debug buffer.
//
// The hot path only appends fixed-size records: timestamps are raw ticks
// (the x86 TSC where it is constant, else the monotonic clock), and the
// FlatBuffer is built once, in finish(), where ticks become nanoseconds of
// the monotonic clock (calibrated over the tracer's lifetime).
//
// Memory: records are kept in a fixed-size chunk; a full chunk is packed
// (names as indices, start times as deltas, varints: about 8 bytes a
// profile event instead of 48) and goes to an anonymous temporary file
// (SpillFile), read back chunk by chunk by finish().
// write_etdump() streams the dump to its file as it is built (two passes
// over the records: the first measures the dump, the second writes it a few
// MiB at a time at its final offsets), so a run's memory stays at a few MiB
// whatever the number of events; the finish() overloads that hand over the
// whole dump build it in one buffer of its size. Debug and delegate events
// are packed whole into their chunk (runner/packed_events.h), so they leave
// memory with it; the debug buffer (the tensors' bytes, a file of its own)
// is held in memory, or streamed to its file as it grows
// (stream_debug_buffer()).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/support/result.h"
#include "runner/evalue.h"
#include "runner/spill_file.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ETKIT_TRACER_TSC 1  // ticks() reads the TSC; time_base() converts
#endif

namespace etkit {
class OutputFile;
}

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
  // Records held in memory before they go to the spill file (48 bytes each
  // in memory, packed to about 8 in the file).
  static constexpr size_t kRecordsInMemory = size_t(1) << 16;
  // A chunk goes earlier when its debug and delegate events would pack to
  // more than this (tensor lists, long delegate metadata).
  static constexpr size_t kEventBytesInMemory = size_t(4) << 20;

  explicit EventTracer(DebugLevel level = DebugLevel::kNone, size_t records_in_memory = kRecordsInMemory);

  DebugLevel debug_level() const { return level_; }

  // Bound on what one ETDump may hold (events and logged tensor bytes, by a
  // conservative estimate of their encoded size); the executor stops a run
  // that reaches it.
  void set_max_bytes(uint64_t max_bytes) { max_bytes_ = max_bytes; }
  uint64_t max_bytes() const { return max_bytes_; }
  bool over_limit() const {
    return (spilled_records_ + records_.size()) * kBytesPerEvent + buffer_.size() > max_bytes_;
  }
  // A raw timestamp for profile(): the TSC where there is one (one
  // instruction, inlined into the executor, which reads it two or three
  // times per instruction run; about 20 ns on the EPYC VMs here, against
  // 50 for clock_gettime), else the monotonic clock.
  static uint64_t ticks() {
#ifdef ETKIT_TRACER_TSC
    return __rdtsc();
#else
    return monotonic_ticks();
#endif
  }

  void create_block(std::string_view name);
  // `name` must stay valid until finish() (event names of a LoadedMethod and
  // string literals do); timestamps come from ticks().
  void profile(std::string_view name, int32_t chain, int32_t instruction, uint64_t start_ticks, uint64_t end_ticks) {
    push(Record{Record::kProfile, chain, instruction, uint32_t(name.size()), {name.data()}, start_ticks, end_ticks});
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

  // Instead of calibrating ticks against the monotonic clock in finish():
  // ns = start_ns + (ticks - start_ticks) * ns_per_tick, for dumps that must
  // be reproducible (tests). Cleared by finish().
  void set_time_base(uint64_t start_ticks, uint64_t start_ns, double ns_per_tick);

  // The ETDump of everything recorded (the tracer is empty afterwards),
  // handed to `sink` without a copy; an error if the spill file cannot be
  // read back, or the sink's.
  Status finish(const std::function<Status(ByteSpan)>& sink);
  // The same bytes written to `sink` piece by piece as they are built (see
  // etdump::ChunkSink and EtDumpWriter::streaming for `align` and
  // `sink_keeps_bytes`), in memory bounded by `window` and a few MiB; the
  // dump's size.
  Result<uint64_t> finish(const etdump::ChunkSink& sink, size_t window = etdump::EtDumpWriter::kStreamWindow,
                          size_t align = 1, bool sink_keeps_bytes = false);
  // Below this estimate of the dump's size (kBytesPerEvent per event), a
  // dump is built in memory and written at once: the measuring pass costs
  // more than the memory it saves.
  static constexpr size_t kStreamAbove = size_t(32) << 20;
  // Above this estimate a streamed dump is written with O_DIRECT where the
  // file system takes it (written once, not kept in the page cache, no
  // copy into it); below, through the page cache, where the last piece
  // costs a copy instead of a wait for the device (add.pte at 100,000
  // executions: 10 ns a traced event less wall time, 8 more CPU on the
  // writing thread; docs/performance.md).
  static constexpr size_t kDirectAbove = size_t(64) << 20;
  // finish() into `path` atomically (a temporary file renamed into place on
  // success): streamed into a regular file when the dump may be larger than
  // `stream_above` (each piece written on another thread while the next is
  // built; with O_DIRECT above kDirectAbove), else built in memory,
  // as always for standard output ("-"), devices and FIFOs, which take no
  // positional writes.
  Status write_etdump(const std::string& path, size_t stream_above = kStreamAbove);
  // Where a streamed dump's pieces are written: on a thread of their own
  // while the next piece is built, or in the call that hands them over
  // (what happens when no thread can be started; a test asks for it).
  enum class PieceWrites { kBackground, kInCall };
  // The same into `out` (committed on success), streamed `window` bytes at
  // a time, with O_DIRECT above `direct_above`.
  Status write_etdump(OutputFile& out, size_t stream_above = kStreamAbove,
                      size_t window = etdump::EtDumpWriter::kStreamWindow,
                      PieceWrites writes = PieceWrites::kBackground, size_t direct_above = kDirectAbove);
  // The same into a vector (a copy of the dump); empty if the spill file
  // cannot be read back.
  std::vector<uint8_t> finish();
  // The used part of the debug buffer, kept in memory unless it is streamed
  // to its file.
  const std::vector<uint8_t>& debug_buffer() const { return buffer_.bytes(); }
  // Before anything is logged: the debug buffer goes to `path` as it grows
  // (etdump::DebugBufferWriter::stream_to: a temporary file renamed into
  // place by write_debug_buffer(), or in sequence to "-", a device or a
  // FIFO), holding a window of `window` bytes or a block's worth of tensors
  // in memory instead of the whole buffer. The window is flushed only when
  // a block begins (create_block(), outside any timed scope), unless a
  // block logs more than the last one did.
  Status stream_debug_buffer(const std::string& path,
                             size_t window = etdump::DebugBufferWriter::kStreamWindow) {
    return buffer_.stream_to(path, window);
  }
  // The streamed debug buffer's rest, and its file put in place; the first
  // write error, naming the file.
  Status write_debug_buffer() { return buffer_.commit(); }
  // Records held in memory (not yet spilled), debug and delegate events
  // included, and the bytes those events pack to.
  size_t events_in_memory() const { return records_.size(); }
  size_t event_bytes_in_memory() const { return events_size_; }

 private:
#ifndef ETKIT_TRACER_TSC
  static uint64_t monotonic_ticks();
#endif
  struct Record {
    enum Kind : uint8_t { kBlock, kProfile, kDebug, kDelegateProfile } kind;
    int32_t chain;
    int32_t instruction;
    // kBlock: into block_names_; kProfile: the name's size; kDebug and
    // kDelegateProfile: the size of the packed event at `event`.
    uint32_t index;
    union {
      const char* name_data;  // kProfile (a name as profile() takes it)
      uint64_t event;         // kDebug, kDelegateProfile: offset in events_
    };
    uint64_t start;
    uint64_t end;
    std::string_view name() const { return {name_data, index}; }
  };
  struct TimeBase {
    uint64_t start_ticks;
    uint64_t start_ns;
    double ns_per_tick;
    bool identity = false;  // ticks are already nanoseconds
  };
  TimeBase time_base();
  // Every record, spilled ones first, into `writer`. `lengths_only`: for
  // a measuring writer, which looks at the lengths of an event's strings
  // and vectors, not at their contents (see unpack_event).
  Status replay(etdump::EtDumpWriter& writer, const TimeBase& base, bool lengths_only = false);
  // Empties the tracer after finish().
  void reset();
  // A bound on the dump's size.
  size_t size_estimate() const;
  // Room for `bound` more bytes of packed events, at the end of events_.
  uint8_t* event_room(size_t bound) {
    if (events_capacity_ - events_size_ < bound) [[unlikely]] grow_events(bound);
    return events_.get() + events_size_;
  }
  void grow_events(size_t bound);
  // Records the event packed from events_size_ to `end`.
  void push_event(Record::Kind kind, int32_t chain, int32_t instruction, const uint8_t* end, uint64_t start_ticks,
                  uint64_t end_ticks);
  // A debug event (chain, instruction, delegate id) whose value is packed
  // by `pack_value(out)` within `value_bound` bytes.
  template <typename PackValue>
  void debug_event(int32_t chain, int32_t instruction, int32_t id_int, const std::string_view* id_text,
                   size_t value_bound, PackValue&& pack_value);
  uint8_t* pack_tensor(uint8_t* out, const Tensor& t);
  void push(const Record& r) {
    records_.push_back(r);
    if (records_.size() >= records_capacity_ || events_size_ > event_bytes_capacity_) [[unlikely]] spill();
  }
  void spill();
  // Packs records_ into packed_ (see spill()); the chunk decodes on its own.
  void pack_records();
  uint32_t name_id(std::string_view name);
  // Unpacks one spilled chunk into `add` record by record (with its debug
  // or delegate event, if any, and a profile event's name index); false if
  // its bytes do not hold `count` records.
  template <typename Add>
  bool unpack_chunk(const uint8_t* p, const uint8_t* end, size_t count, bool lengths_only, Add&& add) const;

  DebugLevel level_;
  std::vector<Record> records_;
  size_t records_capacity_;
  std::unique_ptr<SpillFile> spill_;  // created by the first full chunk
  uint64_t spilled_records_ = 0;
  struct SpilledChunk {
    uint64_t bytes;
    uint32_t records;
  };
  std::vector<SpilledChunk> spilled_chunks_;
  // Not a vector: its pages are touched only as far as records are packed.
  std::unique_ptr<uint8_t[]> packed_;
  size_t packed_capacity_ = 0;
  size_t packed_size_ = 0;
  // Profile event names by index in the spill file, and the last lookups by
  // address (callers pass the same few string_views again and again).
  std::vector<std::string_view> names_;
  std::unordered_map<std::string_view, uint32_t> name_ids_;
  struct RecentName {
    const char* data = nullptr;
    size_t size = 0;
    uint32_t id = 0;
  };
  std::array<RecentName, 64> recent_names_{};
  std::optional<TimeBase> fixed_time_base_;
  std::deque<std::string> block_names_;
  // The current chunk's debug and delegate events, packed as they are
  // recorded (runner/packed_events.h): no heap allocation per event.
  std::unique_ptr<uint8_t[]> events_;
  size_t events_capacity_ = 0;
  size_t events_size_ = 0;
  size_t event_bytes_capacity_ = kEventBytesInMemory;
  etdump::DebugBufferWriter buffer_;
  uint64_t bytes_before_block_ = 0;  // buffer size when the current block began
  uint64_t start_ticks_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t max_bytes_ = kDefaultMaxBytes;
};

}  // namespace etkit::rt
