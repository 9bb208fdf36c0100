#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> shape_kernels() { return {}; }

}  // namespace etkit::rt::kernels
