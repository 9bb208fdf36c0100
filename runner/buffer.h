// Zero-filled, 64-byte aligned memory a loaded method owns (arenas and the
// buffers of unplanned tensors). Blocks of a megabyte and more come from an
// anonymous mapping, whose pages cost nothing until a kernel touches them:
// a program that plans a large arena and uses little of it pays for what it
// uses, and no time goes into zero-filling memory that is never read.
#pragma once

#include <cstdint>
#include <memory>

namespace etkit::rt {

struct BufferDeleter {
  uint64_t mapped_bytes = 0;  // non-zero: munmap this many bytes; else free()
  void operator()(uint8_t* p) const;
};
using Buffer = std::unique_ptr<uint8_t, BufferDeleter>;

inline constexpr uint64_t kBufferAlignment = 64;

// Null when the system refuses (or the size does not fit the address space).
Buffer allocate_zeroed(uint64_t size);

}  // namespace etkit::rt
