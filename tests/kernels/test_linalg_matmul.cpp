// aten::mm.out, aten::bmm.out, aten::addmm.out and aten::linear.out: tiny
// literal matrices with products worked out by hand, and the blocked GEMM
// against a naive triple loop written here.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <tuple>

#include "runner/kernels/linalg/gemm.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
using etkit::test::count_outside_rounding;
using etkit::test::random_floats;

namespace {

// |got - ref| within 1e-5 of the sum of the terms' magnitudes (the natural
// scale of float rounding in a dot product, whatever the summation order).
void check_close(const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& magnitude) {
  CHECK(count_outside_rounding(got, ref, magnitude) == 0);
}

}  // namespace

TEST_CASE("mm.out multiplies literal matrices", "[kernels][linalg][mm]") {
  KernelHarness h;
  // [[1, 2, 3], [4, 5, 6]] @ [[1, 0], [0, 1], [2, -1]] = [[1+6, 2-3], [4+12, 5-6]]
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0, 0, 1, 2, -1});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mm.out", {a, b, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{7, -1, 16, -1});

  // The same B stored column-major (dim order 1, 0): read through strides.
  auto bt = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0, 2, 0, 1, -1}, {1, 0});
  auto out2 = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mm.out", {a, bt, out2, out2}).ok());
  CHECK(h.data<float>(out2) == std::vector<float>{7, -1, 16, -1});

  // float64 and int64 take the plain loop; int64 stays exact beyond 2^53.
  auto da = h.tensor<double>(ScalarType::kDouble, {1, 2}, {0.5, 0.25});
  auto db = h.tensor<double>(ScalarType::kDouble, {2, 1}, {2, 4});
  auto dout = h.out(ScalarType::kDouble, {1, 1});
  REQUIRE(h.call("aten::mm.out", {da, db, dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{2.0});
  const int64_t big = (int64_t(1) << 53) + 1;
  auto la = h.tensor<int64_t>(ScalarType::kLong, {1, 2}, {big, 1});
  auto lb = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {1, 1});
  auto lout = h.out(ScalarType::kLong, {1, 1});
  REQUIRE(h.call("aten::mm.out", {la, lb, lout, lout}).ok());
  CHECK(h.data<int64_t>(lout) == std::vector<int64_t>{big + 1});
}

