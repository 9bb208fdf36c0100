#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> quantized_kernels() {
  std::vector<KernelInfo> table;
  return table;
}

}  // namespace etkit::rt::kernels
