// Copying every second float (dst[j] = src[2 j]) with vector shuffles: the
// im2col of a stride-2 convolution is mostly this, and element by element
// it cost as much as the GEMM after it (the 224x224 RGB stem).
#pragma once

#include <cstdint>

namespace etkit::rt::kernels::linalg {

// Reads src[0 .. 2 n - 2] only.
void copy_stride2(const float* src, float* dst, int64_t n);

}  // namespace etkit::rt::kernels::linalg
