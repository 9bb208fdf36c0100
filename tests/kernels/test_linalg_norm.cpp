// aten::_native_batch_norm_legit_no_training.out, aten::native_layer_norm.out
// and aten::native_group_norm.out: literal inputs, results by hand (exact
// when the variances are perfect squares) or from the textbook formula
// (x - mean) / sqrt(var + eps) * weight + bias written out here.
#include <cmath>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

etkit::Status batch_norm(KernelHarness& h, size_t in, size_t w, size_t b, size_t mean, size_t var, double eps,
                         size_t out, size_t out1, size_t out2) {
  return h.call("aten::_native_batch_norm_legit_no_training.out",
                {in, w, b, mean, var, h.real(0.1), h.real(eps), out, out1, out2, h.tensor_list({out, out1, out2})});
}

// (x - mean) * rstd over each group of values, with the biased variance.
struct Stats {
  double mean, rstd;
};
Stats stats_of(const std::vector<double>& xs, double eps) {
  double mean = 0, var = 0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  for (double x : xs) var += (x - mean) * (x - mean);
  var /= double(xs.size());
  return {mean, 1.0 / std::sqrt(var + eps)};
}

}  // namespace

TEST_CASE("batch norm (no training): per-channel affine, optional weight and bias", "[kernels][linalg][norm]") {
  KernelHarness h;
  // Channel 0 = [1, 3] with mean 2, var 1; channel 1 = [2, 6] with mean 4,
  // var 4. With eps 0 the normalised values are [-1, 1] in both; weight
  // (2, 3) and bias (10, 20) give [8, 12] and [17, 23].
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 3, 2, 6});
  auto mean = h.tensor<float>(ScalarType::kFloat, {2}, {2, 4});
  auto var = h.tensor<float>(ScalarType::kFloat, {2}, {1, 4});
  auto w = h.tensor<float>(ScalarType::kFloat, {2}, {2, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {10, 20});
  auto out = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  auto out1 = h.out(ScalarType::kFloat, {2}, true);
  auto out2 = h.out(ScalarType::kFloat, {0});
  REQUIRE(batch_norm(h, x, w, b, mean, var, 0.0, out, out1, out2).ok());
  CHECK(h.data<float>(out) == std::vector<float>{8, 12, 17, 23});
  CHECK(h.sizes(out1) == std::vector<int32_t>{0});  // statistics outs are resized to [0]
  CHECK(h.sizes(out2) == std::vector<int32_t>{0});
  auto o2 = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  REQUIRE(batch_norm(h, x, h.none(), h.none(), mean, var, 0.0, o2, out1, out2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{-1, 1, -1, 1});
  // eps 0.5: channel 0 divides by sqrt(1.5), channel 1 by sqrt(4.5).
  auto o3 = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  REQUIRE(batch_norm(h, x, w, b, mean, var, 0.5, o3, out1, out2).ok());
  const auto got = h.data<float>(o3);
  CHECK(got[0] == Approx(-1 / std::sqrt(1.5) * 2 + 10));
  CHECK(got[1] == Approx(1 / std::sqrt(1.5) * 2 + 10));
  CHECK(got[2] == Approx(-2 / std::sqrt(4.5) * 3 + 20));
  CHECK(got[3] == Approx(2 / std::sqrt(4.5) * 3 + 20));
}

TEST_CASE("batch norm (no training): rank 2, channels-last, double, empty", "[kernels][linalg][norm]") {
  KernelHarness h;
  auto mean = h.tensor<float>(ScalarType::kFloat, {2}, {2, 4});
  auto var = h.tensor<float>(ScalarType::kFloat, {2}, {1, 4});
  auto w = h.tensor<float>(ScalarType::kFloat, {2}, {2, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {10, 20});
  auto out1 = h.out(ScalarType::kFloat, {0});
  auto out2 = h.out(ScalarType::kFloat, {0});
  // [N, C] input: rows (1, 2) and (3, 6).
  auto x2 = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 6});
  auto o2 = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(batch_norm(h, x2, w, b, mean, var, 0.0, o2, out1, out2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{8, 17, 12, 23});
  // The first test's input stored channels-last, into a channels-last out.
  auto xcl = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 2, 3, 6}, {0, 2, 3, 1});
  auto ocl = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(batch_norm(h, xcl, w, b, mean, var, 0.0, ocl, out1, out2).ok());
  CHECK(h.data<float>(ocl) == std::vector<float>{8, 17, 12, 23});
  // float64, rank 3.
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 1, 3}, {0, 1, 2});
  auto dmean = h.tensor<double>(ScalarType::kDouble, {1}, {1});
  auto dvar = h.tensor<double>(ScalarType::kDouble, {1}, {0.25});
  auto dout = h.out(ScalarType::kDouble, {1, 1, 3});
  auto d1 = h.out(ScalarType::kDouble, {0});
  auto d2 = h.out(ScalarType::kDouble, {0});
  REQUIRE(batch_norm(h, dx, h.none(), h.none(), dmean, dvar, 0.0, dout, d1, d2).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{-2, 0, 2});
  // An empty batch.
  auto ex = h.tensor<float>(ScalarType::kFloat, {0, 2, 3}, {});
  auto eo = h.out(ScalarType::kFloat, {1, 2, 3}, true);
  REQUIRE(batch_norm(h, ex, w, b, mean, var, 1e-5, eo, out1, out2).ok());
  CHECK(h.sizes(eo) == std::vector<int32_t>{0, 2, 3});
}

