#include "libcore/formats/etrecord/etrecord_json.h"

#include <cerrno>
#include <limits>  // json_writer.h uses numeric_limits without including it

#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/formats/etrecord/serde_types.h"
#include "libcore/support/json_writer.h"

namespace etkit::etrecord {
namespace {

class Emitter {
 public:
  explicit Emitter(JsonWriter& w) : w_(w) {}

  void string_or_null(const std::optional<std::string>& s) {
    if (s) {
      w_.string(*s);
    } else {
      w_.null();
    }
  }

  void sym(const SymInt& s) {
    if (s.value) {
      w_.number(*s.value);
    } else {
      w_.string(s.expr);
    }
  }

  void item(const ArgItem& item) {
    if (std::holds_alternative<std::monostate>(item)) {
      w_.null();
    } else if (const ArgRef* r = std::get_if<ArgRef>(&item)) {
      w_.begin_object();
      w_.key("ref");
      w_.string(r->name);
      w_.end_object();
    } else if (const int64_t* i = std::get_if<int64_t>(&item)) {
      w_.number(*i);
    } else if (const double* d = std::get_if<double>(&item)) {
      w_.number(*d);
    } else if (const bool* b = std::get_if<bool>(&item)) {
      w_.boolean(*b);
    } else {
      w_.string(std::get<std::string>(item));
    }
  }

  void argument(const Argument& a) {
    w_.begin_object();
    w_.key("variant");
    w_.string(a.variant);
    w_.key("value");
    if (a.graph) {
      w_.begin_object();
      w_.key("name");
      w_.string(a.graph_name);
      w_.key("graph");
      graph(*a.graph);
      w_.end_object();
    } else if (a.is_list) {
      w_.begin_array();
      for (const ArgItem& i : a.items) item(i);
      w_.end_array();
    } else if (a.items.empty()) {
      w_.null();
    } else {
      item(a.items[0]);
    }
    w_.end_object();
  }

  void tensor(const std::string& name, const TensorMeta& t) {
    w_.begin_object();
    w_.key("name");
    w_.string(name);
    w_.key("dtype");
    const std::string_view dtype = serde_dtype_name(t.dtype);
    if (dtype.empty()) {
      w_.number(t.dtype);
    } else {
      w_.string(dtype);
    }
    w_.key("sizes");
    w_.begin_array();
    for (const SymInt& s : t.sizes) sym(s);
    w_.end_array();
    w_.key("strides");
    w_.begin_array();
    for (const SymInt& s : t.strides) sym(s);
    w_.end_array();
    w_.key("storage_offset");
    sym(t.storage_offset);
    w_.key("requires_grad");
    w_.boolean(t.requires_grad);
    w_.key("device");
    w_.string(t.device);
    w_.key("layout");
    w_.number(t.layout);
    w_.end_object();
  }

  void node_sources(const std::vector<NodeSource>& sources) {
    w_.begin_array();
    for (const NodeSource& s : sources) {
      w_.begin_object();
      w_.key("name");
      w_.string(s.name);
      w_.key("target");
      w_.string(s.target);
      w_.key("graph_id");
      w_.number(s.graph_id);
      w_.key("pass_name");
      w_.string(s.pass_name);
      w_.key("action");
      w_.string(s.action);
      w_.key("from_node");
      node_sources(s.from_node);
      w_.end_object();
    }
    w_.end_array();
  }

