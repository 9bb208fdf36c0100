#include "examples/demo_etrecord.h"

#include <algorithm>
#include <map>

#include "libcore/formats/etrecord/etrecord_writer.h"
#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/formats/etrecord/serde_types.h"
#include "libcore/formats/scalar_type.h"

namespace etkit::demo {
namespace {

using namespace etrecord;

// ------------------------------------------------ what examples/lenet.py says

constexpr std::string_view kFile = "examples/lenet.py";

// A module that contains calls: LeNet's `features` and `classifier`, and the
// line of LeNet.forward that calls it.
struct Parent {
  std::string_view attr;  // "" for LeNet itself
  std::string_view type;
  int line;  // in LeNet.forward
  std::string_view code;
};
constexpr Parent kRoot{"", "lenet.LeNet", 0, ""};
constexpr Parent kFeatures{"features", "lenet.Features", 62, "x = self.features(x)"};
constexpr Parent kClassifier{"classifier", "lenet.Classifier", 64, "return self.classifier(x)"};

// One call in lenet.py and the program operator it becomes. nn.Linear
// becomes two kernels (permute_copy of the weight, addmm); both come from
// one ATen node (`ancestor`), so they share a debug handle (etrecord_spec.md §5.5).
struct Call {
  std::string_view op;  // the program's operator
  const Parent* parent;
  std::string_view leaf;       // child module attribute, "" for a functional call
  std::string_view leaf_type;  // its class
  int line;
  std::string_view code;
  std::string_view source_fn;        // source_fn_stack entry
  std::string_view ancestor;         // the ATen node it was decomposed from (from_node)
  std::string_view ancestor_target;
  std::vector<std::pair<size_t, std::string_view>> parameters;  // argument index -> parameter attribute
};

const std::vector<Call>& lenet_calls() {
  static const std::string_view conv = "torch.nn.modules.conv.Conv2d";
  static const std::string_view pool = "torch.nn.modules.pooling.MaxPool2d";
  static const std::string_view linear = "torch.nn.modules.linear.Linear";
  static const std::vector<Call> calls = {
      {"aten::convolution", &kFeatures, "conv1", conv, 29, "x = self.conv1(x)", "conv1,torch.nn.modules.conv.Conv2d",
       "conv2d", "aten.conv2d.default", {{1, "weight"}, {2, "bias"}}},
      {"aten::relu", &kFeatures, "", "", 30, "x = F.relu(x)", "relu,torch.nn.functional.relu", "relu",
       "aten.relu.default", {}},
      {"aten::max_pool2d_with_indices", &kFeatures, "pool1", pool, 31, "x = self.pool1(x)",
       "pool1,torch.nn.modules.pooling.MaxPool2d", "max_pool2d", "aten.max_pool2d.default", {}},
      {"aten::convolution", &kFeatures, "conv2", conv, 32, "x = self.conv2(x)", "conv2,torch.nn.modules.conv.Conv2d",
       "conv2d_1", "aten.conv2d.default", {{1, "weight"}, {2, "bias"}}},
      {"aten::relu", &kFeatures, "", "", 33, "x = F.relu(x)", "relu_1,torch.nn.functional.relu", "relu_1",
       "aten.relu.default", {}},
      {"aten::max_pool2d_with_indices", &kFeatures, "pool2", pool, 34, "x = self.pool2(x)",
       "pool2,torch.nn.modules.pooling.MaxPool2d", "max_pool2d_1", "aten.max_pool2d.default", {}},
      // The program elides this view (its output aliases the pool's bytes): no instruction.
      {"aten::view_copy", &kRoot, "", "", 63, "x = torch.flatten(x, 1)", "flatten,torch.flatten", "flatten",
       "aten.flatten.using_ints", {}},
      {"aten::permute_copy", &kClassifier, "fc1", linear, 48, "x = self.fc1(x)", "fc1,torch.nn.modules.linear.Linear",
       "linear", "aten.linear.default", {{0, "weight"}}},
      {"aten::addmm", &kClassifier, "fc1", linear, 48, "x = self.fc1(x)", "fc1,torch.nn.modules.linear.Linear", "linear",
       "aten.linear.default", {{0, "bias"}}},
      {"aten::relu", &kClassifier, "", "", 49, "x = F.relu(x)", "relu_2,torch.nn.functional.relu", "relu_2",
       "aten.relu.default", {}},
      {"aten::permute_copy", &kClassifier, "fc2", linear, 50, "x = self.fc2(x)", "fc2,torch.nn.modules.linear.Linear",
       "linear_1", "aten.linear.default", {{0, "weight"}}},
      {"aten::addmm", &kClassifier, "fc2", linear, 50, "x = self.fc2(x)", "fc2,torch.nn.modules.linear.Linear",
       "linear_1", "aten.linear.default", {{0, "bias"}}},
      {"aten::relu", &kClassifier, "", "", 51, "x = F.relu(x)", "relu_3,torch.nn.functional.relu", "relu_3",
       "aten.relu.default", {}},
      {"aten::permute_copy", &kClassifier, "fc3", linear, 52, "return self.fc3(x)",
       "fc3,torch.nn.modules.linear.Linear", "linear_2", "aten.linear.default", {{0, "weight"}}},
      {"aten::addmm", &kClassifier, "fc3", linear, 52, "return self.fc3(x)", "fc3,torch.nn.modules.linear.Linear",
       "linear_2", "aten.linear.default", {{0, "bias"}}},
  };
  return calls;
}

// ------------------------------------------------ operator schemas

// The functional (edge) form of each out-variant kernel: its argument names
// (portable_ops.md), how many out tensors follow them in the program, and the
// defaults of trailing arguments, which the serializer leaves out when they
// were not passed (etrecord_spec.md §4.3) - as torch's decompositions do not.
struct Schema {
  std::vector<std::string_view> args;
  size_t outs;
  std::map<size_t, int64_t> defaults;  // ints, bools and int lists whose every element equals the value
};

const Schema* schema(std::string_view op) {
  static const std::map<std::string_view, Schema> schemas = {
      {"aten::convolution",
       {{"input", "weight", "bias", "stride", "padding", "dilation", "transposed", "output_padding", "groups"}, 1, {}}},
      {"aten::relu", {{"self"}, 1, {}}},
      {"aten::max_pool2d_with_indices",
       {{"self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"}, 2, {{3, 0}, {4, 1}, {5, 0}}}},
      {"aten::permute_copy", {{"self", "dims"}, 1, {}}},
      {"aten::addmm", {{"self", "mat1", "mat2", "beta", "alpha"}, 1, {{3, 1}, {4, 1}}}},
      {"aten::view_copy", {{"self", "size"}, 1, {}}},
  };
  const auto it = schemas.find(op);
  return it == schemas.end() ? nullptr : &it->second;
}

// ------------------------------------------------ building the edge program

// Any constant: the Python id() of the ATen graph the from_node records point into.
constexpr int64_t kAtenGraphId = 140000000000001;

Error drift(const std::string& message) {
  return Error{ErrorKind::kRuntime, {}, {}, "the demo program and examples/lenet.py disagree: " + message};
}

int64_t serde_dtype(int8_t runtime_type) {
  switch (static_cast<ScalarType>(runtime_type)) {
    case ScalarType::kFloat: return kSerdeFloat32;
    case ScalarType::kLong: return kSerdeInt64;
    default: return 0;
  }
}

std::string underscored(std::string_view path) {
  std::string out(path);
  for (char& c : out) {
    if (c == '.') c = '_';
  }
  return out;
}

class Builder {
 public:
  explicit Builder(const pte::Program& program) : program_(program) {}

