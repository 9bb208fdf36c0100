#include "runner/kernels/shape/transpose.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runner/kernels/linalg/cpu.h"
#include "runner/kernels/linalg/vec_f32.h"
#include "runner/kernels/stream_store.h"

namespace etkit::rt::kernels {
namespace {

// A tile covers up to kTileBytesI bytes of each source row (along i) and
// as many destination columns (along j) as keep it within kTileBytes on
// each side, so that both sides of a tile stay in a 32 KiB L1 together.
// When one side has few rows (16 channels of NCHW <-> NHWC), the tile runs
// longer along the other: each of those few rows then gets long runs of
// whole cache lines (rows 1 MiB apart share cache sets, and runs of 128
// bytes were measured to cost 40% more than runs of 512).
constexpr int64_t kTileBytesI = 512;
constexpr int64_t kTileBytes = 8192;

// 4-byte transposes whose destination holds kStreamBytes or more
// (stream_store.h) are written with streaming stores, eight destination
// rows at a time across all columns: each of those rows is then written in
// full cache lines, straight to memory without first reading them, which
// took the 4M-float NCHW <-> NHWC copies from about half of memcpy's rate to
// about its rate, in both instruction sets. Eight rows keep each row's
// partial line in a write-combining buffer until it is full (sixteen rows
// were 2.5x slower than cached stores).

namespace lanes {
// 4x4 of 4-byte and 2x2 of 8-byte elements with the compiler's vector
// extension (SSE2 on x86-64, whatever the target has elsewhere).
struct Lanes4 {
  typedef uint32_t V __attribute__((vector_size(16)));
  static constexpr int64_t kK = 4;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    V r[4];
    for (int k = 0; k < 4; ++k) std::memcpy(&r[k], src + k * scb, 16);
    const V t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5);
    const V t1 = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
    const V t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5);
    const V t3 = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
    const V c[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5), __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                    __builtin_shufflevector(t1, t3, 0, 1, 4, 5), __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
    for (int k = 0; k < 4; ++k) std::memcpy(dst + k * drb, &c[k], 16);
  }
};
struct Lanes8 {
  typedef uint64_t V __attribute__((vector_size(16)));
  static constexpr int64_t kK = 2;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    V r0, r1;
    std::memcpy(&r0, src, 16);
    std::memcpy(&r1, src + scb, 16);
    const V c0 = __builtin_shufflevector(r0, r1, 0, 2), c1 = __builtin_shufflevector(r0, r1, 1, 3);
    std::memcpy(dst, &c0, 16);
    std::memcpy(dst + drb, &c1, 16);
  }
};

}  // namespace lanes

#ifdef ETKIT_VEC_X86
ETKIT_AVX2_FMA_BEGIN
namespace avx2 {

// 8 source rows of 8 floats in, 8 destination rows out.
struct Block4 {
  static constexpr int64_t kK = 8;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    __m256 r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + k * scb));
    linalg::vec::Avx2::transpose(r);
    for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(dst + k * drb), r[k]);
  }
};

// 4 source rows of 4 8-byte elements: pairs interleaved, then the 128-bit
// halves exchanged.
struct Block8 {
  static constexpr int64_t kK = 4;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    __m256d r[4];
    for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(src + k * scb));
    const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    _mm256_storeu_pd(reinterpret_cast<double*>(dst), _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + drb), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + 2 * drb), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + 3 * drb), _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};

#include "runner/kernels/shape/transpose_tiles.inc"

// Destination rows [i, i + 8) over columns [0, jb) (jb a multiple of 8)
// in 8x8 blocks, streamed: whole vectors when every row start is 32-byte
// aligned, else (16-byte aligned) in halves.
template <bool kAligned32>
void stream_rows8(float* dst, int64_t dst_row, const float* src, int64_t src_col, int64_t i, int64_t jb) {
  for (int64_t j = 0; j < jb; j += 8) {
    __m256 r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + i + (j + k) * src_col);
    linalg::vec::Avx2::transpose(r);
    for (int k = 0; k < 8; ++k) {
      float* d = dst + (i + k) * dst_row + j;
      if constexpr (kAligned32) {
        _mm256_stream_ps(d, r[k]);
      } else {
        _mm_stream_ps(d, _mm256_castps256_ps128(r[k]));
        _mm_stream_ps(d + 4, _mm256_extractf128_ps(r[k], 1));
      }
    }
  }
}
}  // namespace avx2
ETKIT_AVX2_FMA_END
#endif  // ETKIT_VEC_X86

namespace baseline {

#ifdef ETKIT_VEC_X86
// 8 rows of 8 2-byte elements: 16-, 32-, then 64-bit interleaves.
struct Block2 {
  static constexpr int64_t kK = 8;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    __m128i r[8], a[8], b[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k * scb));
    for (int k = 0; k < 8; k += 2) {
      a[k] = _mm_unpacklo_epi16(r[k], r[k + 1]);      // columns 0-3 of rows k, k+1
      a[k + 1] = _mm_unpackhi_epi16(r[k], r[k + 1]);  // columns 4-7
    }
    for (int k = 0; k < 8; k += 4) {
      b[k] = _mm_unpacklo_epi32(a[k], a[k + 2]);          // columns 0, 1 of rows k..k+3
      b[k + 1] = _mm_unpackhi_epi32(a[k], a[k + 2]);      // 2, 3
      b[k + 2] = _mm_unpacklo_epi32(a[k + 1], a[k + 3]);  // 4, 5
      b[k + 3] = _mm_unpackhi_epi32(a[k + 1], a[k + 3]);  // 6, 7
    }
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * k * drb), _mm_unpacklo_epi64(b[k], b[k + 4]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * k + 1) * drb), _mm_unpackhi_epi64(b[k], b[k + 4]));
    }
  }
};

