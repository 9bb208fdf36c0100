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
#include "libcore/render/html_report.h"

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

struct WideComparison {
  std::vector<std::string> values;  // the columns
  size_t baseline = 0;              // index into values
  struct Row {
    std::string op_type;
    std::vector<double> p50;    // per value; NaN where no run of that value has the op type
    std::vector<double> share;  // per value, in percent; NaN likewise
    double ratio(size_t column, size_t base) const { return p50[column] / p50[base]; }
  };
  std::vector<Row> rows;  // filtered, sorted and cut to --top
  size_t runs = 0;
};

// `label` is the index of options.by among the inputs' labels.
Result<WideComparison> compare_by_label(const std::vector<RunOps>& runs, size_t label, const CompareOptions& options);

// The table (et-compare's renderings, JSON etkit.fleet/1).
compare::Report wide_report(const WideComparison& wide, const CompareOptions& options);

// The same view in the HTML report: p50 cells heat-coloured by their ratio
// to the baseline, one sparkline per op type across the values in order.
render::ReportData wide_html(const WideComparison& wide, const CompareOptions& options);

}  // namespace etkit::fleet
