// mm/bmm/addmm, convolution and pooling: tiny literal tensors, results
// worked out by hand (comments), and the blocked GEMM against a naive loop.
#include <cmath>

#include "examples/demo_models.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("mm, bmm and addmm on hand-sized matrices", "[kernels][linalg]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto b = h.tensor<float>(ScalarType::kFloat, {2, 2}, {5, 6, 7, 8});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mm.out", {a, b, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{19, 22, 43, 50});  // [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]]

  // addmm: beta * self (broadcast row [10, 20]) + alpha * a @ b with alpha 1, beta 2.
  auto self = h.tensor<float>(ScalarType::kFloat, {2}, {10, 20});
  auto o2 = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::addmm.out", {self, a, b, h.integer(2), h.integer(1), o2, o2}).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{39, 62, 63, 90});

  // bmm: [[1,2]]@[[3],[4]] = 11 and [[5,6]]@[[7],[8]] = 83.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 1, 2}, {1, 2, 5, 6});
  auto y = h.tensor<float>(ScalarType::kFloat, {2, 2, 1}, {3, 4, 7, 8});
  auto o3 = h.out(ScalarType::kFloat, {2, 1, 1});
  REQUIRE(h.call("aten::bmm.out", {x, y, o3, o3}).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{11, 83});

  // Integers are exact: [[1,2]] @ [[3],[4]] = [[11]].
  auto ia = h.tensor<int32_t>(ScalarType::kInt, {1, 2}, {1, 2});
  auto ib = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {3, 4});
  auto io = h.out(ScalarType::kInt, {1, 1});
  REQUIRE(h.call("aten::mm.out", {ia, ib, io, io}).ok());
  CHECK(h.data<int32_t>(io) == std::vector<int32_t>{11});

  auto c = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto bad = h.call("aten::mm.out", {c, c, out, out});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "aten::mm.out: cannot multiply [2, 3] by [2, 3]");
}

TEST_CASE("the blocked GEMM matches a naive triple loop", "[kernels][linalg]") {
  // Sizes that are not multiples of the 4x16 tile nor of the 256-deep block.
  const int m = 67, k = 300, n = 41;
  const auto av = etkit::demo::weights(size_t(m * k), 1, 1.0f);
  const auto bv = etkit::demo::weights(size_t(k * n), 2, 1.0f);
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {m, k}, av);
  auto b = h.tensor<float>(ScalarType::kFloat, {k, n}, bv);
  auto out = h.out(ScalarType::kFloat, {m, n});
  REQUIRE(h.call("aten::mm.out", {a, b, out, out}).ok());
  const auto got = h.data<float>(out);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        ref += double(av[size_t(i * k + p)]) * double(bv[size_t(p * n + j)]);
        magnitude += std::fabs(double(av[size_t(i * k + p)]) * double(bv[size_t(p * n + j)]));
      }
      // Float accumulation of 300 terms: error bound relative to the magnitude.
      CHECK(std::fabs(got[size_t(i * n + j)] - ref) <= 1e-5 * magnitude + 1e-6);
    }
  }
}

namespace {
// Calls convolution.out with (stride, padding, dilation, groups) lists.
etkit::Status conv(KernelHarness& h, size_t in, size_t w, size_t bias, std::vector<int64_t> stride,
                   std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, size_t out) {
  return h.call("aten::convolution.out", {in, w, bias, h.int_list(stride), h.int_list(padding), h.int_list(dilation),
                                          h.boolean(false), h.int_list({0, 0}), h.integer(groups), out, out});
}
}  // namespace

