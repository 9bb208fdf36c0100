// cadence:: quantized_layer_norm, quantized_max_pool2d (NCHW, NHWC) and
// quantized_mul, with values worked by hand from the generic reference's
// definitions (integer sums, float normalisation, quantize with ties to even).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("cadence::quantized_layer_norm per tensor and with tensor parameters", "[cadence]") {
  KernelHarness h;
  // in_scale 0.5, zero point 10. Row [10, 14] dequantizes to [0, 2]: mean 1, variance 1;
  // row [12, 10] to [1, 0]: mean 0.5, variance 0.25 (inv_std 2). Both normalise to [-1, 1]
  // and [1, -1]. Times weight [2.5, 0.5] plus bias [0, 200]:
  // row 0: -2.5 -> -2 (ties to even), 200.5 -> 200; row 1: 2.5 -> 2, 199.5 -> 200; + zero point 3.
  const size_t w = h.tensor<float>(ScalarType::kFloat, {2}, {2.5f, 0.5f});
  const size_t b = h.tensor<float>(ScalarType::kFloat, {2}, {0, 200});
  auto per_tensor = [&](size_t x, double eps, size_t out) {
    return h.call("cadence::quantized_layer_norm.per_tensor_out",
                  {x, h.real(0.5), h.integer(10), h.int_list({2}), w, b, h.real(eps), h.real(1.0), h.integer(3), out,
                   out});
  };
  const size_t xu = h.tensor<uint8_t>(ScalarType::kByte, {2, 2}, {10, 14, 12, 10});
  const size_t ou = h.out(ScalarType::kByte, {2, 2});
  REQUIRE(per_tensor(xu, 0.0, ou));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{1, 203, 5, 203});
  // int8 saturates the 203s.
  const size_t xs = h.tensor<int8_t>(ScalarType::kChar, {2, 2}, {10, 14, 12, 10});
  const size_t os = h.out(ScalarType::kChar, {2, 2});
  REQUIRE(per_tensor(xs, 0.0, os));
  CHECK(h.data<int8_t>(os) == std::vector<int8_t>{1, 127, 5, 127});
  // eps 3: row 0 inv_std 1 / sqrt(4) = 0.5: -1.25 -> -1, 200.25 -> 200;
  // row 1 inv_std 1 / sqrt(3.25) = 0.5547: 0.5 * 0.5547 * 2.5 = 0.69 -> 1, 200 - 0.139 -> 200.
  REQUIRE(per_tensor(xu, 3.0, ou));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{2, 203, 4, 203});

  // The .out overload takes the input parameters as FLOAT and LONG tensors.
  const size_t scale = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  const size_t zp = h.tensor<int64_t>(ScalarType::kLong, {1}, {10});
  REQUIRE(h.call("cadence::quantized_layer_norm.out",
                 {xu, scale, zp, h.int_list({2}), w, b, h.real(0.0), h.real(1.0), h.integer(3), ou, ou}));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{1, 203, 5, 203});

  const size_t w3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_layer_norm.per_tensor_out",
                            {xu, h.real(0.5), h.integer(10), h.int_list({2}), w3, b, h.real(0.0), h.real(1.0),
                             h.integer(3), ou, ou})),
             Catch::Contains("weight must have 2 elements"));
  const size_t zp_int = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_layer_norm.out",
                            {xu, scale, zp_int, h.int_list({2}), w, b, h.real(0.0), h.real(1.0), h.integer(3), ou, ou})),
             Catch::Contains("in_zero_point must be LONG"));
}

namespace {

etkit::Status max_pool(KernelHarness& h, const std::string& name, size_t x, std::vector<int64_t> k,
                       std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil, size_t out) {
  return h.call("cadence::" + name,
                {x, h.int_list(k), h.int_list(s), h.int_list(p), h.int_list(d), h.boolean(ceil), out, out});
}

}  // namespace

