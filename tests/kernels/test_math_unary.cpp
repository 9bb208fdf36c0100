// Element-wise unary math kernels: expectations from std:: functions
// evaluated in the test, or by hand.
#include <cmath>
#include <limits>

#include "runner/kernels/kernel_util.h"
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

TEST_CASE("floating unary ops match the std:: functions on float", "[math][unary]") {
  const std::pair<const char*, double (*)(double)> ops[] = {
      {"exp", [](double x) { return std::exp(x); }},
      {"expm1", [](double x) { return std::expm1(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log1p", [](double x) { return std::log1p(x); }},
      {"log2", [](double x) { return std::log2(x); }},
      {"log10", [](double x) { return std::log10(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
      {"reciprocal", [](double x) { return 1 / x; }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"erf", [](double x) { return std::erf(x); }},
  };
  const std::vector<float> x = {0.25f, 0.5f, 0.75f};
  for (const auto& [name, fn] : ops) {
    INFO(name);
    KernelHarness h;
    auto in = h.tensor<float>(ScalarType::kFloat, {3}, x);
    auto out = h.out(ScalarType::kFloat, {3});
    REQUIRE(h.call("aten::" + std::string(name) + ".out", {in, out, out}).ok());
    for (size_t i = 0; i < x.size(); ++i) CHECK(h.data<float>(out)[i] == Approx(fn(double(x[i]))).epsilon(1e-6));
  }
}

TEST_CASE("floating unary: integer input gives a float out, double computes in double", "[math][unary]") {
  KernelHarness h;
  auto ints = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 1});
  auto f = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::exp.out", {ints, f, f}).ok());
  CHECK(h.data<float>(f) == std::vector<float>{1.0f, std::exp(1.0f)});
  auto d = h.tensor<double>(ScalarType::kDouble, {1}, {2.0});
  auto od = h.out(ScalarType::kDouble, {1});
  REQUIRE(h.call("aten::sqrt.out", {d, od, od}).ok());
  CHECK(h.data<double>(od)[0] == std::sqrt(2.0));
  // A bool input counts as 0/1.
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {false, true});
  auto ob = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sigmoid.out", {b, ob, ob}).ok());
  CHECK(h.data<float>(ob)[0] == 0.5f);
}

TEST_CASE("floating unary: out must be floating point", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto out = h.out(ScalarType::kLong, {1});
  CHECK(failure(h, "aten::log.out", {x, out, out}) == "aten::log.out: out must be floating point, not LONG");
}

TEST_CASE("floating unary on half keeps half (computed in float)", "[math][unary]") {
  KernelHarness h;
  // 0x3c00 is 1.0 in IEEE half.
  auto x = h.tensor<uint16_t>(ScalarType::kHalf, {1}, {0x3c00});
  auto out = h.out(ScalarType::kHalf, {1});
  REQUIRE(h.call("aten::exp.out", {x, out, out}).ok());
  const uint16_t bits = h.data<uint16_t>(out)[0];
  CHECK(bits == etkit::rt::kernels::float_to_half(std::exp(1.0f)));
}

TEST_CASE("relu, neg, abs keep the dtype", "[math][unary]") {
  KernelHarness h;
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {-1.5f, 0.0f, 2.0f});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::relu.out", {f, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0, 0, 2});
  REQUIRE(h.call("aten::abs.out", {f, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{1.5f, 0, 2});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {-5, 7, std::numeric_limits<int32_t>::min()});
  auto oi = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::relu.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{0, 7, 0});
  // INT_MIN has no positive counterpart: it wraps, as in PyTorch.
  REQUIRE(h.call("aten::neg.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{5, -7, std::numeric_limits<int32_t>::min()});
  auto c = h.tensor<int8_t>(ScalarType::kChar, {2}, {-3, -128});
  auto oc = h.out(ScalarType::kChar, {2});
  REQUIRE(h.call("aten::abs.out", {c, oc, oc}).ok());
  CHECK(h.data<int8_t>(oc) == std::vector<int8_t>{3, -128});
  // An int result may widen into a float out, but not narrow into BOOL.
  auto wide = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call("aten::neg.out", {i, wide, wide}).ok());
  CHECK(h.data<double>(wide)[0] == 5.0);
  auto b = h.out(ScalarType::kBool, {3});
  CHECK(failure(h, "aten::abs.out", {i, b, b}) == "aten::abs.out: result type INT cannot be stored in out of type BOOL");
}

TEST_CASE("sign-changing ops reject BOOL", "[math][unary]") {
  KernelHarness h;
  auto b = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto out = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, "aten::neg.out", {b, out, out}) == "aten::neg.out: self dtype BOOL is not supported");
  CHECK(failure(h, "aten::relu.out", {b, out, out}) == "aten::relu.out: self dtype BOOL is not supported");
}

TEST_CASE("floor, ceil, trunc, round (half to even)", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {6}, {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f});
  auto out = h.out(ScalarType::kFloat, {6});
  REQUIRE(h.call("aten::round.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-2, -0.0f, 0, 2, 2, 3});
  REQUIRE(h.call("aten::floor.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-2, -1, 0, 1, 2, 2});
  REQUIRE(h.call("aten::ceil.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-1, -0.0f, 1, 2, 3, 3});
  REQUIRE(h.call("aten::trunc.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-1, -0.0f, 0, 1, 2, 2});
  // Integers are already integral.
  auto i = h.tensor<int64_t>(ScalarType::kLong, {2}, {-3, 9});
  auto oi = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::floor.out", {i, oi, oi}).ok());
  CHECK(h.data<int64_t>(oi) == std::vector<int64_t>{-3, 9});
}

TEST_CASE("sign: -1, 0, 1 and NaN stays NaN", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {-2.5f, 0.0f, 3.0f, NAN});
  auto out = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call("aten::sign.out", {x, out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == -1);
  CHECK(r[1] == 0);
  CHECK(r[2] == 1);
  CHECK(std::isnan(r[3]));
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {-7, 0, 4});
  auto oi = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::sign.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{-1, 0, 1});
}

TEST_CASE("logical_not into any out dtype and NaN counts as true", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {0.0f, 2.0f, NAN});
  auto ob = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::logical_not.out", {x, ob, ob}).ok());
  CHECK(h.data<bool>(ob) == std::vector<bool>{true, false, false});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, -4});
  auto of = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::logical_not.out", {i, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{1, 0});
}

TEST_CASE("bitwise_not on integers and BOOL, not on floats", "[math][unary]") {
  KernelHarness h;
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 5});
  auto oi = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::bitwise_not.out", {i, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{-1, -6});
  auto u = h.tensor<uint8_t>(ScalarType::kByte, {1}, {0x0f});
  auto ou = h.out(ScalarType::kByte, {1});
  REQUIRE(h.call("aten::bitwise_not.out", {u, ou, ou}).ok());
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{0xf0});
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto ob = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::bitwise_not.out", {b, ob, ob}).ok());
  CHECK(h.data<bool>(ob) == std::vector<bool>{false, true});
  auto f = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto of = h.out(ScalarType::kFloat, {1});
  CHECK(failure(h, "aten::bitwise_not.out", {f, of, of}) ==
        "aten::bitwise_not.out: self must be an integer or BOOL tensor, not FLOAT");
}

