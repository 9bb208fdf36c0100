#include "libcore/render/program_graph_dot.h"

#include <algorithm>

#include "libcore/render/dot.h"
#include "libcore/render/heat_color.h"

namespace etkit::render {

std::string instruction_label(const InstructionRef& ref) {
  // Appending (not "#" + ...) sidesteps a GCC 12 -Wrestrict false positive.
  std::string label = "#";
  if (ref.chain != 0) label.append(std::to_string(ref.chain)).append(":");
  return label.append(std::to_string(ref.instruction));
}

namespace {

DotAttributes node_attributes(const GraphNode& node, const GraphDotOptions& options, double max_share) {
  DotAttributes a;
  switch (node.kind) {
    case NodeKind::kInput:
    case NodeKind::kOutput:
      a = {{"shape", "ellipse"}, {"style", "filled"}, {"fillcolor", "#dbeafe"}};
      break;
    case NodeKind::kConstant:
      a = {{"shape", "box"}, {"style", "filled"}, {"fillcolor", "#f1f1f1"}, {"color", "#9e9e9e"}, {"fontsize", "8"}};
      break;
    case NodeKind::kDelegate:
      a = {{"shape", "box3d"}, {"style", "filled"}};
      break;
    case NodeKind::kJumpFalse:
      a = {{"shape", "diamond"}, {"style", "filled"}};
      break;
    case NodeKind::kKernel:
    case NodeKind::kMove:
    case NodeKind::kFree:
      a = {{"shape", "box"}, {"style", "rounded,filled"}};
      break;
  }
  std::string label = node.label;
  if (node.instruction) {
    label = instruction_label(*node.instruction) + " " + node.label;
    std::string fill = "#ffffff";
    if (auto it = options.time_share.find(*node.instruction); it != options.time_share.end()) {
      label.append("\n").append(format_percent(it->second));
      fill = heat_color(max_share > 0 ? it->second / max_share : 0);
    }
    a.emplace_back("fillcolor", fill);
  } else if (!node.detail.empty()) {
    label += "\n" + node.detail;
  }
  a.emplace_back("label", label);
  if (!node.detail.empty()) a.emplace_back("tooltip", node.detail);
  return a;
}

}  // namespace

std::string program_graph_to_dot(const ProgramGraph& graph, const GraphDotOptions& options) {
  double max_share = 0;
  for (const auto& [ref, share] : options.time_share) max_share = std::max(max_share, share);

  DotWriter dot(graph.method);
  dot.graph_attributes(
      {{"rankdir", "TB"}, {"fontname", "Helvetica"}, {"label", "method " + graph.method}, {"labelloc", "t"}});
  dot.node_defaults({{"fontname", "Helvetica"}, {"fontsize", "10"}});
  dot.edge_defaults({{"fontname", "Helvetica"}, {"fontsize", "8"}, {"color", "#616161"}});
  for (const auto& node : graph.nodes) {
    if (!node.cluster) dot.node(node.id, node_attributes(node, options, max_share));
  }
  for (size_t c = 0; c < graph.clusters.size(); ++c) {
    dot.begin_cluster(graph.clusters[c].id,
                      {{"label", graph.clusters[c].label}, {"style", "dashed,rounded"}, {"color", "#5c6bc0"}});
    for (const auto& node : graph.nodes) {
      if (node.cluster == c) dot.node(node.id, node_attributes(node, options, max_share));
    }
    dot.end_cluster();
  }
  for (const auto& edge : graph.edges) {
    const auto& from = graph.nodes[edge.from].id;
    const auto& to = graph.nodes[edge.to].id;
    if (edge.control) {
      dot.edge(from, to, {{"style", "dashed"}, {"label", "if false"}, {"constraint", "false"}});
    } else {
      dot.edge(from, to, {{"label", edge.label}});
    }
  }
  return dot.finish();
}

}  // namespace etkit::render
