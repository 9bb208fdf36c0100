// _pdist_forward, _cdist_forward, max_pool2d_with_indices_backward and
// _conj_physical, with values worked by hand (3-4-5 triangles).
#include <cmath>
#include <complex>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

}  // namespace

TEST_CASE("_pdist_forward: p = 0, 1, 2, 3, inf", "[gaps][distance]") {
  KernelHarness h;
  // Rows (0, 0), (3, 4), (6, 8): differences (3, 4), (6, 8), (3, 4) for the pairs 01, 02, 12.
  auto x = h.tensor<double>(ScalarType::kDouble, {3, 2}, {0, 0, 3, 4, 6, 8});
  auto out = h.out(ScalarType::kDouble, {3});
  auto run = [&](double p) {
    REQUIRE(h.call("aten::_pdist_forward.out", {x, h.real(p), out, out}).ok());
    return h.data<double>(out);
  };
  CHECK(run(2) == std::vector<double>{5, 10, 5});
  CHECK(run(1) == std::vector<double>{7, 14, 7});
  CHECK(run(INFINITY) == std::vector<double>{4, 8, 4});
  CHECK(run(0) == std::vector<double>{2, 2, 2});
  // p = 3: (27 + 64)^(1/3) = 91^(1/3) = 4.497941445275415, and twice that for the pair 02.
  const auto p3 = run(3);
  CHECK(p3[0] == Approx(4.497941445275415).epsilon(1e-14));
  CHECK(p3[1] == Approx(2 * 4.497941445275415).epsilon(1e-14));
  // One row has no pairs; p < 0 and integer inputs are refused.
  auto one = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 2});
  auto e = h.out(ScalarType::kFloat, {0}, true);
  REQUIRE(h.call("aten::_pdist_forward.out", {one, h.real(2), e, e}).ok());
  CHECK(h.sizes(e) == std::vector<int32_t>{0});
  CHECK(failure(h, "aten::_pdist_forward.out", {x, h.real(-1), out, out}) ==
        "aten::_pdist_forward.out: p must be non-negative, got -1.000000");
}

TEST_CASE("_cdist_forward: broadcast batch dims", "[gaps][distance]") {
  KernelHarness h;
  // x1 [1, 2, 2] = rows (0, 0), (1, 1); x2 [2, 1, 2] = batches {(3, 4)} and {(1, 0)}:
  // batch 0: 5 and sqrt(2^2 + 3^2) = sqrt 13 = 3.605551275463989; batch 1: 1 and 1.
  auto x1 = h.tensor<float>(ScalarType::kFloat, {1, 2, 2}, {0, 0, 1, 1});
  auto x2 = h.tensor<float>(ScalarType::kFloat, {2, 1, 2}, {3, 4, 1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 2, 1});
  REQUIRE(h.call("aten::_cdist_forward.out", {x1, x2, h.real(2), h.none(), out, out}).ok());
  CHECK(h.data<float>(out)[0] == 5.0f);
  CHECK(h.data<float>(out)[1] == Approx(3.605551275463989).epsilon(1e-6));
  CHECK(h.data<float>(out)[2] == 1.0f);
  CHECK(h.data<float>(out)[3] == 1.0f);
  // p = 1 without batch dims: |0-3| + |0-4| = 7, |1-3| + |1-4| = 5.
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0, 0, 1, 1});
  auto b = h.tensor<float>(ScalarType::kFloat, {1, 2}, {3, 4});
  auto o2 = h.out(ScalarType::kFloat, {2, 1});
  REQUIRE(h.call("aten::_cdist_forward.out", {a, b, h.real(1), h.integer(0), o2, o2}).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{7, 5});
  auto c = h.tensor<float>(ScalarType::kFloat, {1, 3}, {1, 2, 3});
  CHECK(failure(h, "aten::_cdist_forward.out", {a, c, h.real(2), h.none(), o2, o2}) ==
        "aten::_cdist_forward.out: x1 [2, 2] and x2 [1, 3] differ in their last dim");
}

