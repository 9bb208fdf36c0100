// Tensors from scalars and padding: full, full_like, zeros/ones(_like),
// fill, empty, scalar_tensor, arange, masked_fill, constant_pad_nd.
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

}  // namespace

TEST_CASE("full converts the fill value to out's dtype", "[kernels][shape][full]") {
  KernelHarness h;
  auto f = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::full.out", {h.int_list({2, 2}), h.real(1.5), f, f}).ok());
  CHECK(h.data<float>(f) == std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f});
  auto half = h.out(ScalarType::kHalf, {3});
  REQUIRE(h.call("aten::full.out", {h.int_list({3}), h.real(1.5), half, half}).ok());
  CHECK(h.data<uint16_t>(half) == std::vector<uint16_t>{0x3E00, 0x3E00, 0x3E00});
  auto b = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::full.out", {h.int_list({2}), h.integer(2), b, b}).ok());
  CHECK(h.data<bool>(b) == std::vector<bool>{true, true});
  auto i8 = h.out(ScalarType::kChar, {2});
  REQUIRE(h.call("aten::full.out", {h.int_list({2}), h.integer(-128), i8, i8}).ok());
  CHECK(h.data<int8_t>(i8) == std::vector<int8_t>{-128, -128});
  auto i32 = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::full.out", {h.int_list({2}), h.real(-3.0), i32, i32}).ok());
  CHECK(h.data<int32_t>(i32) == std::vector<int32_t>{-3, -3});
  auto l = h.out(ScalarType::kLong, {1});
  REQUIRE(h.call("aten::full.out", {h.int_list({1}), h.boolean(true), l, l}).ok());
  CHECK(h.data<int64_t>(l) == std::vector<int64_t>{1});
  // -inf is a valid float fill (attention masks).
  auto inf = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::full.out", {h.int_list({1}), h.real(-std::numeric_limits<double>::infinity()), inf, inf}).ok());
  CHECK(h.data<float>(inf) == std::vector<float>{-std::numeric_limits<float>::infinity()});
  // Resized down within a dynamic bound; channels-last out.
  auto dyn = h.out(ScalarType::kInt, {4}, true);
  REQUIRE(h.call("aten::full.out", {h.int_list({2}), h.integer(9), dyn, dyn}).ok());
  CHECK(h.data<int32_t>(dyn) == std::vector<int32_t>{9, 9});
  auto cl = h.out(ScalarType::kFloat, {1, 2, 1, 1}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::full.out", {h.int_list({1, 2, 1, 1}), h.integer(4), cl, cl}).ok());
  CHECK(h.data<float>(cl) == std::vector<float>{4, 4});
  auto empty = h.out(ScalarType::kFloat, {0, 2});
  REQUIRE(h.call("aten::full.out", {h.int_list({0, 2}), h.integer(4), empty, empty}).ok());

  const std::string op = "aten::full.out";
  CHECK(failure(h, op, {h.int_list({2}), h.integer(128), i8, i8}) ==
        "aten::full.out: fill_value 128 cannot be converted to CHAR without overflow");
  auto u8 = h.out(ScalarType::kByte, {2});
  CHECK(failure(h, op, {h.int_list({2}), h.integer(-1), u8, u8}) ==
        "aten::full.out: fill_value -1 cannot be converted to BYTE without overflow");
  CHECK(failure(h, op, {h.int_list({2}), h.real(0.5), i32, i32}) ==
        "aten::full.out: fill_value 0.5 has a fractional part and cannot be stored in INT");
  CHECK(failure(h, op, {h.int_list({2}), h.real(3e9), i32, i32}) ==
        "aten::full.out: fill_value 3e+09 cannot be converted to INT without overflow");
  CHECK(failure(h, op, {h.int_list({3}), h.integer(70000), half, half}) ==
        "aten::full.out: fill_value 70000 cannot be converted to HALF without overflow");
  CHECK(failure(h, op, {h.int_list({2, 2}), h.real(1e39), f, f}) ==
        "aten::full.out: fill_value 1e+39 cannot be converted to FLOAT without overflow");
  CHECK(failure(h, op, {h.int_list({2, 2}), h.none(), f, f}) == "aten::full.out: fill_value must be a scalar, not None");
  CHECK(failure(h, op, {h.int_list({3}), h.real(1), f, f}) == "aten::full.out: out: cannot resize a rank-2 tensor to rank 1");
}

