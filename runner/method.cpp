#include "runner/method.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace etkit::rt {
namespace {

std::string indexed(std::string_view name, size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

Error load_error(std::string message, std::string field = {}) {
  return Error{ErrorKind::kBadInput, {}, std::move(field), std::move(message)};
}

bool aligned_for(const void* p, size_t element) {
  return element <= 1 || reinterpret_cast<uintptr_t>(p) % std::min<size_t>(element, 16) == 0;
}

// The event name the runtime's generated wrappers use (runtime_events.md
// §2.2): "native_call_" + name without namespace + ".overload" if any.
std::string native_call_name(const pte::Operator& op) {
  const auto sep = op.name.rfind("::");
  std::string name = "native_call_" + (sep == std::string::npos ? op.name : op.name.substr(sep + 2));
  if (!op.overload.empty()) name += "." + op.overload;
  return name;
}

}  // namespace

Status BackendRegistry::add(std::string id, std::shared_ptr<Backend> backend) {
  if (!backends_.emplace(id, std::move(backend)).second) return bad_input("backend '" + id + "' is already registered");
  return {};
}

Backend* BackendRegistry::find(std::string_view id) const {
  auto it = backends_.find(id);
  return it == backends_.end() ? nullptr : it->second.get();
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, backend] : backends_) out.push_back(name);
  return out;
}

size_t LoadedMethod::instruction_count() const {
  size_t n = 0;
  for (const auto& chain : chains_) n += chain.size();
  return n;
}

uint64_t LoadedMethod::arena_bytes() const {
  uint64_t total = 0;
  for (auto s : arena_sizes_) total += s;
  return total;
}

Status LoadedMethod::set_input_tensor(size_t i, ScalarType dtype, std::span<const int32_t> sizes, ByteSpan bytes) {
  const std::string where = indexed("input", i);
  if (i >= num_inputs()) return load_error("the method has " + std::to_string(num_inputs()) + " inputs", where);
  EValue& v = input(i);
  if (v.tag != Tag::kTensor) {
    return load_error("expects " + std::string(tag_name(v.tag)) + ", not a tensor", where);
  }
  Tensor& t = *v.tensor;
  if (t.dtype() != dtype) {
    return load_error("dtype " + std::string(scalar_type_name(int(dtype))) + " does not match the method's " +
                          std::string(scalar_type_name(int(t.dtype()))), where);
  }
  auto resized = t.resize(sizes);
  if (!resized) return load_error("shape does not fit: " + resized.error().message, where);
  if (bytes.size() != t.nbytes()) {
    return load_error(std::to_string(bytes.size()) + " bytes given, " + std::to_string(t.nbytes()) + " expected",
                      where);
  }
  if (!bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());
  // A raw BOOL input may hold any byte: kernels see true as 1 (NumPy's reading).
  if (dtype == ScalarType::kBool) {
    auto* b = static_cast<uint8_t*>(t.data());
    for (size_t k = 0; k < bytes.size(); ++k) b[k] = b[k] != 0;
  }
  return {};
}

Status LoadedMethod::set_input_scalar(size_t i, const EValue& value) {
  const std::string where = indexed("input", i);
  if (i >= num_inputs()) return load_error("the method has " + std::to_string(num_inputs()) + " inputs", where);
  const EValue& traced = input(i);
  if (traced.tag != value.tag) {
    return load_error("expects " + std::string(tag_name(traced.tag)) + ", not " + std::string(tag_name(value.tag)),
                      where);
  }
  // Scalar inputs are specialised at export: only the traced value is valid
  // (Method::set_input; Double within 1e-4 + 1e-5 relative).
  bool same = true;
  if (value.tag == Tag::kInt) same = value.i == traced.i;
  if (value.tag == Tag::kBool) same = value.b == traced.b;
  if (value.tag == Tag::kDouble) {
    const double p = value.d, c = traced.d;
    same = (std::isnan(p) && std::isnan(c)) || (std::isinf(p) && std::isinf(c) && (p > 0) == (c > 0)) ||
           std::fabs(p - c) <= 1e-4 + std::fabs(1e-5 * c);
  }
  if (!same) return load_error("the program was exported for a different value of this scalar input", where);
  return {};
}

