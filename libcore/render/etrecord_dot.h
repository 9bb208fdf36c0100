// A program's graph as Graphviz DOT: one box per node (name, op label,
// output types, source line), placeholders and the output as ellipses, nodes
// grouped into nested clusters by their nn_module_stack, edges from the values
// each node reads. Parameters sit in the cluster of the module that owns them.
#pragma once

#include <string>

#include "libcore/formats/etrecord/etrecord.h"

namespace etkit::render {

std::string graph_dot(const etrecord::Program& program);

}  // namespace etkit::render
