// The debug buffer beside an ETDump: raw tensor bytes at 64-byte aligned
// offsets (BufferDataSink, runtime_events.md §3).
#pragma once

#include <vector>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etdump {

inline constexpr size_t kDebugBufferAlignment = 64;

// The bytes of `tensor` inside `buffer`: empty for a tensor with no bytes,
// an error when the buffer is too short or the offset is negative.
Result<ByteSpan> tensor_bytes(ByteSpan buffer, const Tensor& tensor);

class DebugBufferWriter {
 public:
  // Appends at the next 64-byte boundary (zero padding) and returns the
  // offset, or -1 for an empty blob (nothing written).
  int64_t append(ByteSpan bytes);
  // Makes room for `bytes` more without reallocating and touches the new
  // pages now: a runtime logs inside a kernel's timed scope (as ExecuTorch's
  // does into its preallocated buffer), where a reallocation or first-touch
  // page faults would be billed to the kernel.
  void reserve_ahead(size_t bytes);
  // Only the used part: a reader needs nothing past the last tensor.
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace etkit::etdump
