#include "libcore/render/program_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "libcore/formats/scalar_type.h"

namespace etkit::render {

namespace {

std::string join_ints(const std::vector<int32_t>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(items[i]);
  }
  return out;
}

std::string describe_tensor(const pte::Tensor& t) {
  std::string type(scalar_type_name(t.scalar_type));
  if (type.empty()) type = "dtype" + std::to_string(t.scalar_type);
  return type + "[" + join_ints(t.sizes) + "]";
}

// A constant: bytes in the program (or an external data file), no memory plan.
bool is_constant_tensor(const pte::Tensor& t) {
  if (t.allocation_info) return false;
  if (t.data_buffer_idx > 0) return true;
  return t.extra_tensor_info && t.extra_tensor_info->location == pte::TensorDataLocation::kExternal;
}

std::string instruction_id(const InstructionRef& ref) {
  std::string id = "i" + std::to_string(ref.instruction);
  return ref.chain == 0 ? id : "c" + std::to_string(ref.chain) + "_" + id;
}

// The positions of a kernel call's out arguments. The emitter appends the
// return value as the last slot: for a single out argument that slot repeats
// it ("..., out, out"); for several it is a TensorList of them ("..., out,
// indices, [out, indices]"), whose items are then out arguments too. The
// longest tail repeated just before itself covers both lists of outs
// ("..., outs, outs" for split_with_sizes_copy). Otherwise (prim ops) the
// last slot is the output.
std::vector<bool> output_positions(const pte::ExecutionPlan& plan, const std::vector<int32_t>& args) {
  const size_t n = args.size();
  std::vector<bool> out(n, false);
  if (n == 0) return out;
  for (size_t k = n / 2; k >= 1; --k) {
    const auto tail = args.end() - static_cast<std::ptrdiff_t>(k);
    if (std::equal(tail, args.end(), tail - static_cast<std::ptrdiff_t>(k))) {
      std::fill(out.end() - static_cast<std::ptrdiff_t>(2 * k), out.end(), true);
      return out;
    }
  }
  out[n - 1] = true;
  const auto& last = plan.values[static_cast<size_t>(args[n - 1])];
  const std::vector<int32_t>* items = nullptr;
  if (const auto* list = std::get_if<pte::TensorList>(&last)) items = &list->items;
  if (const auto* list = std::get_if<pte::OptionalTensorList>(&last)) items = &list->items;
  if (items) {
    for (size_t a = 0; a + 1 < n; ++a) {
      if (std::find(items->begin(), items->end(), args[a]) != items->end()) out[a] = true;
    }
  }
  return out;
}

class Builder {
 public:
  explicit Builder(const pte::ExecutionPlan& plan) : plan_(plan), prefix_("execution_plan[" + plan.name + "]") {
    graph_.method = plan.name;
  }

  Result<ProgramGraph> build() {
    collect_written();
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      const int32_t v = plan_.inputs[i];
      ETKIT_TRY(check_value(v, prefix_ + ".inputs[" + std::to_string(i) + "]"));
      const size_t node =
          add_node("in_" + std::to_string(i), NodeKind::kInput, "input " + std::to_string(i), describe_value(plan_, v));
      write(v, node);
    }
    for (size_t c = 0; c < plan_.chains.size(); ++c) {
      const auto& chain = plan_.chains[c];
      chain_nodes_.emplace_back();
      // Nodes first, so that jumps can point forward.
      for (size_t i = 0; i < chain.instructions.size(); ++i) {
        ETKIT_TRY(add_instruction_node(c, i));
      }
      for (size_t i = 0; i < chain.instructions.size(); ++i) {
        ETKIT_TRY(add_instruction_edges(c, i));
      }
    }
    for (size_t i = 0; i < plan_.outputs.size(); ++i) {
      const int32_t v = plan_.outputs[i];
      ETKIT_TRY(check_value(v, prefix_ + ".outputs[" + std::to_string(i) + "]"));
      const size_t node = add_node("out_" + std::to_string(i), NodeKind::kOutput, "output " + std::to_string(i),
                                   describe_value(plan_, v));
      read(v, node);
    }
    return std::move(graph_);
  }

 private:
  Status check_value(int32_t v, const std::string& where) const {
    if (v < 0 || static_cast<size_t>(v) >= plan_.values.size()) {
      return bad_input(
          "value index " + std::to_string(v) + " out of range (" + std::to_string(plan_.values.size()) + " values)",
          where);
    }
    return {};
  }

