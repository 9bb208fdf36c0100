// Single-precision matrix multiply used by mm/bmm/addmm and convolution:
//   C[m,n] = alpha * sum_k A[m,k] * B[k,n] + beta * C[m,n]
// with arbitrary row/column strides for A and B (so transposed operands and
// non-contiguous tensors need no copy) and a row-major C. Blocked for the
// caches, with a register-tiled inner kernel that GCC vectorises.
#pragma once

#include <cstdint>

namespace etkit::rt::kernels::linalg {

struct MatrixView {
  const float* data;
  int64_t row_stride;  // elements between rows
  int64_t col_stride;  // elements between columns
};

// beta == 0 ignores C's previous contents (NaN included).
void sgemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixView a, MatrixView b, float beta, float* c,
           int64_t ldc);

}  // namespace etkit::rt::kernels::linalg
