// Damaged copies of a small ZIP built here: the error names what is damaged
// and where. Offsets come from the archive's own records, read as APPNOTE.TXT
// lays them out (end record = the last 22 bytes when there is no comment;
// central directory offset at +16; local header offset at +42 of a central
// directory entry; name length at +26 of a local header).
#include <string>
#include <vector>

#include "libcore/formats/etrecord/zip_archive.h"
#include "libcore/support/bytes.h"
#include "tests/support/test_support.h"

using namespace etkit;
using etkit::etrecord::ZipReader;

namespace {

std::vector<uint8_t> small_zip() {
  const std::string a = "hello", b = "0123456789";
  auto zip = etrecord::write_zip({{"a.txt", ByteSpan(reinterpret_cast<const uint8_t*>(a.data()), a.size())},
                                  {"b.bin", ByteSpan(reinterpret_cast<const uint8_t*>(b.data()), b.size())}});
  REQUIRE(zip.ok());
  return *zip;
}

// The message of the first failure: opening, or reading any entry.
std::string first_error(const std::vector<uint8_t>& bytes) {
  auto zip = ZipReader::open(ByteSpan(bytes));
  if (!zip) return zip.error().message;
  for (const auto& entry : zip->entries()) {
    auto data = zip->read(entry);
    if (!data) return data.error().message;
  }
  return "";
}

void store_u16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

}  // namespace

TEST_CASE("zip damage: the intact archive reads, and its records are where the format puts them", "[etrecord][zip]") {
  const auto bytes = small_zip();
  CHECK(first_error(bytes).empty());
  const size_t end = bytes.size() - 22;
  CHECK(load_u32_le(bytes.data() + end) == 0x06054b50);
  const uint32_t cd = load_u32_le(bytes.data() + end + 16);
  CHECK(load_u32_le(bytes.data() + cd) == 0x02014b50);
  CHECK(load_u32_le(bytes.data()) == 0x04034b50);
}

TEST_CASE("zip damage: each kind of damage is named with its offsets", "[etrecord][zip][errors]") {
  const auto good = small_zip();
  const uint64_t size = good.size();
  const size_t end = size - 22;
  const uint32_t cd = load_u32_le(good.data() + end + 16);
  // The second central directory entry follows the first: 46 bytes plus its
  // name, extra field and comment.
  const size_t second = cd + 46 + (good[cd + 28] | good[cd + 29] << 8) + (good[cd + 30] | good[cd + 31] << 8) +
                        (good[cd + 32] | good[cd + 33] << 8);
  REQUIRE(load_u32_le(good.data() + second) == 0x02014b50);
  const uint32_t local_b = load_u32_le(good.data() + second + 42);
  const std::string file_size = " (the file has " + std::to_string(size) + " bytes)";
  const std::string record = "end-of-central-directory record at offset " + std::to_string(end);

  SECTION("central directory offset beyond the file") {
    auto bytes = good;
    store_u32_le(bytes.data() + end + 16, uint32_t(size + 100));
    CHECK(first_error(bytes) ==
          "damaged zip archive: central directory offset " + std::to_string(size + 100) + " lies beyond the file" +
              file_size);
  }
  SECTION("end record with a comment longer than the file") {
    auto bytes = good;
    store_u16(bytes.data() + end + 20, 100);
    CHECK(first_error(bytes) ==
          "damaged zip archive: bad " + record + ": its comment of 100 bytes runs past the end of the file" +
              file_size);
  }
  SECTION("end record announcing more entries than the central directory holds") {
    auto bytes = good;
    store_u16(bytes.data() + end + 8, 3);
    store_u16(bytes.data() + end + 10, 3);
    CHECK(first_error(bytes) ==
          "damaged zip archive: central directory ends after 2 of the 3 entries the " + record + " announces");
  }
  SECTION("archive cut short: no end record") {
    std::vector<uint8_t> bytes(good.begin(), good.begin() + std::ptrdiff_t(cd));
    CHECK(first_error(bytes) == "damaged zip archive: no end-of-central-directory record (PK\\5\\6) in the last " +
                                    std::to_string(cd) + " bytes: the archive is cut short (the file has " +
                                    std::to_string(cd) + " bytes)");
  }
  SECTION("local header offset beyond the file") {
    auto bytes = good;
    store_u32_le(bytes.data() + second + 42, uint32_t(size + 10));
    CHECK(first_error(bytes) == "damaged zip archive: zip entry 'b.bin': local header offset " +
                                    std::to_string(size + 10) + " lies beyond the file" + file_size);
  }
  SECTION("truncated local header") {
    auto bytes = good;
    const uint16_t extra = uint16_t(good[local_b + 28] | good[local_b + 29] << 8);
    store_u16(bytes.data() + local_b + 26, 0xffff);  // name length
    CHECK(first_error(bytes) == "damaged zip archive: zip entry 'b.bin': truncated local header at offset " +
                                    std::to_string(local_b) + ": its name and extra field end at " +
                                    std::to_string(local_b + 30 + 0xffff + extra) + file_size);
  }
  SECTION("central directory entry with a bad signature") {
    auto bytes = good;
    bytes[second] = 'X';
    CHECK(first_error(bytes) == "damaged zip archive: central directory entry 1 at offset " + std::to_string(second) +
                                    ": bad signature (expected PK\\1\\2)");
  }
}

TEST_CASE("zip damage: bytes that are no zip at all are still 'not a zip archive'", "[etrecord][zip][errors]") {
  const std::vector<uint8_t> text(64, 'x');
  CHECK(first_error(text).rfind("not a readable zip archive: ", 0) == 0);
}
