#include "libcore/fleet/compare.h"

#include <functional>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "libcore/inspect/perf_stats.h"
#include "libcore/support/posix_regex.h"

namespace etkit::fleet {
namespace {

Error usage(std::string message) { return Error{ErrorKind::kUsage, {}, {}, std::move(message)}; }

}  // namespace

std::vector<std::string> label_values(const std::vector<RunOps>& runs, size_t label) {
  std::set<std::string> values;
  for (const RunOps& run : runs) values.insert(run.labels[label]);
  return {values.begin(), values.end()};
}

Status check_same_program(const std::vector<RunOps>& runs, bool allow_mixed) {
  if (allow_mixed) return {};
  for (const RunOps& run : runs) {
    if (run.program != runs.front().program) {
      return Error{ErrorKind::kBadInput, run.file, {},
                   "another program than " + runs.front().file + " (signature " + run.program + " vs " +
                       runs.front().program + "); --allow-mixed compares them anyway"};
    }
  }
  return {};
}

Result<WideComparison> compare_by_label(const std::vector<RunOps>& runs, size_t label, const CompareOptions& options) {
  if (runs.empty()) return Error{ErrorKind::kBadInput, {}, {}, "no run could be read"};
  ETKIT_TRY(check_same_program(runs, options.allow_mixed));
  const std::vector<std::string> values = label_values(runs, label);
  const std::string baseline = options.baseline.value_or(values.front());
  const auto base_it = std::find(values.begin(), values.end(), baseline);
  if (base_it == values.end()) {
    std::string known;
    for (const auto& v : values) known += (known.empty() ? "" : ", ") + v;
    return usage("--baseline: no run has " + options.by + " '" + baseline + "' (" + known + ")");
  }
  const size_t base = static_cast<size_t>(base_it - values.begin());

  std::optional<PosixRegex> filter;
  if (!options.filter.empty()) {
    ETKIT_ASSIGN_OR_RETURN(auto re, PosixRegex::compile(options.filter));
    filter = std::move(re);
  }

  // op type -> per column pooled samples
  std::map<std::string, std::vector<std::vector<double>>> pooled;
  for (const RunOps& run : runs) {
    const size_t column = static_cast<size_t>(std::lower_bound(values.begin(), values.end(), run.labels[label]) - values.begin());
    for (const auto& [op, samples] : run.samples) {
      auto& cols = pooled[op];
      cols.resize(values.size());
      cols[column].insert(cols[column].end(), samples.begin(), samples.end());
    }
  }
  const double nan = std::nan("");
  using Row = WideComparison::Row;
  std::vector<Row> rows;
  std::vector<double> column_total(values.size(), 0.0);
  for (const auto& [op, cols] : pooled) {
    Row row{op, std::vector<double>(values.size(), nan), std::vector<double>(values.size(), nan)};
    for (size_t c = 0; c < values.size(); ++c) {
      if (cols[c].empty()) continue;
      row.p50[c] = inspect::percentile(cols[c], 50);
      column_total[c] += row.p50[c];
    }
    rows.push_back(std::move(row));
  }
  for (Row& row : rows) {
    for (size_t c = 0; c < values.size(); ++c) {
      if (!std::isnan(row.p50[c]) && column_total[c] > 0) row.share[c] = 100.0 * row.p50[c] / column_total[c];
    }
  }
  // Shares are of every op type, filtered or not: a filtered row keeps the
  // share it has in the whole table.
  if (filter) {
    std::erase_if(rows, [&](const Row& r) { return !filter->search(r.op_type); });
  }

  std::function<double(const Row&)> key;
  if (options.sort == "p50" || options.sort == "share") {
    key = [&](const Row& r) { return r.p50[base]; };
  } else if (options.sort == "ratio") {
    key = [&](const Row& r) {
      double best = nan;
      for (size_t c = 0; c < values.size(); ++c) {
        const double ratio = r.ratio(c, base);
        if (c != base && !std::isnan(ratio) && !(ratio <= best)) best = ratio;
      }
      return best;
    };
  } else if (options.sort != "op_type") {
    const auto it = std::find(values.begin(), values.end(), options.sort);
    if (it == values.end()) {
      return usage("--sort: '" + options.sort + "' is neither p50, share, ratio, op_type nor a value of " + options.by);
    }
    const size_t c = static_cast<size_t>(it - values.begin());
    key = [c](const Row& r) { return r.p50[c]; };
  }
  if (key) {
    // Largest first, rows without a value last; ties keep op type order.
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      const double ka = key(a), kb = key(b);
      if (std::isnan(kb)) return !std::isnan(ka);
      if (std::isnan(ka)) return false;
      return ka > kb;
    });
  }
  if (rows.size() > options.top) rows.resize(options.top);
  return WideComparison{values, base, std::move(rows), runs.size()};
}

compare::Report wide_report(const WideComparison& wide, const CompareOptions& options) {
  compare::Report report;
  report.format = std::string(kReportFormat);
  report.command = "compare";
  report.columns.push_back("op_type");
  for (const auto& v : wide.values) {
    report.columns.push_back("p50:" + v);
    report.columns.push_back("ratio:" + v);
    report.columns.push_back("share:" + v);
    report.units.emplace_back("p50:" + v, options.unit);
    report.units.emplace_back("share:" + v, "%");
  }
  auto cell = [](double v) -> compare::Cell {
    if (std::isnan(v)) return std::monostate{};
    return v;
  };
  for (const auto& r : wide.rows) {
    std::vector<compare::Cell> cells{r.op_type};
    for (size_t c = 0; c < wide.values.size(); ++c) {
      cells.push_back(cell(r.p50[c]));
      cells.push_back(cell(r.ratio(c, wide.baseline)));
      cells.push_back(cell(r.share[c]));
    }
    report.rows.push_back(std::move(cells));
  }
  report.summary.emplace_back("by", options.by);
  report.summary.emplace_back("baseline", wide.values[wide.baseline]);
  report.summary.emplace_back("runs", static_cast<int64_t>(wide.runs));
  report.summary.emplace_back("unit", options.unit);
  return report;
}

render::ReportData wide_html(const WideComparison& wide, const CompareOptions& options) {
  render::ReportData data;
  data.title = "et-fleet: op types by " + options.by;
  data.unit = options.unit;
  data.summary = {{"by", options.by},
                  {"baseline", wide.values[wide.baseline]},
                  {"values", std::to_string(wide.values.size())},
                  {"runs", std::to_string(wide.runs)},
                  {"unit", options.unit}};
  render::WideTable table;
  table.label = options.by;
  table.values = wide.values;
  table.baseline = wide.baseline;
  auto opt = [](double v) { return std::isnan(v) ? std::optional<double>() : std::optional<double>(v); };
  for (const auto& r : wide.rows) {
    render::WideTable::Row row;
    row.name = r.op_type;
    for (size_t c = 0; c < wide.values.size(); ++c) {
      row.p50.push_back(opt(r.p50[c]));
      row.share.push_back(opt(r.share[c]));
    }
    table.rows.push_back(std::move(row));
  }
  data.wide = std::move(table);
  return data;
}

}  // namespace etkit::fleet
