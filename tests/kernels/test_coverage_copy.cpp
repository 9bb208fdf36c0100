// aten::lift_fresh_copy.out, which no other test called: a plain copy of
// self into out (values by construction: the input itself).
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("lift_fresh_copy.out copies values and shape", "[kernels][coverage][copy]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::lift_fresh_copy.out", {x, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // A dynamic out takes the input's shape.
  auto i = h.tensor<int64_t>(ScalarType::kLong, {2}, {-1, 7});
  auto io = h.out(ScalarType::kLong, {4}, true);
  REQUIRE(h.call("aten::lift_fresh_copy.out", {i, io, io}).ok());
  CHECK(h.sizes(io) == std::vector<int32_t>{2});
  CHECK(h.data<int64_t>(io) == std::vector<int64_t>{-1, 7});
  // Channels-last input, contiguous out: the logical order is kept.
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 10, 2, 20}, {0, 2, 3, 1});
  auto co = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  REQUIRE(h.call("aten::lift_fresh_copy.out", {cl, co, co}).ok());
  CHECK(h.data<float>(co) == std::vector<float>{1, 2, 10, 20});
  // A 0-dim tensor.
  auto s = h.tensor<double>(ScalarType::kDouble, {}, {2.5});
  auto so = h.out(ScalarType::kDouble, {});
  REQUIRE(h.call("aten::lift_fresh_copy.out", {s, so, so}).ok());
  CHECK(h.data<double>(so) == std::vector<double>{2.5});

  auto dout = h.out(ScalarType::kDouble, {2, 3});
  auto e = h.call("aten::lift_fresh_copy.out", {x, dout, dout});
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message == "aten::lift_fresh_copy.out: out has dtype DOUBLE, expected FLOAT");
  auto small = h.out(ScalarType::kFloat, {3, 2});
  e = h.call("aten::lift_fresh_copy.out", {x, small, small});
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().message == "aten::lift_fresh_copy.out: out: cannot resize a static tensor");
}