namespace {

// The program's named_data segments, then the external data: what
// ExecuTorch's merged NamedDataMap offers a backend.
class ProgramNamedData : public NamedDataMap {
 public:
  ProgramNamedData(const pte::Program& program, const ExternalData* external) : program_(program), external_(external) {}
  std::optional<ByteSpan> find(std::string_view key) const override {
    for (const auto& nd : program_.named_data) {
      if (nd.key == key && nd.segment_index < program_.segment_data.size()) return program_.segment_data[nd.segment_index];
    }
    if (external_) {
      if (const auto* entry = external_->find(key)) return entry->bytes;
    }
    return std::nullopt;
  }

 private:
  const pte::Program& program_;
  const ExternalData* external_;
};

struct Loader {
  const pte::Program& program;
  const pte::ExecutionPlan& plan;
  const LoadOptions& options;
  LoadedMethod& method;
  std::vector<Buffer>& memory;
  std::vector<uint64_t>& arena_sizes;
  std::deque<Tensor>& tensors;
  std::deque<std::vector<Tensor*>>& tensor_lists;
  uint64_t allocated = 0;

  // Memory this method owns, within LoadOptions::memory_limit.
  Result<uint8_t*> allocate(uint64_t nbytes, std::string_view what) {
    if (nbytes > options.memory_limit || allocated > options.memory_limit - nbytes) {
      return load_error(std::string(what) + " of " + std::to_string(nbytes) + " bytes would take the method's memory to " +
                        std::to_string(allocated + nbytes) + " bytes, beyond its limit of " +
                        std::to_string(options.memory_limit));
    }
    memory.push_back(allocate_zeroed(nbytes));
    if (!memory.back()) {
      return Error{ErrorKind::kRuntime, {}, {}, "out of memory for " + std::string(what) + " of " + std::to_string(nbytes) + " bytes"};
    }
    allocated += nbytes;
    return memory.back().get();
  }

  // Read-only data used in place when aligned for its elements, else copied
  // into aligned memory of the method's own (kernels load whole elements).
  Result<void*> constant_data(ByteSpan bytes, size_t element, std::string_view what) {
    if (aligned_for(bytes.data(), element)) return const_cast<uint8_t*>(bytes.data());
    ETKIT_ASSIGN_OR_RETURN(uint8_t* copy, allocate(bytes.size(), what));
    std::memcpy(copy, bytes.data(), bytes.size());
    return static_cast<void*>(copy);
  }

  Result<ByteSpan> constant_bytes(uint32_t index, uint64_t nbytes) {
    const auto& cs = program.constant_segment;
    if (cs && cs->offsets.size() > 1) {
      if (index >= cs->offsets.size()) {
        return load_error("constant buffer " + std::to_string(index) + " out of range (" +
                          std::to_string(cs->offsets.size()) + " entries)");
      }
      const ByteSpan segment = program.segment_data.at(cs->segment_index);
      if (!in_bounds(cs->offsets[index], nbytes, segment.size())) {
        return load_error("constant buffer " + std::to_string(index) + " needs " + std::to_string(nbytes) +
                          " bytes at offset " + std::to_string(cs->offsets[index]) + " of a " +
                          std::to_string(segment.size()) + "-byte segment");
      }
      return segment.subspan(cs->offsets[index], nbytes);
    }
    if (index >= program.constant_buffer.size()) {
      return load_error("constant buffer " + std::to_string(index) + " out of range (" +
                        std::to_string(program.constant_buffer.size()) + " inline buffers)");
    }
    const ByteSpan storage = program.constant_buffer[index];
    if (nbytes > storage.size()) {
      return load_error("constant buffer " + std::to_string(index) + " holds " + std::to_string(storage.size()) +
                        " bytes, " + std::to_string(nbytes) + " needed");
    }
    return storage.first(nbytes);
  }

