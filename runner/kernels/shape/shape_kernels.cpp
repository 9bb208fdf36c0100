#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> shape_kernels() {
  std::vector<KernelInfo> table;
  add_view_kernels(table);
  add_fill_kernels(table);
  return table;
}

}  // namespace etkit::rt::kernels