TEST_CASE("batch norm (no training) errors", "[kernels][linalg][norm]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 3, 2, 6});
  auto c2 = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
  auto c3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  auto out = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  auto out1 = h.out(ScalarType::kFloat, {0});
  auto out2 = h.out(ScalarType::kFloat, {0});
  const std::string op = "aten::_native_batch_norm_legit_no_training.out: ";
  auto fail = [&](size_t in, size_t w, size_t mean, size_t o, size_t o1) {
    auto s = batch_norm(h, in, w, h.none(), mean, c2, 1e-5, o, o1, out2);
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  auto v = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  CHECK(fail(v, h.none(), c2, out, out1) == op + "input must have at least 2 dimensions (N, C, ...), got [2]");
  CHECK(fail(x, h.none(), c3, out, out1) == op + "running_mean [3] must be 1-D of size 2 (one per channel)");
  CHECK(fail(x, c3, c2, out, out1) == op + "weight [3] must be 1-D of size 2 (one per channel)");
  auto dw = h.tensor<double>(ScalarType::kDouble, {2}, {1, 1});
  CHECK(fail(x, dw, c2, out, out1) == op + "weight dtype DOUBLE does not match input dtype FLOAT");
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {1, 2}, {1, 2});
  auto iout = h.out(ScalarType::kInt, {1, 2});
  CHECK(fail(ix, h.none(), c2, iout, out1) == op + "unsupported dtype INT (float32 or float64 only)");
  auto dout = h.out(ScalarType::kDouble, {1, 2, 1, 2});
  CHECK(fail(x, h.none(), c2, dout, out1) == op + "out0 dtype DOUBLE does not match input dtype FLOAT");
  auto cl_out = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  CHECK(fail(x, h.none(), c2, cl_out, out1) == op + "out0 dim order [0, 2, 3, 1] does not match input dim order [0, 1, 2, 3]");
  auto stat = h.out(ScalarType::kFloat, {2});  // static [2] cannot become [0]
  CHECK(fail(x, h.none(), c2, out, stat) == op + "out1: cannot resize a static tensor");
}

