// Arithmetic kernels that no other test called: aten::sub.out,
// aten::add.Scalar_out, aten::mul.Scalar_out, aten::div.out and
// aten::div.Scalar_mode_out. Expected values are worked out by hand.
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

TEST_CASE("sub.out: self - alpha * other with broadcasting and promotion", "[kernels][coverage][sub]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {3}, {5, 7, 9});
  auto b = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::sub.out", {a, b, h.integer(1), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{4, 5, 6});
  // int32 [[10, 20], [30, 40]] - 2 * [1, 2], the row broadcast over both rows.
  auto m = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {10, 20, 30, 40});
  auto row = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto mo = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::sub.out", {m, row, h.integer(2), mo, mo}).ok());
  CHECK(h.data<int32_t>(mo) == std::vector<int32_t>{8, 16, 28, 36});
  // int32 - float32 computes in float32: [1, 2] - 0.5 * [1, 0.5].
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {1, 0.5f});
  auto fo = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sub.out", {i, f, h.real(0.5), fo, fo}).ok());
  CHECK(h.data<float>(fo) == std::vector<float>{0.5f, 1.75f});
  // A 0-dim other broadcasts to every element.
  auto s = h.tensor<double>(ScalarType::kDouble, {}, {0.25});
  auto d = h.tensor<double>(ScalarType::kDouble, {2}, {1, 2});
  auto dout = h.out(ScalarType::kDouble, {2});
  REQUIRE(h.call("aten::sub.out", {d, s, h.integer(1), dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{0.75, 1.75});

  const std::string op = "aten::sub.out";
  auto bools = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto bout = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, op, {bools, bools, h.integer(1), bout, bout}) == op + ": subtraction of bool tensors is not supported");
  auto io = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, op, {i, i, h.real(0.5), io, io}) == op + ": alpha must be an integer for integral inputs");
  CHECK(failure(h, op, {i, f, h.integer(1), io, io}) == op + ": result type FLOAT cannot be stored in out of type INT");
  CHECK(failure(h, op, {a, i, h.integer(1), out, out}) == op + ": shapes [3] and [2] cannot be broadcast");
}

TEST_CASE("add.Scalar_out: self + alpha * other for a Scalar other", "[kernels][coverage][add]") {
  KernelHarness h;
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto fo = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::add.Scalar_out", {f, h.real(1.5), h.integer(2), fo, fo}).ok());
  CHECK(h.data<float>(fo) == std::vector<float>{4, 5, 6});
  // An Int scalar keeps int32; alpha 3 multiplies it: [1, 2] + 6.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto io = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::add.Scalar_out", {i, h.integer(2), h.integer(3), io, io}).ok());
  CHECK(h.data<int32_t>(io) == std::vector<int32_t>{7, 8});
  // A Double scalar lifts an integer tensor to float32.
  auto fo2 = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::add.Scalar_out", {i, h.real(0.5), h.integer(1), fo2, fo2}).ok());
  CHECK(h.data<float>(fo2) == std::vector<float>{1.5f, 2.5f});
  // Bool tensor + Bool scalar stays bool (logical or).
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {false, true});
  auto bo = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::add.Scalar_out", {b, h.boolean(true), h.integer(1), bo, bo}).ok());
  CHECK(h.data<bool>(bo) == std::vector<bool>{true, true});
  const std::string op = "aten::add.Scalar_out";
  CHECK(failure(h, op, {i, h.real(0.5), h.integer(1), io, io}) ==
        op + ": result type FLOAT cannot be stored in out of type INT");
  CHECK(failure(h, op, {i, h.integer(1), h.real(0.5), io, io}) == op + ": alpha must be an integer for integral inputs");
  CHECK(failure(h, op, {i, f, h.integer(1), io, io}) == op + ": other must be a scalar, not Tensor");
}