// 8 rows of 8 bytes (64-bit loads): 8-, 16-, then 32-bit interleaves leave
// two destination rows in each register.
struct Block1 {
  static constexpr int64_t kK = 8;
  static void run(uint8_t* dst, int64_t drb, const uint8_t* src, int64_t scb) {
    __m128i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + k * scb));
    const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
    const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
    const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);  // rows 0-3: columns 0-3, 4-7
    const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);  // rows 4-7
    const __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                          _mm_unpackhi_epi32(b1, b3)};
    for (int k = 0; k < 4; ++k) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 2 * k * drb), c[k]);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + (2 * k + 1) * drb), _mm_srli_si128(c[k], 8));
    }
  }
};
#else
template <size_t N>
struct BlockOne {
  static constexpr int64_t kK = 1;
  static void run(uint8_t* dst, int64_t, const uint8_t* src, int64_t) { std::memcpy(dst, src, N); }
};
using Block2 = BlockOne<2>;
using Block1 = BlockOne<1>;
#endif

#include "runner/kernels/shape/transpose_tiles.inc"

#ifdef ETKIT_VEC_X86
// The same in 4x4 blocks, two per column step: dst 16-byte aligned,
// dst_row a multiple of 4, jb a multiple of 4.
void stream_rows8(float* dst, int64_t dst_row, const float* src, int64_t src_col, int64_t i, int64_t jb) {
  for (int64_t j = 0; j < jb; j += 4) {
    for (int64_t h = i; h < i + 8; h += 4) {
      __m128 r[4];
      for (int k = 0; k < 4; ++k) r[k] = _mm_loadu_ps(src + h + (j + k) * src_col);
      linalg::vec::Sse::transpose(r);
      for (int k = 0; k < 4; ++k) _mm_stream_ps(dst + (h + k) * dst_row + j, r[k]);
    }
  }
}
#endif
}  // namespace baseline

void tiles4(uint8_t* dst, int64_t dst_row, const uint8_t* src, int64_t src_col, int64_t rows, int64_t cols) {
#ifdef ETKIT_VEC_X86
  if (linalg::cpu_has_avx2_fma()) return avx2::tiles<4, avx2::Block4, lanes::Lanes4>(dst, dst_row, src, src_col, rows, cols);
#endif
  baseline::tiles<4, lanes::Lanes4>(dst, dst_row, src, src_col, rows, cols);
}

// A large 4-byte transpose with streaming stores (kStreamBytes): whole
// groups of eight destination rows by blocks; the columns and rows those
// leave through the cached tiles. False when not taken (small, unaligned).
bool streamed4(uint8_t* dst, int64_t dst_row, const uint8_t* src, int64_t src_col, int64_t rows, int64_t cols) {
#ifdef ETKIT_VEC_X86
  const auto address = reinterpret_cast<uintptr_t>(dst);
  if (rows < 8 || cols < 4 || rows * cols * 4 < kStreamBytes || address % 16 != 0 || dst_row % 4 != 0) return false;
  const bool wide = linalg::cpu_has_avx2_fma() && cols >= 8;
  const bool aligned32 = address % 32 == 0 && dst_row % 8 == 0;
  const int64_t ib = rows / 8 * 8, jb = cols / (wide ? 8 : 4) * (wide ? 8 : 4);
  float* d = reinterpret_cast<float*>(dst);
  const float* s = reinterpret_cast<const float*>(src);
  for (int64_t i = 0; i < ib; i += 8) {
    if (wide && aligned32) {
      avx2::stream_rows8<true>(d, dst_row, s, src_col, i, jb);
    } else if (wide) {
      avx2::stream_rows8<false>(d, dst_row, s, src_col, i, jb);
    } else {
      baseline::stream_rows8(d, dst_row, s, src_col, i, jb);
    }
  }
  // Streaming stores are weakly ordered: fenced before anything else reads
  // or writes the output.
  stream_fence();
  if (jb < cols) tiles4(dst + jb * 4, dst_row, src + jb * src_col * 4, src_col, ib, cols - jb);
  if (ib < rows) tiles4(dst + ib * dst_row * 4, dst_row, src + ib * 4, src_col, rows - ib, cols);
  return true;
#else
  (void)dst, (void)dst_row, (void)src, (void)src_col, (void)rows, (void)cols;
  return false;
#endif
}

}  // namespace

void transpose_matrix(size_t element_size, uint8_t* dst, int64_t dst_row, const uint8_t* src, int64_t src_col,
                      int64_t rows, int64_t cols) {
  switch (element_size) {
    case 1: baseline::tiles<1, baseline::Block1>(dst, dst_row, src, src_col, rows, cols); return;
    case 2: baseline::tiles<2, baseline::Block2>(dst, dst_row, src, src_col, rows, cols); return;
    case 4:
      if (streamed4(dst, dst_row, src, src_col, rows, cols)) return;
      return tiles4(dst, dst_row, src, src_col, rows, cols);
#ifdef ETKIT_VEC_X86
    case 8:
      if (linalg::cpu_has_avx2_fma()) {
        return avx2::tiles<8, avx2::Block8, lanes::Lanes8>(dst, dst_row, src, src_col, rows, cols);
      }
      return baseline::tiles<8, lanes::Lanes8>(dst, dst_row, src, src_col, rows, cols);
#else
    case 8: baseline::tiles<8, lanes::Lanes8>(dst, dst_row, src, src_col, rows, cols); return;
#endif
    default: return;
  }
}

}  // namespace etkit::rt::kernels