TEST_CASE("cadence::quantized_max_pool2d NCHW: padding, ceil mode, dilation", "[cadence]") {
  KernelHarness h;
  // [[1, -5, 3], [4, 5, -6], [-7, 8, 9]]
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 3, 3}, {1, -5, 3, 4, 5, -6, -7, 8, 9});
  const size_t out = h.out(ScalarType::kChar, {1, 1, 3, 3}, true);
  for (const char* name : {"quantized_max_pool2d.out", "quantized_max_pool2d_nchw.out"}) {
    // 2x2 windows, stride 1: max(1, -5, 4, 5) = 5, max(-5, 3, 5, -6) = 5, 8, 9.
    REQUIRE(max_pool(h, name, x, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false, out));
    CHECK(h.sizes(out) == std::vector<int32_t>{1, 1, 2, 2});
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{5, 5, 8, 9});
  }
  // Padding 1, stride 2: windows at rows/cols {-1, 0} and {1, 2}; padding adds nothing:
  // [1], max(-5, 3) = 3, max(4, -7) = 4, max(5, -6, 8, 9) = 9.
  REQUIRE(max_pool(h, "quantized_max_pool2d.out", x, {2, 2}, {2, 2}, {1, 1}, {1, 1}, false, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{1, 3, 4, 9});
  // Ceil mode, no padding, stride 2: a second, partial window per dim: 5, max(3, -6) = 3, max(-7, 8) = 8, 9.
  REQUIRE(max_pool(h, "quantized_max_pool2d.out", x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true, out));
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 1, 2, 2});
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{5, 3, 8, 9});
  // Dilation 2: taps at the corners: max(1, 3, -7, 9) = 9.
  REQUIRE(max_pool(h, "quantized_max_pool2d.out", x, {2, 2}, {1, 1}, {0, 0}, {2, 2}, false, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{9});

  const size_t xu = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 2, 2}, {200, 7, 255, 0});
  const size_t ou = h.out(ScalarType::kByte, {1, 1, 1, 1});
  REQUIRE(max_pool(h, "quantized_max_pool2d.out", xu, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false, ou));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{255});

  CHECK_THAT(etkit::test::error_message(max_pool(h, "quantized_max_pool2d.out", x, {4, 4}, {1, 1}, {0, 0}, {1, 1}, false, out)),
             Catch::Contains("does not fit"));
  CHECK_THAT(etkit::test::error_message(max_pool(h, "quantized_max_pool2d.out", x, {2}, {1, 1}, {0, 0}, {1, 1}, false, out)),
             Catch::Contains("kernel_size must have 2 values"));
  const size_t xf = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1}, {1});
  CHECK_THAT(etkit::test::error_message(max_pool(h, "quantized_max_pool2d.out", xf, {1, 1}, {1, 1}, {0, 0}, {1, 1}, false, out)),
             Catch::Contains("input must be CHAR or BYTE"));
}

TEST_CASE("cadence::quantized_max_pool2d_nhwc pools each channel of [N, H, W, C]", "[cadence]") {
  KernelHarness h;
  // Pixels (c0, c1): (1, -1), (2, -2), (3, -3), (4, -4); one 2x2 window: [4, -1].
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 2}, {1, -1, 2, -2, 3, -3, 4, -4});
  const size_t out = h.out(ScalarType::kChar, {1, 1, 1, 2});
  REQUIRE(max_pool(h, "quantized_max_pool2d_nhwc.out", x, {2, 2}, {1, 1}, {0, 0}, {1, 1}, false, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{4, -1});
  // 1x2 windows along W, stride 1: per row, per channel: row 0 (2, -1), row 1 (4, -3).
  const size_t out2 = h.out(ScalarType::kChar, {1, 2, 1, 2});
  REQUIRE(max_pool(h, "quantized_max_pool2d_nhwc.out", x, {1, 2}, {1, 1}, {0, 0}, {1, 1}, false, out2));
  CHECK(h.data<int8_t>(out2) == std::vector<int8_t>{2, -1, 4, -3});
}

