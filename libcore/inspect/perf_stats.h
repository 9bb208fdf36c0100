// PerfData statistics exactly as the Python Inspector computes them
// (inspector_spec.md §4): numpy.percentile's "linear" method with numpy's
// two-branch lerp, numpy.mean's chunked pairwise summation, and Python's
// min/max. Bit-identical results matter: the table prints 6 significant
// digits, the TSV prints the full round-trip value.
#pragma once

#include <span>

namespace etkit::inspect {

struct PerfStats {
  double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;
};

// Without samples every statistic is NaN (an event without samples has no
// PerfData at all, so the Inspector never asks).

// numpy.percentile(samples, q) with the default method; q in [0, 100].
double percentile(std::span<const double> samples, double q);
// numpy.mean(samples) (numpy < 2.3: the sum runs over chunks of 8192).
double mean(std::span<const double> samples);
// All six.
PerfStats compute_stats(std::span<const double> samples);

}  // namespace etkit::inspect