  Result<LenetRecord> build() {
    plan_ = program_.find_method("forward");
    if (plan_ == nullptr) return drift("no forward method");
    ETKIT_TRY(collect_kernels());
    if (plan_->inputs.size() != 1) return drift("forward takes " + std::to_string(plan_->inputs.size()) + " inputs, not 1");
    names_[plan_->inputs[0]] = "x";

    size_t k = 0;  // next kernel instruction
    for (const Call& call : lenet_calls()) {
      if (call.op == "aten::view_copy") {
        ETKIT_TRY(add_view(call, k));
        continue;
      }
      if (k >= kernels_.size()) return drift("lenet.py has more calls than the program has kernels");
      ETKIT_TRY(add_kernel(call, kernels_[k].first, kernels_[k].second));
      ++k;
    }
    if (k != kernels_.size()) return drift("the program has " + std::to_string(kernels_.size() - k) + " kernels more than lenet.py");
    ETKIT_TRY(finish());
    return std::move(record_);
  }

 private:
  Status collect_kernels() {
    if (plan_->chains.size() != 1) return drift("forward has " + std::to_string(plan_->chains.size()) + " chains");
    const auto& instructions = plan_->chains[0].instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      const auto* kernel = std::get_if<pte::KernelCall>(&instructions[i]);
      if (kernel == nullptr) return drift("instruction " + std::to_string(i) + " is not a kernel call");
      kernels_.emplace_back(static_cast<int64_t>(i), kernel);
    }
    return {};
  }

