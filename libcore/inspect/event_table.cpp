#include "libcore/inspect/event_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "libcore/inspect/debug_values.h"
#include "libcore/inspect/py_format.h"
#include "libcore/inspect/source_info.h"
#include "libcore/support/posix_regex.h"

namespace etkit::inspect {

namespace {

const Event& event_of(const Inspection& inspection, const TableRow& row) {
  return inspection.blocks[row.block].events[row.event];
}

// What pandas 1.5 (Debian 12) puts in the stat cells of events without perf
// data, where the Inspector's asdict() has None: EventBlock.to_dataframe
// concatenates one-row frames, and a block with events of both kinds keeps
// an object column, None included (printed empty); a block with none of them
// timed is all-None, which Inspector.to_dataframe's concatenation of blocks
// ignores when a float64 block is present, filling in NaN (printed "nan").
// So: any block with both kinds -> None everywhere; else any timed event ->
// NaN; else None (checked against pandas 1.5.3; inspector_spec.md §4, §7.2).
Cell missing_stat_cell(const Inspection& inspection) {
  bool any_timed = false;
  for (const EventBlock& block : inspection.blocks) {
    bool timed = false, untimed = false;
    for (const Event& event : block.events) (event.has_perf_data() ? timed : untimed) = true;
    if (timed && untimed) return Cell::none();
    any_timed = any_timed || timed;
  }
  return any_timed ? Cell::real(std::numeric_limits<double>::quiet_NaN()) : Cell::none();
}

// The sort key's column: a stat, or one of the other sortable fields.
enum class SortKey { kP10, kP50, kP90, kAvg, kMin, kMax, kName, kInstructionId, kStartTime, kIndex };

std::optional<SortKey> parse_sort_key(std::string key, const Inspection& inspection) {
  const std::string unit = unit_suffix(inspection);
  if (key.size() > unit.size() && key.compare(key.size() - unit.size(), unit.size(), unit) == 0) {
    key.resize(key.size() - unit.size());
  }
  static const std::pair<const char*, SortKey> kKeys[] = {
      {"p10", SortKey::kP10}, {"p50", SortKey::kP50}, {"p90", SortKey::kP90}, {"avg", SortKey::kAvg},
      {"min", SortKey::kMin}, {"max", SortKey::kMax}, {"name", SortKey::kName}, {"event_name", SortKey::kName},
      {"instruction_id", SortKey::kInstructionId}, {"start_time", SortKey::kStartTime}, {"index", SortKey::kIndex}};
  for (const auto& [name, value] : kKeys) {
    if (key == name) return value;
  }
  return std::nullopt;
}

double stat(const PerfStats& s, SortKey key) {
  switch (key) {
    case SortKey::kP10: return s.p10;
    case SortKey::kP50: return s.p50;
    case SortKey::kP90: return s.p90;
    case SortKey::kMin: return s.min;
    case SortKey::kMax: return s.max;
    default: return s.avg;
  }
}

}  // namespace

std::string unit_suffix(const Inspection& inspection) {
  return " (" + std::string(time_scale_name(inspection.target_time_scale)) + ")";
}

std::vector<TableRow> printed_rows(const Inspection& inspection) {
  std::vector<TableRow> rows;
  for (size_t b = 0; b < inspection.blocks.size(); ++b) {
    const auto& events = inspection.blocks[b].events;
    for (size_t e = 0; e < events.size(); ++e) {
      // EXCLUDED_EVENTS_WHEN_PRINTING, applied with str.contains.
      if (events[e].name.find("OPERATOR_CALL") != std::string::npos) continue;
      TableRow row{b, e, int64_t(rows.size()), std::nullopt};
      if (events[e].has_perf_data()) row.stats = events[e].stats();
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

Status filter_by_name(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& regex) {
  auto re = PosixRegex::compile(regex);
  if (!re) return std::move(re).error().in("--filter");
  std::erase_if(rows, [&](const TableRow& row) { return !re->search(event_of(inspection, row).name); });
  return {};
}

void filter_by_block(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& block_name) {
  std::erase_if(rows, [&](const TableRow& row) { return inspection.blocks[row.block].name != block_name; });
}

Status sort_rows(std::vector<TableRow>& rows, const Inspection& inspection, const std::string& key_name) {
  const auto key = parse_sort_key(key_name, inspection);
  if (!key) {
    return Error{ErrorKind::kUsage, {}, {},
                 "unknown sort key '" + key_name +
                     "' (expected p10, p50, p90, avg, min, max, name, instruction_id, start_time or index)"};
  }
  // Missing values sort last whatever the direction.
  auto less = [&](const TableRow& a, const TableRow& b) {
    if (a.block != b.block) return a.block < b.block;
    const Event& ea = event_of(inspection, a);
    const Event& eb = event_of(inspection, b);
    switch (*key) {
      case SortKey::kName: return ea.name < eb.name;
      case SortKey::kInstructionId: return ea.instruction_id < eb.instruction_id;
      case SortKey::kIndex: return a.index < b.index;
      case SortKey::kStartTime:
        if (ea.start_time.empty() || eb.start_time.empty()) return !ea.start_time.empty() && eb.start_time.empty();
        return ea.start_time[0] < eb.start_time[0];
      default:
        if (!a.stats || !b.stats) return a.stats.has_value() && !b.stats.has_value();
        return stat(*a.stats, *key) > stat(*b.stats, *key);
    }
  };
  std::stable_sort(rows.begin(), rows.end(), less);
  return {};
}

void keep_top(std::vector<TableRow>& rows, size_t count) {
  std::vector<TableRow> kept;
  size_t in_block = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    in_block = (i > 0 && rows[i].block == rows[i - 1].block) ? in_block + 1 : 0;
    if (in_block < count) kept.push_back(rows[i]);
  }
  rows = std::move(kept);
}

Cell op_types_cell(const std::vector<std::string>& op_types) {
  if (op_types.size() < 5) return Cell::object(py_str_list(op_types));
  return Cell::str("['" + op_types[0] + "', '" + op_types[1] + "' ... '" + op_types.back() + "'] (" +
                   std::to_string(op_types.size()) + " total)");
}

Frame event_frame(const Inspection& inspection, std::span<const TableRow> rows, const FrameOptions& options) {
  const std::string unit = options.include_units ? unit_suffix(inspection) : "";
  Frame frame;
  frame.columns = {"event_block_name", "event_name", "p10" + unit, "p50" + unit, "p90" + unit, "avg" + unit,
                   "min" + unit, "max" + unit, "op_types", "is_delegated_op", "delegate_backend_name", "start_time"};
  if (options.source_columns) frame.columns.insert(frame.columns.end(), {"module", "source"});
  if (options.debug_buffer) frame.columns.push_back("debug_data");
  const Cell missing_stat = missing_stat_cell(inspection);
  for (const TableRow& row : rows) {
    const Event& event = event_of(inspection, row);
    std::vector<Cell> cells;
    cells.push_back(Cell::str(inspection.blocks[row.block].name));
    cells.push_back(Cell::str(event.name));
    if (row.stats) {
      for (double v : {row.stats->p10, row.stats->p50, row.stats->p90, row.stats->avg, row.stats->min, row.stats->max}) {
        cells.push_back(Cell::real(v));
      }
    } else {
      cells.insert(cells.end(), 6, missing_stat);
    }
    cells.push_back(op_types_cell(event.op_types));
    cells.push_back(Cell::boolean(event.is_delegated_op));
    cells.push_back(event.delegate_backend_name ? Cell::str(*event.delegate_backend_name) : Cell::none());
    cells.push_back(event.start_time.empty() ? Cell::none() : Cell::object(py_str_list(event.start_time)));
    if (options.source_columns) {
      cells.push_back(Cell::str(event_module_path(event)));
      cells.push_back(Cell::str(event_source_line(event)));
    }
    if (options.debug_buffer) {
      std::string summary;
      for (const DebugValue& value : event.debug_data) {
        if (!summary.empty()) summary += "; ";
        summary += summarize_debug_value(value, *options.debug_buffer, options.max_values);
      }
      cells.push_back(Cell::object(std::move(summary)));
    }
    frame.index.push_back(row.index);
    frame.rows.push_back(std::move(cells));
  }
  return frame;
}

}  // namespace etkit::inspect