TEST_CASE("max_pool2d_with_indices_backward routes gradients to the indices", "[gaps][pool]") {
  KernelHarness h;
  // self [1, 1, 1, 3], kernel [1, 2], stride [1, 1]: two windows both picking x = 1 (indices [1, 1]);
  // gradients 2 and 3 add up there: grad_input [0, 5, 0].
  auto self = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {0, 9, 0});
  auto grad = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 2}, {2, 3});
  auto idx = h.tensor<int64_t>(ScalarType::kLong, {1, 1, 1, 2}, {1, 1});
  auto gin = h.out(ScalarType::kFloat, {1, 1, 1, 3});
  auto call = [&](size_t g, size_t i) {
    return h.call("aten::max_pool2d_with_indices_backward.grad_input",
                  {g, self, h.int_list({1, 2}), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}),
                   h.boolean(false), i, gin, gin});
  };
  REQUIRE(call(grad, idx).ok());
  CHECK(h.data<float>(gin) == std::vector<float>{0, 5, 0});
  // Indices [0, 2]: each gradient lands on its own position.
  auto idx2 = h.tensor<int64_t>(ScalarType::kLong, {1, 1, 1, 2}, {0, 2});
  REQUIRE(call(grad, idx2).ok());
  CHECK(h.data<float>(gin) == std::vector<float>{2, 0, 3});
  auto bad = h.tensor<int64_t>(ScalarType::kLong, {1, 1, 1, 2}, {0, 3});
  CHECK(failure(h, "aten::max_pool2d_with_indices_backward.grad_input",
                {grad, self, h.int_list({1, 2}), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}),
                 h.boolean(false), bad, gin, gin}) ==
        "aten::max_pool2d_with_indices_backward.grad_input: index 3 is outside the 1x3 input plane");
  auto wrong = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {1, 1, 1});
  CHECK(failure(h, "aten::max_pool2d_with_indices_backward.grad_input",
                {wrong, self, h.int_list({1, 2}), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}),
                 h.boolean(false), idx, gin, gin}) ==
        "aten::max_pool2d_with_indices_backward.grad_input: grad_output [1, 1, 1, 3] does not match the pooled shape "
        "[1, 1, 1, 2]");
}

