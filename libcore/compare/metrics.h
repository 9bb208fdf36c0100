// Per-tensor error metrics between a reference and a candidate, with the
// formulas and edge cases of ExecuTorch's Python comparators
// (inspector_spec.md §10.1, §11):
//   - an operand holding any NaN first has NaN -> 0 and +-inf -> +-DBL_MAX
//     (torch.nan_to_num, applied only when a NaN is present);
//   - SNR = 10 log10(mean(ref^2) / mean((ref - cand)^2)) in dB, no epsilon:
//     zero noise gives +inf, zero signal and zero noise (0/0) NaN, zero
//     signal with noise -inf;
//   - cosine = sum(ref cand) / (sqrt(sum ref^2) sqrt(sum cand^2)), NaN when
//     either side is all zeros.
// L1 here is the mean absolute error (the Python L1 comparator's sum divided
// by the element count). A tensor without elements has every metric NaN (a
// mean of nothing is 0/0) and is allclose.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace etkit::compare {

struct Tolerance {
  double rtol = 1e-3;  // et-run --verify's (ExecuTorch example runner's) defaults
  double atol = 1e-5;
};

struct Metrics {
  size_t numel = 0;
  double mse = 0;
  double l1 = 0;       // mean |ref - cand|
  double max_abs = 0;  // max |ref - cand|
  double snr_db = 0;
  double cosine = 0;
  // Every element satisfies |cand - ref| <= atol + rtol |ref| on the values
  // as given (numpy.allclose(cand, ref) with equal_nan): NaN matches NaN,
  // an infinity matches the same infinity.
  bool allclose = true;
  size_t mismatches = 0;  // elements outside the tolerance
  size_t nan_in_reference = 0;
  size_t nan_in_candidate = 0;
};

// Both spans must have the same length (the caller checks shapes).
Metrics compute_metrics(std::span<const double> reference, std::span<const double> candidate,
                        const Tolerance& tolerance);

enum class Metric { kMse, kL1, kMaxAbs, kSnr, kCosine };
inline constexpr Metric kAllMetrics[] = {Metric::kMse, Metric::kL1, Metric::kMaxAbs, Metric::kSnr, Metric::kCosine};

// Column and expression names: "mse", "l1", "max_abs", "snr" (in dB), "cosine".
std::string_view metric_name(Metric metric);
// Also accepts "snr_db" for "snr"; case-insensitive.
std::optional<Metric> parse_metric(std::string_view name);
double metric_value(const Metrics& metrics, Metric metric);

}  // namespace etkit::compare
