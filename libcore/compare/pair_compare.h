// One reference/candidate tensor pair judged against the user's criteria.
// Structural problems (a missing side, different shapes) are results, not
// errors: a comparison report lists them with the pairs that did compare.
#pragma once

#include <string>
#include <vector>

#include "libcore/compare/metrics.h"
#include "libcore/compare/tensor_values.h"
#include "libcore/compare/threshold.h"

namespace etkit::compare {

// With thresholds, a pair fails when it crosses any of them; without, when
// it is not allclose under `tolerance`.
struct Criteria {
  Tolerance tolerance;
  std::vector<Threshold> thresholds;
};

enum class PairStatus {
  kCompared,
  kShapeMismatch,     // no metrics; always a failure
  kOnlyInReference,   // the candidate has no such tensor; a failure
  kOnlyInCandidate,   // the reference has no such tensor; a failure
};

struct PairResult {
  PairStatus status = PairStatus::kCompared;
  std::string reference;  // describe(): "FLOAT[1, 10]", empty when absent
  std::string candidate;
  bool dtype_differs = false;  // compared all the same, as doubles
  Metrics metrics;             // meaningful only when compared
  bool failed = false;
  std::vector<Threshold> crossed;  // every threshold crossed, in the criteria's order
};

// Either pointer may be null (that side has no tensor), not both.
PairResult compare_pair(const TensorValues* reference, const TensorValues* candidate, const Criteria& criteria);

// "compared", "shape mismatch", "only in reference", "only in candidate".
std::string_view status_name(PairStatus status);

}  // namespace etkit::compare
