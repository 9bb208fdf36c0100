#include "runner/kernel_registry.h"

#include <algorithm>
#include <mutex>

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

namespace {

bool by_name(const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; }

Error duplicate(const std::string& name) { return bad_input("kernel '" + name + "' is already registered"); }

Status check_callable(const KernelInfo& kernel) {
  if (kernel.name.empty() || !kernel.fn) return bad_input("a kernel needs a name and a function");
  return {};
}

}  // namespace

struct KernelRegistry::LazyGroup {
  KernelGroup build;
  std::once_flag once;
  KernelRegistry kernels;  // no lazy groups of its own

  KernelRegistry& built() {
    std::call_once(once, [this] {
      std::vector<KernelInfo> table = build();
      if (kernels.add_all(table)) return;
      // A table with a duplicate or an unnamed kernel keeps what it can, the
      // first of a name as between groups, rather than nothing (the portable
      // tables have neither: a unit test registers them eagerly).
      for (KernelInfo& kernel : table) (void)kernels.add(std::move(kernel));
    });
    return kernels;
  }
};

KernelRegistry::KernelRegistry() = default;
KernelRegistry::KernelRegistry(KernelRegistry&&) noexcept = default;
KernelRegistry& KernelRegistry::operator=(KernelRegistry&&) noexcept = default;
KernelRegistry::~KernelRegistry() = default;

void KernelRegistry::add_lazy(std::span<const KernelGroup> groups) {
  for (KernelGroup group : groups) {
    lazy_.push_back(std::make_unique<LazyGroup>());
    lazy_.back()->build = group;
  }
}

Status KernelRegistry::add_lazy_groups_now() {
  if (lazy_.empty()) return {};
  std::vector<KernelInfo> all;  // in the order find() searches them
  for (const auto& group : lazy_) {
    auto& built = group->built().kernels_;
    all.insert(all.end(), std::make_move_iterator(built.begin()), std::make_move_iterator(built.end()));
  }
  lazy_.clear();
  // What find() returned stays what it returns: of a name several groups
  // have, the first; of one added before too, that one.
  std::stable_sort(all.begin(), all.end(), by_name);
  std::vector<bool> keep(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    keep[i] = (i == 0 || all[i].name != all[i - 1].name) && !find_added(all[i].name);
  }
  std::vector<KernelInfo> visible;
  visible.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (keep[i]) visible.push_back(std::move(all[i]));
  }
  return add_all(std::move(visible));
}

size_t KernelRegistry::size() const { return lazy_.empty() ? kernels_.size() : names().size(); }

// Both refuse a duplicate before the lazy groups are moved in, so that a
// refused call changes nothing (what find() returned stays valid).
Status KernelRegistry::add(KernelInfo kernel) {
  ETKIT_TRY(check_callable(kernel));
  if (find(kernel.name)) return duplicate(kernel.name);
  ETKIT_TRY(add_lazy_groups_now());
  kernels_.insert(std::lower_bound(kernels_.begin(), kernels_.end(), kernel, by_name), std::move(kernel));
  return {};
}

Status KernelRegistry::add_all(std::vector<KernelInfo> unsorted) {
  for (const auto& kernel : unsorted) ETKIT_TRY(check_callable(kernel));
  // Sorted as (name, position) pairs, then each kernel moved once: cheaper
  // than swapping whole KernelInfos through the sort.
  std::vector<std::pair<std::string_view, uint32_t>> order(unsorted.size());
  for (size_t i = 0; i < unsorted.size(); ++i) order[i] = {unsorted[i].name, uint32_t(i)};
  std::sort(order.begin(), order.end());
  for (size_t i = 1; i < order.size(); ++i) {
    if (order[i].first == order[i - 1].first) return duplicate(std::string(order[i].first));
  }
  if (!lazy_.empty()) {
    for (const auto& [name, i] : order) {
      if (find(name)) return duplicate(std::string(name));
    }
    ETKIT_TRY(add_lazy_groups_now());
  }
  std::vector<KernelInfo> kernels;
  kernels.reserve(unsorted.size());
  for (const auto& [name, i] : order) kernels.push_back(std::move(unsorted[i]));
  if (kernels_.empty()) {
    kernels_ = std::move(kernels);
    return {};
  }
  // Clashes with what is already here are looked for before anything moves:
  // on one, this registry is left as it was.
  for (auto a = kernels_.begin(), b = kernels.begin(); a != kernels_.end() && b != kernels.end();) {
    if (a->name == b->name) return duplicate(b->name);
    if (a->name < b->name) ++a;
    else ++b;
  }
  std::vector<KernelInfo> merged;
  merged.reserve(kernels_.size() + kernels.size());
  auto a = kernels_.begin(), b = kernels.begin();
  while (a != kernels_.end() || b != kernels.end()) {
    const bool take_a = b == kernels.end() || (a != kernels_.end() && a->name < b->name);
    merged.push_back(take_a ? std::move(*a++) : std::move(*b++));
  }
  kernels_ = std::move(merged);
  return {};
}

const KernelInfo* KernelRegistry::find_added(std::string_view name) const {
  auto it = std::lower_bound(kernels_.begin(), kernels_.end(), name,
                             [](const KernelInfo& k, std::string_view n) { return k.name < n; });
  return it == kernels_.end() || it->name != name ? nullptr : &*it;
}

const KernelInfo* KernelRegistry::find(std::string_view name) const {
  if (const KernelInfo* kernel = find_added(name)) return kernel;
  for (const auto& group : lazy_) {
    if (const KernelInfo* kernel = group->built().find_added(name)) return kernel;
  }
  return nullptr;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(kernels_.size());
  for (const auto& kernel : kernels_) out.push_back(kernel.name);
  for (const auto& group : lazy_) {
    for (const auto& kernel : group->built().kernels_) out.push_back(kernel.name);
  }
  if (!lazy_.empty()) {
    // As find() sees them: a name shadowed by an earlier one counts once.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

const KernelRegistry& portable_kernel_registry() {
  // Never destroyed: tearing down hundreds of kernels at every exit is
  // start-up's cost paid again at the end, for nothing.
  static const KernelRegistry& registry = *[] {
    auto* r = new KernelRegistry;
    r->add_lazy(portable_kernel_groups());
    return r;
  }();
  return registry;
}

}  // namespace etkit::rt