TEST_CASE("cadence::quantized_mul.per_tensor_out: dequantize, multiply in float, quantize", "[cadence]") {
  KernelHarness h;
  auto mul = [&](size_t x, double xs, int64_t xz, size_t y, double ys, int64_t yz, double os, int64_t oz, size_t out) {
    return h.call("cadence::quantized_mul.per_tensor_out", {x, h.real(xs), h.integer(xz), y, h.real(ys), h.integer(yz),
                                                             h.real(os), h.integer(oz), out, out});
  };
  // X (scale 0.5, zp 1): [1, 2.5, 49.5, -50.5]; Y (scale 0.5, zp 2): [1.5, 1, 2.5, 2.5].
  // Products 1.5 -> 2, 2.5 -> 2 (ties to even), 123.75 -> 124, -126.25 -> -126; zero point -5:
  // -3, -3, 119, -131 -> -128.
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {4}, {3, 6, 100, -100});
  const size_t y = h.tensor<int8_t>(ScalarType::kChar, {4}, {5, 4, 7, 7});
  const size_t out = h.out(ScalarType::kChar, {4});
  REQUIRE(mul(x, 0.5, 1, y, 0.5, 2, 1.0, -5, out));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-3, -3, 119, -128});
  // uint8, broadcast [2, 1] x [1, 2]: [[20, 30], [40, 60]] at out scale 2: 10, 15, 20, 30.
  const size_t xu = h.tensor<uint8_t>(ScalarType::kByte, {2, 1}, {10, 20});
  const size_t yu = h.tensor<uint8_t>(ScalarType::kByte, {1, 2}, {2, 3});
  const size_t ou = h.out(ScalarType::kByte, {2, 2});
  REQUIRE(mul(xu, 1.0, 0, yu, 1.0, 0, 2.0, 0, ou));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{10, 15, 20, 30});
  CHECK_THAT(etkit::test::error_message(mul(x, 1.0, 0, yu, 1.0, 0, 1.0, 0, out)), Catch::Contains("must have out's dtype"));
}

namespace {

struct AvgPool {
  std::vector<int64_t> kernel{2, 2}, stride{1, 1}, padding{0, 0};
  bool ceil_mode = false, count_include_pad = true, channel_last = false;
  std::optional<int64_t> divisor_override;
};

etkit::Status avg_pool(KernelHarness& h, size_t x, const AvgPool& a, size_t zero_point, size_t out) {
  return h.call("cadence::avg_pool2d.out",
                {x, h.int_list(a.kernel), h.int_list(a.stride), h.int_list(a.padding), h.boolean(a.ceil_mode),
                 h.boolean(a.count_include_pad), a.divisor_override ? h.integer(*a.divisor_override) : h.none(),
                 zero_point, h.boolean(a.channel_last), out, out});
}

}  // namespace