TEST_CASE("view_as_real_copy and _conj_physical on complex tensors", "[gaps][copy]") {
  KernelHarness h;
  // complex64 [2] = (1 + 2i), (3 - 4i): as real [2, 2] = 1, 2, 3, -4; conjugate (1 - 2i), (3 + 4i).
  auto z = h.tensor<std::complex<float>>(ScalarType::kComplexFloat, {2}, {{1, 2}, {3, -4}});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::view_as_real_copy.out", {z, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 3, -4});
  auto dout = h.out(ScalarType::kDouble, {2, 2});
  REQUIRE(h.call("aten::view_as_real_copy.out", {z, dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{1, 2, 3, -4});
  auto conj = h.out(ScalarType::kComplexFloat, {2});
  REQUIRE(h.call("aten::_conj_physical.out", {z, conj, conj}).ok());
  CHECK(h.data<std::complex<float>>(conj) == std::vector<std::complex<float>>{{1, -2}, {3, 4}});
  // complex128 [1, 1] = (-0.5 + 0.25i) -> its conjugate (-0.5 - 0.25i).
  auto w = h.tensor<std::complex<double>>(ScalarType::kComplexDouble, {1, 1}, {{-0.5, 0.25}});
  auto wc = h.out(ScalarType::kComplexDouble, {1, 1});
  REQUIRE(h.call("aten::_conj_physical.out", {w, wc, wc}).ok());
  CHECK(h.data<std::complex<double>>(wc)[0] == std::complex<double>(-0.5, -0.25));
  auto real = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto ro = h.out(ScalarType::kFloat, {1, 2});
  CHECK(failure(h, "aten::view_as_real_copy.out", {real, ro, ro}) ==
        "aten::view_as_real_copy.out: self must be complex, not FLOAT");
}

TEST_CASE("et_copy host/device copies are plain copies on the host", "[gaps][copy]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {3}, {7, -8, 9});
  auto out = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("et_copy::_h2d_copy.out", {x, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{7, -8, 9});
  auto back = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("et_copy::_d2h_copy.out", {out, back, back}).ok());
  CHECK(h.data<int32_t>(back) == std::vector<int32_t>{7, -8, 9});
}

TEST_CASE("_conj_physical of a real tensor is a copy", "[gaps][copy]") {
  KernelHarness h;
  auto x = h.tensor<double>(ScalarType::kDouble, {2}, {-1.5, 2});
  auto out = h.out(ScalarType::kDouble, {2});
  REQUIRE(h.call("aten::_conj_physical.out", {x, out, out}).ok());
  CHECK(h.data<double>(out) == std::vector<double>{-1.5, 2});
  auto f = h.out(ScalarType::kFloat, {2});
  CHECK(failure(h, "aten::_conj_physical.out", {x, f, f}) ==
        "aten::_conj_physical.out: out has dtype FLOAT, expected DOUBLE");
}

TEST_CASE("grid_sampler_2d: bilinear, nearest, bicubic with each padding mode", "[gaps][grid_sampler]") {
  KernelHarness h;
  // input [[1, 2], [3, 4]]; with align_corners, -1 and 1 are the pixel centers 0 and 1.
  auto in = h.tensor<double>(ScalarType::kDouble, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto grid_of = [&](std::vector<double> xy) {
    return h.tensor<double>(ScalarType::kDouble, {1, 1, int32_t(xy.size() / 2), 2}, xy);
  };
  auto run = [&](size_t grid, int64_t interp, int64_t pad, bool align) {
    const int32_t n = h.tensor_at(grid).size(2);
    auto out = h.out(ScalarType::kDouble, {1, 1, 1, n});
    REQUIRE(h.call("aten::grid_sampler_2d.out",
                   {in, grid, h.integer(interp), h.integer(pad), h.boolean(align), out, out})
                .ok());
    return h.data<double>(out);
  };
  // Bilinear, align_corners: corners 1 and 4, the center (0.5, 0.5) averages to 2.5, (0.5, 0) gives 1.5.
  CHECK(run(grid_of({-1, -1, 1, 1, 0, 0, 0, -1}), 0, 0, true) == std::vector<double>{1, 4, 2.5, 1.5});
  // Without align_corners the pixel position is x + 0.5: (-1, -1) is (-0.5, -0.5), a quarter of pixel
  // (0, 0) with zeros padding, pixel (0, 0) itself with border or reflection padding.
  auto corner = grid_of({-1, -1});
  CHECK(run(corner, 0, 0, false) == std::vector<double>{0.25});
  CHECK(run(corner, 0, 1, false) == std::vector<double>{1});
  CHECK(run(corner, 0, 2, false) == std::vector<double>{1});
  // x = 1.25, y = 0 is (1.75, 0.5): zeros -> 2 * 0.25 * 0.5 + 4 * 0.25 * 0.5 = 0.75; border clamps x to 1
  // -> (2 + 4) / 2 = 3; reflection mirrors 1.75 about the edge 1.5 to 1.25, then clamps to 1 -> 3.
  auto right = grid_of({1.25, 0});
  CHECK(run(right, 0, 0, false) == std::vector<double>{0.75});
  CHECK(run(right, 0, 1, false) == std::vector<double>{3});
  CHECK(run(right, 0, 2, false) == std::vector<double>{3});
  // Nearest, align_corners: (0.2, -1) -> (0.6, 0) -> pixel (0, 1) = 2; (0, 0) -> (0.5, 0.5) rounds half to
  // even -> pixel (0, 0) = 1.
  CHECK(run(grid_of({0.2, -1, 0, 0}), 1, 0, true) == std::vector<double>{2, 1});
  // Bicubic reproduces pixels exactly (weights 0, 1, 0, 0 at t = 0). At the center (t = 0.5) the weights
  // are -0.09375, 0.59375, 0.59375, -0.09375: border -> rows 1.5 and 3.5 -> 2.5; zeros -> rows
  // 1.78125 and 4.15625 -> 5.9375 * 0.59375 = 3.525390625.
  CHECK(run(grid_of({-1, -1, 1, 1}), 2, 0, true) == std::vector<double>{1, 4});
  CHECK(run(grid_of({0, 0}), 2, 1, true) == std::vector<double>{2.5});
  CHECK(run(grid_of({0, 0}), 2, 0, true) == std::vector<double>{3.525390625});
  // A NaN position reads nothing (zeros padding gives 0).
  CHECK(run(grid_of({std::nan(""), 0}), 0, 0, true) == std::vector<double>{0});
  auto out = h.out(ScalarType::kDouble, {1, 1, 1, 1});
  CHECK(failure(h, "aten::grid_sampler_2d.out", {in, corner, h.integer(3), h.integer(0), h.boolean(true), out, out}) ==
        "aten::grid_sampler_2d.out: interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got 3");
}

TEST_CASE("_upsample_bilinear2d_aa: triangle filter widened when downsampling", "[gaps][upsample]") {
  KernelHarness h;
  // [1, 2, 3, 4] to width 2: scale 2, so the filter spans 2 pixels each side of the centers 1 and 3:
  // taps 0..2 with weights (0.75, 0.75, 0.25) / 1.75 -> (3 + 6 + 3) / 7 = 12/7; taps 1..3 with
  // (0.25, 0.75, 0.75) / 1.75 -> (2 + 9 + 12) / 7 = 23/7.
  auto x = h.tensor<double>(ScalarType::kDouble, {1, 1, 1, 4}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kDouble, {1, 1, 1, 2});
  REQUIRE(h.call("aten::_upsample_bilinear2d_aa.out",
                 {x, h.int_list({1, 2}), h.boolean(false), h.none(), h.none(), out, out})
              .ok());
  CHECK(h.data<double>(out)[0] == Approx(12.0 / 7.0).epsilon(1e-15));
  CHECK(h.data<double>(out)[1] == Approx(23.0 / 7.0).epsilon(1e-15));
  // Upsampling [0, 4] to width 4 (scale 0.5, no widening): centers 0.25, 0.75, 1.25, 1.75 give
  // 0, 0.75 * 0 + 0.25 * 4 = 1, 0.25 * 0 + 0.75 * 4 = 3, 4 (the edge taps renormalized).
  auto y = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 2}, {0, 4});
  auto yo = h.out(ScalarType::kFloat, {1, 1, 1, 4});
  REQUIRE(h.call("aten::_upsample_bilinear2d_aa.out",
                 {y, h.int_list({1, 4}), h.boolean(false), h.none(), h.none(), yo, yo})
              .ok());
  CHECK(h.data<float>(yo) == std::vector<float>{0, 1, 3, 4});
  CHECK(failure(h, "aten::_upsample_bilinear2d_aa.out",
                {y, h.int_list({0, 4}), h.boolean(false), h.none(), h.none(), yo, yo}) ==
        "aten::_upsample_bilinear2d_aa.out: output_size must be two positive sizes, got [0, 4]");
}

TEST_CASE("convolution_backward.out: input, weight and bias gradients", "[gaps][conv_backward]") {
  KernelHarness h;
  // input [[1, 2], [3, 4]], weight [[1, 0], [0, -1]], one output (stride 1, no padding) with gradient 2:
  // grad_input = 2 * weight = [2, 0, 0, -2]; grad_weight = 2 * input = [2, 4, 6, 8]; grad_bias = [2].
  auto in = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto w = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 0, 0, -1});
  auto g = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1}, {2});
  auto gi = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto gw = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto gb = h.out(ScalarType::kFloat, {1});
  auto call = [&](size_t grad, size_t input, size_t weight, int64_t groups, std::vector<bool> mask, size_t o0,
                  size_t o1, size_t o2) {
    return h.call("aten::convolution_backward.out",
                  {grad, input, weight, h.int_list({h.tensor_at(weight).size(0)}), h.int_list({1, 1}),
                   h.int_list({0, 0}), h.int_list({1, 1}), h.boolean(false), h.int_list({0, 0}), h.integer(groups),
                   h.bool_list(mask), o0, o1, o2, h.tensor_list({o0, o1, o2})});
  };
  REQUIRE(call(g, in, w, 1, {true, true, true}, gi, gw, gb).ok());
  CHECK(h.data<float>(gi) == std::vector<float>{2, 0, 0, -2});
  CHECK(h.data<float>(gw) == std::vector<float>{2, 4, 6, 8});
  CHECK(h.data<float>(gb) == std::vector<float>{2});
  // Two groups of one channel, 1x1 kernels: input [5, 7], weight [2, 3], gradients [1, 10]:
  // grad_input = [2, 30], grad_weight = [5, 70], grad_bias = [1, 10]; the weight gradient is skipped
  // when output_mask says so (its out keeps its contents).
  auto in2 = h.tensor<double>(ScalarType::kDouble, {1, 2, 1, 1}, {5, 7});
  auto w2 = h.tensor<double>(ScalarType::kDouble, {2, 1, 1, 1}, {2, 3});
  auto g2 = h.tensor<double>(ScalarType::kDouble, {1, 2, 1, 1}, {1, 10});
  auto gi2 = h.out(ScalarType::kDouble, {1, 2, 1, 1});
  auto gw2 = h.tensor<double>(ScalarType::kDouble, {2, 1, 1, 1}, {-9, -9});
  auto gb2 = h.out(ScalarType::kDouble, {2});
  REQUIRE(call(g2, in2, w2, 2, {true, false, true}, gi2, gw2, gb2).ok());
  CHECK(h.data<double>(gi2) == std::vector<double>{2, 30});
  CHECK(h.data<double>(gw2) == std::vector<double>{-9, -9});
  CHECK(h.data<double>(gb2) == std::vector<double>{1, 10});
  REQUIRE(call(g2, in2, w2, 2, {false, true, false}, gi2, gw2, gb2).ok());
  CHECK(h.data<double>(gw2) == std::vector<double>{5, 70});
  // grad_output of the wrong shape is refused.
  auto bad = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1});
  CHECK(failure(h, "aten::convolution_backward.out",
                {bad, in, w, h.none(), h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.boolean(false),
                 h.int_list({0, 0}), h.integer(1), h.bool_list({true, true, true}), gi, gw, gb,
                 h.tensor_list({gi, gw, gb})}) ==
        "aten::convolution_backward.out: grad_output [1, 1, 2, 2] does not match the convolution's output [1, 1, 1, 1]");
}