TEST_CASE("native_layer_norm: rows normalised with mean and rstd outs", "[kernels][linalg][norm]") {
  KernelHarness h;
  const std::vector<float> xs{1, 2, 3, 2, 4, 6};
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, xs);
  auto w = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto b = h.tensor<float>(ScalarType::kFloat, {3}, {0, 1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  auto mean = h.out(ScalarType::kFloat, {2, 1});
  auto rstd = h.out(ScalarType::kFloat, {2, 1});
  const double eps = 1e-5;
  REQUIRE(h.call("aten::native_layer_norm.out", {x, h.int_list({3}), w, b, h.real(eps), out, mean, rstd,
                                                 h.tensor_list({out, mean, rstd})}).ok());
  const auto got = h.data<float>(out);
  const std::vector<double> wv{1, 2, 3}, bv{0, 1, 0};
  for (int r = 0; r < 2; ++r) {
    const Stats s = stats_of({xs[size_t(3 * r)], xs[size_t(3 * r + 1)], xs[size_t(3 * r + 2)]}, eps);
    CHECK(h.data<float>(mean)[size_t(r)] == Approx(s.mean));
    CHECK(h.data<float>(rstd)[size_t(r)] == Approx(s.rstd));
    for (int j = 0; j < 3; ++j) {
      CHECK(got[size_t(3 * r + j)] == Approx((xs[size_t(3 * r + j)] - s.mean) * s.rstd * wv[size_t(j)] + bv[size_t(j)]));
    }
  }
  // Row 0 is mean 2, variance 2/3: without weight and bias, with eps 0, the
  // values are -sqrt(1.5), 0, sqrt(1.5).
  auto o2 = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::native_layer_norm.out", {x, h.int_list({3}), h.none(), h.none(), h.real(0), o2, mean, rstd,
                                                 h.tensor_list({o2, mean, rstd})}).ok());
  CHECK(h.data<float>(o2)[0] == Approx(-std::sqrt(1.5)));
  CHECK(h.data<float>(o2)[1] == Approx(0).margin(1e-6));
  CHECK(h.data<float>(o2)[2] == Approx(std::sqrt(1.5)));
}

TEST_CASE("native_layer_norm: several normalised dims, double, empty rows", "[kernels][linalg][norm]") {
  KernelHarness h;
  // [2, 2, 2] normalised over the last two dims: each half is [0, 1, 2, 3]
  // shifted, mean 1.5 (+4), variance 1.25; stats [2, 1, 1].
  auto x = h.tensor<double>(ScalarType::kDouble, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out = h.out(ScalarType::kDouble, {2, 2, 2});
  auto mean = h.out(ScalarType::kDouble, {2, 1, 1});
  auto rstd = h.out(ScalarType::kDouble, {2, 1, 1});
  REQUIRE(h.call("aten::native_layer_norm.out", {x, h.int_list({2, 2}), h.none(), h.none(), h.real(0), out, mean, rstd,
                                                 h.tensor_list({out, mean, rstd})}).ok());
  CHECK(h.data<double>(mean) == std::vector<double>{1.5, 5.5});
  CHECK(h.data<double>(rstd)[0] == Approx(1 / std::sqrt(1.25)));
  const auto got = h.data<double>(out);
  for (size_t i = 0; i < 8; ++i) CHECK(got[i] == Approx((double(i % 4) - 1.5) / std::sqrt(1.25)));
  // No rows.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto eo = h.out(ScalarType::kFloat, {1, 3}, true);
  auto em = h.out(ScalarType::kFloat, {1, 1}, true);
  auto er = h.out(ScalarType::kFloat, {1, 1}, true);
  REQUIRE(h.call("aten::native_layer_norm.out", {e, h.int_list({3}), h.none(), h.none(), h.real(1e-5), eo, em, er,
                                                 h.tensor_list({eo, em, er})}).ok());
  CHECK(h.sizes(eo) == std::vector<int32_t>{0, 3});
  CHECK(h.sizes(em) == std::vector<int32_t>{0, 1});
}

TEST_CASE("native_layer_norm errors", "[kernels][linalg][norm]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  auto mean = h.out(ScalarType::kFloat, {2, 1});
  auto rstd = h.out(ScalarType::kFloat, {2, 1});
  const std::string op = "aten::native_layer_norm.out: ";
  auto fail = [&](size_t in, std::vector<int64_t> shape, size_t w, size_t o, size_t m) {
    auto s = h.call("aten::native_layer_norm.out", {in, h.int_list(shape), w, h.none(), h.real(1e-5), o, m, rstd,
                                                    h.tensor_list({o, m, rstd})});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, {4}, h.none(), out, mean) == op + "normalized_shape [4] does not match the trailing dimensions of input [2, 3]");
  CHECK(fail(x, {1, 2, 3}, h.none(), out, mean) ==
        op + "normalized_shape [1, 2, 3] does not match the trailing dimensions of input [2, 3]");
  CHECK(fail(x, {}, h.none(), out, mean) == op + "normalized_shape must not be empty");
  auto w2 = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
  CHECK(fail(x, {3}, w2, out, mean) == op + "weight [2] must have shape [3] (normalized_shape)");
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(fail(ix, {3}, h.none(), out, mean) == op + "unsupported dtype INT (float32 or float64 only)");
  auto dmean = h.out(ScalarType::kDouble, {2, 1});
  CHECK(fail(x, {3}, h.none(), out, dmean) == op + "out1 dtype DOUBLE does not match input dtype FLOAT");
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 3}, {1, 2, 3, 4, 5, 6}, {0, 2, 3, 1});
  auto o4 = h.out(ScalarType::kFloat, {1, 2, 1, 3});
  CHECK(fail(cl, {3}, h.none(), o4, mean) == op + "input with dim order [0, 2, 3, 1] is not supported (contiguous only)");
  auto small_mean = h.out(ScalarType::kFloat, {1, 1});
  CHECK(fail(x, {3}, h.none(), out, small_mean) == op + "out1: cannot resize a static tensor");
}

