// pow (three overloads), remainder and fmod: values worked out by hand.
#include <cmath>

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

TEST_CASE("pow.Tensor_Scalar_out on floats and exact integers", "[math][pow]") {
  KernelHarness h;
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {-2, 0.5f, 3});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {f, h.integer(2), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{4, 0.25f, 9});
  auto pos = h.tensor<float>(ScalarType::kFloat, {2}, {4, 9});
  auto op = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {pos, h.real(0.5), op, op}).ok());
  CHECK(h.data<float>(op) == std::vector<float>{2, 3});
  // 3^39 = 4052555153018976267 needs all of int64's bits.
  auto l = h.tensor<int64_t>(ScalarType::kLong, {2}, {3, -2});
  auto ol = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {l, h.integer(39), ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{4052555153018976267, -549755813888});
}

TEST_CASE("pow of an int tensor by a float exponent promotes to float", "[math][pow]") {
  KernelHarness h;
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {4, 2});
  auto of = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::pow.Tensor_Scalar_out", {i, h.real(0.5), of, of}).ok());
  CHECK(h.data<float>(of)[0] == 2.0f);
  CHECK(h.data<float>(of)[1] == Approx(std::sqrt(2.0)));
  auto oi = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::pow.Tensor_Scalar_out", {i, h.real(0.5), oi, oi}) ==
        "aten::pow.Tensor_Scalar_out: result type FLOAT cannot be stored in out of type INT");
  CHECK(failure(h, "aten::pow.Tensor_Scalar_out", {i, h.integer(-1), oi, oi}) ==
        "aten::pow.Tensor_Scalar_out: integers to negative integer powers are not allowed");
}

TEST_CASE("pow.Tensor_Tensor_out broadcasts and negative integer exponents", "[math][pow]") {
  KernelHarness h;
  auto base = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {2, 3});
  auto exps = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 1, 3});
  auto out = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::pow.Tensor_Tensor_out", {base, exps, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, 2, 8, 1, 3, 27});
  // Integer pow with a negative exponent: 1 stays 1, -1 alternates, the rest is 0.
  auto b = h.tensor<int64_t>(ScalarType::kLong, {4}, {1, -1, -1, 2});
  auto e = h.tensor<int64_t>(ScalarType::kLong, {4}, {-3, -3, -2, -1});
  auto ol = h.out(ScalarType::kLong, {4});
  REQUIRE(h.call("aten::pow.Tensor_Tensor_out", {b, e, ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{1, -1, 1, 0});
  auto f = h.tensor<double>(ScalarType::kDouble, {1}, {2.0});
  auto od = h.out(ScalarType::kDouble, {4});
  REQUIRE(h.call("aten::pow.Tensor_Tensor_out", {f, e, od, od}).ok());
  CHECK(h.data<double>(od) == std::vector<double>{0.125, 0.125, 0.25, 0.5});
}

TEST_CASE("pow.Scalar_out raises a scalar to tensor powers", "[math][pow]") {
  KernelHarness h;
  auto e = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 1, 10});
  auto oi = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::pow.Scalar_out", {h.integer(2), e, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{1, 2, 1024});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::pow.Scalar_out", {h.real(0.5), e, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{1, 0.5f, 1.0f / 1024});
}

TEST_CASE("pow of BOOL operands is refused", "[math][pow]") {
  KernelHarness h;
  auto b = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto out = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, "aten::pow.Tensor_Tensor_out", {b, b, out, out}) == "aten::pow.Tensor_Tensor_out: pow of BOOL values is not supported");
}

TEST_CASE("remainder takes the divisor's sign, fmod the dividend's", "[math][pow]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {4}, {-7, 7, -7, 7});
  auto d = h.tensor<int32_t>(ScalarType::kInt, {4}, {3, 3, -3, -3});
  auto out = h.out(ScalarType::kInt, {4});
  REQUIRE(h.call("aten::remainder.Tensor_out", {x, d, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{2, 1, -1, -2});
  REQUIRE(h.call("aten::fmod.Tensor_out", {x, d, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{-1, 1, -1, 1});
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {-7.5f, 7.5f});
  auto of = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::remainder.Scalar_out", {f, h.integer(2), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0.5f, 1.5f});
  REQUIRE(h.call("aten::fmod.Scalar_out", {f, h.integer(2), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{-1.5f, 1.5f});
  // An int tensor with a float divisor promotes: -7 % 2.5 = 0.5, 7 % 2.5 = 2.
  auto promoted = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call("aten::remainder.Scalar_out", {x, h.real(2.5), promoted, promoted}).ok());
  CHECK(h.data<float>(promoted) == std::vector<float>{0.5f, 2, 0.5f, 2});
}

TEST_CASE("remainder by zero: an error for integers, NaN for floats", "[math][pow]") {
  KernelHarness h;
  auto x = h.tensor<int64_t>(ScalarType::kLong, {2}, {5, 6});
  auto out = h.out(ScalarType::kLong, {2});
  CHECK(failure(h, "aten::remainder.Scalar_out", {x, h.integer(0), out, out}) ==
        "aten::remainder.Scalar_out: integer division by zero");
  CHECK(failure(h, "aten::fmod.Tensor_out", {x, h.tensor<int64_t>(ScalarType::kLong, {2}, {1, 0}), out, out}) ==
        "aten::fmod.Tensor_out: integer division by zero");
  auto f = h.tensor<float>(ScalarType::kFloat, {1}, {5});
  auto of = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::fmod.Scalar_out", {f, h.real(0.0), of, of}).ok());
  CHECK(std::isnan(h.data<float>(of)[0]));
  auto b = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto ob = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, "aten::remainder.Tensor_out", {b, b, ob, ob}) ==
        "aten::remainder.Tensor_out: remainder of BOOL values is not supported");
}
