#include "runner/kernels/linalg/copy_stride2.h"

#include "runner/kernels/linalg/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ETKIT_STRIDED_X86 1
#endif

namespace etkit::rt::kernels::linalg {
namespace {

// A block of j reads src[2 j .. 2 j + 2 width - 1]; it runs while that
// stays within src[0 .. 2 n - 2], i.e. while j + width + 1 <= n.
#ifdef ETKIT_STRIDED_X86
__attribute__((target("avx2"))) int64_t copy_stride2_avx2(const float* src, float* dst, int64_t n) {
  int64_t j = 0;
  for (; j + 9 <= n; j += 8) {
    const __m256 a = _mm256_loadu_ps(src + 2 * j), b = _mm256_loadu_ps(src + 2 * j + 8);
    // [a0 a2 b0 b2 | a4 a6 b4 b6], then 64-bit quarters in order 0, 2, 1, 3.
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    _mm256_storeu_ps(dst + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  return j;
}
int64_t copy_stride2_sse(const float* src, float* dst, int64_t n) {
  int64_t j = 0;
  for (; j + 5 <= n; j += 4) {
    const __m128 a = _mm_loadu_ps(src + 2 * j), b = _mm_loadu_ps(src + 2 * j + 4);
    _mm_storeu_ps(dst + j, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  }
  return j;
}
#endif

}  // namespace

void copy_stride2(const float* src, float* dst, int64_t n) {
  int64_t j = 0;
#ifdef ETKIT_STRIDED_X86
  j = cpu_has_avx2_fma() ? copy_stride2_avx2(src, dst, n) : copy_stride2_sse(src, dst, n);
#endif
  for (; j < n; ++j) dst[j] = src[2 * j];
}

}  // namespace etkit::rt::kernels::linalg
