#include "libcore/compare/pair_compare.h"

namespace etkit::compare {

PairResult compare_pair(const TensorValues* reference, const TensorValues* candidate, const Criteria& criteria) {
  PairResult r;
  if (reference) r.reference = describe(*reference);
  if (candidate) r.candidate = describe(*candidate);
  if (!reference || !candidate) {
    r.status = reference ? PairStatus::kOnlyInReference : PairStatus::kOnlyInCandidate;
    r.failed = true;
    return r;
  }
  r.dtype_differs = reference->dtype != candidate->dtype;
  if (reference->shape != candidate->shape) {
    r.status = PairStatus::kShapeMismatch;
    r.failed = true;
    return r;
  }
  r.metrics = compute_metrics(reference->values, candidate->values, criteria.tolerance);
  if (criteria.thresholds.empty()) {
    r.failed = !r.metrics.allclose;
  } else {
    for (const Threshold& t : criteria.thresholds) {
      if (t.crossed_by(r.metrics)) r.crossed.push_back(t);
    }
    r.failed = !r.crossed.empty();
  }
  return r;
}

std::string_view status_name(PairStatus status) {
  switch (status) {
    case PairStatus::kCompared: return "compared";
    case PairStatus::kShapeMismatch: return "shape mismatch";
    case PairStatus::kOnlyInReference: return "only in reference";
    case PairStatus::kOnlyInCandidate: return "only in candidate";
  }
  return "";
}

}  // namespace etkit::compare
