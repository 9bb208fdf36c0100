// Comparisons, logical ops, maximum/minimum and where: broadcasting,
// promotion and the out dtype.
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

TEST_CASE("Scalar comparisons of an int tensor with an Int", "[math][compare]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  auto out = h.out(ScalarType::kBool, {3});
  const std::pair<const char*, std::vector<bool>> cases[] = {
      {"eq", {false, true, false}}, {"ne", {true, false, true}}, {"lt", {true, false, false}},
      {"le", {true, true, false}},  {"gt", {false, false, true}}, {"ge", {false, true, true}},
  };
  for (const auto& [name, want] : cases) {
    INFO(name);
    REQUIRE(h.call("aten::" + std::string(name) + ".Scalar_out", {x, h.integer(2), out, out}).ok());
    CHECK(h.data<bool>(out) == want);
  }
}

TEST_CASE("an int tensor against a float scalar compares in float", "[math][compare]") {
  KernelHarness h;
  auto x = h.tensor<int64_t>(ScalarType::kLong, {3}, {1, 2, 1});
  auto out = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::lt.Scalar_out", {x, h.real(1.5), out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{true, false, true});
  REQUIRE(h.call("aten::eq.Scalar_out", {x, h.real(2.0), out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true, false});
  // A float tensor against a double scalar compares in float, as PyTorch.
  auto f = h.tensor<float>(ScalarType::kFloat, {1}, {0.1f});
  auto o1 = h.out(ScalarType::kBool, {1});
  REQUIRE(h.call("aten::eq.Scalar_out", {f, h.real(0.1), o1, o1}).ok());
  CHECK(h.data<bool>(o1) == std::vector<bool>{true});
}

TEST_CASE("an Int scalar outside the tensor's range compares exactly", "[math][compare]") {
  KernelHarness h;
  auto c = h.tensor<int8_t>(ScalarType::kChar, {2}, {44, -1});
  auto out = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::eq.Scalar_out", {c, h.integer(300), out, out}).ok());  // 300 would wrap to 44 in int8
  CHECK(h.data<bool>(out) == std::vector<bool>{false, false});
  REQUIRE(h.call("aten::lt.Scalar_out", {c, h.integer(300), out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{true, true});
}

TEST_CASE("Tensor comparisons broadcast and promote", "[math][compare]") {
  KernelHarness h;
  auto col = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {1, 3});
  auto row = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, 1.0f, 3.5f});
  auto out = h.out(ScalarType::kBool, {2, 3});
  REQUIRE(h.call("aten::gt.Tensor_out", {col, row, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{true, false, false, true, true, false});
  REQUIRE(h.call("aten::le.Tensor_out", {col, row, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true, true, false, false, true});
  auto bad = h.tensor<float>(ScalarType::kFloat, {2}, {0, 0});
  CHECK(failure(h, "aten::eq.Tensor_out", {row, bad, out, out}) == "aten::eq.Tensor_out: shapes [3] and [2] cannot be broadcast");
}

TEST_CASE("comparison results go into any out dtype", "[math][compare]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, NAN, 3});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::ne.Scalar_out", {x, h.integer(3), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{1, 1, 0});  // NaN != 3
  auto oi = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::eq.Tensor_out", {x, x, oi, oi}).ok());
  CHECK(h.data<int64_t>(oi) == std::vector<int64_t>{1, 0, 1});  // NaN != NaN
}

TEST_CASE("comparisons of half and bool tensors, non-contiguous input", "[math][compare]") {
  KernelHarness h;
  // Half 0x3c00 = 1.0, 0x4000 = 2.0.
  auto half = h.tensor<uint16_t>(ScalarType::kHalf, {2}, {0x3c00, 0x4000});
  auto out = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::ge.Scalar_out", {half, h.real(1.5), out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true});
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  REQUIRE(h.call("aten::eq.Scalar_out", {b, h.boolean(true), out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{true, false});
  // Logical [[1, 2, 3], [4, 5, 6]] stored with dim order (1, 0).
  auto t = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto o6 = h.out(ScalarType::kBool, {2, 3});
  REQUIRE(h.call("aten::gt.Scalar_out", {t, h.integer(2), o6, o6}).ok());
  CHECK(h.data<bool>(o6) == std::vector<bool>{false, false, true, true, true, true});
}

TEST_CASE("logical and/or/xor test operands for non-zero", "[math][compare]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0, 2.5f, NAN, 0});
  auto b = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 7});
  auto out = h.out(ScalarType::kBool, {2, 2});
  REQUIRE(h.call("aten::logical_and.out", {a, b, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true, false, false});
  REQUIRE(h.call("aten::logical_or.out", {a, b, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, true, true, true});
  REQUIRE(h.call("aten::logical_xor.out", {a, b, out, out}).ok());
  CHECK(h.data<bool>(out) == std::vector<bool>{false, false, true, true});
  auto of = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::logical_and.out", {a, a, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0, 1, 1, 0});
  auto c = h.tensor<bool>(ScalarType::kBool, {3}, {true, true, false});
  CHECK(failure(h, "aten::logical_or.out", {a, c, out, out}) == "aten::logical_or.out: shapes [2, 2] and [3] cannot be broadcast");
}

TEST_CASE("maximum and minimum promote and propagate NaN", "[math][compare]") {
  KernelHarness h;
  auto a = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 5, -2});
  auto b = h.tensor<float>(ScalarType::kFloat, {3}, {1.5f, NAN, -3.0f});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::maximum.out", {a, b, out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == 1.5f);
  CHECK(std::isnan(r[1]));
  CHECK(r[2] == -2);
  REQUIRE(h.call("aten::minimum.out", {a, b, out, out}).ok());
  r = h.data<float>(out);
  CHECK(r[0] == 1);
  CHECK(std::isnan(r[1]));
  CHECK(r[2] == -3);
  auto row = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 10});
  auto col = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {3, 20});
  auto ol = h.out(ScalarType::kLong, {2, 2});
  REQUIRE(h.call("aten::maximum.out", {row, col, ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{3, 10, 20, 20});
  auto oi = h.out(ScalarType::kInt, {3});
  CHECK(failure(h, "aten::maximum.out", {a, b, oi, oi}) == "aten::maximum.out: result type FLOAT cannot be stored in out of type INT");
}

TEST_CASE("where broadcasts condition, self and other", "[math][compare]") {
  KernelHarness h;
  auto cond = h.tensor<bool>(ScalarType::kBool, {2, 1}, {true, false});
  auto a = h.tensor<float>(ScalarType::kFloat, {1, 3}, {1, 2, 3});
  auto zero = h.tensor<float>(ScalarType::kFloat, {}, {0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::where.self_out", {cond, a, zero, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 3, 0, 0, 0});
  // int self, float other: promoted to float.
  auto mask = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {3}, {7, 8, 9});
  auto halves = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, 1.5f, 2.5f});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::where.self_out", {mask, ints, halves, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{7, 1.5f, 9});
  // A BYTE condition works too.
  auto byte = h.tensor<uint8_t>(ScalarType::kByte, {3}, {0, 1, 0});
  REQUIRE(h.call("aten::where.self_out", {byte, ints, halves, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0.5f, 8, 2.5f});
  // Single elements against full ones: a 0-dim self, a one-element
  // condition that holds for all three, then one that does not.
  auto yes = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto no = h.tensor<bool>(ScalarType::kBool, {1}, {false});
  auto seven = h.tensor<float>(ScalarType::kFloat, {}, {7});
  REQUIRE(h.call("aten::where.self_out", {mask, seven, halves, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{7, 1.5f, 7});
  REQUIRE(h.call("aten::where.self_out", {yes, seven, halves, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{7, 7, 7});
  REQUIRE(h.call("aten::where.self_out", {no, seven, halves, of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0.5f, 1.5f, 2.5f});
}

TEST_CASE("where reads non-contiguous inputs", "[math][compare]") {
  KernelHarness h;
  // Logical cond [[T, F, T], [F, T, F]] and self [[1, 2, 3], [4, 5, 6]], both stored with dim order (1, 0).
  auto cond = h.tensor<bool>(ScalarType::kBool, {2, 3}, {true, false, false, true, true, false}, {1, 0});
  auto a = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto other = h.tensor<int32_t>(ScalarType::kInt, {1}, {-1});
  auto out = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::where.self_out", {cond, a, other, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, -1, 3, -1, 5, -1});
}

TEST_CASE("where errors", "[math][compare]") {
  KernelHarness h;
  auto fcond = h.tensor<float>(ScalarType::kFloat, {2}, {1, 0});
  auto a = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto out = h.out(ScalarType::kFloat, {2});
  CHECK(failure(h, "aten::where.self_out", {fcond, a, a, out, out}) ==
        "aten::where.self_out: condition must be BOOL or BYTE, not FLOAT");
  auto cond = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  CHECK(failure(h, "aten::where.self_out", {cond, a, a, out, out}) ==
        "aten::where.self_out: shapes [3] and [2] cannot be broadcast");
  auto c2 = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto oi = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::where.self_out", {c2, a, a, oi, oi}) ==
        "aten::where.self_out: result type FLOAT cannot be stored in out of type INT");
}
