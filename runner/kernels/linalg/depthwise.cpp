#include "runner/kernels/linalg/depthwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runner/kernels/linalg/cpu.h"
#include "runner/kernels/linalg/vec_f32.h"

namespace etkit::rt::kernels::linalg {
namespace {

// Each copy of the loops gets the vector operations of its instruction set
// (vec_f32.h) and the masked and strided loads only it needs.
#ifdef ETKIT_VEC_X86
ETKIT_AVX2_FMA_BEGIN
namespace avx2 {
struct Ops : vec::Avx2 {
  // Lanes [lo, hi) of a vector (0 <= lo, hi <= 8); masked loads read
  // nothing at the other lanes (no fault past either end of a row).
  // Kept as plain ints: a std::vector of __m256i is not 32-byte aligned.
  struct M {
    int32_t lane[8];
  };
  static M mask(int64_t lo, int64_t hi) {
    M m;
    for (int64_t l = 0; l < 8; ++l) m.lane[l] = l >= lo && l < hi ? -1 : 0;
    return m;
  }
  static V maskload(const float* p, const M& m) {
    return _mm256_maskload_ps(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.lane)));
  }
  // Lanes [0, n) of v to p, 0 < n <= 8: halves, pairs and singles (a
  // masked store is microcoded on AMD, a dozen cycles and more).
  static void store_first(float* p, V v, int64_t n) {
    __m128 h = _mm256_castps256_ps128(v);
    if (n >= 4) {
      _mm_storeu_ps(p, h);
      h = _mm256_extractf128_ps(v, 1);
      p += 4;
      n -= 4;
    }
    if (n >= 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), h);
      h = _mm_movehl_ps(h, h);
      p += 2;
      n -= 2;
    }
    if (n > 0) _mm_store_ss(p, h);
  }
  // Columns 0, 2, .. and 1, 3, .. of the 16 in lo, hi, in the lane order
  // 0 1 4 5 2 3 6 7 (shuffles within 128-bit lanes); unshuffle restores
  // the order.
  static V even(V lo, V hi) { return _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)); }
  static V odd(V lo, V hi) { return _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)); }
  // even(lo, hi) of the 16 columns two on, in the same lane order, from
  // e = even(lo, hi) and the column after the 16: lane l takes the lane
  // holding the next output's column, the last lane the column after.
  // even_next_from takes that column from the next pair's lo (its lane 0,
  // put where e's column 0 was, which no lane of the result takes);
  // even_next broadcasts it from memory.
  static V even_next_from(V e, V lo_next) {
    return _mm256_permutevar8x32_ps(_mm256_blend_ps(e, lo_next, 0x01), _mm256_setr_epi32(1, 4, 3, 6, 5, 2, 7, 0));
  }
  // odd(lo, hi) of the 16 columns two back, in the same lane order, from
  // o = odd(lo, hi) and the column before the 16: lane l takes the lane
  // holding the previous output's column, the first lane the column
  // before. odd_prev_from takes that column from the previous pair's hi
  // (its lane 7, put where o's column 15 was, which no lane of the result
  // takes); odd_prev broadcasts it from memory.
  static V odd_prev_from(V o, V hi_prev) {
    return _mm256_permutevar8x32_ps(_mm256_blend_ps(o, hi_prev, 0x80), _mm256_setr_epi32(7, 0, 5, 2, 1, 4, 3, 6));
  }
  static V odd_prev(V o, const float* before) {
    return _mm256_blend_ps(_mm256_permutevar8x32_ps(o, _mm256_setr_epi32(7, 0, 5, 2, 1, 4, 3, 6)),
                           _mm256_broadcast_ss(before), 0x01);
  }
  static V even_next(V e, const float* after) {
    return _mm256_blend_ps(_mm256_permutevar8x32_ps(e, _mm256_setr_epi32(1, 4, 3, 6, 5, 2, 7, 0)),
                           _mm256_broadcast_ss(after), 0x80);
  }
  // v in a register from here on: GCC otherwise folds a load used by two
  // shuffles into both, loading it twice, and loads are what bounds the
  // stride-2 loop.
  static void keep(V& v) { asm("" : "+x"(v)); }
  static V unshuffle(V v) {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  // even[j] = src[2j], odd[j] = src[2j + 1] for j < n.
  static void deinterleave2(const float* src, float* even, float* odd, int64_t n) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
      const __m256 a = _mm256_loadu_ps(src + 2 * j), b = _mm256_loadu_ps(src + 2 * j + 8);
      // Within each 128-bit lane: [a0 a2 b0 b2 | a4 a6 b4 b6]; then the
      // 64-bit quarters reordered 0, 2, 1, 3.
      const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
      const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
      _mm256_storeu_ps(even + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
      _mm256_storeu_ps(odd + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
    }
    for (; j < n; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
  }
};
// Only this copy reads planes straight from the input: that loop needs
// masked loads, which SSE lacks (emulated through a buffer, planes ran at
// half the speed of the padded copy's loop).
#define ETKIT_DEPTHWISE_DIRECT 1
#include "runner/kernels/linalg/depthwise_loops.inc"
#undef ETKIT_DEPTHWISE_DIRECT
#include "runner/kernels/linalg/depthwise_nhwc_k3.inc"
}  // namespace avx2
ETKIT_AVX2_FMA_END

