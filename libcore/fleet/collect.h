// Reads many ETDumps through the Inspector's event model (libcore/inspect)
// into one flat record per (run, event, sample): the long table. Files are
// read in parallel, one dump at a time per worker, and handed to a sink in
// input order as they complete, so memory stays bounded by the jobs in
// flight whatever the number of files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "libcore/fleet/inputs.h"
#include "libcore/inspect/event_blocks.h"
#include "libcore/inspect/time_scale.h"
#include "libcore/support/result.h"

namespace etkit::fleet {

// One Inspector event of one run with its samples; the long table has one
// row per sample. OPERATOR_CALL events and events without timing are left
// out, as et-inspect's table leaves them out.
struct FleetEvent {
  uint32_t block_index = 0;  // the Inspector's block, in file order
  uint32_t event_index = 0;  // the event within the block
  std::string name;
  int32_t instruction_id = 0;
  int64_t chain_index = 0;
  std::string delegate_debug_identifier;  // "" when none
  std::string debug_handles;              // from the ETRecord: "3" or "3,4"; "" unlinked
  std::string op_type;                    // inspect::op_type_of
  std::string module;                     // innermost nn.Module path when linked
  bool counted = false;                   // inspect::counts_in_summary: adds to the op-type totals
  std::vector<double> samples;            // one per run of the block, in the target time scale
};

struct FleetRun {
  size_t input_index = 0;  // position in InputSet::inputs; the run id is this + 1
  std::string file;
  std::vector<std::string> labels;
  std::string program;                   // program_signature()
  std::vector<std::string> block_names;  // by block_index
  std::vector<FleetEvent> events;
};

struct CollectOptions {
  inspect::TimeScale source_time_scale = inspect::TimeScale::kNs;
  inspect::TimeScale target_time_scale = inspect::TimeScale::kMs;
  size_t warmup = 0;
  size_t jobs = 0;               // 0: the hardware's threads
  std::string etrecord;          // for inputs without their own
  std::string method = "forward";
  bool strict = false;           // the first bad file (in input order) is the error
};

// What identifies a program across runs, as 16 hex digits (FNV-1a 64): the
// distinct (event name, instruction id, chain index) of the timed events
// other than OPERATOR_CALL, sorted. ETDumps carry no program hash; two runs
// of one program give the same set whatever their number of executions, and
// a program with another operator, instruction order or delegate partition
// gives another.
std::string program_signature(const inspect::Inspection& inspection);

// The long-table record of one file, from its inspection (after warm-up
// and linking).
FleetRun fleet_run(const FleetInput& input, size_t index, const inspect::Inspection& inspection);

// Called in input order from one thread at a time.
using RunSink = std::function<Status(const FleetRun&)>;
// One line per skipped file: "FILE: what is wrong".
using WarningSink = std::function<void(const std::string&)>;

// Reads every input and hands each run to `sink` in input order. A file that
// cannot be read (or whose ETRecord cannot) is reported to `warn` and skipped,
// or with `strict` returned as the error (the sink is then not called for any
// later file). ETRecords are loaded once each, before any dump. An error of
// the sink stops everything and is returned. Returns the number of runs given
// to the sink.
Result<size_t> collect(const InputSet& inputs, const CollectOptions& options, const RunSink& sink,
                       const WarningSink& warn);

}  // namespace etkit::fleet
