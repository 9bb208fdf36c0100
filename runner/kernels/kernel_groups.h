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
// Operator libraries of backends' ahead-of-time flows, run on the host:
std::vector<KernelInfo> quantized_kernels();   // quantized_decomposed:: (torch.ao's reference quant ops)
std::vector<KernelInfo> cortex_m_kernels();    // cortex_m:: (CMSIS-NN semantics, bit-exact)
std::vector<KernelInfo> cadence_kernels();     // cadence:: (the Cadence backend's generic reference ops)

}  // namespace etkit::rt::kernels
