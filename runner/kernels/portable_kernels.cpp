#include "runner/kernels/kernel_groups.h"

namespace etkit::rt {

Status register_portable_kernels(KernelRegistry& registry) {
  for (auto group : {kernels::arithmetic_kernels, kernels::math_kernels, kernels::linalg_kernels,
                     kernels::shape_kernels, kernels::prim_kernels,
                     kernels::quantized_kernels, kernels::cortex_m_kernels, kernels::cadence_kernels}) {
    for (auto& kernel : group()) ETKIT_TRY(registry.add(std::move(kernel)));
  }
  return {};
}

}  // namespace etkit::rt
