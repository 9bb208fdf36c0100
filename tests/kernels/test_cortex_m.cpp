// cortex_m:: kernels (CMSIS-NN integer semantics). Every expectation is
// worked out by hand in the comment next to it; ties, saturation and zero
// points at the ends of the int8 range are covered on purpose.
#include "runner/kernels/cortex_m/cmsis_math.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
namespace cm = etkit::rt::kernels::cortex_m;

namespace {

constexpr int64_t kHalf = int64_t(1) << 30;  // Q31 multiplier 0.5

}  // namespace

TEST_CASE("cortex_m fixed point: doubling high multiply, rounding divide, requantize", "[cortex_m]") {
  // 2^30 * 2^30 * 2 / 2^32 = 2^29 exactly.
  CHECK(cm::doubling_high_mult(1 << 30, 1 << 30) == (1 << 29));
  // 3 * 2^30 / 2^31 = 1.5: nudge 2^30 -> 2^32 / 2^31 = 2.
  CHECK(cm::doubling_high_mult(3, 1 << 30) == 2);
  // -1.5: nudge 1 - 2^30 -> (-4294967295) / 2^31 = -1.99.. truncates to -1.
  CHECK(cm::doubling_high_mult(-3, 1 << 30) == -1);
  // The one overflowing product saturates.
  CHECK(cm::doubling_high_mult(cm::kQ31Min, cm::kQ31Min) == cm::kQ31Max);
  // The requantization variant floors (x + 2^30) >> 31: -4.5 -> -4, 4.5 -> 5.
  CHECK(cm::doubling_high_mult_no_sat(-9, 1 << 30) == -4);
  CHECK(cm::doubling_high_mult_no_sat(9, 1 << 30) == 5);
  // ... and wraps on MIN * MIN: (2^62 + 2^30) >> 31 = 2^31 -> INT32_MIN.
  CHECK(cm::doubling_high_mult_no_sat(cm::kQ31Min, cm::kQ31Min) == cm::kQ31Min);

  // Ties round away from zero: 2.5 -> 3, -2.5 -> -3, 1.5 -> 2, -1.5 -> -2.
  CHECK(cm::divide_by_power_of_two(5, 1) == 3);
  CHECK(cm::divide_by_power_of_two(-5, 1) == -3);
  CHECK(cm::divide_by_power_of_two(6, 2) == 2);
  CHECK(cm::divide_by_power_of_two(-6, 2) == -2);
  CHECK(cm::divide_by_power_of_two(-5, 2) == -1);  // -1.25
  CHECK(cm::divide_by_power_of_two(7, 0) == 7);
  CHECK(cm::divide_by_power_of_two(cm::kQ31Min, 31) == -1);  // exactly -1

  // 1234 * 0.5 / 2^3: high mult floor(617 + 0.5) = 617, 617 / 8 = 77.125 -> 77.
  CHECK(cm::requantize(1234, kHalf, -3) == 77);
  // 8 * 0.5 / 8 = 0.5 -> 1; -8: floor(-4 + 0.5) = -4, -4 / 8 = -0.5 -> -1.
  CHECK(cm::requantize(8, kHalf, -3) == 1);
  CHECK(cm::requantize(-8, kHalf, -3) == -1);
  // Left shift first: 3 << 2 = 12, 12 * 0.5 = 6.
  CHECK(cm::requantize(3, kHalf, 2) == 6);
  // A left shift that overflows wraps as on the target: (2^30 << 1) = INT32_MIN, * 0.5 = -2^30.
  CHECK(cm::requantize(1 << 30, kHalf, 1) == -(1 << 30));
}

