// Fills the HTML report's ReportData from the Inspector's event blocks. The
// table lists every event the Inspector prints (OPERATOR_CALL rows hidden, as
// print_data_tabular does). Shares, the op-type chart, the timeline, the graph
// colours and the intermediate outputs come from one "main" block: the
// "Execute" block with the most folded runs (else the block with the most
// timed events). An instruction's time is its OPERATOR_CALL / DELEGATE_CALL
// mean (the kernel event's when that scope was not profiled); its share is
// that over the sum for all instructions of the block.
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

// Each instruction's share of the main block's instruction time (0..1).
std::map<InstructionRef, double> instruction_time_shares(const inspect::Inspection& inspection);

ReportData report_from_inspection(const inspect::Inspection& inspection, const ReportSources& sources);

}  // namespace etkit::render