  Result<Tensor*> make_tensor(const pte::Tensor& t) {
    if (t.storage_offset != 0) return unsupported("storage_offset " + std::to_string(t.storage_offset) + " is not supported");
    if (!is_valid_scalar_type(t.scalar_type)) return load_error("invalid scalar_type " + std::to_string(t.scalar_type));
    if (t.shape_dynamism == pte::ShapeDynamism::kDynamicUnbound) {
      return unsupported("DYNAMIC_UNBOUND tensors are not supported");
    }
    if (t.sizes.size() > kMaxRank) return load_error("rank " + std::to_string(t.sizes.size()) + " exceeds 16");
    if (t.dim_order.size() != t.sizes.size()) return load_error("dim_order and sizes differ in length");
    std::vector<bool> seen(t.sizes.size(), false);
    for (uint8_t d : t.dim_order) {
      if (d >= seen.size() || seen[d]) return load_error("dim_order is not a permutation");
      seen[d] = true;
    }
    const size_t element = element_size(t.scalar_type).value_or(1);
    uint64_t numel = 1;
    uint64_t span = 1;  // zeros as ones: bounds the strides of an empty tensor too
    for (int32_t s : t.sizes) {
      if (s < 0) return load_error("negative size " + std::to_string(s));
      // Checked before multiplying: numel <= span <= 2^40, so nothing wraps.
      const uint64_t factor = s == 0 ? 1 : uint64_t(s);
      if (span > uint64_t(kMaxSpan) / factor) return load_error("sizes whose strides exceed 2^40 elements");
      span *= factor;
      numel *= uint64_t(s);
    }
    const uint64_t nbytes = numel * element;
    void* data = nullptr;
    bool read_only = false;
    const bool external = t.extra_tensor_info && t.extra_tensor_info->location == pte::TensorDataLocation::kExternal;
    if (external) {
      const auto& key = t.extra_tensor_info->fully_qualified_name;
      if (!key) return load_error("external tensor without fully_qualified_name");
      if (!options.external_data) {
        return load_error("tensor '" + *key + "' lives in external data: pass its .ptd file");
      }
      const auto* entry = options.external_data->find(*key);
      if (!entry) return load_error("external data has no tensor '" + *key + "'");
      if (entry->scalar_type != t.scalar_type || entry->sizes != t.sizes || entry->dim_order != t.dim_order ||
          entry->bytes.size() < nbytes) {
        return load_error("external tensor '" + *key + "' has a different dtype, shape or size");
      }
      if (t.allocation_info) {
        ETKIT_ASSIGN_OR_RETURN(data, planned(*t.allocation_info, nbytes, element));
        std::memcpy(data, entry->bytes.data(), nbytes);
      } else {
        ETKIT_ASSIGN_OR_RETURN(data, constant_data(entry->bytes.first(nbytes), element, "an unaligned external tensor"));
        read_only = true;
      }
    } else if (t.allocation_info) {
      ETKIT_ASSIGN_OR_RETURN(data, planned(*t.allocation_info, nbytes, element));
      if (t.data_buffer_idx > 0) ETKIT_TRY(copy_initial(t.data_buffer_idx, data, nbytes));
    } else if (t.data_buffer_idx > 0) {
      ETKIT_ASSIGN_OR_RETURN(ByteSpan bytes, constant_bytes(t.data_buffer_idx, nbytes));
      ETKIT_ASSIGN_OR_RETURN(data, constant_data(bytes, element, "an unaligned constant"));
      read_only = true;
    } else {
      ETKIT_ASSIGN_OR_RETURN(uint8_t* buffer, allocate(nbytes, "an unplanned tensor"));
      data = buffer;
    }
    tensors.emplace_back(static_cast<ScalarType>(t.scalar_type), t.sizes, t.dim_order, data, t.shape_dynamism);
    // Constants live in the mapped file (or stand for it): nothing may write them.
    if (read_only) tensors.back().mark_read_only();
    return &tensors.back();
  }

