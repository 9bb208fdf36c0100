#include "runner/kernel_registry.h"

namespace etkit::rt {

std::string_view tag_name(Tag tag) {
  switch (tag) {
    case Tag::kNone: return "None";
    case Tag::kInt: return "Int";
    case Tag::kDouble: return "Double";
    case Tag::kBool: return "Bool";
    case Tag::kString: return "String";
    case Tag::kTensor: return "Tensor";
    case Tag::kIntList: return "IntList";
    case Tag::kDoubleList: return "DoubleList";
    case Tag::kBoolList: return "BoolList";
    case Tag::kTensorList: return "TensorList";
    case Tag::kOptionalTensorList: return "OptionalTensorList";
  }
  return "?";
}

Error KernelContext::fail(std::string_view message) const {
  return Error{ErrorKind::kRuntime, {}, {}, std::string(op_name_) + ": " + std::string(message)};
}

Result<std::span<const int64_t>> KernelContext::int_list(const EValue& list, std::string_view what) {
  if (list.tag != Tag::kIntList) {
    return fail(std::string(what) + " must be an int list, not " + std::string(tag_name(list.tag)));
  }
  if (next_scratch_ == std::size(scratch_)) return fail("too many int lists in one call");
  auto& out = scratch_[next_scratch_++];
  out.resize(list.int_list.size());  // capacity persists: no allocation after the first run
  for (size_t k = 0; k < list.int_list.size(); ++k) {
    // Indices were range-checked at load; the type is checked here, at use.
    const EValue& item = values_[size_t(list.int_list[k])];
    if (item.tag != Tag::kInt) {
      return fail(std::string(what) + "[" + std::to_string(k) + "] is " + std::string(tag_name(item.tag)) +
                  ", not Int");
    }
    out[k] = item.i;
  }
  return std::span<const int64_t>(out);
}

Status KernelRegistry::add(KernelInfo kernel) {
  if (kernel.name.empty() || !kernel.fn) return bad_input("a kernel needs a name and a function");
  const std::string name = kernel.name;
  if (!kernels_.emplace(name, std::move(kernel)).second) {
    return bad_input("kernel '" + name + "' is already registered");
  }
  return {};
}

const KernelInfo* KernelRegistry::find(std::string_view name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : kernels_) out.push_back(name);
  return out;
}

const KernelRegistry& portable_kernel_registry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    auto status = register_portable_kernels(r);
    (void)status;  // the table is ours; duplicates are caught by a unit test
    return r;
  }();
  return registry;
}

}  // namespace etkit::rt
