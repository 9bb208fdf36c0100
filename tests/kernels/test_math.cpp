// Unary math, activations, softmax, reductions, comparisons and where:
// literal inputs, expectations by hand or from std:: functions in the test.
#include <cmath>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("unary kernels: relu keeps the dtype, floating ones promote integers", "[kernels][math]") {
  KernelHarness h;
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {-1.0f, 0.0f, 2.0f});
  auto o = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::relu.out", {f, o, o}).ok());
  CHECK(h.data<float>(o) == std::vector<float>{0, 0, 2});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {-5, 7});
  auto oi = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::relu.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{0, 7});
  REQUIRE(h.call("aten::neg.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{5, -7});

  auto z = h.tensor<float>(ScalarType::kFloat, {2}, {0.0f, 1.0f});
  auto os = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sigmoid.out", {z, os, os}).ok());
  CHECK(h.data<float>(os)[0] == 0.5f);
  CHECK(h.data<float>(os)[1] == Approx(1.0 / (1.0 + std::exp(-1.0))));
  // exp of an int tensor into a float out.
  auto zeros = h.tensor<int64_t>(ScalarType::kLong, {1}, {0});
  auto oe = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::exp.out", {zeros, oe, oe}).ok());
  CHECK(h.data<float>(oe) == std::vector<float>{1.0f});
  auto bad = h.out(ScalarType::kLong, {1});
  auto s = h.call("aten::exp.out", {zeros, bad, bad});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "aten::exp.out: out must be floating point, not LONG");
}

TEST_CASE("hardtanh, clamp with a missing bound, gelu", "[kernels][math]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {-2.0f, 0.5f, 3.0f});
  auto o = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::hardtanh.out", {x, h.integer(-1), h.integer(1), o, o}).ok());
  CHECK(h.data<float>(o) == std::vector<float>{-1.0f, 0.5f, 1.0f});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 5});
  auto oi = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::clamp.out", {i, h.none(), h.integer(2), oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{1, 2});
  auto og = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::gelu.out", {x, h.string("none"), og, og}).ok());
  CHECK(h.data<float>(og)[2] == Approx(0.5 * 3.0 * (1 + std::erf(3.0 / std::sqrt(2.0)))));
}

TEST_CASE("softmax and log_softmax along a dim", "[kernels][math][softmax]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto o = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(-1), h.boolean(false), o, o}).ok());
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  for (int k = 0; k < 3; ++k) CHECK(h.data<float>(o)[size_t(k)] == Approx(std::exp(double(k + 1)) / sum).epsilon(1e-6));
  auto ol = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::_log_softmax.out", {x, h.integer(0), h.boolean(false), ol, ol}).ok());
  CHECK(h.data<float>(ol)[0] == Approx(1.0 - std::log(sum)).epsilon(1e-6));
  // Along dim 0 of [[1,2],[3,4]]: each column [a, a+2] gives [1/(1+e^2), e^2/(1+e^2)].
  auto m = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto om = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::_softmax.out", {m, h.integer(0), h.boolean(false), om, om}).ok());
  const double lo = 1 / (1 + std::exp(2.0));
  CHECK(h.data<float>(om)[0] == Approx(lo));
  CHECK(h.data<float>(om)[1] == Approx(lo));
  CHECK(h.data<float>(om)[2] == Approx(1 - lo));
}

TEST_CASE("reductions: mean, sum, amax, argmax with dims and keepdim", "[kernels][math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 5});
  auto o = h.out(ScalarType::kFloat, {2, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({1}), h.boolean(true), h.none(), o, o}).ok());
  CHECK(h.data<float>(o) == std::vector<float>{1.5f, 4.0f});
  auto all = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::mean.out", {x, h.none(), h.boolean(false), h.none(), all, all}).ok());
  CHECK(h.data<float>(all) == std::vector<float>{2.75f});  // 11 / 4
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  auto si = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::sum.IntList_out", {i, h.int_list({}), h.boolean(false), h.integer(int64_t(ScalarType::kLong)), si, si}).ok());
  CHECK(h.data<int64_t>(si) == std::vector<int64_t>{10});
  auto mx = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::amax.out", {x, h.int_list({0}), h.boolean(false), mx, mx}).ok());
  CHECK(h.data<float>(mx) == std::vector<float>{3, 5});
  auto v = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 5, 7, 2});
  auto am = h.out(ScalarType::kLong, {2, 1});
  REQUIRE(h.call("aten::argmax.out", {v, h.integer(1), h.boolean(true), am, am}).ok());
  CHECK(h.data<int64_t>(am) == std::vector<int64_t>{1, 0});
  auto flat = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::argmax.out", {v, h.none(), h.boolean(false), flat, flat}).ok());
  CHECK(h.data<int64_t>(flat) == std::vector<int64_t>{2});  // 7 at flat position 2
  auto bad = h.call("aten::mean.out", {x, h.int_list({2}), h.boolean(false), h.none(), o, o});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "aten::mean.out: dim 2 out of range for rank 2");
}

TEST_CASE("comparisons give bools and where picks with broadcasting", "[kernels][math][compare]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 1});
  auto o = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::eq.Scalar_out", {x, h.integer(1), o, o}).ok());
  CHECK(h.data<bool>(o) == std::vector<bool>{true, false, true});
  // int tensor < float scalar compares in float: 1 < 1.5, 2 < 1.5, 1 < 1.5.
  REQUIRE(h.call("aten::lt.Scalar_out", {x, h.real(1.5), o, o}).ok());
  CHECK(h.data<bool>(o) == std::vector<bool>{true, false, true});
  auto col = h.tensor<float>(ScalarType::kFloat, {2, 1}, {1, 3});
  auto row = h.tensor<float>(ScalarType::kFloat, {2}, {2, 2});
  auto ob = h.out(ScalarType::kBool, {2, 2});
  REQUIRE(h.call("aten::gt.Tensor_out", {col, row, ob, ob}).ok());
  CHECK(h.data<bool>(ob) == std::vector<bool>{false, false, true, true});

  auto cond = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto a = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto zero = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  auto ow = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::where.self_out", {cond, a, zero, ow, ow}).ok());
  CHECK(h.data<float>(ow) == std::vector<float>{1, 0});
}
