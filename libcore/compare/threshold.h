// Threshold expressions such as "snr<40" or "mse>1e-3": a metric, a
// comparison and a finite number. A tensor pair "crosses" a threshold when
// its metric satisfies the expression; NaN never does (0/0 is no evidence).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libcore/compare/metrics.h"
#include "libcore/support/result.h"

namespace etkit::compare {

enum class Comparison { kLess, kLessEqual, kGreater, kGreaterEqual };

struct Threshold {
  Metric metric = Metric::kSnr;
  Comparison comparison = Comparison::kLess;
  double value = 0;

  bool crossed_by(double metric_value) const;
  bool crossed_by(const Metrics& metrics) const { return crossed_by(metric_value(metrics, metric)); }
  // Canonical text, e.g. "snr<40".
  std::string text() const;
};

// One expression, surrounding spaces allowed: METRIC (< | <= | > | >=) NUMBER.
Result<Threshold> parse_threshold(std::string_view expression);
// Comma-separated expressions ("snr<40,mse>1e-3"); at least one.
Result<std::vector<Threshold>> parse_thresholds(std::string_view expressions);

}  // namespace etkit::compare
