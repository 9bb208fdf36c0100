// Mann-Whitney U against small cases counted by hand, the normal
// approximation against a calculator, and the bootstrap interval's
// coverage and reproducibility.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "libcore/compare/stats.h"

using namespace etkit::compare;

TEST_CASE("mann-whitney exact: small cases counted by hand", "[et-compare][stats]") {
  SECTION("complete separation of 3 and 3: 1 ordering of C(6,3) = 20") {
    const MannWhitney r = mann_whitney_u(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
    CHECK(r.exact);
    CHECK(r.u == 9.0);
    CHECK(r.p_greater == Approx(1.0 / 20));
    CHECK(r.p_less == 1.0);
    CHECK(r.p_two_sided == Approx(0.1));
  }
  SECTION("2 and 2 interleaved: U = 3, counts of U = 0..4 are 1,1,2,1,1") {
    const MannWhitney r = mann_whitney_u(std::vector<double>{1, 3}, std::vector<double>{2, 4});
    CHECK(r.u == 3.0);
    CHECK(r.p_greater == Approx(2.0 / 6));
    CHECK(r.p_less == Approx(5.0 / 6));
    CHECK(r.p_two_sided == Approx(4.0 / 6));
  }
  SECTION("unequal sizes: the single baseline value is below both candidates") {
    const MannWhitney r = mann_whitney_u(std::vector<double>{1}, std::vector<double>{2, 3});
    CHECK(r.u == 2.0);
    CHECK(r.p_greater == Approx(1.0 / 3));
    const MannWhitney s = mann_whitney_u(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{0.5});
    CHECK(s.u == 0.0);
    CHECK(s.p_less == Approx(1.0 / 6));
    CHECK(s.p_greater == 1.0);
  }
  SECTION("swapping the sides swaps the one-sided p-values") {
    const std::vector<double> a = {3.1, 2.7, 4.4, 3.9, 2.2, 5.0}, b = {4.1, 3.3, 6.2, 5.5, 4.8};
    const MannWhitney ab = mann_whitney_u(a, b), ba = mann_whitney_u(b, a);
    CHECK(ab.u + ba.u == 30.0);  // U_a + U_b = n_a n_b
    CHECK(ab.p_greater == Approx(ba.p_less));
    CHECK(ab.p_less == Approx(ba.p_greater));
  }
}

TEST_CASE("mann-whitney with ties: normal approximation with tie and continuity correction", "[et-compare][stats]") {
  // Pooled 1,2,2,2,3,3,3,4: candidate ranks 3,6,6,8 sum to 23, U = 23 - 10 = 13.
  // mu = 8; sigma^2 = 16/12 (9 - (24 + 24) / 56); z = (13 - 8 - 0.5) / sigma.
  const MannWhitney r = mann_whitney_u(std::vector<double>{1, 2, 2, 3}, std::vector<double>{2, 3, 3, 4});
  CHECK_FALSE(r.exact);
  CHECK(r.u == 13.0);
  CHECK(r.p_greater == Approx(0.0860168545).epsilon(1e-8));
  CHECK(r.p_less == Approx(0.9524598066).epsilon(1e-8));
  CHECK(r.p_two_sided == Approx(0.1720337089).epsilon(1e-8));

  const MannWhitney tied = mann_whitney_u(std::vector<double>{1, 1}, std::vector<double>{1, 1});
  CHECK(tied.p_greater == 1.0);
  CHECK(tied.p_two_sided == 1.0);
  const MannWhitney empty = mann_whitney_u(std::vector<double>{}, std::vector<double>{1});
  CHECK(empty.p_two_sided == 1.0);
}

TEST_CASE("mann-whitney: the normal approximation agrees with the exact test near the switch", "[et-compare][stats]") {
  // 50 x 50 (exact) against the same data with one tie added (approximate).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> a(50), b(50);
  for (auto& v : a) v = noise(rng);
  for (auto& v : b) v = noise(rng) + 0.4;
  const MannWhitney exact = mann_whitney_u(a, b);
  REQUIRE(exact.exact);
  b[0] = a[0];  // one tie forces the approximation; U moves by at most 1
  const MannWhitney approx = mann_whitney_u(a, b);
  REQUIRE_FALSE(approx.exact);
  CHECK(approx.p_greater == Approx(exact.p_greater).margin(0.01));
  CHECK(exact.p_greater < 0.05);
}

TEST_CASE("statistics: p50, avg and min as the Inspector computes them", "[et-compare][stats]") {
  const std::vector<double> v = {4, 1, 3, 2};
  CHECK(statistic_of(v, Statistic::kP50) == 2.5);
  CHECK(statistic_of(v, Statistic::kAvg) == 2.5);
  CHECK(statistic_of(v, Statistic::kMin) == 1.0);
  CHECK(statistic_name(Statistic::kAvg) == "avg");
}

TEST_CASE("bootstrap ratio interval: degenerate, shifted, same, reproducible", "[et-compare][stats]") {
  SECTION("constant samples give the exact ratio") {
    const RatioInterval r = bootstrap_ratio(std::vector<double>(10, 2.0), std::vector<double>(10, 3.0), Statistic::kP50,
                                            0.95, 1, 500);
    CHECK(r.ratio == 1.5);
    CHECK(r.low == 1.5);
    CHECK(r.high == 1.5);
  }
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 0.02);
  auto sample = [&](double scale) {
    std::vector<double> v(30);
    for (auto& x : v) x = scale * 100.0 * (1.0 + noise(rng));
    return v;
  };
  const auto base = sample(1.0), slower = sample(1.2), same = sample(1.0);
  SECTION("a 1.2x shift is inside the interval, 1 is not") {
    const RatioInterval r = bootstrap_ratio(base, slower, Statistic::kP50, 0.95, 1, 2000);
    CHECK(r.low < 1.2);
    CHECK(r.high > 1.2);
    CHECK(r.low > 1.1);
    CHECK(r.ratio == Approx(1.2).epsilon(0.03));
  }
  SECTION("the same distribution: the interval holds 1") {
    for (Statistic s : {Statistic::kP50, Statistic::kAvg, Statistic::kMin}) {
      const RatioInterval r = bootstrap_ratio(base, same, s, 0.95, 1, 2000);
      CHECK(r.low <= 1.0);
      CHECK(r.high >= 1.0);
    }
  }
  SECTION("a fixed seed reproduces the interval; another seed moves it") {
    const RatioInterval a = bootstrap_ratio(base, slower, Statistic::kAvg, 0.9, 123, 1000);
    const RatioInterval b = bootstrap_ratio(base, slower, Statistic::kAvg, 0.9, 123, 1000);
    const RatioInterval c = bootstrap_ratio(base, slower, Statistic::kAvg, 0.9, 124, 1000);
    CHECK(a.low == b.low);
    CHECK(a.high == b.high);
    CHECK((a.low != c.low || a.high != c.high));
    // A wider confidence gives a wider interval.
    const RatioInterval wide = bootstrap_ratio(base, slower, Statistic::kAvg, 0.99, 123, 1000);
    CHECK(wide.low <= a.low);
    CHECK(wide.high >= a.high);
  }
  SECTION("the resampled median matches the Inspector's percentile") {
    // With a single value per side every resample is that value.
    const RatioInterval odd = bootstrap_ratio(std::vector<double>{2}, std::vector<double>{3}, Statistic::kP50, 0.95, 1, 10);
    CHECK(odd.low == 1.5);
    // Two values per side: medians of resamples are 1, 1.5 or 2 (baseline)
    // and 4, 5 or 6 (candidate); every ratio lies in [2, 6].
    const RatioInterval even = bootstrap_ratio(std::vector<double>{1, 2}, std::vector<double>{4, 6}, Statistic::kP50, 0.5, 3, 4000);
    CHECK(even.ratio == Approx(5.0 / 1.5));
    CHECK(even.low >= 2.0);
    CHECK(even.high <= 6.0);
    CHECK(even.low < even.ratio);
    CHECK(even.high > even.ratio);
  }
  SECTION("a zero baseline gives an infinite ratio") {
    const RatioInterval r = bootstrap_ratio(std::vector<double>{0, 0}, std::vector<double>{1, 1}, Statistic::kMin, 0.95, 1, 100);
    CHECK(std::isinf(r.ratio));
    CHECK(std::isinf(r.low));
    const RatioInterval both = bootstrap_ratio(std::vector<double>{0}, std::vector<double>{0}, Statistic::kMin, 0.95, 1, 100);
    CHECK(both.ratio == 1.0);
  }
}

TEST_CASE("holm-bonferroni rejects step by step", "[et-compare][stats]") {
  // m = 3, alpha 0.05: 0.01 < 0.05/3 rejects; then 0.03 is not < 0.05/2: stop.
  CHECK(holm_reject(std::vector<double>{0.01, 0.04, 0.03}, 0.05) == std::vector<bool>{true, false, false});
  // 0.001 < 0.0167, 0.02 < 0.025, 0.04 < 0.05: all three.
  CHECK(holm_reject(std::vector<double>{0.04, 0.001, 0.02}, 0.05) == std::vector<bool>{true, true, true});
  CHECK(holm_reject(std::vector<double>{0.05}, 0.05) == std::vector<bool>{false});
  CHECK(holm_reject(std::vector<double>{}, 0.05).empty());
}
