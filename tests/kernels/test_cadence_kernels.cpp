// cadence:: reference kernels: quantize/dequantize per tensor and the
// quantized NCHW convolution, with values worked by hand; plus the
// Cadence fixture program end to end.
#include <cmath>
#include <cstdint>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

size_t dtype(KernelHarness& h, ScalarType t) { return h.integer(int64_t(t)); }

}  // namespace

TEST_CASE("cadence::quantize_per_tensor clamps to the dtype, not quant_min/max", "[cadence]") {
  KernelHarness h;
  // scale 1: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2 (ties to even), -300 -> -128, 300 -> 127 even though
  // quant_min/quant_max say [-10, 10] (the reference ignores them).
  auto x = h.tensor<float>(ScalarType::kFloat, {5}, {0.5f, 1.5f, 2.5f, -300, 300});
  auto out = h.out(ScalarType::kChar, {5});
  REQUIRE(h.call("cadence::quantize_per_tensor.out",
                 {x, h.real(1.0), h.integer(0), h.integer(-10), h.integer(10), dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 2, 2, -128, 127});
  // scale 0.1 (1 / 0.1 = 10 in double), zero point 5, uint8: 0.25 -> 2.5 -> 2 -> 7; -1 -> -10 + 5 -> 0.
  auto y = h.tensor<float>(ScalarType::kFloat, {2}, {0.25f, -1.0f});
  auto uo = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call("cadence::quantize_per_tensor.out",
                 {y, h.real(0.1), h.integer(5), h.integer(0), h.integer(255), dtype(h, ScalarType::kByte), uo, uo})
              .ok());
  CHECK(h.data<uint8_t>(uo) == std::vector<uint8_t>{7, 0});
  auto fo = h.out(ScalarType::kFloat, {5});
  CHECK(failure(h, "cadence::quantize_per_tensor.out",
                {x, h.real(1.0), h.integer(0), h.integer(-10), h.integer(10), dtype(h, ScalarType::kChar), fo, fo}) ==
        "cadence::quantize_per_tensor.out: out dtype FLOAT is not a quantized dtype");
}

TEST_CASE("cadence::dequantize_per_tensor: scale * (q - zero_point)", "[cadence]") {
  KernelHarness h;
  // scale 0.5, zero point 1: -128 -> -64.5, 127 -> 63.
  auto q = h.tensor<int8_t>(ScalarType::kChar, {2}, {-128, 127});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("cadence::dequantize_per_tensor.out",
                 {q, h.real(0.5), h.integer(1), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<float>(out) == std::vector<float>{-64.5f, 63.0f});
  auto d = h.out(ScalarType::kDouble, {2});
  CHECK(failure(h, "cadence::dequantize_per_tensor.out",
                {q, h.real(0.5), h.integer(1), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), d, d}) ==
        "cadence::dequantize_per_tensor.out: out must be FLOAT, not DOUBLE");
}

