// _softmax.out and _log_softmax.out: expectations are exp(x) / sum(exp(x))
// evaluated with std::exp in the test.
#include <algorithm>
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

// Softmax of one line, straightforwardly.
std::vector<double> softmax_of(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += std::exp(v);
  std::vector<double> r;
  for (double v : x) r.push_back(std::exp(v) / sum);
  return r;
}

void check_near(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(1e-7));
  }
}

}  // namespace

TEST_CASE("softmax of [1, 2, 3]", "[math][softmax]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(0), h.boolean(false), out, out}).ok());
  check_near(h.data<float>(out), softmax_of({1, 2, 3}));
}

TEST_CASE("log_softmax of [1, 2, 3]", "[math][softmax]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::_log_softmax.out", {x, h.integer(-1), h.boolean(false), out, out}).ok());
  std::vector<double> want;
  for (double p : softmax_of({1, 2, 3})) want.push_back(std::log(p));
  check_near(h.data<float>(out), want);
}

TEST_CASE("softmax along dim 0 and along a negative dim", "[math][softmax]") {
  KernelHarness h;
  // [[1, 2, 3], [4, 6, 3]]
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 6, 3});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(0), h.boolean(false), out, out}).ok());
  const auto c0 = softmax_of({1, 4}), c1 = softmax_of({2, 6}), c2 = softmax_of({3, 3});
  check_near(h.data<float>(out), {c0[0], c1[0], c2[0], c0[1], c1[1], c2[1]});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(-1), h.boolean(false), out, out}).ok());
  const auto r0 = softmax_of({1, 2, 3}), r1 = softmax_of({4, 6, 3});
  check_near(h.data<float>(out), {r0[0], r0[1], r0[2], r1[0], r1[1], r1[2]});
}

TEST_CASE("softmax along the middle dim of a 3-d tensor", "[math][softmax]") {
  KernelHarness h;
  // [2, 2, 2]: lines along dim 1 pair elements k and k+2 in each block of 4.
  auto x = h.tensor<double>(ScalarType::kDouble, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 7, 9});
  auto out = h.out(ScalarType::kDouble, {2, 2, 2});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(-2), h.boolean(false), out, out}).ok());
  const auto a = softmax_of({0, 2}), b = softmax_of({1, 3}), c = softmax_of({4, 7}), d = softmax_of({5, 9});
  const std::vector<double> want = {a[0], b[0], a[1], b[1], c[0], d[0], c[1], d[1]};
  for (size_t i = 0; i < want.size(); ++i) CHECK(h.data<double>(out)[i] == Approx(want[i]).epsilon(1e-12));
}

TEST_CASE("softmax is stable for large inputs", "[math][softmax]") {
  KernelHarness h;
  // exp(1000) overflows; subtracting the maximum first avoids it.
  auto x = h.tensor<float>(ScalarType::kFloat, {2}, {1000, 1001});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(0), h.boolean(false), out, out}).ok());
  check_near(h.data<float>(out), softmax_of({0, 1}));
  auto same = h.tensor<float>(ScalarType::kFloat, {2}, {1000, 1000});
  REQUIRE(h.call("aten::_log_softmax.out", {same, h.integer(0), h.boolean(false), out, out}).ok());
  check_near(h.data<float>(out), {-std::log(2.0), -std::log(2.0)});
}

TEST_CASE("softmax reads a non-contiguous input", "[math][softmax]") {
  KernelHarness h;
  // Logical [[1, 2, 3], [4, 6, 3]] stored with dim order (1, 0).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 6, 3, 3}, {1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(1), h.boolean(false), out, out}).ok());
  const auto r0 = softmax_of({1, 2, 3}), r1 = softmax_of({4, 6, 3});
  check_near(h.data<float>(out), {r0[0], r0[1], r0[2], r1[0], r1[1], r1[2]});
}

TEST_CASE("softmax of a 0-dim tensor is 1, of an empty one is empty", "[math][softmax]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {}, {5});
  auto out = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(0), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1});
  REQUIRE(h.call("aten::_log_softmax.out", {x, h.integer(-1), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0});
  auto empty = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto oe = h.out(ScalarType::kFloat, {2, 0});
  REQUIRE(h.call("aten::_softmax.out", {empty, h.integer(1), h.boolean(false), oe, oe}).ok());
  CHECK(h.tensor_at(oe).numel() == 0);
}

