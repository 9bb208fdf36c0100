// The quantized_decomposed:: families kept outside quantized_kernels.cpp.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels {

void add_quantized_arith_kernels(std::vector<KernelInfo>& table);  // add, mixed_mm, mixed_linear

}  // namespace etkit::rt::kernels