TEST_CASE("cadence::quantized_conv2d_nchw.per_tensor_out: padding, zero points, requantization", "[cadence]") {
  KernelHarness h;
  // input [1, 1, 3, 3] = 1..9 with input zero point 1, so v(r, c) = 3r + c; weight [[1, 0], [0, -1]];
  // bias 10; padding 1 -> out [1, 1, 4, 4] with acc(y, x) = 10 + v(y-1, x-1) - v(y, x) (terms that
  // fall outside the input dropped):
  //   10  9  8 10 /  7  6  6 12 /  4  6  6 15 / 10 16 17 18.
  // bias_scale 0.5, out_scale 0.25, out zero point -3: q = 4 * 0.5 * acc - 3 = 2 acc - 3.
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {1, 0, 0, -1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
  auto out = h.out(ScalarType::kChar, {1, 1, 4, 4});
  auto call = [&](double bias_scale, double out_scale, int64_t out_zp) {
    return h.call("cadence::quantized_conv2d_nchw.per_tensor_out",
                  {in, w, bias, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({1, 1}), h.integer(1), h.integer(1),
                   h.integer(0), h.real(bias_scale), h.real(out_scale), h.integer(out_zp), h.integer(0), h.integer(0),
                   out, out});
  };
  REQUIRE(call(0.5, 0.25, -3).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{17, 15, 13, 17, 11, 9, 9, 21, 5, 9, 9, 27, 17, 29, 31, 33});
  // bias_scale 10, out_scale 1: q = 10 acc, saturating at 127 (acc 4 -> 40, acc >= 13 -> 127).
  REQUIRE(call(10.0, 1.0, 0).ok());
  CHECK(h.data<int8_t>(out)[8] == 40);
  CHECK(h.data<int8_t>(out)[15] == 127);
  // Stride 2 without padding on a [1, 1, 3, 3] input and a 1x1 weight of 2 (weight zero point 0):
  // picks v(0, 0), v(0, 2), v(2, 0), v(2, 2) = 0, 2, 6, 8; acc = 2 v + 10 -> q = acc (scales 1).
  auto w1 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 1}, {2});
  auto o2 = h.out(ScalarType::kChar, {1, 1, 2, 2});
  REQUIRE(h.call("cadence::quantized_conv2d_nchw.per_tensor_out",
                 {in, w1, bias, h.int_list({2, 2}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(1), h.integer(1),
                  h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), o2, o2})
              .ok());
  CHECK(h.data<int8_t>(o2) == std::vector<int8_t>{10, 14, 22, 26});
  // Mismatched dtypes and a bias of the wrong length are refused.
  auto f = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  CHECK(failure(h, "cadence::quantized_conv2d_nchw.per_tensor_out",
                {in, w, bias, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({1, 1}), h.integer(1), h.integer(1),
                 h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), f, f}) ==
        "cadence::quantized_conv2d_nchw.per_tensor_out: unsupported dtypes: input CHAR, weight CHAR, out FLOAT");
  auto bias2 = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  CHECK(failure(h, "cadence::quantized_conv2d_nchw.per_tensor_out",
                {in, w, bias2, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({1, 1}), h.integer(1), h.integer(1),
                 h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), out, out}) ==
        "cadence::quantized_conv2d_nchw.per_tensor_out: bias must be [1], got [2]");
}

// ---- quantized_linear / quantized_fully_connected / quantized_matmul -------
//
// The requantization scale is out_multiplier * 2^(out_shift - 31):
// 2^30 with shift 0 is 0.5, with shift 1 is 1, with shift -1 is 0.25;
// 3 * 2^29 with shift -1 is 3 * 2^-3 = 0.375.

namespace {
constexpr int64_t k2p30 = int64_t(1) << 30;
}

