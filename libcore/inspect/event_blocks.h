// The Python Inspector's data model (inspector_spec.md §3): EventBlocks of
// Events, each Event with one sample per folded run. Built straight from the
// verified ETDump FlatBuffer: only one Event per (block, signature) and its
// samples are kept, never one struct per ETDump event, so a 100 MB dump with
// a million events needs little more memory than the file itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/inspect/perf_stats.h"
#include "libcore/inspect/record_links.h"
#include "libcore/inspect/time_scale.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::inspect {

// Event.delegate_debug_identifier: None, an int or a string.
struct DelegateId {
  enum class Kind : uint8_t { kNone, kInt, kStr };
  Kind kind = Kind::kNone;
  int64_t int_value = 0;
  std::string str_value;

  bool is_none() const { return kind == Kind::kNone; }
  // Python str(identifier); "" for None.
  std::string str() const { return kind == Kind::kInt ? std::to_string(int_value) : str_value; }
  bool operator==(const DelegateId&) const = default;
};

// A logged value as the Inspector inflates it (§1.4): Null and String give
// None; Float and Double both give a Python float. Tensor bytes stay in the
// debug buffer (read them with etdump::tensor_bytes).
struct DebugValue {
  enum class Kind : uint8_t { kNone, kInt, kBool, kFloat, kTensor, kTensorList };
  Kind kind = Kind::kNone;
  int64_t int_value = 0;
  bool bool_value = false;
  double float_value = 0;
  std::vector<etdump::Tensor> tensors;  // one for kTensor
};

struct Event {
  std::string name;
  int32_t instruction_id = 0;  // Event._instruction_id: raw, 0 for framework events
  // Not in the Python model, which drops it: the ETDump's chain_index of the
  // kept sample's instruction (-1 for framework events; a DebugEvent's u64
  // -1 reads back as -1 too). Together with instruction_id it names the
  // instruction in the program.
  int64_t chain_index = 0;
  DelegateId delegate_debug_identifier;
  bool is_delegated_op = false;
  // perf_data.raw: durations in the target unit, one per run in run order;
  // empty means perf_data is None.
  std::vector<double> raw;
  std::vector<uint64_t> start_time;  // raw start ticks, parallel to `raw`
  // One entry per sample, empty where the event had none; left empty unless
  // some sample had metadata (as the Python Inspector keeps it).
  std::vector<std::vector<uint8_t>> delegate_debug_metadatas;
  std::vector<DebugValue> debug_data;

  // Filled by link_events() from an ETRecord; these are the values without one.
  int64_t num_outputs = 1;
  std::optional<DebugHandles> debug_handles;
  std::vector<std::string> op_types;
  // Dicts keyed by graph node name, in insertion order.
  std::vector<std::pair<std::string, std::optional<std::string>>> stack_traces;
  std::vector<std::pair<std::string, std::optional<std::vector<ModuleStackEntry>>>> module_hierarchy;
  std::optional<std::string> delegate_backend_name;

  bool has_perf_data() const { return !raw.empty(); }
  PerfStats stats() const { return compute_stats(raw); }  // requires has_perf_data()
};

struct EventBlock {
  std::string name;
  int32_t bundled_input_index = -1;  // raw: -1 when unset
  size_t run_count = 0;              // RunData entries folded into this block
  std::vector<Event> events;
  std::vector<DebugValue> run_output;
};

struct Inspection {
  TimeScale source_time_scale = TimeScale::kNs;
  TimeScale target_time_scale = TimeScale::kMs;
  std::vector<EventBlock> blocks;
  // Where this file would make the Python Inspector fail but we go on
  // (runs whose outputs or debug data differ within a block).
  std::vector<std::string> warnings;
};

struct BuildOptions {
  TimeScale source_time_scale = TimeScale::kNs;
  TimeScale target_time_scale = TimeScale::kMs;
  // The debug buffer beside the ETDump, if any: logged tensors are checked
  // against it and runs are compared by value instead of by shape.
  std::optional<ByteSpan> debug_buffer;
};

// EventBlock._gen_from_etdump over an ETDump file (size prefix, ED00,
// verified). Fails where the Python Inspector fails on the file itself: an
// allocation event, a missing required field, a wrap-around beyond 32 bits,
// an unsupported tensor dtype, a debug buffer too short. A debug-buffer
// problem is an Error whose message starts with "debug buffer".
Result<Inspection> build_event_blocks(ByteSpan etdump_file, const BuildOptions& options = {});

// Drops the first `count` samples of every event (warm-up runs); an event
// left without samples has no perf data.
void exclude_warmup(Inspection& inspection, size_t count);

}  // namespace etkit::inspect
