#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> prim_kernels() { return {}; }

}  // namespace etkit::rt::kernels
