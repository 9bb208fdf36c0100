// The math group's operator families, one op_<name>.cpp each, adding their
// kernels to the group table. A nested namespace keeps these helpers apart
// from other groups' ones.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels::math {

void add_unary_kernels(std::vector<KernelInfo>& table);       // exp, log, relu, neg, round, logical_not, ...
void add_activation_kernels(std::vector<KernelInfo>& table);  // hardtanh, clamp, leaky_relu, gelu, silu, ...
void add_glu_kernels(std::vector<KernelInfo>& table);
void add_softmax_kernels(std::vector<KernelInfo>& table);     // _softmax, _log_softmax
void add_sum_kernels(std::vector<KernelInfo>& table);         // sum, mean, var, var_mean, prod
void add_extreme_kernels(std::vector<KernelInfo>& table);     // amax, amin, argmax, argmin, max/min (dim, unary)
void add_any_kernels(std::vector<KernelInfo>& table);         // any, all
void add_cumsum_kernels(std::vector<KernelInfo>& table);
void add_comparison_kernels(std::vector<KernelInfo>& table);  // eq..ge, logical_and/or/xor
void add_maximum_kernels(std::vector<KernelInfo>& table);     // maximum, minimum
void add_where_kernels(std::vector<KernelInfo>& table);
void add_pow_kernels(std::vector<KernelInfo>& table);
void add_remainder_kernels(std::vector<KernelInfo>& table);   // remainder, fmod
void add_bitwise_kernels(std::vector<KernelInfo>& table);     // bitwise_and/or/xor, bitwise shifts
void add_atan2_kernels(std::vector<KernelInfo>& table);
void add_topk_kernels(std::vector<KernelInfo>& table);
void add_floor_divide_kernels(std::vector<KernelInfo>& table);
void add_rsub_kernels(std::vector<KernelInfo>& table);
void add_distance_kernels(std::vector<KernelInfo>& table);  // _pdist_forward, _cdist_forward

}  // namespace etkit::rt::kernels::math
