#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> cortex_m_kernels() {
  std::vector<KernelInfo> table;
  return table;
}

}  // namespace etkit::rt::kernels
