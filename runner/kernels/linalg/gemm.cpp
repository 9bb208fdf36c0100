#include "runner/kernels/linalg/gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runner/kernels/linalg/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ETKIT_GEMM_AVX2 1
#endif

namespace etkit::rt::kernels::linalg {
namespace {

constexpr int64_t kMr = 6;    // rows of C per micro-tile (12 AVX2 accumulators)
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
void pack_b_strided(const MatrixView& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t j = 0; j < nc; j += kNr) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* row = b.data + (p0 + p) * b.row_stride;
      for (int64_t c = 0; c < kNr; ++c) {
        *out++ = (j + c < nc) ? row[(j0 + j + c) * b.col_stride] : 0.0f;
      }
    }
  }
}

// The same for contiguous rows: a full panel's rows are copied whole (the
// element loop above was most of a shallow convolution's time). Kept apart
// from it: with both in one loop GCC compiled the strided case about a
// quarter slower (a fully connected layer's transposed weights).
void pack_b_rows(const MatrixView& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  const int64_t full = nc / kNr * kNr;
  for (int64_t j = 0; j < full; j += kNr) {
    for (int64_t p = 0; p < kc; ++p, out += kNr) {
      std::memcpy(out, b.data + (p0 + p) * b.row_stride + j0 + j, kNr * sizeof(float));
    }
  }
  if (full < nc) pack_b_strided(b, p0, kc, j0 + full, nc - full, out);
}

void pack_b(const MatrixView& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  if (b.col_stride == 1) {
    pack_b_rows(b, p0, kc, j0, nc, out);
  } else {
    pack_b_strided(b, p0, kc, j0, nc, out);
  }
}

// acc[kMr][kNr] = sum_p a[p][r] * b[p][c] over packed panels: the portable
// version, for CPUs without AVX2/FMA. With GCC/Clang vector extensions it
// works on two 6x8 halves of the tile so that the twelve 4-lane
// accumulators fit the sixteen SSE registers (about 26 GFLOP/s on the
// 512^3 product here, against 3.5 for the auto-vectorised loop, which
// spills at -O3).
#if defined(__GNUC__)
typedef float Float4 __attribute__((vector_size(16)));
inline Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store4(float* p, Float4 v) { std::memcpy(p, &v, sizeof v); }

inline void micro_kernel_portable(int64_t kc, const float* __restrict a, const float* __restrict b,
                                  float* __restrict acc) {
  static_assert(kMr == 6 && kNr == 16, "the register tile below is 6 x (2 x 8)");
  for (int64_t half = 0; half < kNr; half += 8) {
    Float4 c[kMr][2] = {};
    for (int64_t p = 0; p < kc; ++p) {
      const Float4 b0 = load4(b + p * kNr + half), b1 = load4(b + p * kNr + half + 4);
      const float* ap = a + p * kMr;
      for (int64_t r = 0; r < kMr; ++r) {
        const Float4 x = Float4{} + ap[r];
        c[r][0] += x * b0;
        c[r][1] += x * b1;
      }
    }
    for (int64_t r = 0; r < kMr; ++r) {
      store4(acc + r * kNr + half, c[r][0]);
      store4(acc + r * kNr + half + 4, c[r][1]);
    }
  }
}
#else
inline void micro_kernel_portable(int64_t kc, const float* __restrict a, const float* __restrict b,
                                  float* __restrict acc) {
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
#endif

#ifdef ETKIT_GEMM_AVX2
// The same with the 6x16 tile held in twelve ymm registers and fused
// multiply-add; only called after a CPU check.
// With `c` set (a full tile) it adds alpha * tile into C directly, or
// stores it when `overwrite` (the first depth block of a beta = 0 product,
// so C is never zero-filled first): for the shallow products of
// convolutions (depth 25 or 27) a round trip through `acc` and a scalar
// update cost about as much as the products themselves.
__attribute__((target("avx2,fma"))) inline void micro_kernel_avx2(int64_t kc, const float* __restrict a,
                                                                    const float* __restrict b, float* __restrict acc,
                                                                    float* __restrict c, int64_t ldc, float alpha,
                                                                    bool overwrite) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b + p * kNr), b1 = _mm256_loadu_ps(b + p * kNr + 8);
    const float* ap = a + p * kMr;
    __m256 x = _mm256_broadcast_ss(ap + 0);
    c00 = _mm256_fmadd_ps(x, b0, c00);
    c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(ap + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10);
    c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(ap + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20);
    c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(ap + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30);
    c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(ap + 4);
    c40 = _mm256_fmadd_ps(x, b0, c40);
    c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(ap + 5);
    c50 = _mm256_fmadd_ps(x, b0, c50);
    c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  if (c) {
    const __m256 va = _mm256_set1_ps(alpha);
    const __m256 t[kMr][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int64_t r = 0; r < kMr; ++r) {
      float* row = c + r * ldc;
      if (overwrite) {
        _mm256_storeu_ps(row, _mm256_mul_ps(va, t[r][0]));
        _mm256_storeu_ps(row + 8, _mm256_mul_ps(va, t[r][1]));
      } else {
        _mm256_storeu_ps(row, _mm256_fmadd_ps(va, t[r][0], _mm256_loadu_ps(row)));
        _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(va, t[r][1], _mm256_loadu_ps(row + 8)));
      }
    }
    return;
  }
  _mm256_storeu_ps(acc + 0, c00);
  _mm256_storeu_ps(acc + 8, c01);
  _mm256_storeu_ps(acc + 16, c10);
  _mm256_storeu_ps(acc + 24, c11);
  _mm256_storeu_ps(acc + 32, c20);
  _mm256_storeu_ps(acc + 40, c21);
  _mm256_storeu_ps(acc + 48, c30);
  _mm256_storeu_ps(acc + 56, c31);
  _mm256_storeu_ps(acc + 64, c40);
  _mm256_storeu_ps(acc + 72, c41);
  _mm256_storeu_ps(acc + 80, c50);
  _mm256_storeu_ps(acc + 88, c51);
}
#endif

