// cadence::roi_align_box_processor.out: the 80-byte record per box, checked
// byte by byte where few bits are set, and otherwise by reading the 22
// 29-bit fields back out of the bytes (bit k of the record is bit k % 8 of
// byte k / 8) and comparing them with values worked out by hand from the
// generic kernel's formulas (anchors S(x1 + step / 2), steps S(step), row
// steps S(step * W), increments as listed in the kernel's header comment;
// S(v) = round-half-away(v * 65536)).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

constexpr const char* kOp = "cadence::roi_align_box_processor.out";

// Runs the op on `rois` ([K, 5] row-major) and returns the K records.
std::vector<uint8_t> records(const std::vector<float>& rois, int64_t out_h, int64_t out_w, int64_t sampling, bool aligned) {
  KernelHarness h;
  const int32_t k = int32_t(rois.size() / 5);
  auto r = h.tensor<float>(ScalarType::kFloat, {k, 5}, rois);
  auto out = h.out(ScalarType::kByte, {k, 80});
  auto s = h.call(kOp, {r, h.integer(out_h), h.integer(out_w), h.integer(sampling), h.boolean(aligned), out, out});
  REQUIRE(s.ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{k, 80});
  return h.data<uint8_t>(out);
}

// The 22 signed 29-bit fields of the record at `offset`; the two bits past them must be 0.
std::vector<int64_t> fields(const std::vector<uint8_t>& bytes, size_t offset) {
  const auto bit = [&](size_t k) { return (bytes[offset + k / 8] >> (k % 8)) & 1; };
  std::vector<int64_t> v;
  for (size_t f = 0; f < 22; ++f) {
    int64_t x = 0;
    for (size_t b = 0; b < 29; ++b) x |= int64_t(bit(f * 29 + b)) << b;
    if (x >= (int64_t(1) << 28)) x -= int64_t(1) << 29;
    v.push_back(x);
  }
  CHECK(bit(638) == 0);
  CHECK(bit(639) == 0);
  return v;
}

std::vector<uint8_t> zeros_except(std::vector<std::pair<size_t, uint8_t>> set) {
  std::vector<uint8_t> r(80, 0);
  for (auto [i, b] : set) r[i] = b;
  return r;
}

}  // namespace

TEST_CASE("cadence::roi_align_box_processor: a point box sets the anchors only", "[cadence]") {
  // (x1, y1) = (x2, y2) = (3, 5): every step 0, anchors S(3) = 3 * 2^16 (bits 16, 17:
  // byte 2 = 0x03) and S(5) = 5 * 2^16 at bit 29 (bits 45, 47: byte 5 = 0xA0).
  CHECK(records({0, 3, 5, 3, 5}, 2, 2, 1, false) == zeros_except({{2, 0x03}, {5, 0xA0}}));
  // aligned: S(2.5) = 0x28000 (bits 15, 17: byte 1 = 0x80, byte 2 = 0x02) and
  // S(4.5) = 0x48000 at bit 29 (bits 44, 47: byte 5 = 0x90).
  CHECK(records({0, 3, 5, 3, 5}, 2, 2, 1, true) == zeros_except({{1, 0x80}, {2, 0x02}, {5, 0x90}}));
  // Round half away from zero: x = -2^-17 is -0.5 in 16.16, S = -1 (29 one bits: bytes 0-2
  // 0xFF, byte 3 0x1F); x = +2^-17 gives S = 1. (Ties to even would give 0 both times.)
  const float half_lsb = std::ldexp(1.0f, -17);
  CHECK(records({0, -half_lsb, 0, -half_lsb, 0}, 1, 1, 1, false) ==
        zeros_except({{0, 0xFF}, {1, 0xFF}, {2, 0xFF}, {3, 0x1F}}));
  CHECK(records({0, half_lsb, 0, half_lsb, 0}, 1, 1, 1, false) == zeros_except({{0, 0x01}}));
}

