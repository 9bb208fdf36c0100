// More kernels closing the gaps to the official portable list: logit,
// floor_divide, rsub, copy_, _empty_dim_order, native_dropout, reflection
// and replication pads, pixel_shuffle / pixel_unshuffle, tril, nonzero,
// masked_select, repeat_interleave. Expected values worked out by hand.
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

const float kNaNf = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE("logit.out with and without eps", "[gaps][logit]") {
  KernelHarness h;
  // logit(0.5) = 0, logit(0.75) = ln 3 = 1.0986122886681098, logit(0) = -inf, logit(1) = +inf.
  auto x = h.tensor<double>(ScalarType::kDouble, {4}, {0.5, 0.75, 0.0, 1.0});
  auto out = h.out(ScalarType::kDouble, {4});
  REQUIRE(h.call("aten::logit.out", {x, h.none(), out, out}).ok());
  CHECK(h.data<double>(out)[0] == 0.0);
  CHECK(h.data<double>(out)[1] == Approx(1.0986122886681098).epsilon(1e-15));
  CHECK(h.data<double>(out)[2] == -std::numeric_limits<double>::infinity());
  CHECK(h.data<double>(out)[3] == std::numeric_limits<double>::infinity());
  // eps 0.25 clamps 0 to 0.25 (logit = -ln 3) and 1 to 0.75 (ln 3).
  REQUIRE(h.call("aten::logit.out", {x, h.real(0.25), out, out}).ok());
  CHECK(h.data<double>(out)[2] == Approx(-1.0986122886681098).epsilon(1e-15));
  CHECK(h.data<double>(out)[3] == Approx(1.0986122886681098).epsilon(1e-15));
  // NaN stays NaN; an integer out is refused.
  auto n = h.tensor<float>(ScalarType::kFloat, {1}, {kNaNf});
  auto no = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::logit.out", {n, h.real(0.1), no, no}).ok());
  CHECK(std::isnan(h.data<float>(no)[0]));
  auto io = h.out(ScalarType::kInt, {1});
  CHECK(failure(h, "aten::logit.out", {n, h.none(), io, io}) == "aten::logit.out: out must be floating point, not INT");
}

TEST_CASE("floor_divide.out: signs, zero divisors, INT_MIN // -1", "[gaps][floor_divide]") {
  KernelHarness h;
  // 7 // 2 = 3, -7 // 2 = -4, 7 // -2 = -4, -7 // -2 = 3, INT32_MIN // -1 wraps to INT32_MIN.
  auto a = h.tensor<int32_t>(ScalarType::kInt, {5}, {7, -7, 7, -7, INT32_MIN});
  auto b = h.tensor<int32_t>(ScalarType::kInt, {5}, {2, 2, -2, -2, -1});
  auto out = h.out(ScalarType::kInt, {5});
  REQUIRE(h.call("aten::floor_divide.out", {a, b, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{3, -4, -4, 3, INT32_MIN});
  auto zero = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  CHECK(failure(h, "aten::floor_divide.out", {a, zero, out, out}) == "aten::floor_divide.out: integer division by zero");
  // Floats: -7.5 // 2 = -4, 7.5 // -2 = -4, 1 // 0 = inf, -0.5 // 3 = -1, 0.5 // 3 = 0, 0 // -1 = -0.
  auto fa = h.tensor<double>(ScalarType::kDouble, {6}, {-7.5, 7.5, 1.0, -0.5, 0.5, 0.0});
  auto fb = h.tensor<double>(ScalarType::kDouble, {6}, {2, -2, 0, 3, 3, -1});
  auto fo = h.out(ScalarType::kDouble, {6});
  REQUIRE(h.call("aten::floor_divide.out", {fa, fb, fo, fo}).ok());
  const auto r = h.data<double>(fo);
  CHECK(r[0] == -4.0);
  CHECK(r[1] == -4.0);
  CHECK(r[2] == std::numeric_limits<double>::infinity());
  CHECK(r[3] == -1.0);
  CHECK(r[4] == 0.0);
  CHECK(r[5] == 0.0);
  CHECK(std::signbit(r[5]));
  // Broadcasting int64 [2, 1] // [3] and promotion int32 // float -> float.
  auto ba = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {10, -10});
  auto bb = h.tensor<int64_t>(ScalarType::kLong, {3}, {3, 4, -3});
  auto bo = h.out(ScalarType::kLong, {2, 3});
  REQUIRE(h.call("aten::floor_divide.out", {ba, bb, bo, bo}).ok());
  CHECK(h.data<int64_t>(bo) == std::vector<int64_t>{3, 2, -4, -4, -3, 3});
  auto bools = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto bout = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, "aten::floor_divide.out", {bools, bools, bout, bout}) ==
        "aten::floor_divide.out: floor_divide of BOOL values is not supported");
}