TEST_CASE("full_like, zeros, ones, fill, empty", "[kernels][shape][full]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto fl = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::full_like.out", {x, h.integer(7), h.none(), fl, fl}).ok());
  CHECK(h.data<float>(fl) == std::vector<float>(6, 7.0f));
  CHECK(failure(h, "aten::full_like.out", {x, h.integer(7), h.integer(2), fl, fl}) ==
        "aten::full_like.out: memory_format 2 is not supported (only contiguous or preserve)");

  auto z = h.tensor<int64_t>(ScalarType::kLong, {3}, {5, 5, 5});
  REQUIRE(h.call("aten::zeros.out", {h.int_list({3}), z, z}).ok());
  CHECK(h.data<int64_t>(z) == std::vector<int64_t>{0, 0, 0});
  auto o = h.out(ScalarType::kBFloat16, {2});
  REQUIRE(h.call("aten::ones.out", {h.int_list({2}), o, o}).ok());
  CHECK(h.data<uint16_t>(o) == std::vector<uint16_t>{0x3F80, 0x3F80});
  auto zl = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::ones_like.out", {x, h.none(), zl, zl}).ok());
  CHECK(h.data<int32_t>(zl) == std::vector<int32_t>(6, 1));
  REQUIRE(h.call("aten::zeros_like.out", {x, h.integer(0), zl, zl}).ok());
  CHECK(h.data<int32_t>(zl) == std::vector<int32_t>(6, 0));

  auto filled = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::fill.Scalar_out", {x, h.integer(-2), filled, filled}).ok());
  CHECK(h.data<int32_t>(filled) == std::vector<int32_t>(6, -2));
  // fill.Tensor: a 0-dim double converted to int32.
  auto v = h.tensor<double>(ScalarType::kDouble, {}, {3.0});
  REQUIRE(h.call("aten::fill.Tensor_out", {x, v, filled, filled}).ok());
  CHECK(h.data<int32_t>(filled) == std::vector<int32_t>(6, 3));
  auto v1 = h.tensor<double>(ScalarType::kDouble, {1}, {3.0});
  CHECK(failure(h, "aten::fill.Tensor_out", {x, v1, filled, filled}) ==
        "aten::fill.Tensor_out: value must be a 0-dim tensor, got [1]");
  auto other = h.out(ScalarType::kFloat, {2, 3});
  CHECK(failure(h, "aten::fill.Scalar_out", {x, h.integer(1), other, other}) ==
        "aten::fill.Scalar_out: out has dtype FLOAT, expected INT");

  auto e = h.out(ScalarType::kFloat, {4}, true);
  REQUIRE(h.call("aten::empty.out", {h.int_list({3}), h.none(), e, e}).ok());
  CHECK(h.sizes(e) == std::vector<int32_t>{3});
}

TEST_CASE("scalar_tensor and arange", "[kernels][shape][arange]") {
  KernelHarness h;
  auto s = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::scalar_tensor.out", {h.real(2.5), s, s}).ok());
  CHECK(h.data<float>(s) == std::vector<float>{2.5f});
  auto sl = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::scalar_tensor.out", {h.integer(7), sl, sl}).ok());
  CHECK(h.data<int64_t>(sl) == std::vector<int64_t>{7});
  auto one = h.out(ScalarType::kFloat, {1});
  CHECK(failure(h, "aten::scalar_tensor.out", {h.real(2.5), one, one}) ==
        "aten::scalar_tensor.out: out: cannot resize a rank-1 tensor to rank 0");

  auto a = h.out(ScalarType::kLong, {8}, true);
  REQUIRE(h.call("aten::arange.out", {h.integer(5), a, a}).ok());
  CHECK(h.data<int64_t>(a) == std::vector<int64_t>{0, 1, 2, 3, 4});
  const std::string op = "aten::arange.start_out";
  auto f = h.out(ScalarType::kFloat, {8}, true);
  REQUIRE(h.call(op, {h.integer(1), h.integer(2), h.real(0.25), f, f}).ok());
  CHECK(h.data<float>(f) == std::vector<float>{1, 1.25f, 1.5f, 1.75f});
  auto dbl = h.out(ScalarType::kDouble, {8}, true);
  REQUIRE(h.call(op, {h.real(-1), h.integer(0), h.real(0.25), dbl, dbl}).ok());
  CHECK(h.data<double>(dbl) == std::vector<double>{-1, -0.75, -0.5, -0.25});
  auto bytes = h.out(ScalarType::kByte, {8}, true);
  REQUIRE(h.call(op, {h.integer(250), h.integer(256), h.integer(2), bytes, bytes}).ok());
  CHECK(h.data<uint8_t>(bytes) == std::vector<uint8_t>{250, 252, 254});
  auto down = h.out(ScalarType::kInt, {8}, true);
  REQUIRE(h.call(op, {h.integer(5), h.integer(0), h.integer(-2), down, down}).ok());
  CHECK(h.data<int32_t>(down) == std::vector<int32_t>{5, 3, 1});
  // An integer out truncates start and step: 4 = ceil(5 / 1.5) values, step 1.
  auto trunc = h.out(ScalarType::kLong, {8}, true);
  REQUIRE(h.call(op, {h.integer(0), h.integer(5), h.real(1.5), trunc, trunc}).ok());
  CHECK(h.data<int64_t>(trunc) == std::vector<int64_t>{0, 1, 2, 3});
  auto none = h.out(ScalarType::kFloat, {8}, true);
  REQUIRE(h.call(op, {h.integer(3), h.integer(3), h.integer(1), none, none}).ok());
  CHECK(h.sizes(none) == std::vector<int32_t>{0});

  CHECK(failure(h, op, {h.integer(0), h.integer(5), h.integer(0), f, f}) == "aten::arange.start_out: step must be nonzero");
  CHECK(failure(h, op, {h.integer(0), h.integer(5), h.integer(-1), f, f}) ==
        "aten::arange.start_out: the range from start to end goes against the sign of step");
  CHECK(failure(h, op, {h.integer(0), h.integer(20), h.integer(1), f, f}) ==
        "aten::arange.start_out: out: resize to 20 elements exceeds the upper bound of 8");
  CHECK(failure(h, op, {h.none(), h.integer(20), h.integer(1), f, f}) ==
        "aten::arange.start_out: start must be a scalar, not None");
}

