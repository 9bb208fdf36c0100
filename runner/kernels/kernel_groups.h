// The portable kernel library, by group. Each group lives in its own folder
// under runner/kernels/ (one op_<name>.cpp per operator family) and returns
// its table; register_portable_kernels() adds them all, rejecting
// duplicates.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> arithmetic_kernels();  // add, sub, mul, div
std::vector<KernelInfo> math_kernels();        // unary math, activations, softmax, reductions, comparisons
std::vector<KernelInfo> linalg_kernels();      // mm, bmm, addmm, convolution, pooling, normalisation
std::vector<KernelInfo> shape_kernels();       // views/copies, cat/split, indexing, fills, dim-order ops
std::vector<KernelInfo> prim_kernels();        // symbolic sizes and scalar arithmetic

}  // namespace etkit::rt::kernels