TEST_CASE("cadence::quantized_linear.per_tensor_out: zero points, bias, ties to even, saturation", "[cadence]") {
  KernelHarness h;
  // src - 1 = [[0, 1, 2], [-129, 126, -1]]; weight - 1 = [[0, -2, 1], [-1, 2, -1]]; bias [10, -5].
  //   row 0: 10 + 0 - 2 + 2 = 10;          -5 + 0 + 2 - 2 = -5
  //   row 1: 10 + 0 - 252 - 1 = -243;      -5 + 129 + 252 + 1 = 377
  // scale 0.5, out zero point 3: 10 -> 5 -> 8; -5 -> -2.5 -> -2 (even) -> 1;
  // -243 -> -121.5 -> -122 (even) -> -119; 377 -> 188.5 -> 188 -> 191 -> 127 (saturated).
  auto src = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 2, 3, -128, 127, 0});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, -1, 2, 0, 3, 0});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {10, -5});
  auto out = h.out(ScalarType::kChar, {2, 2});
  for (const char* op : {"cadence::quantized_linear.per_tensor_out", "cadence::quantized_fully_connected.per_tensor_out"}) {
    REQUIRE(h.call(op, {src, w, bias, h.integer(1), h.integer(1), h.integer(k2p30), h.integer(0), h.integer(3), h.none(),
                        out, out})
                .ok());
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{8, 1, -119, 127});
  }
  // The sum wraps in int32 as the reference's does: (-32768 - 32767)^2 = 65535^2 = 2^32 - 131071,
  // which is -131071 in int32; scale 2^30 * 2^(-16 - 31) = 2^-17 -> -0.99999 -> -1
  // (without the wrap it would be 32767).
  auto s16 = h.tensor<int16_t>(ScalarType::kShort, {1, 1}, {-32768});
  auto w16 = h.tensor<int16_t>(ScalarType::kShort, {1, 1}, {-32768});
  auto b0 = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto o16 = h.out(ScalarType::kShort, {1, 1});
  REQUIRE(h.call("cadence::quantized_linear.per_tensor_out", {s16, w16, b0, h.integer(32767), h.integer(32767),
                                                              h.integer(k2p30), h.integer(-16), h.integer(0), h.none(),
                                                              o16, o16})
              .ok());
  CHECK(h.data<int16_t>(o16) == std::vector<int16_t>{-1});
  // int16 activations with int8 weights (linear only): 1000 * 100 - 300 * 50 = 85000, scale 0.25 -> 21250.
  auto a16 = h.tensor<int16_t>(ScalarType::kShort, {1, 2}, {1000, -300});
  auto w8 = h.tensor<int8_t>(ScalarType::kChar, {1, 2}, {100, 50});
  REQUIRE(h.call("cadence::quantized_linear.per_tensor_out", {a16, w8, b0, h.integer(0), h.integer(0), h.integer(k2p30),
                                                              h.integer(-1), h.integer(0), h.none(), o16, o16})
              .ok());
  CHECK(h.data<int16_t>(o16) == std::vector<int16_t>{21250});
  CHECK(failure(h, "cadence::quantized_fully_connected.per_tensor_out",
                {a16, w8, b0, h.integer(0), h.integer(0), h.integer(k2p30), h.integer(-1), h.integer(0), h.none(), o16,
                 o16}) ==
        "cadence::quantized_fully_connected.per_tensor_out: unsupported dtypes: src SHORT, weight CHAR, out SHORT");
  auto bias3 = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 0, 0});
  CHECK(failure(h, "cadence::quantized_linear.per_tensor_out",
                {src, w, bias3, h.integer(1), h.integer(1), h.integer(k2p30), h.integer(0), h.integer(3), h.none(), out,
                 out}) == "cadence::quantized_linear.per_tensor_out: bias must be [2], got [3]");
  auto src4 = h.tensor<int8_t>(ScalarType::kChar, {1, 4}, {0, 0, 0, 0});
  CHECK(failure(h, "cadence::quantized_linear.per_tensor_out",
                {src4, w, bias, h.integer(1), h.integer(1), h.integer(k2p30), h.integer(0), h.integer(3), h.none(), out,
                 out}) == "cadence::quantized_linear.per_tensor_out: src [1, 4] must end in weight's in_dim 3");
}