TEST_CASE("cadence::avg_pool2d.out FLOAT: padding, count_include_pad, divisor_override, ceil mode", "[cadence]") {
  KernelHarness h;
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const size_t out = h.out(ScalarType::kFloat, {1, 1, 3, 3}, true);
  AvgPool a;
  // 2x2 means: (1 + 2 + 4 + 5) / 4 = 3, 4, 6, 7.
  REQUIRE(avg_pool(h, x, a, h.none(), out));
  CHECK(h.data<float>(out) == std::vector<float>{3, 4, 6, 7});
  // Padding 1, stride 2: windows hold 1, 2 + 3, 4 + 7, 5 + 6 + 8 + 9 = 28 of the input.
  a.stride = {2, 2};
  a.padding = {1, 1};
  REQUIRE(avg_pool(h, x, a, h.none(), out));  // divided by 4 (padding counted)
  CHECK(h.data<float>(out) == std::vector<float>{0.25f, 1.25f, 2.75f, 7});
  a.count_include_pad = false;
  REQUIRE(avg_pool(h, x, a, h.none(), out));  // divided by the taps inside: 1, 2, 2, 4
  CHECK(h.data<float>(out) == std::vector<float>{1, 2.5f, 5.5f, 7});
  a.divisor_override = 2;
  REQUIRE(avg_pool(h, x, a, h.none(), out));
  CHECK(h.data<float>(out) == std::vector<float>{0.5f, 2.5f, 5.5f, 14});
  // Ceil mode, stride 2, no padding: the partial windows still divide by kH * kW = 4 when
  // count_include_pad (the reference's rule; PyTorch would divide by 2 and 1 here):
  // (1 + 2 + 4 + 5) / 4 = 3, (3 + 6) / 4 = 2.25, (7 + 8) / 4 = 3.75, 9 / 4 = 2.25.
  AvgPool c;
  c.stride = {2, 2};
  c.ceil_mode = true;
  REQUIRE(avg_pool(h, x, c, h.none(), out));
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 1, 2, 2});
  CHECK(h.data<float>(out) == std::vector<float>{3, 2.25f, 3.75f, 2.25f});
  // An empty stride is the kernel size, empty padding 0: one 2x2 window, mean 3.
  AvgPool e;
  e.stride = {};
  e.padding = {};
  REQUIRE(avg_pool(h, x, e, h.none(), out));
  CHECK(h.data<float>(out) == std::vector<float>{3});

  AvgPool bad = a;
  bad.channel_last = true;
  CHECK_THAT(etkit::test::error_message(avg_pool(h, x, bad, h.none(), out)), Catch::Contains("channel_last"));
  bad = a;
  bad.padding = {2, 2};
  CHECK_THAT(etkit::test::error_message(avg_pool(h, x, bad, h.none(), out)), Catch::Contains("padding must be at most half"));
  bad = a;
  bad.divisor_override = 0;
  CHECK_THAT(etkit::test::error_message(avg_pool(h, x, bad, h.none(), out)), Catch::Contains("divisor_override must not be 0"));
  const size_t xc = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {1, 2, 3, 4});
  CHECK_THAT(etkit::test::error_message(avg_pool(h, xc, AvgPool{}, h.none(), out)), Catch::Contains("input must be FLOAT or BYTE"));
}

