#include "runner/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <limits>

namespace etkit::rt {
namespace {

constexpr uint64_t kMapThreshold = uint64_t(1) << 20;

}  // namespace

void BufferDeleter::operator()(uint8_t* p) const {
  if (mapped_bytes != 0) {
    munmap(p, mapped_bytes);
  } else {
    std::free(p);
  }
}

Buffer allocate_zeroed(uint64_t size) {
  if (size > std::numeric_limits<size_t>::max() - kBufferAlignment) return Buffer(nullptr, {});
  // At least one byte: an empty tensor still gets a distinct, valid pointer.
  const uint64_t bytes = (size == 0 ? 1 : size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (bytes >= kMapThreshold) {
    void* p = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return Buffer(nullptr, {});
    return Buffer(static_cast<uint8_t*>(p), BufferDeleter{bytes});  // page-aligned and zero
  }
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, size_t(bytes)));
  if (p) std::memset(p, 0, size_t(bytes));
  return Buffer(p, {});
}

}  // namespace etkit::rt