TEST_CASE("cadence::quantized_linear.out: per-tensor and per-channel requantization", "[cadence]") {
  KernelHarness h;
  // Same sums as above: [[10, -5], [-243, 377]].
  auto src = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 2, 3, -128, 127, 0});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, -1, 2, 0, 3, 0});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {10, -5});
  auto wzp = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto out = h.out(ScalarType::kChar, {2, 2});
  // One multiplier: the per-tensor path, scale 0.5 and zero point 3 as above.
  auto m1 = h.tensor<int32_t>(ScalarType::kInt, {1}, {int32_t(k2p30)});
  auto s1 = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  for (const char* op : {"cadence::quantized_linear.out", "cadence::quantized_fully_connected.out"}) {
    REQUIRE(h.call(op, {src, w, bias, h.integer(1), wzp, m1, s1, h.integer(3), h.none(), out, out}).ok());
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{8, 1, -119, 127});
  }
  // Per channel: channel 0 scale 2^30 * 2^(1 - 31) = 1, channel 1 scale 3 * 2^29 * 2^(-1 - 31) = 0.375;
  // zero point 0: 10 -> 10; -5 * 0.375 = -1.875 -> -2; -243 -> -128 (saturated); 377 * 0.375 = 141.375 -> 127.
  auto m2 = h.tensor<int32_t>(ScalarType::kInt, {2}, {int32_t(k2p30), 3 << 29});
  auto s2 = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, -1});
  REQUIRE(h.call("cadence::quantized_linear.out", {src, w, bias, h.integer(1), wzp, m2, s2, h.integer(0), h.none(), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{10, -2, -128, 127});
  auto m3 = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 1, 1});
  CHECK(failure(h, "cadence::quantized_linear.out", {src, w, bias, h.integer(1), wzp, m3, s2, h.integer(0), h.none(), out, out}) ==
        "cadence::quantized_linear.out: out_multiplier [3] must have 1 or 2 entries");
  CHECK(failure(h, "cadence::quantized_linear.out", {src, w, bias, h.integer(1), wzp, m2, s1, h.integer(0), h.none(), out, out}) ==
        "cadence::quantized_linear.out: out_shift [1] must have out_multiplier's 2 entries");
  auto wzp_f = h.tensor<float>(ScalarType::kFloat, {1}, {1.f});
  CHECK(failure(h, "cadence::quantized_linear.out", {src, w, bias, h.integer(1), wzp_f, m1, s1, h.integer(0), h.none(), out, out}) ==
        "cadence::quantized_linear.out: weight_zero_point must be INT, not FLOAT");
  auto wb = h.tensor<uint8_t>(ScalarType::kByte, {2, 3}, {1, 1, 1, 1, 1, 1});
  CHECK(failure(h, "cadence::quantized_linear.out", {src, wb, bias, h.integer(1), wzp, m1, s1, h.integer(0), h.none(), out, out}) ==
        "cadence::quantized_linear.out: unsupported dtypes: src CHAR, weight BYTE, out CHAR");
}

TEST_CASE("cadence::quantized_matmul.out: plain and transposed Y, int32 narrowing of the multiplier", "[cadence]") {
  KernelHarness h;
  // X - 1 = [[0, 1], [2, 3]], Y - 5 = [[0, 1], [2, 3]].
  //   X'Y'   = [[0*0 + 1*2, 0*1 + 1*3], [2*0 + 3*2, 2*1 + 3*3]] = [[2, 3], [6, 11]]
  //   X'Y'^T = [[0*0 + 1*1, 0*2 + 1*3], [2*0 + 3*1, 2*2 + 3*3]] = [[1, 3], [3, 13]]
  auto x = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2}, {1, 2, 3, 4});
  auto y = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2}, {5, 6, 7, 8});
  auto out = h.out(ScalarType::kChar, {1, 2, 2});
  auto call = [&](int64_t mult, int64_t shift, int64_t zp, bool transposed) {
    return h.call("cadence::quantized_matmul.out", {x, h.integer(1), y, h.integer(5), h.none(), h.integer(mult),
                                                    h.integer(shift), h.integer(zp), h.boolean(transposed), out, out});
  };
  // scale 1, zero point -2.
  REQUIRE(call(k2p30, 1, -2, false).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 1, 4, 9});
  REQUIRE(call(k2p30, 1, -2, true).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-1, 1, 1, 11});
  // scale 0.5: 1, 1.5 -> 2 (even), 3, 5.5 -> 6 (even).
  REQUIRE(call(k2p30, 0, 0, false).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 2, 3, 6});
  // The reference narrows out_multiplier to int32: 2^32 + 2^30 acts as 2^30.
  REQUIRE(call((int64_t(1) << 32) + k2p30, 0, 0, false).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 2, 3, 6});
  auto y2 = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {5, 6, 7, 8});
  CHECK(failure(h, "cadence::quantized_matmul.out", {x, h.integer(1), y2, h.integer(5), h.none(), h.integer(k2p30),
                                                     h.integer(0), h.integer(0), h.boolean(false), out, out}) ==
        "cadence::quantized_matmul.out: Y [2, 2] must have X's rank 3");
  auto y3 = h.tensor<int8_t>(ScalarType::kChar, {1, 3, 2}, {0, 0, 0, 0, 0, 0});
  CHECK(failure(h, "cadence::quantized_matmul.out", {x, h.integer(1), y3, h.integer(5), h.none(), h.integer(k2p30),
                                                     h.integer(0), h.integer(0), h.boolean(false), out, out}) ==
        "cadence::quantized_matmul.out: Y [1, 3, 2] does not match X [1, 2, 2]");
}