  void node(const Node& n) {
    const NodeMetadata& m = n.metadata;
    w_.begin_object();
    w_.key("name");
    w_.string(n.name);
    w_.key("target");
    w_.string(n.target);
    w_.key("op");
    w_.string(n.op);
    w_.key("kind");
    w_.string(op_kind_name(n.kind));
    w_.key("inputs");
    w_.begin_array();
    for (const NamedArgument& in : n.inputs) {
      w_.begin_object();
      w_.key("name");
      w_.string(in.name);
      w_.key("arg");
      argument(in.arg);
      w_.end_object();
    }
    w_.end_array();
    w_.key("outputs");
    w_.begin_array();
    for (const Argument& out : n.outputs) argument(out);
    w_.end_array();
    w_.key("debug_handle");
    if (m.debug_handle) {
      w_.number(*m.debug_handle);
    } else {
      w_.null();
    }
    w_.key("stack_trace");
    string_or_null(m.stack_trace);
    w_.key("source");
    const auto frame = m.stack_trace ? last_frame(*m.stack_trace) : std::nullopt;
    if (frame) {
      w_.begin_object();
      w_.key("file");
      w_.string(frame->file);
      w_.key("line");
      w_.number(frame->line);
      w_.key("function");
      w_.string(frame->function);
      w_.key("code");
      w_.string(frame->code);
      w_.end_object();
    } else {
      w_.null();
    }
    w_.key("nn_module_stack");
    if (m.nn_module_stack) {
      w_.begin_array();
      for (const ModuleStackEntry& e : *m.nn_module_stack) {
        w_.begin_object();
        w_.key("key");
        w_.string(e.key);
        w_.key("path");
        w_.string(e.path);
        w_.key("type");
        w_.string(e.type);
        w_.end_object();
      }
      w_.end_array();
    } else {
      w_.null();
    }
    w_.key("source_fn_stack");
    w_.begin_array();
    for (const SourceFn& s : m.source_fn_stack) {
      w_.begin_object();
      w_.key("name");
      w_.string(s.name);
      w_.key("target");
      w_.string(s.target);
      w_.end_object();
    }
    w_.end_array();
    w_.key("torch_fn");
    if (m.torch_fn) {
      w_.begin_array();
      w_.string(m.torch_fn->first);
      w_.string(m.torch_fn->second);
      w_.end_array();
    } else {
      w_.null();
    }
    w_.key("from_node");
    if (m.from_node) {
      node_sources(*m.from_node);
    } else {
      w_.null();
    }
    w_.key("metadata");
    w_.begin_array();
    for (const auto& [key, value] : m.entries) {
      w_.begin_object();
      w_.key("key");
      w_.string(key);
      w_.key("value");
      w_.string(value);
      w_.end_object();
    }
    w_.end_array();
    if (!m.problems.empty()) {
      w_.key("problems");
      w_.begin_array();
      for (const std::string& p : m.problems) w_.string(p);
      w_.end_array();
    }
    if (n.lowered) {
      w_.key("lowered");
      w_.begin_object();
      w_.key("backend_id");
      w_.string(n.lowered->backend_id);
      w_.key("processed_bytes");
      w_.number(n.lowered->processed_bytes);
      w_.key("compile_spec_keys");
      w_.begin_array();
      for (const std::string& k : n.lowered->compile_spec_keys) w_.string(k);
      w_.end_array();
      w_.key("has_named_data_store");
      w_.boolean(n.lowered->has_named_data_store);
      w_.key("original_module");
      if (n.lowered->original_module) {
        exported_program(*n.lowered->original_module);
      } else {
        w_.null();
      }
      w_.end_object();
    }
    w_.end_object();
  }

  void graph(const Graph& g) {
    w_.begin_object();
    w_.key("inputs");
    w_.begin_array();
    for (const Argument& a : g.inputs) argument(a);
    w_.end_array();
    w_.key("outputs");
    w_.begin_array();
    for (const Argument& a : g.outputs) argument(a);
    w_.end_array();
    w_.key("nodes");
    w_.begin_array();
    for (const Node& n : g.nodes) node(n);
    w_.end_array();
    w_.key("tensor_values");
    w_.begin_array();
    for (const auto& [name, t] : g.tensor_values) tensor(name, t);
    w_.end_array();
    w_.key("sym_int_values");
    w_.begin_array();
    for (const auto& [name, s] : g.sym_int_values) {
      w_.begin_object();
      w_.key("name");
      w_.string(name);
      w_.key("value");
      sym(s);
      w_.end_object();
    }
    w_.end_array();
    w_.key("sym_bool_values");
    w_.begin_array();
    for (const auto& [name, text] : g.sym_bool_values) {
      w_.begin_object();
      w_.key("name");
      w_.string(name);
      w_.key("value");
      w_.string(text);
      w_.end_object();
    }
    w_.end_array();
    w_.key("is_single_tensor_return");
    w_.boolean(g.is_single_tensor_return);
    w_.end_object();
  }

