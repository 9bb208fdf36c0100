#include "libcore/formats/etrecord/zip_damage.h"

#include <cstring>

namespace etkit::etrecord {
namespace {

constexpr uint32_t kEndSignature = 0x06054b50;      // PK\5\6
constexpr uint32_t kCentralSignature = 0x02014b50;  // PK\1\2
constexpr uint32_t kLocalSignature = 0x04034b50;    // PK\3\4
constexpr size_t kEndSize = 22;
constexpr size_t kCentralSize = 46;
constexpr size_t kLocalSize = 30;
constexpr size_t kMaxComment = 0xffff;

uint16_t u16(ByteSpan b, uint64_t at) { return uint16_t(b[at] | (b[at + 1] << 8)); }
uint32_t u32(ByteSpan b, uint64_t at) { return load_u32_le(b.data() + at); }

std::string n(uint64_t v) { return std::to_string(v); }

// The last end record in the final 22 + 65535 bytes, as readers search.
std::optional<uint64_t> find_end_record(ByteSpan b) {
  if (b.size() < kEndSize) return std::nullopt;
  const uint64_t lowest = b.size() > kEndSize + kMaxComment ? b.size() - kEndSize - kMaxComment : 0;
  for (uint64_t at = b.size() - kEndSize + 1; at-- > lowest;) {
    if (u32(b, at) == kEndSignature) return at;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> describe_zip_damage(ByteSpan b) {
  const std::string size = " (the file has " + n(b.size()) + " bytes)";
  const auto end = find_end_record(b);
  if (!end) {
    if (b.size() >= 4 && u32(b, 0) == kLocalSignature) {
      return "no end-of-central-directory record (PK\\5\\6) in the last " +
             n(std::min<uint64_t>(b.size(), kEndSize + kMaxComment)) + " bytes: the archive is cut short" + size;
    }
    return std::nullopt;  // not a zip archive at all: libzip says so
  }
  const std::string record = "end-of-central-directory record at offset " + n(*end);
  const uint16_t disk = u16(b, *end + 4), cd_disk = u16(b, *end + 6);
  const uint16_t on_disk = u16(b, *end + 8), total = u16(b, *end + 10);
  const uint32_t cd_size = u32(b, *end + 12), cd_offset = u32(b, *end + 16);
  const uint16_t comment = u16(b, *end + 20);
  if (*end + kEndSize + comment > b.size()) {
    return "bad " + record + ": its comment of " + n(comment) + " bytes runs past the end of the file" + size;
  }
  if (total == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) return std::nullopt;  // ZIP64
  if (disk != 0 || cd_disk != 0) return std::nullopt;  // multi-disk: libzip names it
  if (on_disk != total) {
    return "bad " + record + ": " + n(on_disk) + " entries on this disk but " + n(total) + " in total";
  }
  if (cd_offset > b.size()) return "central directory offset " + n(cd_offset) + " lies beyond the file" + size;
  if (uint64_t(cd_offset) + cd_size > *end) {
    return "central directory [" + n(cd_offset) + ", " + n(uint64_t(cd_offset) + cd_size) + ") runs into the " +
           record;
  }
  const uint64_t cd_end = uint64_t(cd_offset) + cd_size;
  uint64_t at = cd_offset;
  for (uint32_t i = 0; i < total; ++i) {
    const std::string entry = "central directory entry " + n(i) + " at offset " + n(at);
    if (at + kCentralSize > cd_end) {
      return "central directory ends after " + n(i) + " of the " + n(total) + " entries the " + record +
             " announces";
    }
    if (u32(b, at) != kCentralSignature) return entry + ": bad signature (expected PK\\1\\2)";
    const uint32_t compressed = u32(b, at + 20);
    const uint64_t name_length = u16(b, at + 28), extra = u16(b, at + 30), note = u16(b, at + 32);
    const uint32_t local = u32(b, at + 42);
    if (at + kCentralSize + name_length + extra + note > cd_end) {
      return entry + ": its name, extra field and comment run past the central directory's end at " + n(cd_end);
    }
    const std::string name(reinterpret_cast<const char*>(b.data() + at + kCentralSize), name_length);
    const std::string where = "zip entry '" + name + "'";
    at += kCentralSize + name_length + extra + note;
    if (local == 0xffffffff || compressed == 0xffffffff) continue;  // ZIP64 extra field
    if (uint64_t(local) + kLocalSize > b.size()) {
      return where + ": local header offset " + n(local) + " lies beyond the file" + size;
    }
    if (u32(b, local) != kLocalSignature) {
      return where + ": no local header at offset " + n(local) + " (bad signature, expected PK\\3\\4)";
    }
    const uint64_t data = uint64_t(local) + kLocalSize + u16(b, local + 26) + u16(b, local + 28);
    if (data > b.size()) {
      return where + ": truncated local header at offset " + n(local) + ": its name and extra field end at " +
             n(data) + size;
    }
    if (data + compressed > cd_offset) {
      return where + ": its " + n(compressed) + " bytes of data from offset " + n(data) +
             " run into the central directory at " + n(cd_offset);
    }
  }
  if (at != cd_end) {
    return "central directory holds " + n(cd_end - at) + " bytes after the " + n(total) + " entries the " + record +
           " announces";
  }
  return std::nullopt;
}

}  // namespace etkit::etrecord
