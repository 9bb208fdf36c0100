// The math group's operator families, each adding its kernels to the table.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels {

void add_unary_kernels(std::vector<KernelInfo>& table);
void add_activation_kernels(std::vector<KernelInfo>& table);
void add_softmax_kernels(std::vector<KernelInfo>& table);
void add_reduction_kernels(std::vector<KernelInfo>& table);
void add_comparison_kernels(std::vector<KernelInfo>& table);

}  // namespace etkit::rt::kernels
