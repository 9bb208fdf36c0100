#include "libcore/compare/numeric_report.h"

namespace etkit::compare {
namespace {

// Why a pair failed (or what else is worth knowing about it).
std::string note_of(const PairResult& r) {
  std::vector<std::string> parts;
  if (r.status != PairStatus::kCompared) parts.emplace_back(status_name(r.status));
  if (r.dtype_differs) parts.emplace_back("dtype differs");
  if (r.status == PairStatus::kCompared) {
    if (r.metrics.nan_in_reference) parts.push_back(std::to_string(r.metrics.nan_in_reference) + " NaN in reference");
    if (r.metrics.nan_in_candidate) parts.push_back(std::to_string(r.metrics.nan_in_candidate) + " NaN in candidate");
    for (const auto& t : r.crossed) {
      parts.push_back(std::string(metric_name(t.metric)) + " " + format_number(metric_value(r.metrics, t.metric)) +
                      " crosses " + t.text());
    }
    if (r.crossed.empty() && !r.metrics.allclose) {
      parts.push_back(std::to_string(r.metrics.mismatches) + " of " + std::to_string(r.metrics.numel) + " elements not close");
    }
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void add_pair_cells(std::vector<Cell>& row, const PairResult& r, const NumericReportOptions& options) {
  row.emplace_back(r.reference);
  row.emplace_back(r.candidate);
  const bool compared = r.status == PairStatus::kCompared;
  for (Metric m : options.metrics) row.push_back(compared ? Cell(metric_value(r.metrics, m)) : Cell());
  row.push_back(compared ? Cell(std::string(r.metrics.allclose ? "yes" : "no")) : Cell());
  row.emplace_back(std::string(r.failed ? "FAIL" : "ok"));
  row.emplace_back(note_of(r));
}

void add_pair_columns(Report& report, const NumericReportOptions& options) {
  std::vector<std::string>& columns = report.columns;
  columns.insert(columns.end(), {"reference", "candidate"});
  for (Metric m : options.metrics) {
    columns.emplace_back(metric_name(m));
    if (m == Metric::kSnr) report.units.emplace_back(metric_name(m), "dB");
  }
  columns.insert(columns.end(), {"allclose", "verdict", "note"});
}

void add_summary(Report& report, size_t pairs, size_t failed, const Criteria& criteria) {
  report.summary.emplace_back("criterion", describe_criterion(criteria));
  report.summary.emplace_back("pairs", int64_t(pairs));
  report.summary.emplace_back("failed", int64_t(failed));
  report.summary.emplace_back("verdict", std::string(failed ? "outside tolerance" : "within tolerance"));
}

}  // namespace

std::string describe_criterion(const Criteria& criteria) {
  if (criteria.thresholds.empty()) {
    return "allclose (rtol " + format_number(criteria.tolerance.rtol) + ", atol " + format_number(criteria.tolerance.atol) + ")";
  }
  std::string out;
  for (const auto& t : criteria.thresholds) out += (out.empty() ? "" : " or ") + t.text();
  return out;
}

Report pairs_report(const std::string& command, const std::vector<LabeledPair>& pairs, const Criteria& criteria,
                    const NumericReportOptions& options) {
  Report report;
  report.command = command;
  report.columns = {"value"};
  add_pair_columns(report, options);
  size_t failed = 0;
  for (const auto& p : pairs) {
    std::vector<Cell> row{p.label};
    add_pair_cells(row, p.result, options);
    report.rows.push_back(std::move(row));
    failed += p.result.failed ? 1 : 0;
  }
  add_summary(report, pairs.size(), failed, criteria);
  return report;
}

Report intermediates_report(const IntermediatesComparison& comparison, const Criteria& criteria,
                            const NumericReportOptions& options) {
  Report report;
  report.command = "intermediates";
  report.columns = {"chain", "instruction", "op", "value"};
  add_pair_columns(report, options);
  bool located = false;
  for (const auto& p : comparison.pairs) located = located || !p.location.empty();
  if (located) report.columns.emplace_back("location");
  size_t failed = 0;
  for (const auto& p : comparison.pairs) {
    std::string op = p.op_name;
    if (!p.delegate_id.empty()) op += (op.empty() ? "delegate " : " delegate ") + p.delegate_id;
    std::vector<Cell> row{p.chain_index, int64_t(p.instruction_id), op, p.value};
    add_pair_cells(row, p.result, options);
    if (located) row.emplace_back(p.location);
    report.rows.push_back(std::move(row));
    failed += p.result.failed ? 1 : 0;
  }
  add_summary(report, comparison.pairs.size(), failed, criteria);
  std::string first = "none";
  if (comparison.first_divergence) {
    const auto& p = comparison.pairs[*comparison.first_divergence];
    first = "instruction " + std::to_string(p.instruction_id) + " (chain " + std::to_string(p.chain_index) + ")";
    if (!p.op_name.empty()) first += " " + p.op_name;
    if (!p.delegate_id.empty()) first += " delegate " + p.delegate_id;
    first += " " + p.value;
    if (!p.location.empty()) first += ", " + p.location;
    const std::string note = note_of(p.result);
    if (!note.empty()) first += ": " + note;
  }
  report.summary.emplace_back("first_divergence", first);
  report.summary.emplace_back("first_divergence_instruction",
                              comparison.first_divergence
                                  ? Cell(int64_t(comparison.pairs[*comparison.first_divergence].instruction_id))
                                  : Cell());
  return report;
}

}  // namespace etkit::compare
