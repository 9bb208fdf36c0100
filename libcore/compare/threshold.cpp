#include "libcore/compare/threshold.h"

#include <charconv>
#include <cmath>

namespace etkit::compare {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Error bad_expression(std::string_view expression, std::string problem) {
  return Error{ErrorKind::kUsage, {}, {}, "threshold '" + std::string(expression) + "': " + std::move(problem)};
}

}  // namespace

bool Threshold::crossed_by(double v) const {
  switch (comparison) {
    case Comparison::kLess: return v < value;
    case Comparison::kLessEqual: return v <= value;
    case Comparison::kGreater: return v > value;
    case Comparison::kGreaterEqual: return v >= value;
  }
  return false;
}

std::string Threshold::text() const {
  static constexpr std::string_view kOps[] = {"<", "<=", ">", ">="};
  char number[32];
  const auto r = std::to_chars(number, number + sizeof number, value);
  return std::string(metric_name(metric)) + std::string(kOps[int(comparison)]) + std::string(number, r.ptr);
}

Result<Threshold> parse_threshold(std::string_view expression) {
  const std::string_view text = trim(expression);
  const size_t op_at = text.find_first_of("<>");
  if (op_at == std::string_view::npos) {
    return bad_expression(expression, "expected METRIC<NUMBER or METRIC>NUMBER (also <=, >=)");
  }
  Threshold t;
  const std::string_view name = trim(text.substr(0, op_at));
  if (name.empty()) return bad_expression(expression, "no metric before '" + std::string(1, text[op_at]) + "'");
  auto metric = parse_metric(name);
  if (!metric) {
    return bad_expression(expression, "unknown metric '" + std::string(name) + "' (mse, l1, max_abs, snr, cosine)");
  }
  t.metric = *metric;
  size_t rest = op_at + 1;
  const bool or_equal = rest < text.size() && text[rest] == '=';
  if (or_equal) ++rest;
  t.comparison = text[op_at] == '<' ? (or_equal ? Comparison::kLessEqual : Comparison::kLess)
                                    : (or_equal ? Comparison::kGreaterEqual : Comparison::kGreater);
  const std::string_view number = trim(text.substr(rest));
  if (number.empty()) return bad_expression(expression, "no number after the comparison");
  const auto r = std::from_chars(number.data(), number.data() + number.size(), t.value);
  if (r.ec != std::errc() || r.ptr != number.data() + number.size()) {
    return bad_expression(expression, std::string("'").append(number) + "' is not a number");
  }
  if (!std::isfinite(t.value)) return bad_expression(expression, "the bound must be finite");
  return t;
}

Result<std::vector<Threshold>> parse_thresholds(std::string_view expressions) {
  std::vector<Threshold> out;
  size_t start = 0;
  while (true) {
    const size_t comma = expressions.find(',', start);
    const std::string_view part = expressions.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    ETKIT_ASSIGN_OR_RETURN(Threshold t, parse_threshold(part));
    out.push_back(t);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace etkit::compare