TEST_CASE("native_group_norm: per-group statistics, per-channel affine", "[kernels][linalg][norm]") {
  KernelHarness h;
  // N 1, C 4, HxW 2; groups of two channels: {1, 2, 3, 4} and {5, 6, 7, 8}.
  const std::vector<float> xs{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> wv{1, -1, 2, 0.5}, bv{0, 1, -1, 3};
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 4, 2}, xs);
  auto w = h.tensor<float>(ScalarType::kFloat, {4}, {1, -1, 2, 0.5f});
  auto b = h.tensor<float>(ScalarType::kFloat, {4}, {0, 1, -1, 3});
  const double eps = 1e-5;
  auto run = [&](size_t in, size_t weight, size_t bias, size_t out, size_t mean, size_t rstd) {
    return h.call("aten::native_group_norm.out", {in, weight, bias, h.integer(1), h.integer(4), h.integer(2),
                                                  h.integer(2), h.real(eps), out, mean, rstd,
                                                  h.tensor_list({out, mean, rstd})});
  };
  auto out = h.out(ScalarType::kFloat, {1, 4, 2});
  auto mean = h.out(ScalarType::kFloat, {1, 2});
  auto rstd = h.out(ScalarType::kFloat, {1, 2});
  REQUIRE(run(x, w, b, out, mean, rstd).ok());
  const Stats g0 = stats_of({1, 2, 3, 4}, eps), g1 = stats_of({5, 6, 7, 8}, eps);
  CHECK(h.data<float>(mean) == std::vector<float>{2.5f, 6.5f});
  CHECK(h.data<float>(rstd)[0] == Approx(g0.rstd));
  CHECK(h.data<float>(rstd)[1] == Approx(g1.rstd));
  const auto got = h.data<float>(out);
  for (size_t i = 0; i < 8; ++i) {
    const size_t c = i / 2;
    const Stats& s = c < 2 ? g0 : g1;
    CHECK(got[i] == Approx((xs[i] - s.mean) * s.rstd * wv[c] + bv[c]));
  }
  // Without weight and bias; the same data as [1, 4, 1, 2] channels-last
  // gives the same logical values.
  auto plain = h.out(ScalarType::kFloat, {1, 4, 2});
  REQUIRE(run(x, h.none(), h.none(), plain, mean, rstd).ok());
  std::vector<float> nhwc(8);
  for (size_t c = 0; c < 4; ++c) {
    for (size_t p = 0; p < 2; ++p) nhwc[p * 4 + c] = xs[c * 2 + p];
  }
  auto xcl = h.tensor<float>(ScalarType::kFloat, {1, 4, 1, 2}, nhwc, {0, 2, 3, 1});
  auto ocl = h.out(ScalarType::kFloat, {1, 4, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(run(xcl, h.none(), h.none(), ocl, mean, rstd).ok());
  const auto p = h.data<float>(plain), q = h.data<float>(ocl);
  for (size_t c = 0; c < 4; ++c) {
    for (size_t s = 0; s < 2; ++s) CHECK(q[s * 4 + c] == Approx(p[c * 2 + s]));
  }
  CHECK(p[0] == Approx((1 - 2.5) * g0.rstd));
}

TEST_CASE("native_group_norm: double, empty batch, errors", "[kernels][linalg][norm]") {
  KernelHarness h;
  // One group over [0, 2] (mean 1, variance 1) with eps 0: [-1, 1].
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 1, 2}, {0, 2});
  auto dout = h.out(ScalarType::kDouble, {1, 1, 2});
  auto dm = h.out(ScalarType::kDouble, {1, 1});
  auto dr = h.out(ScalarType::kDouble, {1, 1});
  REQUIRE(h.call("aten::native_group_norm.out", {dx, h.none(), h.none(), h.integer(1), h.integer(1), h.integer(2),
                                                 h.integer(1), h.real(0), dout, dm, dr, h.tensor_list({dout, dm, dr})}).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{-1, 1});
  CHECK(h.data<double>(dr) == std::vector<double>{1});
  auto ex = h.tensor<float>(ScalarType::kFloat, {0, 4, 3}, {});
  auto eo = h.out(ScalarType::kFloat, {1, 4, 3}, true);
  auto em = h.out(ScalarType::kFloat, {1, 2}, true);
  auto er = h.out(ScalarType::kFloat, {1, 2}, true);
  REQUIRE(h.call("aten::native_group_norm.out", {ex, h.none(), h.none(), h.integer(0), h.integer(4), h.integer(3),
                                                 h.integer(2), h.real(1e-5), eo, em, er, h.tensor_list({eo, em, er})}).ok());
  CHECK(h.sizes(eo) == std::vector<int32_t>{0, 4, 3});
  CHECK(h.sizes(em) == std::vector<int32_t>{0, 2});

  auto x = h.tensor<float>(ScalarType::kFloat, {1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto out = h.out(ScalarType::kFloat, {1, 4, 2});
  auto mean = h.out(ScalarType::kFloat, {1, 2});
  auto rstd = h.out(ScalarType::kFloat, {1, 2});
  const std::string op = "aten::native_group_norm.out: ";
  auto fail = [&](size_t in, size_t w, int64_t n, int64_t c, int64_t hxw, int64_t groups, size_t o) {
    auto s = h.call("aten::native_group_norm.out", {in, w, h.none(), h.integer(n), h.integer(c), h.integer(hxw),
                                                    h.integer(groups), h.real(1e-5), o, mean, rstd,
                                                    h.tensor_list({o, mean, rstd})});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, h.none(), 2, 4, 2, 2, out) == op + "input [1, 4, 2] does not match N 2, C 4, HxW 2");
  CHECK(fail(x, h.none(), 1, 4, 3, 2, out) == op + "input [1, 4, 2] does not match N 1, C 4, HxW 3");
  // An HxW whose product with N * C would overflow int64.
  CHECK(fail(x, h.none(), 1, 4, int64_t(1) << 62, 2, out) ==
        op + "input [1, 4, 2] does not match N 1, C 4, HxW 4611686018427387904");
  CHECK(fail(x, h.none(), 1, 4, 2, 3, out) == op + "C 4 is not divisible by group 3");
  CHECK(fail(x, h.none(), 1, 4, 2, 0, out) == op + "C 4 is not divisible by group 0");
  auto w3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  CHECK(fail(x, w3, 1, 4, 2, 2, out) == op + "weight [3] must be 1-D of size 4 (one per channel)");
  auto v = h.tensor<float>(ScalarType::kFloat, {4}, {1, 2, 3, 4});
  CHECK(fail(v, h.none(), 1, 4, 1, 2, out) == op + "input must have at least 2 dimensions (N, C, ...), got [4]");
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(fail(ix, h.none(), 1, 4, 2, 2, out) == op + "unsupported dtype INT (float32 or float64 only)");
  // A [N, C, H, W] tensor whose H and W do not flatten evenly (dim order
  // 0, 3, 1, 2) is refused.
  auto odd = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 3, 1, 2});
  auto oo = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  auto m1 = h.out(ScalarType::kFloat, {1, 1});
  auto r1 = h.out(ScalarType::kFloat, {1, 1});
  auto s = h.call("aten::native_group_norm.out", {odd, h.none(), h.none(), h.integer(1), h.integer(2), h.integer(4),
                                                  h.integer(1), h.real(1e-5), oo, m1, r1, h.tensor_list({oo, m1, r1})});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "input with dim order [0, 3, 1, 2] is not supported");
}

