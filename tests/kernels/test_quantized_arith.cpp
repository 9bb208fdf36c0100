// quantized_decomposed::add, mixed_mm and mixed_linear. Expected values
// are worked by hand from ExecuTorch's definitions (dequantize, add in
// float, quantize with ties to even; matmuls summed in the dtype ExecuTorch
// holds the sum in).
#include <cstdint>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

const std::string Q = "quantized_decomposed::";

struct QParams {
  double scale;
  int64_t zero_point, qmin, qmax;
};

etkit::Status add(KernelHarness& h, size_t a, QParams qa, size_t b, QParams qb, QParams qo, size_t out) {
  return h.call(Q + "add.out", {a, h.real(qa.scale), h.integer(qa.zero_point), h.integer(qa.qmin), h.integer(qa.qmax),
                                b, h.real(qb.scale), h.integer(qb.zero_point), h.integer(qb.qmin), h.integer(qb.qmax),
                                h.real(qo.scale), h.integer(qo.zero_point), h.integer(qo.qmin), h.integer(qo.qmax),
                                out, out});
}

constexpr uint16_t kHalf1 = 0x3c00, kHalf2048 = 0x6800;  // 1.0 and 2048 in binary16

}  // namespace

TEST_CASE("quantized_decomposed::add.out: dequantize, add in float, quantize with ties to even", "[quantized]") {
  KernelHarness h;
  // a: scale 0.5, zp 10; b: scale 0.25, zp 20; out: scale 1, zp 5, range [0, 100].
  // (11 - 10) * 0.5 + 0 = 0.5 -> 0 -> 5; 0 + (26 - 20) * 0.25 = 1.5 -> 2 -> 7;
  // (15 - 10) * 0.5 = 2.5 -> 2 -> 7; 122.5 + 58.75 = 181.25 -> 186 -> 100; -5 - 5 = -10 -> -5 -> 0.
  const size_t a = h.tensor<uint8_t>(ScalarType::kByte, {5}, {11, 10, 15, 255, 0});
  const size_t b = h.tensor<uint8_t>(ScalarType::kByte, {5}, {20, 26, 20, 255, 0});
  const size_t out = h.out(ScalarType::kByte, {5});
  REQUIRE(add(h, a, {0.5, 10, 0, 255}, b, {0.25, 20, 0, 255}, {1.0, 5, 0, 100}, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{5, 7, 7, 100, 0});

  // SHORT values beyond 255 still clamp to out's range: 300 + 200 = 500 -> 255; -1 + 0 -> 0.
  const size_t sa = h.tensor<int16_t>(ScalarType::kShort, {2}, {300, -1});
  const size_t sb = h.tensor<int16_t>(ScalarType::kShort, {2}, {200, 0});
  const size_t sout = h.out(ScalarType::kShort, {2});
  REQUIRE(add(h, sa, {1.0, 0, 0, 255}, sb, {1.0, 0, 0, 255}, {1.0, 0, 0, 255}, sout));
  CHECK(h.data<int16_t>(sout) == std::vector<int16_t>{255, 0});

  // ExecuTorch's precondition: every range within [0, 255], whatever the dtype.
  const size_t ca = h.tensor<int8_t>(ScalarType::kChar, {1}, {1});
  const size_t cout = h.out(ScalarType::kChar, {1});
  CHECK_THAT(etkit::test::error_message(add(h, ca, {1.0, 0, -128, 127}, ca, {1.0, 0, 0, 255}, {1.0, 0, 0, 255}, cout)),
             Catch::Contains("a_quant_min -128 and a_quant_max 127 must be ordered and lie in [0, 255]"));
  CHECK_THAT(etkit::test::error_message(add(h, a, {1.0, 0, 0, 255}, sa, {1.0, 0, 0, 255}, {1.0, 0, 0, 255}, out)),
             Catch::Contains("must have one dtype"));
  const size_t a2 = h.tensor<uint8_t>(ScalarType::kByte, {2}, {1, 2});
  CHECK_THAT(etkit::test::error_message(add(h, a, {1.0, 0, 0, 255}, a2, {1.0, 0, 0, 255}, {1.0, 0, 0, 255}, out)),
             Catch::Contains("must have the same shape"));
  CHECK_THAT(etkit::test::error_message(add(h, a, {1.0, 0, 0, 255}, b, {1.0, 0, 0, 255}, {0.0, 0, 0, 255}, out)),
             Catch::Contains("out_scale"));
}

TEST_CASE("quantized_decomposed::mixed_mm.out: per-row weight scales, FLOAT and HALF", "[quantized]") {
  KernelHarness h;
  // x [[1, 2, 3], [4, 5, 6]], w [[1, -1], [2, 0], [-3, 4]], s [0.5, 1, 2]:
  // out[0][0] = 0.5 + 4 - 18 = -13.5, out[0][1] = -0.5 + 24 = 23.5,
  // out[1][0] = 2 + 10 - 36 = -24,    out[1][1] = -2 + 48 = 46.
  const size_t x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {3, 2}, {1, -1, 2, 0, -3, 4});
  const size_t s = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, 1, 2});
  const size_t out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call(Q + "mixed_mm.out", {x, w, s, h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{-13.5f, 23.5f, -24, 46});

  // HALF sums round after every step: 2048 + 1 = 2049 is a tie between 2048 and 2050 and
  // goes to even (2048), twice; a float sum would give 2050.
  const size_t hx = h.tensor<uint16_t>(ScalarType::kHalf, {1, 3}, {kHalf2048, kHalf1, kHalf1});
  const size_t hw = h.tensor<int8_t>(ScalarType::kChar, {3, 1}, {1, 1, 1});
  const size_t hs = h.tensor<uint16_t>(ScalarType::kHalf, {3}, {kHalf1, kHalf1, kHalf1});
  const size_t hout = h.out(ScalarType::kHalf, {1, 1});
  REQUIRE(h.call(Q + "mixed_mm.out", {hx, hw, hs, h.none(), hout, hout}));
  CHECK(h.data<uint16_t>(hout) == std::vector<uint16_t>{kHalf2048});

  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_mm.out", {x, w, s, s, out, out})), Catch::Contains("weight_zero_points"));
  const size_t s2 = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_mm.out", {x, w, s2, h.none(), out, out})),
             Catch::Contains("weight_scales must be [3]"));
  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_mm.out", {x, w, hs, h.none(), out, out})),
             Catch::Contains("weight_scales must have input's dtype"));
}

