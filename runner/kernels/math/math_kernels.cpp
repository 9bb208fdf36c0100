#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> math_kernels() { return {}; }

}  // namespace etkit::rt::kernels
