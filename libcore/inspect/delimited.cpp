#include "libcore/inspect/delimited.h"

#include <cmath>

#include "libcore/inspect/py_format.h"

namespace etkit::inspect {

namespace {

std::string field_text(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::kNone: return "";
    case Cell::Kind::kBool: return cell.bool_value ? "True" : "False";
    case Cell::Kind::kInt: return std::to_string(cell.int_value);
    case Cell::Kind::kFloat: return std::isnan(cell.float_value) ? "" : py_repr_float(cell.float_value);
    case Cell::Kind::kStr:
    case Cell::Kind::kObject: return cell.text;
  }
  return {};
}

// csv.QUOTE_MINIMAL: quote a field holding the separator, the quote
// character or a line break; double the quotes inside.
void append_field(std::string& out, const std::string& text, char separator) {
  if (text.find_first_of(std::string{separator, '"', '\n', '\r'}) == std::string::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

std::string to_delimited(const Frame& frame, char separator) {
  std::string out;
  for (const std::string& column : frame.columns) {
    out += separator;
    append_field(out, column, separator);
  }
  out += '\n';
  for (size_t r = 0; r < frame.rows.size(); ++r) {
    out += std::to_string(frame.index[r]);
    for (const Cell& cell : frame.rows[r]) {
      out += separator;
      append_field(out, field_text(cell), separator);
    }
    out += '\n';
  }
  return out;
}

}  // namespace etkit::inspect