TEST_CASE("cortex_m::quantize_per_tensor / dequantize_per_tensor", "[cortex_m]") {
  KernelHarness h;
  // scale 0.5 (x * 2), zero point 0, ties to even: 0.5 -> 0, 1.5 -> 2, -0.5 -> 0,
  // -1.5 -> -2, 2.5 -> 2; 2000 and -2000 clamp.
  const size_t x = h.tensor<float>(ScalarType::kFloat, {7}, {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, 1000.f, -1000.f});
  const size_t q = h.out(ScalarType::kChar, {7});
  REQUIRE(h.call("cortex_m::quantize_per_tensor.out",
                 {x, h.real(0.5), h.integer(0), h.integer(-128), h.integer(127), h.integer(1), q, q}));
  CHECK(h.data<int8_t>(q) == std::vector<int8_t>{0, 2, 0, -2, 2, 127, -128});

  // Zero point at the top of the range: 0.5 * 2 = 1, 1 + 127 = 128 -> 127; -1 + 127 = 126.
  const size_t x2 = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, -0.5f});
  const size_t q2 = h.out(ScalarType::kChar, {2});
  REQUIRE(h.call("cortex_m::quantize_per_tensor.out",
                 {x2, h.real(0.5), h.integer(127), h.integer(-128), h.integer(127), h.integer(1), q2, q2}));
  CHECK(h.data<int8_t>(q2) == std::vector<int8_t>{127, 126});

  // (q - zp) * scale with zp at the bottom: (-128 + 128) * 0.5 = 0, (127 + 128) * 0.5 = 127.5.
  const size_t d_in = h.tensor<int8_t>(ScalarType::kChar, {2}, {-128, 127});
  const size_t d = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("cortex_m::dequantize_per_tensor.out",
                 {d_in, h.real(0.5), h.integer(-128), h.integer(-128), h.integer(127), h.integer(1), d, d}));
  CHECK(h.data<float>(d) == std::vector<float>{0.0f, 127.5f});

  // int16: 3.0 / 0.25 = 12, + zp 1000 = 1012.
  const size_t x3 = h.tensor<float>(ScalarType::kFloat, {1}, {3.0f});
  const size_t q3 = h.out(ScalarType::kShort, {1});
  REQUIRE(h.call("cortex_m::quantize_per_tensor.out",
                 {x3, h.real(0.25), h.integer(1000), h.integer(-32768), h.integer(32767), h.integer(2), q3, q3}));
  CHECK(h.data<int16_t>(q3) == std::vector<int16_t>{1012});

  // Errors: dtype code, out dtype, quant range.
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantize_per_tensor.out",
                             {x, h.real(0.5), h.integer(0), h.integer(-128), h.integer(127), h.integer(6), q, q})),
             Catch::Contains("dtype must be CHAR"));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantize_per_tensor.out",
                             {x3, h.real(0.25), h.integer(0), h.integer(-128), h.integer(127), h.integer(1), q3, q3})),
             Catch::Contains("out must be CHAR"));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::dequantize_per_tensor.out",
                             {d_in, h.real(0.5), h.integer(0), h.integer(-129), h.integer(127), h.integer(1), d, d})),
             Catch::Contains("quant_min -129 out of range"));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantize_per_tensor.out",
                             {x, h.real(0.0), h.integer(0), h.integer(-128), h.integer(127), h.integer(1), q, q})),
             Catch::Contains("scale must be positive"));
}

namespace {

// quantized_add.out with (zero point, multiplier, shift) per operand.
etkit::Status quantized_add(KernelHarness& h, size_t a, std::array<int64_t, 3> qa, size_t b,
                            std::array<int64_t, 3> qb, std::array<int64_t, 3> qo, int64_t act_min, int64_t act_max,
                            size_t out) {
  return h.call("cortex_m::quantized_add.out",
                {a, h.integer(qa[0]), h.integer(qa[1]), h.integer(qa[2]), b, h.integer(qb[0]), h.integer(qb[1]),
                 h.integer(qb[2]), h.integer(qo[0]), h.integer(qo[1]), h.integer(qo[2]), h.integer(act_min),
                 h.integer(act_max), out, out});
}

}  // namespace

