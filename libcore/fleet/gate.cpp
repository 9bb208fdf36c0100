#include "libcore/fleet/gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "libcore/compare/stats.h"
#include "libcore/fleet/compare.h"
#include "libcore/inspect/perf_stats.h"

namespace etkit::fleet {

Result<GateOutcome> gate_newest(const std::vector<RunOps>& runs, size_t label, const GateOptions& options) {
  if (runs.empty()) return Error{ErrorKind::kBadInput, {}, {}, "no run could be read"};
  ETKIT_TRY(check_same_program(runs, options.allow_mixed));
  const std::vector<std::string> values = label_values(runs, label);
  if (values.size() < 2) {
    return Error{ErrorKind::kBadInput, {}, {},
                 "gate needs runs with at least two values of " + options.order + " (all runs have '" + values.front() +
                     "')"};
  }
  if (options.window == 0) return Error{ErrorKind::kUsage, {}, {}, "--window must be at least 1"};
  const std::string& newest = values.back();
  const size_t first_window = values.size() - 1 > options.window ? values.size() - 1 - options.window : 0;
  const std::string& window_first = values[first_window];
  const std::string& window_last = values[values.size() - 2];

  struct Sides {
    std::vector<double> window, newest;
  };
  std::map<std::string, Sides> ops;
  // op type -> pooled samples per value of the order label (for changed_at)
  std::map<std::string, std::vector<std::vector<double>>> history;
  size_t newest_runs = 0, window_runs = 0;
  for (const RunOps& run : runs) {
    const std::string& v = run.labels[label];
    const auto at = static_cast<size_t>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
    for (const auto& [op, samples] : run.samples) {
      auto& per_value = history[op];
      per_value.resize(values.size());
      per_value[at].insert(per_value[at].end(), samples.begin(), samples.end());
    }
    const bool is_newest = v == newest;
    const bool in_window = !is_newest && v >= window_first;
    if (!is_newest && !in_window) continue;
    (is_newest ? newest_runs : window_runs)++;
    for (const auto& [op, samples] : run.samples) {
      auto& side = is_newest ? ops[op].newest : ops[op].window;
      side.insert(side.end(), samples.begin(), samples.end());
    }
  }

  struct Row {
    std::string op;
    double window_p50 = std::nan(""), newest_p50 = std::nan("");
    compare::MannWhitney test;
    compare::RatioInterval interval;
    bool compared = false, regression = false;
    std::string changed_at;
  };
  std::vector<Row> rows;
  std::vector<double> p_values;
  for (const auto& [op, sides] : ops) {
    Row row;
    row.op = op;
    if (!sides.window.empty()) row.window_p50 = inspect::percentile(sides.window, 50);
    if (!sides.newest.empty()) row.newest_p50 = inspect::percentile(sides.newest, 50);
    if (!sides.window.empty() && !sides.newest.empty()) {
      row.compared = true;
      row.test = compare::mann_whitney_u(sides.window, sides.newest);
      row.interval = compare::bootstrap_ratio(sides.window, sides.newest, compare::Statistic::kP50, options.confidence,
                                              options.seed, options.resamples);
      p_values.push_back(row.test.p_greater);
    }
    rows.push_back(std::move(row));
  }
  const std::vector<bool> rejected = compare::holm_reject(p_values, 1.0 - options.confidence);
  size_t tested = 0;
  for (Row& row : rows) {
    if (!row.compared) continue;
    const double ratio = row.newest_p50 / row.window_p50;
    row.regression = rejected[tested++] && ratio > options.min_ratio && row.interval.low > 1.0;
  }
  // changed_at: every value of the history tested like the newest against
  // the window before it; the first one Holm rejects (over every op type and
  // value tested) that is also min_ratio slower.
  struct Point {
    const std::string* op;
    size_t value;
    double ratio;
  };
  std::vector<Point> points;
  std::vector<double> point_p;
  for (const auto& [op, per_value] : history) {
    for (size_t k = 1; k < values.size(); ++k) {
      if (per_value[k].empty()) continue;
      std::vector<double> before;
      for (size_t j = k > options.window ? k - options.window : 0; j < k; ++j) {
        before.insert(before.end(), per_value[j].begin(), per_value[j].end());
      }
      if (before.empty()) continue;
      points.push_back({&op, k, inspect::percentile(per_value[k], 50) / inspect::percentile(before, 50)});
      point_p.push_back(compare::mann_whitney_u(before, per_value[k]).p_greater);
    }
  }
  const std::vector<bool> point_rejected = compare::holm_reject(point_p, 1.0 - options.confidence);
  std::map<std::string, std::string> changed_at;
  for (size_t i = 0; i < points.size(); ++i) {
    if (point_rejected[i] && points[i].ratio > options.min_ratio && !changed_at.count(*points[i].op)) {
      changed_at[*points[i].op] = values[points[i].value];
    }
  }
  for (Row& row : rows) {
    if (auto it = changed_at.find(row.op); it != changed_at.end()) row.changed_at = it->second;
  }

  // Regressions first, then by ratio, largest first.
  auto ratio_of = [](const Row& r) { return r.compared ? r.newest_p50 / r.window_p50 : -1.0; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.regression != b.regression) return a.regression;
    return ratio_of(a) > ratio_of(b);
  });

  GateOutcome out;
  out.newest = newest;
  compare::Report& report = out.report;
  report.format = std::string(kReportFormat);
  report.command = "gate";
  report.columns = {"op_type",    "window_p50", "newest_p50", "ratio",     "ratio_low",
                    "ratio_high", "p_value",    "verdict",    "changed_at"};
  report.units = {{"window_p50", options.unit}, {"newest_p50", options.unit}};
  auto cell = [](double v) -> compare::Cell {
    if (std::isnan(v)) return std::monostate{};
    return v;
  };
  for (const Row& r : rows) {
    std::string verdict = !r.compared ? (std::isnan(r.window_p50) ? "new" : "gone")
                          : r.regression ? "regression"
                                         : "ok";
    report.rows.push_back({r.op, cell(r.window_p50), cell(r.newest_p50),
                           r.compared ? cell(r.newest_p50 / r.window_p50) : compare::Cell{},
                           r.compared ? cell(r.interval.low) : compare::Cell{},
                           r.compared ? cell(r.interval.high) : compare::Cell{},
                           r.compared ? cell(r.test.p_greater) : compare::Cell{}, verdict,
                           r.changed_at.empty() ? compare::Cell{} : compare::Cell{r.changed_at}});
    if (r.regression) {
      char text[64];
      std::snprintf(text, sizeof text, " x%.3g", r.newest_p50 / r.window_p50);
      out.regressions.push_back(r.op + text);
    }
  }
  report.summary.emplace_back("order", options.order);
  report.summary.emplace_back("newest", newest);
  report.summary.emplace_back("window_first", window_first);
  report.summary.emplace_back("window_last", window_last);
  report.summary.emplace_back("newest_runs", static_cast<int64_t>(newest_runs));
  report.summary.emplace_back("window_runs", static_cast<int64_t>(window_runs));
  report.summary.emplace_back("regressions", static_cast<int64_t>(out.regressions.size()));
  report.summary.emplace_back("verdict", out.regressions.empty() ? "pass" : "fail");
  return out;
}

}  // namespace etkit::fleet
