#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> cortex_m_kernels() {
  std::vector<KernelInfo> table;
  for (auto add : {cortex_m::add_quantize_kernels, cortex_m::add_elementwise_kernels, cortex_m::add_softmax_kernels,
                   cortex_m::add_layout_kernels, cortex_m::add_matmul_kernels, cortex_m::add_conv_kernels,
                   cortex_m::add_pool_kernels}) {
    add(table);
  }
  return table;
}

}  // namespace etkit::rt::kernels
