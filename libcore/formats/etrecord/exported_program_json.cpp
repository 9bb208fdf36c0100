// Reading ExportedProgram JSON. Field paths in errors follow the JSON
// (graph_module.graph.nodes[3].inputs[1].arg).
#include "libcore/formats/etrecord/exported_program_json.h"

#include <set>
#include <unordered_map>

#include "libcore/formats/etrecord/node_metadata.h"

namespace etkit::etrecord {

std::pair<OpKind, std::string> classify_target(std::string_view target) {
  const auto starts = [&](std::string_view prefix) { return target.substr(0, prefix.size()) == prefix; };
  const auto ends = [&](std::string_view suffix) {
    return target.size() >= suffix.size() && target.substr(target.size() - suffix.size()) == suffix;
  };
  const auto last_component = [&]() {
    const size_t dot = target.rfind('.');
    return std::string(dot == std::string_view::npos ? target : target.substr(dot + 1));
  };
  constexpr std::string_view kEdge = "executorch.exir.dialects.edge.ops.";
  constexpr std::string_view kBackend = "executorch.exir.dialects.backend.ops.";
  constexpr std::string_view kHigherOrder = "torch.ops.higher_order.";
  constexpr std::string_view kTorchOps = "torch.ops.";
  if (ends("executorch_call_delegate")) return {OpKind::kDelegateCall, "executorch_call_delegate"};
  if (starts(kEdge)) return {OpKind::kEdge, std::string(target.substr(kEdge.size()))};
  if (starts(kBackend)) return {OpKind::kBackend, std::string(target.substr(kBackend.size()))};
  if (starts(kHigherOrder)) return {OpKind::kHigherOrder, std::string(target.substr(kHigherOrder.size()))};
  if (starts(kTorchOps)) {
    // OpOverload.__name__ drops the namespace: torch.ops.aten.mul.Tensor -> mul.Tensor.
    const std::string_view rest = target.substr(kTorchOps.size());
    const size_t dot = rest.find('.');
    return {OpKind::kAten, std::string(dot == std::string_view::npos ? rest : rest.substr(dot + 1))};
  }
  if (target == "memory.alloc") return {OpKind::kMemoryAlloc, "alloc"};
  if (starts("_operator.") || starts("torch.sym_") || starts("math.")) return {OpKind::kSymbolic, last_component()};
  if (starts("executorch.exir.memory.")) return {OpKind::kKnownFunction, last_component()};
  return {OpKind::kOther, last_component()};
}

namespace {

// Real files nest one level (a lowered module inside an edge program).
constexpr int kMaxLoweredNesting = 4;

struct Ctx {
  size_t wide = 0;
  size_t narrow = 0;
  int lowered_depth = 0;
};

std::string index_path(std::string_view field, size_t i) { return std::string(field) + "[" + std::to_string(i) + "]"; }

Result<std::pair<std::string, const JsonValue*>> union_of(const JsonValue& v, Ctx& ctx) {
  const JsonObject* members = v.as_object();
  if (members == nullptr) return bad_input("union is not an object");
  const JsonMember* found = nullptr;
  std::string keys;
  size_t values = 0;
  for (const JsonMember& m : *members) {
    if (m.value.is_null()) continue;
    found = &m;
    ++values;
    keys += (keys.empty() ? "" : ", ") + m.key;
  }
  if (values == 0) return bad_input("union without a value");
  if (values > 1) return bad_input("union with " + std::to_string(values) + " values (" + keys + ")");
  ++(members->size() == 1 ? ctx.narrow : ctx.wide);
  return std::make_pair(found->key, &found->value);
}

Result<const JsonArray*> array_field(const JsonValue& object, std::string_view key, bool required = true) {
  const JsonValue* v = object.get(key);
  if (v == nullptr) {
    if (required) return bad_input("missing", std::string(key));
    static const JsonArray kEmpty;
    return &kEmpty;
  }
  if (!v->is_array()) return bad_input("not a list", std::string(key));
  return v->as_array();
}

std::string string_field(const JsonValue& object, std::string_view key) {
  const JsonValue* v = object.get(key);
  return v != nullptr && v->is_string() ? *v->as_string() : std::string();
}

Result<std::string> name_of(const JsonValue& v) {
  const JsonValue* name = v.get("name");
  if (name == nullptr || !name->is_string()) return bad_input("expected an object with a 'name' string");
  return *name->as_string();
}

Result<int64_t> int_of(const JsonValue& v) {
  const auto i = v.as_int();
  if (!i) return bad_input("expected an integer");
  return *i;
}

Result<std::string> device_of(const JsonValue& v) {
  const JsonValue* type = v.get("type");
  if (type == nullptr || !type->is_string()) return bad_input("device without a type");
  std::string out = *type->as_string();
  if (const JsonValue* index = v.get("index")) {
    if (!index->as_int()) return bad_input("device index is not an integer");
    out += ":" + std::to_string(*index->as_int());
  }
  return out;
}

Result<SymInt> sym_int_of(const JsonValue& v, Ctx& ctx) {
  ETKIT_ASSIGN_OR_RETURN(auto u, union_of(v, ctx));
  SymInt s;
  if (u.first == "as_int") {
    ETKIT_ASSIGN_OR_RETURN(s.value, int_of(*u.second));
  } else if (u.first == "as_expr" || u.first == "as_name") {
    // A torch-2.2-era bare string is tolerated (§4.2).
    if (u.second->is_string()) {
      s.expr = *u.second->as_string();
    } else {
      s.expr = string_field(*u.second, "expr_str");
      if (const JsonValue* hint = u.second->get("hint")) {
        if (hint->as_int()) {
          s.hint = *hint->as_int();
        } else if (hint->is_object()) {
          auto h = union_of(*hint, ctx);
          if (h && h->first == "as_int" && h->second->as_int()) s.hint = *h->second->as_int();
        }
      }
    }
  } else {
    return bad_input("unknown SymInt variant '" + u.first + "'");
  }
  return s;
}

Result<Graph> graph_of(const JsonValue& v, Ctx& ctx);

// as_sym_int / as_sym_bool / as_sym_float: {as_name} or a literal.
Result<ArgItem> sym_item(const JsonValue& v, Ctx& ctx) {
  ETKIT_ASSIGN_OR_RETURN(auto u, union_of(v, ctx));
  const JsonValue& x = *u.second;
  if (u.first == "as_name") {
    if (!x.is_string()) return bad_input("as_name is not a string");
    return ArgItem(ArgRef{*x.as_string()});
  }
  if (x.as_bool()) return ArgItem(*x.as_bool());
  if (x.as_int()) return ArgItem(*x.as_int());
  if (x.as_double()) return ArgItem(*x.as_double());
  return bad_input("unknown symbolic value variant '" + u.first + "'");
}

Result<Argument> argument_of(const JsonValue& v, Ctx& ctx) {
  ETKIT_ASSIGN_OR_RETURN(auto u, union_of(v, ctx));
  const std::string& key = u.first;
  const JsonValue& x = *u.second;
  Argument a;
  a.variant = key;
  // List variants: the element parser applied to each item.
  const auto each = [&](auto&& element) -> Status {
    const JsonArray* items = x.as_array();
    if (items == nullptr) return bad_input("not a list", key);
    a.is_list = true;
    for (size_t i = 0; i < items->size(); ++i) {
      Result<ArgItem> item = element((*items)[i]);
      if (!item) return std::move(item).error().in(index_path(key, i));
      a.items.push_back(std::move(*item));
    }
    return {};
  };
  const auto tensor = [&](const JsonValue& t) -> Result<ArgItem> {
    ETKIT_ASSIGN_OR_RETURN(std::string name, name_of(t));
    return ArgItem(ArgRef{std::move(name)});
  };
  const auto integer = [&](const JsonValue& t) -> Result<ArgItem> {
    ETKIT_ASSIGN_OR_RETURN(int64_t i, int_of(t));
    return ArgItem(i);
  };
  const auto number = [&](const JsonValue& t) -> Result<ArgItem> {
    if (!t.as_double()) return bad_input("expected a number");
    return ArgItem(*t.as_double());
  };
  const auto boolean = [&](const JsonValue& t) -> Result<ArgItem> {
    if (!t.as_bool()) return bad_input("expected a bool");
    return ArgItem(*t.as_bool());
  };
  const auto text = [&](const JsonValue& t) -> Result<ArgItem> {
    if (!t.is_string()) return bad_input("expected a string");
    return ArgItem(*t.as_string());
  };
  const auto symbolic = [&](const JsonValue& t) { return sym_item(t, ctx); };
  const auto optional_tensor = [&](const JsonValue& t) -> Result<ArgItem> {
    ETKIT_ASSIGN_OR_RETURN(auto o, union_of(t, ctx));
    if (o.first == "as_none") return ArgItem(std::monostate{});
    if (o.first == "as_tensor") return tensor(*o.second);
    return bad_input("unknown optional tensor variant '" + o.first + "'");
  };
  const auto single = [&](Result<ArgItem> item) -> Status {
    if (!item) return std::move(item).error().in(key);
    a.items.push_back(std::move(*item));
    return {};
  };

  if (key == "as_none") {
    a.items.push_back(std::monostate{});
  } else if (key == "as_tensor") {
    ETKIT_TRY(single(tensor(x)));
  } else if (key == "as_tensors") {
    ETKIT_TRY(each(tensor));
  } else if (key == "as_optional_tensors") {
    ETKIT_TRY(each(optional_tensor));
  } else if (key == "as_int" || key == "as_scalar_type" || key == "as_memory_format" || key == "as_layout") {
    ETKIT_TRY(single(integer(x)));
  } else if (key == "as_ints") {
    ETKIT_TRY(each(integer));
  } else if (key == "as_float") {
    ETKIT_TRY(single(number(x)));
  } else if (key == "as_floats") {
    ETKIT_TRY(each(number));
  } else if (key == "as_string" || key == "as_operator") {
    ETKIT_TRY(single(text(x)));
  } else if (key == "as_strings") {
    ETKIT_TRY(each(text));
  } else if (key == "as_bool") {
    ETKIT_TRY(single(boolean(x)));
  } else if (key == "as_bools") {
    ETKIT_TRY(each(boolean));
  } else if (key == "as_sym_int" || key == "as_sym_bool" || key == "as_sym_float") {
    ETKIT_TRY(single(symbolic(x)));
  } else if (key == "as_sym_ints" || key == "as_sym_bools" || key == "as_sym_floats") {
    ETKIT_TRY(each(symbolic));
  } else if (key == "as_device") {
    auto device = device_of(x);
    if (!device) return std::move(device).error().in(key);
    a.items.push_back(std::move(*device));
  } else if (key == "as_custom_obj") {
    ETKIT_TRY(single(tensor(x)));
    a.items.push_back(string_field(x, "class_fqn"));
  } else if (key == "as_graph") {
    a.graph_name = string_field(x, "name");
    const JsonValue* g = x.get("graph");
    if (g == nullptr) return bad_input("as_graph without a graph", key);
    auto graph = graph_of(*g, ctx);
    if (!graph) return std::move(graph).error().in(key + ".graph");
    a.graph = std::make_shared<const Graph>(std::move(*graph));
  } else {
    // A variant this reader does not know (§4.6: read keys generically).
    a.items.push_back(to_json(x));
  }
  return a;
}

Result<TensorMeta> tensor_meta_of(const JsonValue& wrapped, Ctx& ctx) {
  // v0.1 wraps each TensorMeta in {"meta": ...} (§4.2).
  const JsonValue* inner = wrapped.get("meta");
  const JsonValue& v = inner != nullptr && wrapped.get("dtype") == nullptr ? *inner : wrapped;
  TensorMeta m;
  const JsonValue* dtype = v.get("dtype");
  if (dtype == nullptr || !dtype->as_int()) return bad_input("missing or non-integer", "dtype");
  m.dtype = *dtype->as_int();
  for (const char* field : {"sizes", "strides"}) {
    ETKIT_ASSIGN_OR_RETURN(const JsonArray* list, array_field(v, field, std::string_view(field) == "sizes"));
    auto& out = std::string_view(field) == "sizes" ? m.sizes : m.strides;
    for (size_t i = 0; i < list->size(); ++i) {
      auto s = sym_int_of((*list)[i], ctx);
      if (!s) return std::move(s).error().in(index_path(field, i));
      out.push_back(std::move(*s));
    }
  }
  if (const JsonValue* offset = v.get("storage_offset")) {
    if (offset->as_int()) {
      m.storage_offset.value = *offset->as_int();  // v0.1: a plain int
    } else {
      auto s = sym_int_of(*offset, ctx);
      if (!s) return std::move(s).error().in("storage_offset");
      m.storage_offset = std::move(*s);
    }
  }
  if (const JsonValue* rg = v.get("requires_grad")) m.requires_grad = rg->as_bool().value_or(false);
  if (const JsonValue* device = v.get("device")) {
    auto d = device_of(*device);
    if (!d) return std::move(d).error().in("device");
    m.device = std::move(*d);
  }
  if (const JsonValue* layout = v.get("layout")) m.layout = layout->as_int().value_or(0);
  return m;
}

Result<std::shared_ptr<const LoweredModule>> lowered_module_of(const std::string& json, Ctx& ctx);
Result<ExportedProgram> program_of(const JsonValue& doc, Ctx& ctx);

std::string snake_name(std::string_view label) {
  std::string out;
  for (char c : label) {
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
      out += c;
    } else {
      out += '_';
    }
  }
  return out;
}

Result<Node> node_of(const JsonValue& v, Ctx& ctx) {
  Node n;
  const JsonValue* target = v.get("target");
  if (target == nullptr || !target->is_string()) return bad_input("missing or not a string", "target");
  n.target = *target->as_string();
  auto [kind, label] = classify_target(n.target);
  n.kind = kind;
  n.op = std::move(label);
  if (const JsonValue* name = v.get("name"); name != nullptr && name->is_string()) n.name = *name->as_string();

  ETKIT_ASSIGN_OR_RETURN(const JsonArray* inputs, array_field(v, "inputs"));
  for (size_t i = 0; i < inputs->size(); ++i) {
    const JsonValue& in = (*inputs)[i];
    NamedArgument named;
    named.name = string_field(in, "name");
    const JsonValue* arg = in.get("arg");
    if (arg == nullptr) return bad_input("missing", index_path("inputs", i) + ".arg");
    auto a = argument_of(*arg, ctx);
    if (!a) return std::move(a).error().in(index_path("inputs", i) + ".arg");
    named.arg = std::move(*a);
    n.inputs.push_back(std::move(named));
  }
  ETKIT_ASSIGN_OR_RETURN(const JsonArray* outputs, array_field(v, "outputs"));
  for (size_t i = 0; i < outputs->size(); ++i) {
    auto a = argument_of((*outputs)[i], ctx);
    if (!a) return std::move(a).error().in(index_path("outputs", i));
    n.outputs.push_back(std::move(*a));
  }
  if (const JsonValue* metadata = v.find("metadata")) n.metadata = parse_node_metadata(*metadata);

  // The first input of a delegate call embeds the lowered module as JSON (§4.7).
  if (n.kind == OpKind::kDelegateCall && !n.inputs.empty() && n.inputs[0].arg.variant == "as_string" &&
      !n.inputs[0].arg.items.empty()) {
    const std::string& embedded = std::get<std::string>(n.inputs[0].arg.items[0]);
    auto lowered = lowered_module_of(embedded, ctx);
    if (lowered) {
      n.lowered = std::move(*lowered);
    } else {
      n.metadata.problems.push_back("lowered module: " + lowered.error().describe());
    }
  }
  return n;
}

// Pre-v1.0 nodes have no name: the Python deserializer names a single-output
// node after its output and lets FX name the others from the target (§4.3).
void derive_names(Graph& g) {
  std::set<std::string> taken;
  std::unordered_map<std::string, int> next_suffix;
  for (const Node& n : g.nodes) {
    if (!n.name.empty()) taken.insert(n.name);
  }
  for (Node& n : g.nodes) {
    if (!n.name.empty()) continue;
    n.name_derived = true;
    const auto outs = n.output_names();
    std::string name = outs.size() == 1 ? outs[0] : snake_name(n.op);
    if (taken.count(name) != 0) {
      // Suffixes below a base's counter are taken for good (names are never
      // released), so resuming there finds the same first free suffix as
      // counting from 1, without rescanning them for every node.
      const std::string base = name;
      int& k = next_suffix.try_emplace(base, 1).first->second;
      do {
        name = base + "_" + std::to_string(k++);
      } while (taken.count(name) != 0);
    }
    taken.insert(name);
    n.name = std::move(name);
  }
}

Result<Graph> graph_of(const JsonValue& v, Ctx& ctx) {
  if (!v.is_object()) return bad_input("graph is not an object");
  Result<Graph> result = Graph{};
  Graph* g = &*result;
  for (const char* field : {"inputs", "outputs"}) {
    ETKIT_ASSIGN_OR_RETURN(const JsonArray* list, array_field(v, field));
    auto& out = std::string_view(field) == "inputs" ? g->inputs : g->outputs;
    for (size_t i = 0; i < list->size(); ++i) {
      auto a = argument_of((*list)[i], ctx);
      if (!a) return std::move(a).error().in(index_path(field, i));
      out.push_back(std::move(*a));
    }
  }
  ETKIT_ASSIGN_OR_RETURN(const JsonArray* nodes, array_field(v, "nodes"));
  g->nodes.reserve(nodes->size());
  for (size_t i = 0; i < nodes->size(); ++i) {
    auto n = node_of((*nodes)[i], ctx);
    if (!n) return std::move(n).error().in(index_path("nodes", i));
    g->nodes.push_back(std::move(*n));
  }
  if (const JsonValue* tv = v.get("tensor_values")) {
    if (!tv->is_object()) return bad_input("not an object", "tensor_values");
    for (const JsonMember& m : *tv->as_object()) {
      auto meta = tensor_meta_of(m.value, ctx);
      if (!meta) return std::move(meta).error().in("tensor_values." + m.key);
      g->tensor_values[m.key] = std::move(*meta);
    }
  }
  if (const JsonValue* sv = v.get("sym_int_values"); sv != nullptr && sv->is_object()) {
    for (const JsonMember& m : *sv->as_object()) {
      auto s = sym_int_of(m.value, ctx);
      if (!s) return std::move(s).error().in("sym_int_values." + m.key);
      g->sym_int_values[m.key] = std::move(*s);
    }
  }
  if (const JsonValue* bv = v.get("sym_bool_values"); bv != nullptr && bv->is_object()) {
    for (const JsonMember& m : *bv->as_object()) {
      auto u = union_of(m.value, ctx);
      if (!u) return std::move(u).error().in("sym_bool_values." + m.key);
      const JsonValue& x = *u->second;
      g->sym_bool_values[m.key] = x.as_bool() ? (*x.as_bool() ? "True" : "False")
                                  : x.is_string() ? *x.as_string()
                                                  : string_field(x, "expr_str");
    }
  }
  if (const JsonValue* single = v.get("is_single_tensor_return")) {
    g->is_single_tensor_return = single->as_bool().value_or(false);
  }
  derive_names(*g);
  return result;
}

// The graph input a signature entry describes: {"name"} or an Argument.
std::string spec_arg(const JsonValue& spec, Ctx& ctx) {
  const JsonValue* arg = spec.get("arg");
  if (arg == nullptr) return string_field(spec, "name");  // constant_input
  if (const JsonValue* name = arg->get("name"); name != nullptr && name->is_string()) return *name->as_string();
  auto a = argument_of(*arg, ctx);
  if (!a || a->items.empty()) return {};
  if (const ArgRef* ref = std::get_if<ArgRef>(&a->items[0])) return ref->name;
  return {};
}

std::string spec_target(const JsonValue& spec) {
  for (const char* key : {"parameter_name", "buffer_name", "tensor_constant_name", "custom_obj_name", "user_input_name"}) {
    if (const JsonValue* v = spec.get(key); v != nullptr && v->is_string()) return *v->as_string();
  }
  return {};
}

size_t base64_decoded_size(std::string_view text) {
  // Every 4 characters carry 3 bytes; '=' padding carries none.
  size_t chars = 0;
  for (char c : text) {
    if (c != '=' && c != '\n' && c != '\r' && c != ' ') ++chars;
  }
  return chars * 3 / 4;
}

Result<std::shared_ptr<const LoweredModule>> lowered_module_of(const std::string& json, Ctx& ctx) {
  if (ctx.lowered_depth >= kMaxLoweredNesting) {
    return bad_input("lowered modules nested deeper than " + std::to_string(kMaxLoweredNesting));
  }
  ETKIT_ASSIGN_OR_RETURN(JsonValue doc, parse_json(json));
  if (!doc.is_object()) return bad_input("not a json object");
  auto lowered = std::make_shared<LoweredModule>();
  lowered->backend_id = string_field(doc, "backend_id");
  if (const JsonValue* blob = doc.get("processed_bytes"); blob != nullptr && blob->is_string()) {
    lowered->processed_bytes = base64_decoded_size(*blob->as_string());
  }
  if (const JsonValue* specs = doc.get("compile_specs"); specs != nullptr && specs->is_array()) {
    for (const JsonValue& spec : *specs->as_array()) lowered->compile_spec_keys.push_back(string_field(spec, "key"));
  }
  lowered->has_named_data_store = doc.get("named_data_store") != nullptr;
  if (const JsonValue* original = doc.get("original_module")) {
    Ctx inner;
    inner.lowered_depth = ctx.lowered_depth + 1;
    auto program = program_of(*original, inner);
    if (!program) return std::move(program).error().in("original_module");
    lowered->original_module = std::make_shared<const ExportedProgram>(std::move(*program));
  }
  return std::shared_ptr<const LoweredModule>(std::move(lowered));
}

Result<ExportedProgram> program_of(const JsonValue& doc, Ctx& ctx) {
  if (!doc.is_object()) return bad_input("exported program is not a json object");
  ExportedProgram p;
  const JsonValue* module = doc.get("graph_module");
  if (module == nullptr) return bad_input("missing", "graph_module");
  const JsonValue* graph = module->get("graph");
  if (graph == nullptr) return bad_input("missing", "graph_module.graph");
  auto g = graph_of(*graph, ctx);
  if (!g) return std::move(g).error().in("graph_module.graph");
  p.graph = std::move(*g);

  if (const JsonValue* signature = module->get("signature")) {
    for (const char* field : {"input_specs", "output_specs"}) {
      const std::string path = std::string("graph_module.signature.") + field;
      auto list = array_field(*signature, field, false);
      if (!list) return std::move(list).error().in("graph_module.signature");
      for (size_t i = 0; i < (*list)->size(); ++i) {
        auto u = union_of((**list)[i], ctx);
        if (!u) return std::move(u).error().in(index_path(path, i));
        const JsonValue& spec = *u->second;
        if (std::string_view(field) == "input_specs") {
          InputSpec s{u->first, spec_arg(spec, ctx), spec_target(spec)};
          if (const JsonValue* persistent = spec.get("persistent")) s.persistent = persistent->as_bool().value_or(true);
          p.input_specs.push_back(std::move(s));
        } else {
          p.output_specs.push_back(OutputSpec{u->first, spec_arg(spec, ctx), spec_target(spec)});
        }
      }
    }
  }
  if (const JsonValue* calls = module->get("module_call_graph"); calls != nullptr && calls->is_array()) {
    for (const JsonValue& entry : *calls->as_array()) p.module_call_fqns.push_back(string_field(entry, "fqn"));
  }
  if (const JsonValue* opset = doc.get("opset_version"); opset != nullptr && opset->is_object()) {
    for (const JsonMember& m : *opset->as_object()) p.opset_version.emplace_back(m.key, m.value.as_int().value_or(0));
  }
  if (const JsonValue* ranges = doc.get("range_constraints"); ranges != nullptr && ranges->is_object()) {
    for (const JsonMember& m : *ranges->as_object()) {
      const JsonValue* lo = m.value.get("min_val");
      const JsonValue* hi = m.value.get("max_val");
      if (lo == nullptr || hi == nullptr || !lo->as_double() || !hi->as_double()) {
        return bad_input("min_val/max_val are not numbers", "range_constraints." + m.key);
      }
      p.range_constraints.push_back(RangeConstraint{m.key, *lo->as_double(), *hi->as_double()});
    }
  }
  if (const JsonValue* schema = doc.get("schema_version")) {
    if (schema->as_int()) {
      p.schema_version = std::to_string(*schema->as_int());
    } else if (schema->is_object()) {
      p.schema_version = std::to_string(schema->get("major") ? schema->get("major")->as_int().value_or(0) : 0) + "." +
                         std::to_string(schema->get("minor") ? schema->get("minor")->as_int().value_or(0) : 0);
    }
  }
  p.dialect = string_field(doc, "dialect");
  if (const JsonValue* verifiers = doc.get("verifiers"); verifiers != nullptr && verifiers->is_array()) {
    for (const JsonValue& v : *verifiers->as_array()) {
      if (v.is_string()) p.verifiers.push_back(*v.as_string());
    }
  }
  p.union_form = ctx.wide > 0 ? UnionForm::kWide : ctx.narrow > 0 ? UnionForm::kNarrow : UnionForm::kUnknown;
  return p;
}

}  // namespace

Result<ExportedProgram> exported_program_from_json(const JsonValue& doc) {
  Ctx ctx;
  return program_of(doc, ctx);
}

}  // namespace etkit::etrecord
