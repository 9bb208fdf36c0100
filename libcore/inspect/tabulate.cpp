#include "libcore/inspect/tabulate.h"

#include <algorithm>
#include <cmath>

#include "libcore/inspect/py_format.h"
#include "libcore/inspect/tabulate_text.h"

namespace etkit::inspect {

namespace {

// tabulate's _more_generic order; _column_type starts its reduction at bool,
// so a column of Nones is a bool column.
enum class ColumnType { kNone = 0, kBool = 1, kInt = 2, kFloat = 3, kStr = 5 };

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return out;
}

// _isnumber: float() accepts it, and an inf or nan is spelled exactly so.
bool is_number_text(std::string_view s) {
  if (!py_parses_as_float(s)) return false;
  const double v = py_float_value(s);
  if (std::isinf(v) || std::isnan(v)) {
    const std::string l = lower(s);
    return l == "inf" || l == "-inf" || l == "nan";
  }
  return true;
}

// _type: strings are classified with their colour codes removed.
ColumnType cell_type(const Cell& c) {
  if (c.kind == Cell::Kind::kStr && c.text.find('\x1b') != std::string::npos) {
    Cell plain = c;
    plain.text = strip_invisible(c.text);
    return cell_type(plain);
  }
  switch (c.kind) {
    case Cell::Kind::kNone: return ColumnType::kNone;
    case Cell::Kind::kBool: return ColumnType::kBool;
    case Cell::Kind::kInt: return ColumnType::kInt;
    case Cell::Kind::kFloat: return ColumnType::kFloat;
    case Cell::Kind::kObject: return ColumnType::kStr;
    case Cell::Kind::kStr:
      if (c.text == "True" || c.text == "False") return ColumnType::kBool;
      if (py_parses_as_int(c.text)) return ColumnType::kInt;
      if (is_number_text(c.text)) return ColumnType::kFloat;
      return ColumnType::kStr;
  }
  return ColumnType::kStr;
}

// Python str() of the cell's value.
std::string python_str(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNone: return "None";
    case Cell::Kind::kBool: return c.bool_value ? "True" : "False";
    case Cell::Kind::kInt: return std::to_string(c.int_value);
    case Cell::Kind::kFloat: return py_repr_float(c.float_value);
    case Cell::Kind::kStr:
    case Cell::Kind::kObject: return c.text;
  }
  return {};
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// tabulate's _format with missingval "", floatfmt "g", intfmt "". A coloured
// number keeps its codes around the formatted value (str.replace).
std::string format_cell(const Cell& c, ColumnType type, bool invisible) {
  if (c.kind == Cell::Kind::kNone) return "";
  if (type != ColumnType::kFloat) return python_str(c);
  if (invisible && c.kind == Cell::Kind::kStr) {
    const std::string raw = strip_invisible(c.text);
    return replace_all(c.text, raw, py_format_g(py_float_value(raw)));
  }
  switch (c.kind) {
    case Cell::Kind::kBool: return py_format_g(c.bool_value ? 1.0 : 0.0);
    case Cell::Kind::kInt: return py_format_g(double(c.int_value));
    case Cell::Kind::kFloat: return py_format_g(c.float_value);
    default: return py_format_g(py_float_value(c.text));
  }
}

// _afterpoint: digits after the decimal point (or after the exponent's e),
// -1 for integers and non-numbers.
int after_point(std::string_view s) {
  if (!is_number_text(s) || py_parses_as_int(s)) return -1;
  size_t pos = s.rfind('.');
  if (pos == std::string_view::npos) pos = lower(s).rfind('e');
  return pos == std::string_view::npos ? -1 : int(s.size() - pos - 1);
}

// str.splitlines() for \n, \r\n and \r.
std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') {
      lines.emplace_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < s.size()) lines.emplace_back(s.substr(start));
  return lines;
}

// _visible_width when the table has colour codes, else len().
size_t visible_width(std::string_view s, bool invisible) {
  return invisible ? py_len(strip_invisible(s)) : py_len(s);
}

