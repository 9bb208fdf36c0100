// A self-contained HTML report of a profiled run: one file with its CSS,
// script and SVG drawings inline, no network requests, readable offline.
// Sections: run summary, time by op type (bar chart), a timeline of one
// execution, the program graph (nodes coloured by time share, each linking
// to its table row), the sortable per-event table and, with a debug buffer,
// intermediate output summaries; or, for many runs, the wide table of op
// types by label value (heat-coloured by ratio, one sparkline per row). The input is a plain struct so the page
// can be produced and tested without the Inspector; adapters fill it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcore/render/program_graph.h"

namespace etkit::render {

struct ReportStats {
  double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;
};

// One row of the per-event table.
struct ReportRow {
  std::string block;
  std::string name;
  std::optional<InstructionRef> instruction;
  std::optional<ReportStats> stats;  // nullopt: no perf data
  size_t samples = 0;
  std::optional<double> share;  // of the total instruction time, 0..1
  std::vector<std::string> op_types;
  bool delegated = false;
  std::string backend;
  std::string module_path;  // innermost nn.Module path, with an ETRecord
  std::string source;       // "file.py:42", with an ETRecord
};

struct ReportBar {
  std::string label;
  double value = 0;  // in ReportData::unit
};

// One slice of the execution timeline; times in ReportData::unit from the
// execution's start.
struct TimelineSlice {
  std::string name;
  double start = 0;
  double duration = 0;
  int lane = 0;  // 0 Method::execute, 1 instruction, 2 kernel, 3 delegate
  bool delegated = false;
  std::optional<size_t> row;  // table row it links to
};

struct ReportTimeline {
  std::string title;  // e.g. "Execute, run 0 of 10"
  std::vector<TimelineSlice> slices;
};

// What the graph shows on an instruction node.
struct NodeAnnotation {
  std::optional<double> share;             // 0..1
  std::optional<size_t> row;               // table row it links to
  std::string source;                      // source location, with an ETRecord
  std::vector<std::string> intermediates;  // one summary line per logged output
};

struct ReportIntermediate {
  std::string block;
  std::string event;
  std::optional<InstructionRef> instruction;
  std::optional<size_t> row;
  std::vector<std::string> values;  // one summary line per logged value
};

// Many runs side by side (et-fleet compare): rows by the values of a label.
struct WideTable {
  std::string label;                // e.g. "device" or "build"
  std::vector<std::string> values;  // the columns, in order (a sparkline follows it)
  size_t baseline = 0;              // the column ratios are to
  struct Row {
    std::string name;                        // op type
    std::vector<std::optional<double>> p50;  // per value, in ReportData::unit
    std::vector<std::optional<double>> share;  // per value, in percent
  };
  std::vector<Row> rows;
};

struct ReportData {
  std::string title = "etkit report";
  std::vector<std::pair<std::string, std::string>> summary;  // label, value
  std::string unit = "ms";                                   // of every time in the report
  std::vector<ReportRow> rows;
  std::vector<ReportBar> op_type_times;  // largest first
  std::string op_type_caption;           // how the bars were computed
  std::optional<ReportTimeline> timeline;
  std::optional<ProgramGraph> graph;
  std::map<InstructionRef, NodeAnnotation> nodes;
  std::vector<ReportIntermediate> intermediates;
  std::vector<std::string> notes;  // shown under the summary (e.g. what is missing)
  // With a wide table and no rows, the page is the wide table alone.
  std::optional<WideTable> wide;
};

std::string render_html_report(const ReportData& data);

// HTML text/attribute escaping: & < > " '.
std::string html_escape(std::string_view text);

}  // namespace etkit::render
