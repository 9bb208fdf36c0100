// Float vector operations the kernels with per-ISA copies share (direct
// convolution, depthwise convolution, transposes): each copy of a kernel's
// loops takes one of these sets, adds what only it needs, and is compiled
// once per instruction set. fma rounds once with AVX2 and twice in the
// baseline (a multiply, then an add). The AVX2 functions carry their own
// target, so this header can be included in baseline code; only callers
// compiled for AVX2 (and chosen by cpu_has_avx2_fma()) may call them.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ETKIT_VEC_X86 1
#endif

#ifdef ETKIT_VEC_X86
// Code between these is compiled for AVX2 with FMA (the per-ISA copies of
// the kernels' loops). GCC takes a target pragma for the region; clang
// ignores that pragma and takes the target as an attribute on every
// function instead.
#if defined(__clang__)
#define ETKIT_AVX2_FMA_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define ETKIT_AVX2_FMA_END _Pragma("clang attribute pop")
#else
#define ETKIT_AVX2_FMA_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define ETKIT_AVX2_FMA_END _Pragma("GCC pop_options")
#endif
#endif

namespace etkit::rt::kernels::linalg::vec {

#ifdef ETKIT_VEC_X86
#define ETKIT_AVX2_FMA __attribute__((target("avx2,fma"), always_inline)) inline

struct Avx2 {
  using V = __m256;
  static constexpr int64_t kW = 8;
  ETKIT_AVX2_FMA static V load(const float* p) { return _mm256_loadu_ps(p); }
  ETKIT_AVX2_FMA static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  ETKIT_AVX2_FMA static V set1(float x) { return _mm256_set1_ps(x); }
  ETKIT_AVX2_FMA static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  // max first, with the bound second: a NaN becomes lo, as fmax(NaN, lo).
  ETKIT_AVX2_FMA static V clamp(V x, V lo, V hi) { return _mm256_min_ps(_mm256_max_ps(x, lo), hi); }
  // r[i][j] becomes r[j][i]: pairs interleaved, then quads, then the
  // 128-bit halves exchanged.
  ETKIT_AVX2_FMA static void transpose(V* r) {
    V t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
      u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; ++k) {
      r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
      r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    }
  }
};
#undef ETKIT_AVX2_FMA

struct Sse {
  using V = __m128;
  static constexpr int64_t kW = 4;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static V set1(float x) { return _mm_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static V clamp(V x, V lo, V hi) { return _mm_min_ps(_mm_max_ps(x, lo), hi); }
  static void transpose(V* r) { _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]); }
};
#endif

// Four-lane GCC/Clang vectors, for targets other than x86-64.
struct Generic {
  typedef float V __attribute__((vector_size(16)));
  static constexpr int64_t kW = 4;
  static V load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(float* p, V v) { std::memcpy(p, &v, sizeof v); }
  static V set1(float x) { return V{} + x; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V clamp(V x, V lo, V hi) {
    V r;
    for (int i = 0; i < 4; ++i) r[i] = x[i] > lo[i] ? (x[i] < hi[i] ? x[i] : hi[i]) : lo[i];
    return r;
  }
  static void transpose(V* r) {
    V t[4];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) t[j][i] = r[i][j];
    }
    for (int i = 0; i < 4; ++i) r[i] = t[i];
  }
};

}  // namespace etkit::rt::kernels::linalg::vec