TEST_CASE("cortex_m::quantized_add.out", "[cortex_m]") {
  KernelHarness h;
  SECTION("the fixture's parameters") {
    // a = 10 (zp 0, 0.5, shift 0): (10 << 20) * 0.5 = 5242880.
    // b = 20 (zp 0, 0.5, shift -1): (20 << 20) * 0.5 = 10485760, / 2 = 5242880.
    // sum 10485760 * 1431655652 / 2^31 = 6990506.11 -> 6990506; / 2^19 = 13.33 -> 13.
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {1}, {10});
    const size_t b = h.tensor<int8_t>(ScalarType::kChar, {1}, {20});
    const size_t out = h.out(ScalarType::kChar, {1});
    REQUIRE(quantized_add(h, a, {0, kHalf, 0}, b, {0, kHalf, -1}, {0, 1431655652, -19}, -128, 127, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{13});
  }
  SECTION("ties round away from zero; activation bounds clamp") {
    // other == its zero point adds nothing. (a << 20) * 0.5 * 0.5 / 2^20 = a / 4:
    // 2 -> 0.5 -> 1, -2 -> -0.5 -> -1, 6 -> 1.5 -> 2, -6 -> -1.5 -> -2.
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {4}, {2, -2, 6, -6});
    const size_t b = h.tensor<int8_t>(ScalarType::kChar, {4}, {5, 5, 5, 5});
    const size_t out = h.out(ScalarType::kChar, {4});
    REQUIRE(quantized_add(h, a, {0, kHalf, 0}, b, {5, kHalf, 0}, {0, kHalf, -20}, -128, 127, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, -1, 2, -2});
    REQUIRE(quantized_add(h, a, {0, kHalf, 0}, b, {5, kHalf, 0}, {0, kHalf, -20}, -1, 1, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, -1, 1, -1});
  }
  SECTION("zero points at the ends of the range") {
    // self zp 127: -128 - 127 = -255 -> -255 / 4 = -63.75 -> -64, + out zp 127 = 63;
    // 127 - 127 = 0 -> 127. other zp -128 with value -128 adds nothing.
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {2}, {-128, 127});
    const size_t b = h.tensor<int8_t>(ScalarType::kChar, {2}, {-128, -128});
    const size_t out = h.out(ScalarType::kChar, {2});
    REQUIRE(quantized_add(h, a, {127, kHalf, 0}, b, {-128, kHalf, 0}, {127, kHalf, -20}, -128, 127, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{63, 127});
  }
  SECTION("saturation at both ends") {
    // 127: (127 << 20) * 0.5 = 66584576 and / 2 = 33292288; sum 99876864 * 0.5 / 2^17 = 381 -> 127.
    // -128: -67108864 + -33554432 = -100663296 * 0.5 / 2^17 = -384 -> -128.
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {2}, {127, -128});
    const size_t out = h.out(ScalarType::kChar, {2});
    REQUIRE(quantized_add(h, a, {0, kHalf, 0}, a, {0, kHalf, -1}, {0, kHalf, -17}, -128, 127, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{127, -128});
  }
  SECTION("per-channel broadcast over channels-last") {
    // [1, 2, 1, 2] NHWC + [1, 2, 1, 1]: each (a + b) / 4 with the tie rule:
    // channel 0: (4 + 2) / 4 = 1.5 -> 2, (8 + 2) / 4 = 2.5 -> 3; channel 1: (-4 - 6) / 4 = -2.5 -> -3, (0 - 6) / 4 -> -2.
    // NHWC storage of logical [[4, 8], [-4, 0]] is 4, -4, 8, 0.
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 1, 2}, {4, -4, 8, 0}, {0, 2, 3, 1});
    const size_t b = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 1, 1}, {2, -6});
    const size_t out = h.out(ScalarType::kChar, {1, 2, 1, 2}, false, {0, 2, 3, 1});
    REQUIRE(quantized_add(h, a, {0, kHalf, 0}, b, {0, kHalf, 0}, {0, kHalf, -20}, -128, 127, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{2, -3, 3, -2});
  }
  SECTION("bad arguments name the argument") {
    const size_t a = h.tensor<int8_t>(ScalarType::kChar, {2}, {1, 2});
    const size_t b3 = h.tensor<int8_t>(ScalarType::kChar, {3}, {1, 2, 3});
    const size_t f = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
    const size_t out = h.out(ScalarType::kChar, {2});
    CHECK_THAT(etkit::test::error_message(quantized_add(h, f, {0, kHalf, 0}, a, {0, kHalf, 0}, {0, kHalf, 0}, -128, 127, out)),
               Catch::Contains("self must be CHAR"));
    CHECK(!quantized_add(h, a, {0, kHalf, 0}, b3, {0, kHalf, 0}, {0, kHalf, 0}, -128, 127, out).ok());
    CHECK_THAT(etkit::test::error_message(quantized_add(h, a, {0, kHalf, 32}, a, {0, kHalf, 0}, {0, kHalf, 0}, -128, 127, out)),
               Catch::Contains("self_shift 32 out of range"));
    CHECK_THAT(etkit::test::error_message(quantized_add(h, a, {0, kHalf, 0}, a, {128, kHalf, 0}, {0, kHalf, 0}, -128, 127, out)),
               Catch::Contains("other_zero_point 128 out of range"));
    CHECK_THAT(etkit::test::error_message(quantized_add(h, a, {0, kHalf, 0}, a, {0, kHalf, 0}, {0, int64_t(1) << 31, 0}, -128, 127, out)),
               Catch::Contains("output_multiplier"));
    CHECK_THAT(etkit::test::error_message(quantized_add(h, a, {0, kHalf, 0}, a, {0, kHalf, 0}, {0, kHalf, 0}, 5, 4, out)),
               Catch::Contains("activation_min 5 is greater than activation_max 4"));
  }
}

