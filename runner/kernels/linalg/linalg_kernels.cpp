#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/linalg/linalg_ops.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> linalg_kernels() {
  std::vector<KernelInfo> table;
  linalg::add_matmul_kernels(table);
  linalg::add_convolution_kernels(table);
  linalg::add_pooling_kernels(table);
  linalg::add_normalization_kernels(table);
  linalg::add_upsample_kernels(table);
  linalg::add_grid_sampler_kernels(table);
  linalg::add_convolution_backward_kernels(table);
  return table;
}

}  // namespace etkit::rt::kernels