  std::string instruction_path(size_t c, size_t i) const {
    return prefix_ + ".chains[" + std::to_string(c) + "].instructions[" + std::to_string(i) + "]";
  }

  size_t add_node(std::string id, NodeKind kind, std::string label, std::string detail = {}) {
    GraphNode node;
    node.id = std::move(id);
    node.kind = kind;
    node.label = std::move(label);
    node.detail = std::move(detail);
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.size() - 1;
  }

  Status add_instruction_node(size_t c, size_t i) {
    const InstructionRef ref{static_cast<int32_t>(c), static_cast<int32_t>(i)};
    const auto& instr = plan_.chains[c].instructions[i];
    const std::string where = instruction_path(c, i);
    NodeKind kind = NodeKind::kKernel;
    std::string label;
    std::optional<size_t> cluster;
    if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
      if (k->op_index < 0 || static_cast<size_t>(k->op_index) >= plan_.operators.size()) {
        return bad_input("op_index " + std::to_string(k->op_index) + " out of range (" +
                             std::to_string(plan_.operators.size()) + " operators)",
                         where);
      }
      const auto& op = plan_.operators[static_cast<size_t>(k->op_index)];
      label = op.full_name();
    } else if (const auto* d = std::get_if<pte::DelegateCall>(&instr)) {
      if (d->delegate_index < 0 || static_cast<size_t>(d->delegate_index) >= plan_.delegates.size()) {
        return bad_input("delegate_index " + std::to_string(d->delegate_index) + " out of range (" +
                             std::to_string(plan_.delegates.size()) + " delegates)",
                         where);
      }
      kind = NodeKind::kDelegate;
      label = plan_.delegates[static_cast<size_t>(d->delegate_index)].id;
      cluster = delegate_cluster(d->delegate_index);
    } else if (std::holds_alternative<pte::MoveCall>(instr)) {
      kind = NodeKind::kMove;
      label = "move";
    } else if (std::holds_alternative<pte::JumpFalseCall>(instr)) {
      kind = NodeKind::kJumpFalse;
      label = "jump_false";
    } else {
      kind = NodeKind::kFree;
      label = "free";
    }
    const size_t node = add_node(instruction_id(ref), kind, std::move(label));
    chain_nodes_[c].push_back(node);
    graph_.nodes[node].instruction = ref;
    graph_.nodes[node].cluster = cluster;
    return {};
  }

  size_t delegate_cluster(int32_t delegate_index) {
    auto [it, inserted] = clusters_.try_emplace(delegate_index, graph_.clusters.size());
    if (inserted) {
      const std::string index = std::to_string(delegate_index);
      graph_.clusters.push_back(
          {"delegate_" + index, plan_.delegates[static_cast<size_t>(delegate_index)].id + " (delegate " + index + ")"});
    }
    return it->second;
  }

  // The tensor values `v` stands for: itself, or a list's elements.
  std::vector<int32_t> tensors_of(int32_t v) const {
    const auto& value = plan_.values[static_cast<size_t>(v)];
    if (std::holds_alternative<pte::Tensor>(value)) return {v};
    const std::vector<int32_t>* items = nullptr;
    if (const auto* list = std::get_if<pte::TensorList>(&value)) items = &list->items;
    if (const auto* list = std::get_if<pte::OptionalTensorList>(&value)) items = &list->items;
    std::vector<int32_t> out;
    if (items) {
      for (int32_t item : *items) {
        if (item >= 0 && static_cast<size_t>(item) < plan_.values.size()) out.push_back(item);
      }
    }
    return out;
  }

  // Whether `v` (or every element of a list) holds a value before the call.
  bool has_value(int32_t v) const {
    const auto tensors = tensors_of(v);
    // Scalars and lists of scalars are literals in the program; so is a
    // list item that is not a tensor (the program validator checks list
    // items' indices, not their types).
    if (tensors.empty()) return true;
    return std::all_of(tensors.begin(), tensors.end(), [&](int32_t t) {
      const auto* tensor = std::get_if<pte::Tensor>(&plan_.values[static_cast<size_t>(t)]);
      return !tensor || producer_.count(t) > 0 || is_constant_tensor(*tensor);
    });
  }

  void edge(size_t from, size_t to, int32_t value) {
    if (!edge_keys_.insert({from, to, value}).second) return;
    // Appending (not "v" + ...) sidesteps a GCC 12 -Wrestrict false positive.
    std::string label = "v";
    label += std::to_string(value);
    label += ' ';
    label += describe_value(plan_, value);
    graph_.edges.push_back({from, to, value, std::move(label), false});
  }

  // Edges for reading `v` into `node`; constants get their node on first use.
  void read(int32_t v, size_t node) {
    const auto tensors = tensors_of(v);
    for (int32_t t : tensors.empty() ? std::vector<int32_t>{v} : tensors) {
      auto it = producer_.find(t);
      const auto* tensor = std::get_if<pte::Tensor>(&plan_.values[static_cast<size_t>(t)]);
      if (it == producer_.end() && tensor && tensor->allocation_info && !written_.count(t)) {
        // An elided view (pte_spec.md §4.3): a planned tensor that no
        // instruction writes and that is not an input is another name for
        // bytes an instruction wrote. Any other tensor merely reuses the
        // bytes of one whose lifetime has ended: no dataflow.
        auto writer = memory_writer_.find(memory_key(*tensor));
        if (writer != memory_writer_.end() && fits_in(*tensor, writer->second.second)) {
          it = producer_.emplace(t, writer->second.first).first;
        }
      }
      if (it == producer_.end()) {
        if (!tensor || !is_constant_tensor(*tensor)) continue;  // scalars, or never written
        const size_t c = add_node("const_" + std::to_string(t), NodeKind::kConstant, "const v" + std::to_string(t),
                                  describe_tensor(*tensor));
        it = producer_.emplace(t, c).first;
      }
      edge(it->second, node, t);
    }
  }

  void write(int32_t v, size_t node) {
    const auto tensors = tensors_of(v);
    for (int32_t t : tensors.empty() ? std::vector<int32_t>{v} : tensors) {
      producer_[t] = node;
      const auto* tensor = std::get_if<pte::Tensor>(&plan_.values[static_cast<size_t>(t)]);
      if (tensor && tensor->allocation_info) memory_writer_[memory_key(*tensor)] = {node, t};
    }
  }

  std::optional<uint64_t> byte_size(const pte::Tensor& t) const {
    const auto element = element_size(t.scalar_type);
    if (!element) return std::nullopt;
    uint64_t n = *element;
    for (int32_t d : t.sizes) {
      if (d < 0) return std::nullopt;
      n *= static_cast<uint64_t>(d);
    }
    return n;
  }

  // Whether the view's bytes lie within those of the tensor `source` wrote.
  bool fits_in(const pte::Tensor& view, int32_t source) const {
    const auto& src = std::get<pte::Tensor>(plan_.values[static_cast<size_t>(source)]);
    const auto a = byte_size(view);
    const auto b = byte_size(src);
    return a && b && *a <= *b;
  }

  // Every tensor a method input, a kernel's out argument or a move names:
  // these get their values from somewhere other than an aliased writer.
  void collect_written() {
    auto add = [&](int32_t v) {
      if (v >= 0 && static_cast<size_t>(v) < plan_.values.size()) {
        for (int32_t t : tensors_of(v)) written_.insert(t);
      }
    };
    for (int32_t v : plan_.inputs) add(v);
    for (const auto& chain : plan_.chains) {
      for (const auto& instr : chain.instructions) {
        if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
          if (!std::all_of(k->args.begin(), k->args.end(), [&](int32_t v) {
                return v >= 0 && static_cast<size_t>(v) < plan_.values.size();
              })) {
            continue;  // reported when the instruction's edges are built
          }
          const auto outputs = output_positions(plan_, k->args);
          for (size_t a = 0; a < k->args.size(); ++a) {
            if (outputs[a]) add(k->args[a]);
          }
        } else if (const auto* m = std::get_if<pte::MoveCall>(&instr)) {
          add(m->move_to);
        }
      }
    }
  }

  static std::pair<uint32_t, uint64_t> memory_key(const pte::Tensor& t) {
    return {t.allocation_info->memory_id, t.allocation_info->memory_offset};
  }

  Status add_instruction_edges(size_t c, size_t i) {
    const std::string where = instruction_path(c, i);
    const size_t node = chain_nodes_[c][i];
    const auto& instr = plan_.chains[c].instructions[i];
    auto check_args = [&](const std::vector<int32_t>& args) -> Status {
      for (size_t a = 0; a < args.size(); ++a)
        ETKIT_TRY(check_value(args[a], where + ".args[" + std::to_string(a) + "]"));
      return {};
    };
    if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
      ETKIT_TRY(check_args(k->args));
      const auto outputs = output_positions(plan_, k->args);
      for (size_t a = 0; a < k->args.size(); ++a) {
        if (!outputs[a]) read(k->args[a], node);
      }
      for (size_t a = 0; a < k->args.size(); ++a) {
        if (outputs[a]) write(k->args[a], node);
      }
    } else if (const auto* d = std::get_if<pte::DelegateCall>(&instr)) {
      ETKIT_TRY(check_args(d->args));
      std::vector<int32_t> outputs;
      for (int32_t v : d->args) {
        if (has_value(v)) {
          read(v, node);
        } else {
          outputs.push_back(v);
        }
      }
      for (int32_t v : outputs) write(v, node);
    } else if (const auto* m = std::get_if<pte::MoveCall>(&instr)) {
      ETKIT_TRY(check_value(m->move_from, where + ".move_from"));
      ETKIT_TRY(check_value(m->move_to, where + ".move_to"));
      read(m->move_from, node);
      write(m->move_to, node);
    } else if (const auto* j = std::get_if<pte::JumpFalseCall>(&instr)) {
      ETKIT_TRY(check_value(j->cond_value_index, where + ".cond_value_index"));
      read(j->cond_value_index, node);
      // A destination outside the chain just ends it: no edge.
      const int32_t target = j->destination_instruction;
      if (target >= 0 && static_cast<size_t>(target) < chain_nodes_[c].size()) {
        graph_.edges.push_back({node, chain_nodes_[c][static_cast<size_t>(target)], -1, {}, true});
      }
    } else if (const auto* f = std::get_if<pte::FreeCall>(&instr)) {
      ETKIT_TRY(check_value(f->value_index, where + ".value_index"));
      read(f->value_index, node);
    }
    return {};
  }

  const pte::ExecutionPlan& plan_;
  const std::string prefix_;  // field path of the plan in error messages
  ProgramGraph graph_;
  std::map<int32_t, size_t> producer_;                             // value -> node that last wrote it
  std::map<int32_t, size_t> clusters_;                             // delegate index -> cluster
  // (arena, offset) -> the last instruction that wrote there, and the tensor
  std::map<std::pair<uint32_t, uint64_t>, std::pair<size_t, int32_t>> memory_writer_;
  std::set<int32_t> written_;  // see collect_written()
  std::vector<std::vector<size_t>> chain_nodes_;                   // [chain][instruction] -> node
  std::set<std::tuple<size_t, size_t, int32_t>> edge_keys_;        // (from, to, value) already drawn
};

}  // namespace