  void exported_program(const ExportedProgram& p) {
    w_.begin_object();
    w_.key("schema_version");
    w_.string(p.schema_version);
    w_.key("dialect");
    w_.string(p.dialect);
    w_.key("verifiers");
    w_.begin_array();
    for (const std::string& v : p.verifiers) w_.string(v);
    w_.end_array();
    w_.key("union_form");
    w_.string(p.union_form == UnionForm::kWide ? "wide" : p.union_form == UnionForm::kNarrow ? "narrow" : "unknown");
    w_.key("opset_version");
    w_.begin_array();
    for (const auto& [ns, version] : p.opset_version) {
      w_.begin_object();
      w_.key("namespace");
      w_.string(ns);
      w_.key("version");
      w_.number(version);
      w_.end_object();
    }
    w_.end_array();
    w_.key("range_constraints");
    w_.begin_array();
    for (const RangeConstraint& r : p.range_constraints) {
      w_.begin_object();
      w_.key("symbol");
      w_.string(r.symbol);
      w_.key("min_val");
      w_.number(r.min_val);
      w_.key("max_val");
      w_.number(r.max_val);
      w_.end_object();
    }
    w_.end_array();
    w_.key("input_specs");
    w_.begin_array();
    for (const InputSpec& s : p.input_specs) {
      w_.begin_object();
      w_.key("kind");
      w_.string(s.kind);
      w_.key("arg");
      w_.string(s.arg);
      w_.key("target");
      w_.string(s.target);
      w_.key("persistent");
      w_.boolean(s.persistent);
      w_.end_object();
    }
    w_.end_array();
    w_.key("output_specs");
    w_.begin_array();
    for (const OutputSpec& s : p.output_specs) {
      w_.begin_object();
      w_.key("kind");
      w_.string(s.kind);
      w_.key("arg");
      w_.string(s.arg);
      w_.key("target");
      w_.string(s.target);
      w_.end_object();
    }
    w_.end_array();
    w_.key("module_call_fqns");
    w_.begin_array();
    for (const std::string& f : p.module_call_fqns) w_.string(f);
    w_.end_array();
    w_.key("graph");
    graph(p.graph);
    w_.end_object();
  }

  // `format` is set when the graph is the whole document.
  void program(const Program& p, const char* format = nullptr) {
    w_.begin_object();
    if (format) {
      w_.key("format");
      w_.string(format);
    }
    w_.key("entry");
    w_.string(p.entry);
    w_.key("kind");
    w_.string(entry_kind_name(p.kind));
    w_.key("method");
    w_.string(p.method);
    w_.key("program");
    exported_program(p.program);
    w_.end_object();
  }

  template <typename T, typename Value>
  void method_map(const std::optional<std::map<std::string, std::map<std::string, T>>>& map, Value value) {
    if (!map) {
      w_.null();
      return;
    }
    w_.begin_array();
    for (const auto& [method, instructions] : *map) {
      w_.begin_object();
      w_.key("method");
      w_.string(method);
      w_.key("instructions");
      w_.begin_array();
      for (const auto* kv : numeric_order(instructions)) {
        w_.begin_object();
        w_.key("instruction");
        w_.string(kv->first);
        value(kv->second);
        w_.end_object();
      }
      w_.end_array();
      w_.end_object();
    }
    w_.end_array();
  }

  void handles(const Handles& h) {
    if (!h.is_list && h.values.size() == 1) {
      w_.number(h.values[0]);
      return;
    }
    w_.begin_array();
    for (int64_t v : h.values) w_.number(v);
    w_.end_array();
  }