TEST_CASE("softmax errors", "[math][softmax]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  CHECK(failure(h, "aten::_softmax.out", {x, h.integer(0), h.boolean(true), out, out}) ==
        "aten::_softmax.out: half_to_float is not supported");
  CHECK(failure(h, "aten::_softmax.out", {x, h.integer(2), h.boolean(false), out, out}) ==
        "aten::_softmax.out: dim 2 out of range for rank 2");
  CHECK(failure(h, "aten::_log_softmax.out", {x, h.integer(-3), h.boolean(false), out, out}) ==
        "aten::_log_softmax.out: dim -3 out of range for rank 2");
  auto od = h.out(ScalarType::kDouble, {2, 2});
  CHECK(failure(h, "aten::_softmax.out", {x, h.integer(0), h.boolean(false), od, od}) ==
        "aten::_softmax.out: out dtype DOUBLE differs from self dtype FLOAT");
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto oi = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::_softmax.out", {i, h.integer(0), h.boolean(false), oi, oi}) ==
        "aten::_softmax.out: self must be floating point, not INT");
  CHECK(failure(h, "aten::_softmax.out", {x, h.integer(0), h.integer(0), out, out}) ==
        "aten::_softmax.out: half_to_float must be a bool, not Int");
}

TEST_CASE("softmax: out of the compute dtype gives exp(x - max) / sum exactly", "[kernels][math][softmax]") {
  KernelHarness h;
  // An odd-length float line (contiguous, then along dim 0 of a transposed
  // layout) and a double line: bit-for-bit the value of one std::exp per
  // element in the compute type, summed in order, each divided by the sum.
  std::vector<float> xf;
  for (int i = 0; i < 37; ++i) xf.push_back(float((i * 13) % 29) * 0.37f - 4.0f);
  float maxf = xf[0];
  for (float v : xf) maxf = std::max(maxf, v);
  float sumf = 0;
  for (float v : xf) sumf += std::exp(v - maxf);
  std::vector<float> want;
  for (float v : xf) want.push_back(std::exp(v - maxf) / sumf);
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 37}, xf);
  auto out = h.out(ScalarType::kFloat, {1, 37});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(1), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == want);
  // [37, 1] with dim order (1, 0) is the same memory; softmax along dim 0,
  // into an out of that dim order too (strided writes).
  auto xt = h.tensor<float>(ScalarType::kFloat, {37, 1}, xf, {1, 0});
  auto outt = h.out(ScalarType::kFloat, {37, 1}, false, {1, 0});
  REQUIRE(h.call("aten::_softmax.out", {xt, h.integer(0), h.boolean(false), outt, outt}).ok());
  CHECK(h.data<float>(outt) == want);
  // Two lines across a strided layout: [3, 2] stored as (1, 0), softmax
  // along dim 0, each column a line with stride 2 in memory.
  auto xs = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6}, {1, 0});
  auto os = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::_softmax.out", {xs, h.integer(0), h.boolean(false), os, os}).ok());
  const float e0 = std::exp(1.f - 3.f), e1 = std::exp(2.f - 3.f), e2 = std::exp(3.f - 3.f);
  const float e3 = std::exp(4.f - 6.f), e4 = std::exp(5.f - 6.f), e5 = std::exp(6.f - 6.f);
  const float s0 = e0 + e1 + e2, s1 = e3 + e4 + e5;
  CHECK(h.data<float>(os) == std::vector<float>{e0 / s0, e3 / s1, e1 / s0, e4 / s1, e2 / s0, e5 / s1});
  std::vector<double> xd = {0.5, -1.25, 3.0, 2.75, -0.125};
  double sumd = 0;
  for (double v : xd) sumd += std::exp(v - 3.0);
  std::vector<double> wantd;
  for (double v : xd) wantd.push_back(std::exp(v - 3.0) / sumd);
  auto d = h.tensor<double>(ScalarType::kDouble, {5}, xd);
  auto od = h.out(ScalarType::kDouble, {5});
  REQUIRE(h.call("aten::_softmax.out", {d, h.integer(0), h.boolean(false), od, od}).ok());
  CHECK(h.data<double>(od) == wantd);
}

TEST_CASE("softmax: a NaN makes its whole line NaN, other lines are untouched", "[kernels][math][softmax]") {
  KernelHarness h;
  // Line 0 holds a NaN (max is NaN, so every exp is NaN); line 1 is [0, 0]:
  // 1/2 each, exactly.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, std::nanf(""), 0, 0});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::_softmax.out", {x, h.integer(1), h.boolean(false), out, out}).ok());
  const auto got = h.data<float>(out);
  CHECK(std::isnan(got[0]));
  CHECK(std::isnan(got[1]));
  CHECK(got[2] == 0.5f);
  CHECK(got[3] == 0.5f);
}
