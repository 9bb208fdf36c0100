// Byte spans and overflow-safe bounds arithmetic for untrusted input.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace etkit {

using ByteSpan = std::span<const uint8_t>;

// [offset, offset + size) lies in [0, limit); cannot overflow.
constexpr bool in_bounds(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Little-endian loads; the caller has checked the bounds.
inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t load_u64_le(const uint8_t* p) {
  return uint64_t(load_u32_le(p)) | uint64_t(load_u32_le(p + 4)) << 32;
}
inline void store_u32_le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void store_u64_le(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

// The 4-byte FlatBuffers file identifier at `offset`, printable for messages.
inline std::string identifier_at(ByteSpan bytes, size_t offset) {
  if (!in_bounds(offset, 4, bytes.size())) return {};
  std::string id(reinterpret_cast<const char*>(bytes.data() + offset), 4);
  for (char& c : id) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  return id;
}

// Text from a file, safe inside a one-line message: bytes outside printable
// ASCII as \xNN, cut after `max` characters with "...".
inline std::string printable(std::string_view text, size_t max = 64) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace etkit
