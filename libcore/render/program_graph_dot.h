// A ProgramGraph as Graphviz DOT: instructions as boxes labelled
// "#<id> <operator>", inputs/outputs as ellipses, constants as small grey
// boxes, delegate calls inside one cluster per backend delegate; with time
// shares, instruction nodes are filled on the heat scale (relative to the
// most expensive instruction) and labelled with their share of the total.
#pragma once

#include <map>
#include <string>

#include "libcore/render/program_graph.h"

namespace etkit::render {

struct GraphDotOptions {
  // Fraction of the total time per instruction (0..1); empty: no colouring.
  std::map<InstructionRef, double> time_share;
};

std::string program_graph_to_dot(const ProgramGraph& graph, const GraphDotOptions& options = {});

// "#3" for chain 0, "#1:3" otherwise: how instructions are named to people.
std::string instruction_label(const InstructionRef& ref);

}  // namespace etkit::render