// ---- quantized_relu / quantized_add / requantize ---------------------------

TEST_CASE("cadence::quantized_relu: per tensor, and the .out overload's element-type difference", "[cadence]") {
  KernelHarness h;
  // X - 2 clipped at 0: [-128, 0, 5, 127] -> [0, 0, 3, 125]. Scale 3 * 2^29 * 2^(1 - 31) = 1.5,
  // out zero point -128: 0 -> -128; 4.5 -> 4 (even) -> -124; 187.5 -> 188 (even) -> 60.
  auto x = h.tensor<int8_t>(ScalarType::kChar, {4}, {-128, 0, 5, 127});
  auto out = h.out(ScalarType::kChar, {4});
  REQUIRE(h.call("cadence::quantized_relu.per_tensor_out",
                 {x, h.integer(2), h.integer(-128), h.integer(3 << 29), h.integer(1), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-128, -128, -124, 60});
  // .out: zero point -128, scale 2^30 * 2^(1 - 31) = 1. The difference is kept in int8:
  // 127 - (-128) = 255 -> -1; -128 is not above the zero point -> 0; 0 + 128 = 128 -> -128.
  auto x2 = h.tensor<int8_t>(ScalarType::kChar, {3}, {127, -128, 0});
  auto o2 = h.out(ScalarType::kChar, {3});
  auto m = h.tensor<int32_t>(ScalarType::kInt, {1}, {1 << 30});
  auto s = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto zp8 = h.tensor<int8_t>(ScalarType::kChar, {1}, {-128});
  REQUIRE(h.call("cadence::quantized_relu.out", {x2, zp8, h.integer(0), m, s, o2, o2}).ok());
  CHECK(h.data<int8_t>(o2) == std::vector<int8_t>{-1, 0, -128});
  // An INT zero point tensor is read as int8 (its low byte): 384 = 0x180 -> 0x80 = -128, same result.
  auto zp32 = h.tensor<int32_t>(ScalarType::kInt, {1}, {384});
  REQUIRE(h.call("cadence::quantized_relu.out", {x2, zp32, h.integer(0), m, s, o2, o2}).ok());
  CHECK(h.data<int8_t>(o2) == std::vector<int8_t>{-1, 0, -128});
  auto x16 = h.tensor<int16_t>(ScalarType::kShort, {1}, {0});
  auto o16 = h.out(ScalarType::kShort, {1});
  CHECK(failure(h, "cadence::quantized_relu.per_tensor_out",
                {x16, h.integer(0), h.integer(0), h.integer(1 << 30), h.integer(1), o16, o16}) ==
        "cadence::quantized_relu.per_tensor_out: X must be CHAR or BYTE, not SHORT");
  auto m2 = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 1});
  CHECK(failure(h, "cadence::quantized_relu.out", {x2, zp8, h.integer(0), m2, s, o2, o2}) ==
        "cadence::quantized_relu.out: out_multiplier must have one element, got [2]");
}