  Result<const pte::EValue*> value(int32_t index) const {
    if (index < 0 || static_cast<size_t>(index) >= plan_->values.size()) {
      return drift("value index " + std::to_string(index) + " out of range");
    }
    return &plan_->values[static_cast<size_t>(index)];
  }

  Result<const pte::Tensor*> tensor(int32_t index) const {
    ETKIT_ASSIGN_OR_RETURN(const pte::EValue* v, value(index));
    const auto* t = std::get_if<pte::Tensor>(v);
    if (t == nullptr) return drift("value " + std::to_string(index) + " is not a tensor");
    return t;
  }

  Status add_meta(const std::string& name, int32_t index) {
    ETKIT_ASSIGN_OR_RETURN(const pte::Tensor* t, tensor(index));
    TensorMeta m;
    m.dtype = serde_dtype(t->scalar_type);
    if (m.dtype == 0) return drift("tensor " + name + " has runtime dtype " + std::to_string(t->scalar_type));
    int64_t stride = 1;
    m.strides.resize(t->sizes.size());
    for (size_t d = t->sizes.size(); d-- > 0;) {
      m.strides[d].value = stride;
      stride *= t->sizes[d];
    }
    for (int32_t s : t->sizes) m.sizes.push_back(SymInt{s, {}, {}});
    m.storage_offset.value = 0;
    m.layout = kSerdeLayoutStrided;
    record_.edge.graph.tensor_values[name] = std::move(m);
    return {};
  }

  // A program argument as an edge argument. Constants become parameters of
  // the module the call belongs to.
  Result<Argument> argument(const Call& call, size_t position, int32_t index) {
    ETKIT_ASSIGN_OR_RETURN(const pte::EValue* v, value(index));
    Argument a;
    if (std::holds_alternative<pte::Tensor>(*v)) {
      auto it = names_.find(index);
      if (it == names_.end()) {
        const auto* t = std::get_if<pte::Tensor>(v);
        if (t->allocation_info || t->data_buffer_idx == 0) return drift("tensor value " + std::to_string(index) + " is read before it is written");
        ETKIT_TRY(add_parameter(call, position, index, *t));
        it = names_.find(index);
      }
      a.variant = "as_tensor";
      a.items.push_back(ArgRef{it->second});
    } else if (const auto* i = std::get_if<pte::Int>(v)) {
      a.variant = "as_int";
      a.items.push_back(i->value);
    } else if (const auto* b = std::get_if<pte::Bool>(v)) {
      a.variant = "as_bool";
      a.items.push_back(b->value);
    } else if (const auto* list = std::get_if<pte::IntList>(v)) {
      a.variant = "as_ints";
      a.is_list = true;
      for (int64_t item : list->items) {
        ETKIT_ASSIGN_OR_RETURN(const pte::EValue* boxed, value(static_cast<int32_t>(item)));
        const auto* element = std::get_if<pte::Int>(boxed);
        if (element == nullptr) return drift("int list " + std::to_string(index) + " holds a non-int");
        a.items.push_back(element->value);
      }
    } else {
      return drift("value " + std::to_string(index) + " has a kind the demo does not describe");
    }
    return a;
  }