TEST_CASE("cortex_m::quantized_mul.out", "[cortex_m]") {
  KernelHarness h;
  auto mul = [&](size_t a, int64_t za, size_t b, int64_t zb, int64_t zo, int64_t m, int64_t s, size_t out) {
    return h.call("cortex_m::quantized_mul.out",
                  {a, h.integer(za), b, h.integer(zb), h.integer(zo), h.integer(m), h.integer(s), out, out});
  };
  // Zero points at both ends: (10 + 128) * (3 - 127) = 138 * -124 = -17112;
  // * 0.5 = -8556; / 2^10 = -8.36 -> -8.
  // (-127 + 128) * (-128 - 127) = -255 -> floor(-127.5 + 0.5) = -127, / 2^10 = -0.12 -> 0.
  const size_t a = h.tensor<int8_t>(ScalarType::kChar, {2}, {10, -127});
  const size_t b = h.tensor<int8_t>(ScalarType::kChar, {2}, {3, -128});
  const size_t out = h.out(ScalarType::kChar, {2});
  REQUIRE(mul(a, -128, b, 127, 0, kHalf, -10, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-8, 0});
  // Ties: 32 * 48 = 1536 * 0.5 / 2^9 = 1.5 -> 2; 32 * 16 = 512 -> 0.5 -> 1; 32 * -16 -> -0.5 -> -1.
  const size_t c = h.tensor<int8_t>(ScalarType::kChar, {3}, {32, 32, 32});
  const size_t d = h.tensor<int8_t>(ScalarType::kChar, {3}, {48, 16, -16});
  const size_t out3 = h.out(ScalarType::kChar, {3});
  REQUIRE(mul(c, 0, d, 0, 0, kHalf, -9, out3));
  CHECK(h.data<int8_t>(out3) == std::vector<int8_t>{2, 1, -1});
  // Saturation: (127 + 128) * (-128 - 127) = -65025 * 0.5 -> -32512 -> -128; output zp 127 does not help.
  const size_t e = h.tensor<int8_t>(ScalarType::kChar, {1}, {127});
  const size_t g = h.tensor<int8_t>(ScalarType::kChar, {1}, {-128});
  const size_t out1 = h.out(ScalarType::kChar, {1});
  REQUIRE(mul(e, -128, g, 127, 127, kHalf, 0, out1));
  CHECK(h.data<int8_t>(out1) == std::vector<int8_t>{-128});
  CHECK_THAT(etkit::test::error_message(mul(e, -128, g, 127, 127, kHalf, -32, out1)), Catch::Contains("output_shift -32 out of range"));
}

