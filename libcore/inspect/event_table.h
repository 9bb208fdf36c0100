// The rows of the Inspector's printed table (print_data_tabular,
// save_data_to_tsv; inspector_spec.md §7): which events show, in which
// order, and the frame of cells tabulate or the TSV writer receives. Row
// selections (filter, block, sort, top) keep each row's index from the full
// table, as a pandas selection keeps its index labels.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libcore/inspect/event_blocks.h"
#include "libcore/inspect/frame.h"

namespace etkit::inspect {

struct TableRow {
  size_t block = 0;
  size_t event = 0;
  int64_t index = 0;                // position in the full printed table
  std::optional<PerfStats> stats;   // nullopt: no perf data
};

// Every event whose name does not contain "OPERATOR_CALL", block by block,
// numbered 0..N-1 (the frame after reset_index).
std::vector<TableRow> printed_rows(const Inspection& inspection);

// Keeps rows whose event name matches `regex` (POSIX extended, searched
// anywhere in the name); an invalid expression is a usage error.
Status filter_by_name(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& regex);
void filter_by_block(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& block_name);
// Sorts the rows of each block (blocks keep their order; ties keep table
// order). Keys: p10 p50 p90 avg min max (largest first, rows without perf
// data last), name and instruction_id (ascending), start_time (earliest
// first), index (table order). A header with its unit ("avg (ms)") works too.
Status sort_rows(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& key);
// At most `count` rows per block.
void keep_top(std::vector<TableRow>& rows, size_t count);

struct FrameOptions {
  bool include_units = true;  // " (ms)" after the stat headers
  // With a debug buffer, a last column "debug_data" summarises each event's
  // logged values (an etkit addition: Python leaves debug_data out of the table).
  std::optional<ByteSpan> debug_buffer;
  size_t max_values = 4;  // tensor elements shown per value
  // Columns "module" (innermost nn.Module path) and "source" (file:line)
  // from the ETRecord links (an etkit addition, before debug_data).
  bool source_columns = false;
};

// The columns print_data_tabular shows: event_block_name, event_name,
// p10..max with units, op_types, is_delegated_op, delegate_backend_name,
// start_time. Stat cells of events without perf data are NaN when some event
// of the inspection has perf data and None otherwise (the pandas concat
// rule of §4).
Frame event_frame(const Inspection& inspection, std::span<const TableRow> rows, const FrameOptions& options = {});

// The unit suffix of the stat headers: " (ms)".
std::string unit_suffix(const Inspection& inspection);

// Event.asdict's op_types cell: the list below 5 entries, else the string
// "['first', 'second' ... 'last'] (N total)".
Cell op_types_cell(const std::vector<std::string>& op_types);

}  // namespace etkit::inspect