TEST_CASE("cadence::avg_pool2d.out BYTE: padding taps count as the zero point, ties to even, saturation",
          "[cadence]") {
  KernelHarness h;
  // Padding 1, stride 2 on 2x2: each window holds one pixel and three taps at zero point 8:
  // (10 + 24) / 4 = 8.5 -> 8, (20 + 24) / 4 = 11, (30 + 24) / 4 = 13.5 -> 14, (41 + 24) / 4 = 16.25 -> 16.
  const size_t x = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 2, 2}, {10, 20, 30, 41});
  const size_t zp = h.tensor<int32_t>(ScalarType::kInt, {1}, {8});
  const size_t out = h.out(ScalarType::kByte, {1, 1, 2, 2}, true);
  AvgPool a;
  a.stride = {2, 2};
  a.padding = {1, 1};
  REQUIRE(avg_pool(h, x, a, zp, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{8, 11, 14, 16});
  a.count_include_pad = false;
  REQUIRE(avg_pool(h, x, a, zp, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{10, 20, 30, 41});
  // divisor_override 1 over a full 2x2 window of 200s: 800 -> 255.
  const size_t big = h.tensor<uint8_t>(ScalarType::kByte, {1, 2, 2}, {200, 200, 200, 200});
  AvgPool s;
  s.divisor_override = 1;
  const size_t out3 = h.out(ScalarType::kByte, {1, 1, 1});
  REQUIRE(avg_pool(h, big, s, h.none(), out3));
  CHECK(h.data<uint8_t>(out3) == std::vector<uint8_t>{255});
}

TEST_CASE("cadence::quantized_embedding_byte.out: per-row and per-group scales and zero points", "[cadence]") {
  KernelHarness h;
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 10, 20, 30, 40});
  const size_t s = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0.5f, 2, 0.25f, 0.5f, 2});
  const size_t zp = h.tensor<int8_t>(ScalarType::kChar, {3, 2}, {0, 0, 1, -1, 10, 0});
  const size_t idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 1});
  const size_t out = h.out(ScalarType::kFloat, {2, 4});
  // Row 2: (10 - 10) * 0.5 = 0, (20 - 10) * 0.5 = 5, 30 * 2 = 60, 80.
  // Row 1: (-1 - 1) * 2 = -4, -6, (-3 + 1) * 0.25 = -0.5, -0.75.
  REQUIRE(h.call("cadence::quantized_embedding_byte.out", {w, s, zp, idx, h.boolean(false), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{0, 5, 60, 80, -4, -6, -0.5f, -0.75f});

  // uint8, per-row scales, no zero points, 2-D indices: out [2, 1, 2].
  const size_t wu = h.tensor<uint8_t>(ScalarType::kByte, {2, 2}, {200, 100, 1, 2});
  const size_t su = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 3});
  const size_t idx2 = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {1, 0});
  const size_t out2 = h.out(ScalarType::kFloat, {2, 1, 2});
  REQUIRE(h.call("cadence::quantized_embedding_byte.out", {wu, su, h.none(), idx2, h.boolean(false), out2, out2}));
  CHECK(h.data<float>(out2) == std::vector<float>{3, 6, 100, 50});

  const size_t bad_idx = h.tensor<int64_t>(ScalarType::kLong, {1}, {3});
  const size_t out1 = h.out(ScalarType::kFloat, {1, 4});
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_embedding_byte.out", {w, s, zp, bad_idx, h.boolean(false), out1, out1})),
             Catch::Contains("indices[0] = 3 is out of range for 3 rows"));
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_embedding_byte.out", {w, s, zp, idx, h.boolean(true), out, out})),
             Catch::Contains("pruned_weights must be false"));
  const size_t s3 = h.tensor<float>(ScalarType::kFloat, {3, 3}, std::vector<float>(9, 1));
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_embedding_byte.out", {w, s3, h.none(), idx, h.boolean(false), out, out})),
             Catch::Contains("3 groups do not divide the embedding dim 4"));
  const size_t zpu = h.tensor<uint8_t>(ScalarType::kByte, {3, 2}, {0, 0, 0, 0, 0, 0});
  CHECK_THAT(etkit::test::error_message(h.call("cadence::quantized_embedding_byte.out", {w, s, zpu, idx, h.boolean(false), out, out})),
             Catch::Contains("weight_zero_points must have weight_scales' shape and weight's dtype"));
}

TEST_CASE("cadence::where_Scalar.out picks float(self) or float(other)", "[cadence]") {
  KernelHarness h;
  const size_t c = h.tensor<uint8_t>(ScalarType::kBool, {2, 2}, {1, 0, 0, 1});
  const size_t out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("cadence::where_Scalar.out", {c, h.real(1.5), h.real(-2.0), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{1.5f, -2, -2, 1.5f});
  // 0.1 is narrowed to float.
  REQUIRE(h.call("cadence::where_Scalar.out", {c, h.real(0.1), h.real(0.0), out, out}));
  CHECK(h.data<float>(out)[0] == 0.1f);
  const size_t ci = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 0, 0, 1});
  CHECK_THAT(etkit::test::error_message(h.call("cadence::where_Scalar.out", {ci, h.real(1.0), h.real(0.0), out, out})),
             Catch::Contains("condition must be BOOL"));
}

namespace {

// Softmax of `x` in double, written independently of the kernel.
std::vector<double> softmax_reference(const std::vector<double>& x) {
  double m = x[0];
  for (double v : x) m = std::max(m, v);
  double sum = 0;
  for (double v : x) sum += std::exp(v - m);
  std::vector<double> p;
  for (double v : x) p.push_back(std::exp(v - m) / sum);
  return p;
}

etkit::Status softmax(KernelHarness& h, size_t x, int64_t dim, int64_t mask_type, size_t pos, double in_scale,
                      int64_t in_zp, double out_scale, int64_t out_zp, size_t out) {
  return h.call("cadence::quantized_softmax.per_tensor_out",
                {x, h.tensor<uint8_t>(ScalarType::kBool, {1}, {0}), h.integer(dim), h.integer(mask_type), pos,
                 h.real(in_scale), h.integer(in_zp), h.real(out_scale), h.integer(out_zp), out, out});
}

}  // namespace