  Result<void*> planned(const pte::AllocationDetails& a, uint64_t nbytes, size_t element) {
    if (a.memory_id == 0 || a.memory_id > arena_sizes.size()) {
      return load_error("memory_id " + std::to_string(a.memory_id) + " names no arena (" +
                        std::to_string(arena_sizes.size()) + " planned)");
    }
    const uint64_t size = arena_sizes[a.memory_id - 1];
    if (!in_bounds(a.memory_offset, nbytes, size)) {
      return load_error("bytes [" + std::to_string(a.memory_offset) + ", +" + std::to_string(nbytes) +
                        ") lie outside arena " + std::to_string(a.memory_id) + " of " + std::to_string(size) + " bytes");
    }
    void* p = memory[a.memory_id - 1].get() + a.memory_offset;
    // Arenas are 64-byte aligned, so this is the offset's alignment.
    if (!aligned_for(p, element)) {
      return load_error("memory_offset " + std::to_string(a.memory_offset) + " is not aligned for " +
                        std::to_string(element) + "-byte elements");
    }
    return p;
  }

  Status copy_initial(uint32_t index, void* data, uint64_t nbytes) {
    if (program.mutable_data_segments.empty()) return load_error("initial data without mutable_data_segments");
    const auto& ms = program.mutable_data_segments[0];
    if (index >= ms.offsets.size() || ms.segment_index >= program.segment_data.size()) {
      return load_error("mutable data " + std::to_string(index) + " out of range");
    }
    const ByteSpan segment = program.segment_data[ms.segment_index];
    if (!in_bounds(ms.offsets[index], nbytes, segment.size())) {
      return load_error("mutable data " + std::to_string(index) + " lies beyond its segment");
    }
    std::memcpy(data, segment.data() + ms.offsets[index], nbytes);
    return {};
  }

  Status make_value(size_t i, EValue& out) {
    return std::visit(
        [&](const auto& v) -> Status {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, pte::Null>) {
            out.tag = Tag::kNone;
          } else if constexpr (std::is_same_v<T, pte::Int>) {
            out.tag = Tag::kInt;
            out.i = v.value;
          } else if constexpr (std::is_same_v<T, pte::Bool>) {
            out.tag = Tag::kBool;
            out.b = v.value;
          } else if constexpr (std::is_same_v<T, pte::Double>) {
            out.tag = Tag::kDouble;
            out.d = v.value;
          } else if constexpr (std::is_same_v<T, pte::String>) {
            out.tag = Tag::kString;
            out.s = v.value;
          } else if constexpr (std::is_same_v<T, pte::Tensor>) {
            out.tag = Tag::kTensor;
            ETKIT_ASSIGN_OR_RETURN(out.tensor, make_tensor(v));
          } else if constexpr (std::is_same_v<T, pte::IntList>) {
            out.tag = Tag::kIntList;
            out.int_list = v.items;
          } else if constexpr (std::is_same_v<T, pte::DoubleList>) {
            out.tag = Tag::kDoubleList;
            out.double_list = v.items;
          } else if constexpr (std::is_same_v<T, pte::BoolList>) {
            out.tag = Tag::kBoolList;
            out.bool_list = &v.items;
          } else {
            const bool optional = std::is_same_v<T, pte::OptionalTensorList>;
            out.tag = optional ? Tag::kOptionalTensorList : Tag::kTensorList;
            auto& list = tensor_lists.emplace_back();
            for (int32_t item : v.items) {
              if (optional && item == -1) {
                list.push_back(nullptr);
                continue;
              }
              // Elements resolve while parsing, so they must come earlier.
              if (item < 0 || size_t(item) >= i) return load_error("list item " + std::to_string(item) + " is not an earlier value");
              const EValue& element = method.values()[size_t(item)];
              if (optional && element.tag == Tag::kNone) {
                list.push_back(nullptr);
              } else if (element.tag == Tag::kTensor) {
                list.push_back(element.tensor);
              } else {
                return load_error("list item " + std::to_string(item) + " is " + std::string(tag_name(element.tag)) +
                                  ", not a Tensor");
              }
            }
            out.tensor_list = list;
          }
          return {};
        },
        plan.values[i]);
  }
};

}  // namespace