TEST_CASE("mm.out with empty operands", "[kernels][linalg][mm]") {
  KernelHarness h;
  // [0, 3] @ [3, 2] -> [0, 2].
  auto a0 = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto b = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto o0 = h.out(ScalarType::kFloat, {4, 2}, true);
  REQUIRE(h.call("aten::mm.out", {a0, b, o0, o0}).ok());
  CHECK(h.sizes(o0) == std::vector<int32_t>{0, 2});
  // An inner dimension of 0 gives zeros, whatever out held before.
  auto a1 = h.tensor<float>(ScalarType::kFloat, {2, 1}, {1, 2});
  auto b1 = h.tensor<float>(ScalarType::kFloat, {1, 2}, {3, 4});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mm.out", {a1, b1, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{3, 4, 6, 8});
  auto ak = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto bk = h.tensor<float>(ScalarType::kFloat, {0, 2}, {});
  REQUIRE(h.call("aten::mm.out", {ak, bk, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 0, 0, 0});
}

TEST_CASE("mm.out and bmm.out reject bad operands with the shapes", "[kernels][linalg][mm]") {
  KernelHarness h;
  auto v = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto m = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto m23 = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto md = h.tensor<double>(ScalarType::kDouble, {2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  auto fail = [&](const std::string& op, std::vector<size_t> args) {
    auto s = h.call(op, args);
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail("aten::mm.out", {v, m, out, out}) == "aten::mm.out: expected rank-2 operands, got [2] and [2, 2]");
  CHECK(fail("aten::mm.out", {m23, m23, out, out}) == "aten::mm.out: cannot multiply [2, 3] by [2, 3]");
  CHECK(fail("aten::mm.out", {m, md, out, out}) == "aten::mm.out: mat2 dtype DOUBLE does not match self dtype FLOAT");
  auto iout = h.out(ScalarType::kInt, {2, 2});
  CHECK(fail("aten::mm.out", {m, m, iout, iout}) == "aten::mm.out: out dtype INT does not match self dtype FLOAT");
  // A static out of another shape cannot take the result.
  auto small = h.out(ScalarType::kFloat, {1, 2});
  CHECK(fail("aten::mm.out", {m, m, small, small}) == "aten::mm.out: out: cannot resize a static tensor");
  auto bools = h.tensor<bool>(ScalarType::kBool, {1, 1}, {true});
  auto bout = h.out(ScalarType::kBool, {1, 1});
  CHECK(fail("aten::mm.out", {bools, bools, bout, bout}) == "aten::mm.out: unsupported dtype BOOL");
  auto halves = h.tensor<uint16_t>(ScalarType::kHalf, {1, 1}, {0x3c00});
  auto hout = h.out(ScalarType::kHalf, {1, 1});
  CHECK(fail("aten::mm.out", {halves, halves, hout, hout}) == "aten::mm.out: unsupported dtype HALF");

  auto x = h.tensor<float>(ScalarType::kFloat, {2, 1, 2}, {1, 2, 5, 6});
  auto y = h.tensor<float>(ScalarType::kFloat, {3, 2, 1}, {1, 2, 3, 4, 5, 6});
  auto o3 = h.out(ScalarType::kFloat, {2, 1, 1});
  CHECK(fail("aten::bmm.out", {x, y, o3, o3}) == "aten::bmm.out: cannot multiply [2, 1, 2] by [3, 2, 1]");
  CHECK(fail("aten::bmm.out", {m, m, o3, o3}) == "aten::bmm.out: expected rank-3 operands, got [2, 2] and [2, 2]");
}

TEST_CASE("bmm.out multiplies each batch", "[kernels][linalg][bmm]") {
  KernelHarness h;
  // Batch 0: [[1, 2], [3, 4]] @ [[1], [1]] = [[3], [7]];
  // batch 1: [[0, 1], [1, 0]] @ [[5], [6]] = [[6], [5]].
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
  auto b = h.tensor<float>(ScalarType::kFloat, {2, 2, 1}, {1, 1, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 2, 1});
  REQUIRE(h.call("aten::bmm.out", {a, b, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{3, 7, 6, 5});
  // int32 through the loop; an empty batch.
  auto ia = h.tensor<int32_t>(ScalarType::kInt, {2, 1, 1}, {3, -4});
  auto ib = h.tensor<int32_t>(ScalarType::kInt, {2, 1, 1}, {5, 6});
  auto iout = h.out(ScalarType::kInt, {2, 1, 1});
  REQUIRE(h.call("aten::bmm.out", {ia, ib, iout, iout}).ok());
  CHECK(h.data<int32_t>(iout) == std::vector<int32_t>{15, -24});
  auto ea = h.tensor<float>(ScalarType::kFloat, {0, 2, 3}, {});
  auto eb = h.tensor<float>(ScalarType::kFloat, {0, 3, 4}, {});
  auto eout = h.out(ScalarType::kFloat, {1, 2, 4}, true);
  REQUIRE(h.call("aten::bmm.out", {ea, eb, eout, eout}).ok());
  CHECK(h.sizes(eout) == std::vector<int32_t>{0, 2, 4});
}

TEST_CASE("addmm.out: beta * self + alpha * mat1 @ mat2 with self broadcast", "[kernels][linalg][addmm]") {
  KernelHarness h;
  // mat1 @ mat2 = [[1, 2], [3, 4]] @ [[1, 0], [1, 1]] = [[3, 2], [7, 4]].
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto b = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 0, 1, 1});
  auto addmm = [&](size_t self, size_t beta, size_t alpha) {
    auto out = h.out(ScalarType::kFloat, {2, 2});
    REQUIRE(h.call("aten::addmm.out", {self, a, b, beta, alpha, out, out}).ok());
    return h.data<float>(out);
  };
  auto row = h.tensor<float>(ScalarType::kFloat, {2}, {10, 20});
  CHECK(addmm(row, h.integer(1), h.integer(1)) == std::vector<float>{13, 22, 17, 24});
  auto column = h.tensor<float>(ScalarType::kFloat, {2, 1}, {10, 20});
  CHECK(addmm(column, h.integer(1), h.integer(1)) == std::vector<float>{13, 12, 27, 24});
  auto scalar = h.tensor<float>(ScalarType::kFloat, {}, {100});
  CHECK(addmm(scalar, h.integer(1), h.integer(1)) == std::vector<float>{103, 102, 107, 104});
  auto one_by_one = h.tensor<float>(ScalarType::kFloat, {1, 1}, {1});
  CHECK(addmm(one_by_one, h.integer(1), h.integer(1)) == std::vector<float>{4, 3, 8, 5});
  auto full = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  // beta 2, alpha 0.5: [2 + 1.5, 4 + 1, 6 + 3.5, 8 + 2].
  CHECK(addmm(full, h.integer(2), h.real(0.5)) == std::vector<float>{3.5f, 5, 9.5f, 10});
  // beta 0 ignores self, NaN included (as PyTorch does).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto nans = h.tensor<float>(ScalarType::kFloat, {2}, {nan, nan});
  CHECK(addmm(nans, h.integer(0), h.integer(1)) == std::vector<float>{3, 2, 7, 4});
  CHECK(addmm(nans, h.real(0.0), h.integer(-1)) == std::vector<float>{-3, -2, -7, -4});

  // float64 through the loop, also honouring beta = 0.
  auto da = h.tensor<double>(ScalarType::kDouble, {1, 2}, {1, 2});
  auto db = h.tensor<double>(ScalarType::kDouble, {2, 1}, {3, 4});
  auto dnan = h.tensor<double>(ScalarType::kDouble, {1}, {std::numeric_limits<double>::quiet_NaN()});
  auto dout = h.out(ScalarType::kDouble, {1, 1});
  REQUIRE(h.call("aten::addmm.out", {dnan, da, db, h.integer(0), h.real(2.0), dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{22});
  // int32 with integer alpha and beta: 3 * 5 + 2 * (1*3 + 2*4) = 37.
  auto ia = h.tensor<int32_t>(ScalarType::kInt, {1, 2}, {1, 2});
  auto ib = h.tensor<int32_t>(ScalarType::kInt, {2, 1}, {3, 4});
  auto iself = h.tensor<int32_t>(ScalarType::kInt, {1}, {5});
  auto iout = h.out(ScalarType::kInt, {1, 1});
  REQUIRE(h.call("aten::addmm.out", {iself, ia, ib, h.integer(3), h.integer(2), iout, iout}).ok());
  CHECK(h.data<int32_t>(iout) == std::vector<int32_t>{37});
}

TEST_CASE("addmm.out errors name the operands", "[kernels][linalg][addmm]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  auto fail = [&](size_t self, size_t mat1, size_t beta, size_t alpha, size_t o) {
    auto s = h.call("aten::addmm.out", {self, mat1, a, beta, alpha, o, o});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  auto three = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(fail(three, a, h.integer(1), h.integer(1), out) == "aten::addmm.out: self [3] does not broadcast to [2, 2]");
  auto rank3 = h.tensor<float>(ScalarType::kFloat, {1, 2, 2}, {1, 2, 3, 4});
  CHECK(fail(rank3, a, h.integer(1), h.integer(1), out) == "aten::addmm.out: self [1, 2, 2] does not broadcast to [2, 2]");
  auto dself = h.tensor<double>(ScalarType::kDouble, {2}, {1, 2});
  CHECK(fail(dself, a, h.integer(1), h.integer(1), out) == "aten::addmm.out: self dtype DOUBLE does not match mat1 dtype FLOAT");
  CHECK(fail(a, a, h.string("x"), h.integer(1), out) == "aten::addmm.out: beta must be a scalar, not String");
  auto v = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  CHECK(fail(a, v, h.integer(1), h.integer(1), out) == "aten::addmm.out: expected rank-2 operands, got [2] and [2, 2]");
  auto ia = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  auto iout = h.out(ScalarType::kInt, {2, 2});
  auto s = h.call("aten::addmm.out", {ia, ia, ia, h.integer(1), h.real(0.5), iout, iout});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "aten::addmm.out: alpha and beta must be integers for INT operands");
}

TEST_CASE("linear.out: input @ weight^T + bias over leading dims", "[kernels][linalg][linear]") {
  KernelHarness h;
  // weight [[1, 0, 1], [0, 2, 0]]: out = [x0 + x2, 2 * x1] (+ bias [10, 20]).
  auto w = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 0, 1, 0, 2, 0});
  auto bias = h.tensor<float>(ScalarType::kFloat, {2}, {10, 20});
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::linear.out", {x, w, bias, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{14, 24, 20, 30});
  auto nb = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::linear.out", {x, w, h.none(), nb, nb}).ok());
  CHECK(h.data<float>(nb) == std::vector<float>{4, 4, 10, 10});
  // [2, 1, 3] -> [2, 1, 2]; a 1-D input is one row.
  auto x3 = h.tensor<float>(ScalarType::kFloat, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto o3 = h.out(ScalarType::kFloat, {2, 1, 2});
  REQUIRE(h.call("aten::linear.out", {x3, w, bias, o3, o3}).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{14, 24, 20, 30});
  auto x1 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  auto o1 = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::linear.out", {x1, w, h.none(), o1, o1}).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{2, 2});
  // A transposed (dim order 1, 0) 2-D input is read through strides.
  auto xt = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto ot = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::linear.out", {xt, w, bias, ot, ot}).ok());
  CHECK(h.data<float>(ot) == std::vector<float>{14, 24, 20, 30});
  // float64.
  auto dw = h.tensor<double>(ScalarType::kDouble, {1, 2}, {0.5, 0.25});
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 2}, {2, 4});
  auto db = h.tensor<double>(ScalarType::kDouble, {1}, {1});
  auto dout = h.out(ScalarType::kDouble, {1, 1});
  REQUIRE(h.call("aten::linear.out", {dx, dw, db, dout, dout}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{3});
  // No in_features: the bias alone; no rows: nothing.
  auto w0 = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto x0 = h.tensor<float>(ScalarType::kFloat, {1, 0}, {});
  auto o0 = h.out(ScalarType::kFloat, {1, 2});
  REQUIRE(h.call("aten::linear.out", {x0, w0, bias, o0, o0}).ok());
  CHECK(h.data<float>(o0) == std::vector<float>{10, 20});
  auto xe = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto oe = h.out(ScalarType::kFloat, {0, 2});
  REQUIRE(h.call("aten::linear.out", {xe, w, bias, oe, oe}).ok());
}

TEST_CASE("linear.out errors", "[kernels][linalg][linear]") {
  KernelHarness h;
  auto w = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 0, 1, 0, 2, 0});
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  auto fail = [&](size_t input, size_t weight, size_t bias) {
    auto s = h.call("aten::linear.out", {input, weight, bias, out, out});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  auto x2 = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(fail(x2, w, h.none()) == "aten::linear.out: input [3, 2] does not match weight [2, 3] (in_features 3)");
  auto w1 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(fail(x, w1, h.none()) == "aten::linear.out: weight must be 2-D (out_features, in_features), got [3]");
  auto b3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(fail(x, w, b3) == "aten::linear.out: bias [3] must be 1-D of size 2");
  auto bd = h.tensor<double>(ScalarType::kDouble, {2}, {1, 2});
  CHECK(fail(x, w, bd) == "aten::linear.out: bias dtype DOUBLE does not match input dtype FLOAT");
  auto wd = h.tensor<double>(ScalarType::kDouble, {2, 3}, {1, 0, 1, 0, 2, 0});
  CHECK(fail(x, wd, h.none()) == "aten::linear.out: weight dtype DOUBLE does not match input dtype FLOAT");
  auto nhwc = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}, {0, 2, 3, 1});
  auto o4 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto s = h.call("aten::linear.out", {nhwc, w, h.none(), o4, o4});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "aten::linear.out: input with dim order [0, 2, 3, 1] is not supported (contiguous only)");
}

