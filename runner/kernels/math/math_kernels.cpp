#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> math_kernels() {
  std::vector<KernelInfo> table;
  add_unary_kernels(table);
  add_activation_kernels(table);
  add_softmax_kernels(table);
  add_reduction_kernels(table);
  add_comparison_kernels(table);
  return table;
}

}  // namespace etkit::rt::kernels