  void side_car(const SideCar& s) {
    w_.begin_object();
    w_.key("entry");
    w_.string(s.entry);
    w_.key("kind");
    w_.string(entry_kind_name(s.kind));
    w_.key("size");
    w_.number(s.size);
    w_.key("torch_save_zip");
    w_.boolean(s.torch_save_zip);
    w_.key("status");
    w_.string(side_car_status_name(s.status));
    w_.key("note");
    w_.string(s.note);
    w_.key("content");
    if (s.status != SideCar::Status::kReadable) {
      w_.null();
    } else {
      w_.begin_object();
      w_.key("root");
      w_.string(s.content.root);
      w_.key("root_type");
      w_.string(s.content.root_type);
      w_.key("root_items");
      w_.number(s.content.root_items);
      w_.key("tensors");
      w_.begin_array();
      for (const StoredTensor& t : s.content.tensors) {
        w_.begin_object();
        w_.key("path");
        w_.string(t.path);
        w_.key("dtype");
        w_.string(serde_dtype_name(t.dtype));
        w_.key("sizes");
        w_.begin_array();
        for (int64_t d : t.sizes) w_.number(d);
        w_.end_array();
        w_.key("strides");
        w_.begin_array();
        for (int64_t d : t.strides) w_.number(d);
        w_.end_array();
        w_.key("storage_offset");
        w_.number(t.storage_offset);
        w_.key("requires_grad");
        w_.boolean(t.requires_grad);
        w_.key("storage_key");
        w_.string(t.storage_key);
        w_.key("device");
        w_.string(t.device);
        w_.end_object();
      }
      w_.end_array();
      w_.end_object();
    }
    w_.end_object();
  }

  void record(const EtRecord& r, std::string_view file_name) {
    w_.begin_object();
    w_.key("format");
    w_.string("etkit.etrecord/1");
    w_.key("file");
    w_.string(file_name);
    w_.key("empty");
    w_.boolean(r.empty());
    w_.key("version");
    w_.begin_object();
    w_.key("label");
    w_.string(r.version.label);
    w_.key("evidence");
    w_.begin_array();
    for (const std::string& e : r.version.evidence) w_.string(e);
    w_.end_array();
    w_.end_object();
    w_.key("entries");
    w_.begin_array();
    for (const Entry& e : r.entries) {
      w_.begin_object();
      w_.key("name");
      w_.string(e.name);
      w_.key("size");
      w_.number(e.size);
      w_.key("kind");
      w_.string(entry_kind_name(e.kind));
      w_.key("program");
      w_.string(e.program);
      w_.end_object();
    }
    w_.end_array();
    w_.key("programs");
    w_.begin_array();
    for (const Program& p : r.programs) program(p);
    w_.end_array();
    w_.key("debug_handle_map");
    method_map(r.debug_handle_map, [&](const Handles& h) {
      w_.key("handles");
      handles(h);
    });
    w_.key("delegate_map");
    method_map(r.delegate_map, [&](const DelegateInfo& info) {
      w_.key("name");
      string_or_null(info.name);
      w_.key("delegate_map");
      w_.begin_array();
      for (const auto& [id, h] : info.delegate_map) {
        w_.begin_object();
        w_.key("id");
        w_.string(id);
        w_.key("handles");
        handles(h);
        w_.end_object();
      }
      w_.end_array();
    });
    w_.key("instruction_id_to_num_outs_map");
    method_map(r.num_outs_map, [&](int64_t n) {
      w_.key("num_outs");
      w_.number(n);
    });
    w_.key("export_graph_id");
    if (r.export_graph_id) {
      w_.number(*r.export_graph_id);
    } else {
      w_.null();
    }
    w_.key("side_cars");
    w_.begin_array();
    for (const SideCar& s : r.side_cars) side_car(s);
    w_.end_array();
    w_.key("warnings");
    w_.begin_array();
    for (const std::string& warning : r.warnings) w_.string(warning);
    w_.end_array();
    w_.end_object();
  }

 private:
  JsonWriter& w_;
};

Status finish(JsonWriter& w, std::FILE* out) {
  w.newline();
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, {}, {}, "broken pipe"};
  if (w.failed() || std::fflush(out) != 0) {
    if (errno == EPIPE) return Error{ErrorKind::kBrokenPipe, {}, {}, "broken pipe"};
    return Error{ErrorKind::kIo, {}, {}, "cannot write the output"};
  }
  return {};
}

}  // namespace

Status write_etrecord_json(const EtRecord& record, std::string_view file_name, std::FILE* out, bool pretty) {
  JsonWriter w(out, pretty);
  Emitter(w).record(record, file_name);
  return finish(w, out);
}

Status write_program_json(const Program& program, std::FILE* out, bool pretty) {
  JsonWriter w(out, pretty);
  Emitter(w).program(program, "etkit.etrecord-graph/1");
  return finish(w, out);
}

}  // namespace etkit::etrecord
