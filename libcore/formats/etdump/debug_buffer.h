// The debug buffer beside an ETDump: raw tensor bytes at 64-byte aligned
// offsets (BufferDataSink, runtime_events.md §3).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit {
class OutputFile;
}

namespace etkit::etdump {

inline constexpr size_t kDebugBufferAlignment = 64;

// The bytes of `tensor` inside `buffer`: empty for a tensor with no bytes,
// an error when the buffer is too short or the offset is negative.
Result<ByteSpan> tensor_bytes(ByteSpan buffer, const Tensor& tensor);

// Built in memory, or streamed to its file as it grows (stream_to()): the
// same bytes either way.
class DebugBufferWriter {
 public:
  DebugBufferWriter();
  ~DebugBufferWriter();
  DebugBufferWriter(const DebugBufferWriter&) = delete;
  DebugBufferWriter& operator=(const DebugBufferWriter&) = delete;

  // Appends at the next 64-byte boundary (zero padding) and returns the
  // offset, or -1 for an empty blob (nothing written).
  int64_t append(ByteSpan bytes);
  // Makes room for `bytes` more without reallocating (or, streaming,
  // writing to the file) and touches the new pages now: a runtime logs
  // inside a kernel's timed scope (as ExecuTorch's does into its
  // preallocated buffer), where a reallocation, a write or first-touch page
  // faults would be billed to the kernel.
  void reserve_ahead(size_t bytes);
  // The buffer's size so far (streamed or not).
  uint64_t size() const { return flushed_ + bytes_.size(); }
  // In memory: the used part (a reader needs nothing past the last tensor).
  // Streaming: only what is not yet written to the file.
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  // The bytes held in memory, before they go to the file, when streaming:
  // at least this, or what reserve_ahead() asked for.
  static constexpr size_t kStreamWindow = size_t(1) << 20;
  // From now on (nothing appended yet), writes the buffer to `path` as it
  // grows, holding at most a window of it: into a temporary file beside
  // `path` renamed into place by commit(), or in sequence to standard output
  // ("-"), a device or a FIFO. An error naming the file if it cannot be
  // created.
  Status stream_to(const std::string& path, size_t window = kStreamWindow);
  bool streaming() const { return file_ != nullptr; }
  // Streaming: writes what is left and puts the file in place; the first
  // write error (naming the file) if any, and then no file is left behind.
  Status commit();

 private:
  // Streaming: the window to the file, emptied (its pages kept).
  void flush();
  void write(ByteSpan bytes);

  std::vector<uint8_t> bytes_;
  uint64_t flushed_ = 0;  // bytes before bytes_ (streaming: in the file)
  std::unique_ptr<OutputFile> file_;
  size_t window_ = 0;
  std::optional<Error> error_;  // the first failed write
};

}  // namespace etkit::etdump