TEST_CASE("rsub.Scalar_out: other - alpha * self", "[gaps][rsub]") {
  KernelHarness h;
  // 1 - 2 * [0.5, 3] = [0, -5].
  auto x = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 3.0f});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::rsub.Scalar_out", {x, h.integer(1), h.integer(2), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0.0f, -5.0f});
  // int32 wraps: 0 - 1 * INT32_MIN = INT32_MIN; 10 - 1 * 3 = 7.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {INT32_MIN, 3});
  auto io = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::rsub.Scalar_out", {i, h.integer(0), h.integer(1), io, io}).ok());
  CHECK(h.data<int32_t>(io)[0] == INT32_MIN);
  REQUIRE(h.call("aten::rsub.Scalar_out", {i, h.integer(10), h.integer(1), io, io}).ok());
  CHECK(h.data<int32_t>(io)[1] == 7);
  // A float other makes the result FLOAT, which an INT out cannot be.
  CHECK(failure(h, "aten::rsub.Scalar_out", {i, h.real(1.5), h.integer(1), io, io}) ==
        "aten::rsub.Scalar_out: result type FLOAT differs from out dtype INT");
  CHECK(failure(h, "aten::rsub.Scalar_out", {x, h.integer(1), h.boolean(true), out, out}) ==
        "aten::rsub.Scalar_out: alpha must not be a bool");
}

TEST_CASE("copy_ writes self in place, broadcasting and converting src", "[gaps][copy]") {
  KernelHarness h;
  auto self = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0, 0, 0, 0});
  auto src = h.tensor<int32_t>(ScalarType::kInt, {2}, {3, -4});
  REQUIRE(h.call("aten::copy_", {self, src, h.boolean(false), self}).ok());
  CHECK(h.data<float>(self) == std::vector<float>{3, -4, 3, -4});
  auto ret = h.out(ScalarType::kFloat, {2, 2});
  auto one = h.tensor<float>(ScalarType::kFloat, {}, {1.5f});
  REQUIRE(h.call("aten::copy_", {self, one, h.boolean(false), ret}).ok());
  CHECK(h.data<float>(self) == std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f});
  CHECK(h.data<float>(ret) == std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f});
  auto wide = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(failure(h, "aten::copy_", {self, wide, h.boolean(false), self}) ==
        "aten::copy_: src [3] cannot be broadcast to self [2, 2]");
}

TEST_CASE("_empty_dim_order.out resizes out", "[gaps][empty]") {
  KernelHarness h;
  auto out = h.out(ScalarType::kFloat, {4, 4}, true);
  REQUIRE(h.call("dim_order_ops::_empty_dim_order.out", {h.int_list({2, 3}), h.none(), out, out}).ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{2, 3});
  REQUIRE(h.call("dim_order_ops::_empty_dim_order.out", {h.int_list({1, 2}), h.int_list({0, 1}), out, out}).ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 2});
  CHECK(failure(h, "dim_order_ops::_empty_dim_order.out", {h.int_list({2}), h.none(), out, out}) ==
        "dim_order_ops::_empty_dim_order.out: size [2] has 1 dims, out has 2");
  CHECK(failure(h, "dim_order_ops::_empty_dim_order.out", {h.int_list({2, 2}), h.int_list({1, 0}), out, out}) ==
        "dim_order_ops::_empty_dim_order.out: dim_order [1, 0] does not match out's dim order [0, 1]");
}