namespace {

// native_batch_norm.out / _native_batch_norm_legit.out:
// (input, weight?, bias?, running_mean, running_var, training, momentum, eps, out, save_mean, save_invstd, ret).
etkit::Status batch_norm_training(KernelHarness& h, const std::string& op, size_t in, size_t w, size_t b,
                                  size_t mean, size_t var, bool training, double momentum, size_t out, size_t save_mean,
                                  size_t save_invstd) {
  return h.call(op, {in, w, b, mean, var, h.boolean(training), h.real(momentum), h.real(0.0), out, save_mean,
                     save_invstd, h.tensor_list({out, save_mean, save_invstd})});
}

}  // namespace

TEST_CASE("native_batch_norm and _native_batch_norm_legit in training use the batch statistics",
          "[kernels][linalg][norm]") {
  // [N 2, C 2, L 2]: channel 0 holds {1, 3, 1, 3} (mean 2, biased variance
  // 1, unbiased 4/3), channel 1 {0, 4, 4, 0} (mean 2, variance 4, unbiased
  // 16/3). With eps 0, invstd is (1, 0.5); weight (2, 1) and bias (0, 10)
  // give channel 0 (x - 2) * 2 and channel 1 (x - 2) / 2 + 10.
  const std::vector<float> xs{1, 3, 0, 4, 1, 3, 4, 0};
  const std::vector<float> expected{-2, 2, 9, 11, -2, 2, 11, 9};
  for (const std::string op : {"aten::native_batch_norm.out", "aten::_native_batch_norm_legit.out"}) {
    INFO(op);
    KernelHarness h;
    auto x = h.tensor<float>(ScalarType::kFloat, {2, 2, 2}, xs);
    auto w = h.tensor<float>(ScalarType::kFloat, {2}, {2, 1});
    auto b = h.tensor<float>(ScalarType::kFloat, {2}, {0, 10});
    auto rm = h.tensor<float>(ScalarType::kFloat, {2}, {0, 1});
    auto rv = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
    auto out = h.out(ScalarType::kFloat, {2, 2, 2});
    auto save_mean = h.out(ScalarType::kFloat, {2});
    auto save_invstd = h.out(ScalarType::kFloat, {2});
    REQUIRE(batch_norm_training(h, op, x, w, b, rm, rv, true, 0.5, out, save_mean, save_invstd).ok());
    CHECK(h.data<float>(out) == expected);
    CHECK(h.data<float>(save_mean) == std::vector<float>{2, 2});
    CHECK(h.data<float>(save_invstd) == std::vector<float>{1, 0.5f});
    // Momentum 0.5: halfway from (0, 1) to the batch means, and from (1, 1)
    // to the unbiased variances: 1/2 + 2/3 and 1/2 + 8/3.
    CHECK(h.data<float>(rm) == std::vector<float>{1, 1.5f});
    CHECK(h.data<float>(rv)[0] == Approx(7.0 / 6));
    CHECK(h.data<float>(rv)[1] == Approx(19.0 / 6));

    // Not training: the (updated) running statistics normalise, and the
    // statistics outs become empty. Channel 0: (x - 1) / sqrt(7/6) * 2.
    auto o2 = h.out(ScalarType::kFloat, {2, 2, 2});
    auto m2 = h.out(ScalarType::kFloat, {2}, true);
    auto s2 = h.out(ScalarType::kFloat, {2}, true);
    REQUIRE(batch_norm_training(h, op, x, w, b, rm, rv, false, 0.5, o2, m2, s2).ok());
    CHECK(h.sizes(m2) == std::vector<int32_t>{0});
    CHECK(h.sizes(s2) == std::vector<int32_t>{0});
    CHECK(h.data<float>(o2)[1] == Approx((3 - 1) / std::sqrt(7.0 / 6) * 2));
    CHECK(h.data<float>(o2)[3] == Approx((4 - 1.5) / std::sqrt(19.0 / 6) + 10));
    CHECK(h.data<float>(rm) == std::vector<float>{1, 1.5f});  // unchanged
  }
}