TEST_CASE("rand.out and randn.out: shapes, ranges and moments", "[gaps][random]") {
  KernelHarness h;
  // 20000 uniform draws lie in [0, 1) with mean 1/2 (standard error 0.002; 0.02 is 10 errors away).
  auto u = h.out(ScalarType::kFloat, {200, 100});
  REQUIRE(h.call("aten::rand.out", {h.int_list({200, 100}), u, u}).ok());
  double sum = 0;
  for (float v : h.data<float>(u)) {
    REQUIRE(v >= 0.0f);
    REQUIRE(v < 1.0f);
    sum += v;
  }
  CHECK(std::fabs(sum / 20000 - 0.5) < 0.02);
  // 20000 normal draws: mean 0 (standard error 0.007) and variance 1 (standard error 0.01).
  auto n = h.out(ScalarType::kDouble, {20000});
  REQUIRE(h.call("aten::randn.out", {h.int_list({20000}), n, n}).ok());
  double s1 = 0, s2 = 0;
  for (double v : h.data<double>(n)) {
    REQUIRE(std::isfinite(v));
    s1 += v;
    s2 += v * v;
  }
  const double mean = s1 / 20000, var = s2 / 20000 - mean * mean;
  CHECK(std::fabs(mean) < 0.07);
  CHECK(std::fabs(var - 1) < 0.1);
  // A dynamic out takes the requested shape; integer outs are refused.
  auto d = h.out(ScalarType::kHalf, {8}, true);
  REQUIRE(h.call("aten::rand.out", {h.int_list({5}), d, d}).ok());
  CHECK(h.sizes(d) == std::vector<int32_t>{5});
  for (uint16_t bits : h.data<uint16_t>(d)) CHECK(bits < 0x3C00);  // half 1.0 is 0x3C00; all draws are below
  auto i = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::randn.out", {h.int_list({2}), i, i}) == "aten::randn.out: out must be floating point, not INT");
}
