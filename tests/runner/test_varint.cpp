// The varints of the event tracer's spill file: LEB128 and zigzag, checked
// against encodings worked out by hand.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "runner/varint.h"

using namespace etkit::rt;

namespace {

std::vector<uint8_t> encode(uint64_t v) {
  uint8_t bytes[kMaxVarintBytes];
  return std::vector<uint8_t>(bytes, put_varint(bytes, v));
}

}  // namespace

TEST_CASE("varint: LEB128 bytes, low 7 bits first", "[runner]") {
  CHECK(encode(0) == std::vector<uint8_t>{0x00});
  CHECK(encode(127) == std::vector<uint8_t>{0x7f});
  CHECK(encode(128) == std::vector<uint8_t>{0x80, 0x01});
  // 300 = 0b10_0101100: 0x2c with the continuation bit, then 2.
  CHECK(encode(300) == std::vector<uint8_t>{0xac, 0x02});
  const std::vector<uint8_t> max = encode(UINT64_MAX);
  REQUIRE(max.size() == 10);
  CHECK(max.back() == 0x01);

  for (uint64_t v : {uint64_t(0), uint64_t(300), uint64_t(1) << 35, UINT64_MAX}) {
    const std::vector<uint8_t> bytes = encode(v);
    uint64_t out = 1;
    CHECK(get_varint(bytes.data(), bytes.data() + bytes.size(), out) == bytes.data() + bytes.size());
    CHECK(out == v);
    // One byte short: the varint runs past the end.
    CHECK(get_varint(bytes.data(), bytes.data() + bytes.size() - 1, out) == nullptr);
  }
  // Eleven continuation bytes are no varint.
  const std::vector<uint8_t> endless(11, 0x80);
  uint64_t out = 0;
  CHECK(get_varint(endless.data(), endless.data() + endless.size(), out) == nullptr);
}

TEST_CASE("varint: zigzag maps small magnitudes to small codes", "[runner]") {
  CHECK(zigzag(0) == 0);
  CHECK(zigzag(-1) == 1);
  CHECK(zigzag(1) == 2);
  CHECK(zigzag(-2) == 3);
  CHECK(zigzag(INT64_MAX) == UINT64_MAX - 1);
  CHECK(zigzag(INT64_MIN) == UINT64_MAX);
  for (int64_t v : {int64_t(0), int64_t(-1), int64_t(123456789), INT64_MIN, INT64_MAX}) CHECK(unzigzag(zigzag(v)) == v);
}
