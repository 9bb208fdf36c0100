#include "libcore/formats/etdump/debug_buffer.h"

#include <algorithm>

#include "libcore/support/file.h"

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

DebugBufferWriter::DebugBufferWriter() = default;
DebugBufferWriter::~DebugBufferWriter() = default;

int64_t DebugBufferWriter::append(ByteSpan bytes) {
  if (bytes.empty()) return -1;
  const uint64_t offset = align_up(size(), uint64_t(kDebugBufferAlignment));
  const size_t padding = size_t(offset - size());
  if (file_ && bytes_.capacity() - bytes_.size() < padding + bytes.size()) {
    // Not reserved ahead (the first block, or one logging more than the
    // last): the window goes now, and a blob larger than it goes straight
    // to the file.
    flush();
    if (bytes_.capacity() < padding + bytes.size()) {
      static constexpr uint8_t kZeros[kDebugBufferAlignment] = {};
      write(ByteSpan(kZeros, padding));
      write(bytes);
      flushed_ += padding + bytes.size();
      return static_cast<int64_t>(offset);
    }
  }
  bytes_.resize(bytes_.size() + padding, 0);
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return static_cast<int64_t>(offset);
}

void DebugBufferWriter::reserve_ahead(size_t bytes) {
  if (file_) {
    // The next block's padding may differ from the last one's by up to an
    // alignment.
    bytes += kDebugBufferAlignment;
    if (bytes_.capacity() - bytes_.size() >= bytes) return;
    flush();
    if (bytes_.capacity() >= bytes) return;
  }
  const size_t used = bytes_.size();
  if (bytes_.capacity() - used >= bytes) return;
  // Streaming, the window is empty here: it grows to what a block logs.
  bytes_.reserve(file_ ? std::max(bytes, window_) : std::max(2 * bytes_.capacity(), used + bytes));
  bytes_.resize(bytes_.capacity(), 0);  // the page faults happen here, not in append()
  bytes_.resize(used);
}

Status DebugBufferWriter::stream_to(const std::string& path, size_t window) {
  if (size() != 0) return Error{ErrorKind::kUsage, path, {}, "the debug buffer is streamed from its start only"};
  ETKIT_ASSIGN_OR_RETURN(file_, OutputFile::create(path));
  window_ = std::max<size_t>(window, 1);
  error_.reset();
  bytes_.reserve(window_);
  bytes_.resize(bytes_.capacity(), 0);  // its pages, touched once
  bytes_.clear();
  return {};
}

void DebugBufferWriter::write(ByteSpan bytes) {
  if (error_ || bytes.empty()) return;
  Status s = file_->write(bytes);
  if (!s) error_ = std::move(s).error();
}

void DebugBufferWriter::flush() {
  write(ByteSpan(bytes_));
  flushed_ += bytes_.size();
  bytes_.clear();
}

Status DebugBufferWriter::commit() {
  if (!file_) return Error{ErrorKind::kUsage, "", {}, "the debug buffer is not streamed to a file"};
  flush();
  if (error_) {
    file_.reset();  // the temporary file goes
    return *error_;
  }
  Status s = file_->commit();
  file_.reset();
  return s;
}

}  // namespace etkit::etdump
