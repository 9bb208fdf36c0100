// Tensor metrics against closed forms and the Python comparators' edge cases
// (inspector_spec.md §10.1), computed by hand.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "libcore/compare/metrics.h"
#include "libcore/compare/pair_compare.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Metrics metrics(const std::vector<double>& ref, const std::vector<double>& cand, Tolerance tol = {}) {
  return compute_metrics(ref, cand, tol);
}

}  // namespace

TEST_CASE("snr of a sine plus known noise matches the closed form", "[et-compare][metrics]") {
  // Over whole periods the mean of A^2 sin^2 is A^2 / 2; noise of +-sigma in
  // alternation has power sigma^2, so SNR = 10 log10(A^2 / (2 sigma^2)).
  const double amplitude = 3.0, sigma = 0.02;
  const size_t n = 4096;  // 64 periods of 64 samples
  std::vector<double> signal(n), noisy(n);
  for (size_t i = 0; i < n; ++i) {
    signal[i] = amplitude * std::sin(2 * M_PI * double(i) / 64.0);
    noisy[i] = signal[i] + (i % 2 ? sigma : -sigma);
  }
  const Metrics m = metrics(signal, noisy);
  CHECK(m.snr_db == Approx(10 * std::log10(amplitude * amplitude / (2 * sigma * sigma))).epsilon(1e-9));
  CHECK(m.snr_db == Approx(40.5115252).epsilon(1e-8));  // 10 log10(11250)
  CHECK(m.mse == Approx(sigma * sigma).epsilon(1e-9));
  CHECK(m.l1 == Approx(sigma).epsilon(1e-9));
  CHECK(m.max_abs == Approx(sigma).epsilon(1e-9));
  CHECK(m.numel == n);
}

TEST_CASE("python comparator cases: scalars and NaN replaced by zero", "[et-compare][metrics]") {
  // MSE of 10 vs 2 is 64; SNR of 1 vs 2 is 10 log10(1/1) = 0; L1 of 1 vs 2 is 1.
  CHECK(metrics({10}, {2}).mse == 64.0);
  CHECK(metrics({1}, {2}).snr_db == 0.0);
  CHECK(metrics({1}, {2}).l1 == 1.0);
  // [3,2,-1,nan] vs [nan,0,-3,1]: NaN -> 0 gives differences 3,2,2,-1:
  // the Python L1 sum is 8, our mean 2; squares 9+4+4+1 = 18, mean 4.5.
  const Metrics m = metrics({3, 2, -1, kNan}, {kNan, 0, -3, 1});
  CHECK(m.l1 == 2.0);
  CHECK(m.l1 * double(m.numel) == 8.0);
  CHECK(m.mse == 4.5);
  CHECK(m.max_abs == 3.0);
  CHECK(m.nan_in_reference == 1);
  CHECK(m.nan_in_candidate == 1);
  CHECK_FALSE(m.allclose);
  CHECK(m.mismatches == 4);
}

TEST_CASE("snr and cosine edge cases: zero noise, 0/0, zero signal", "[et-compare][metrics]") {
  SECTION("zero noise with a signal is +inf") {
    const Metrics m = metrics({1, -2, 3}, {1, -2, 3});
    CHECK(m.snr_db == kInf);
    CHECK(m.mse == 0.0);
    CHECK(m.max_abs == 0.0);
    CHECK(m.cosine == Approx(1.0));
    CHECK(m.allclose);
  }
  SECTION("zero signal and zero noise is NaN") {
    const Metrics m = metrics({0, 0}, {0, 0});
    CHECK(std::isnan(m.snr_db));
    CHECK(std::isnan(m.cosine));
    CHECK(m.mse == 0.0);
    CHECK(m.allclose);
  }
  SECTION("zero signal with noise is -inf") {
    const Metrics m = metrics({0, 0}, {1, -1});
    CHECK(m.snr_db == -kInf);
    CHECK(std::isnan(m.cosine));  // 0 / (0 * sqrt 2)
    CHECK(m.mse == 1.0);
  }
  SECTION("opposite vectors have cosine -1, orthogonal 0") {
    CHECK(metrics({1, 2}, {-1, -2}).cosine == Approx(-1.0));
    CHECK(metrics({1, 0}, {0, 5}).cosine == 0.0);
    // [1,2,3].[4,5,6] = 32; |a| = sqrt 14, |b| = sqrt 77.
    CHECK(metrics({1, 2, 3}, {4, 5, 6}).cosine == Approx(32 / std::sqrt(14.0 * 77.0)).epsilon(1e-12));
  }
}