TEST_CASE("native_dropout.out: eval keeps all, p = 1 drops all", "[gaps][dropout]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, -2, 3});
  auto out = h.out(ScalarType::kFloat, {3});
  auto mask = h.out(ScalarType::kBool, {3});
  auto ret = h.tensor_list({out, mask});
  REQUIRE(h.call("aten::native_dropout.out", {x, h.real(0.5), h.boolean(false), out, mask, ret}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, -2, 3});
  CHECK(h.data<bool>(mask) == std::vector<bool>{true, true, true});
  REQUIRE(h.call("aten::native_dropout.out", {x, h.real(1.0), h.boolean(true), out, mask, ret}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 0, 0});
  CHECK(h.data<bool>(mask) == std::vector<bool>{false, false, false});
  CHECK(failure(h, "aten::native_dropout.out", {x, h.real(0.5), h.none(), out, mask, ret}) ==
        "aten::native_dropout.out: random dropout (train with 0 < p < 1) is not supported");
  CHECK(failure(h, "aten::native_dropout.out", {x, h.real(1.5), h.boolean(false), out, mask, ret}) ==
        "aten::native_dropout.out: p must be in [0, 1], got 1.500000");
}

TEST_CASE("reflection and replication pads", "[gaps][pad]") {
  KernelHarness h;
  // [1, 3] = a b c = 1 2 3, padding (2, 1): reflection 3 2 | 1 2 3 | 2; replication 1 1 | 1 2 3 | 3.
  auto x = h.tensor<int32_t>(ScalarType::kInt, {1, 3}, {1, 2, 3});
  auto out = h.out(ScalarType::kInt, {1, 6});
  REQUIRE(h.call("aten::reflection_pad1d.out", {x, h.int_list({2, 1}), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{3, 2, 1, 2, 3, 2});
  REQUIRE(h.call("aten::replication_pad1d.out", {x, h.int_list({2, 1}), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, 1, 1, 2, 3, 3});
  CHECK(failure(h, "aten::reflection_pad1d.out", {x, h.int_list({3, 0}), out, out}) ==
        "aten::reflection_pad1d.out: padding [3, 0] is too large for dim 1 of size 3 (reflection needs padding < size)");
  // 2d on [1, 1, 2, 2] = [[1, 2], [3, 4]], padding (left 1, right 0, top 0, bottom 1):
  // reflection rows [1, 2], [3, 4], then row 0 again -> [[2, 1, 2], [4, 3, 4], [2, 1, 2]].
  auto m = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto mo = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(h.call("aten::reflection_pad2d.out", {m, h.int_list({1, 0, 0, 1}), mo, mo}).ok());
  CHECK(h.data<float>(mo) == std::vector<float>{2, 1, 2, 4, 3, 4, 2, 1, 2});
  // replication: [[1, 1, 2], [3, 3, 4], [3, 3, 4]].
  REQUIRE(h.call("aten::replication_pad2d.out", {m, h.int_list({1, 0, 0, 1}), mo, mo}).ok());
  CHECK(h.data<float>(mo) == std::vector<float>{1, 1, 2, 3, 3, 4, 3, 3, 4});
  // 3d on [1, 2, 1, 1] (unbatched C, D, H, W = 1, 2, 1, 1), depth padding (1, 1) only:
  // reflection along D = [a, b] -> b a b a; replication -> a a b b.
  auto d = h.tensor<double>(ScalarType::kDouble, {1, 2, 1, 1}, {5, 6});
  auto dout = h.out(ScalarType::kDouble, {1, 4, 1, 1});
  REQUIRE(h.call("aten::reflection_pad3d.out", {d, h.int_list({0, 0, 0, 0, 1, 1}), dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{6, 5, 6, 5});
  REQUIRE(h.call("aten::replication_pad3d.out", {d, h.int_list({0, 0, 0, 0, 1, 1}), dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{5, 5, 6, 6});
  CHECK(failure(h, "aten::replication_pad2d.out", {x, h.int_list({1, 1, 1, 1}), out, out}) ==
        "aten::replication_pad2d.out: self must have 3 or 4 dims, got [1, 3]");
}

TEST_CASE("pixel_shuffle and pixel_unshuffle invert each other", "[gaps][pixel_shuffle]") {
  KernelHarness h;
  // [1, 4, 1, 1] channels 0..3 with r = 2 -> [1, 1, 2, 2]: out[0, i, j] = in[2i + j] = [[0, 1], [2, 3]].
  auto x = h.tensor<int64_t>(ScalarType::kLong, {1, 4, 1, 1}, {0, 1, 2, 3});
  auto out = h.out(ScalarType::kLong, {1, 1, 2, 2});
  REQUIRE(h.call("aten::pixel_shuffle.out", {x, h.integer(2), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{0, 1, 2, 3});
  // [4, 1, 2] (unbatched C, H, W) = channel c holds 10c + w; r = 2 -> [1, 2, 4]:
  // out[0, i, 2w + j] = in[2i + j, 0, w]: row 0: w0 (c0, c1), w1 (c0, c1) = 0, 10, 1, 11;
  // row 1 (c2, c3): 20, 30, 21, 31.
  auto y = h.tensor<int32_t>(ScalarType::kInt, {4, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  auto yo = h.out(ScalarType::kInt, {1, 2, 4});
  REQUIRE(h.call("aten::pixel_shuffle.out", {y, h.integer(2), yo, yo}).ok());
  CHECK(h.data<int32_t>(yo) == std::vector<int32_t>{0, 10, 1, 11, 20, 30, 21, 31});
  // Unshuffle brings it back.
  auto back = h.out(ScalarType::kInt, {4, 1, 2});
  REQUIRE(h.call("aten::pixel_unshuffle.out", {yo, h.integer(2), back, back}).ok());
  CHECK(h.data<int32_t>(back) == std::vector<int32_t>{0, 1, 10, 11, 20, 21, 30, 31});
  CHECK(failure(h, "aten::pixel_shuffle.out", {y, h.integer(3), yo, yo}) ==
        "aten::pixel_shuffle.out: channels 4 are not divisible by upscale_factor^2 = 9");
  CHECK(failure(h, "aten::pixel_unshuffle.out", {y, h.integer(2), back, back}) ==
        "aten::pixel_unshuffle.out: height 1 and width 2 must be divisible by downscale_factor 2");
}

TEST_CASE("tril.out keeps j - i <= diagonal", "[gaps][tril]") {
  KernelHarness h;
  // [3, 3] = 1..9; diagonal 0 -> [[1,0,0],[4,5,0],[7,8,9]]; -1 -> [[0,0,0],[4,0,0],[7,8,0]];
  // 1 -> [[1,2,0],[4,5,6],[7,8,9]].
  auto x = h.tensor<float>(ScalarType::kFloat, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = h.out(ScalarType::kFloat, {3, 3});
  REQUIRE(h.call("aten::tril.out", {x, h.integer(0), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 0, 0, 4, 5, 0, 7, 8, 9});
  REQUIRE(h.call("aten::tril.out", {x, h.integer(-1), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 0, 0, 4, 0, 0, 7, 8, 0});
  REQUIRE(h.call("aten::tril.out", {x, h.integer(1), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 0, 4, 5, 6, 7, 8, 9});
  // Extreme diagonals: INT64_MIN zeroes everything, INT64_MAX keeps everything; batched [2, 1, 2].
  auto b = h.tensor<int32_t>(ScalarType::kInt, {2, 1, 2}, {1, 2, 3, 4});
  auto bo = h.out(ScalarType::kInt, {2, 1, 2});
  REQUIRE(h.call("aten::tril.out", {b, h.integer(INT64_MIN), bo, bo}).ok());
  CHECK(h.data<int32_t>(bo) == std::vector<int32_t>{0, 0, 0, 0});
  REQUIRE(h.call("aten::tril.out", {b, h.integer(INT64_MAX), bo, bo}).ok());
  CHECK(h.data<int32_t>(bo) == std::vector<int32_t>{1, 2, 3, 4});
  REQUIRE(h.call("aten::tril.out", {b, h.integer(0), bo, bo}).ok());
  CHECK(h.data<int32_t>(bo) == std::vector<int32_t>{1, 0, 3, 0});
  auto v = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(failure(h, "aten::tril.out", {v, h.integer(0), out, out}) == "aten::tril.out: self must have at least 2 dims, got [3]");
}

TEST_CASE("nonzero, masked_select, repeat_interleave size out by the data", "[gaps][dynamic]") {
  KernelHarness h;
  // [[0, 1.5], [NaN, -0.0]]: non-zero at (0, 1) and (1, 0) (NaN counts, -0.0 does not).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0, 1.5f, kNaNf, -0.0f});
  auto nz = h.out(ScalarType::kLong, {4, 2}, true);
  REQUIRE(h.call("aten::nonzero.out", {x, nz, nz}).ok());
  CHECK(h.sizes(nz) == std::vector<int32_t>{2, 2});
  CHECK(h.data<int64_t>(nz) == std::vector<int64_t>{0, 1, 1, 0});
  auto none = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 0, 0});
  REQUIRE(h.call("aten::nonzero.out", {none, nz, nz}).ok());
  CHECK(h.sizes(nz) == std::vector<int32_t>{0, 1});
  // masked_select: self [2, 2] = 1..4 with mask [2] = [false, true] broadcast -> [2, 4].
  auto s = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  auto m = h.tensor<bool>(ScalarType::kBool, {2}, {false, true});
  auto so = h.out(ScalarType::kInt, {4}, true);
  REQUIRE(h.call("aten::masked_select.out", {s, m, so, so}).ok());
  CHECK(h.data<int32_t>(so) == std::vector<int32_t>{2, 4});
  CHECK(failure(h, "aten::masked_select.out", {s, s, so, so}) == "aten::masked_select.out: mask must be BOOL, not INT");
  // repeat_interleave([2, 0, 3]) = [0, 0, 2, 2, 2].
  auto r = h.tensor<int64_t>(ScalarType::kLong, {3}, {2, 0, 3});
  auto ro = h.out(ScalarType::kLong, {8}, true);
  REQUIRE(h.call("aten::repeat_interleave.Tensor_out", {r, h.none(), ro, ro}).ok());
  CHECK(h.data<int64_t>(ro) == std::vector<int64_t>{0, 0, 2, 2, 2});
  REQUIRE(h.call("aten::repeat_interleave.Tensor_out", {r, h.integer(5), ro, ro}).ok());
  CHECK(failure(h, "aten::repeat_interleave.Tensor_out", {r, h.integer(4), ro, ro}) ==
        "aten::repeat_interleave.Tensor_out: output_size 4 differs from the repeats' sum 5");
  auto neg = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, -1});
  auto no = h.out(ScalarType::kInt, {4}, true);
  CHECK(failure(h, "aten::repeat_interleave.Tensor_out", {neg, h.none(), no, no}) ==
        "aten::repeat_interleave.Tensor_out: repeats must be non-negative, got -1 at 1");
}