TEST_CASE("convolution: bias, stride, padding, dilation, groups, 1-D, batches", "[kernels][linalg][conv]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Kernel [[1,0],[0,1]] sums each 2x2 window's diagonal: 1+5, 2+6, 4+8, 5+9; bias +1.
  auto diag = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 0, 0, 1});
  auto bias = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv(h, x, diag, bias, {1, 1}, {0, 0}, {1, 1}, 1, o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{7, 9, 13, 15});

  // Ones 2x2, stride 2, padding 1: windows at (-1,-1), (-1,1), (1,-1), (1,1)
  // see {1}, {2,3}, {4,7}, {5,6,8,9}.
  auto ones = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv(h, x, ones, h.none(), {2, 2}, {1, 1}, {1, 1}, 1, o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{1, 5, 11, 28});

  // Dilation 2: the corners 1 + 3 + 7 + 9.
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(conv(h, x, ones, h.none(), {1, 1}, {0, 0}, {2, 2}, 1, o3).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{20});

  // Groups 2: channel 0 times 2, channel 1 times 3.
  auto g_in = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto g_w = h.tensor<float>(ScalarType::kFloat, {2, 1, 1, 1}, {2, 3});
  auto o4 = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  REQUIRE(conv(h, g_in, g_w, h.none(), {1, 1}, {0, 0}, {1, 1}, 2, o4).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{2, 4, 6, 8, 15, 18, 21, 24});

  // 1-D: [1,2,3,4] with kernel [1,-1] gives the negated differences.
  auto s = h.tensor<float>(ScalarType::kFloat, {1, 1, 4}, {1, 2, 3, 4});
  auto k1 = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, -1});
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 3});
  REQUIRE(h.call("aten::convolution.out", {s, k1, h.none(), h.int_list({1}), h.int_list({0}), h.int_list({1}),
                                           h.boolean(false), h.int_list({0}), h.integer(1), o5, o5}).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{-1, -1, -1});

  // Batch of two, 1x1 kernel of 2.
  auto batch = h.tensor<float>(ScalarType::kFloat, {2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto two = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1}, {2});
  auto o6 = h.out(ScalarType::kFloat, {2, 1, 2, 2});
  REQUIRE(conv(h, batch, two, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o6).ok());
  CHECK(h.data<float>(o6) == std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16});

  // Channels-last input: logical channels c0 = [1, 2], c1 = [3, 4] stored
  // NHWC as 1, 3, 2, 4; weights (1, 10) give [1 + 30, 2 + 40].
  auto nhwc = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 3, 2, 4}, {0, 2, 3, 1});
  auto w10 = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 1}, {1, 10});
  auto o7 = h.out(ScalarType::kFloat, {1, 1, 1, 2});
  REQUIRE(conv(h, nhwc, w10, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o7).ok());
  CHECK(h.data<float>(o7) == std::vector<float>{31, 42});

  auto bad = conv(h, g_in, g_w, h.none(), {1, 1}, {0, 0}, {1, 1}, 3, o4);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "aten::convolution.out: weight [2, 1, 1, 1] and groups 3 do not fit 2 input channels");
}

TEST_CASE("max_pool2d_with_indices: values, flat indices, ceil_mode, padding", "[kernels][linalg][pool]") {
  KernelHarness h;
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[size_t(i)] = float(i);
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 4, 4}, v);
  auto out = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto idx = h.out(ScalarType::kLong, {1, 1, 2, 2});
  auto pool = [&](size_t in, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p, bool ceil, size_t o,
                  size_t i) {
    return h.call("aten::max_pool2d_with_indices.out", {in, h.int_list(k), h.int_list(s), h.int_list(p), h.int_list({1, 1}),
                                                        h.boolean(ceil), o, i, h.tensor_list({o, i})});
  };
  // 2x2 windows of 0..15: maxima 5, 7, 13, 15 at the same flat positions.
  REQUIRE(pool(x, {2, 2}, {2, 2}, {0, 0}, false, out, idx).ok());
  CHECK(h.data<float>(out) == std::vector<float>{5, 7, 13, 15});
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{5, 7, 13, 15});

  // 3x3 input 0..8, ceil_mode: 2x2 outputs, the last windows clipped: {0,1,3,4}->4, {2,5}->5, {6,7}->7, {8}->8.
  auto x3 = h.tensor<float>(ScalarType::kFloat, {1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto o3 = h.out(ScalarType::kFloat, {1, 2, 2});
  auto i3 = h.out(ScalarType::kLong, {1, 2, 2});
  REQUIRE(pool(x3, {2}, {}, {0}, true, o3, i3).ok());  // stride [] defaults to the kernel
  CHECK(h.data<float>(o3) == std::vector<float>{4, 5, 7, 8});
  CHECK(h.data<int64_t>(i3) == std::vector<int64_t>{4, 5, 7, 8});

  // Padding 1 with a 3x3 kernel on [1,2,3,4]: every window sees all, max 4 at 3.
  auto x2 = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto i2 = h.out(ScalarType::kLong, {1, 1, 2, 2});
  REQUIRE(pool(x2, {3, 3}, {1, 1}, {1, 1}, false, o2, i2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{4, 4, 4, 4});
  CHECK(h.data<int64_t>(i2) == std::vector<int64_t>{3, 3, 3, 3});
}

TEST_CASE("avg_pool2d with count_include_pad and divisor_override, and adaptive average", "[kernels][linalg][pool]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto avg = [&](bool include_pad, size_t divisor, size_t out) {
    return h.call("aten::avg_pool2d.out", {x, h.int_list({2, 2}), h.int_list({2, 2}), h.int_list({1, 1}), h.boolean(false),
                                           h.boolean(include_pad), divisor, out, out});
  };
  // Padding 1, 2x2 windows with stride 2: each window holds one input value.
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg(true, h.none(), o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f});  // divided by the padded 4
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg(false, h.none(), o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{1, 2, 3, 4});
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg(true, h.integer(2), o3).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{0.5f, 1, 1.5f, 2});

  auto o4 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.int_list({1, 1}), o4, o4}).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{2.5f});
}
