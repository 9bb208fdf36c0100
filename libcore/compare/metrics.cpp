#include "libcore/compare/metrics.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace etkit::compare {
namespace {

size_t count_nan(std::span<const double> values) {
  size_t n = 0;
  for (double v : values) n += std::isnan(v) ? 1 : 0;
  return n;
}

// torch.nan_to_num with its defaults.
double nan_to_num(double v) {
  if (std::isnan(v)) return 0.0;
  if (std::isinf(v)) return v > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
  return v;
}

bool close(double ref, double cand, const Tolerance& tol) {
  if (std::isnan(ref) || std::isnan(cand)) return std::isnan(ref) && std::isnan(cand);
  if (std::isinf(ref) || std::isinf(cand)) return ref == cand;
  return std::fabs(cand - ref) <= tol.atol + tol.rtol * std::fabs(ref);
}

}  // namespace

Metrics compute_metrics(std::span<const double> reference, std::span<const double> candidate,
                        const Tolerance& tolerance) {
  Metrics m;
  m.numel = reference.size();
  m.nan_in_reference = count_nan(reference);
  m.nan_in_candidate = count_nan(candidate);
  const bool map_ref = m.nan_in_reference > 0, map_cand = m.nan_in_candidate > 0;

  double sum_sq_err = 0, sum_abs_err = 0, max_abs = 0, sum_ref_sq = 0, sum_cand_sq = 0, dot = 0;
  bool max_is_nan = false;
  for (size_t i = 0; i < m.numel; ++i) {
    if (!close(reference[i], candidate[i], tolerance)) ++m.mismatches;
    const double a = map_ref ? nan_to_num(reference[i]) : reference[i];
    const double b = map_cand ? nan_to_num(candidate[i]) : candidate[i];
    const double diff = a - b;  // inf - inf gives NaN, as in torch
    const double abs_diff = std::fabs(diff);
    sum_sq_err += diff * diff;
    sum_abs_err += abs_diff;
    if (std::isnan(abs_diff)) max_is_nan = true;
    else if (abs_diff > max_abs) max_abs = abs_diff;
    sum_ref_sq += a * a;
    sum_cand_sq += b * b;
    dot += a * b;
  }
  m.allclose = m.mismatches == 0;
  const double n = double(m.numel);  // 0 for an empty tensor: every mean is 0/0
  m.mse = sum_sq_err / n;
  m.l1 = sum_abs_err / n;
  m.max_abs = m.numel == 0 || max_is_nan ? std::numeric_limits<double>::quiet_NaN() : max_abs;
  m.snr_db = 10.0 * std::log10((sum_ref_sq / n) / m.mse);
  m.cosine = dot / (std::sqrt(sum_ref_sq) * std::sqrt(sum_cand_sq));
  return m;
}

std::string_view metric_name(Metric metric) {
  switch (metric) {
    case Metric::kMse: return "mse";
    case Metric::kL1: return "l1";
    case Metric::kMaxAbs: return "max_abs";
    case Metric::kSnr: return "snr";  // in dB, a unit the reports carry apart
    case Metric::kCosine: return "cosine";
  }
  return "";
}

std::optional<Metric> parse_metric(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "snr_db") return Metric::kSnr;
  for (Metric m : kAllMetrics) {
    if (lower == metric_name(m)) return m;
  }
  return std::nullopt;
}

double metric_value(const Metrics& metrics, Metric metric) {
  switch (metric) {
    case Metric::kMse: return metrics.mse;
    case Metric::kL1: return metrics.l1;
    case Metric::kMaxAbs: return metrics.max_abs;
    case Metric::kSnr: return metrics.snr_db;
    case Metric::kCosine: return metrics.cosine;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace etkit::compare
