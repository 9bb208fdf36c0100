// Writing ExportedProgram JSON in ExecuTorch's layout (exir/serde), either
// union encoding (etrecord_spec.md §4.9).
#include <algorithm>
#include <charconv>
#include <cmath>

#include "libcore/formats/etrecord/exported_program_json.h"

namespace etkit::etrecord {
namespace {

using Keys = std::vector<std::string_view>;

// Digits of a model string (device index, schema version); 0 if none.
int64_t to_int(std::string_view text) {
  int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Variant lists of the v0.1 schema as the wide form spells them out [obs:
// fixtures/etrecord/mul_2023.etrecord]; other variants are appended.
const Keys kArgumentKeys = {"as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float", "as_floats",
                            "as_string", "as_strings", "as_sym_int", "as_sym_ints", "as_scalar_type",
                            "as_memory_format", "as_layout", "as_device", "as_bool", "as_bools", "as_sym_bool",
                            "as_sym_bools", "as_graph", "as_optional_tensors", "as_custom_obj"};
const Keys kSymIntKeys = {"as_expr", "as_int"};
const Keys kSymBoolKeys = {"as_expr", "as_bool"};
const Keys kSymArgIntKeys = {"as_name", "as_int"};
const Keys kSymArgBoolKeys = {"as_name", "as_bool"};
const Keys kSymArgFloatKeys = {"as_name", "as_float"};
const Keys kOptionalTensorKeys = {"as_tensor", "as_none"};
const Keys kInputSpecKeys = {"user_input", "parameter", "buffer"};
const Keys kOutputSpecKeys = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                              "gradient_to_user_input"};

class Writer {
 public:
  explicit Writer(JsonStyle style) : wide_(style == JsonStyle::kWide) {}

  JsonValue make_union(std::string_view key, JsonValue value, const Keys& keys) const {
    JsonValue u = JsonValue::object();
    if (!wide_) {
      u.set(std::string(key), std::move(value));
      return u;
    }
    bool placed = false;
    for (std::string_view k : keys) {
      if (k == key) {
        u.set(std::string(k), std::move(value));
        placed = true;
      } else {
        u.set(std::string(k), nullptr);
      }
    }
    if (!placed) u.set(std::string(key), std::move(value));
    return u;
  }

  // A None-defaulted optional field: omitted in the narrow form, null in the wide one.
  void optional_field(JsonValue& object, std::string key, std::optional<JsonValue> value) const {
    if (value) {
      object.set(std::move(key), std::move(*value));
    } else if (wide_) {
      object.set(std::move(key), nullptr);
    }
  }

  static JsonValue named(const std::string& name) {
    JsonValue o = JsonValue::object();
    o.set("name", name);
    return o;
  }

  JsonValue device(const std::string& text) const {
    JsonValue d = JsonValue::object();
    const size_t colon = text.find(':');
    d.set("type", text.substr(0, colon));
    std::optional<JsonValue> index;
    if (colon != std::string::npos) index = JsonValue(to_int(std::string_view(text).substr(colon + 1)));
    optional_field(d, "index", std::move(index));
    return d;
  }

  JsonValue item(const Argument& a, const ArgItem& item) const {
    const std::string& v = a.variant;
    if (const ArgRef* ref = std::get_if<ArgRef>(&item)) {
      if (v == "as_sym_int" || v == "as_sym_ints") return make_union("as_name", ref->name, kSymArgIntKeys);
      if (v == "as_sym_bool" || v == "as_sym_bools") return make_union("as_name", ref->name, kSymArgBoolKeys);
      if (v == "as_sym_float" || v == "as_sym_floats") return make_union("as_name", ref->name, kSymArgFloatKeys);
      if (v == "as_optional_tensors") return make_union("as_tensor", named(ref->name), kOptionalTensorKeys);
      return named(ref->name);
    }
    if (std::holds_alternative<std::monostate>(item)) {
      if (v == "as_optional_tensors") return make_union("as_none", JsonArray{}, kOptionalTensorKeys);
      return JsonArray{};
    }
    if (const int64_t* i = std::get_if<int64_t>(&item)) {
      if (v == "as_sym_int" || v == "as_sym_ints") return make_union("as_int", *i, kSymArgIntKeys);
      return *i;
    }
    if (const double* d = std::get_if<double>(&item)) {
      if (v == "as_sym_float" || v == "as_sym_floats") return make_union("as_float", *d, kSymArgFloatKeys);
      return *d;
    }
    if (const bool* b = std::get_if<bool>(&item)) {
      if (v == "as_sym_bool" || v == "as_sym_bools") return make_union("as_bool", *b, kSymArgBoolKeys);
      return *b;
    }
    return std::get<std::string>(item);
  }

  JsonValue argument(const Argument& a) const {
    JsonValue value;
    if (a.variant == "as_graph") {
      value = JsonValue::object();
      value.set("name", a.graph_name);
      value.set("graph", a.graph ? graph(*a.graph) : JsonValue());
    } else if (a.variant == "as_device") {
      const std::string* text = a.items.empty() ? nullptr : std::get_if<std::string>(&a.items[0]);
      value = device(text == nullptr ? "cpu" : *text);
    } else if (a.variant == "as_custom_obj") {
      const ArgRef* ref = a.items.empty() ? nullptr : std::get_if<ArgRef>(&a.items[0]);
      const std::string* fqn = a.items.size() < 2 ? nullptr : std::get_if<std::string>(&a.items[1]);
      value = JsonValue::object();
      value.set("name", ref == nullptr ? "" : ref->name);
      value.set("class_fqn", fqn == nullptr ? "" : *fqn);
    } else if (a.is_list) {
      value = JsonValue::array();
      for (const ArgItem& i : a.items) value.push(item(a, i));
    } else if (a.items.empty()) {
      value = JsonArray{};
    } else {
      const bool known = std::find(kArgumentKeys.begin(), kArgumentKeys.end(), a.variant) != kArgumentKeys.end() ||
                         a.variant == "as_operator" || a.variant == "as_sym_float";
      if (!known && std::holds_alternative<std::string>(a.items[0])) {
        // A variant kept as its JSON text by the reader.
        auto parsed = parse_json(std::get<std::string>(a.items[0]));
        value = parsed ? std::move(*parsed) : JsonValue(std::get<std::string>(a.items[0]));
      } else {
        value = item(a, a.items[0]);
      }
    }
    return make_union(a.variant, std::move(value), kArgumentKeys);
  }

  JsonValue sym_int(const SymInt& s) const {
    if (s.value) return make_union("as_int", *s.value, kSymIntKeys);
    JsonValue expr = JsonValue::object();
    expr.set("expr_str", s.expr);
    std::optional<JsonValue> hint;
    if (s.hint) hint = make_union("as_int", *s.hint, {"as_int", "as_float", "as_bool"});
    optional_field(expr, "hint", std::move(hint));
    return make_union("as_expr", std::move(expr), kSymIntKeys);
  }

  JsonValue tensor_meta(const TensorMeta& m) const {
    JsonValue t = JsonValue::object();
    t.set("dtype", m.dtype);
    JsonValue& sizes = t.set("sizes", JsonValue::array());
    for (const SymInt& s : m.sizes) sizes.push(sym_int(s));
    t.set("requires_grad", m.requires_grad);
    t.set("device", device(m.device));
    JsonValue& strides = t.set("strides", JsonValue::array());
    for (const SymInt& s : m.strides) strides.push(sym_int(s));
    // v0.1 wrote the offset as a plain int and wrapped the whole in {"meta": ...}.
    if (wide_ && m.storage_offset.value) {
      t.set("storage_offset", *m.storage_offset.value);
    } else {
      t.set("storage_offset", sym_int(m.storage_offset));
    }
    t.set("layout", m.layout);
    if (!wide_) return t;
    JsonValue wrapped = JsonValue::object();
    wrapped.set("meta", std::move(t));
    return wrapped;
  }

  JsonValue node(const Node& n) const {
    JsonValue o = JsonValue::object();
    if (!wide_ && !n.name_derived) o.set("name", n.name);
    o.set("target", n.target);
    JsonValue& inputs = o.set("inputs", JsonValue::array());
    for (const NamedArgument& in : n.inputs) {
      JsonValue named_arg = JsonValue::object();
      named_arg.set("name", in.name);
      named_arg.set("arg", argument(in.arg));
      inputs.push(std::move(named_arg));
    }
    JsonValue& outputs = o.set("outputs", JsonValue::array());
    for (const Argument& out : n.outputs) outputs.push(argument(out));
    JsonValue& metadata = o.set("metadata", JsonValue::object());
    for (const auto& [key, value] : n.metadata.entries) metadata.set(key, value);
    return o;
  }

  JsonValue graph(const Graph& g) const {
    JsonValue o = JsonValue::object();
    JsonValue& inputs = o.set("inputs", JsonValue::array());
    for (const Argument& a : g.inputs) inputs.push(argument(a));
    JsonValue& outputs = o.set("outputs", JsonValue::array());
    for (const Argument& a : g.outputs) outputs.push(argument(a));
    JsonValue& nodes = o.set("nodes", JsonValue::array());
    for (const Node& n : g.nodes) nodes.push(node(n));
    JsonValue& tensors = o.set("tensor_values", JsonValue::object());
    for (const auto& [name, meta] : g.tensor_values) tensors.set(name, tensor_meta(meta));
    JsonValue& sym_ints = o.set("sym_int_values", JsonValue::object());
    for (const auto& [name, s] : g.sym_int_values) sym_ints.set(name, sym_int(s));
    JsonValue& sym_bools = o.set("sym_bool_values", JsonValue::object());
    for (const auto& [name, text] : g.sym_bool_values) {
      if (text == "True" || text == "False") {
        sym_bools.set(name, make_union("as_bool", text == "True", kSymBoolKeys));
      } else {
        JsonValue expr = JsonValue::object();
        expr.set("expr_str", text);
        sym_bools.set(name, make_union("as_expr", std::move(expr), kSymBoolKeys));
      }
    }
    o.set("is_single_tensor_return", g.is_single_tensor_return);
    o.set(wide_ ? "constants" : "custom_obj_values", JsonValue::object());
    return o;
  }

  JsonValue spec_arg(const Graph& g, const std::string& name) const {
    if (g.tensor(name) != nullptr) return argument(Argument{"as_tensor", false, {ArgRef{name}}, nullptr, {}});
    return argument(Argument{"as_sym_int", false, {ArgRef{name}}, nullptr, {}});
  }

  JsonValue input_spec(const Graph& g, const InputSpec& s) const {
    JsonValue v = JsonValue::object();
    if (s.kind == "user_input") {
      v.set("arg", spec_arg(g, s.arg));
    } else if (s.kind == "constant_input") {
      v.set("name", s.arg);
      v.set("value", make_union("as_none", JsonArray{}, kArgumentKeys));
    } else {
      v.set("arg", named(s.arg));
      if (s.kind == "parameter") v.set("parameter_name", s.target);
      if (s.kind == "buffer") {
        v.set("buffer_name", s.target);
        v.set("persistent", s.persistent);
      }
      if (s.kind == "tensor_constant") v.set("tensor_constant_name", s.target);
      if (s.kind == "custom_obj") v.set("custom_obj_name", s.target);
    }
    return make_union(s.kind, std::move(v), kInputSpecKeys);
  }

  JsonValue output_spec(const Graph& g, const OutputSpec& s) const {
    JsonValue v = JsonValue::object();
    if (s.kind == "user_output") {
      v.set("arg", spec_arg(g, s.arg));
    } else {
      v.set("arg", named(s.arg));
      if (s.kind == "buffer_mutation") v.set("buffer_name", s.target);
      if (s.kind == "gradient_to_parameter") v.set("parameter_name", s.target);
      if (s.kind == "gradient_to_user_input" || s.kind == "user_input_mutation") v.set("user_input_name", s.target);
    }
    return make_union(s.kind, std::move(v), kOutputSpecKeys);
  }

  static JsonValue bound(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
    return v;
  }

  JsonValue program(const ExportedProgram& p) const {
    JsonValue doc = JsonValue::object();
    JsonValue& module = doc.set("graph_module", JsonValue::object());
    module.set("graph", graph(p.graph));
    JsonValue& signature = module.set("signature", JsonValue::object());
    JsonValue& inputs = signature.set("input_specs", JsonValue::array());
    for (const InputSpec& s : p.input_specs) inputs.push(input_spec(p.graph, s));
    JsonValue& outputs = signature.set("output_specs", JsonValue::array());
    for (const OutputSpec& s : p.output_specs) outputs.push(output_spec(p.graph, s));
    JsonValue& calls = module.set("module_call_graph", JsonValue::array());
    for (const std::string& fqn : p.module_call_fqns) {
      JsonValue entry = JsonValue::object();
      entry.set("fqn", fqn);
      optional_field(entry, "signature", std::nullopt);
      calls.push(std::move(entry));
    }
    JsonValue& opset = doc.set("opset_version", JsonValue::object());
    for (const auto& [ns, version] : p.opset_version) opset.set(ns, version);
    JsonValue& ranges = doc.set("range_constraints", JsonValue::object());
    for (const RangeConstraint& r : p.range_constraints) {
      JsonValue range = JsonValue::object();
      range.set("min_val", bound(r.min_val));
      range.set("max_val", bound(r.max_val));
      ranges.set(r.symbol, std::move(range));
    }
    const size_t dot = p.schema_version.find('.');
    if (dot == std::string::npos) {
      doc.set("schema_version", p.schema_version.empty() ? int64_t{1} : to_int(p.schema_version));
    } else {
      JsonValue& version = doc.set("schema_version", JsonValue::object());
      version.set("major", to_int(std::string_view(p.schema_version).substr(0, dot)));
      version.set("minor", to_int(std::string_view(p.schema_version).substr(dot + 1)));
    }
    if (wide_) {
      doc.set("equality_constraints", JsonValue::array());
      doc.set("example_inputs", nullptr);
    } else {
      doc.set("dialect", p.dialect);
      JsonValue& verifiers = doc.set("verifiers", JsonValue::array());
      for (const std::string& v : p.verifiers) verifiers.push(v);
    }
    return doc;
  }

 private:
  bool wide_;
};

}  // namespace

JsonValue exported_program_to_json(const ExportedProgram& program, JsonStyle style) {
  return Writer(style).program(program);
}

}  // namespace etkit::etrecord
