// A simple layered layout of a ProgramGraph for drawing it without Graphviz:
// layers by longest path along data edges (constants sit just above their
// first reader), order within layers by a few barycenter sweeps, nodes sized
// from their label. Long edges get no bend points; they are drawn as curves.
#pragma once

#include <string>
#include <vector>

#include "libcore/render/program_graph.h"

namespace etkit::render {

struct Box {
  double x = 0, y = 0;  // top-left corner
  double width = 0, height = 0;
};

struct GraphLayout {
  std::vector<Box> nodes;        // per ProgramGraph node
  std::vector<Box> clusters;     // per ProgramGraph cluster (around its nodes)
  std::vector<size_t> layer;     // per node
  double width = 0, height = 0;  // of the whole drawing
};

// Node label lines as drawn: `lines[i]` for node i decides its size.
GraphLayout layout_graph(const ProgramGraph& graph, const std::vector<std::vector<std::string>>& lines);

// Width of `text` in the layout's font (monospace-ish estimate, 12px).
double text_width(const std::string& text);

}  // namespace etkit::render
