#include "runner/kernels/kernel_groups.h"

namespace etkit::rt {

Status register_portable_kernels(KernelRegistry& registry) {
  // Gathered into one table and added in one sort (kernel_registry.h).
  std::vector<KernelInfo> all;
  for (auto group : {kernels::arithmetic_kernels, kernels::math_kernels, kernels::linalg_kernels,
                     kernels::shape_kernels, kernels::prim_kernels,
                     kernels::quantized_kernels, kernels::cortex_m_kernels, kernels::cadence_kernels}) {
    auto table = group();
    if (all.empty()) all.reserve(512);
    all.insert(all.end(), std::make_move_iterator(table.begin()), std::make_move_iterator(table.end()));
  }
  return registry.add_all(std::move(all));
}

}  // namespace etkit::rt
