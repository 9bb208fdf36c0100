#include "libcore/compare/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "libcore/inspect/perf_stats.h"

namespace etkit::compare {
namespace {

constexpr size_t kMaxExactPairs = 2500;

// P(Z > z) of a standard normal.
double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// Counts of U = u over all orderings of m candidate and n baseline values
// (no ties): the largest value is either a candidate one, beating all n
// baseline values, or a baseline one: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
std::vector<double> exact_u_counts(size_t m, size_t n) {
  // f[k][u] for the current n and k = 0..m candidate values.
  std::vector<std::vector<double>> f(m + 1, std::vector<double>(m * n + 1, 0.0));
  for (size_t k = 0; k <= m; ++k) f[k][0] = 1.0;  // n = 0: one ordering, U = 0
  for (size_t j = 1; j <= n; ++j) {
    std::vector<std::vector<double>> g(m + 1, std::vector<double>(m * n + 1, 0.0));
    g[0][0] = 1.0;
    for (size_t k = 1; k <= m; ++k) {
      for (size_t u = 0; u <= k * j; ++u) {
        double count = f[k][u];                  // the largest is a baseline value
        if (u >= j) count += g[k - 1][u - j];    // the largest is a candidate value
        g[k][u] = count;
      }
    }
    f = std::move(g);
  }
  return f[m];
}

// Quantile of sorted values with numpy's linear method, safe for infinities
// (a zero baseline statistic makes a resampled ratio infinite).
double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double v = double(sorted.size() - 1) * q;
  const size_t lo = size_t(std::floor(v));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double a = sorted[lo], b = sorted[lo + 1], gamma = v - std::floor(v);
  if (a == b || gamma == 0) return a;
  if (std::isinf(b)) return b;
  return gamma >= 0.5 ? b - (b - a) * (1.0 - gamma) : a + (b - a) * gamma;
}

double ratio_of(double candidate, double baseline) {
  if (baseline == 0) return candidate == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return candidate / baseline;
}

// An unbiased index in [0, n) from the generator (rejection of the tail).
size_t draw_index(std::mt19937_64& rng, size_t n) {
  const uint64_t range = uint64_t(n);
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return size_t(x % range);
}

// statistic_of() on a scratch resample, in linear time: the median through
// nth_element (reordering `v`), with numpy's interpolation between the two
// middle values for an even count (gamma = 0.5: b - (b - a) * 0.5).
double resample_statistic(std::vector<double>& v, Statistic statistic) {
  if (statistic != Statistic::kP50) return statistic_of(v, statistic);
  const size_t n = v.size(), lo = (n - 1) / 2;
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(lo), v.end());
  const double a = v[lo];
  if (n % 2 == 1) return a;
  const double b = *std::min_element(v.begin() + ptrdiff_t(lo) + 1, v.end());
  return b - (b - a) * 0.5;
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const double> baseline, std::span<const double> candidate) {
  MannWhitney r;
  const size_t nb = baseline.size(), nc = candidate.size(), n = nb + nc;
  if (nb == 0 || nc == 0) return r;

  // Pooled ranks (1-based, ties get their average rank).
  std::vector<std::pair<double, bool>> pooled;  // value, is candidate
  for (double v : baseline) pooled.emplace_back(v, false);
  for (double v : candidate) pooled.emplace_back(v, true);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = double(j - i);
    const double average_rank = (double(i + 1) + double(j)) / 2.0;
    for (size_t k = i; k < j; ++k) rank_sum += pooled[k].second ? average_rank : 0.0;
    tie_term += t * t * t - t;
    i = j;
  }
  r.u = rank_sum - double(nc) * double(nc + 1) / 2.0;
  const double pairs = double(nb) * double(nc);

  if (tie_term == 0 && nb * nc <= kMaxExactPairs) {
    r.exact = true;
    // f(m, n, u) = f(n, m, u): the smaller side as m keeps the table small.
    const std::vector<double> counts = exact_u_counts(std::min(nb, nc), std::max(nb, nc));
    double total = 0, at_least = 0, at_most = 0;
    const auto u_obs = size_t(std::llround(r.u));
    for (size_t u = 0; u < counts.size(); ++u) {
      total += counts[u];
      if (u >= u_obs) at_least += counts[u];
      if (u <= u_obs) at_most += counts[u];
    }
    r.p_greater = at_least / total;
    r.p_less = at_most / total;
    r.p_two_sided = std::min(1.0, 2.0 * std::min(r.p_greater, r.p_less));
    return r;
  }

  const double mu = pairs / 2.0;
  const double variance = pairs / 12.0 * ((double(n) + 1.0) - tie_term / (double(n) * (double(n) - 1.0)));
  if (!(variance > 0)) return r;  // every value tied: no evidence either way
  const double sigma = std::sqrt(variance);
  r.p_greater = normal_sf((r.u - mu - 0.5) / sigma);
  r.p_less = normal_sf((mu - r.u - 0.5) / sigma);
  r.p_two_sided = std::min(1.0, 2.0 * normal_sf((std::fabs(r.u - mu) - 0.5) / sigma));
  return r;
}

std::vector<bool> holm_reject(std::span<const double> p_values, double alpha) {
  std::vector<size_t> order(p_values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  std::vector<bool> reject(p_values.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    if (!(p_values[order[i]] < alpha / double(order.size() - i))) break;
    reject[order[i]] = true;
  }
  return reject;
}

std::string_view statistic_name(Statistic statistic) {
  switch (statistic) {
    case Statistic::kP50: return "p50";
    case Statistic::kAvg: return "avg";
    case Statistic::kMin: return "min";
  }
  return "";
}

double statistic_of(std::span<const double> samples, Statistic statistic) {
  switch (statistic) {
    case Statistic::kP50: return inspect::percentile(samples, 50);
    case Statistic::kAvg: return inspect::mean(samples);
    case Statistic::kMin: return *std::min_element(samples.begin(), samples.end());
  }
  return std::numeric_limits<double>::quiet_NaN();
}

RatioInterval bootstrap_ratio(std::span<const double> baseline, std::span<const double> candidate, Statistic statistic,
                              double confidence, uint64_t seed, size_t resamples) {
  RatioInterval r;
  r.ratio = ratio_of(statistic_of(candidate, statistic), statistic_of(baseline, statistic));
  if (resamples == 0) {
    r.low = r.high = r.ratio;
    return r;
  }
  std::mt19937_64 rng(seed);
  std::vector<double> ratios(resamples), b(baseline.size()), c(candidate.size());
  for (double& ratio : ratios) {
    for (double& v : b) v = baseline[draw_index(rng, baseline.size())];
    for (double& v : c) v = candidate[draw_index(rng, candidate.size())];
    ratio = ratio_of(resample_statistic(c, statistic), resample_statistic(b, statistic));
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - confidence) / 2.0;
  r.low = quantile_sorted(ratios, tail);
  r.high = quantile_sorted(ratios, 1.0 - tail);
  return r;
}

}  // namespace etkit::compare
