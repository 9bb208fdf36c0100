// cortex_m:: operators outside CMSIS-NN's integer kernels (quantized_div in
// float, quantized_activation through a table) and the transposed
// convolution of arm_transpose_conv_s8. Expected values are worked by hand
// in the comments; ties, saturation and zero points are covered on purpose.
#include <cstdint>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

constexpr int64_t kHalf = int64_t(1) << 30;  // Q31 multiplier 0.5

etkit::Status div(KernelHarness& h, size_t a, int64_t za, size_t b, int64_t zb, int64_t zo, double scale, size_t out) {
  return h.call("cortex_m::quantized_div.out",
                {a, h.integer(za), b, h.integer(zb), h.integer(zo), h.real(scale), out, out});
}

}  // namespace

TEST_CASE("cortex_m::quantized_div.out int8: ties away from zero, divisor at its zero point, saturation",
          "[cortex_m]") {
  KernelHarness h;
  // 1/2 = 0.5 -> 1, -1/2 -> -1, 3/2 = 1.5 -> 2, -3/2 -> -2, 5/2 = 2.5 -> 3 (not 2:
  // half away from zero), 7/0 -> 0.
  const size_t a = h.tensor<int8_t>(ScalarType::kChar, {6}, {1, -1, 3, -3, 5, 7});
  const size_t b = h.tensor<int8_t>(ScalarType::kChar, {6}, {2, 2, 2, 2, 2, 0});
  const size_t out = h.out(ScalarType::kChar, {6});
  REQUIRE(div(h, a, 0, b, 0, 0, 1.0, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, -1, 2, -2, 3, 0});

  // Zero points 10, -5, 3 and scale 4: (110 - 10) / (-4 + 5) = 100 -> 400 + 3 -> 127;
  // (-128 - 10) / 1 = -138 -> -552 + 3 -> -128; 0 / 5 -> 0 + 3 = 3; a divisor at
  // its zero point gives quotient 0 -> 3.
  const size_t c = h.tensor<int8_t>(ScalarType::kChar, {4}, {110, -128, 10, 50});
  const size_t d = h.tensor<int8_t>(ScalarType::kChar, {4}, {-4, -4, 0, -5});
  const size_t out4 = h.out(ScalarType::kChar, {4});
  REQUIRE(div(h, c, 10, d, -5, 3, 4.0, out4));
  CHECK(h.data<int8_t>(out4) == std::vector<int8_t>{127, -128, 3, 3});
}

TEST_CASE("cortex_m::quantized_div.out int16 and bad arguments", "[cortex_m]") {
  KernelHarness h;
  // 1000 / 3 * 0.5 = 166.67 -> 167; -32768 * 0.5 = -16384; 3 * 0.5 = 1.5 -> 2.
  const size_t a = h.tensor<int16_t>(ScalarType::kShort, {3}, {1000, -32768, 3});
  const size_t b = h.tensor<int16_t>(ScalarType::kShort, {3}, {3, 1, 1});
  const size_t out = h.out(ScalarType::kShort, {3});
  REQUIRE(div(h, a, 0, b, 0, 0, 0.5, out));
  CHECK(h.data<int16_t>(out) == std::vector<int16_t>{167, -16384, 2});
  // Scale 2 saturates at the int16 ends: -65536 -> -32768, 65534 -> 32767.
  const size_t e = h.tensor<int16_t>(ScalarType::kShort, {2}, {-32768, 32767});
  const size_t f = h.tensor<int16_t>(ScalarType::kShort, {2}, {1, 1});
  const size_t out2 = h.out(ScalarType::kShort, {2});
  REQUIRE(div(h, e, 0, f, 0, 0, 2.0, out2));
  CHECK(h.data<int16_t>(out2) == std::vector<int16_t>{-32768, 32767});
  // A zero point of 300 is fine for int16.
  REQUIRE(div(h, e, 300, f, 0, 0, 1.0, out2));

  const size_t a8 = h.tensor<int8_t>(ScalarType::kChar, {2}, {1, 2});
  const size_t b8_3 = h.tensor<int8_t>(ScalarType::kChar, {3}, {1, 2, 3});
  const size_t out8 = h.out(ScalarType::kChar, {2});
  CHECK_THAT(etkit::test::error_message(div(h, a8, 0, b8_3, 0, 0, 1.0, out8)), Catch::Contains("must have the same shape"));
  CHECK_THAT(etkit::test::error_message(div(h, a8, 128, a8, 0, 0, 1.0, out8)), Catch::Contains("self_zero_point 128 out of range"));
  CHECK_THAT(etkit::test::error_message(div(h, e, 0, f, 0, 0, 1.0, out8)), Catch::Contains("self must be CHAR"));
  const size_t fo = h.out(ScalarType::kFloat, {2});
  CHECK_THAT(etkit::test::error_message(div(h, a8, 0, a8, 0, 0, 1.0, fo)), Catch::Contains("out must be CHAR or SHORT"));
  CHECK_THAT(etkit::test::error_message(div(h, a8, 0, a8, 0, 0, 1e300, out8)), Catch::Contains("output_scale"));
}