TEST_CASE("cadence::roi_align_box_processor: steps and address increments, two boxes", "[cadence]") {
  // Box 1: (1, 2) - (5, 10) on a 2 x 2 grid: step_x = 4 / 2 = 2, step_y = 8 / 2 = 4.
  // a = S(2) = 2^17, b = S(2 * 2) = 2^18, c = S(4) = 2^18, d = S(4 * 2) = 2^19;
  // anchors S(1 + 1) = 2^17 and S(2 + 2) = 2^18.
  // x walk: a, a(1 - W) = -2^17, b + a(1 - W) = 2^17, then -2^17 (three times and four more);
  // y walk: 0, c, c(1 - H) = -2^18, d + c(1 - H) = 2^18, then -2^18 (twice and four more).
  // Box 0 is the point box of the test above (first record, same bytes).
  const auto bytes = records({0, 3, 5, 3, 5, 0, 1, 2, 5, 10}, 2, 2, 1, false);
  REQUIRE(bytes.size() == 160);
  CHECK(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 80) == zeros_except({{2, 0x03}, {5, 0xA0}}));
  const int64_t p17 = int64_t(1) << 17, p18 = int64_t(1) << 18;
  CHECK(fields(bytes, 80) == std::vector<int64_t>{p17,  p18,  p17,  -p17, p17,  -p17, -p17, -p17, -p17, -p17, -p17,
                                                  -p17, 0,    p18,  -p18, p18,  -p18, -p18, -p18, -p18, -p18, -p18});
  // sampling_ratio 3, output 1 x 1, aligned: W = H = 3; (0, 0) - (6, 6): steps 2 (a = c = 2^17),
  // row steps S(6) = 6 * 2^16 (b = d); anchors S(-0.5 + 1) = 2^15; a(1 - W) = -2^18,
  // b + a(1 - W) = 2^17.
  const auto third = records({0, 0, 0, 6, 6}, 1, 1, 3, true);
  const int64_t p15 = int64_t(1) << 15;
  CHECK(fields(third, 0) == std::vector<int64_t>{p15,  p15,  p17,  -p18, p17,  -p18, -p18, -p18, -p18, -p18, -p18,
                                                 -p18, 0,    p17,  -p18, p17,  -p18, -p18, -p18, -p18, -p18, -p18});
}

TEST_CASE("cadence::roi_align_box_processor: bad arguments are named", "[cadence]") {
  KernelHarness h;
  auto rois = h.tensor<float>(ScalarType::kFloat, {2, 5}, {0, 0, 0, 1, 1, 1, 0, 0, 1, 1});
  auto out = h.out(ScalarType::kByte, {2, 80});
  const auto failure = [&](size_t r, int64_t oh, int64_t ow, int64_t sampling, size_t o) {
    return etkit::test::error_message(
        h.call(kOp, {r, h.integer(oh), h.integer(ow), h.integer(sampling), h.boolean(false), o, o}));
  };
  const std::string op = std::string(kOp) + ": ";
  CHECK(failure(rois, 2, 2, 1, out) == op + "rois[1]: batch index 1.000000 must be 0 (one image)");
  CHECK(failure(rois, 2, 2, 0, out) == op + "sampling_ratio must be positive, got 0");
  CHECK(failure(rois, 2, 0, 1, out) == op + "output_size_w must be positive, got 0");
  CHECK(failure(rois, 1 << 16, 2, 1 << 16, out) ==
        op + "output_size_h * sampling_ratio (65536 * 65536) does not fit in int32");
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {1, 5}, {0, 0, 0, 1, 1});
  CHECK(failure(ints, 2, 2, 1, out) == op + "rois must be FLOAT, not INT");
  auto four = h.tensor<float>(ScalarType::kFloat, {2, 4}, {0, 0, 1, 1, 0, 0, 1, 1});
  CHECK(failure(four, 2, 2, 1, out) == op + "rois must be [K, 5] (batch index, x1, y1, x2, y2), got [2, 4]");
  auto chars = h.out(ScalarType::kChar, {2, 80});
  CHECK(failure(rois, 2, 2, 1, chars) == op + "out must be BYTE, not CHAR");
  // A step of 5000 is 5000 * 2^16 > 2^28 in 16.16: the first x increment does not fit its field.
  auto wide = h.tensor<float>(ScalarType::kFloat, {1, 5}, {0, 0, 0, 10000, 1});
  auto out1 = h.out(ScalarType::kByte, {1, 80});
  CHECK(failure(wide, 2, 2, 1, out1) == op + "rois[0]: x increment 0 327680000 does not fit in 29 signed bits");
  auto nan = h.tensor<float>(ScalarType::kFloat, {1, 5}, {0, NAN, 0, 1, 1});
  CHECK(failure(nan, 2, 2, 1, out1) == op + "rois[0]: x anchor nan is out of int range in 16.16 fixed point");
}
