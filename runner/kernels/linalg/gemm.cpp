#include "runner/kernels/linalg/gemm.h"

#include <algorithm>
#include <vector>

namespace etkit::rt::kernels {
namespace {

constexpr int64_t kMr = 4;    // rows of C per micro-tile
constexpr int64_t kNr = 16;   // columns of C per micro-tile (two AVX vectors, or four SSE)
constexpr int64_t kKc = 256;  // depth of a packed block
constexpr int64_t kMc = 64;   // rows of A per packed block
constexpr int64_t kNc = 1024; // columns of B per packed block

// Packs A[i0:i0+mc, p0:p0+kc] into kMr-row panels, k-major, zero-padded.
void pack_a(const MatrixView& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
  for (int64_t i = 0; i < mc; i += kMr) {
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t r = 0; r < kMr; ++r) {
        *out++ = (i + r < mc) ? a.data[(i0 + i + r) * a.row_stride + (p0 + p) * a.col_stride] : 0.0f;
      }
    }
  }
}

// Packs B[p0:p0+kc, j0:j0+nc] into kNr-column panels, k-major, zero-padded.
void pack_b(const MatrixView& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t j = 0; j < nc; j += kNr) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* row = b.data + (p0 + p) * b.row_stride;
      for (int64_t c = 0; c < kNr; ++c) {
        *out++ = (j + c < nc) ? row[(j0 + j + c) * b.col_stride] : 0.0f;
      }
    }
  }
}

// acc[kMr][kNr] = sum_p a[p][r] * b[p][c] over packed panels.
inline void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b, float* __restrict acc) {
  float t[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const float* bp = b + p * kNr;
    for (int64_t r = 0; r < kMr; ++r) {
      const float ar = a[p * kMr + r];
      for (int64_t c = 0; c < kNr; ++c) t[r][c] += ar * bp[c];
    }
  }
  for (int64_t r = 0; r < kMr; ++r) {
    for (int64_t c = 0; c < kNr; ++c) acc[r * kNr + c] = t[r][c];
  }
}

}  // namespace

void sgemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixView a, MatrixView b, float beta, float* c,
           int64_t ldc) {
  // Scale C by beta first; the blocks then accumulate into it.
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f) {
      std::fill(row, row + n, 0.0f);
    } else if (beta != 1.0f) {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
  if (k == 0 || m == 0 || n == 0) return;
  // Packing buffers are thread-local and grow once: no allocation per call
  // after the first.
  thread_local std::vector<float> packed_a, packed_b;
  packed_a.resize(size_t((kMc + kMr) * kKc));
  packed_b.resize(size_t((kNc + kNr) * kKc));
  alignas(64) float acc[kMr * kNr];
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      pack_b(b, p0, kc, j0, nc, packed_b.data());
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t mc = std::min(kMc, m - i0);
        pack_a(a, i0, mc, p0, kc, packed_a.data());
        for (int64_t j = 0; j < nc; j += kNr) {
          for (int64_t i = 0; i < mc; i += kMr) {
            micro_kernel(kc, packed_a.data() + i * kc, packed_b.data() + j * kc, acc);
            const int64_t rows = std::min(kMr, mc - i), cols = std::min(kNr, nc - j);
            for (int64_t r = 0; r < rows; ++r) {
              float* out = c + (i0 + i + r) * ldc + j0 + j;
              for (int64_t col = 0; col < cols; ++col) out[col] += alpha * acc[r * kNr + col];
            }
          }
        }
      }
    }
  }
}

}  // namespace etkit::rt::kernels