TEST_CASE("cortex_m::maximum.out / minimum.out broadcast", "[cortex_m]") {
  KernelHarness h;
  const size_t a = h.tensor<int8_t>(ScalarType::kChar, {2, 1}, {1, -3});
  const size_t b = h.tensor<int8_t>(ScalarType::kChar, {3}, {0, 2, -128});
  const size_t out = h.out(ScalarType::kChar, {2, 3});
  REQUIRE(h.call("cortex_m::maximum.out", {a, b, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 2, 1, 0, 2, -3});
  REQUIRE(h.call("cortex_m::minimum.out", {a, b, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 1, -128, -3, -3, -128});
  const size_t f = h.tensor<float>(ScalarType::kFloat, {3}, {0, 2, 3});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::maximum.out", {a, f, out, out})), Catch::Contains("other must be CHAR"));
}

TEST_CASE("cortex_m::softmax.out", "[cortex_m]") {
  KernelHarness h;
  auto softmax = [&](size_t in, int64_t dim, int64_t out_zp, int64_t shift, int64_t diff_min, size_t out) {
    return h.call("cortex_m::softmax.out", {in, h.integer(dim), h.integer(0), h.integer(out_zp),
                                            h.integer(1077426176), h.integer(shift), h.integer(diff_min), out, out});
  };
  // Row 1, two equal values: exp(0) = Q31 max each, sum = 2 * round(2^31 / 2^12) = 2^20;
  // headroom 11, 1 / (1 + 0) ~ 2^31, output 2^31 / 2^(12 - 11 + 23) = 128 -> 128 - 128 = 0.
  // Row 2: 0 and -100 with diff_min -50: the second is dropped (-128), the first
  // takes all the mass: sum 2^19, headroom 12, 2^31 / 2^23 = 256 - 128 = 128 -> 127.
  const size_t in = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {7, 7, 0, -100});
  const size_t out = h.out(ScalarType::kChar, {2, 2});
  REQUIRE(softmax(in, -1, -128, 21, -50, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 0, 127, -128});
  CHECK_THAT(etkit::test::error_message(softmax(in, 0, -128, 21, -50, out)), Catch::Contains("must be the last dimension"));
  CHECK_THAT(etkit::test::error_message(softmax(in, 1, 0, 21, -50, out)), Catch::Contains("output_zero_point must be -128"));
  CHECK_THAT(etkit::test::error_message(softmax(in, 1, -128, 32, -50, out)), Catch::Contains("input_shift 32 out of range"));
}

TEST_CASE("cortex_m::transpose.out and pad.out", "[cortex_m]") {
  KernelHarness h;
  const size_t in = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 2, 3, 4, 5, 6});
  const size_t t = h.out(ScalarType::kChar, {3, 2});
  REQUIRE(h.call("cortex_m::transpose.out", {in, h.int_list({1, 0}), t, t}));
  CHECK(h.data<int8_t>(t) == std::vector<int8_t>{1, 4, 2, 5, 3, 6});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::transpose.out", {in, h.int_list({0, 0}), t, t})),
             Catch::Contains("perm repeats dimension 0"));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::transpose.out", {in, h.int_list({1}), t, t})),
             Catch::Contains("perm must have 2 values"));

  // Rank 2 [1, 2] seen as [1, 1, 1, 2]: one row above, two columns right, value -128.
  const size_t row = h.tensor<int8_t>(ScalarType::kChar, {1, 2}, {1, 2});
  const size_t padded = h.out(ScalarType::kChar, {2, 4});
  REQUIRE(h.call("cortex_m::pad.out",
                 {row, h.int_list({0, 0, 1, 0}), h.int_list({0, 0, 0, 2}), h.integer(-128), padded, padded}));
  CHECK(h.data<int8_t>(padded) == std::vector<int8_t>{-128, -128, -128, -128, 1, 2, -128, -128});
  // Channels-last [1, 2, 1, 1]: pads are in memory order N, H, W, C; C + 1 after.
  const size_t nhwc = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 1, 1}, {5, 6}, {0, 2, 3, 1});
  const size_t padded_c = h.out(ScalarType::kChar, {1, 3, 1, 1}, false, {0, 2, 3, 1});
  REQUIRE(h.call("cortex_m::pad.out",
                 {nhwc, h.int_list({0, 0, 0, 0}), h.int_list({0, 0, 0, 1}), h.integer(7), padded_c, padded_c}));
  CHECK(h.data<int8_t>(padded_c) == std::vector<int8_t>{5, 6, 7});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::pad.out",
                             {row, h.int_list({0, 0, 1}), h.int_list({0, 0, 0, 2}), h.integer(0), padded, padded})),
             Catch::Contains("pre_pad must have 4 values"));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::pad.out",
                             {row, h.int_list({0, 0, 1, 0}), h.int_list({0, 0, 0, 2}), h.integer(200), padded, padded})),
             Catch::Contains("pad_value 200 out of range"));
}

namespace {

etkit::Status linear(KernelHarness& h, size_t in, size_t w, size_t bias, size_t kernel_sum, int64_t in_off,
                     int64_t w_off, int64_t out_off, std::vector<int64_t> mults, std::vector<int64_t> shifts,
                     size_t out) {
  return h.call("cortex_m::quantized_linear.out",
                {in, w, bias, kernel_sum, h.integer(in_off), h.integer(w_off), h.integer(out_off), h.int_list(mults),
                 h.int_list(shifts), h.integer(127), h.integer(-128), out, out});
}

}  // namespace