struct Problem {
  int64_t m, n, k;
  float alpha;
  bool overwrite;  // beta == 0: the first depth block stores rather than adds
  MatrixView a, b;
  float* c;
  int64_t ldc;
};

// One depth block's sums into a row of C. Shared by the blocked loops and
// the single-row path so that both round the same way.
__attribute__((always_inline)) inline void update_row(float* out, const float* acc, int64_t cols, float alpha,
                                                      bool overwrite) {
  if (overwrite) {
    for (int64_t col = 0; col < cols; ++col) out[col] = alpha * acc[col];
  } else {
    for (int64_t col = 0; col < cols; ++col) out[col] += alpha * acc[col];
  }
}

#ifdef ETKIT_GEMM_AVX2
// acc[col] = sum over p of a[p * sa] * b[p * sb + col] by fused multiply-adds
// from zero, p in increasing order: what micro_kernel_avx2 computes for
// each element of its tile.
__attribute__((target("avx2,fma"))) inline void row_sums_avx2(int64_t kc, const float* a, int64_t sa, const float* b,
                                                                int64_t sb, int64_t cols, float* acc) {
  int64_t col = 0;
  for (; col + 8 <= cols; col += 8) {
    __m256 sum = _mm256_setzero_ps();
    for (int64_t p = 0; p < kc; ++p) {
      sum = _mm256_fmadd_ps(_mm256_broadcast_ss(a + p * sa), _mm256_loadu_ps(b + p * sb + col), sum);
    }
    _mm256_storeu_ps(acc + col, sum);
  }
  for (; col < cols; ++col) {
    float sum = 0;
    for (int64_t p = 0; p < kc; ++p) sum = __builtin_fmaf(a[p * sa], b[p * sb + col], sum);
    acc[col] = sum;
  }
}
#endif

// A single row of A with B's rows contiguous (addmm on a batch of one, as
// LeNet's fully connected layers): the blocked loops would pack B and run
// the 6-row tile on five rows of zeros, 1.4x the time of ExecuTorch's
// portable loop on the [1, 84] @ [84, 10] layer. Here B is read in place.
// Each element of C gets the same operations in the same order as in the
// blocked loops (per depth block a sum from zero over p in increasing order,
// fused multiply-adds under kFma, then the same update of C), so the bits
// are the same.
template <bool kFma>
__attribute__((always_inline)) inline void single_row(const Problem& pr) {
  alignas(64) float acc[kNr];
  const int64_t sa = pr.a.col_stride, sb = pr.b.row_stride;
  for (int64_t p0 = 0; p0 < pr.k; p0 += kKc) {
    const int64_t kc = std::min(kKc, pr.k - p0);
    const float* a = pr.a.data + p0 * sa;
    const float* b = pr.b.data + p0 * sb;
    for (int64_t j = 0; j < pr.n; j += kNr, b += kNr) {
      const int64_t cols = std::min(kNr, pr.n - j);
#ifdef ETKIT_GEMM_AVX2
      if constexpr (kFma) row_sums_avx2(kc, a, sa, b, sb, cols, acc);
#endif
      if constexpr (!kFma) {
        for (int64_t col = 0; col < cols; ++col) {
          float sum = 0;
          for (int64_t p = 0; p < kc; ++p) sum += a[p * sa] * b[p * sb + col];
          acc[col] = sum;
        }
      }
      update_row(pr.c + j, acc, cols, pr.alpha, pr.overwrite && p0 == 0);
    }
  }
}

