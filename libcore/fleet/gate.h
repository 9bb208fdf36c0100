// `et-fleet gate`: the CI use of a device lab. Runs are ordered by a label
// (a date, a build number); the runs with the newest value are tested, op
// type by op type, against the runs of the values just before it (the
// window), with et-compare perf's statistics: a one-sided Mann-Whitney U
// test with a Holm-Bonferroni correction over the op types compared, and a
// bootstrap interval of the p50 ratio. Each op type's history is scanned
// the same way for the first value where it became slower (changed_at).
#pragma once

#include <string>
#include <vector>

#include "libcore/compare/report.h"
#include "libcore/fleet/run_ops.h"

namespace etkit::fleet {

struct GateOptions {
  std::string order;         // the label that orders the runs
  size_t window = 10;        // how many values before the newest form the reference
  double min_ratio = 1.05;   // a regression must also be at least this much slower (p50 ratio)
  double confidence = 0.95;  // alpha = 1 - confidence, family-wise over the op types
  uint64_t seed = 1;
  size_t resamples = 2000;
  bool allow_mixed = false;
  std::string unit = "ms";
};

struct GateOutcome {
  compare::Report report;
  std::vector<std::string> regressions;  // "op_type x1.25" lines, largest ratio first
  std::string newest;                    // the newest value of the order label
};

// `label` is the index of options.order among the inputs' labels. A
// regression: Holm rejects "not slower" for the op type at alpha, the p50
// ratio newest/window exceeds min_ratio, and the bootstrap interval's lower
// end exceeds 1. changed_at: the first value of the order label whose runs,
// tested like the newest against the window of values before them, are
// slower by more than min_ratio with Holm rejecting over every (op type,
// value) tested; empty when none.
Result<GateOutcome> gate_newest(const std::vector<RunOps>& runs, size_t label, const GateOptions& options);

}  // namespace etkit::fleet
