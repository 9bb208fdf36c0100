// Per-run operator times, the unit et-fleet compare and gate work on: for
// every execution (a sample of a block), the time spent in each op type,
// summed over the events et-inspect's op-type view counts. Small (op types x
// executions) however large the dump, so these are what is kept in memory
// across thousands of runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "libcore/fleet/collect.h"

namespace etkit::fleet {

struct RunOps {
  size_t input_index = 0;
  std::string file;
  std::vector<std::string> labels;
  std::string program;
  // op type -> one time per execution that ran it (block order, then run order)
  std::map<std::string, std::vector<double>> samples;
};

RunOps run_ops(const FleetRun& run);

}  // namespace etkit::fleet
