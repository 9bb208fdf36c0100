#include "libcore/render/etrecord_text.h"

#include <charconv>
#include <cmath>
#include <map>

#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/formats/etrecord/serde_types.h"

namespace etkit::render {

using namespace etkit::etrecord;

namespace {

// Rows of cells, columns padded to their widest cell; the last column is not padded.
std::string table(const std::vector<std::vector<std::string>>& rows, std::string_view indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line(indent);
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string plural(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string number_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string sym_text(const SymInt& s) { return s.value ? std::to_string(*s.value) : s.expr.empty() ? "?" : s.expr; }

std::string quoted(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out = "'";
  for (char c : s.substr(0, kMax)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

std::string item_text(const Argument& arg, const ArgItem& item) {
  if (std::holds_alternative<std::monostate>(item)) return "None";
  if (const ArgRef* r = std::get_if<ArgRef>(&item)) return "%" + r->name;
  if (const bool* b = std::get_if<bool>(&item)) return *b ? "True" : "False";
  if (const double* d = std::get_if<double>(&item)) return number_text(*d);
  if (const int64_t* i = std::get_if<int64_t>(&item)) {
    std::string_view name;
    if (arg.variant == "as_scalar_type") name = serde_dtype_name(*i);
    if (!name.empty()) return "torch." + std::string(name);
    if (arg.variant == "as_layout") name = serde_layout_name(*i);
    if (arg.variant == "as_memory_format") name = serde_memory_format_name(*i);
    return name.empty() ? std::to_string(*i) : std::string(name);
  }
  const std::string& s = std::get<std::string>(item);
  if (arg.variant == "as_device") return "device('" + s + "')";
  if (arg.variant == "as_operator") return s;
  return quoted(s);
}

// Per node: values it produces -> their types, for placeholders too.
std::string value_type(const Graph& graph, const std::string& name) {
  if (const TensorMeta* t = graph.tensor(name)) return tensor_type(*t);
  if (const auto it = graph.sym_int_values.find(name); it != graph.sym_int_values.end()) {
    return "SymInt(" + sym_text(it->second) + ")";
  }
  if (const auto it = graph.sym_bool_values.find(name); it != graph.sym_bool_values.end()) return "SymBool(" + it->second + ")";
  return "?";
}

std::string annotations(const Node& n) {
  std::vector<std::string> parts;
  const std::string module = node_module(n);
  if (!module.empty()) parts.push_back(module);
  const std::string source = node_source(n);
  if (!source.empty()) parts.push_back(source);
  if (n.metadata.debug_handle) parts.push_back("debug_handle=" + std::to_string(*n.metadata.debug_handle));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "  # " : ", ") + p;
  return out;
}

std::string input_text(const Node& n, const NamedArgument& in, size_t index) {
  if (index == 0 && n.lowered) {
    return in.name + "=<lowered " + n.lowered->backend_id + ", " + std::to_string(n.lowered->processed_bytes) + " bytes>";
  }
  const std::string value = argument_text(in.arg);
  return in.name.empty() ? value : in.name + "=" + value;
}

void print_graph(std::string& out, const Graph& g, const std::vector<InputSpec>* specs, const std::string& title,
                 const std::string& indent) {
  out += indent + title + ":\n";
  const std::string body = indent + "    ";
  std::map<std::string, const InputSpec*> spec_of;
  if (specs != nullptr) {
    for (const InputSpec& s : *specs) spec_of[s.arg] = &s;
  }
  for (const Argument& in : g.inputs) {
    for (const ArgItem& item : in.items) {
      const ArgRef* ref = std::get_if<ArgRef>(&item);
      if (ref == nullptr) continue;
      std::string line = body + "%" + ref->name + " : " + value_type(g, ref->name) + " = placeholder";
      if (const auto it = spec_of.find(ref->name); it != spec_of.end()) {
        line += "  # " + it->second->kind + (it->second->target.empty() ? "" : " " + it->second->target);
      }
      out += line + "\n";
    }
  }
  for (const Node& n : g.nodes) {
    std::string names;
    for (const std::string& name : n.output_names()) names += (names.empty() ? "%" : ", %") + name;
    if (names.empty()) names = "%" + n.name;
    std::string args;
    for (size_t i = 0; i < n.inputs.size(); ++i) args += (i == 0 ? "" : ", ") + input_text(n, n.inputs[i], i);
    out += body + names + " : " + output_types(g, n) + " = " + n.op + "(" + args + ")" + annotations(n) + "\n";
  }
  std::string results;
  for (const Argument& o : g.outputs) results += (results.empty() ? "" : ", ") + argument_text(o);
  out += body + "return (" + results + (g.outputs.size() == 1 ? ",)" : ")") + "\n";

  for (const Node& n : g.nodes) {
    for (const NamedArgument& in : n.inputs) {
      if (in.arg.graph) print_graph(out, *in.arg.graph, nullptr, "graph %" + in.arg.graph_name + " of %" + n.name, body);
    }
    if (n.lowered && n.lowered->original_module) {
      const ExportedProgram& original = *n.lowered->original_module;
      print_graph(out, original.graph, &original.input_specs,
                  "lowered module of %" + n.name + " (" + n.lowered->backend_id + "), original graph", body);
    }
  }
}

size_t count_nested(const Graph& g) {
  size_t n = 0;
  for (const Node& node : g.nodes) {
    for (const NamedArgument& in : node.inputs) {
      if (in.arg.graph) n += in.arg.graph->nodes.size() + count_nested(*in.arg.graph);
    }
  }
  return n;
}

std::string node_kinds(const Graph& g) {
  std::map<std::string_view, size_t> kinds;
  for (const Node& n : g.nodes) ++kinds[op_kind_name(n.kind)];
  std::string out;
  for (const auto& [kind, count] : kinds) out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(kind);
  return out;
}

std::string side_car_text(const SideCar& s) {
  switch (s.status) {
    case SideCar::Status::kEmpty: return "empty (0 bytes)";
    case SideCar::Status::kMalformed: return "malformed: " + s.note;
    case SideCar::Status::kNeedsPython: return std::string(side_car_status_name(s.status)) + ": " + s.note;
    case SideCar::Status::kReadable: break;
  }
  std::string out = "readable: " + std::string(s.torch_save_zip ? "torch.save " : "pickled ") + s.content.root_type;
  if (s.content.root_type == "dict" || s.content.root_type == "OrderedDict" || s.content.root_type == "list" ||
      s.content.root_type == "tuple") {
    out += s.content.root_items == 0 ? ", empty" : " of " + plural(s.content.root_items, "item", "items");
  }
  if (!s.content.tensors.empty()) {
    uint64_t elements = 0;
    for (const StoredTensor& t : s.content.tensors) {
      uint64_t numel = 1;
      for (int64_t d : t.sizes) numel *= static_cast<uint64_t>(d);
      elements += numel;
    }
    out += ", " + plural(s.content.tensors.size(), "tensor", "tensors") + " (" + std::to_string(elements) + " elements)";
  }
  return out;
}

template <typename T>
std::string map_text(const std::optional<std::map<std::string, std::map<std::string, T>>>& map, std::string_view what) {
  if (!map) return "absent";
  if (map->empty()) return "present, empty ({})";
  std::string out;
  for (const auto& [method, entries] : *map) {
    out += (out.empty() ? "" : "; ") + method + ": " + plural(entries.size(), what, std::string(what) + "s");
  }
  return out;
}

}  // namespace

std::string tensor_type(const TensorMeta& meta) {
  std::string_view dtype = serde_dtype_short(meta.dtype);
  std::string out = dtype.empty() ? "dtype" + std::to_string(meta.dtype) : std::string(dtype);
  out += "[";
  for (size_t d = 0; d < meta.sizes.size(); ++d) out += (d == 0 ? "" : ", ") + sym_text(meta.sizes[d]);
  return out + "]";
}

std::string output_types(const Graph& graph, const Node& node) {
  std::string out;
  for (const std::string& name : node.output_names()) out += (out.empty() ? "" : ", ") + value_type(graph, name);
  return out.empty() ? "None" : out;
}

std::string argument_text(const Argument& arg) {
  if (arg.graph) return "%" + arg.graph_name;
  if (!arg.is_list) return arg.items.empty() ? "None" : item_text(arg, arg.items[0]);
  std::string out = "[";
  for (size_t i = 0; i < arg.items.size(); ++i) out += (i == 0 ? "" : ", ") + item_text(arg, arg.items[i]);
  return out + "]";
}

std::string node_module(const Node& node) {
  return node.metadata.nn_module_stack ? module_path(*node.metadata.nn_module_stack) : std::string();
}

std::string node_source(const Node& node) {
  return node.metadata.stack_trace ? source_line(*node.metadata.stack_trace) : std::string();
}

std::string summary_text(const EtRecord& r, std::string_view file_name) {
  std::string out(file_name);
  if (r.empty()) {
    out += ": ETRecord without content (the writer failed): only the ETRECORD_V0 marker\n";
  } else {
    out += ": ETRecord from ExecuTorch " + r.version.label + " (inferred from: ";
    for (size_t i = 0; i < r.version.evidence.size(); ++i) out += (i == 0 ? "" : "; ") + r.version.evidence[i];
    out += ")\n";
  }

  uint64_t total = 0;
  std::vector<std::vector<std::string>> rows;
  for (const Entry& e : r.entries) {
    total += e.size;
    std::string role(entry_kind_name(e.kind));
    if (!e.program.empty()) role += " of " + e.program;
    rows.push_back({e.name, std::to_string(e.size), role});
  }
  out += "\nentries (" + std::to_string(r.entries.size()) + ", " + std::to_string(total) + " bytes of data)\n" + table(rows, "  ");

  if (!r.programs.empty()) {
    rows.clear();
    for (const Program& p : r.programs) {
      const Graph& g = p.program.graph;
      std::string nodes = plural(g.nodes.size(), "node", "nodes");
      if (!g.nodes.empty()) nodes += " (" + node_kinds(g) + ")";
      if (const size_t nested = count_nested(g)) nodes += " + " + std::to_string(nested) + " in nested graphs";
      const std::string unions = p.program.union_form == UnionForm::kWide     ? "wide unions"
                                 : p.program.union_form == UnionForm::kNarrow ? "narrow unions"
                                                                              : "no unions";
      rows.push_back({p.entry, std::string(entry_kind_name(p.kind)), "method " + p.method, nodes,
                      "schema " + p.program.schema_version + ", " + unions});
    }
    out += "\ngraphs (" + std::to_string(r.programs.size()) + ")\n" + table(rows, "  ");
  }

  rows = {{"debug_handle_map", map_text(r.debug_handle_map, "instruction")},
          {"delegate_map", map_text(r.delegate_map, "delegate call")},
          {"instruction_id_to_num_outs_map", map_text(r.num_outs_map, "instruction")},
          {"export_graph_id", r.export_graph_id ? std::to_string(*r.export_graph_id) : "absent"}};
  out += "\nmaps\n" + table(rows, "  ");

  if (!r.side_cars.empty()) {
    rows.clear();
    for (const SideCar& s : r.side_cars) rows.push_back({s.entry, side_car_text(s)});
    out += "\nside-cars (" + std::to_string(r.side_cars.size()) + ")\n" + table(rows, "  ");
  }
  if (!r.warnings.empty()) {
    out += "\nwarnings (" + std::to_string(r.warnings.size()) + ")\n";
    for (const std::string& w : r.warnings) out += "  " + w + "\n";
  }
  return out;
}

std::string nodes_table(const Program& program) {
  std::vector<std::vector<std::string>> rows = {{"#", "name", "op", "output", "debug_handle", "module", "source"}};
  const Graph& g = program.program.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    // Cells built one by one: GCC 12 warns falsely (-Wrestrict) on a ternary of string temporaries here.
    std::string handle = "-", module = "-", source = "-";
    if (n.metadata.debug_handle) handle = std::to_string(*n.metadata.debug_handle);
    if (n.metadata.nn_module_stack) module = node_module(n).empty() ? std::string("<root>") : node_module(n);
    if (n.metadata.stack_trace) source = node_source(n);
    if (source.empty()) source = "-";  // a trace without frames
    rows.push_back({std::to_string(i), n.name, n.op, output_types(g, n), handle, module, source});
  }
  return table(rows, "");
}

std::string graph_text(const Program& program) {
  std::string out;
  print_graph(out, program.program.graph, &program.program.input_specs,
              "graph " + program.entry + " (method " + program.method + ")", "");
  return out;
}

}  // namespace etkit::render