TEST_CASE("the blocked GEMM matches a naive triple loop (64x48x40 and odd sizes)", "[kernels][linalg][gemm]") {
  struct Case {
    int m, k, n;
  };
  // 64x48x40 as asked; then sizes off the 6x16 tile, past the 256-deep and
  // 1024-wide blocks, and a single row and column.
  for (const Case c : {Case{64, 48, 40}, Case{67, 300, 41}, Case{7, 260, 1030}, Case{1, 33, 1}, Case{13, 1, 17}}) {
    INFO("m " << c.m << " k " << c.k << " n " << c.n);
    const auto av = random_floats(size_t(c.m * c.k), 1), bv = random_floats(size_t(c.k * c.n), 2);
    const auto sv = random_floats(size_t(c.n), 3);
    std::vector<double> ref(size_t(c.m * c.n)), magnitude(size_t(c.m * c.n));
    for (int i = 0; i < c.m; ++i) {
      for (int j = 0; j < c.n; ++j) {
        for (int p = 0; p < c.k; ++p) {
          const double t = double(av[size_t(i * c.k + p)]) * double(bv[size_t(p * c.n + j)]);
          ref[size_t(i * c.n + j)] += t;
          magnitude[size_t(i * c.n + j)] += std::fabs(t);
        }
      }
    }
    KernelHarness h;
    auto a = h.tensor<float>(ScalarType::kFloat, {c.m, c.k}, av);
    auto b = h.tensor<float>(ScalarType::kFloat, {c.k, c.n}, bv);
    auto out = h.out(ScalarType::kFloat, {c.m, c.n});
    REQUIRE(h.call("aten::mm.out", {a, b, out, out}).ok());
    check_close(h.data<float>(out), ref, magnitude);

    // linear reads the weight transposed: weight[j][p] = b[p][j].
    std::vector<float> wv(size_t(c.n * c.k));
    for (int p = 0; p < c.k; ++p) {
      for (int j = 0; j < c.n; ++j) wv[size_t(j * c.k + p)] = bv[size_t(p * c.n + j)];
    }
    auto w = h.tensor<float>(ScalarType::kFloat, {c.n, c.k}, wv);
    auto lout = h.out(ScalarType::kFloat, {c.m, c.n});
    REQUIRE(h.call("aten::linear.out", {a, w, h.none(), lout, lout}).ok());
    check_close(h.data<float>(lout), ref, magnitude);

    // addmm: 0.5 * self row + 2 * a @ b.
    std::vector<double> ref2(ref.size()), magnitude2(ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ref2[i] = 0.5 * double(sv[i % size_t(c.n)]) + 2 * ref[i];
      magnitude2[i] = 0.5 * std::fabs(double(sv[i % size_t(c.n)])) + 2 * magnitude[i];
    }
    auto self = h.tensor<float>(ScalarType::kFloat, {c.n}, sv);
    auto aout = h.out(ScalarType::kFloat, {c.m, c.n});
    REQUIRE(h.call("aten::addmm.out", {self, a, b, h.real(0.5), h.integer(2), aout, aout}).ok());
    check_close(h.data<float>(aout), ref2, magnitude2);
  }
}

