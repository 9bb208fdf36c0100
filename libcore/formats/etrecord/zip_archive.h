// ZIP archives in memory, through libzip: the ETRecord container and the
// torch.save archives stored inside it (etrecord_spec.md §1, §6). Reading
// checks every entry's declared size before anything is allocated; damage
// libzip refuses is named by zip_damage.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

struct zip_error;

namespace etkit::etrecord {

struct ZipEntry {
  std::string name;
  uint64_t index = 0;  // in the central directory
  uint64_t size = 0;   // uncompressed
  uint64_t compressed_size = 0;
  uint16_t method = 0;  // 0 stored, 8 deflated
};

struct ZipLimits {
  uint64_t max_entries = 1'000'000;
  uint64_t max_entry_bytes = uint64_t{8} << 30;
};

class ZipReader {
 public:
  // `bytes` must outlive the reader.
  static Result<ZipReader> open(ByteSpan bytes, const ZipLimits& limits = {});

  ZipReader(ZipReader&&) noexcept;
  ZipReader& operator=(ZipReader&&) noexcept;
  ~ZipReader();

  // In central-directory order.
  const std::vector<ZipEntry>& entries() const { return entries_; }
  // The last entry of that name (Python's zipfile returns the last duplicate).
  const ZipEntry* find(std::string_view name) const;
  // The entry's bytes, CRC checked.
  Result<std::vector<uint8_t>> read(const ZipEntry& entry) const;

 private:
  struct Handle;
  explicit ZipReader(std::unique_ptr<Handle> handle);
  Error entry_error(const ZipEntry& entry, struct zip_error* error) const;
  std::unique_ptr<Handle> handle_;
  ByteSpan bytes_;
  std::vector<ZipEntry> entries_;
};

// A ZIP of STORED entries in the given order, dated 1980-01-01 00:00 so the
// bytes depend on the content only.
Result<std::vector<uint8_t>> write_zip(const std::vector<std::pair<std::string, ByteSpan>>& entries);

}  // namespace etkit::etrecord