TEST_CASE("native_batch_norm: optional running statistics, no_stats overload, channels-last, double",
          "[kernels][linalg][norm]") {
  KernelHarness h;
  // Training without running statistics: [N 4, C 1] = {1, 1, 3, 3}, mean 2,
  // variance 1: out = x - 2.
  auto x = h.tensor<float>(ScalarType::kFloat, {4, 1}, {1, 1, 3, 3});
  auto out = h.out(ScalarType::kFloat, {4, 1});
  auto sm = h.out(ScalarType::kFloat, {1});
  auto si = h.out(ScalarType::kFloat, {1});
  REQUIRE(batch_norm_training(h, "aten::native_batch_norm.out", x, h.none(), h.none(), h.none(), h.none(), true, 0.1,
                              out, sm, si).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-1, -1, 1, 1});
  CHECK(h.data<float>(sm) == std::vector<float>{2});
  CHECK(h.data<float>(si) == std::vector<float>{1});
  // _native_batch_norm_legit.no_stats_out (input, weight?, bias?, training, momentum, eps, out, save_mean, save_invstd, ret).
  auto b = h.tensor<float>(ScalarType::kFloat, {1}, {5});
  auto o2 = h.out(ScalarType::kFloat, {4, 1});
  REQUIRE(h.call("aten::_native_batch_norm_legit.no_stats_out",
                 {x, h.none(), b, h.boolean(true), h.real(0.1), h.real(0.0), o2, sm, si, h.tensor_list({o2, sm, si})})
              .ok());
  CHECK(h.data<float>(o2) == std::vector<float>{4, 4, 6, 6});
  // Channels-last [N 1, C 2, H 1, W 2]: logical channel 0 = {1, 3}, channel
  // 1 = {10, 30} (mean 20, variance 100), stored pixel-major.
  auto xcl = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 10, 3, 30}, {0, 2, 3, 1});
  auto ocl = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  auto m2 = h.out(ScalarType::kFloat, {2});
  auto s2 = h.out(ScalarType::kFloat, {2});
  REQUIRE(batch_norm_training(h, "aten::native_batch_norm.out", xcl, h.none(), h.none(), h.none(), h.none(), true, 0.1,
                              ocl, m2, s2).ok());
  CHECK(h.data<float>(ocl) == std::vector<float>{-1, -1, 1, 1});
  CHECK(h.data<float>(m2) == std::vector<float>{2, 20});
  CHECK(h.data<float>(s2) == std::vector<float>{1, 0.1f});
  // float64 with running statistics, rank 4 (N 1, C 1, 2 x 2): {0, 0, 2, 2}.
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 1, 2, 2}, {0, 0, 2, 2});
  auto drm = h.tensor<double>(ScalarType::kDouble, {1}, {0});
  auto drv = h.tensor<double>(ScalarType::kDouble, {1}, {0});
  auto dout = h.out(ScalarType::kDouble, {1, 1, 2, 2});
  auto dm = h.out(ScalarType::kDouble, {1});
  auto ds = h.out(ScalarType::kDouble, {1});
  REQUIRE(batch_norm_training(h, "aten::_native_batch_norm_legit.out", dx, h.none(), h.none(), drm, drv, true, 1.0,
                              dout, dm, ds).ok());
  CHECK(h.data<double>(dout) == std::vector<double>{-1, -1, 1, 1});
  CHECK(h.data<double>(drm) == std::vector<double>{1});  // momentum 1: the batch mean
  CHECK(h.data<double>(drv)[0] == Approx(4.0 / 3));      // and the unbiased variance
  // An empty batch in training: no statistics to update.
  auto ex = h.tensor<float>(ScalarType::kFloat, {0, 1}, {});
  auto rm = h.tensor<float>(ScalarType::kFloat, {1}, {7});
  auto rv = h.tensor<float>(ScalarType::kFloat, {1}, {9});
  auto eo = h.out(ScalarType::kFloat, {4, 1}, true);
  REQUIRE(batch_norm_training(h, "aten::native_batch_norm.out", ex, h.none(), h.none(), rm, rv, true, 0.5, eo, sm, si)
              .ok());
  CHECK(h.sizes(eo) == std::vector<int32_t>{0, 1});
  CHECK(h.data<float>(rm) == std::vector<float>{7});
  CHECK(h.data<float>(rv) == std::vector<float>{9});
}

