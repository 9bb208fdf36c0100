// The linalg group's operator families, each adding its kernels to the table.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

// Own namespace per group: the same helper name in two groups would
// otherwise be an ODR violation the linker resolves silently.
namespace etkit::rt::kernels::linalg {

void add_matmul_kernels(std::vector<KernelInfo>& table);
void add_convolution_kernels(std::vector<KernelInfo>& table);
void add_pooling_kernels(std::vector<KernelInfo>& table);
void add_normalization_kernels(std::vector<KernelInfo>& table);
void add_upsample_kernels(std::vector<KernelInfo>& table);
void add_grid_sampler_kernels(std::vector<KernelInfo>& table);
void add_convolution_backward_kernels(std::vector<KernelInfo>& table);

}  // namespace etkit::rt::kernels::linalg
