#include "runner/kernels/kernel_groups.h"

namespace etkit::rt {

std::span<const KernelGroup> portable_kernel_groups() {
  // The order a lazy registry builds them in as lookups reach them: the
  // groups most programs need, cheapest first, then the operator libraries
  // of backends' flows, which only their programs call (cadence's table
  // costs about as much as the aten groups' together).
  static constexpr KernelGroup kGroups[] = {
      kernels::arithmetic_kernels, kernels::linalg_kernels,   kernels::shape_kernels,
      kernels::math_kernels,       kernels::prim_kernels,     kernels::quantized_kernels,
      kernels::cortex_m_kernels,   kernels::cadence_kernels,
  };
  return kGroups;
}

Status register_portable_kernels(KernelRegistry& registry) {
  // Gathered into one table and added in one sort (kernel_registry.h).
  std::vector<KernelInfo> all;
  all.reserve(512);
  for (KernelGroup group : portable_kernel_groups()) {
    auto table = group();
    all.insert(all.end(), std::make_move_iterator(table.begin()), std::make_move_iterator(table.end()));
  }
  return registry.add_all(std::move(all));
}

}  // namespace etkit::rt
