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
      return write_frame_json(inspection, frame, out, json);
    }
  }
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
    return write_frame(inspection, op_type_frame(inspection, rows, options.top.value_or(SIZE_MAX)), options, out);
  }

  if (options.sort || options.top) ETKIT_TRY(sort_rows(rows, inspection, options.sort.value_or("avg")));
  if (options.top) keep_top(rows, *options.top);
  if (options.format == OutputFormat::kJson || options.format == OutputFormat::kJsonl) {
    JsonOptions json;
    json.lines = options.format == OutputFormat::kJsonl;
    json.debug_buffer = options.debug_buffer;
    json.max_values = options.max_values;
    return write_events_json(inspection, rows, out, json);
  }
  FrameOptions frame_options;
  frame_options.debug_buffer = options.debug_buffer;
  frame_options.max_values = options.max_values;
  frame_options.source_columns = options.source_columns;
  return write_frame(inspection, event_frame(inspection, rows, frame_options), options, out);
}

}  // namespace etkit::inspect