TEST_CASE("cadence::quantized_softmax over the last dim, int8 / int16, both overloads", "[cadence]") {
  KernelHarness h;
  const size_t no_pos = h.tensor<int64_t>(ScalarType::kLong, {0}, {});
  // x = 0.1 * [-10, 0, 10, 20] = [-1, 0, 1, 2]; probabilities * 256 - 128.
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {1, 4}, {-10, 0, 10, 20});
  const size_t out = h.out(ScalarType::kChar, {1, 4});
  REQUIRE(softmax(h, x, -1, 0, no_pos, 0.1, 0, 1.0 / 256, -128, out));
  std::vector<int8_t> expected;
  for (double p : softmax_reference({-1, 0, 1, 2})) expected.push_back(int8_t(std::nearbyint(p * 256) - 128));
  CHECK(expected == std::vector<int8_t>{-120, -106, -67, 37});  // 8.21, 22.31, 60.64, 164.84 before the zero point
  CHECK(h.data<int8_t>(out) == expected);

  // The .out overload: FLOAT scales and LONG zero points as 1-element tensors.
  REQUIRE(h.call("cadence::quantized_softmax.out",
                 {x, h.tensor<uint8_t>(ScalarType::kBool, {1}, {0}), h.integer(1), h.integer(0), no_pos,
                  h.tensor<float>(ScalarType::kFloat, {1}, {0.1f}), h.tensor<int64_t>(ScalarType::kLong, {1}, {0}),
                  h.tensor<float>(ScalarType::kFloat, {1}, {1.0f / 256}),
                  h.tensor<int64_t>(ScalarType::kLong, {1}, {-128}), out, out}));
  CHECK(h.data<int8_t>(out) == expected);

  // int16 with scale 0.001 on [-1000, 0, 1000, 2000] (the same x) and out scale 1e-4.
  const size_t xs = h.tensor<int16_t>(ScalarType::kShort, {4}, {-1000, 0, 1000, 2000});
  const size_t outs = h.out(ScalarType::kShort, {4});
  REQUIRE(softmax(h, xs, 0, 0, no_pos, 0.001, 0, 1e-4, 0, outs));
  std::vector<int16_t> expected16;
  for (double p : softmax_reference({-1, 0, 1, 2})) expected16.push_back(int16_t(std::nearbyint(p * 1e4)));
  CHECK(expected16 == std::vector<int16_t>{321, 871, 2369, 6439});
  CHECK(h.data<int16_t>(outs) == expected16);

  CHECK_THAT(etkit::test::error_message(softmax(h, x, 0, 0, no_pos, 0.1, 0, 1.0 / 256, 0, out)), Catch::Contains("not the last dimension"));
  const size_t xf = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  CHECK_THAT(etkit::test::error_message(softmax(h, xf, 0, 0, no_pos, 0.1, 0, 1.0 / 256, 0, out)),
             Catch::Contains("input must be BYTE, CHAR or SHORT"));
}

