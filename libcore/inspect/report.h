// et-inspect's output: which rows (filter, block, sort, top), which view
// (events or op types) and which format, written to a stream. The default
// (table, events view, no selection) is print_data_tabular's output.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/inspect/event_blocks.h"

namespace etkit::inspect {

enum class OutputFormat { kTable, kCsv, kTsv, kJson, kJsonl, kMarkdown };
std::optional<OutputFormat> parse_output_format(std::string_view name);

enum class View {
  kEvents,   // one row per Inspector event (print_data_tabular's rows)
  kOpTypes,  // op_summary.h: totals per op type and block
};

struct ReportOptions {
  OutputFormat format = OutputFormat::kTable;
  View view = View::kEvents;
  std::optional<std::string> filter;  // regex on event names
  std::optional<std::string> block;   // block name
  std::optional<std::string> sort;    // sort key (event_table.h); the op-type view sorts by total
  std::optional<size_t> top;          // rows per block; alone it sorts by avg first
  std::optional<ByteSpan> debug_buffer;  // adds debug-data summaries
  size_t max_values = 4;
  bool source_columns = false;  // module path and source line per event
  // Only these columns, in this order (tables, CSV, TSV); empty: all.
  std::vector<std::string> columns;
  bool pretty = false;  // JSON (not JSON Lines): indent
};

// Writes the report. Usage errors (bad regex, unknown sort key, a sort key
// in the op-type view) come before anything is written.
Status write_report(const Inspection& inspection, const ReportOptions& options, std::FILE* out);

}  // namespace etkit::inspect
