// The kernel registry: operators looked up by "namespace::name.overload"
// (pte_spec.md §4.7). One explicit table per kernel library, registered in
// code (no static constructors); duplicates are rejected. Users add custom
// operators through the same API without editing the runner.
#pragma once

#include <functional>
#include <memory>
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

// A kernel library's table (kernels/kernel_groups.h).
using KernelGroup = std::vector<KernelInfo> (*)();

// Kept as one vector sorted by name, looked up by binary search: built in
// one sort rather than node by node, as et-run does in every process
// (docs/performance.md, "et-run start-up"). A pointer from find() stays
// valid until the registry is next changed.
//
// Groups added with add_lazy() are built only when a lookup gets to them:
// building every table costs more than the rest of et-run's start-up, and a
// program needs few of them. find() searches the kernels added, then each
// group in the order given, building (and sorting) a group the first time it
// is reached, at most once even from several threads; a name two groups
// share is found in the first. size(), names() and an add() that succeeds
// build them all; a refused add() or add_all() changes nothing.
class KernelRegistry {
 public:
  KernelRegistry();
  KernelRegistry(KernelRegistry&&) noexcept;
  KernelRegistry& operator=(KernelRegistry&&) noexcept;
  ~KernelRegistry();

  Status add(KernelInfo kernel);
  // Many at once (one sort); on a duplicate or an unnamed kernel nothing is
  // added.
  Status add_all(std::vector<KernelInfo> kernels);
  void add_lazy(std::span<const KernelGroup> groups);
  const KernelInfo* find(std::string_view name) const;
  size_t size() const;
  std::vector<std::string> names() const;  // sorted

 private:
  struct LazyGroup;
  const KernelInfo* find_added(std::string_view name) const;
  // The groups not yet added, built now and added as add_all would.
  Status add_lazy_groups_now();

  std::vector<KernelInfo> kernels_;  // sorted by name, names unique
  std::vector<std::unique_ptr<LazyGroup>> lazy_;
};

// The portable kernels and prim ops that ship with etkit, by group, in the
// order a lazy registry searches them.
std::span<const KernelGroup> portable_kernel_groups();

// Adds every portable kernel now (duplicates across groups are refused).
Status register_portable_kernels(KernelRegistry& registry);

// A registry with the portable kernels (and nothing else), each group built
// at its first lookup.
const KernelRegistry& portable_kernel_registry();

}  // namespace etkit::rt
