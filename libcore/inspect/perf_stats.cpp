#include "libcore/inspect/perf_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace etkit::inspect {

namespace {

// numpy's pairwise_sum (numpy/core/src/umath/loops_utils.h.src): plain sum
// below 8 elements, 8 interleaved partial sums up to 128, halves (cut at a
// multiple of 8) above.
double pairwise_sum(const double* a, size_t n) {
  if (n < 8) {
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

// numpy's buffered reduction hands the inner loop at most this many elements.
constexpr size_t kNumpyBufferSize = 8192;

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  const size_t n = sorted.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const double v = double(n - 1) * (q / 100.0);
  if (v >= double(n - 1)) return sorted.back();
  const double lo_floor = std::floor(v);
  const size_t lo = size_t(lo_floor);
  const double gamma = v - lo_floor;
  const double a = sorted[lo], b = sorted[lo + 1];
  const double d = b - a;
  // numpy's _lerp switches formulas at t = 0.5 for monotonicity.
  return gamma >= 0.5 ? b - d * (1.0 - gamma) : a + d * gamma;
}

}  // namespace

double percentile(std::span<const double> samples, double q) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_of_sorted(sorted, q);
}

double mean(std::span<const double> samples) {
  double total = 0.0;
  for (size_t start = 0; start < samples.size(); start += kNumpyBufferSize) {
    total += pairwise_sum(samples.data() + start, std::min(kNumpyBufferSize, samples.size() - start));
  }
  return total / double(samples.size());
}

PerfStats compute_stats(std::span<const double> samples) {
  if (samples.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan, nan, nan, nan};
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  PerfStats s;
  s.p10 = percentile_of_sorted(sorted, 10);
  s.p50 = percentile_of_sorted(sorted, 50);
  s.p90 = percentile_of_sorted(sorted, 90);
  s.avg = mean(samples);
  // Python's min/max return the first of equal elements; for doubles only
  // the sign of zero could tell them apart.
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  return s;
}

}  // namespace etkit::inspect