  Status add_parameter(const Call& call, size_t position, int32_t index, const pte::Tensor& t) {
    std::string_view attr;
    for (const auto& [p, name] : call.parameters) {
      if (p == position) attr = name;
    }
    if (attr.empty() || call.leaf.empty()) return drift(std::string(call.code) + ": constant argument " + std::to_string(position));
    const std::string fqn = std::string(call.parent->attr) + "." + std::string(call.leaf) + "." + std::string(attr);
    const std::string name = "p_" + underscored(fqn);
    names_[index] = name;
    ETKIT_TRY(add_meta(name, index));
    record_.edge.input_specs.push_back(InputSpec{"parameter", name, fqn, true});
    // The weights, from the program's constant segment.
    const auto& segment = program_.constant_segment;
    int64_t numel = 1;
    for (int32_t s : t.sizes) numel *= s;
    const uint64_t nbytes = static_cast<uint64_t>(numel) * 4;
    if (!segment || t.data_buffer_idx >= segment->offsets.size() || segment->segment_index >= program_.segment_data.size() ||
        !in_bounds(segment->offsets[t.data_buffer_idx], nbytes, program_.segment_data[segment->segment_index].size())) {
      return drift("constant " + fqn + " is not in the constant segment");
    }
    record_.parameters.push_back(
        TensorToSave{fqn, kSerdeFloat32, std::vector<int64_t>(t.sizes.begin(), t.sizes.end()),
                     program_.segment_data[segment->segment_index].subspan(segment->offsets[t.data_buffer_idx], nbytes)});
    return {};
  }

  std::string node_name(std::string_view op) {
    const std::string base = "aten_" + std::string(op.substr(op.find("::") + 2)) + "_default";
    const int n = op_counts_[base]++;
    return n == 0 ? base : base + "_" + std::to_string(n);
  }

  NodeMetadata metadata(const Call& call) {
    std::string trace;
    const auto frame = [&](int line, std::string_view code) {
      trace += "  File \"" + std::string(kFile) + "\", line " + std::to_string(line) + ", in forward\n    " +
               std::string(code) + "\n";
    };
    std::string stack = "L__self__,," + std::string(kRoot.type);
    if (call.parent != &kRoot) {
      frame(call.parent->line, call.parent->code);
      stack += ";L__self___" + std::string(call.parent->attr) + "," + std::string(call.parent->attr) + "," +
               std::string(call.parent->type);
      if (!call.leaf.empty()) {
        const std::string path = std::string(call.parent->attr) + "." + std::string(call.leaf);
        stack += ";L__self___" + underscored(path) + "," + path + "," + std::string(call.leaf_type);
      }
    }
    frame(call.line, call.code);
    auto [it, inserted] = handles_.emplace(std::string(call.ancestor), static_cast<int64_t>(handles_.size() + 1));
    const JsonValue from_node(JsonArray{[&] {
      JsonValue r = JsonValue::object();
      r.set("name", std::string(call.ancestor));
      r.set("target", std::string(call.ancestor_target));
      r.set("graph_id", kAtenGraphId);
      r.set("pass_name", "");
      r.set("action", "create");
      r.set("from_node", JsonValue::array());
      return r;
    }()});
    JsonValue m = JsonValue::object();
    m.set("stack_trace", trace);
    m.set("nn_module_stack", stack);
    m.set("source_fn_stack", std::string(call.source_fn));
    m.set("debug_handle", std::to_string(it->second));
    m.set("from_node", to_json(from_node));
    return parse_node_metadata(m);
  }

  Node make_node(const Call& call) {
    Node n;
    n.name = node_name(call.op);
    n.target = "executorch.exir.dialects.edge.ops.aten." + std::string(call.op.substr(call.op.find("::") + 2)) + ".default";
    std::tie(n.kind, n.op) = classify_target(n.target);
    n.metadata = metadata(call);
    return n;
  }

