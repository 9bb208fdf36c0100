#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_kernels.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> math_kernels() {
  std::vector<KernelInfo> table;
  for (auto add : {math::add_unary_kernels, math::add_activation_kernels, math::add_glu_kernels,
                   math::add_softmax_kernels, math::add_sum_kernels, math::add_extreme_kernels, math::add_any_kernels,
                   math::add_cumsum_kernels, math::add_comparison_kernels, math::add_maximum_kernels,
                   math::add_where_kernels, math::add_pow_kernels, math::add_remainder_kernels,
                   math::add_bitwise_kernels, math::add_atan2_kernels, math::add_topk_kernels,
                   math::add_floor_divide_kernels, math::add_rsub_kernels,
                   math::add_distance_kernels}) {
    add(table);
  }
  return table;
}

}  // namespace etkit::rt::kernels
