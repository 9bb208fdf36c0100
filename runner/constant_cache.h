// Floats a kernel derives from a constant of the program (a filter repacked
// for the direct convolution), kept for the loaded method's life so that
// they are derived once rather than on every execution.
//
// Only read-only tensors (Tensor::read_only: constant segment data or
// external data, mapped from the file) may be keyed here: the method never
// writes them (the loader and the executor refuse constants as outputs and
// inputs), so their bytes cannot change while it lives. Planned tensors,
// mutable buffers and inputs change between executions and must never be
// cached. The key is the constant's address, a layout tag the kernel picks
// and the parameters (sizes, strides, ...) its derivation depends on, so
// two views of the same bytes get their own entries.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

namespace etkit::rt {

class ConstantCache {
 public:
  // Derived data above this total is not kept (derive it per call instead):
  // bounds what a program full of constants can make the method allocate.
  static constexpr uint64_t kMaxBytes = uint64_t(256) << 20;

  struct Entry {
    float* data = nullptr;  // null: over kMaxBytes, not cached
    bool fresh = false;     // the caller must fill `data` now
  };
  // The entry for (constant, layout, params) of `floats` floats; a fresh
  // one the caller fills before anything else reads it.
  Entry floats(const void* constant, uint32_t layout, std::span<const int64_t> params, size_t floats);

  uint64_t bytes() const { return bytes_; }
  size_t size() const { return entries_.size(); }

 private:
  using Key = std::tuple<const void*, uint32_t, std::vector<int64_t>>;
  std::map<Key, std::vector<float>> entries_;
  uint64_t bytes_ = 0;
};

}  // namespace etkit::rt
