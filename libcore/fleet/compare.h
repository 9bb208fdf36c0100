// The wide table of `et-fleet compare`: op types (rows) by the values of one
// label (columns), each cell the p50 of the op type's per-execution times
// pooled over the runs with that value, its ratio to a baseline value, and
// its share of the column's total.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/report.h"
#include "libcore/fleet/run_ops.h"

namespace etkit::fleet {

inline constexpr std::string_view kReportFormat = "etkit.fleet/1";

struct CompareOptions {
  std::string by;                       // the label whose values are the columns
  std::optional<std::string> baseline;  // default: the first value
  std::string sort = "p50";             // p50, share, ratio, op_type, or a label value
  size_t top = SIZE_MAX;
  std::string filter;                   // POSIX ERE on the op type
  bool allow_mixed = false;
  std::string unit = "ms";
};

// Label values in the order the columns show them: sorted as strings
// (ISO dates and zero-padded builds sort in time order).
std::vector<std::string> label_values(const std::vector<RunOps>& runs, size_t label);

// Refuses runs of different programs (kBadInput naming two files and their
// signatures) unless `allow_mixed`.
Status check_same_program(const std::vector<RunOps>& runs, bool allow_mixed);

// `label` is the index of options.by among the inputs' labels.
Result<compare::Report> compare_by_label(const std::vector<RunOps>& runs, size_t label, const CompareOptions& options);

}  // namespace etkit::fleet
