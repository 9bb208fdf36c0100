// Writes ETDumps the way ExecuTorch's ETDumpGen does: size-prefixed ED00,
// blocks appended one after another, events in the order they are added,
// scalars equal to their defaults left out. Differences in the bytes, not
// in what a reader sees: the names of add_profile_event(name, ...) are
// written once per distinct name and shared by the events that use them,
// and event tables are laid out without FlatBufferBuilder's per-table
// vtable search (each vtable written once, where first needed).
//
// A dump too large to hold in memory is written in two passes over the same
// calls: a measuring writer lays it out without writing its events and
// gives its exact size, then a streaming writer builds the same bytes and
// hands them to a positional sink a few MiB at a time, so neither pass holds
// more than a few MiB whatever the dump's size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etdump {

// Receives every byte range of a streamed dump once, from the end of the
// dump towards its start (a FlatBuffer is built back to front); `offset`
// counts from the dump's first byte.
using ChunkSink = std::function<Status(uint64_t offset, ByteSpan bytes)>;

class EtDumpWriter {
 public:
  // `size_hint`: the expected size of the dump. The buffer is built back to
  // front in one allocation of that size; pages it never touches cost no
  // memory, so overestimating is cheap and spares the copies of a growing
  // buffer.
  explicit EtDumpWriter(size_t size_hint = size_t(1) << 20);
  // Bytes built between two writes to the sink (and what either pass
  // holds in memory, apart from pages holding vtables).
  static constexpr size_t kStreamWindow = size_t(4) << 20;
  // Lays the dump out without writing its events; finish_streamed() gives
  // its size. `size_hint` bounds the dump's size (address space only).
  static std::unique_ptr<EtDumpWriter> measuring(size_t size_hint, size_t window = kStreamWindow);
  // Builds a dump of exactly `size` bytes (what a measuring writer given the
  // same calls found) and writes it to `sink` as it is built. With `align`
  // (a power of two, at most the page size) every write starts at a
  // multiple of it, is a multiple of it long and comes from an address
  // aligned to it, as O_DIRECT wants: the first write (the dump's end)
  // carries zeros past the dump's size up to the next multiple, which the
  // destination cuts off again.
  // With `sink_keeps_bytes`, the sink may go on reading a piece after it
  // returns (writing it in the background, say) until its next call
  // returns: the writer keeps that piece's pages until then, and calls the
  // sink once more with no bytes at the end (finish_streamed(), or when the
  // writer is destroyed), after which the sink holds nothing. A sink that
  // returns an error holds nothing either.
  static std::unique_ptr<EtDumpWriter> streaming(uint64_t size, ChunkSink sink, size_t window = kStreamWindow,
                                                 size_t align = 1, bool sink_keeps_bytes = false);
  ~EtDumpWriter();
  EtDumpWriter(const EtDumpWriter&) = delete;
  EtDumpWriter& operator=(const EtDumpWriter&) = delete;

  // Starts a new RunData; the previous one is closed.
  void begin_block(std::string_view name, int32_t bundled_input_index = -1);
  // Returns the 1-based allocator id used by AllocationEvent::allocator_id.
  int32_t add_allocator(std::string_view name);
  void add_event(const Event& event);
  void add_profile_event(const ProfileEvent& event);
  // The runtime's common case without building a ProfileEvent: a named
  // event with no delegate ids.
  void add_profile_event(std::string_view name, int32_t chain_index, int32_t instruction_id, uint64_t start_time,
                         uint64_t end_time);
  // The same with the caller's number for the name, for callers that number
  // their names anyway (an event tracer): the same `name_index` always
  // comes with the same text, so the name is looked up once per index
  // rather than compared on every event. The bytes are those of the call
  // above.
  void add_profile_event(uint32_t name_index, std::string_view name, int32_t chain_index, int32_t instruction_id,
                         uint64_t start_time, uint64_t end_time);
  void add_allocation_event(const AllocationEvent& event);
  void add_debug_event(const DebugEvent& event);
  // Closes the dump; the writer is then empty again.
  std::vector<uint8_t> finish();
  // Closes the dump and hands its bytes to `sink` without copying them.
  Status finish(const std::function<Status(ByteSpan)>& sink);
  // Measuring and streaming writers: closes the dump, writes what is left of
  // it (streaming) and returns its size; the first error of the sink, or an
  // error if the calls made a dump of another size than announced.
  Result<uint64_t> finish_streamed();
  // A streaming writer whose sink failed: the rest of the calls are wasted.
  bool failed() const;

 private:
  struct Impl;
  explicit EtDumpWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

std::vector<uint8_t> write_etdump(const EtDump& dump);

}  // namespace etkit::etdump
