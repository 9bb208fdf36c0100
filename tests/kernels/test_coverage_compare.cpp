// Tensor-Tensor comparisons that no other test called: aten::ge.Tensor_out,
// aten::lt.Tensor_out and aten::ne.Tensor_out. Results by hand.
#include <cstdint>
#include <limits>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::vector<bool> compare(KernelHarness& h, const std::string& op, size_t a, size_t b, std::vector<int32_t> shape) {
  auto out = h.out(ScalarType::kBool, std::move(shape));
  auto s = h.call(op, {a, b, out, out});
  if (!s.ok()) FAIL(s.error().message);
  return h.data<bool>(out);
}

}  // namespace

TEST_CASE("ge, lt and ne .Tensor_out: same shape, broadcast, mixed dtypes", "[kernels][coverage][compare]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {3}, {2, 2, 2});
  CHECK(compare(h, "aten::ge.Tensor_out", a, b, {3}) == std::vector<bool>{false, true, true});
  CHECK(compare(h, "aten::lt.Tensor_out", a, b, {3}) == std::vector<bool>{true, false, false});
  CHECK(compare(h, "aten::ne.Tensor_out", a, b, {3}) == std::vector<bool>{true, false, true});
  // [[1], [3]] against [2, 3]: a 2x2 table of comparisons.
  auto col = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {1, 3});
  auto row = h.tensor<int32_t>(ScalarType::kInt, {2}, {2, 3});
  CHECK(compare(h, "aten::ge.Tensor_out", col, row, {2, 2}) == std::vector<bool>{false, false, true, true});
  CHECK(compare(h, "aten::lt.Tensor_out", col, row, {2, 2}) == std::vector<bool>{true, true, false, false});
  CHECK(compare(h, "aten::ne.Tensor_out", col, row, {2, 2}) == std::vector<bool>{true, true, true, false});
  // int32 against float32 compares in float: 1 < 1.5, 2 == 2.0.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {1.5f, 2.0f});
  CHECK(compare(h, "aten::ge.Tensor_out", i, f, {2}) == std::vector<bool>{false, true});
  CHECK(compare(h, "aten::lt.Tensor_out", i, f, {2}) == std::vector<bool>{true, false});
  CHECK(compare(h, "aten::ne.Tensor_out", i, f, {2}) == std::vector<bool>{true, false});
  // int64 values one apart beyond 2^53 stay distinct (no detour through double).
  const int64_t big = int64_t(1) << 53;
  auto x = h.tensor<int64_t>(ScalarType::kLong, {1}, {big + 1});
  auto y = h.tensor<int64_t>(ScalarType::kLong, {1}, {big});
  CHECK(compare(h, "aten::ne.Tensor_out", x, y, {1}) == std::vector<bool>{true});
  CHECK(compare(h, "aten::lt.Tensor_out", y, x, {1}) == std::vector<bool>{true});
  CHECK(compare(h, "aten::ge.Tensor_out", y, x, {1}) == std::vector<bool>{false});
  // NaN is unequal to everything and neither >= nor < anything.
  auto nan = h.tensor<float>(ScalarType::kFloat, {1}, {std::numeric_limits<float>::quiet_NaN()});
  CHECK(compare(h, "aten::ne.Tensor_out", nan, nan, {1}) == std::vector<bool>{true});
  CHECK(compare(h, "aten::ge.Tensor_out", nan, nan, {1}) == std::vector<bool>{false});
  CHECK(compare(h, "aten::lt.Tensor_out", nan, nan, {1}) == std::vector<bool>{false});
  // A non-bool out receives 0 and 1.
  auto fo = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::ge.Tensor_out", {a, b, fo, fo}).ok());
  CHECK(h.data<float>(fo) == std::vector<float>{0, 1, 1});
}

TEST_CASE("ge, lt and ne .Tensor_out errors", "[kernels][coverage][compare]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto out = h.out(ScalarType::kBool, {3});
  for (const std::string op : {"aten::ge.Tensor_out", "aten::lt.Tensor_out", "aten::ne.Tensor_out"}) {
    auto s = h.call(op, {a, b, out, out});
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == op + ": shapes [3] and [2] cannot be broadcast");
    auto small = h.out(ScalarType::kBool, {2});
    s = h.call(op, {a, a, small, small});
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == op + ": out: cannot resize a static tensor");
  }
}
