#include "libcore/formats/etrecord/etrecord_dot.h"

#include <map>
#include <memory>
#include <set>

#include "libcore/formats/etrecord/etrecord_text.h"

namespace etkit::etrecord {
namespace {

// A DOT double-quoted string; "\n" in `text` becomes a centred line break.
std::string q(std::string_view text) {
  std::string out = "\"";
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
  return out + "\"";
}

std::string last_component(std::string_view qualified) {
  const size_t dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

struct Cluster {
  std::string path;
  std::string type;
  std::vector<std::string> statements;
  std::vector<std::unique_ptr<Cluster>> children;

  Cluster& child(const std::string& child_path, const std::string& child_type) {
    for (auto& c : children) {
      if (c->path == child_path) return *c;
    }
    children.push_back(std::make_unique<Cluster>());
    children.back()->path = child_path;
    children.back()->type = child_type;
    return *children.back();
  }

  void emit(std::string& out, const std::string& indent) const {
    for (const std::string& s : statements) out += indent + s + "\n";
    for (const auto& c : children) {
      out += indent + "subgraph " + q("cluster_" + c->path) + " {\n";
      out += indent + "  label=" + q(c->path + " (" + last_component(c->type) + ")") + ";\n";
      c->emit(out, indent + "  ");
      out += indent + "}\n";
    }
  }
};

}  // namespace

std::string graph_dot(const Program& program) {
  const Graph& g = program.program.graph;
  Cluster root;
  std::map<std::string, std::string> producer;  // value name -> DOT node id

  // Placeholders; parameters and buffers go to their owner module's cluster.
  std::map<std::string, const InputSpec*> spec_of;
  for (const InputSpec& s : program.program.input_specs) spec_of[s.arg] = &s;
  std::map<std::string, Cluster*> cluster_of_path;
  std::vector<std::pair<std::string, std::string>> owned;  // (module path, statement)
  for (const Argument& in : g.inputs) {
    for (const ArgItem& item : in.items) {
      const ArgRef* ref = std::get_if<ArgRef>(&item);
      if (ref == nullptr) continue;
      const std::string id = "in:" + ref->name;
      producer[ref->name] = id;
      const TensorMeta* meta = g.tensor(ref->name);
      std::string label = ref->name;
      if (meta != nullptr) {
        label += '\n';
        label += tensor_type(*meta);
      }
      const auto spec = spec_of.find(ref->name);
      const bool weight = spec != spec_of.end() && spec->second->kind != "user_input";
      const std::string statement =
          q(id) + " [shape=" + (weight ? "note, fillcolor=\"#eeeeee\"" : "ellipse, fillcolor=\"#fff4d6\"") +
          ", label=" + q(label) + "];";
      const size_t dot = weight ? spec->second->target.rfind('.') : std::string::npos;
      if (dot != std::string::npos) {
        owned.emplace_back(spec->second->target.substr(0, dot), statement);
      } else {
        root.statements.push_back(statement);
      }
    }
  }

  std::vector<std::string> edges;
  std::set<std::pair<std::string, std::string>> seen;
  const auto edge = [&](const std::string& from, const std::string& to) {
    if (seen.insert({from, to}).second) edges.push_back(q(from) + " -> " + q(to) + ";");
  };
  for (const Node& n : g.nodes) {
    const std::string id = "n:" + n.name;
    for (const NamedArgument& in : n.inputs) {
      for (const ArgItem& item : in.arg.items) {
        const ArgRef* ref = std::get_if<ArgRef>(&item);
        if (ref == nullptr) continue;
        if (const auto it = producer.find(ref->name); it != producer.end()) edge(it->second, id);
      }
    }
    for (const std::string& out : n.output_names()) producer[out] = id;

    std::string label = n.name + "\n" + n.op + "\n" + output_types(g, n);
    const std::string source = node_source(n);
    if (!source.empty()) label += "\n" + source.substr(source.rfind('/') == std::string::npos ? 0 : source.rfind('/') + 1);
    Cluster* cluster = &root;
    if (n.metadata.nn_module_stack) {
      for (const ModuleStackEntry& e : *n.metadata.nn_module_stack) {
        if (e.path.empty()) continue;  // the root module is the whole graph
        cluster = &cluster->child(e.path, e.type);
        cluster_of_path.emplace(e.path, cluster);
      }
    }
    cluster->statements.push_back(q(id) + " [label=" + q(label) + "];");
  }
  for (const auto& [path, statement] : owned) {
    const auto it = cluster_of_path.find(path);
    (it == cluster_of_path.end() ? root : *it->second).statements.push_back(statement);
  }
  root.statements.push_back(q("output") + " [shape=ellipse, fillcolor=\"#fff4d6\", label=\"output\"];");
  for (const Argument& out : g.outputs) {
    for (const ArgItem& item : out.items) {
      const ArgRef* ref = std::get_if<ArgRef>(&item);
      if (ref == nullptr) continue;
      if (const auto it = producer.find(ref->name); it != producer.end()) edge(it->second, "output");
    }
  }

  std::string dot = "digraph " + q(program.entry) + " {\n";
  dot += "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10, label=" + q(program.entry) + "];\n";
  dot += "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8f0fe\", fontname=\"Helvetica\", fontsize=10];\n";
  dot += "  edge [color=\"#555555\"];\n";
  root.emit(dot, "  ");
  for (const std::string& e : edges) dot += "  " + e + "\n";
  return dot + "}\n";
}

}  // namespace etkit::etrecord