template <bool kFma>
__attribute__((always_inline)) inline void blocks(const Problem& pr) {
  // Packing buffers are thread-local and grow once: no allocation per call
  // after the first.
  thread_local std::vector<float> packed_a, packed_b;
  packed_a.resize(size_t((kMc + kMr) * kKc));
  packed_b.resize(size_t((kNc + kNr) * kKc));
  alignas(64) float acc[kMr * kNr];
  for (int64_t j0 = 0; j0 < pr.n; j0 += kNc) {
    const int64_t nc = std::min(kNc, pr.n - j0);
    for (int64_t p0 = 0; p0 < pr.k; p0 += kKc) {
      const int64_t kc = std::min(kKc, pr.k - p0);
      pack_b(pr.b, p0, kc, j0, nc, packed_b.data());
      for (int64_t i0 = 0; i0 < pr.m; i0 += kMc) {
        const int64_t mc = std::min(kMc, pr.m - i0);
        pack_a(pr.a, i0, mc, p0, kc, packed_a.data());
        for (int64_t j = 0; j < nc; j += kNr) {
          for (int64_t i = 0; i < mc; i += kMr) {
#ifdef ETKIT_GEMM_AVX2
            if constexpr (kFma) {
              const bool full = i + kMr <= mc && j + kNr <= nc;
              float* c_tile = pr.c + (i0 + i) * pr.ldc + j0 + j;
              micro_kernel_avx2(kc, packed_a.data() + i * kc, packed_b.data() + j * kc, acc, full ? c_tile : nullptr,
                                pr.ldc, pr.alpha, pr.overwrite && p0 == 0);
              if (full) continue;
            } else {
              micro_kernel_portable(kc, packed_a.data() + i * kc, packed_b.data() + j * kc, acc);
            }
#else
            micro_kernel_portable(kc, packed_a.data() + i * kc, packed_b.data() + j * kc, acc);
#endif
            const int64_t rows = std::min(kMr, mc - i), cols = std::min(kNr, nc - j);
            for (int64_t r = 0; r < rows; ++r) {
              update_row(pr.c + (i0 + i + r) * pr.ldc + j0 + j, acc + r * kNr, cols, pr.alpha, pr.overwrite && p0 == 0);
            }
          }
        }
      }
    }
  }
}

#ifdef ETKIT_GEMM_AVX2
// The same loops compiled for AVX2 with fused multiply-add; chosen at run
// time when the CPU has both (the default build targets baseline x86-64).
__attribute__((target("avx2,fma"))) void blocks_avx2_fma(const Problem& pr) { blocks<true>(pr); }
__attribute__((target("avx2,fma"))) void single_row_avx2_fma(const Problem& pr) { single_row<true>(pr); }
#endif

}  // namespace

void sgemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixView a, MatrixView b, float beta, float* c,
           int64_t ldc) {
  // Scale C by beta first; the blocks then accumulate into it. With beta
  // 0 and some depth the first depth block overwrites C instead.
  const bool overwrite = beta == 0.0f && k > 0;
  for (int64_t i = 0; i < m && !overwrite; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f) {
      std::fill(row, row + n, 0.0f);
    } else if (beta != 1.0f) {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
  if (k == 0 || m == 0 || n == 0) return;
  const Problem problem{m, n, k, alpha, overwrite, a, b, c, ldc};
  const bool row = m == 1 && b.col_stride == 1;
#ifdef ETKIT_GEMM_AVX2
  if (cpu_has_avx2_fma()) {
    if (row) single_row_avx2_fma(problem);
    else blocks_avx2_fma(problem);
    return;
  }
#endif
  if (row) single_row<false>(problem);
  else blocks<false>(problem);
}

}  // namespace etkit::rt::kernels::linalg
