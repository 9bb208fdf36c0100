#include "libcore/compare/report.h"

#include <cerrno>
#include <charconv>
#include <cmath>

#include "libcore/support/json_writer.h"

namespace etkit::compare {

std::string Report::unit_of(const std::string& column) const {
  for (const auto& [name, unit] : units) {
    if (name == column) return unit;
  }
  return {};
}

namespace {

// "snr (dB)" for people; machines read "snr" and the units.
std::vector<std::string> headers(const Report& report) {
  std::vector<std::string> out;
  for (const std::string& c : report.columns) {
    const std::string unit = report.unit_of(c);
    out.push_back(unit.empty() ? c : c + " (" + unit + ")");
  }
  return out;
}

std::string exact_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string cell_text(const Cell& cell, bool exact) {
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return exact ? exact_number(*d) : format_number(*d);
  return "";
}

bool is_number(const Cell& cell) { return std::holds_alternative<int64_t>(cell) || std::holds_alternative<double>(cell); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// Pipes would end a Markdown cell.
std::string markdown_field(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void render_table(const Report& report, std::string& out) {
  // Columns holding numbers are right-aligned, header included.
  std::vector<size_t> width(report.columns.size());
  std::vector<bool> right(report.columns.size(), false);
  const std::vector<std::string> header = headers(report);
  for (size_t c = 0; c < report.columns.size(); ++c) width[c] = header[c].size();
  std::vector<std::vector<std::string>> text;
  for (const auto& row : report.rows) {
    text.emplace_back();
    for (size_t c = 0; c < report.columns.size(); ++c) {
      text.back().push_back(c < row.size() ? cell_text(row[c], false) : "");
      width[c] = std::max(width[c], text.back().back().size());
      if (c < row.size() && is_number(row[c])) right[c] = true;
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = width[c] - cells[c].size();
      if (c) l += "  ";
      if (right[c]) l.append(pad, ' ');
      l += cells[c];
      if (!right[c] && c + 1 < cells.size()) l.append(pad, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + '\n';
  };
  line(header);
  for (const auto& cells : text) line(cells);
  if (!report.summary.empty()) out += '\n';
  for (const auto& [key, value] : report.summary) out += key + ": " + cell_text(value, false) + '\n';
}

void render_markdown(const Report& report, std::string& out) {
  out += '|';
  for (const auto& c : headers(report)) out += ' ' + markdown_field(c) + " |";
  out += "\n|";
  for (size_t c = 0; c < report.columns.size(); ++c) out += "---|";
  out += '\n';
  for (const auto& row : report.rows) {
    out += '|';
    for (size_t c = 0; c < report.columns.size(); ++c) {
      out += ' ' + markdown_field(c < row.size() ? cell_text(row[c], false) : "") + " |";
    }
    out += '\n';
  }
  if (!report.summary.empty()) out += '\n';
  for (const auto& [key, value] : report.summary) out += "- " + key + ": " + markdown_field(cell_text(value, false)) + '\n';
}

void render_csv(const Report& report, std::string& out) {
  for (size_t c = 0; c < report.columns.size(); ++c) {
    if (c) out += ',';
    out += csv_field(report.columns[c]);
  }
  out += '\n';
  for (const auto& row : report.rows) {
    for (size_t c = 0; c < report.columns.size(); ++c) {
      if (c) out += ',';
      out += csv_field(c < row.size() ? cell_text(row[c], true) : "");
    }
    out += '\n';
  }
}

void json_cell(JsonWriter& w, const Cell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) w.string(*s);
  else if (const auto* i = std::get_if<int64_t>(&cell)) w.number(*i);
  else if (const auto* d = std::get_if<double>(&cell)) w.number(*d);
  else w.null();
}

Status render_json(const Report& report, std::FILE* out, bool pretty) {
  JsonWriter w(out, pretty);
  w.begin_object();
  w.key("format");
  w.string(report.format);
  w.key("command");
  w.string(report.command);
  w.key("columns");
  w.begin_array();
  for (const auto& c : report.columns) w.string(c);
  w.end_array();
  w.key("units");
  w.begin_object();
  for (const auto& [column, unit] : report.units) {
    w.key(column);
    w.string(unit);
  }
  w.end_object();
  w.key("rows");
  w.begin_array();
  for (const auto& row : report.rows) {
    w.begin_object();
    for (size_t c = 0; c < report.columns.size() && c < row.size(); ++c) {
      w.key(report.columns[c]);
      json_cell(w, row[c]);
    }
    w.end_object();
  }
  w.end_array();
  w.key("summary");
  w.begin_object();
  for (const auto& [key, value] : report.summary) {
    w.key(key);
    json_cell(w, value);
  }
  w.end_object();
  w.end_object();
  w.newline();
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  if (w.failed()) return io_error("<output>", "write failed");
  return {};
}

}  // namespace

Result<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  if (name == "markdown") return Format::kMarkdown;
  return Error{ErrorKind::kUsage, {}, {}, "unknown format '" + std::string(name) + "' (table, csv, json, markdown)"};
}

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

Status render(const Report& report, Format format, std::FILE* out, bool pretty) {
  if (format == Format::kJson) return render_json(report, out, pretty);
  std::string text;
  if (format == Format::kTable) render_table(report, text);
  else if (format == Format::kMarkdown) render_markdown(report, text);
  else render_csv(report, text);
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) {
    if (errno == EPIPE) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
    return io_error("<output>", "write failed");
  }
  return {};
}

}  // namespace etkit::compare
