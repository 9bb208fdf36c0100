#include "libcore/formats/etdump/debug_buffer.h"

#include <algorithm>

namespace etkit::etdump {

Result<ByteSpan> tensor_bytes(ByteSpan buffer, const Tensor& tensor) {
  auto nbytes = tensor_nbytes(tensor);
  if (!nbytes) return bad_input("tensor has an unknown dtype or invalid sizes");
  if (*nbytes == 0) return ByteSpan();
  if (tensor.offset < 0) return bad_input("tensor of " + std::to_string(*nbytes) + " bytes has offset " + std::to_string(tensor.offset));
  if (!in_bounds(uint64_t(tensor.offset), *nbytes, buffer.size())) {
    return bad_input("debug buffer too short: tensor needs bytes [" + std::to_string(tensor.offset) + ", " +
                     std::to_string(uint64_t(tensor.offset) + *nbytes) + ") but the buffer has " +
                     std::to_string(buffer.size()) + " bytes");
  }
  return buffer.subspan(size_t(tensor.offset), size_t(*nbytes));
}

int64_t DebugBufferWriter::append(ByteSpan bytes) {
  if (bytes.empty()) return -1;
  const size_t offset = align_up(bytes_.size(), kDebugBufferAlignment);
  bytes_.resize(offset, 0);
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return static_cast<int64_t>(offset);
}

void DebugBufferWriter::reserve_ahead(size_t bytes) {
  const size_t used = bytes_.size();
  if (bytes_.capacity() - used >= bytes) return;
  bytes_.reserve(std::max(2 * bytes_.capacity(), used + bytes));
  bytes_.resize(bytes_.capacity(), 0);  // the page faults happen here, not in append()
  bytes_.resize(used);
}

}  // namespace etkit::etdump
