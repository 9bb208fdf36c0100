// Activation kernels: hardtanh, clamp (Scalar and Tensor bounds),
// leaky_relu, gelu, silu, hardsigmoid, hardswish, glu. Expected values come
// from the defining formulas evaluated in the test.
#include <bit>
#include <cmath>
#include <cstdint>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

void check_near(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(1e-7));
  }
}

}  // namespace

TEST_CASE("hardtanh clamps to [min_val, max_val], NaN passes", "[math][activation]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {-2.0f, 0.5f, 3.0f, NAN});
  auto out = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call("aten::hardtanh.out", {x, h.integer(-1), h.integer(1), out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == -1.0f);
  CHECK(r[1] == 0.5f);
  CHECK(r[2] == 1.0f);
  CHECK(std::isnan(r[3]));
  // ReLU6 on int32.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {-3, 4, 9});
  auto oi = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::hardtanh.out", {i, h.real(0.0), h.real(6.0), oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{0, 4, 6});
  auto b = h.tensor<bool>(ScalarType::kBool, {1}, {true});
  auto ob = h.out(ScalarType::kBool, {1});
  CHECK(failure(h, "aten::hardtanh.out", {b, h.integer(0), h.integer(1), ob, ob}) ==
        "aten::hardtanh.out: self dtype BOOL is not supported");
  CHECK(failure(h, "aten::hardtanh.out", {x, h.none(), h.integer(1), out, out}) ==
        "aten::hardtanh.out: min_val must be a scalar, not None");
}

TEST_CASE("clamp with one bound missing", "[math][activation]") {
  KernelHarness h;
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 5, -4});
  auto oi = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::clamp.out", {i, h.none(), h.integer(2), oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{1, 2, -4});
  REQUIRE(h.call("aten::clamp.out", {i, h.integer(0), h.none(), oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{1, 5, 0});
  // min > max: every value becomes max, as torch.clamp.
  REQUIRE(h.call("aten::clamp.out", {i, h.integer(3), h.integer(2), oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{2, 2, 2});
  CHECK(failure(h, "aten::clamp.out", {i, h.none(), h.none(), oi, oi}) ==
        "aten::clamp.out: at least one of min and max must be given");
}

TEST_CASE("clamp promotes an int tensor with a float bound", "[math][activation]") {
  KernelHarness h;
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 1, 2});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::clamp.out", {i, h.real(0.5), h.real(1.5), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0.5f, 1.0f, 1.5f});
  auto oi = h.out(ScalarType::kInt, {3});
  CHECK(failure(h, "aten::clamp.out", {i, h.real(0.5), h.none(), oi, oi}) ==
        "aten::clamp.out: result type FLOAT cannot be stored in out of type INT");
}

TEST_CASE("clamp bounds must fit out's dtype", "[math][activation]") {
  KernelHarness h;
  auto c = h.tensor<int8_t>(ScalarType::kChar, {2}, {-5, 100});
  auto oc = h.out(ScalarType::kChar, {2});
  CHECK(failure(h, "aten::clamp.out", {c, h.none(), h.integer(300), oc, oc}) ==
        "aten::clamp.out: max 300 is out of range for CHAR");
  CHECK(failure(h, "aten::clamp.out", {c, h.integer(-129), h.none(), oc, oc}) ==
        "aten::clamp.out: min -129 is out of range for CHAR");
  // The bound also has to fit the computation type (int8 here), even when out is wider.
  auto wide = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::clamp.out", {c, h.none(), h.integer(300), wide, wide}) ==
        "aten::clamp.out: max 300 is out of range for CHAR");
  REQUIRE(h.call("aten::clamp.out", {c, h.integer(0), h.integer(50), wide, wide}).ok());
  CHECK(h.data<int32_t>(wide) == std::vector<int32_t>{0, 50});
  auto f = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto of = h.out(ScalarType::kFloat, {1});
  CHECK(failure(h, "aten::clamp.out", {f, h.real(-1e300), h.none(), of, of}) ==
        "aten::clamp.out: min -1e+300 is out of range for FLOAT");
  // Infinite bounds are fine.
  REQUIRE(h.call("aten::clamp.out", {f, h.real(-INFINITY), h.real(INFINITY), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{1});
}

TEST_CASE("clamp keeps NaN and reads non-contiguous input", "[math][activation]") {
  KernelHarness h;
  // Logical [[-3, nan, 9], [0.5, 2, -1]] stored with dim order (1, 0).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {-3, 0.5f, NAN, 2, 9, -1}, {1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::clamp.out", {x, h.integer(0), h.integer(1), out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == 0);
  CHECK(std::isnan(r[1]));
  CHECK(r[2] == 1);
  CHECK(r[3] == 0.5f);
  CHECK(r[4] == 1);
  CHECK(r[5] == 0);
}

TEST_CASE("clamp.Tensor_out broadcasts bounds and promotes", "[math][activation]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {0, 5, 10, -5});
  auto lo = h.tensor<float>(ScalarType::kFloat, {2}, {1.5f, -1.0f});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::clamp.Tensor_out", {x, lo, h.none(), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1.5f, 5, 10, -1});
  auto hi = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {1, 7});
  auto oi = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::clamp.Tensor_out", {x, h.none(), hi, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{0, 1, 7, -5});
  CHECK(failure(h, "aten::clamp.Tensor_out", {x, h.none(), h.none(), oi, oi}) ==
        "aten::clamp.Tensor_out: at least one of min and max must be given");
  CHECK(failure(h, "aten::clamp.Tensor_out", {x, lo, h.none(), oi, oi}) ==
        "aten::clamp.Tensor_out: result type FLOAT cannot be stored in out of type INT");
  auto wide = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 0, 0});
  CHECK(failure(h, "aten::clamp.Tensor_out", {x, wide, h.none(), oi, oi}) ==
        "aten::clamp.Tensor_out: shapes [2, 2] and [3] cannot be broadcast");
}