TEST_CASE("sgemm: beta 0 overwrites C (NaN included) over several depth blocks, alpha and full and partial tiles",
          "[kernels][linalg][gemm]") {
  using etkit::rt::kernels::linalg::MatrixView;
  // m and n cover full 6x16 tiles and ragged edges; k = 600 spans three
  // 256-deep blocks, k = 27 one shallow block (the RGB stem's depth).
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{13, 37, 600}, {12, 32, 27}, {5, 7, 3}}) {
    std::vector<float> a(size_t(m * k)), b(size_t(k * n));
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 7 % 11) - 5) * 0.25f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 5 % 13) - 6) * 0.125f;
    for (const float beta : {0.0f, 1.0f, 0.5f}) {
      const float fill = beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : 2.0f;
      std::vector<float> c(size_t(m * n), fill);
      etkit::rt::kernels::linalg::sgemm(m, n, k, -1.5f, MatrixView{a.data(), k, 1}, MatrixView{b.data(), n, 1}, beta,
                                        c.data(), n);
      size_t bad = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p) sum += double(a[size_t(i * k + p)]) * double(b[size_t(p * n + j)]);
          // Products of quarters and eighths sum exactly in float, so only
          // the final scaling rounds.
          const double want = -1.5 * sum + (beta == 0.0f ? 0.0 : double(beta) * 2.0);
          if (std::fabs(double(c[size_t(i * n + j)]) - want) > 1e-6 * (1 + std::fabs(want))) ++bad;
        }
      }
      INFO("m " << m << " n " << n << " k " << k << " beta " << beta);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("sgemm: a single row of A gives the bits of the same row in a taller product", "[kernels][linalg][gemm]") {
  using etkit::rt::kernels::linalg::MatrixView;
  // One row of A takes a path of its own (B read in place); row 0 of a
  // 2-row product goes through the packed 6x16 tiles. Random operands make
  // the rounding depend on the order of every step, so equal bits mean the
  // same sums in the same order: LeNet's three layers, a 600-deep product
  // (three depth blocks), n off the 8- and 16-column steps; alpha and beta
  // 0 (overwrite), 1 and 0.5 (C scaled first).
  for (const auto& [n, k] : {std::pair<int64_t, int64_t>{120, 400}, {84, 120}, {10, 84}, {37, 600}, {5, 3}}) {
    const auto a2 = random_floats(size_t(2 * k), 11), b = random_floats(size_t(k * n), 12);
    const auto c0 = random_floats(size_t(2 * n), 13);
    for (const float beta : {0.0f, 1.0f, 0.5f}) {
      std::vector<float> tall(c0), row(c0.begin(), c0.begin() + n);
      etkit::rt::kernels::linalg::sgemm(2, n, k, 0.75f, MatrixView{a2.data(), k, 1}, MatrixView{b.data(), n, 1}, beta,
                                        tall.data(), n);
      etkit::rt::kernels::linalg::sgemm(1, n, k, 0.75f, MatrixView{a2.data(), k, 1}, MatrixView{b.data(), n, 1}, beta,
                                        row.data(), n);
      INFO("n " << n << " k " << k << " beta " << beta);
      CHECK(std::memcmp(row.data(), tall.data(), size_t(n) * sizeof(float)) == 0);
    }
  }
  // A strided row of A (a column of a row-major matrix) reads the same values.
  const int64_t k = 9, n = 20;
  const auto at = random_floats(size_t(k * 3), 14), b = random_floats(size_t(k * n), 15);
  std::vector<float> packed(static_cast<size_t>(k)), strided(static_cast<size_t>(n)), dense(static_cast<size_t>(n));
  for (int64_t p = 0; p < k; ++p) packed[size_t(p)] = at[size_t(p * 3)];
  etkit::rt::kernels::linalg::sgemm(1, n, k, 1.0f, MatrixView{at.data(), 1, 3}, MatrixView{b.data(), n, 1}, 0.0f,
                                    strided.data(), n);
  etkit::rt::kernels::linalg::sgemm(1, n, k, 1.0f, MatrixView{packed.data(), k, 1}, MatrixView{b.data(), n, 1}, 0.0f,
                                    dense.data(), n);
  CHECK(strided == dense);
}
