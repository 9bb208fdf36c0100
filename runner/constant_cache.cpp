#include "runner/constant_cache.h"

namespace etkit::rt {

ConstantCache::Entry ConstantCache::floats(const void* constant, uint32_t layout, std::span<const int64_t> params,
                                           size_t floats) {
  Key key{constant, layout, std::vector<int64_t>(params.begin(), params.end())};
  if (auto it = entries_.find(key); it != entries_.end()) {
    // A different size under the same key would be a kernel's bug; serve
    // nothing rather than a buffer of the wrong length.
    if (it->second.size() != floats) return {};
    return {it->second.data(), false};
  }
  const uint64_t bytes = uint64_t(floats) * sizeof(float);
  if (bytes > kMaxBytes - bytes_) return {};
  auto& v = entries_[std::move(key)];
  v.resize(floats);
  bytes_ += bytes;
  return {v.data(), true};
}

}  // namespace etkit::rt