TEST_CASE("cadence::quantized_add: dequantize, add in float, requantize, Y broadcasts", "[cadence]") {
  KernelHarness h;
  // X: 0.5 * (q - 10) = [0, 5, 122.5]; Y: 0.25 * 4 = 1, broadcast; sums [1, 6, 123.5];
  // out scale 2 -> * 0.5 = [0.5, 3, 61.75] -> [0 (even), 3, 62]; zero point 200 -> [200, 203, 262 -> 255].
  auto x = h.tensor<uint8_t>(ScalarType::kByte, {3}, {10, 20, 255});
  auto y = h.tensor<uint8_t>(ScalarType::kByte, {1}, {4});
  auto out = h.out(ScalarType::kByte, {3});
  REQUIRE(h.call("cadence::quantized_add.per_tensor_out", {x, h.real(0.5), h.integer(10), y, h.real(0.25), h.integer(0),
                                                           h.real(2.0), h.integer(200), out, out})
              .ok());
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{200, 203, 255});
  auto xs = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  auto xz = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
  auto ys = h.tensor<float>(ScalarType::kFloat, {1}, {0.25f});
  auto yz = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  REQUIRE(h.call("cadence::quantized_add.out", {x, xs, xz, y, ys, yz, h.real(2.0), h.integer(200), out, out}).ok());
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{200, 203, 255});
  auto x8 = h.tensor<int8_t>(ScalarType::kChar, {3}, {0, 0, 0});
  CHECK(failure(h, "cadence::quantized_add.per_tensor_out", {x8, h.real(0.5), h.integer(10), y, h.real(0.25),
                                                             h.integer(0), h.real(2.0), h.integer(200), out, out}) ==
        "cadence::quantized_add.per_tensor_out: X CHAR and Y BYTE must have out's dtype BYTE");
  CHECK(failure(h, "cadence::quantized_add.out", {x, xz, xz, y, ys, yz, h.real(2.0), h.integer(200), out, out}) ==
        "cadence::quantized_add.out: X_scale must be FLOAT, not INT");
  auto y2 = h.tensor<uint8_t>(ScalarType::kByte, {2}, {0, 0});
  CHECK_FALSE(h.call("cadence::quantized_add.per_tensor_out", {x, h.real(0.5), h.integer(10), y2, h.real(0.25),
                                                               h.integer(0), h.real(2.0), h.integer(200), out, out})
                  .ok());
}

TEST_CASE("cadence::requantize: between dtypes and scales", "[cadence]") {
  KernelHarness h;
  // int8 with scale 0.5 and zero point -128: [-128, 0, 127] -> [0, 64, 127.5].
  // Into int16, scale 0.25 (x 4) and zero point -10: [-10, 246, 500].
  auto in = h.tensor<int8_t>(ScalarType::kChar, {3}, {-128, 0, 127});
  auto o16 = h.out(ScalarType::kShort, {3});
  REQUIRE(h.call("cadence::requantize.per_tensor_out", {in, h.real(0.5), h.integer(-128), h.real(0.25), h.integer(-10),
                                                        dtype(h, ScalarType::kShort), o16, o16})
              .ok());
  CHECK(h.data<int16_t>(o16) == std::vector<int16_t>{-10, 246, 500});
  // Into uint8, scale 1, zero point 0: 127.5 -> 128 (even).
  auto o8 = h.out(ScalarType::kByte, {3});
  auto is = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  auto iz = h.tensor<int32_t>(ScalarType::kInt, {1}, {-128});
  auto os = h.tensor<float>(ScalarType::kFloat, {1}, {1.0f});
  auto oz = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  REQUIRE(h.call("cadence::requantize.out", {in, is, iz, os, oz, dtype(h, ScalarType::kByte), o8, o8}).ok());
  CHECK(h.data<uint8_t>(o8) == std::vector<uint8_t>{0, 64, 128});
  CHECK(failure(h, "cadence::requantize.out", {in, is, iz, os, oz, dtype(h, ScalarType::kChar), o8, o8}) ==
        "cadence::requantize.out: out dtype BYTE does not match out_dtype CHAR");
  auto oz2 = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 0});
  CHECK(failure(h, "cadence::requantize.out", {in, is, iz, os, oz2, dtype(h, ScalarType::kByte), o8, o8}) ==
        "cadence::requantize.out: out_zero_point must have one element, got [2]");
}