TEST_CASE("cortex_m::quantized_activation.out looks up lut[x + 128]", "[cortex_m]") {
  KernelHarness h;
  // lut[i] = 127 - i, so out = 127 - (x + 128) = -1 - x: -128 -> 127, 127 -> -128, 0 -> -1, 5 -> -6.
  std::vector<int8_t> table(256);
  for (int i = 0; i < 256; ++i) table[i] = int8_t(127 - i);
  const size_t lut = h.tensor<int8_t>(ScalarType::kChar, {256}, table);
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {-128, 127, 0, 5});
  const size_t out = h.out(ScalarType::kChar, {2, 2});
  REQUIRE(h.call("cortex_m::quantized_activation.out", {x, lut, out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{127, -128, -1, -6});
  CHECK(h.sizes(out) == std::vector<int32_t>{2, 2});

  const size_t short_lut = h.tensor<int8_t>(ScalarType::kChar, {255}, std::vector<int8_t>(255, 0));
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantized_activation.out", {x, short_lut, out, out})),
             Catch::Contains("lut must be [256]"));
  const size_t fx = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  CHECK_THAT(etkit::test::error_message(h.call("cortex_m::quantized_activation.out", {fx, lut, out, out})),
             Catch::Contains("input must be CHAR"));
}

namespace {

struct TransposeConv {
  std::vector<int64_t> stride{1, 1}, padding{0, 0}, output_padding{0, 0}, dilation{1, 1};
  int64_t input_offset = 0, output_offset = 0, act_min = -128, act_max = 127;
};

etkit::Status transpose_conv(KernelHarness& h, size_t in, size_t w, size_t bias, const TransposeConv& c, size_t mults,
                             size_t shifts, size_t out) {
  return h.call("cortex_m::quantized_transpose_conv2d.out",
                {in, w, bias, h.int_list(c.stride), h.int_list(c.padding), h.int_list(c.output_padding),
                 h.int_list(c.dilation), h.integer(c.input_offset), h.integer(c.output_offset), mults, shifts,
                 h.integer(c.act_min), h.integer(c.act_max), h.out(ScalarType::kByte, {0}),
                 h.out(ScalarType::kByte, {0}), out, out});
}

}  // namespace