Result<std::unique_ptr<LoadedMethod>> load_method(const pte::Program& program, std::string_view method_name,
                                                  const LoadOptions& options) {
  const pte::ExecutionPlan* plan = program.find_method(method_name);
  if (!plan) {
    std::string names;
    for (const auto& p : program.execution_plan) names += (names.empty() ? "" : ", ") + p.name;
    return load_error("no method '" + std::string(method_name) + "' (methods: " + names + ")");
  }
  const std::string where = "method '" + plan->name + "'";
  std::unique_ptr<LoadedMethod> method(new LoadedMethod());
  method->plan_ = plan;
  const KernelRegistry& kernels = options.kernels ? *options.kernels : portable_kernel_registry();

  if (plan->chains.empty()) return load_error("no chains", where);
  Loader loader{program, *plan, options, *method, method->memory_, method->arena_sizes_, method->tensors_,
                method->tensor_lists_};
  // Arenas: entry 0 of non_const_buffer_sizes is a placeholder.
  for (size_t k = 1; k < plan->non_const_buffer_sizes.size(); ++k) {
    const std::string field = where + "." + indexed("non_const_buffer_sizes", k);
    const int64_t size = plan->non_const_buffer_sizes[k];
    if (size < 0) return load_error("arena size " + std::to_string(size) + " is negative", field);
    auto arena = loader.allocate(uint64_t(size), "arena " + std::to_string(k));
    if (!arena) return std::move(arena).error().in(field);
    method->arena_sizes_.push_back(uint64_t(size));
  }

  method->values_.resize(plan->values.size());
  for (size_t i = 0; i < plan->values.size(); ++i) {
    auto s = loader.make_value(i, method->values_[i]);
    if (!s) return std::move(s).error().in(where + "." + indexed("values", i));
  }
  // Inputs are written by the caller: never into a constant.
  for (size_t k = 0; k < plan->inputs.size(); ++k) {
    const EValue& v = method->values_[size_t(plan->inputs[k])];
    if (v.tag == Tag::kTensor && v.tensor->read_only()) {
      return load_error("input " + std::to_string(k) + " is value " + std::to_string(plan->inputs[k]) +
                        ", a constant of the program", where + "." + indexed("inputs", k));
    }
  }

  // Delegates: every backend must be registered and initialise.
  const ProgramNamedData named_data(program, options.external_data);
  for (size_t d = 0; d < plan->delegates.size(); ++d) {
    const auto& delegate = plan->delegates[d];
    Backend* backend = options.backends ? options.backends->find(delegate.id) : nullptr;
    if (!backend) {
      // Which instructions need it, and how much of the method would run without it.
      std::vector<std::string> users;
      size_t total = 0;
      for (const auto& chain : plan->chains) {
        for (size_t i = 0; i < chain.instructions.size(); ++i, ++total) {
          const auto* call = std::get_if<pte::DelegateCall>(&chain.instructions[i]);
          if (call && call->delegate_index == int32_t(d)) users.push_back(std::to_string(i));
        }
      }
      std::string used_by = users.empty() ? ", called by no instruction" : users.size() == 1 ? ", used by instruction " : ", used by instructions ";
      for (size_t k = 0; k < users.size() && k < 8; ++k) used_by += (k ? ", " : "") + users[k];
      if (users.size() > 8) used_by += ", ...";
      used_by += "; " + std::to_string(total - users.size()) + " of the method's " + std::to_string(total) + " instructions do not need it";
      return unsupported("backend '" + delegate.id + "' is not registered (delegate " + std::to_string(d) + used_by +
                         "; et-run --list-backends names those it runs)", where);
    }
    const ByteSpan blob = delegate.location == pte::DataLocation::kInline ? program.backend_delegate_data[delegate.index]
                                                                          : program.segment_data[delegate.index];
    auto handle = backend->init(BackendInitContext{blob, delegate.compile_specs, &named_data});
    if (!handle) return std::move(handle).error().in(where + "." + indexed("delegates", d));
    method->delegate_handles_.push_back(std::move(handle).value());
    method->delegate_backends_.push_back(backend);
  }

  // Instructions: resolve kernels (collecting every missing one), build args.
  std::vector<std::string> missing;
  for (size_t c = 0; c < plan->chains.size(); ++c) {
    auto& compiled = method->chains_.emplace_back();
    for (size_t i = 0; i < plan->chains[c].instructions.size(); ++i) {
      const std::string iwhere = where + "." + indexed("chains", c) + "." + indexed("instructions", i);
      CompiledInstruction ci;
      auto to_args = [&](const std::vector<int32_t>& args) {
        std::vector<EValue*> out;
        for (int32_t a : args) out.push_back(&method->values_[size_t(a)]);
        return out;
      };
      const auto& instr = plan->chains[c].instructions[i];
      if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
        const pte::Operator& op = plan->operators[size_t(k->op_index)];
        ci.kind = CompiledInstruction::Kind::kKernel;
        ci.op_name = op.full_name();
        ci.kernel = kernels.find(ci.op_name);
        if (!ci.kernel) {
          if (std::find(missing.begin(), missing.end(), ci.op_name) == missing.end()) missing.push_back(ci.op_name);
        } else {
          if (ci.kernel->num_args >= 0 && size_t(ci.kernel->num_args) != k->args.size()) {
            return load_error(ci.op_name + " takes " + std::to_string(ci.kernel->num_args) + " argument slots, the program passes " +
                              std::to_string(k->args.size()), iwhere);
          }
          if (!ci.kernel->prim) ci.event_name = ci.kernel->custom ? ci.op_name : native_call_name(op);
          for (int slot : ci.kernel->out_args) {
            if (slot < 0 || size_t(slot) >= k->args.size()) continue;
            EValue& out = method->values_[size_t(k->args[size_t(slot)])];
            if (holds_read_only(out)) {
              return load_error(ci.op_name + " would write its output (value " + std::to_string(k->args[size_t(slot)]) +
                                ") into a constant of the program", iwhere);
            }
            ci.logged_outputs.push_back(&out);
          }
        }
        ci.args = to_args(k->args);
      } else if (const auto* dcall = std::get_if<pte::DelegateCall>(&instr)) {
        if (dcall->delegate_index < 0 || size_t(dcall->delegate_index) >= plan->delegates.size()) {
          return load_error("delegate_index " + std::to_string(dcall->delegate_index) + " out of range", iwhere);
        }
        ci.kind = CompiledInstruction::Kind::kDelegate;
        ci.delegate = size_t(dcall->delegate_index);
        ci.args = to_args(dcall->args);
        ci.logged_outputs = ci.args;  // the runtime logs every delegate argument
      } else if (const auto* m = std::get_if<pte::MoveCall>(&instr)) {
        ci.kind = CompiledInstruction::Kind::kMove;
        ci.a = m->move_from;
        ci.b = m->move_to;
      } else if (const auto* j = std::get_if<pte::JumpFalseCall>(&instr)) {
        ci.kind = CompiledInstruction::Kind::kJumpFalse;
        ci.a = j->cond_value_index;
        ci.b = j->destination_instruction;
      } else if (const auto* f = std::get_if<pte::FreeCall>(&instr)) {
        ci.kind = CompiledInstruction::Kind::kFree;
        ci.a = f->value_index;
        method->has_free_calls_ = true;
      }
      compiled.push_back(std::move(ci));
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    return unsupported(std::to_string(missing.size()) + " missing operator" + (missing.size() > 1 ? "s" : "") + ": " + list,
                       where);
  }
  method->context_ = std::make_unique<KernelContext>("", method->values_);
  return method;
}

}  // namespace etkit::rt