TEST_CASE("cadence::quantized_softmax causal mask: row r attends to 0..pos + r", "[cadence]") {
  KernelHarness h;
  // Equal values, out scale 1/128: k attended positions give 128 / k each, masked ones 0.
  // pos 0: row 0 -> [128, 0, 0], row 1 -> [64, 64, 0], row 2 -> 42.67 -> 43 each.
  const size_t x = h.tensor<uint8_t>(ScalarType::kByte, {3, 3}, std::vector<uint8_t>(9, 7));
  const size_t out = h.out(ScalarType::kByte, {3, 3});
  REQUIRE(softmax(h, x, 1, 1, h.tensor<int64_t>(ScalarType::kLong, {1}, {0}), 1.0, 7, 1.0 / 128, 0, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{128, 0, 0, 64, 64, 0, 43, 43, 43});
  // A SHORT pos past the row attends to everything; mask_type 0 ignores pos.
  REQUIRE(softmax(h, x, 1, 1, h.tensor<int16_t>(ScalarType::kShort, {1}, {5}), 1.0, 7, 1.0 / 128, 0, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>(9, 43));
  REQUIRE(softmax(h, x, 1, 0, h.tensor<int64_t>(ScalarType::kLong, {1}, {0}), 1.0, 7, 1.0 / 128, 0, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>(9, 43));
  // A negative pos masks everything: probability 0 everywhere, out zero point 5.
  REQUIRE(softmax(h, x, 1, 1, h.tensor<int64_t>(ScalarType::kLong, {1}, {-1}), 1.0, 7, 1.0 / 128, 5, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>(9, 5));
  CHECK_THAT(etkit::test::error_message(softmax(h, x, 1, 1, h.tensor<int32_t>(ScalarType::kInt, {1}, {0}), 1.0, 7, 1.0 / 128, 0, out)),
             Catch::Contains("pos must be SHORT or LONG"));
}

TEST_CASE("cadence::quantized_mul.out and the _Scalar forms: tensor parameters and a number for Y", "[cadence]") {
  KernelHarness h;
  const size_t xs = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  const size_t xz = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  // quantized_mul.out, as the per-tensor case above: X (scale 0.5, zp 1) [1, 2.5, 49.5, -50.5] times
  // Y (scale 0.5, zp 2) [1.5, 1, 2.5, 2.5]: 1.5 -> 2, 2.5 -> 2, 123.75 -> 124, -126.25 -> -126; zp -5.
  const size_t x = h.tensor<int8_t>(ScalarType::kChar, {4}, {3, 6, 100, -100});
  const size_t y = h.tensor<int8_t>(ScalarType::kChar, {4}, {5, 4, 7, 7});
  const size_t ys = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  const size_t yz = h.tensor<int32_t>(ScalarType::kInt, {1}, {2});
  const size_t out = h.out(ScalarType::kChar, {4});
  REQUIRE(h.call("cadence::quantized_mul.out", {x, xs, xz, y, ys, yz, h.real(1.0), h.integer(-5), out, out}));
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-3, -3, 119, -128});

  // _Scalar: X [1, 2.5, 49.5, -50.5] plus 1.5: 2.5 -> 2, 4 -> 4, 51 -> 51, -49 -> -49, at out
  // scale 1 and zero point 0; times 3 at out scale 2: 1.5 -> 2, 3.75 -> 4, 74.25 -> 74,
  // -75.75 -> -76, plus zero point 10: 12, 14, 84, -66.
  const size_t sum = h.out(ScalarType::kChar, {4});
  REQUIRE(h.call("cadence::quantized_add_Scalar.out", {x, xs, xz, h.real(1.5), h.real(1.0), h.integer(0), sum, sum}));
  CHECK(h.data<int8_t>(sum) == std::vector<int8_t>{2, 4, 51, -49});
  const size_t prod = h.out(ScalarType::kChar, {4});
  REQUIRE(h.call("cadence::quantized_mul_Scalar.out", {x, xs, xz, h.integer(3), h.real(2.0), h.integer(10), prod, prod}));
  CHECK(h.data<int8_t>(prod) == std::vector<int8_t>{12, 14, 84, -66});
  // uint8 saturates at 255: (200 - 0) * 1 + 100 = 300.
  const size_t xu = h.tensor<uint8_t>(ScalarType::kByte, {2}, {200, 3});
  const size_t one = h.tensor<float>(ScalarType::kFloat, {1}, {1.0f});
  const size_t zero = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  const size_t ou = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call("cadence::quantized_add_Scalar.out", {xu, one, zero, h.integer(100), h.real(1.0), h.integer(0), ou, ou}));
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{255, 103});
  // X and out must share a dtype.
  CHECK(etkit::test::error_message(h.call("cadence::quantized_mul_Scalar.out",
                                          {xu, one, zero, h.integer(2), h.real(1.0), h.integer(0), prod, prod})) ==
        "cadence::quantized_mul_Scalar.out: X BYTE must have out's dtype CHAR");
}