TEST_CASE("cortex_m::quantized_linear.out", "[cortex_m]") {
  KernelHarness h;
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {1, 2}, {3, -2});
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {1, 2, -1, 4});
  const size_t out = h.out(ScalarType::kChar, {1, 2});
  // bias [10, -5], input_offset 1: acc0 = 10 + 4*1 + (-1)*2 = 12 -> 12 * 0.5 / 2 = 3, - 3 = 0;
  // acc1 = -5 + 4*(-1) + (-1)*4 = -13 -> floor(-6.5 + 0.5) = -6, / 2 = -3, - 3 = -6.
  const size_t bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {10, -5});
  REQUIRE(linear(h, x, w, bias, h.none(), 1, 0, -3, {kHalf}, {-1}, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, -6});
  // kernel_sum [100, 0] replaces bias and input offset; filter_offset 2 adds 2 * sum(x) = 2:
  // acc0 = 100 + (3 - 4) + 2 = 101 -> floor(50.5 + 0.5) = 51, / 2 = 25.5 -> 26, - 3 = 23;
  // acc1 = (-3 - 8) + 2 = -9 -> floor(-4.5 + 0.5) = -4, / 2 = -2, - 3 = -5.
  const size_t ksum = h.tensor<int32_t>(ScalarType::kInt, {2}, {100, 0});
  REQUIRE(linear(h, x, w, bias, ksum, 1, 2, -3, {kHalf}, {-1}, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{23, -5});
  // Per-channel lists: channel 1 with shift 0: -13 * 0.5 -> -6, - 3 = -9.
  REQUIRE(linear(h, x, w, bias, h.none(), 1, 0, -3, {kHalf, kHalf}, {-1, 0}, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, -9});

  CHECK_THAT(etkit::test::error_message(linear(h, x, w, bias, h.none(), 1, 0, -3, {kHalf, kHalf, kHalf}, {-1}, out)),
             Catch::Contains("requantize_multipliers must have 1 or 2 values"));
  CHECK_THAT(etkit::test::error_message(linear(h, x, w, bias, h.none(), 1, 0, -3, {kHalf}, {40}, out)),
             Catch::Contains("requantize_shifts[0] 40 out of range"));
  const size_t bad_bias = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  CHECK_THAT(etkit::test::error_message(linear(h, x, w, bad_bias, h.none(), 1, 0, -3, {kHalf}, {-1}, out)),
             Catch::Contains("bias must have shape [2]"));
  const size_t w3 = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THAT(etkit::test::error_message(linear(h, x, w3, bias, h.none(), 1, 0, -3, {kHalf}, {-1}, out)),
             Catch::Contains("in_features"));
}

TEST_CASE("cortex_m::quantized_batch_matmul.out", "[cortex_m]") {
  KernelHarness h;
  // lhs [1, 1, 2] = [1, 2] + offset 1 = [2, 3]; rhs_t rows [3, 4], [5, -6]:
  // 2*3 + 3*4 = 18, 2*5 + 3*(-6) = -8; identity requantization (0.5, shift 1); + 100 saturates the first.
  const size_t lhs = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2}, {1, 2});
  const size_t rhs = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2}, {3, 4, 5, -6});
  const size_t scratch = h.out(ScalarType::kByte, {0});
  const size_t out = h.out(ScalarType::kChar, {1, 1, 2});
  REQUIRE(h.call("cortex_m::quantized_batch_matmul.out", {lhs, h.integer(1), rhs, h.integer(0), h.integer(0),
                                                          h.integer(kHalf), h.integer(1), scratch, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{18, -8});
  REQUIRE(h.call("cortex_m::quantized_batch_matmul.out", {lhs, h.integer(1), rhs, h.integer(0), h.integer(120),
                                                          h.integer(kHalf), h.integer(1), scratch, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{127, 112});
  const size_t bad = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantized_batch_matmul.out",
                             {lhs, h.integer(1), bad, h.integer(0), h.integer(0), h.integer(kHalf), h.integer(1),
                              scratch, out, out})),
             Catch::Contains("must be [B, M, K] and [B, N, K]"));
}

