// An anonymous temporary file that grows by appends and is read back by
// offset: where the event tracer keeps its records while a run goes on, so
// that its memory does not grow with the number of events. The file is
// unlinked as soon as it is created and disappears with its descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace etkit::rt {

class SpillFile {
 public:
  // In $TMPDIR (else /tmp); null when no file can be created there.
  static std::unique_ptr<SpillFile> create();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // All of `size` bytes or nothing: a short write is cut off again, so the
  // file only ever holds whole appends.
  bool append(const void* data, size_t size);
  bool read(uint64_t offset, void* data, size_t size) const;
  uint64_t size() const { return size_; }

 private:
  explicit SpillFile(int fd) : fd_(fd) {}
  int fd_;
  uint64_t size_ = 0;
};

}  // namespace etkit::rt
