#include "runner/describe.h"

#include <algorithm>

#include "libcore/formats/scalar_type.h"
#include "libcore/support/json_writer.h"

namespace etkit::rt {

namespace {

DescribedValue describe_value(const pte::EValue& value) {
  DescribedValue out;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, pte::Tensor>) {
          out.type = "Tensor";
          out.scalar_type = v.scalar_type;
          out.sizes = v.sizes;
          out.dynamism = v.shape_dynamism;
        } else if constexpr (std::is_same_v<T, pte::Null>) out.type = "Null";
        else if constexpr (std::is_same_v<T, pte::Int>) out.type = "Int";
        else if constexpr (std::is_same_v<T, pte::Bool>) out.type = "Bool";
        else if constexpr (std::is_same_v<T, pte::Double>) out.type = "Double";
        else if constexpr (std::is_same_v<T, pte::String>) out.type = "String";
        else if constexpr (std::is_same_v<T, pte::IntList>) out.type = "IntList";
        else if constexpr (std::is_same_v<T, pte::DoubleList>) out.type = "DoubleList";
        else if constexpr (std::is_same_v<T, pte::BoolList>) out.type = "BoolList";
        else if constexpr (std::is_same_v<T, pte::TensorList>) out.type = "TensorList";
        else out.type = "OptionalTensorList";
      },
      value);
  return out;
}

// Value indices were verified by the reader; out-of-range ones are skipped
// rather than trusted.
std::vector<DescribedValue> describe_values(const pte::ExecutionPlan& plan, const std::vector<int32_t>& indices) {
  std::vector<DescribedValue> out;
  for (int32_t i : indices) {
    if (i >= 0 && size_t(i) < plan.values.size()) out.push_back(describe_value(plan.values[size_t(i)]));
  }
  return out;
}

