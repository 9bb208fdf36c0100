// quantized_decomposed:: quantize / dequantize (per tensor, per channel,
// per token) and choose_qparams. Expected values are worked by hand from
// ExecuTorch's definitions: q = clamp(nearbyint(x * (1 / scale)) + zp)
// with ties to even, x = (q - zp) * scale.
#include <cmath>
#include <cstdint>
#include <limits>

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

const std::string Q = "quantized_decomposed::";

}  // namespace

TEST_CASE("quantize_per_tensor: ties to even, saturation, NaN and inf", "[quantized]") {
  KernelHarness h;
  const float inf = std::numeric_limits<float>::infinity();
  // scale 1, zero point 0, int8 [-128, 127]: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2,
  // 1000 -> 127, -1000 -> -128, NaN -> quant_min, inf -> 127, -inf -> -128.
  auto x = h.tensor<float>(ScalarType::kFloat, {10},
                           {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000, -1000, std::nanf(""), inf, -inf});
  auto out = h.out(ScalarType::kChar, {10});
  REQUIRE(h.call(Q + "quantize_per_tensor.out",
                 {x, h.real(1.0), h.integer(0), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 2, 2, 0, -2, 127, -128, -128, 127, -128});
  // A narrower range saturates at quant_min/quant_max: [-10, 10].
  REQUIRE(h.call(Q + "quantize_per_tensor.out",
                 {x, h.real(1.0), h.integer(0), h.integer(-10), h.integer(10), dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out)[5] == 10);
  CHECK(h.data<int8_t>(out)[6] == -10);
  CHECK(h.data<int8_t>(out)[7] == -10);  // NaN -> quant_min
  // uint8 with scale 0.5 (inverse 2) and zero point 10: 1 -> 12, 0.25 -> 0.5 -> 0 -> 10,
  // 0.75 -> 1.5 -> 2 -> 12, -20 -> -30 -> 0, 200 -> 410 -> 255 (double input).
  auto d = h.tensor<double>(ScalarType::kDouble, {5}, {1.0, 0.25, 0.75, -20, 200});
  auto uo = h.out(ScalarType::kByte, {5});
  REQUIRE(h.call(Q + "quantize_per_tensor.out",
                 {d, h.real(0.5), h.integer(10), h.integer(0), h.integer(255), dtype(h, ScalarType::kByte), uo, uo})
              .ok());
  CHECK(h.data<uint8_t>(uo) == std::vector<uint8_t>{12, 10, 12, 0, 255});
  // Errors: out dtype differs from dtype; quant_min below int8's range; zero scale.
  CHECK(failure(h, Q + "quantize_per_tensor.out",
                {x, h.real(1.0), h.integer(0), h.integer(-128), h.integer(127), dtype(h, ScalarType::kByte), out, out}) ==
        Q + "quantize_per_tensor.out: out dtype CHAR does not match dtype BYTE");
  CHECK(failure(h, Q + "quantize_per_tensor.out",
                {x, h.real(1.0), h.integer(0), h.integer(-129), h.integer(127), dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_tensor.out: quant_min -129 and quant_max 127 must lie in [-128, 127] for CHAR");
  CHECK(failure(h, Q + "quantize_per_tensor.out",
                {x, h.real(0.0), h.integer(0), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_tensor.out: scale 0.000000 must be finite and non-zero");
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  CHECK(failure(h, Q + "quantize_per_tensor.out",
                {ints, h.real(1.0), h.integer(0), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_tensor.out: input must be FLOAT, DOUBLE or HALF, not INT");
}

TEST_CASE("quantize_per_tensor.Tensor_out reads 1-element scale and zero point", "[quantized]") {
  KernelHarness h;
  // scale 0.5, zero point -3, int16: 1.25 -> 2.5 -> 2 -> -1; -1.25 -> -2.5 -> -2 -> -5.
  auto x = h.tensor<float>(ScalarType::kFloat, {2}, {1.25f, -1.25f});
  auto scale = h.tensor<double>(ScalarType::kDouble, {1}, {0.5});
  auto zp = h.tensor<int64_t>(ScalarType::kLong, {1}, {-3});
  auto out = h.out(ScalarType::kShort, {2});
  REQUIRE(h.call(Q + "quantize_per_tensor.Tensor_out",
                 {x, scale, zp, h.integer(INT16_MIN), h.integer(INT16_MAX), dtype(h, ScalarType::kShort), out, out})
              .ok());
  CHECK(h.data<int16_t>(out) == std::vector<int16_t>{-1, -5});
  auto fscale = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  CHECK(failure(h, Q + "quantize_per_tensor.Tensor_out",
                {x, fscale, zp, h.integer(INT16_MIN), h.integer(INT16_MAX), dtype(h, ScalarType::kShort), out, out}) ==
        Q + "quantize_per_tensor.Tensor_out: scale must be DOUBLE, not FLOAT");
}

TEST_CASE("dequantize_per_tensor: (q - zp) * scale into float, double or half", "[quantized]") {
  KernelHarness h;
  // int8 [-128, 0, 127], scale 0.5, zero point -1: (q + 1) * 0.5 = [-63.5, 0.5, 64].
  auto q = h.tensor<int8_t>(ScalarType::kChar, {3}, {-128, 0, 127});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call(Q + "dequantize_per_tensor.out", {q, h.real(0.5), h.integer(-1), h.integer(-128), h.integer(127),
                                                   dtype(h, ScalarType::kChar), h.none(), out, out})
              .ok());
  CHECK(h.data<float>(out) == std::vector<float>{-63.5f, 0.5f, 64.0f});
  auto dout = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call(Q + "dequantize_per_tensor.out", {q, h.real(0.5), h.integer(-1), h.integer(-128), h.integer(127),
                                                   dtype(h, ScalarType::kChar), dtype(h, ScalarType::kDouble), dout, dout})
              .ok());
  CHECK(h.data<double>(dout) == std::vector<double>{-63.5, 0.5, 64.0});
  // int32 with q - zp = INT32_MAX + 1 (computed in 64 bits): 2147483647 - (-1) = 2^31.
  auto big = h.tensor<int32_t>(ScalarType::kInt, {1}, {INT32_MAX});
  auto bo = h.out(ScalarType::kFloat, {1});
  auto scale = h.tensor<double>(ScalarType::kDouble, {}, {1.0});
  auto zp = h.tensor<int64_t>(ScalarType::kLong, {}, {-1});
  REQUIRE(h.call(Q + "dequantize_per_tensor.Tensor_out", {big, scale, zp, h.integer(INT32_MIN), h.integer(INT32_MAX),
                                                          dtype(h, ScalarType::kInt), h.none(), bo, bo})
              .ok());
  CHECK(h.data<float>(bo)[0] == 2147483648.0f);
  // Errors: input dtype must match dtype, out must be floating, out_dtype must match out.
  CHECK(failure(h, Q + "dequantize_per_tensor.out", {q, h.real(0.5), h.integer(0), h.integer(-128), h.integer(127),
                                                     dtype(h, ScalarType::kByte), h.none(), out, out}) ==
        Q + "dequantize_per_tensor.out: input dtype CHAR does not match dtype BYTE");
  auto iout = h.out(ScalarType::kInt, {3});
  CHECK(failure(h, Q + "dequantize_per_tensor.out", {q, h.real(0.5), h.integer(0), h.integer(-128), h.integer(127),
                                                     dtype(h, ScalarType::kChar), h.none(), iout, iout}) ==
        Q + "dequantize_per_tensor.out: out must be FLOAT, DOUBLE or HALF, not INT");
  CHECK(failure(h, Q + "dequantize_per_tensor.out", {q, h.real(0.5), h.integer(0), h.integer(-128), h.integer(127),
                                                     dtype(h, ScalarType::kChar), dtype(h, ScalarType::kDouble), out, out}) ==
        Q + "dequantize_per_tensor.out: out dtype FLOAT does not match out_dtype DOUBLE");
}

TEST_CASE("quantize and dequantize per channel", "[quantized]") {
  KernelHarness h;
  // [[1, 2], [3, 4]] along axis 0 with scales [1, 0.5], zero points [0, 10]:
  // row 0 -> 1, 2; row 1 -> 3 * 2 + 10 = 16, 4 * 2 + 10 = 18.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto scales = h.tensor<double>(ScalarType::kDouble, {2}, {1.0, 0.5});
  auto zps = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 10});
  auto out = h.out(ScalarType::kChar, {2, 2});
  REQUIRE(h.call(Q + "quantize_per_channel.out", {x, scales, zps, h.integer(0), h.integer(-128), h.integer(127),
                                                  dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 2, 16, 18});
  // Along axis -1 (columns): column 0 scale 1 -> 1, 3; column 1 -> 2 * 2 + 10 = 14, 4 * 2 + 10 = 18.
  REQUIRE(h.call(Q + "quantize_per_channel.out", {x, scales, zps, h.integer(-1), h.integer(-128), h.integer(127),
                                                  dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 14, 3, 18});
  // Dequantize with FLOAT scales [0.5, 0.25] on axis 1 and no zero points: [[2, 4], [6, 8]] -> [[1, 1], [3, 2]].
  auto q = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {2, 4, 6, 8});
  auto fscales = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 0.25f});
  auto fo = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call(Q + "dequantize_per_channel.out", {q, fscales, h.none(), h.integer(1), h.integer(-128), h.integer(127),
                                                    dtype(h, ScalarType::kChar), h.none(), fo, fo})
              .ok());
  CHECK(h.data<float>(fo) == std::vector<float>{1, 1, 3, 2});
  // INT zero points [1, -1] on axis 0: (2 - 1) * 0.5, (4 - 1) * 0.5, (6 + 1) * 0.25, (8 + 1) * 0.25.
  auto izps = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, -1});
  REQUIRE(h.call(Q + "dequantize_per_channel.out", {q, fscales, izps, h.integer(0), h.integer(-128), h.integer(127),
                                                    dtype(h, ScalarType::kChar), h.none(), fo, fo})
              .ok());
  CHECK(h.data<float>(fo) == std::vector<float>{0.5f, 1.5f, 1.75f, 2.25f});
  auto three = h.tensor<double>(ScalarType::kDouble, {3}, {1, 1, 1});
  CHECK(failure(h, Q + "quantize_per_channel.out", {x, three, zps, h.integer(0), h.integer(-128), h.integer(127),
                                                    dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_channel.out: scales has 3 elements, expected 2");
  CHECK(failure(h, Q + "quantize_per_channel.out", {x, scales, zps, h.integer(2), h.integer(-128), h.integer(127),
                                                    dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_channel.out: axis 2 out of range for rank 2");
}

TEST_CASE("quantize and dequantize per token", "[quantized]") {
  KernelHarness h;
  // [2, 1, 2]: tokens [0.5, 1.5] and [1, -1]; scales [[1], [0.5]] (shape [2, 1, 1]), zero points [0, 3]:
  // token 0 -> 0, 2 (ties to even); token 1 -> 2 + 3 = 5, -2 + 3 = 1.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 1, 2}, {0.5f, 1.5f, 1.0f, -1.0f});
  auto scales = h.tensor<double>(ScalarType::kDouble, {2, 1, 1}, {1.0, 0.5});
  auto zps = h.tensor<int64_t>(ScalarType::kLong, {2, 1, 1}, {0, 3});
  auto out = h.out(ScalarType::kChar, {2, 1, 2});
  REQUIRE(h.call(Q + "quantize_per_token.out",
                 {x, scales, zps, h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{0, 2, 5, 1});
  // Back: (0 - 0) * 1, (2 - 0) * 1, (5 - 3) * 0.5, (1 - 3) * 0.5 = 0, 2, 1, -1.
  auto fo = h.out(ScalarType::kFloat, {2, 1, 2});
  REQUIRE(h.call(Q + "dequantize_per_token.out", {out, scales, zps, h.integer(-128), h.integer(127),
                                                  dtype(h, ScalarType::kChar), dtype(h, ScalarType::kFloat), fo, fo})
              .ok());
  CHECK(h.data<float>(fo) == std::vector<float>{0, 2, 1, -1});
  auto one = h.tensor<double>(ScalarType::kDouble, {1}, {1.0});
  CHECK(failure(h, Q + "quantize_per_token.out",
                {x, one, zps, h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), out, out}) ==
        Q + "quantize_per_token.out: scales has 1 elements, expected 2");
}

TEST_CASE("choose_qparams.Tensor_out and choose_qparams_per_token_asymmetric", "[quantized]") {
  KernelHarness h;
  // [-1, 0, 1, 2] in [-128, 127]: scale = (2 - (-1)) / 255 = 3 / 255; zero point from the max end
  // (its error 127 - 170 = -43 beats 128 - 85 = 43): 127 - 2 / scale = 127 - 170 = -43.
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {-1, 0, 1, 2});
  auto scale = h.out(ScalarType::kDouble, {1});
  auto zp = h.out(ScalarType::kLong, {1});
  auto ret = h.tensor_list({scale, zp});
  REQUIRE(h.call(Q + "choose_qparams.Tensor_out", {x, h.integer(-128), h.integer(127), h.real(1e-7),
                                                   dtype(h, ScalarType::kChar), scale, zp, ret})
              .ok());
  CHECK(h.data<double>(scale)[0] == Approx(3.0 / 255.0).epsilon(1e-15));
  CHECK(h.data<int64_t>(zp)[0] == -43);
  // All zeros in [0, 255]: the scale would be 0, so it becomes 0.1; the zero point from the min end is 0.
  auto z = h.tensor<float>(ScalarType::kFloat, {2}, {0, 0});
  REQUIRE(h.call(Q + "choose_qparams.Tensor_out", {z, h.integer(0), h.integer(255), h.real(1e-7),
                                                   dtype(h, ScalarType::kByte), scale, zp, ret})
              .ok());
  CHECK(h.data<double>(scale)[0] == 0.1);
  CHECK(h.data<int64_t>(zp)[0] == 0);
  // [0, 0.001] in [0, 255]: 0.001 / 255 is below 6.1e-5, so the scale is float(6.1e-5); zero point 0.
  auto small = h.tensor<float>(ScalarType::kFloat, {2}, {0, 0.001f});
  REQUIRE(h.call(Q + "choose_qparams.Tensor_out", {small, h.integer(0), h.integer(255), h.real(1e-7),
                                                   dtype(h, ScalarType::kByte), scale, zp, ret})
              .ok());
  CHECK(h.data<double>(scale)[0] == double(6.1e-5f));
  CHECK(h.data<int64_t>(zp)[0] == 0);
  auto nan = h.tensor<float>(ScalarType::kFloat, {2}, {0, std::nanf("")});
  CHECK(failure(h, Q + "choose_qparams.Tensor_out", {nan, h.integer(0), h.integer(255), h.real(1e-7),
                                                     dtype(h, ScalarType::kByte), scale, zp, ret}) ==
        Q + "choose_qparams.Tensor_out: input has a non-finite value (nan)");
  CHECK(failure(h, Q + "choose_qparams.Tensor_out", {x, h.integer(5), h.integer(5), h.real(1e-7),
                                                     dtype(h, ScalarType::kByte), scale, zp, ret}) ==
        Q + "choose_qparams.Tensor_out: quant_min 5 must be less than quant_max 5 (both int32)");
  // Per token over [2, 2] = [[-1, 2], [0, 0]] with [-128, 127]: token 0 as above (3 / 255, -43);
  // token 1: scale 0.1 and, the max end's error 127 beating 128, zero point 127.
  auto t = h.tensor<float>(ScalarType::kFloat, {2, 2}, {-1, 2, 0, 0});
  auto ts = h.out(ScalarType::kDouble, {2, 1});
  auto tz = h.out(ScalarType::kLong, {2, 1});
  REQUIRE(h.call(Q + "choose_qparams_per_token_asymmetric.out",
                 {t, dtype(h, ScalarType::kChar), ts, tz, h.tensor_list({ts, tz})})
              .ok());
  CHECK(h.sizes(ts) == std::vector<int32_t>{2, 1});
  CHECK(h.data<double>(ts)[0] == Approx(3.0 / 255.0).epsilon(1e-15));
  CHECK(h.data<double>(ts)[1] == 0.1);
  CHECK(h.data<int64_t>(tz) == std::vector<int64_t>{-43, 127});
  auto fs = h.out(ScalarType::kFloat, {2, 1});
  CHECK(failure(h, Q + "choose_qparams_per_token_asymmetric.out",
                {t, dtype(h, ScalarType::kChar), fs, tz, h.tensor_list({fs, tz})}) ==
        Q + "choose_qparams_per_token_asymmetric.out: scale_out must be DOUBLE, not FLOAT");
}

TEST_CASE("quantize then dequantize round-trips within half a step", "[quantized]") {
  KernelHarness h;
  // Any x inside the representable range comes back within scale / 2 (here 0.05).
  std::vector<float> xs;
  for (int i = -20; i <= 20; ++i) xs.push_back(float(i) * 0.173f);
  auto x = h.tensor<float>(ScalarType::kFloat, {41}, xs);
  auto q = h.out(ScalarType::kChar, {41});
  REQUIRE(h.call(Q + "quantize_per_tensor.out",
                 {x, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127), dtype(h, ScalarType::kChar), q, q})
              .ok());
  auto back = h.out(ScalarType::kFloat, {41});
  REQUIRE(h.call(Q + "dequantize_per_tensor.out", {q, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127),
                                                   dtype(h, ScalarType::kChar), h.none(), back, back})
              .ok());
  for (size_t i = 0; i < xs.size(); ++i) CHECK(std::fabs(h.data<float>(back)[i] - xs[i]) <= 0.0500001f);
}

TEST_CASE("embedding_byte: per-row and per-group dequantized lookups", "[quantized]") {
  KernelHarness h;
  // weight int8 [3, 4]; rows [0, 1, 2, 3], [-4, -3, -2, -1], [10, 20, 30, 40].
  auto w = h.tensor<int8_t>(ScalarType::kChar, {3, 4}, {0, 1, 2, 3, -4, -3, -2, -1, 10, 20, 30, 40});
  // Two groups of two columns: scales [[1, 0.5], [2, 2], [0.25, 0.5]], zero points [[0, 1], [0, 0], [10, 20]].
  auto scales = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0.5f, 2, 2, 0.25f, 0.5f});
  auto zps = h.tensor<float>(ScalarType::kFloat, {3, 2}, {0, 1, 0, 0, 10, 20});
  auto idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 1});
  auto out = h.out(ScalarType::kFloat, {2, 4});
  // Row 2: (10-10)*0.25, (20-10)*0.25, (30-20)*0.5, (40-20)*0.5 = 0, 2.5, 5, 10; row 1: 2 * q = -8, -6, -4, -2.
  REQUIRE(h.call(Q + "embedding_byte.out", {w, scales, zps, h.integer(-128), h.integer(127), idx, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 2.5f, 5, 10, -8, -6, -4, -2});
  // One scale per row, no zero points, indices [[0]] -> [1, 1, 4]; the dtype overload names FLOAT.
  auto row_scales = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 0.5f});
  auto idx2 = h.tensor<int64_t>(ScalarType::kLong, {1, 1}, {0});
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 4});
  REQUIRE(h.call(Q + "embedding_byte.dtype_out",
                 {w, row_scales, h.none(), h.integer(-128), h.integer(127), idx2, dtype(h, ScalarType::kFloat), o2, o2})
              .ok());
  CHECK(h.data<float>(o2) == std::vector<float>{0, 1, 2, 3});
  auto far = h.tensor<int64_t>(ScalarType::kLong, {1}, {3});
  auto o3 = h.out(ScalarType::kFloat, {1, 4});
  CHECK(failure(h, Q + "embedding_byte.out", {w, row_scales, h.none(), h.integer(-128), h.integer(127), far, o3, o3}) ==
        Q + "embedding_byte.out: index 3 is out of range for 3 rows");
  auto dscales = h.tensor<double>(ScalarType::kDouble, {3}, {1, 2, 0.5});
  CHECK(failure(h, Q + "embedding_byte.out", {w, dscales, h.none(), h.integer(-128), h.integer(127), idx, out, out}) ==
        Q + "embedding_byte.out: weight_scales must have out's dtype FLOAT");
}