// _multiline_width: the widest piece between \r and \n.
size_t text_width(std::string_view s, bool multiline, bool invisible) {
  if (!multiline) return visible_width(s, invisible);
  size_t widest = 0, start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '\n' || s[i] == '\r') {
      widest = std::max(widest, visible_width(s.substr(start, i - start), invisible));
      start = i + 1;
    }
  }
  return widest;
}

// Padding to a visible width: invisible codes take no room.
std::string pad_left(size_t width, const std::string& s, bool invisible) {
  const size_t w = visible_width(s, invisible);
  return w >= width ? s : std::string(width - w, ' ') + s;
}
std::string pad_right(size_t width, const std::string& s, bool invisible) {
  const size_t w = visible_width(s, invisible);
  return w >= width ? s : s + std::string(width - w, ' ');
}

struct AlignedColumn {
  bool numeric = false;
  bool invisible = false;  // the table has colour codes: widths ignore them
  size_t width = 0;
  // Decimal-aligned or stripped, not yet padded to `width` (that happens per
  // line on output); multiline cells keep their line breaks.
  std::vector<std::string> cells;
};

std::string pad(const AlignedColumn& column, const std::string& s) {
  return column.numeric ? pad_left(column.width, s, column.invisible) : pad_right(column.width, s, column.invisible);
}

// _align_column with numalign "decimal" and stralign "left".
AlignedColumn align_column(std::vector<std::string> strings, bool numeric, size_t min_width, bool multiline,
                           bool invisible) {
  AlignedColumn out;
  out.numeric = numeric;
  out.invisible = invisible;
  if (numeric) {
    std::vector<int> decimals;
    int max_decimals = -1;
    for (const std::string& s : strings) {
      decimals.push_back(after_point(invisible ? strip_invisible(s) : s));
      max_decimals = std::max(max_decimals, decimals.back());
    }
    for (size_t i = 0; i < strings.size(); ++i) strings[i] += std::string(size_t(max_decimals - decimals[i]), ' ');
  } else {
    for (std::string& s : strings) s = py_strip(s);
  }
  out.width = min_width;
  for (const std::string& s : strings) out.width = std::max(out.width, text_width(s, multiline, invisible));
  out.cells = std::move(strings);
  return out;
}

struct Line {
  const char* begin;
  const char* fill;
  const char* separator;
  const char* end;
};

std::string repeat(const char* piece, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

std::string rule(const Line& line, const std::vector<size_t>& padded_widths) {
  std::string out = line.begin;
  for (size_t c = 0; c < padded_widths.size(); ++c) {
    if (c) out += line.separator;
    out += repeat(line.fill, padded_widths[c]);
  }
  return out + line.end;
}

// _pipe_line_with_colons.
std::string pipe_rule(const std::vector<AlignedColumn>& columns, bool have_aligns) {
  std::string out = "|";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) out += "|";
    const size_t w = columns[c].width + 2;
    if (!have_aligns) {
      out.append(w, '-');
    } else if (columns[c].numeric) {
      out.append(w - 1, '-');
      out += ':';
    } else {
      out += ':';
      out.append(w - 1, '-');
    }
  }
  return out + "|";
}

using Emit = std::function<void(std::string_view)>;

// One row of single-line cells, each padded to its column, between the row
// delimiters, with trailing whitespace removed as _build_simple_row does.
std::string simple_row(const std::vector<const std::string*>& cells, const std::vector<AlignedColumn>& columns,
                       const char* delimiter) {
  std::string out = delimiter;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c) out += delimiter;
    out += ' ';
    out += pad(columns[c], *cells[c]);
    out += ' ';
  }
  out += delimiter;
  return py_rstrip(out);
}

void emit_row(const Emit& emit, const std::vector<const std::string*>& cells, const std::vector<AlignedColumn>& columns,
              const char* delimiter, bool multiline) {
  if (!multiline) {
    emit(simple_row(cells, columns, delimiter));
    return;
  }
  // _append_multiline_row: cells split into lines (each padded), short cells
  // filled with blank lines at the bottom.
  std::vector<std::vector<std::string>> cell_lines;
  size_t height = 0;
  for (const std::string* cell : cells) {
    cell_lines.push_back(split_lines(*cell));
    height = std::max(height, cell_lines.back().size());
  }
  for (size_t l = 0; l < height; ++l) {
    std::vector<std::string> line(cells.size());
    std::vector<const std::string*> refs;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (l < cell_lines[c].size()) line[c] = cell_lines[c][l];
      refs.push_back(&line[c]);
    }
    emit(simple_row(refs, columns, delimiter));
  }
}

bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

}  // namespace

void tabulate_lines(const Frame& frame, TableFormat format, const Emit& emit) {
  // An empty frame gets no index column: tabulate adds the index header only
  // when there are rows.
  const bool with_index = !frame.rows.empty();
  std::vector<std::string> headers;
  if (with_index) headers.emplace_back();
  headers.insert(headers.end(), frame.columns.begin(), frame.columns.end());
  const size_t first_data = with_index ? 1 : 0;
  std::vector<Cell> index_cells;
  for (int64_t i : frame.index) index_cells.push_back(Cell::integer(i));
  auto cell_at = [&](size_t r, size_t c) -> const Cell& {
    return c < first_data ? index_cells[r] : frame.rows[r][c - first_data];
  };

  bool multiline = false;
  for (const std::string& h : headers) multiline = multiline || has_line_break(h);
  for (const auto& row : frame.rows) {
    for (const Cell& cell : row) {
      multiline = multiline || ((cell.kind == Cell::Kind::kStr || cell.kind == Cell::Kind::kObject) &&
                                has_line_break(cell.text));
    }
  }

  // has_invisible: searched once over the headers and every cell's str().
  bool invisible = false;
  for (const std::string& h : headers) invisible = invisible || has_invisible_codes(h);
  for (const auto& row : frame.rows) {
    for (const Cell& cell : row) {
      invisible = invisible || ((cell.kind == Cell::Kind::kStr || cell.kind == Cell::Kind::kObject) &&
                                has_invisible_codes(cell.text));
    }
  }

  std::vector<AlignedColumn> aligned;
  for (size_t c = 0; c < headers.size(); ++c) {
    ColumnType type = ColumnType::kBool;
    for (size_t r = 0; r < frame.rows.size(); ++r) type = std::max(type, cell_type(cell_at(r, c)));
    const bool numeric = type == ColumnType::kInt || type == ColumnType::kFloat;
    std::vector<std::string> strings;
    for (size_t r = 0; r < frame.rows.size(); ++r) strings.push_back(format_cell(cell_at(r, c), type, invisible));
    aligned.push_back(align_column(std::move(strings), numeric, text_width(headers[c], multiline, invisible) + 2,
                                   multiline, invisible));
  }
  // Without rows every column is aligned as text.
  std::vector<const std::string*> header_cells;
  for (const std::string& h : headers) header_cells.push_back(&h);
  std::vector<size_t> padded_widths;
  for (const AlignedColumn& column : aligned) padded_widths.push_back(column.width + 2);
  auto row_cells = [&](size_t r) {
    std::vector<const std::string*> cells;
    for (const AlignedColumn& column : aligned) cells.push_back(&column.cells[r]);
    return cells;
  };

  if (format == TableFormat::kFancyGrid) {
    emit(rule({"╒", "═", "╤", "╕"}, padded_widths));
    emit_row(emit, header_cells, aligned, "│", multiline);
    emit(rule({"╞", "═", "╪", "╡"}, padded_widths));
    const std::string between = rule({"├", "─", "┼", "┤"}, padded_widths);
    for (size_t r = 0; r < frame.rows.size(); ++r) {
      if (r) emit(between);
      emit_row(emit, row_cells(r), aligned, "│", multiline);
    }
    emit(rule({"╘", "═", "╧", "╛"}, padded_widths));
  } else {
    emit_row(emit, header_cells, aligned, "|", multiline);
    emit(pipe_rule(aligned, with_index));
    for (size_t r = 0; r < frame.rows.size(); ++r) emit_row(emit, row_cells(r), aligned, "|", multiline);
  }
}

std::string tabulate(const Frame& frame, TableFormat format) {
  std::string out;
  tabulate_lines(frame, format, [&](std::string_view line) {
    if (!out.empty()) out += '\n';
    out += line;
  });
  return out;
}

}  // namespace etkit::inspect