TEST_CASE("quantized_decomposed::mixed_linear.out: groups, out dtype, ExecuTorch's uneven grouping", "[quantized]") {
  KernelHarness h;
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 4}, {1, 2, 3, 4});
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {2, 4}, {1, 1, 1, 1, 1, -1, 2, -2});
  const size_t out = h.out(ScalarType::kFloat, {1, 2});
  // Per-row scales [2, 3]: row 0: 10 * 2 = 20; row 1: 1 - 2 + 6 - 8 = -3, * 3 = -9.
  const size_t s1 = h.tensor<float>(ScalarType::kFloat, {2}, {2, 3});
  REQUIRE(h.call(Q + "mixed_linear.out", {x, w, s1, h.none(), h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{20, -9});
  // Two groups of two columns, scales [[1, 0.5], [2, 0.25]]:
  // row 0: (1 + 2) * 1 + (3 + 4) * 0.5 = 6.5; row 1: (1 - 2) * 2 + (6 - 8) * 0.25 = -2.5.
  const size_t s2 = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 0.5f, 2, 0.25f});
  REQUIRE(h.call(Q + "mixed_linear.out", {x, w, s2, h.none(), h.integer(int64_t(ScalarType::kFloat)), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{6.5f, -2.5f});

  // n = 5 with 4 scale columns: ExecuTorch groups g = ceil(5 / 4) = 2 columns, 3 groups per row,
  // and reads the scales as a flat array with 3 per row: row 0 uses flat 0, 1, 2 = 1, 10, 100
  // -> 2 * 1 + 2 * 10 + 1 * 100 = 122; row 1 uses flat 3, 4, 5 = 1000, 10000, 2 -> 2000 + 20000 + 2.
  const size_t x5 = h.tensor<float>(ScalarType::kFloat, {1, 5}, {1, 1, 1, 1, 1});
  const size_t w5 = h.tensor<int8_t>(ScalarType::kChar, {2, 5}, std::vector<int8_t>(10, 1));
  const size_t s5 = h.tensor<float>(ScalarType::kFloat, {2, 4}, {1, 10, 100, 1000, 10000, 2, 3, 4});
  REQUIRE(h.call(Q + "mixed_linear.out", {x5, w5, s5, h.none(), h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{122, 22002});

  // FLOAT input, HALF out: the partial sums are held in half (2048 + 1 + 1 stays 2048);
  // with a FLOAT out the same sum is 2050.
  const size_t xh = h.tensor<float>(ScalarType::kFloat, {1, 3}, {2048, 1, 1});
  const size_t wh = h.tensor<int8_t>(ScalarType::kChar, {1, 3}, {1, 1, 1});
  const size_t sh = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  const size_t hout = h.out(ScalarType::kHalf, {1, 1});
  REQUIRE(h.call(Q + "mixed_linear.out", {xh, wh, sh, h.none(), h.integer(int64_t(ScalarType::kHalf)), hout, hout}));
  CHECK(h.data<uint16_t>(hout) == std::vector<uint16_t>{kHalf2048});
  const size_t fout = h.out(ScalarType::kFloat, {1, 1});
  REQUIRE(h.call(Q + "mixed_linear.out", {xh, wh, sh, h.none(), h.none(), fout, fout}));
  CHECK(h.data<float>(fout) == std::vector<float>{2050});
  // HALF input and out: product, partial sum and scaling all in half; 2048 + 1 -> 2048 again,
  // and with scale 1 the result is 2048 (float would give 2050).
  const size_t xhh = h.tensor<uint16_t>(ScalarType::kHalf, {1, 3}, {kHalf2048, kHalf1, kHalf1});
  const size_t shh = h.tensor<uint16_t>(ScalarType::kHalf, {1}, {kHalf1});
  REQUIRE(h.call(Q + "mixed_linear.out", {xhh, wh, shh, h.none(), h.none(), hout, hout}));
  CHECK(h.data<uint16_t>(hout) == std::vector<uint16_t>{kHalf2048});

  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_linear.out", {x, w, s1, h.none(), h.integer(int64_t(ScalarType::kHalf)), out, out})),
             Catch::Contains("does not match out dtype"));
  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_linear.out", {x, w, s1, s1, h.none(), out, out})),
             Catch::Contains("weight_zero_points"));
  const size_t w3 = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 1, 1, 1, 1, 1});
  CHECK_THAT(etkit::test::error_message(h.call(Q + "mixed_linear.out", {x, w3, s1, h.none(), h.none(), out, out})),
             Catch::Contains("must have 4 columns"));
}
