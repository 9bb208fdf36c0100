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
