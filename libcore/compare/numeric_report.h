// Reports of tensor comparisons (outputs, tensors, intermediates): one row
// per pair with the chosen metrics, the allclose verdict and why a pair
// failed, and a summary naming the criterion, the count of failures and,
// for intermediates, the first divergent instruction.
#pragma once

#include <string>
#include <vector>

#include "libcore/compare/intermediates.h"
#include "libcore/compare/pair_compare.h"
#include "libcore/compare/report.h"

namespace etkit::compare {

struct NumericReportOptions {
  std::vector<Metric> metrics{std::begin(kAllMetrics), std::end(kAllMetrics)};
};

struct LabeledPair {
  std::string label;  // "output 0", "a.npy vs b.npy"
  PairResult result;
};

Report pairs_report(const std::string& command, const std::vector<LabeledPair>& pairs, const Criteria& criteria,
                    const NumericReportOptions& options);

// Adds a "location" column when any pair has one.
Report intermediates_report(const IntermediatesComparison& comparison, const Criteria& criteria,
                            const NumericReportOptions& options);

// "allclose (rtol 0.001, atol 1e-05)" or "snr<40 or mse>0.001".
std::string describe_criterion(const Criteria& criteria);

}  // namespace etkit::compare