namespace {

// quantized_conv2d.out with stride 1, dilation 1 and the given padding.
etkit::Status conv(KernelHarness& h, size_t in, size_t w, size_t bias, std::vector<int64_t> padding, int64_t in_off,
                   size_t mults, size_t shifts, size_t out) {
  return h.call("cortex_m::quantized_conv2d.out",
                {in, w, bias, h.int_list({1, 1}), h.int_list(padding), h.int_list({1, 1}), h.integer(in_off),
                 h.integer(0), mults, shifts, h.integer(-128), h.integer(127), h.out(ScalarType::kByte, {0}), out,
                 out});
}

}  // namespace

TEST_CASE("cortex_m::quantized_conv2d.out", "[cortex_m]") {
  KernelHarness h;
  SECTION("padding contributes nothing, even with an input offset") {
    // 3x3 input 1..9, 2x2 kernel [[1, 0], [0, -1]], padding 1, input_offset 1, bias 10, identity requant.
    // out[0][0]: only tap (1,1) of the kernel lands on x[0][0] = 1: -(1 + 1) + 10 = 8.
    // out[3][3]: only tap (0,0) lands on x[2][2] = 9: (9 + 1) + 10 = 20.
    // out[1][1]: x[0][0] - x[1][1] = (1 + 1) - (5 + 1) = -4 + 10 = 6.
    const size_t in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 1}, {1, 0, 0, -1});
    const size_t bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
    const size_t m = h.tensor<int32_t>(ScalarType::kInt, {1}, {int32_t(kHalf)});
    const size_t s = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
    const size_t out = h.out(ScalarType::kChar, {1, 1, 4, 4});
    REQUIRE(conv(h, in, w, bias, {1, 1}, 1, m, s, out));
    const auto y = h.data<int8_t>(out);
    CHECK(y[0] == 8);
    CHECK(y[15] == 20);
    CHECK(y[5] == 6);
  }
  SECTION("channels-last, per-channel shifts, ties of the shift-0 path") {
    // 1x1 conv over NHWC [1, 2, 2, 2]: channel 0 = [1, 2, 3, 4], channel 1 = [10, 20, 30, 40].
    // oc0 = x0 + 2 x1 with identity requant: 21, 42, 63, 84.
    // oc1 = x0 - x1 = -9, -18, -27, -36, times 0.5 (shift 0): floor(-4.5 + 0.5) = -4, -9, floor(-13.5 + 0.5) = -13, -18.
    const std::vector<uint8_t> cl = {0, 2, 3, 1};
    const size_t in = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}, cl);
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {2, 1, 1, 2}, {1, 2, 1, -1});
    const size_t m = h.tensor<int32_t>(ScalarType::kInt, {2}, {int32_t(kHalf), int32_t(kHalf)});
    const size_t s = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 0});
    const size_t out = h.out(ScalarType::kChar, {1, 2, 2, 2}, false, cl);
    REQUIRE(conv(h, in, w, h.none(), {0, 0}, 0, m, s, out));
    // NHWC storage: (oc0, oc1) per pixel.
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{21, -4, 42, -9, 63, -13, 84, -18});

    const size_t m1 = h.tensor<int32_t>(ScalarType::kInt, {1}, {int32_t(kHalf)});
    CHECK_THAT(etkit::test::error_message(conv(h, in, w, h.none(), {0, 0}, 0, m1, s, out)),
               Catch::Contains("requantize_multipliers must have one value per output channel (2)"));
    const size_t big_shift = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 40});
    CHECK_THAT(etkit::test::error_message(conv(h, in, w, h.none(), {0, 0}, 0, m, big_shift, out)),
               Catch::Contains("requantize_shifts[1] 40 out of range"));
    const size_t fw = h.tensor<float>(ScalarType::kFloat, {2, 1, 1, 2}, {1, 2, 1, -1});
    CHECK_THAT(etkit::test::error_message(conv(h, in, fw, h.none(), {0, 0}, 0, m, s, out)), Catch::Contains("weight must be CHAR"));
    const size_t w3 = h.tensor<int8_t>(ScalarType::kChar, {2, 1, 1, 3}, {1, 2, 3, 4, 5, 6});
    CHECK_THAT(etkit::test::error_message(conv(h, in, w3, h.none(), {0, 0}, 0, m, s, out)), Catch::Contains("does not match input"));
  }
}