  Status add_kernel(const Call& call, int64_t instruction, const pte::KernelCall* kernel) {
    const std::string where = "instruction " + std::to_string(instruction);
    if (kernel->op_index < 0 || static_cast<size_t>(kernel->op_index) >= plan_->operators.size()) {
      return drift(where + ": operator index out of range");
    }
    const pte::Operator& op = plan_->operators[static_cast<size_t>(kernel->op_index)];
    if (op.name != call.op || op.overload != "out") {
      return drift(where + " is " + op.full_name() + ", lenet.py line " + std::to_string(call.line) + " expects " +
                   std::string(call.op) + ".out");
    }
    const Schema* s = schema(call.op);
    if (s == nullptr || kernel->args.size() != s->args.size() + s->outs + 1) {
      return drift(where + ": " + std::to_string(kernel->args.size()) + " arguments for " + std::string(call.op));
    }
    Node n = make_node(call);
    for (size_t i = 0; i < s->args.size(); ++i) {
      ETKIT_ASSIGN_OR_RETURN(Argument a, argument(call, i, kernel->args[i]));
      n.inputs.push_back(NamedArgument{std::string(s->args[i]), std::move(a)});
    }
    drop_defaults(*s, n.inputs);
    // Out tensors: one output keeps the node's name; several are getitem
    // results, or <node>_unused_<i> when nothing reads them (§4.3).
    for (size_t o = 0; o < s->outs; ++o) {
      const int32_t out = kernel->args[s->args.size() + o];
      std::string name = n.name;
      if (s->outs > 1) {
        const std::string getitem = getitem_count_ == 0 ? "getitem" : "getitem_" + std::to_string(getitem_count_);
        ++getitem_count_;
        name = read_later(out, instruction) ? getitem : n.name + "_unused_" + std::to_string(o);
      }
      names_[out] = name;
      ETKIT_TRY(add_meta(name, out));
      n.outputs.push_back(Argument{"as_tensor", false, {ArgRef{name}}, nullptr, {}});
    }
    record_.debug_handles["forward"][std::to_string(instruction)] = Handles{false, {*n.metadata.debug_handle}};
    record_.edge.graph.nodes.push_back(std::move(n));
    return {};
  }

  // The flatten the program elides: its output is the first tensor a later
  // kernel reads that nothing wrote, over the bytes of a tensor already written.
  Status add_view(const Call& call, size_t first_kernel) {
    std::vector<int32_t> later_args;
    for (size_t k = first_kernel; k < kernels_.size(); ++k) {
      later_args.insert(later_args.end(), kernels_[k].second->args.begin(), kernels_[k].second->args.end());
    }
    for (int32_t arg : later_args) {
      ETKIT_ASSIGN_OR_RETURN(const pte::EValue* v, value(arg));
      const auto* flat = std::get_if<pte::Tensor>(v);
      if (flat == nullptr || names_.count(arg) != 0 || !flat->allocation_info) continue;
      for (const auto& [index, source_name] : names_) {
        ETKIT_ASSIGN_OR_RETURN(const pte::Tensor* source, tensor(index));
        if (!source->allocation_info || source->allocation_info->memory_id != flat->allocation_info->memory_id ||
            source->allocation_info->memory_offset != flat->allocation_info->memory_offset) {
          continue;
        }
        Node n = make_node(call);
        n.inputs.push_back(NamedArgument{"self", Argument{"as_tensor", false, {ArgRef{source_name}}, nullptr, {}}});
        Argument size{"as_ints", true, {}, nullptr, {}};
        for (int32_t s : flat->sizes) size.items.push_back(int64_t{s});
        n.inputs.push_back(NamedArgument{"size", std::move(size)});
        names_[arg] = n.name;
        ETKIT_TRY(add_meta(n.name, arg));
        n.outputs.push_back(Argument{"as_tensor", false, {ArgRef{n.name}}, nullptr, {}});
        record_.edge.graph.nodes.push_back(std::move(n));
        return {};
      }
    }
    return drift("no elided view before " + std::string(call.code) + " in the program");
  }

  bool same_bytes(int32_t a, int32_t b) const {
    const auto n = static_cast<int32_t>(plan_->values.size());
    if (a < 0 || b < 0 || a >= n || b >= n) return false;
    const auto* x = std::get_if<pte::Tensor>(&plan_->values[static_cast<size_t>(a)]);
    const auto* y = std::get_if<pte::Tensor>(&plan_->values[static_cast<size_t>(b)]);
    return x != nullptr && y != nullptr && x->allocation_info && y->allocation_info &&
           x->allocation_info->memory_id == y->allocation_info->memory_id &&
           x->allocation_info->memory_offset == y->allocation_info->memory_offset;
  }

