// The cortex_m:: operator families; each op_<family>.cpp adds its kernels.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels::cortex_m {

void add_quantize_kernels(std::vector<KernelInfo>& table);     // quantize/dequantize_per_tensor
void add_elementwise_kernels(std::vector<KernelInfo>& table);  // quantized_add/mul/div, activation, maximum, minimum
void add_softmax_kernels(std::vector<KernelInfo>& table);      // softmax
void add_layout_kernels(std::vector<KernelInfo>& table);       // transpose, pad
void add_matmul_kernels(std::vector<KernelInfo>& table);       // quantized_linear, quantized_batch_matmul
void add_conv_kernels(std::vector<KernelInfo>& table);         // quantized_(depthwise_|transpose_)conv2d
void add_pool_kernels(std::vector<KernelInfo>& table);         // quantized_avg/max_pool2d

}  // namespace etkit::rt::kernels::cortex_m