TEST_CASE("embedding_4bit and embedding_2bit: packed values, per-row and per-group parameters", "[quantized]") {
  KernelHarness h;
  // 4-bit, weight BYTE [2, 2] -> embedding dim 4; even columns in the high nibble, minus 8:
  //   row 0: 0x9F, 0x07 -> 9-8, 15-8, 0-8, 7-8 = 1, 7, -8, -1
  //   row 1: 0x80, 0x8C -> 0, -8, 0, 4
  auto w4 = h.tensor<uint8_t>(ScalarType::kByte, {2, 2}, {0x9F, 0x07, 0x80, 0x8C});
  auto s4 = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 2.0f});
  auto idx4 = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 0});  // INT indices are accepted here
  auto o4 = h.out(ScalarType::kFloat, {2, 4});
  REQUIRE(h.call(Q + "embedding_4bit.out", {w4, s4, h.none(), h.integer(-8), h.integer(7), idx4, o4, o4}).ok());
  // row 1 * 2 = 0, -16, 0, 8; row 0 * 0.5 = 0.5, 3.5, -4, -0.5
  CHECK(h.data<float>(o4) == std::vector<float>{0, -16, 0, 8, 0.5f, 3.5f, -4, -0.5f});

  // 2-bit, weight BYTE [1, 1] -> dim 4; 0xE4 = 0b11'10'01'00, column j at bits 2j, minus 2: -2, -1, 0, 1.
  // Two groups: scales [[1, 3]], zero points [[1, 0]] -> (-2-1)*1, (-1-1)*1, (0-0)*3, (1-0)*3 = -3, -2, 0, 3.
  auto w2 = h.tensor<uint8_t>(ScalarType::kByte, {1, 1}, {0xE4});
  auto s2 = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 3});
  auto z2 = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 0});
  auto idx2 = h.tensor<int64_t>(ScalarType::kLong, {1}, {0});
  auto o2 = h.out(ScalarType::kFloat, {1, 4});
  REQUIRE(h.call(Q + "embedding_2bit.dtype_out",
                 {w2, s2, z2, h.integer(-2), h.integer(1), idx2, dtype(h, ScalarType::kFloat), o2, o2})
              .ok());
  CHECK(h.data<float>(o2) == std::vector<float>{-3, -2, 0, 3});

  // Packed weights are BYTE only; indices stay in range.
  auto w_char = h.tensor<int8_t>(ScalarType::kChar, {1, 1}, {0});
  CHECK(failure(h, Q + "embedding_2bit.out", {w_char, s2, h.none(), h.integer(-2), h.integer(1), idx2, o2, o2}) ==
        Q + "embedding_2bit.out: weight must be BYTE, not CHAR");
  auto far = h.tensor<int64_t>(ScalarType::kLong, {1}, {2});
  CHECK(failure(h, Q + "embedding_4bit.out", {w4, s4, h.none(), h.integer(-8), h.integer(7), far, o2, o2}) ==
        Q + "embedding_4bit.out: index 2 is out of range for 2 rows");
}