TEST_CASE("NaN on one side or both, infinities", "[et-compare][metrics]") {
  SECTION("NaN only in the candidate: not close, metrics on zeros") {
    const Metrics m = metrics({1, 2}, {1, kNan});
    CHECK_FALSE(m.allclose);
    CHECK(m.mismatches == 1);
    CHECK(m.mse == 2.0);  // (2 - 0)^2 / 2
    CHECK(m.nan_in_candidate == 1);
    CHECK(m.nan_in_reference == 0);
  }
  SECTION("NaN in the same place on both sides is close") {
    const Metrics m = metrics({1, kNan}, {1, kNan});
    CHECK(m.allclose);
    CHECK(m.mse == 0.0);
    CHECK(m.snr_db == kInf);
  }
  SECTION("an operand with a NaN maps its infinities to the largest double") {
    const Metrics m = metrics({kInf, kNan}, {0, 0});
    CHECK(m.max_abs == std::numeric_limits<double>::max());
  }
  SECTION("without NaN, infinities stay: inf - inf is NaN as in torch") {
    const Metrics m = metrics({kInf, 1}, {kInf, 1});
    CHECK(m.allclose);  // the same infinity matches
    CHECK(std::isnan(m.mse));
    CHECK(std::isnan(m.max_abs));
    CHECK_FALSE(metrics({kInf}, {-kInf}).allclose);
    CHECK_FALSE(metrics({kInf}, {1e308}).allclose);
  }
}

TEST_CASE("empty tensors: metrics NaN, allclose", "[et-compare][metrics]") {
  const Metrics m = metrics({}, {});
  CHECK(m.numel == 0);
  CHECK(std::isnan(m.mse));
  CHECK(std::isnan(m.l1));
  CHECK(std::isnan(m.max_abs));
  CHECK(std::isnan(m.snr_db));
  CHECK(std::isnan(m.cosine));
  CHECK(m.allclose);
}

TEST_CASE("allclose uses atol + rtol * |reference|", "[et-compare][metrics]") {
  const Tolerance tol{0.1, 0.01};
  // Bound for reference 10 is 0.01 + 1 = 1.01.
  CHECK(metrics({10}, {11.0}, tol).allclose);
  CHECK_FALSE(metrics({10}, {11.02}, tol).allclose);
  // The bound scales with the reference, not the candidate: |0 - 1| > 0.01.
  CHECK_FALSE(metrics({0}, {1}, tol).allclose);
  CHECK(metrics({1}, {0.905}, tol).allclose);  // 0.095 <= 0.11
  const Metrics two = metrics({1, 2, 3}, {1, 2.5, 9}, Tolerance{0, 0.1});
  CHECK(two.mismatches == 2);
}

TEST_CASE("integer values compare as doubles", "[et-compare][metrics]") {
  // [1,2,3] vs [1,2,4]: one error of 1.
  const Metrics m = metrics({1, 2, 3}, {1, 2, 4}, Tolerance{0, 0});
  CHECK(m.mse == Approx(1.0 / 3));
  CHECK(m.l1 == Approx(1.0 / 3));
  CHECK(m.max_abs == 1.0);
  CHECK(m.mismatches == 1);
  // signal 14/3, noise 1/3: 10 log10(14).
  CHECK(m.snr_db == Approx(10 * std::log10(14.0)));
}

TEST_CASE("metric names", "[et-compare][metrics]") {
  CHECK(parse_metric("snr") == Metric::kSnr);
  CHECK(parse_metric("SNR_DB") == Metric::kSnr);
  CHECK(parse_metric("Max_Abs") == Metric::kMaxAbs);
  CHECK(parse_metric("cosine") == Metric::kCosine);
  CHECK_FALSE(parse_metric("psnr"));
  CHECK(metric_name(Metric::kL1) == "l1");
}

TEST_CASE("pairs: shapes, dtypes, missing sides, thresholds", "[et-compare][metrics]") {
  const TensorValues a{ScalarType::kFloat, {2}, {1, 2}};
  const TensorValues b{ScalarType::kFloat, {1, 2}, {1, 2}};
  const TensorValues c{ScalarType::kHalf, {2}, {1, 2.5}};
  Criteria allclose;
  const PairResult shape = compare_pair(&a, &b, allclose);
  CHECK(shape.status == PairStatus::kShapeMismatch);
  CHECK(shape.failed);
  CHECK(shape.reference == "FLOAT[2]");
  CHECK(shape.candidate == "FLOAT[1, 2]");

  const PairResult dtype = compare_pair(&a, &c, allclose);
  CHECK(dtype.status == PairStatus::kCompared);
  CHECK(dtype.dtype_differs);
  CHECK(dtype.failed);  // 2.5 vs 2
  CHECK(dtype.metrics.max_abs == 0.5);

  CHECK(compare_pair(&a, nullptr, allclose).status == PairStatus::kOnlyInReference);
  CHECK(compare_pair(nullptr, &a, allclose).failed);

  // mse = 0.125, snr = 10 log10(2.5 / 0.125) = 13.01 dB.
  Criteria loose;
  loose.thresholds = {*parse_threshold("snr<10"), *parse_threshold("mse>0.1")};
  const PairResult crossed = compare_pair(&a, &c, loose);
  CHECK(crossed.failed);
  REQUIRE(crossed.crossed.size() == 1);
  CHECK(crossed.crossed[0].text() == "mse>0.1");
  Criteria looser;
  looser.thresholds = {*parse_threshold("snr<10")};
  CHECK_FALSE(compare_pair(&a, &c, looser).failed);
}