TEST_CASE("native_batch_norm errors", "[kernels][linalg][norm]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto c2 = h.tensor<float>(ScalarType::kFloat, {2}, {0, 1});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  auto sm = h.out(ScalarType::kFloat, {2});
  auto si = h.out(ScalarType::kFloat, {2});
  auto fail = [&](const std::string& op, size_t in, size_t mean, size_t var, bool training, size_t o, size_t m) {
    auto s = batch_norm_training(h, op, in, h.none(), h.none(), mean, var, training, 0.1, o, m, si);
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  const std::string nbn = "aten::native_batch_norm.out";
  CHECK(fail(nbn, x, h.none(), h.none(), false, out, sm) ==
        nbn + ": running_mean and running_var are required when not training");
  CHECK(fail(nbn, x, c2, h.none(), true, out, sm) ==
        nbn + ": running_mean and running_var must both be given or both be None");
  auto one = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 2});
  auto o1 = h.out(ScalarType::kFloat, {1, 2});
  CHECK(fail(nbn, one, c2, c2, true, o1, sm) ==
        nbn + ": expected more than 1 value per channel when training, got input [1, 2]");
  auto c3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  CHECK(fail(nbn, x, c3, c2, true, out, sm) == nbn + ": running_mean [3] must be 1-D of size 2 (one per channel)");
  auto dm = h.out(ScalarType::kDouble, {2});
  CHECK(fail(nbn, x, c2, c2, true, out, dm) == nbn + ": save_mean dtype DOUBLE does not match input dtype FLOAT");
  auto small = h.out(ScalarType::kFloat, {1});
  CHECK(fail(nbn, x, c2, c2, true, out, small) == nbn + ": save_mean: cannot resize a static tensor");
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  CHECK(fail(nbn, ix, c2, c2, true, out, sm) == nbn + ": unsupported dtype INT (float32 or float64 only)");
  const std::string legit = "aten::_native_batch_norm_legit.out";
  CHECK(fail(legit, x, h.none(), c2, true, out, sm) == legit + ": running_mean must be a tensor, not None");
  const std::string no_stats = "aten::_native_batch_norm_legit.no_stats_out";
  auto s = h.call(no_stats, {x, h.none(), h.none(), h.boolean(false), h.real(0.1), h.real(1e-5), out, sm, si,
                             h.tensor_list({out, sm, si})});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == no_stats + ": running_mean and running_var are required when not training");
}