TEST_CASE("isnan and isinf write BOOL", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<double>(ScalarType::kDouble, {3}, {1.0, NAN, -INFINITY});
  auto out = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::isnan.out", {x, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true, false});
  REQUIRE(h.call("aten::isinf.out", {x, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, false, true});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {1}, {3});
  auto oi = h.out(ScalarType::kBool, {1});
  REQUIRE(h.call("aten::isnan.out", {i, oi, oi}).ok());
  CHECK(h.data<bool>(oi) == std::vector<bool>{false});
  auto of = h.out(ScalarType::kFloat, {3});
  CHECK(failure(h, "aten::isnan.out", {x, of, of}) == "aten::isnan.out: out must be BOOL, not FLOAT");
}

TEST_CASE("unary ops read non-contiguous inputs in logical order", "[math][unary]") {
  KernelHarness h;
  // Logical [[1,-2,3],[-4,5,-6]] stored with dim order (1, 0).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, -4, -2, 5, 3, -6}, {1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::neg.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-1, 2, -3, 4, -5, 6});
  // A channels-last style out is written through its own strides.
  auto t_out = h.out(ScalarType::kFloat, {2, 3}, false, {1, 0});
  auto y = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, -2, 3, -4, 5, -6});
  REQUIRE(h.call("aten::relu.out", {y, t_out, t_out}).ok());
  CHECK(h.data<float>(t_out) == std::vector<float>{1, 0, 0, 5, 3, 0});  // memory holds the transpose
}

TEST_CASE("unary ops resize a dynamic out and accept empty tensors", "[math][unary]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2}, {0, 1});
  auto out = h.out(ScalarType::kFloat, {4}, true);
  REQUIRE(h.call("aten::exp.out", {x, out, out}).ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{2});
  auto empty = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto oe = h.out(ScalarType::kFloat, {0, 3});
  REQUIRE(h.call("aten::sigmoid.out", {empty, oe, oe}).ok());
  CHECK(h.tensor_at(oe).numel() == 0);
  auto fixed = h.out(ScalarType::kFloat, {3});
  CHECK(failure(h, "aten::exp.out", {x, fixed, fixed}) == "aten::exp.out: out: cannot resize a static tensor");
  CHECK(failure(h, "aten::exp.out", {h.integer(1), fixed, fixed}) == "aten::exp.out: self must be a tensor, not Int");
}

TEST_CASE("relu passes NaN and negative zero through as the portable kernel does", "[math][unary]") {
  // op_relu.cpp: (isnan(x) || x >= 0) ? x : 0. So relu(NaN) is NaN, relu(-0.0)
  // is -0.0 (bit for bit), relu(-1) is +0.
  KernelHarness h;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {nan, -0.0f, -1.0f, 2.5f});
  auto out = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call("aten::relu.out", {x, out, out}).ok());
  const auto y = h.data<float>(out);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 0.0f);
  CHECK(std::signbit(y[1]));
  CHECK(y[2] == 0.0f);
  CHECK_FALSE(std::signbit(y[2]));
  CHECK(y[3] == 2.5f);
}