TEST_CASE("mul.Scalar_out: every element times a Scalar", "[kernels][coverage][mul]") {
  KernelHarness h;
  auto l = h.tensor<int64_t>(ScalarType::kLong, {3}, {1, -2, 3});
  auto lo = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::mul.Scalar_out", {l, h.integer(2), lo, lo}).ok());
  CHECK(h.data<int64_t>(lo) == std::vector<int64_t>{2, -4, 6});
  auto f = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto fo = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mul.Scalar_out", {f, h.real(0.5), fo, fo}).ok());
  CHECK(h.data<float>(fo) == std::vector<float>{0.5f, 1, 1.5f, 2});
  // A bool tensor times an Int scalar computes in int64: [1, 0] * 3.
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto bo = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::mul.Scalar_out", {b, h.integer(3), bo, bo}).ok());
  CHECK(h.data<int64_t>(bo) == std::vector<int64_t>{3, 0});
  // Channels-last storage is read and written element for element.
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 10, 2, 20}, {0, 2, 3, 1});
  auto co = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  REQUIRE(h.call("aten::mul.Scalar_out", {cl, h.integer(-1), co, co}).ok());
  CHECK(h.data<float>(co) == std::vector<float>{-1, -2, -10, -20});  // contiguous out: channel 0, then channel 1
  const std::string op = "aten::mul.Scalar_out";
  auto fl = h.out(ScalarType::kLong, {3});
  CHECK(failure(h, op, {l, h.real(0.5), fl, fl}) == op + ": result type FLOAT cannot be stored in out of type LONG");
}

TEST_CASE("div.out: true division, integers give float", "[kernels][coverage][div]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2}, {1, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {2, 4});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::div.out", {a, b, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0.5f, 0.75f});
  // int32 / int32 is true division in float32, with no truncation, and
  // a zero divisor gives +-inf instead of an error.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {7, -7, 1});
  auto j = h.tensor<int32_t>(ScalarType::kInt, {3}, {2, 2, 0});
  auto io = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::div.out", {i, j, io, io}).ok());
  const auto q = h.data<float>(io);
  CHECK(q[0] == 3.5f);
  CHECK(q[1] == -3.5f);
  CHECK(q[2] == std::numeric_limits<float>::infinity());
  // [[2, 4], [6, 8]] / [2, 4] by rows.
  auto m = h.tensor<double>(ScalarType::kDouble, {2, 2}, {2, 4, 6, 8});
  auto r = h.tensor<double>(ScalarType::kDouble, {2}, {2, 4});
  auto mo = h.out(ScalarType::kDouble, {2, 2});
  REQUIRE(h.call("aten::div.out", {m, r, mo, mo}).ok());
  CHECK(h.data<double>(mo) == std::vector<double>{1, 1, 3, 2});
  const std::string op = "aten::div.out";
  auto bad = h.out(ScalarType::kInt, {3});
  CHECK(failure(h, op, {i, j, bad, bad}) == op + ": result type FLOAT cannot be stored in out of type INT");
  CHECK(failure(h, op, {a, i, out, out}) == op + ": shapes [2] and [3] cannot be broadcast");
}

TEST_CASE("div.Scalar_mode_out: trunc, floor and true division by a Scalar", "[kernels][coverage][div]") {
  KernelHarness h;
  auto i = h.tensor<int64_t>(ScalarType::kLong, {2}, {7, -7});
  auto trunc = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {i, h.integer(2), h.string("trunc"), trunc, trunc}).ok());
  CHECK(h.data<int64_t>(trunc) == std::vector<int64_t>{3, -3});
  auto floor = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {i, h.integer(2), h.string("floor"), floor, floor}).ok());
  CHECK(h.data<int64_t>(floor) == std::vector<int64_t>{3, -4});
  // No rounding: true division in float32.
  auto none = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {i, h.integer(2), h.none(), none, none}).ok());
  CHECK(h.data<float>(none) == std::vector<float>{3.5f, -3.5f});
  // Floats round after dividing: -7.5 / 2 = -3.75 -> floor -4, trunc -3.
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {7.5f, -7.5f});
  auto ff = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {f, h.integer(2), h.string("floor"), ff, ff}).ok());
  CHECK(h.data<float>(ff) == std::vector<float>{3, -4});
  auto ft = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::div.Scalar_mode_out", {f, h.real(2.0), h.string("trunc"), ft, ft}).ok());
  CHECK(h.data<float>(ft) == std::vector<float>{3, -3});
  const std::string op = "aten::div.Scalar_mode_out";
  CHECK(failure(h, op, {i, h.integer(0), h.string("trunc"), trunc, trunc}) == op + ": integer division by zero");
  CHECK(failure(h, op, {i, h.integer(2), h.string("round"), trunc, trunc}) ==
        op + ": rounding_mode must be None, 'trunc' or 'floor'");
  CHECK(failure(h, op, {i, h.integer(2), h.none(), trunc, trunc}) ==
        op + ": result type FLOAT cannot be stored in out of type LONG");
}
