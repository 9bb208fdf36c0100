#include "libcore/inspect/report.h"

#include <cerrno>

#include "libcore/inspect/delimited.h"
#include "libcore/inspect/event_table.h"
#include "libcore/inspect/inspect_json.h"
#include "libcore/inspect/op_summary.h"
#include "libcore/inspect/tabulate.h"

namespace etkit::inspect {

namespace {

Status write_error() {
  if (errno == EPIPE) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  return io_error("<stdout>", "cannot write the output");
}

Status write_text(const std::string& text, std::FILE* out) {
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) return write_error();
  return {};
}

// Streamed: a table of a big dump is far larger than its frame.
Status write_table(const Frame& frame, TableFormat format, std::FILE* out) {
  bool failed = false;
  tabulate_lines(frame, format, [&](std::string_view line) {
    failed = failed || std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fputc('\n', out) == EOF;
  });
  if (failed || std::fflush(out) != 0) return write_error();
  return {};
}

Status write_frame(const Inspection& inspection, const Frame& frame, const ReportOptions& options, std::FILE* out) {
  switch (options.format) {
    case OutputFormat::kTable: return write_table(frame, TableFormat::kFancyGrid, out);
    case OutputFormat::kMarkdown: return write_table(frame, TableFormat::kPipe, out);
    case OutputFormat::kCsv: return write_text(to_delimited(frame, ','), out);
    case OutputFormat::kTsv: return write_text(to_delimited(frame, '\t'), out);
    case OutputFormat::kJson:
    case OutputFormat::kJsonl: {
      JsonOptions json;
      json.lines = options.format == OutputFormat::kJsonl;
      json.pretty = options.pretty;
      return write_frame_json(inspection, frame, out, json);
    }
  }
  return {};
}

// Keeps the named columns, in the order given. A stat column may be named
// without its unit ("avg" for "avg (ms)").
Status select_columns(Frame& frame, const std::vector<std::string>& names) {
  std::vector<size_t> picked;
  for (const std::string& name : names) {
    size_t found = frame.columns.size();
    for (size_t c = 0; c < frame.columns.size(); ++c) {
      const std::string& column = frame.columns[c];
      if (column == name || column.rfind(name + " (", 0) == 0) found = c;
    }
    if (found == frame.columns.size()) {
      std::string known;
      for (const std::string& column : frame.columns) known += (known.empty() ? "" : ", ") + column;
      return Error{ErrorKind::kUsage, {}, {}, "no column '" + name + "' (columns: " + known + ")"};
    }
    picked.push_back(found);
  }
  Frame selected;
  for (size_t c : picked) selected.columns.push_back(frame.columns[c]);
  selected.index = std::move(frame.index);
  for (auto& row : frame.rows) {
    std::vector<Cell> cells;
    for (size_t c : picked) cells.push_back(std::move(row[c]));
    selected.rows.push_back(std::move(cells));
  }
  frame = std::move(selected);
  return {};
}

}  // namespace

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  static const std::pair<std::string_view, OutputFormat> kFormats[] = {
      {"table", OutputFormat::kTable}, {"csv", OutputFormat::kCsv},     {"tsv", OutputFormat::kTsv},
      {"json", OutputFormat::kJson},   {"jsonl", OutputFormat::kJsonl}, {"markdown", OutputFormat::kMarkdown}};
  for (const auto& [n, f] : kFormats) {
    if (n == name) return f;
  }
  return std::nullopt;
}

Status write_report(const Inspection& inspection, const ReportOptions& options, std::FILE* out) {
  std::vector<TableRow> rows = printed_rows(inspection);
  if (options.filter) ETKIT_TRY(filter_by_name(rows, inspection, *options.filter));
  if (options.block) filter_by_block(rows, inspection, *options.block);

  if (options.view == View::kOpTypes) {
    if (options.sort) {
      return Error{ErrorKind::kUsage, {}, {}, "--sort applies to the events view; the op-type view is sorted by total"};
    }
    Frame frame = op_type_frame(inspection, rows, options.top.value_or(SIZE_MAX));
    if (!options.columns.empty()) ETKIT_TRY(select_columns(frame, options.columns));
    return write_frame(inspection, frame, options, out);
  }

  if (options.sort || options.top) ETKIT_TRY(sort_rows(rows, inspection, options.sort.value_or("avg")));
  if (options.top) keep_top(rows, *options.top);
  if (options.format == OutputFormat::kJson || options.format == OutputFormat::kJsonl) {
    if (!options.columns.empty()) {
      return Error{ErrorKind::kUsage, {}, {}, "--columns applies to tables and CSV/TSV; JSON carries every field"};
    }
    JsonOptions json;
    json.lines = options.format == OutputFormat::kJsonl;
    json.pretty = options.pretty;
    json.debug_buffer = options.debug_buffer;
    json.max_values = options.max_values;
    return write_events_json(inspection, rows, out, json);
  }
  FrameOptions frame_options;
  frame_options.debug_buffer = options.debug_buffer;
  frame_options.max_values = options.max_values;
  frame_options.source_columns = options.source_columns;
  Frame frame = event_frame(inspection, rows, frame_options);
  if (!options.columns.empty()) ETKIT_TRY(select_columns(frame, options.columns));
  return write_frame(inspection, frame, options, out);
}

}  // namespace etkit::inspect
