// The kernel registry: operators looked up by "namespace::name.overload"
// (pte_spec.md §4.7). One explicit table per kernel library, registered in
// code (no static constructors); duplicates are rejected. Users add custom
// operators through the same API without editing the runner.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "libcore/support/result.h"
#include "runner/constant_cache.h"
#include "runner/evalue.h"

namespace etkit::rt {

// What a kernel sees: its name (for messages), the method's values (to
// read boxed IntLists) and the method's cache of data derived from its
// constants (constant_cache.h).
class KernelContext {
 public:
  KernelContext(std::string_view op_name, std::span<EValue> values) : op_name_(op_name), values_(values) {}
  std::string_view op_name() const { return op_name_; }
  // The integers of an IntList value, read now (into reusable scratch).
  Result<std::span<const int64_t>> int_list(const EValue& list, std::string_view what);
  // A runtime error naming this operator: "aten::add.out: <message>".
  Error fail(std::string_view message) const;
  // Lives as long as the context: one per loaded method.
  ConstantCache& constant_cache() { return constant_cache_; }

 private:
  std::string_view op_name_;
  std::span<EValue> values_;
  ConstantCache constant_cache_;
  std::vector<int64_t> scratch_[6];  // up to six IntLists read in one call
  size_t next_scratch_ = 0;
  friend class Executor;
  void begin_call(std::string_view op_name) {
    op_name_ = op_name;
    next_scratch_ = 0;
  }
};

// A kernel gets the instruction's arguments, schema order, return slot last.
using KernelFn = std::function<Status(KernelContext&, std::span<EValue* const> args)>;

struct KernelInfo {
  std::string name;  // "aten::add.out"
  KernelFn fn;
  // Argument slots the program must pass (schema arguments + 1 return slot);
  // -1 accepts any count.
  int num_args = -1;
  // Slots of the `out` arguments in schema order: logged as intermediate
  // outputs. For functional ops, the return slot.
  std::vector<int> out_args;
  // Prim ops (symbolic sizes, scalar arithmetic) get only OPERATOR_CALL in
  // the ETDump (no native_call_ event, no debug events).
  bool prim = false;
  // Custom-op kernels (like ExecuTorch's EXECUTORCH_LIBRARY ones) are
  // profiled under their full name instead of "native_call_<op>".
  bool custom = false;
};

// Kept as one vector sorted by name, looked up by binary search: built in
// one sort rather than node by node, as et-run does in every process
// (docs/performance.md, "et-run start-up"). A pointer from find() stays
// valid until the registry is next changed.
class KernelRegistry {
 public:
  Status add(KernelInfo kernel);
  // Many at once (one sort); on a duplicate or an unnamed kernel nothing is
  // added.
  Status add_all(std::vector<KernelInfo> kernels);
  const KernelInfo* find(std::string_view name) const;
  size_t size() const { return kernels_.size(); }
  std::vector<std::string> names() const;  // sorted

 private:
  std::vector<KernelInfo> kernels_;  // sorted by name, names unique
};

// The portable kernels and prim ops that ship with etkit.
Status register_portable_kernels(KernelRegistry& registry);

// A registry with the portable kernels (and nothing else).
const KernelRegistry& portable_kernel_registry();

}  // namespace etkit::rt