TEST_CASE("leaky_relu scales negatives by the slope", "[math][activation]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {-2.0f, 0.0f, 3.0f});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::leaky_relu.out", {x, h.real(0.1), out, out}).ok());
  check_near(h.data<float>(out), {-0.2, 0.0, 3.0});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto oi = h.out(ScalarType::kFloat, {1});
  CHECK(failure(h, "aten::leaky_relu.out", {i, h.real(0.1), oi, oi}) ==
        "aten::leaky_relu.out: self must be floating point, not INT");
}

TEST_CASE("gelu exact (erf) and tanh approximations", "[math][activation]") {
  KernelHarness h;
  const std::vector<float> xs = {-2.0f, -0.5f, 0.0f, 1.0f, 3.0f};
  auto x = h.tensor<float>(ScalarType::kFloat, {5}, xs);
  std::vector<double> exact, approx;
  for (float v : xs) {
    const double d = v;
    exact.push_back(0.5 * d * (1 + std::erf(d / std::sqrt(2.0))));
    approx.push_back(0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
  }
  auto out = h.out(ScalarType::kFloat, {5});
  REQUIRE(h.call("aten::gelu.out", {x, h.string("none"), out, out}).ok());
  check_near(h.data<float>(out), exact);
  REQUIRE(h.call("aten::gelu.out", {x, h.string("tanh"), out, out}).ok());
  check_near(h.data<float>(out), approx);
  // Infinities: 0 and inf, not NaN.
  auto inf = h.tensor<double>(ScalarType::kDouble, {2}, {-INFINITY, INFINITY});
  auto od = h.out(ScalarType::kDouble, {2});
  REQUIRE(h.call("aten::gelu.out", {inf, h.string("tanh"), od, od}).ok());
  CHECK(h.data<double>(od) == std::vector<double>{0.0, INFINITY});
  CHECK(failure(h, "aten::gelu.out", {x, h.string("fast"), out, out}) ==
        "aten::gelu.out: approximate must be 'none' or 'tanh', not 'fast'");
  CHECK(failure(h, "aten::gelu.out", {x, h.none(), out, out}) == "aten::gelu.out: approximate must be a string, not None");
}

TEST_CASE("silu, hardsigmoid, hardswish", "[math][activation]") {
  KernelHarness h;
  const std::vector<float> xs = {-4.0f, -1.0f, 0.0f, 1.0f, 4.0f};
  auto x = h.tensor<float>(ScalarType::kFloat, {5}, xs);
  auto out = h.out(ScalarType::kFloat, {5});
  REQUIRE(h.call("aten::hardsigmoid.out", {x, out, out}).ok());
  check_near(h.data<float>(out), {0.0, 2.0 / 6, 0.5, 4.0 / 6, 1.0});
  REQUIRE(h.call("aten::hardswish.out", {x, out, out}).ok());
  check_near(h.data<float>(out), {0.0, -2.0 / 6, 0.0, 4.0 / 6, 4.0});
  REQUIRE(h.call("aten::silu.out", {x, out, out}).ok());
  std::vector<double> silu;
  for (float v : xs) silu.push_back(v / (1 + std::exp(-double(v))));
  check_near(h.data<float>(out), silu);
  // Float self into a double out widens.
  auto od = h.out(ScalarType::kDouble, {5});
  REQUIRE(h.call("aten::hardsigmoid.out", {x, od, od}).ok());
  CHECK(h.data<double>(od)[2] == 0.5);
  auto oh = h.out(ScalarType::kInt, {5});
  CHECK(failure(h, "aten::silu.out", {x, oh, oh}) == "aten::silu.out: result type FLOAT cannot be stored in out of type INT");
}

TEST_CASE("glu halves a dim: a * sigmoid(b)", "[math][activation]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 4}, {1, 2, 0, 1, 3, 4, -1, 2});
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::glu.out", {x, h.integer(-1), out, out}).ok());
  check_near(h.data<float>(out), {1 * sig(0), 2 * sig(1), 3 * sig(-1), 4 * sig(2)});
  // Along dim 0: rows [1,2,0,1] and [3,4,-1,2].
  auto o0 = h.out(ScalarType::kFloat, {1, 4});
  REQUIRE(h.call("aten::glu.out", {x, h.integer(0), o0, o0}).ok());
  check_near(h.data<float>(o0), {1 * sig(3), 2 * sig(4), 0 * sig(-1), 1 * sig(2)});
  auto odd = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto oo = h.out(ScalarType::kFloat, {1});
  CHECK(failure(h, "aten::glu.out", {odd, h.integer(0), oo, oo}) == "aten::glu.out: dim 0 of size 3 cannot be halved");
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  CHECK(failure(h, "aten::glu.out", {ints, h.integer(0), oo, oo}) == "aten::glu.out: self must be floating point, not INT");
  CHECK(failure(h, "aten::glu.out", {x, h.integer(2), out, out}) == "aten::glu.out: dim 2 out of range for rank 2");
}

TEST_CASE("glu reads a non-contiguous input", "[math][activation]") {
  KernelHarness h;
  // Logical [[1,2,0,1],[3,4,-1,2]] stored with dim order (1, 0).
  auto x = h.tensor<double>(ScalarType::kDouble, {2, 4}, {1, 3, 2, 4, 0, -1, 1, 2}, {1, 0});
  auto out = h.out(ScalarType::kDouble, {2, 2});
  REQUIRE(h.call("aten::glu.out", {x, h.integer(1), out, out}).ok());
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  const std::vector<double> want = {1 * sig(0), 2 * sig(1), 3 * sig(-1), 4 * sig(2)};
  for (size_t i = 0; i < 4; ++i) CHECK(h.data<double>(out)[i] == Approx(want[i]).epsilon(1e-12));
}

TEST_CASE("clamp of float tensors: bound tags, one bound, and what the general path decides", "[math][activation]") {
  KernelHarness h;
  // Contiguous FLOAT self and out of the same sizes (clamp_float_fast):
  // Double, Int and Bool bounds, one bound missing, min > max, NaN passing,
  // a NaN bound (ExecuTorch's max_override: it becomes every non-NaN
  // result; the general path computes it).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {-3, 0.25f, NAN, 2, 9, -1});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::clamp.out", {x, h.real(-0.5), h.integer(2), out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == -0.5f);
  CHECK(r[1] == 0.25f);
  CHECK(std::isnan(r[2]));
  CHECK(r[3] == 2);
  CHECK(r[4] == 2);
  CHECK(r[5] == -0.5f);
  REQUIRE(h.call("aten::clamp.out", {x, h.boolean(true), h.none(), out, out}).ok());
  r = h.data<float>(out);
  CHECK(r[0] == 1);
  CHECK(r[1] == 1);
  CHECK(std::isnan(r[2]));
  CHECK(r[4] == 9);
  REQUIRE(h.call("aten::clamp.out", {x, h.none(), h.real(0.1), out, out}).ok());
  r = h.data<float>(out);
  CHECK(r[0] == -3);
  CHECK(r[1] == 0.1f);
  CHECK(r[5] == -1);
  REQUIRE(h.call("aten::clamp.out", {x, h.integer(5), h.integer(1), out, out}).ok());
  r = h.data<float>(out);
  CHECK(r[0] == 1);
  CHECK(r[4] == 1);
  REQUIRE(h.call("aten::clamp.out", {x, h.real(NAN), h.real(0), out, out}).ok());
  r = h.data<float>(out);
  CHECK(std::isnan(r[0]));
  CHECK(std::isnan(r[1]));
  // A 0-dim tensor (stress_mlp's case).
  auto s = h.tensor<float>(ScalarType::kFloat, {}, {70});
  auto os = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::clamp.out", {s, h.real(0.0), h.real(63.0), os, os}).ok());
  CHECK(h.data<float>(os) == std::vector<float>{63});
  // Left to the general path, with its results and messages: out of
  // another dtype, out of other sizes (resized when it may be), out in
  // another dim order, bounds that are missing, not scalars or too large.
  auto od = h.out(ScalarType::kDouble, {2, 3});
  REQUIRE(h.call("aten::clamp.out", {x, h.integer(0), h.integer(1), od, od}).ok());
  CHECK(h.data<double>(od)[1] == 0.25);
  auto grow = h.out(ScalarType::kFloat, {2, 4}, true);
  REQUIRE(h.call("aten::clamp.out", {x, h.integer(0), h.integer(1), grow, grow}).ok());
  CHECK(h.sizes(grow) == std::vector<int32_t>{2, 3});
  CHECK(h.data<float>(grow)[4] == 1);
  auto fixed = h.out(ScalarType::kFloat, {2, 4});
  CHECK(failure(h, "aten::clamp.out", {x, h.integer(0), h.integer(1), fixed, fixed}) ==
        "aten::clamp.out: out: cannot resize a static tensor");
  auto cols = h.out(ScalarType::kFloat, {2, 3}, false, {1, 0});
  REQUIRE(h.call("aten::clamp.out", {x, h.integer(0), h.integer(1), cols, cols}).ok());
  // [[0, 0.25, nan], [1, 1, 0]] stored by column.
  r = h.data<float>(cols);
  CHECK(r[0] == 0);
  CHECK(r[1] == 1);
  CHECK(r[2] == 0.25f);
  CHECK(r[3] == 1);
  CHECK(std::isnan(r[4]));
  CHECK(r[5] == 0);
  CHECK(failure(h, "aten::clamp.out", {x, h.none(), h.none(), out, out}) ==
        "aten::clamp.out: at least one of min and max must be given");
  CHECK(failure(h, "aten::clamp.out", {x, h.int_list({1}), h.none(), out, out}) ==
        "aten::clamp.out: min must be a scalar, not IntList");
  CHECK(failure(h, "aten::clamp.out", {x, h.none(), h.real(1e39), out, out}) ==
        "aten::clamp.out: max 1e+39 is out of range for FLOAT");
}

TEST_CASE("clamp and hardtanh with a NaN bound as ExecuTorch's portable kernels", "[math][activation]") {
  // ExecuTorch computes min_override(max_override(x, lo), hi), where
  // max_override(a, b) returns a when a is NaN, else b when b is NaN, else
  // std::max (math_util.h): a NaN x stays NaN (its own bits), and a NaN
  // bound turns every other x into NaN. By hand for each element below.
  KernelHarness h;
  const float x_nan = std::bit_cast<float>(0x7fc00005u);  // a payload the bounds' NaN does not have
  const auto bits = [](float v) { return std::bit_cast<uint32_t>(v); };
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {-3.0f, 0.5f, x_nan, 9.0f});
  for (int which = 0; which < 2; ++which) {  // NaN min, then NaN max
    INFO("NaN " << (which == 0 ? "min" : "max"));
    auto out = h.out(ScalarType::kFloat, {4});
    const size_t lo = which == 0 ? h.real(NAN) : h.real(0.0), hi = which == 0 ? h.real(1.0) : h.real(NAN);
    REQUIRE(h.call("aten::clamp.out", {x, lo, hi, out, out}).ok());
    auto r = h.data<float>(out);
    CHECK(std::isnan(r[0]));
    CHECK(std::isnan(r[1]));
    CHECK(bits(r[2]) == bits(x_nan));
    CHECK(std::isnan(r[3]));
    auto ht = h.out(ScalarType::kFloat, {4});
    REQUIRE(h.call("aten::hardtanh.out", {x, lo, hi, ht, ht}).ok());
    auto t = h.data<float>(ht);
    CHECK(std::isnan(t[0]));
    CHECK(std::isnan(t[1]));
    CHECK(bits(t[2]) == bits(x_nan));
    CHECK(std::isnan(t[3]));
  }
  // One bound only, double (the general path): min NaN -> NaN everywhere.
  auto xd = h.tensor<double>(ScalarType::kDouble, {2}, {-1.0, 2.0});
  auto od = h.out(ScalarType::kDouble, {2});
  REQUIRE(h.call("aten::clamp.out", {xd, h.real(NAN), h.none(), od, od}).ok());
  CHECK(std::isnan(h.data<double>(od)[0]));
  CHECK(std::isnan(h.data<double>(od)[1]));
  // Tensor bounds, element by element: x [1, 5, -3], lo [NaN, 0, 0], hi
  // [2, NaN, 2] -> [NaN (lo), NaN (hi), 0].
  auto xt = h.tensor<float>(ScalarType::kFloat, {3}, {1.0f, 5.0f, -3.0f});
  auto lt = h.tensor<float>(ScalarType::kFloat, {3}, {NAN, 0.0f, 0.0f});
  auto htb = h.tensor<float>(ScalarType::kFloat, {3}, {2.0f, NAN, 2.0f});
  auto ot = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::clamp.Tensor_out", {xt, lt, htb, ot, ot}).ok());
  auto rt = h.data<float>(ot);
  CHECK(std::isnan(rt[0]));
  CHECK(std::isnan(rt[1]));
  CHECK(rt[2] == 0.0f);
  // A NaN x with a NaN bound keeps x's bits.
  auto xn = h.tensor<float>(ScalarType::kFloat, {1}, {x_nan});
  auto ln = h.tensor<float>(ScalarType::kFloat, {1}, {NAN});
  auto on = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::clamp.Tensor_out", {xn, ln, h.none(), on, on}).ok());
  CHECK(bits(h.data<float>(on)[0]) == bits(x_nan));
}

TEST_CASE("leaky_relu keeps zeros of both signs as ExecuTorch", "[math][activation]") {
  // op_leaky_relu.cpp: val_in >= 0 ? val_in : val_in * slope, so +0.0 and
  // -0.0 (-0.0 >= 0 holds) come out unscaled whatever the slope: with slope
  // -0.5 their signs stay, and with slope inf they stay 0 (0 * inf would
  // be NaN). NaN stays NaN; -2 * -0.5 = 1.
  KernelHarness h;
  const auto bits = [](float v) { return std::bit_cast<uint32_t>(v); };
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {0.0f, -0.0f, NAN, -2.0f});
  auto out = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call("aten::leaky_relu.out", {x, h.real(-0.5), out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(bits(r[0]) == 0x00000000u);
  CHECK(bits(r[1]) == 0x80000000u);
  CHECK(std::isnan(r[2]));
  CHECK(r[3] == 1.0f);
  REQUIRE(h.call("aten::leaky_relu.out", {x, h.real(INFINITY), out, out}).ok());
  r = h.data<float>(out);
  CHECK(bits(r[0]) == 0x00000000u);
  CHECK(bits(r[1]) == 0x80000000u);
  CHECK(r[3] == -INFINITY);
}
