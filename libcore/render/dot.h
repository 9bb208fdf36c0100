// A small Graphviz DOT writer: quoted IDs and attribute values, nested
// clusters, graph/node/edge defaults. It builds text only; whether `dot` is
// installed to render it is the caller's business.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etkit::render {

using DotAttributes = std::vector<std::pair<std::string, std::string>>;

// A DOT double-quoted string: quotes and backslashes escaped, line breaks as
// "\n" (centered lines), other control characters dropped.
std::string dot_quote(std::string_view text);

class DotWriter {
 public:
  // `name` becomes the graph ID; `directed` picks digraph/-> or graph/--.
  DotWriter(std::string_view name, bool directed = true);

  // Defaults for the graph, nodes or edges of the current (sub)graph.
  void graph_attributes(const DotAttributes& attributes);
  void node_defaults(const DotAttributes& attributes);
  void edge_defaults(const DotAttributes& attributes);

  void node(std::string_view id, const DotAttributes& attributes = {});
  void edge(std::string_view from, std::string_view to, const DotAttributes& attributes = {});

  // Clusters nest; Graphviz draws a box only around subgraphs whose ID starts
  // with "cluster", so `id` gets that prefix.
  void begin_cluster(std::string_view id, const DotAttributes& attributes = {});
  void end_cluster();

  // Closes any open cluster and the graph, and returns the text.
  std::string finish();

 private:
  void indent();
  void statement(std::string_view keyword, const DotAttributes& attributes);
  void attribute_list(const DotAttributes& attributes);

  std::string out_;
  int depth_ = 1;
  bool directed_;
};

}  // namespace etkit::render