TEST_CASE("masked_fill broadcasts self and mask", "[kernels][shape][masked_fill]") {
  KernelHarness h;
  const std::string op = "aten::masked_fill.Scalar_out";
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto first_col = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call(op, {x, first_col, h.integer(9), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{9, 2, 9, 4});
  // self [2] against mask [2, 1] -> [2, 2]: [[1, 2], [-inf, -inf]].
  auto row = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto second_row = h.tensor<bool>(ScalarType::kBool, {2, 1}, {false, true});
  auto grid = h.out(ScalarType::kFloat, {2, 2});
  const double inf = std::numeric_limits<double>::infinity();
  REQUIRE(h.call(op, {row, second_row, h.real(-inf), grid, grid}).ok());
  const float finf = std::numeric_limits<float>::infinity();
  CHECK(h.data<float>(grid) == std::vector<float>{1, 2, -finf, -finf});

  auto int_mask = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 0});
  CHECK(failure(h, op, {x, int_mask, h.integer(9), out, out}) == "aten::masked_fill.Scalar_out: mask must be a bool tensor, not INT");
  auto three = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  CHECK(failure(h, op, {x, three, h.integer(9), out, out}) ==
        "aten::masked_fill.Scalar_out: shapes [2, 2] and [3] cannot be broadcast");
}

TEST_CASE("constant_pad_nd pads and crops from the last dim", "[kernels][shape][constant_pad_nd]") {
  KernelHarness h;
  const std::string op = "aten::constant_pad_nd.out";
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  // One column on the left of the last dim: [[0,1,2],[0,3,4]].
  auto left = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call(op, {x, h.int_list({1, 0}), h.integer(0), left, left}).ok());
  CHECK(h.data<int32_t>(left) == std::vector<int32_t>{0, 1, 2, 0, 3, 4});
  // A row above and below, filled with 9.
  auto rows = h.out(ScalarType::kInt, {4, 2});
  REQUIRE(h.call(op, {x, h.int_list({0, 0, 1, 1}), h.integer(9), rows, rows}).ok());
  CHECK(h.data<int32_t>(rows) == std::vector<int32_t>{9, 9, 1, 2, 3, 4, 9, 9});
  // Crop the first column, pad one on the right: [[2,0],[4,0]].
  auto crop = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call(op, {x, h.int_list({-1, 1}), h.integer(0), crop, crop}).ok());
  CHECK(h.data<int32_t>(crop) == std::vector<int32_t>{2, 0, 4, 0});
  // Crop everything in dim 1, then pad 1: only the fill value remains.
  auto gone = h.out(ScalarType::kInt, {2, 1});
  REQUIRE(h.call(op, {x, h.int_list({-3, 2}), h.integer(5), gone, gone}).ok());
  CHECK(h.data<int32_t>(gone) == std::vector<int32_t>{5, 5});
  // A channels-last [1,2,1,1] padded in W by one on the right with 0.5:
  // logical c0 = [1, .5], c1 = [2, .5]; memory (w0: c0, c1), (w1: c0, c1).
  auto cl_in = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 1}, {1, 2}, {0, 2, 3, 1});
  auto cl_out = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call(op, {cl_in, h.int_list({0, 1}), h.real(0.5), cl_out, cl_out}).ok());
  CHECK(h.data<float>(cl_out) == std::vector<float>{1, 2, 0.5f, 0.5f});

  CHECK(failure(h, op, {x, h.int_list({1}), h.integer(0), left, left}) == "aten::constant_pad_nd.out: pad [1] must have an even length");
  CHECK(failure(h, op, {x, h.int_list({1, 1, 1, 1, 1, 1}), h.integer(0), left, left}) ==
        "aten::constant_pad_nd.out: pad [1, 1, 1, 1, 1, 1] pads 3 dims of a tensor of rank 2");
  CHECK(failure(h, op, {x, h.int_list({-3, 0}), h.integer(0), left, left}) ==
        "aten::constant_pad_nd.out: pad [-3, 0] makes dimension 1 of size 2 negative (-1)");
  CHECK(failure(h, op, {x, h.int_list({1, 0}), h.real(0.5), left, left}) ==
        "aten::constant_pad_nd.out: value 0.5 has a fractional part and cannot be stored in INT");
}