std::optional<size_t> ProgramGraph::find(const InstructionRef& ref) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].instruction && *nodes[i].instruction == ref) return i;
  }
  return std::nullopt;
}

std::string describe_value(const pte::ExecutionPlan& plan, int32_t value) {
  if (value < 0 || static_cast<size_t>(value) >= plan.values.size()) return "?";
  const auto& v = plan.values[static_cast<size_t>(value)];
  if (const auto* t = std::get_if<pte::Tensor>(&v)) return describe_tensor(*t);
  if (const auto* i = std::get_if<pte::Int>(&v)) return "int " + std::to_string(i->value);
  if (const auto* b = std::get_if<pte::Bool>(&v)) return b->value ? "bool true" : "bool false";
  if (const auto* d = std::get_if<pte::Double>(&v)) return "double " + std::to_string(d->value);
  if (std::holds_alternative<pte::String>(v)) return "string";
  if (const auto* l = std::get_if<pte::IntList>(&v)) return "int list (" + std::to_string(l->items.size()) + ")";
  if (const auto* l = std::get_if<pte::DoubleList>(&v)) return "double list (" + std::to_string(l->items.size()) + ")";
  if (const auto* l = std::get_if<pte::BoolList>(&v)) return "bool list (" + std::to_string(l->items.size()) + ")";
  if (const auto* l = std::get_if<pte::TensorList>(&v)) return "tensor list (" + std::to_string(l->items.size()) + ")";
  if (const auto* l = std::get_if<pte::OptionalTensorList>(&v)) {
    return "optional tensor list (" + std::to_string(l->items.size()) + ")";
  }
  return "none";
}

const pte::ExecutionPlan* default_method(const pte::Program& program) {
  if (const auto* forward = program.find_method("forward")) return forward;
  return program.execution_plan.empty() ? nullptr : &program.execution_plan[0];
}

Result<ProgramGraph> build_program_graph(const pte::ExecutionPlan& plan) { return Builder(plan).build(); }

}  // namespace etkit::render