// The 3x3 stride-2 plane loop again with AVX-512VL, for its 32 vector
// registers: still 8-lane (ymm) vectors and the AVX2 copy's operations in
// the same order, so the same bits, but s2k3_chain's fourteen accumulators
// and nine weights fit without spills (112x112, 32 channels: 12-16%
// faster than the AVX2 copy's build of the same chain in a driver, 8% in
// bench_runtime). Only plane_direct<2, 3> is called from this copy.
#if defined(__clang__)
#define ETKIT_AVX512VL_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f,avx512vl\"))), apply_to = function)")
#define ETKIT_AVX512VL_END _Pragma("clang attribute pop")
#else
// prefer-vector-width=256: nothing vectorized here widens to 512 bits.
#define ETKIT_AVX512VL_BEGIN \
  _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,avx512f,avx512vl,prefer-vector-width=256\")")
#define ETKIT_AVX512VL_END _Pragma("GCC pop_options")
#endif
ETKIT_AVX512VL_BEGIN
namespace avx512 {
struct Ops : avx2::Ops {
  // As avx2::Ops::keep, in any of the 32 registers ("x" is the first 16).
  static void keep(V& v) { asm("" : "+v"(v)); }
};
#define ETKIT_DEPTHWISE_DIRECT 1
#define ETKIT_DEPTHWISE_DIRECT_ONLY 1
#include "runner/kernels/linalg/depthwise_loops.inc"
#undef ETKIT_DEPTHWISE_DIRECT_ONLY
#undef ETKIT_DEPTHWISE_DIRECT
}  // namespace avx512
ETKIT_AVX512VL_END
namespace baseline {
struct Ops : vec::Sse {
  static void deinterleave2(const float* src, float* even, float* odd, int64_t n) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const __m128 a = _mm_loadu_ps(src + 2 * j), b = _mm_loadu_ps(src + 2 * j + 4);
      _mm_storeu_ps(even + j, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
      _mm_storeu_ps(odd + j, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    }
    for (; j < n; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
  }
};
#include "runner/kernels/linalg/depthwise_loops.inc"
}  // namespace baseline
#else
namespace baseline {
struct Ops {
  using V = float;
  static constexpr int64_t kW = 1;
  static V load(const float* p) { return *p; }
  static void store(float* p, V v) { *p = v; }
  static V set1(float x) { return x; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V clamp(V x, V lo, V hi) { return std::fmin(std::fmax(x, lo), hi); }
  static void deinterleave2(const float* src, float* even, float* odd, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
  }
};
#include "runner/kernels/linalg/depthwise_loops.inc"
}  // namespace baseline
#endif

// Outputs one at a time over the taps inside the input only: for windows
// whose padding or dilation dwarfs the plane (a hostile program's), where
// the padded copy would cost far more than the input and output hold.
void plane_sparse(const DepthwiseWindow& g, const float* in, int64_t in_row, int64_t in_col, const float* weights,
                  float bias, float* out, int64_t out_row, int64_t out_col) {
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    const int64_t y0 = oy * g.sh - g.ph;
    const int64_t ky0 = y0 >= 0 ? 0 : std::min(g.kh, (-y0 + g.dh - 1) / g.dh);
    const int64_t ky1 = std::max(ky0, y0 >= g.h ? 0 : std::min(g.kh, (g.h - 1 - y0) / g.dh + 1));
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const int64_t x0 = ox * g.sw - g.pw;
      const int64_t kx0 = x0 >= 0 ? 0 : std::min(g.kw, (-x0 + g.dw - 1) / g.dw);
      const int64_t kx1 = std::max(kx0, x0 >= g.w ? 0 : std::min(g.kw, (g.w - 1 - x0) / g.dw + 1));
      float a = bias;
      for (int64_t ky = ky0; ky < ky1; ++ky) {
        for (int64_t kx = kx0; kx < kx1; ++kx) {
          a += weights[ky * g.kw + kx] * in[(y0 + ky * g.dh) * in_row + (x0 + kx * g.dw) * in_col];
        }
      }
      out[oy * out_row + ox * out_col] = a;
    }
  }
}