TEST_CASE("cortex_m::quantized_depthwise_conv2d.out", "[cortex_m]") {
  KernelHarness h;
  // One input channel [1, 2, 3, 50], depth_multiplier 2, 1x1 weights [2, -3]:
  // oc0 = 2x = 2, 4, 6, 100; oc1 = -3x = -3, -6, -9, -150 -> -128.
  const size_t in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {1, 2, 3, 50});
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 2}, {2, -3});
  const size_t m = h.tensor<int32_t>(ScalarType::kInt, {2}, {int32_t(kHalf), int32_t(kHalf)});
  const size_t s = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 1});
  const size_t out = h.out(ScalarType::kChar, {1, 2, 2, 2});
  auto call = [&](size_t weight, int64_t dm) {
    return h.call("cortex_m::quantized_depthwise_conv2d.out",
                  {in, weight, h.none(), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(dm),
                   h.integer(0), h.integer(0), m, s, h.integer(-128), h.integer(127), h.out(ScalarType::kByte, {0}),
                   out, out});
  };
  REQUIRE(call(w, 2));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{2, 4, 6, 100, -3, -6, -9, -128});
  CHECK_THAT(etkit::test::error_message(call(w, 3)), Catch::Contains("input channels x depth_multiplier"));
  CHECK_THAT(etkit::test::error_message(call(w, 0)), Catch::Contains("depth_multiplier 0 out of range"));
}

TEST_CASE("cortex_m::quantized_avg_pool2d.out / quantized_max_pool2d.out", "[cortex_m]") {
  KernelHarness h;
  const size_t scratch = h.out(ScalarType::kByte, {0});
  // Pairs (1 + 2) / 2 = 1.5 -> 2 and (-1 - 2) / 2 = -1.5 -> -2 (half away from zero).
  const size_t in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 4}, {1, 2, -1, -2});
  const size_t out = h.out(ScalarType::kChar, {1, 1, 1, 2});
  // The current schema (with ceil_mode) ...
  REQUIRE(h.call("cortex_m::quantized_avg_pool2d.out",
                 {in, h.int_list({1, 2}), h.int_list({1, 2}), h.int_list({0, 0}), h.boolean(false), h.integer(-128),
                  h.integer(kHalf), h.integer(0), scratch, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{2, -2});
  // ... and the older one without it.
  const size_t in2 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 2}, {3, 4});
  const size_t out3 = h.out(ScalarType::kChar, {1, 1, 1, 3});
  // Padding 1 on each side: windows [pad, 3] -> 3 / 1, [3, 4] -> 3.5 -> 4, [4, pad] -> 4.
  REQUIRE(h.call("cortex_m::quantized_avg_pool2d.out", {in2, h.int_list({1, 2}), h.int_list({1, 1}),
                                                         h.int_list({0, 1}), h.integer(0), h.integer(kHalf),
                                                         h.integer(0), scratch, out3, out3}));
  CHECK(h.data<int8_t>(out3) == std::vector<int8_t>{3, 4, 4});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantized_avg_pool2d.out",
                             {in2, h.int_list({1, 2}), h.int_list({1, 1}), h.int_list({0, 2}), h.integer(0),
                              h.integer(kHalf), h.integer(0), scratch, out3, out3})),
             Catch::Contains("padding must be at most half of kernel_size"));

  // Max of [-5, 3, 7, -128] = 7, clamped by activation_max 5.
  const size_t in4 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {-5, 3, 7, -128});
  const size_t out1 = h.out(ScalarType::kChar, {1, 1, 1, 1});
  auto max_pool = [&](int64_t act_max, int64_t out_zp) {
    return h.call("cortex_m::quantized_max_pool2d.out",
                  {in4, h.int_list({2, 2}), h.int_list({2, 2}), h.int_list({0, 0}), h.int_list({1, 1}),
                   h.boolean(false), h.integer(3), h.integer(out_zp), h.integer(-128), h.integer(act_max), out1, out1});
  };
  REQUIRE(max_pool(127, 3));
  CHECK(h.data<int8_t>(out1) == std::vector<int8_t>{7});
  REQUIRE(max_pool(5, 3));
  CHECK(h.data<int8_t>(out1) == std::vector<int8_t>{5});
  CHECK_THAT(etkit::test::error_message(max_pool(5, 4)), Catch::Contains("must be equal"));
}
