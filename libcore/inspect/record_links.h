// What the Inspector takes from an ETRecord to link ETDump events to graph
// nodes (inspector_spec.md §6, etrecord_spec.md §5 and §7), kept apart from
// how the ETRecord was read: the linker is tested with hand-built links and the
// ETRecord reader is tested without the Inspector.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libcore/formats/etrecord/etrecord.h"

namespace etkit::inspect {

// A debug_handle_map value is an int for a kernel and a list for a delegate
// call; the Python Inspector prints the two differently, so the form is kept.
struct DebugHandles {
  bool is_list = false;
  std::vector<int64_t> values;
};

// One `nn_module_stack` entry (outermost module first); its `key`, e.g.
// "L__self___fc1", is what find_total_for_module matches.
using ModuleStackEntry = etrecord::ModuleStackEntry;

// An OperatorNode of the reference graph (etrecord_spec.md §7.1).
struct OpNode {
  std::string name;  // FX node name plus a trailing '_', as the Python OperatorGraph names it
  std::string op;    // op label, e.g. "aten.convolution.default" (etrecord_spec.md §4.4)
  std::optional<int64_t> debug_handle;
  std::optional<std::string> stack_trace;
  std::optional<std::vector<ModuleStackEntry>> nn_module_stack;
};

struct DelegateEntry {
  std::optional<std::string> name;  // backend id
  // Delegate debug id -> handles, in file order: the Inspector's substring
  // lookup quirk depends on the order.
  std::vector<std::pair<std::string, DebugHandles>> delegate_map;
};

// The maps of one method (the Python Inspector always uses "forward").
// Keys are instruction ids as decimal strings, as in the ETRecord's JSON.
struct RecordLinks {
  std::string method = "forward";
  std::map<std::string, DebugHandles> debug_handle_map;
  std::optional<std::map<std::string, DelegateEntry>> delegate_map;  // nullopt: no map at all
  std::map<std::string, int64_t> num_outs_map;
  std::vector<OpNode> op_nodes;  // reference graph, in create_debug_handle_to_op_node_mapping order
  std::vector<std::string> warnings;  // what did not fit (missing maps, another method, ...)
};

}  // namespace etkit::inspect
