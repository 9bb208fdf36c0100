// A comparison report as data (columns, rows of typed cells, summary lines)
// and its four renderings. Tables and Markdown round numbers for reading;
// CSV and JSON keep every digit (shortest round-trip form).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::compare {

// Empty (no value), text, integer, real number.
using Cell = std::variant<std::monostate, std::string, int64_t, double>;

struct Report {
  // The JSON "format" key: et-compare's, unless another tool renders its own
  // report with these writers (et-fleet: etkit.fleet/1).
  std::string format = "etkit.compare/2";
  std::string command;               // "outputs", "intermediates", "tensors", "perf"
  std::vector<std::string> columns;  // snake_case names, also the JSON keys
  std::vector<std::vector<Cell>> rows;
  std::vector<std::pair<std::string, Cell>> summary;  // e.g. {"verdict", "outside tolerance"}
  // Units of columns that have one ({"snr", "dB"}, {"delta", "ms"}): never in
  // the key; JSON lists them under "units", tables in the header.
  std::vector<std::pair<std::string, std::string>> units;
  std::string unit_of(const std::string& column) const;
};

// A report and the check's result: outside tolerance, a threshold crossed,
// a performance gate failed.
struct Outcome {
  Report report;
  bool failed = false;
};

enum class Format { kTable, kCsv, kJson, kMarkdown };

// "table", "csv", "json", "markdown".
Result<Format> parse_format(std::string_view name);

// Writes `report` to `out`. CSV holds the rows only (the verdict is the exit
// code); JSON is {"format": "etkit.compare/2", "command", "columns", "units":
// {column: unit}, "rows": [{column: value}], "summary": {...}} with NaN and
// infinities as the strings "nan", "inf", "-inf"; compact unless `pretty`.
Status render(const Report& report, Format format, std::FILE* out, bool pretty = false);

// A number as tables show it: 6 significant digits, "nan", "inf", "-inf".
std::string format_number(double value);

}  // namespace etkit::compare
