// Fills the HTML report's ReportData from the Inspector's event blocks. The
// table lists every event the Inspector prints (OPERATOR_CALL rows hidden, as
// print_data_tabular does). Shares, the op-type chart, the timeline, the graph
// colours and the intermediate outputs come from one "main" block (main_block
// below). An instruction's time is its OPERATOR_CALL / DELEGATE_CALL mean (the
// kernel event's when that scope was not profiled); its share is that over the
// sum for all instructions of the block.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/inspect/event_blocks.h"
#include "libcore/render/html_report.h"
#include "libcore/support/bytes.h"

namespace etkit::render {

struct ReportSources {
  std::string title = "etkit report";
  std::vector<std::pair<std::string, std::string>> files;  // summary lines, e.g. {"ETDump", path}
  const pte::ExecutionPlan* plan = nullptr;                // the profiled method: graph and op names
  std::optional<ByteSpan> debug_buffer;                    // intermediate output summaries
};

// The block that stands for "the run": of the "Execute" blocks with timed
// events, the one whose events fit `plan` best (fewest events whose
// instruction the method lacks or has of another kind or operator), then the
// one with the most folded runs; without Execute blocks, the block with the
// most timed events. Block names do not say which method ran, so the
// warnings say when the choice is doubtful: several Execute blocks (other
// methods, or runs that took other paths), or events that do not fit `plan`.
struct MainBlock {
  std::optional<size_t> block;
  std::vector<std::string> warnings;
};
MainBlock main_block(const inspect::Inspection& inspection, const pte::ExecutionPlan* plan);

// Each instruction's share of the main block's instruction time (0..1), and
// main_block's warnings.
struct TimeShares {
  std::map<InstructionRef, double> share;
  std::vector<std::string> warnings;
};
TimeShares instruction_time_shares(const inspect::Inspection& inspection, const pte::ExecutionPlan* plan);

ReportData report_from_inspection(const inspect::Inspection& inspection, const ReportSources& sources);

}  // namespace etkit::render
