#include "libcore/render/dot.h"

namespace etkit::render {

std::string dot_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  out += '"';
  return out;
}

DotWriter::DotWriter(std::string_view name, bool directed) : directed_(directed) {
  out_ += directed ? "digraph " : "graph ";
  out_ += dot_quote(name);
  out_ += " {\n";
}

void DotWriter::indent() { out_.append(static_cast<size_t>(depth_) * 2, ' '); }

void DotWriter::attribute_list(const DotAttributes& attributes) {
  if (attributes.empty()) return;
  out_ += " [";
  bool first = true;
  for (const auto& [key, value] : attributes) {
    if (!first) out_ += ", ";
    first = false;
    out_ += key;
    out_ += '=';
    out_ += dot_quote(value);
  }
  out_ += ']';
}

void DotWriter::statement(std::string_view keyword, const DotAttributes& attributes) {
  if (attributes.empty()) return;
  indent();
  out_ += keyword;
  attribute_list(attributes);
  out_ += ";\n";
}

void DotWriter::graph_attributes(const DotAttributes& attributes) { statement("graph", attributes); }
void DotWriter::node_defaults(const DotAttributes& attributes) { statement("node", attributes); }
void DotWriter::edge_defaults(const DotAttributes& attributes) { statement("edge", attributes); }

void DotWriter::node(std::string_view id, const DotAttributes& attributes) {
  indent();
  out_ += dot_quote(id);
  attribute_list(attributes);
  out_ += ";\n";
}

void DotWriter::edge(std::string_view from, std::string_view to, const DotAttributes& attributes) {
  indent();
  out_ += dot_quote(from);
  out_ += directed_ ? " -> " : " -- ";
  out_ += dot_quote(to);
  attribute_list(attributes);
  out_ += ";\n";
}

void DotWriter::begin_cluster(std::string_view id, const DotAttributes& attributes) {
  indent();
  out_ += "subgraph ";
  out_ += dot_quote("cluster_" + std::string(id));
  out_ += " {\n";
  ++depth_;
  graph_attributes(attributes);
}

void DotWriter::end_cluster() {
  if (depth_ <= 1) return;
  --depth_;
  indent();
  out_ += "}\n";
}

std::string DotWriter::finish() {
  while (depth_ > 1) end_cluster();
  out_ += "}\n";
  depth_ = 0;
  return std::move(out_);
}

}  // namespace etkit::render