TEST_CASE("cortex_m::quantized_transpose_conv2d.out", "[cortex_m]") {
  KernelHarness h;
  const size_t in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {1, 2, 3, 4});
  const size_t identity_m = h.tensor<int32_t>(ScalarType::kInt, {1}, {int32_t(kHalf)});
  const size_t identity_s = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});  // 0.5 * 2^1
  SECTION("stride 2 scatters each pixel's (x + offset) * w without overlap, plus bias") {
    // w = [[1, 2], [3, 4]]; out[y][x] = 10 + (in[y / 2][x / 2] + 1) * w[y % 2][x % 2], in + 1 = [[2, 3], [4, 5]].
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 1}, {1, 2, 3, 4});
    const size_t bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
    const size_t out = h.out(ScalarType::kChar, {1, 1, 4, 4});
    TransposeConv c;
    c.stride = {2, 2};
    c.input_offset = 1;
    REQUIRE(transpose_conv(h, in, w, bias, c, identity_m, identity_s, out));
    CHECK(h.data<int8_t>(out) ==
          std::vector<int8_t>{12, 14, 13, 16, 16, 18, 19, 22, 14, 18, 15, 20, 22, 26, 25, 30});
  }
  SECTION("overlapping taps sum; padding crops; requantization ties and the output offset saturate") {
    // Stride 1, pad 1: one output, at full position (1, 1), gets in[iy][ix] * w[1 - iy][1 - ix]:
    // 1 * 4 + 2 * 3 + 3 * 2 + 4 * 1 = 20. Channel 1 has the weights negated: -20.
    // Multiplier 0.5, shift -2: 20 -> 10 -> 10 / 4 = 2.5 -> 3; -20 -> floor(-10 + 0.5) = -10 -> -2.5 -> -3.
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {2, 2, 2, 1}, {1, 2, 3, 4, -1, -2, -3, -4});
    const size_t m = h.tensor<int32_t>(ScalarType::kInt, {2}, {int32_t(kHalf), int32_t(kHalf)});
    const size_t s = h.tensor<int32_t>(ScalarType::kInt, {2}, {-2, -2});
    const size_t out = h.out(ScalarType::kChar, {1, 2, 1, 1});
    TransposeConv c;
    c.padding = {1, 1};
    REQUIRE(transpose_conv(h, in, w, h.none(), c, m, s, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{3, -3});
    // Output offset 127: 3 + 127 = 130 saturates at 127, -3 + 127 = 124; activation_max 120 clamps both.
    c.output_offset = 127;
    REQUIRE(transpose_conv(h, in, w, h.none(), c, m, s, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{127, 124});
    c.act_max = 120;
    REQUIRE(transpose_conv(h, in, w, h.none(), c, m, s, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{120, 120});
  }
  SECTION("output_padding adds rows and columns inside the kernel's reach") {
    // Stride 2, 3x3 ones, pad 1, output_padding 1: out 4x4 = full grid rows/cols 1..4 of the
    // 5x5 scatter; full row r takes input rows iy with 0 <= r - 2 iy < 3: r1 {0}, r2 {0, 1},
    // r3 {1}, r4 {1}; same for columns. E.g. out[1][1] = full[2][2] = 1 + 2 + 3 + 4 = 10.
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {1, 3, 3, 1}, std::vector<int8_t>(9, 1));
    const size_t out = h.out(ScalarType::kChar, {1, 1, 4, 4});
    TransposeConv c;
    c.stride = {2, 2};
    c.padding = {1, 1};
    c.output_padding = {1, 1};
    REQUIRE(transpose_conv(h, in, w, h.none(), c, identity_m, identity_s, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 3, 2, 2, 4, 10, 6, 6, 3, 7, 4, 4, 3, 7, 4, 4});
    // output_padding 2 > padding 1 asks for a row past the kernel's reach: CMSIS-NN never writes it.
    c.output_padding = {2, 2};
    CHECK_THAT(etkit::test::error_message(transpose_conv(h, in, w, h.none(), c, identity_m, identity_s, out)),
               Catch::Contains("no output CMSIS-NN computes"));
    c.output_padding = {1, 1};
    c.dilation = {2, 2};
    CHECK_THAT(etkit::test::error_message(transpose_conv(h, in, w, h.none(), c, identity_m, identity_s, out)),
               Catch::Contains("dilation must be [1, 1]"));
  }
  SECTION("channels-last input and output") {
    // Two input channels, 1x1 kernel [1, -1] (OHWI [1, 1, 1, 2]): out = ch0 - ch1 per pixel, stride 1.
    // NHWC storage (ch0, ch1) per pixel: (5, 1), (7, 2), (9, 3), (11, 4) -> 4, 5, 6, 7.
    const std::vector<uint8_t> cl = {0, 2, 3, 1};
    const size_t x = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 2}, {5, 1, 7, 2, 9, 3, 11, 4}, cl);
    const size_t w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 2}, {1, -1});
    const size_t out = h.out(ScalarType::kChar, {1, 1, 2, 2}, false, cl);
    REQUIRE(transpose_conv(h, x, w, h.none(), TransposeConv{}, identity_m, identity_s, out));
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{4, 5, 6, 7});
    const size_t w3 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 3}, {1, 1, 1});
    CHECK_THAT(etkit::test::error_message(transpose_conv(h, x, w3, h.none(), TransposeConv{}, identity_m, identity_s, out)),
               Catch::Contains("does not match input channels"));
  }
}
