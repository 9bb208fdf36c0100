#include "libcore/render/etrecord_dot.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "libcore/render/dot.h"
#include "libcore/render/etrecord_text.h"
#include "libcore/render/heat_color.h"

namespace etkit::render {

using namespace etkit::etrecord;

namespace {

std::string last_component(std::string_view qualified) {
  const size_t dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

struct DotNode {
  std::string id;
  DotAttributes attributes;
};

struct Cluster {
  std::string path;
  std::string type;
  std::vector<DotNode> nodes;
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

  void emit(DotWriter& out) const {
    for (const DotNode& n : nodes) out.node(n.id, n.attributes);
    for (const auto& c : children) {
      out.begin_cluster(c->path, {{"label", c->path + " (" + last_component(c->type) + ")"}});
      c->emit(out);
      out.end_cluster();
    }
  }
};

}  // namespace

std::string graph_dot(const Program& program, const std::map<int64_t, double>& handle_shares) {
  double max_share = 0;
  for (const auto& [handle, share] : handle_shares) max_share = std::max(max_share, share);
  const Graph& g = program.program.graph;
  Cluster root;
  std::map<std::string, std::string> producer;  // value name -> DOT node id

  // Placeholders; parameters and buffers go to their owner module's cluster.
  std::map<std::string, const InputSpec*> spec_of;
  for (const InputSpec& s : program.program.input_specs) spec_of[s.arg] = &s;
  std::map<std::string, Cluster*> cluster_of_path;
  std::vector<std::pair<std::string, DotNode>> owned;  // (module path, node)
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
      DotNode node{id,
                   {{"shape", weight ? "note" : "ellipse"}, {"fillcolor", weight ? "#eeeeee" : "#fff4d6"}, {"label", label}}};
      const size_t dot = weight ? spec->second->target.rfind('.') : std::string::npos;
      if (dot != std::string::npos) {
        owned.emplace_back(spec->second->target.substr(0, dot), std::move(node));
      } else {
        root.nodes.push_back(std::move(node));
      }
    }
  }

  std::vector<std::pair<std::string, std::string>> edges;
  std::set<std::pair<std::string, std::string>> seen;
  const auto edge = [&](const std::string& from, const std::string& to) {
    if (seen.insert({from, to}).second) edges.emplace_back(from, to);
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
    const auto share = n.metadata.debug_handle ? handle_shares.find(*n.metadata.debug_handle) : handle_shares.end();
    if (share == handle_shares.end()) {
      cluster->nodes.push_back(DotNode{id, {{"label", label}}});
    } else {
      cluster->nodes.push_back(DotNode{id, {{"label", label + "\n" + format_percent(share->second)},
                                            {"fillcolor", heat_color(share->second / max_share)}}});
    }
  }
  for (auto& [path, node] : owned) {
    const auto it = cluster_of_path.find(path);
    (it == cluster_of_path.end() ? root : *it->second).nodes.push_back(std::move(node));
  }
  root.nodes.push_back(DotNode{"output", {{"shape", "ellipse"}, {"fillcolor", "#fff4d6"}, {"label", "output"}}});
  for (const Argument& out : g.outputs) {
    for (const ArgItem& item : out.items) {
      const ArgRef* ref = std::get_if<ArgRef>(&item);
      if (ref == nullptr) continue;
      if (const auto it = producer.find(ref->name); it != producer.end()) edge(it->second, "output");
    }
  }

  DotWriter dot(program.entry);
  dot.graph_attributes({{"rankdir", "TB"}, {"fontname", "Helvetica"}, {"fontsize", "10"}, {"label", program.entry}});
  dot.node_defaults({{"shape", "box"},
                     {"style", "rounded,filled"},
                     {"fillcolor", "#e8f0fe"},
                     {"fontname", "Helvetica"},
                     {"fontsize", "10"}});
  dot.edge_defaults({{"color", "#555555"}});
  root.emit(dot);
  for (const auto& [from, to] : edges) dot.edge(from, to);
  return dot.finish();
}

std::map<int64_t, double> debug_handle_time_shares(const inspect::Inspection& linked) {
  const inspect::EventBlock* execute = nullptr;
  for (const inspect::EventBlock& block : linked.blocks) {
    if (block.name == "Execute" && (execute == nullptr || block.run_count > execute->run_count)) execute = &block;
  }
  std::map<int64_t, double> shares;
  if (execute == nullptr) return shares;
  double total = 0;
  for (const inspect::Event& event : execute->events) {
    if (event.name != "OPERATOR_CALL" && event.name != "DELEGATE_CALL") continue;
    if (!event.has_perf_data()) continue;
    const double avg = event.stats().avg;
    total += avg;
    if (!event.debug_handles || event.debug_handles->values.empty()) continue;
    const double part = avg / double(event.debug_handles->values.size());
    for (int64_t handle : event.debug_handles->values) shares[handle] += part;
  }
  if (total > 0) {
    for (auto& [handle, share] : shares) share /= total;
  }
  return shares;
}

}  // namespace etkit::render
