// A program's graph as Graphviz DOT: one box per node (name, op label,
// output types, source line), placeholders and the output as ellipses, nodes
// grouped into nested clusters by their nn_module_stack, edges from the values
// each node reads. Parameters sit in the cluster of the module that owns them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/inspect/event_blocks.h"

namespace etkit::render {

// With `handle_shares` (debug handle -> share of the execution time), nodes
// carrying a handle show the share and are coloured by it (heat_color.h).
std::string graph_dot(const etrecord::Program& program, const std::map<int64_t, double>& handle_shares = {});

// Time shares per debug handle from an ETDump linked to the ETRecord: in the
// "Execute" block with the most runs, each instruction scope's
// (OPERATOR_CALL/DELEGATE_CALL) average time is split evenly over its debug
// handles, divided by the sum over all scopes.
std::map<int64_t, double> debug_handle_time_shares(const inspect::Inspection& linked);

}  // namespace etkit::render
