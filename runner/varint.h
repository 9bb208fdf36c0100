// LEB128 varints (7 bits a byte, low bits first) and zigzag for signed
// values: how the event tracer packs its spilled records, where most fields
// are small (name indices, instruction ids, tick deltas).
#pragma once

#include <cstdint>

namespace etkit::rt {

// At most 10 bytes for a 64-bit value.
inline constexpr int kMaxVarintBytes = 10;

inline uint8_t* put_varint(uint8_t* out, uint64_t v) {
  while (v >= 0x80) {
    *out++ = uint8_t(v) | 0x80;
    v >>= 7;
  }
  *out++ = uint8_t(v);
  return out;
}

inline uint64_t zigzag(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return int64_t(v >> 1) ^ -int64_t(v & 1); }

// Null when the varint runs past `end` or over 10 bytes.
inline const uint8_t* get_varint(const uint8_t* in, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 7 * kMaxVarintBytes && in < end; shift += 7) {
    const uint8_t b = *in++;
    v |= uint64_t(b & 0x7f) << shift;
    if (b < 0x80) return in;
  }
  return nullptr;
}

}  // namespace etkit::rt