// Whether the padded, phase-split copy of the plane stays within a few
// times what the input and output planes hold (computed in double: the
// window's extents can be near 2^62 each).
bool padded_copy_fits(const DepthwiseWindow& g) {
  const double rows = double(g.oh - 1) * double(g.sh) + double(g.kh - 1) * double(g.dh) + 1;
  const double cols = double(g.ow - 1) * double(g.sw) + double(g.kw - 1) * double(g.dw) + 1 + double(g.sw);
  return rows * cols <= 4.0 * (double(g.h) * double(g.w) + double(g.oh) * double(g.ow)) + 4096.0;
}

}  // namespace

void depthwise_plane(const DepthwiseWindow& g, const float* in, int64_t in_row, int64_t in_col, const float* weights,
                     float bias, float* out, int64_t out_row, int64_t out_col, std::vector<float>& scratch) {
  if (!padded_copy_fits(g)) {
    plane_sparse(g, in, in_row, in_col, weights, bias, out, out_row, out_col);
    return;
  }
#ifdef ETKIT_VEC_X86
  if (g.sw == 2 && g.kh == 3 && g.kw == 3 && cpu_has_avx512vl() && avx512::direct_fits(g, in_col, out_col)) {
    avx512::plane_direct<2, 3>(g, in, in_row, weights, bias, out, out_row, scratch);
    return;
  }
  if (cpu_has_avx2_fma()) {
    avx2::plane(g, in, in_row, in_col, weights, bias, out, out_row, out_col, scratch);
    return;
  }
#endif
  baseline::plane(g, in, in_row, in_col, weights, bias, out, out_row, out_col, scratch);
}

void depthwise_nhwc(const DepthwiseWindow& g, int64_t channels, const float* in, int64_t in_row, int64_t in_pixel,
                    const float* taps_by_channel, const float* bias, float lo, float hi, float* out) {
#ifdef ETKIT_VEC_X86
  if (cpu_has_avx2_fma()) {
    if (avx2::nhwc_k3_fits(g, channels)) {
      if (g.sw == 1) {
        avx2::nhwc_k3<1>(g, channels, in, in_row, in_pixel, taps_by_channel, bias, lo, hi, out);
      } else {
        avx2::nhwc_k3<2>(g, channels, in, in_row, in_pixel, taps_by_channel, bias, lo, hi, out);
      }
      return;
    }
    avx2::nhwc(g, channels, in, in_row, in_pixel, taps_by_channel, bias, lo, hi, out);
    return;
  }
#endif
  baseline::nhwc(g, channels, in, in_row, in_pixel, taps_by_channel, bias, lo, hi, out);
}

}  // namespace etkit::rt::kernels::linalg