TEST_CASE("cadence:: dtype-specialised overloads compute as the generic ones and check their dtypes", "[cadence]") {
  KernelHarness h;
  // quantize, scale 0.1 (x 10), zero point 5: 0.25 -> 2.5 -> 2 (even) -> 7; -1 -> -10 + 5 -> 0.
  auto x = h.tensor<float>(ScalarType::kFloat, {2}, {0.25f, -1.0f});
  auto u8 = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call("cadence::quantize_per_tensor_asym8u.out",
                 {x, h.real(0.1), h.integer(5), h.integer(0), h.integer(255), dtype(h, ScalarType::kByte), u8, u8})
              .ok());
  CHECK(h.data<uint8_t>(u8) == std::vector<uint8_t>{7, 0});
  auto i8 = h.out(ScalarType::kChar, {2});
  CHECK(failure(h, "cadence::quantize_per_tensor_asym8u.out",
                {x, h.real(0.1), h.integer(5), h.integer(0), h.integer(255), dtype(h, ScalarType::kByte), i8, i8}) ==
        "cadence::quantize_per_tensor_asym8u.out: out must be BYTE for this overload, not CHAR");
  // dequantize int16, scale 0.5, zero point 1: 0.5 * -32769 = -16384.5; 0.5 * 32766 = 16383.
  auto q16 = h.tensor<int16_t>(ScalarType::kShort, {2}, {-32768, 32767});
  auto f = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("cadence::dequantize_per_tensor_asym16s.out", {q16, h.real(0.5), h.integer(1), h.integer(-32768),
                                                                h.integer(32767), dtype(h, ScalarType::kShort), f, f})
              .ok());
  CHECK(h.data<float>(f) == std::vector<float>{-16384.5f, 16383.0f});
  // uint8 linear: src - 1 = [2, 4], weight - 2 = [8, -2], bias 1: 1 + 16 - 8 = 9; scale 0.5 -> 4.5 -> 4 (even);
  // zero point 128 -> 132.
  auto src = h.tensor<uint8_t>(ScalarType::kByte, {1, 2}, {3, 5});
  auto w = h.tensor<uint8_t>(ScalarType::kByte, {1, 2}, {10, 0});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto o = h.out(ScalarType::kByte, {1, 1});
  REQUIRE(h.call("cadence::quantized_linear_asym8uxasym8u_asym8u.per_tensor_out",
                 {src, w, bias, h.integer(1), h.integer(2), h.integer(k2p30), h.integer(0), h.integer(128), h.none(), o, o})
              .ok());
  CHECK(h.data<uint8_t>(o) == std::vector<uint8_t>{132});
  CHECK(failure(h, "cadence::quantized_fully_connected_asym8sxasym8s_asym8s.per_tensor_out",
                {src, w, bias, h.integer(1), h.integer(2), h.integer(k2p30), h.integer(0), h.integer(128), h.none(), o, o}) ==
        "cadence::quantized_fully_connected_asym8sxasym8s_asym8s.per_tensor_out: src must be CHAR for this overload, not BYTE");
  // uint8 relu, zero point 100, scale 1: [0, 200] -> [0, 100].
  auto r = h.tensor<uint8_t>(ScalarType::kByte, {2}, {0, 200});
  auto ro = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call("cadence::quantized_relu_asym8u_asym8u.per_tensor_out",
                 {r, h.integer(100), h.integer(0), h.integer(k2p30), h.integer(1), ro, ro})
              .ok());
  CHECK(h.data<uint8_t>(ro) == std::vector<uint8_t>{0, 100});
  // int8 add, scales 1, zero points 0: 1 + 2 = 3.
  auto a = h.tensor<int8_t>(ScalarType::kChar, {1}, {1});
  auto b = h.tensor<int8_t>(ScalarType::kChar, {1}, {2});
  auto ao = h.out(ScalarType::kChar, {1});
  REQUIRE(h.call("cadence::quantized_add_asym8sxasym8s_asym8s.per_tensor_out",
                 {a, h.real(1.0), h.integer(0), b, h.real(1.0), h.integer(0), h.real(1.0), h.integer(0), ao, ao})
              .ok());
  CHECK(h.data<int8_t>(ao) == std::vector<int8_t>{3});
  auto yb = h.tensor<uint8_t>(ScalarType::kByte, {1, 1}, {0});
  auto xa = h.tensor<int8_t>(ScalarType::kChar, {1, 1}, {0});
  auto mo = h.out(ScalarType::kChar, {1, 1});
  CHECK(failure(h, "cadence::quantized_matmul_asym8sxasym8s_asym8s.out",
                {xa, h.integer(0), yb, h.integer(0), h.none(), h.integer(k2p30), h.integer(0), h.integer(0),
                 h.boolean(false), mo, mo}) ==
        "cadence::quantized_matmul_asym8sxasym8s_asym8s.out: Y must be CHAR for this overload, not BYTE");
}