  // Whether a later kernel reads the value, directly or through an elided view.
  bool read_later(int32_t value_index, int64_t instruction) const {
    for (const auto& [i, kernel] : kernels_) {
      if (i <= instruction || kernel->op_index < 0 ||
          static_cast<size_t>(kernel->op_index) >= plan_->operators.size()) {
        continue;
      }
      const Schema* s = schema(plan_->operators[static_cast<size_t>(kernel->op_index)].name);
      const size_t inputs = s == nullptr ? 0 : std::min(s->args.size(), kernel->args.size());
      for (size_t a = 0; a < inputs; ++a) {
        if (kernel->args[a] == value_index || same_bytes(kernel->args[a], value_index)) return true;
      }
    }
    return false;
  }

  static bool holds_default(const Argument& a, int64_t value) {
    if (a.items.empty()) return false;
    for (const ArgItem& item : a.items) {
      const int64_t* i = std::get_if<int64_t>(&item);
      const bool* b = std::get_if<bool>(&item);
      if (!(i && *i == value) && !(b && int64_t{*b} == value)) return false;
    }
    return true;
  }

  static void drop_defaults(const Schema& s, std::vector<NamedArgument>& inputs) {
    while (!inputs.empty()) {
      const auto it = s.defaults.find(inputs.size() - 1);
      if (it == s.defaults.end() || !holds_default(inputs.back().arg, it->second)) break;
      inputs.pop_back();
    }
  }

  Status finish() {
    ExportedProgram& p = record_.edge;
    // Placeholders: parameters in registration order, then the user input.
    for (const InputSpec& spec : p.input_specs) p.graph.inputs.push_back(Argument{"as_tensor", false, {ArgRef{spec.arg}}, nullptr, {}});
    p.graph.inputs.push_back(Argument{"as_tensor", false, {ArgRef{"x"}}, nullptr, {}});
    p.input_specs.push_back(InputSpec{"user_input", "x", "", true});
    ETKIT_TRY(add_meta("x", plan_->inputs[0]));
    for (int32_t out : plan_->outputs) {
      const auto it = names_.find(out);
      if (it == names_.end()) return drift("an output of forward is never written");
      p.graph.outputs.push_back(Argument{"as_tensor", false, {ArgRef{it->second}}, nullptr, {}});
      p.output_specs.push_back(OutputSpec{"user_output", it->second, ""});
    }
    p.module_call_fqns = {""};
    p.opset_version = {{"aten", 10}};
    p.schema_version = "5.3";
    p.verifiers = {"EDGE"};
    return {};
  }

  const pte::Program& program_;
  const pte::ExecutionPlan* plan_ = nullptr;
  std::vector<std::pair<int64_t, const pte::KernelCall*>> kernels_;
  std::map<int32_t, std::string> names_;  // program value -> edge name
  std::map<std::string, int> op_counts_;
  std::map<std::string, int64_t> handles_;  // ancestor -> debug handle
  int getitem_count_ = 0;
  LenetRecord record_;
};

}  // namespace

Result<LenetRecord> lenet_record(const pte::Program& program) { return Builder(program).build(); }

Result<std::vector<uint8_t>> lenet_etrecord(const pte::Program& program) {
  ETKIT_ASSIGN_OR_RETURN(LenetRecord record, lenet_record(program));
  ETKIT_ASSIGN_OR_RETURN(auto state_dict, write_torch_save_dict(record.parameters));
  ETKIT_ASSIGN_OR_RETURN(auto constants, write_torch_save_dict({}));
  EtRecordWriter w(JsonStyle::kNarrow);
  const std::string entry = "edge_dialect_exported_program/forward";
  w.add_program(entry, record.edge);
  w.add_entry(entry + "_state_dict", std::move(state_dict));
  w.add_entry(entry + "_constants", std::move(constants));
  w.add_entry(entry + "_example_inputs", {});
  w.add_debug_handle_map(record.debug_handles);
  w.add_delegate_map(DelegateMap{{"forward", {}}});
  w.add_num_outs_map(NumOutsMap{{"forward", {}}});
  return w.finish();
}

}  // namespace etkit::demo