std::string shape_text(const std::vector<int32_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

std::string value_text(const DescribedValue& v) {
  if (v.type != "Tensor") return v.type;
  std::string out = std::string(scalar_type_name(v.scalar_type));
  if (out.empty()) out = "dtype " + std::to_string(v.scalar_type);
  out += shape_text(v.sizes);
  if (v.dynamism == pte::ShapeDynamism::kDynamicBound) out += " dynamic, bounded by this shape";
  else if (v.dynamism == pte::ShapeDynamism::kDynamicUnbound) out += " dynamic, unbounded";
  return out;
}

std::string plural(size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

void values_json(JsonWriter& w, const std::vector<DescribedValue>& values) {
  w.begin_array();
  for (const DescribedValue& v : values) {
    w.begin_object();
    w.key("type");
    w.string(v.type);
    if (v.type == "Tensor") {
      w.key("dtype");
      w.string(scalar_type_name(v.scalar_type));
      w.key("sizes");
      w.begin_array();
      for (int32_t s : v.sizes) w.number(s);
      w.end_array();
      w.key("dynamism");
      w.string(dynamism_name(v.dynamism));
    }
    w.end_object();
  }
  w.end_array();
}

void uses_json(JsonWriter& w, const std::vector<DescribedUse>& uses, const char* name_key) {
  w.begin_array();
  for (const DescribedUse& u : uses) {
    w.begin_object();
    w.key(name_key);
    w.string(u.name);
    w.key("calls");
    w.number(u.calls);
    w.key("supported");
    w.boolean(u.supported);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

bool ProgramDescription::all_supported() const {
  return std::all_of(methods.begin(), methods.end(), [](const DescribedMethod& m) {
    auto ok = [](const DescribedUse& u) { return u.supported; };
    return std::all_of(m.delegates.begin(), m.delegates.end(), ok) && std::all_of(m.operators.begin(), m.operators.end(), ok);
  });
}

std::string_view dynamism_name(pte::ShapeDynamism dynamism) {
  switch (dynamism) {
    case pte::ShapeDynamism::kStatic: return "static";
    case pte::ShapeDynamism::kDynamicBound: return "dynamic_bound";
    case pte::ShapeDynamism::kDynamicUnbound: return "dynamic_unbound";
  }
  return "unknown";
}

ProgramDescription describe_program(const pte::Program& program, const KernelRegistry& kernels,
                                    const BackendRegistry& backends) {
  ProgramDescription out;
  for (const pte::ExecutionPlan& plan : program.execution_plan) {
    DescribedMethod& m = out.methods.emplace_back();
    m.name = plan.name;
    m.inputs = describe_values(plan, plan.inputs);
    m.outputs = describe_values(plan, plan.outputs);
    for (const pte::Operator& op : plan.operators) {
      m.operators.push_back({op.full_name(), 0, kernels.find(op.full_name()) != nullptr});
    }
    for (const pte::Chain& chain : plan.chains) {
      for (const pte::Instruction& instruction : chain.instructions) {
        if (const auto* k = std::get_if<pte::KernelCall>(&instruction)) {
          if (k->op_index >= 0 && size_t(k->op_index) < m.operators.size()) ++m.operators[size_t(k->op_index)].calls;
        } else if (const auto* d = std::get_if<pte::DelegateCall>(&instruction)) {
          if (d->delegate_index < 0 || size_t(d->delegate_index) >= plan.delegates.size()) continue;
          const std::string& id = plan.delegates[size_t(d->delegate_index)].id;
          auto it = std::find_if(m.delegates.begin(), m.delegates.end(), [&](const DescribedUse& u) { return u.name == id; });
          if (it == m.delegates.end()) it = m.delegates.insert(m.delegates.end(), {id, 0, backends.find(id) != nullptr});
          ++it->calls;
        }
      }
    }
    // Delegates no instruction calls are still loaded (and so still needed).
    for (const pte::BackendDelegate& delegate : plan.delegates) {
      const bool listed = std::any_of(m.delegates.begin(), m.delegates.end(),
                                      [&](const DescribedUse& u) { return u.name == delegate.id; });
      if (!listed) m.delegates.push_back({delegate.id, 0, backends.find(delegate.id) != nullptr});
    }
  }
  return out;
}

std::string describe_text(const ProgramDescription& description) {
  std::string out;
  for (const DescribedMethod& m : description.methods) {
    out += "method " + m.name + "\n";
    out += "  inputs:\n";
    for (size_t i = 0; i < m.inputs.size(); ++i) out += "    " + std::to_string(i) + ": " + value_text(m.inputs[i]) + "\n";
    out += "  outputs:\n";
    for (size_t i = 0; i < m.outputs.size(); ++i) out += "    " + std::to_string(i) + ": " + value_text(m.outputs[i]) + "\n";
    out += "  delegates:" + std::string(m.delegates.empty() ? " none\n" : "\n");
    for (const DescribedUse& d : m.delegates) {
      out += "    " + d.name + ": " + plural(d.calls, "call") + ", " + (d.supported ? "supported" : "NOT SUPPORTED") + "\n";
    }
    out += "  operators:" + std::string(m.operators.empty() ? " none\n" : "\n");
    for (const DescribedUse& k : m.operators) {
      out += "    " + k.name + ": " + plural(k.calls, "call") + ", " + (k.supported ? "supported" : "NOT SUPPORTED") + "\n";
    }
  }
  out += description.all_supported() ? "supported: everything this program needs is in this build\n"
                                     : "supported: NO, this build lacks what is marked NOT SUPPORTED\n";
  return out;
}

Status write_describe_json(const ProgramDescription& description, std::FILE* out, bool pretty) {
  JsonWriter w(out, pretty);
  w.begin_object();
  w.key("format");
  w.string("etkit.describe/1");
  w.key("all_supported");
  w.boolean(description.all_supported());
  w.key("methods");
  w.begin_array();
  for (const DescribedMethod& m : description.methods) {
    w.begin_object();
    w.key("name");
    w.string(m.name);
    w.key("inputs");
    values_json(w, m.inputs);
    w.key("outputs");
    values_json(w, m.outputs);
    w.key("delegates");
    uses_json(w, m.delegates, "backend");
    w.key("operators");
    uses_json(w, m.operators, "name");
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.newline();
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  if (w.failed()) return io_error("<stdout>", "cannot write the output");
  return {};
}

}  // namespace etkit::rt
