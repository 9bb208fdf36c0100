// Four output channels per pass over a row, so each activation load feeds
// four multiply-adds, and the four weight rows (4 * k int8) stay in L1
// while every row of the left operand passes by.
#include "runner/backends/xnnpack/xnn_qdot.h"

#include <emmintrin.h>

#include <algorithm>
#include <cstring>

#include "runner/backends/xnnpack/xnn_ops.h"

namespace etkit::rt::xnnpack {
namespace {

// 16384 products of at most 255 * 255 sum below 2^31: an int32 partial sum
// cannot overflow (which would be undefined), and the partials wrap in uint32.
constexpr size_t kChunk = 16384;

void dot4(const int16_t* x, const int8_t* w, size_t k, int32_t* out) {
  const int8_t* w0 = w;
  const int8_t* w1 = w + k;
  const int8_t* w2 = w + 2 * k;
  const int8_t* w3 = w + 3 * k;
  uint32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  for (size_t start = 0; start < k; start += kChunk) {
    const size_t end = std::min(k, start + kChunk);
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = start; i < end; ++i) {
      const int32_t xi = x[i];
      s0 += xi * int16_t(w0[i]);
      s1 += xi * int16_t(w1[i]);
      s2 += xi * int16_t(w2[i]);
      s3 += xi * int16_t(w3[i]);
    }
    t0 += uint32_t(s0);
    t1 += uint32_t(s1);
    t2 += uint32_t(s2);
    t3 += uint32_t(s3);
  }
  out[0] = int32_t(t0);
  out[1] = int32_t(t1);
  out[2] = int32_t(t2);
  out[3] = int32_t(t3);
}

int32_t dot1(const int16_t* x, const int8_t* w, size_t k) {
  uint32_t t = 0;
  for (size_t start = 0; start < k; start += kChunk) {
    const size_t end = std::min(k, start + kChunk);
    int32_t s = 0;
    for (size_t i = start; i < end; ++i) s += int32_t(x[i]) * int16_t(w[i]);
    t += uint32_t(s);
  }
  return int32_t(t);
}

uint32_t sum(const int16_t* x, size_t k) {
  uint32_t t = 0;
  for (size_t i = 0; i < k; ++i) t += uint32_t(int32_t(x[i]));
  return t;
}

}  // namespace

void dot_rows(const int16_t* a, size_t rows, const int8_t* b, int32_t b_bias, size_t cols, size_t k, int32_t* c,
              size_t ldc) {
  size_t o = 0;
  for (; o + 4 <= cols; o += 4) {
    int32_t sums[4];
    for (size_t r = 0; r < rows; ++r) {
      dot4(a + r * k, b + o * k, k, sums);
      std::copy(sums, sums + 4, c + r * ldc + o);
    }
  }
  for (; o < cols; ++o) {
    for (size_t r = 0; r < rows; ++r) c[r * ldc + o] = dot1(a + r * k, b + o * k, k);
  }
  if (b_bias == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const uint32_t correction = uint32_t(b_bias) * sum(a + r * k, k);
    for (o = 0; o < cols; ++o) c[r * ldc + o] = int32_t(uint32_t(c[r * ldc + o]) + correction);
  }
}

namespace {

// Two adjacent int16 values as one int32 lane, broadcast to all four.
__m128i broadcast_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return _mm_set1_epi32(v);
}

__m128i broadcast_last(int16_t v) { return _mm_set1_epi32(int32_t(uint16_t(v))); }

// R rows (1 to 4) x one block of 8 channels.
template <size_t R>
void short_block(const int16_t* a, size_t lda, const int16_t* w, size_t k, int32_t* c, size_t ldc, size_t width) {
  __m128i lo[R], hi[R];
  for (size_t r = 0; r < R; ++r) lo[r] = hi[r] = _mm_setzero_si128();
  const size_t pairs = k / 2;
  for (size_t j = 0; j < pairs; ++j, w += 16) {
    const __m128i w0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    const __m128i w1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 8));
    for (size_t r = 0; r < R; ++r) {
      const __m128i x = broadcast_pair(a + r * lda + 2 * j);
      lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(x, w0));
      hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(x, w1));
    }
  }
  if (k % 2) {
    // The last value alone: its partner in the panel is zero, and reading
    // past the row could leave the buffer.
    const __m128i w0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    const __m128i w1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 8));
    for (size_t r = 0; r < R; ++r) {
      const __m128i x = broadcast_last(a[r * lda + k - 1]);
      lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(x, w0));
      hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(x, w1));
    }
  }
  for (size_t r = 0; r < R; ++r) {
    if (width == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(c + r * ldc), lo[r]);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(c + r * ldc + 4), hi[r]);
    } else {
      alignas(16) int32_t t[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(t), lo[r]);
      _mm_store_si128(reinterpret_cast<__m128i*>(t + 4), hi[r]);
      std::copy(t, t + width, c + r * ldc);
    }
  }
}

}  // namespace

size_t short_panel_size(size_t cols, size_t k) { return (cols + 7) / 8 * ((k + 1) / 2) * 16; }

void pack_short(const int8_t* b, int32_t b_bias, size_t cols, size_t k, int16_t* panel) {
  const size_t pairs = (k + 1) / 2;
  std::fill(panel, panel + short_panel_size(cols, k), int16_t(0));
  for (size_t o = 0; o < cols; ++o) {
    int16_t* block = panel + (o / 8) * pairs * 16;
    for (size_t i = 0; i < k; ++i) block[(i / 2) * 16 + (o % 8) * 2 + i % 2] = int16_t(int32_t(b[o * k + i]) + b_bias);
  }
}

void dot_short(const int16_t* a, size_t rows, size_t lda, const int16_t* panel, size_t cols, size_t k, int32_t* c,
               size_t ldc) {
  const size_t block = ((k + 1) / 2) * 16;
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (size_t o = 0; o < cols; o += 8) {
      short_block<4>(a + r * lda, lda, panel + (o / 8) * block, k, c + r * ldc + o, ldc, std::min<size_t>(8, cols - o));
    }
  }
  for (; r < rows; ++r) {
    for (size_t o = 0; o < cols; o += 8) {
      short_block<1>(a + r * lda, lda, panel + (o / 8) * block, k, c + r * ldc + o, ldc, std::min<size_t>(8, cols - o));
    }
  }
}

size_t depthwise_panel_size(size_t taps, size_t channels) { return (channels + 7) / 8 * ((taps + 1) / 2) * 16; }

void pack_depthwise(const int16_t* w, size_t taps, size_t channels, int16_t* panel) {
  const size_t pairs = (taps + 1) / 2;
  std::fill(panel, panel + depthwise_panel_size(taps, channels), int16_t(0));
  for (size_t c = 0; c < channels; ++c) {
    int16_t* block = panel + (c / 8) * pairs * 16;
    for (size_t t = 0; t < taps; ++t) block[(t / 2) * 16 + (c % 8) * 2 + t % 2] = w[t * channels + c];
  }
}

namespace {

// P pixels (1 to 4) sharing each load of the paired weights.
template <size_t P>
void depthwise_block(const int16_t* const* x, size_t taps, const int16_t* w, size_t c0, int32_t* acc, size_t ld) {
  __m128i lo[P], hi[P];
  for (size_t p = 0; p < P; ++p) lo[p] = hi[p] = _mm_setzero_si128();
  const size_t pairs = (taps + 1) / 2;
  for (size_t j = 0; j < pairs; ++j, w += 16) {
    const __m128i w0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    const __m128i w1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 8));
    // An odd last tap pairs with zero weights: its partner is any readable row.
    const size_t second = 2 * j + 1 < taps ? 2 * j + 1 : 2 * j;
    for (size_t p = 0; p < P; ++p) {
      const __m128i xa = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[p * taps + 2 * j] + c0));
      const __m128i xb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[p * taps + second] + c0));
      lo[p] = _mm_add_epi32(lo[p], _mm_madd_epi16(_mm_unpacklo_epi16(xa, xb), w0));
      hi[p] = _mm_add_epi32(hi[p], _mm_madd_epi16(_mm_unpackhi_epi16(xa, xb), w1));
    }
  }
  for (size_t p = 0; p < P; ++p) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(acc + p * ld + c0), lo[p]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(acc + p * ld + c0 + 4), hi[p]);
  }
}

}  // namespace

void depthwise_taps(const int16_t* const* x, size_t pixels, size_t taps, const int16_t* panel, size_t channels,
                    int32_t* acc, size_t ld) {
  const size_t block = ((taps + 1) / 2) * 16;
  for (size_t c0 = 0; c0 < channels; c0 += 8) {
    const int16_t* w = panel + (c0 / 8) * block;
    switch (pixels) {
      case 4: depthwise_block<4>(x, taps, w, c0, acc, ld); break;
      case 3: depthwise_block<3>(x, taps, w, c0, acc, ld); break;
      case 2: depthwise_block<2>(x, taps, w, c0, acc, ld); break;
      default: depthwise_block<1>(x, taps, w, c0, acc, ld); break;
    }
  }
}

void requantize_row(const int32_t* acc, size_t n, const int32_t* bias, const float* scale, int32_t zero_point,
                    int32_t lo, int32_t hi, bool is_signed, uint8_t* out) {
  const __m128 vlo = _mm_set1_ps(float(lo - zero_point)), vhi = _mm_set1_ps(float(hi - zero_point));
  const __m128i zp = _mm_set1_epi32(zero_point);
  const auto four = [&](size_t c) {
    const __m128i a = _mm_add_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(acc + c)),
                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(bias + c)));
    __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(a), _mm_loadu_ps(scale + c));
    // max/min pick the bound where the scalar comparisons do; they differ
    // only on equal values, where the bound is the same number.
    v = _mm_min_ps(_mm_max_ps(v, vlo), vhi);
    // cvtps2dq rounds to nearest even (the default MXCSR mode, which the
    // scalar magic-bias addition relies on as well): the same integer.
    return _mm_add_epi32(_mm_cvtps_epi32(v), zp);
  };
  size_t c = 0;
  for (; c + 8 <= n; c += 8) {
    // In [lo, hi]: the saturating packs keep every value.
    const __m128i q16 = _mm_packs_epi32(four(c), four(c + 4));
    const __m128i q8 = is_signed ? _mm_packs_epi16(q16, q16) : _mm_packus_epi16(q16, q16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + c), q8);
  }
  for (; c + 4 <= n; c += 4) {
    const __m128i q = four(c);
    const __m128i q16 = _mm_packs_epi32(q, q);
    const __m128i q8 = is_signed ? _mm_packs_epi16(q16, q16) : _mm_packus_epi16(q16, q16);
    const int32_t bytes4 = _mm_cvtsi128_si32(q8);
    std::memcpy(out + c, &bytes4, sizeof bytes4);
  }
  for (; c < n; ++c) {
    out[c] = uint8_t(requantize_fp32(int32_t(uint32_t(acc[c]) + uint32_t(bias[c])), scale[c], zero_point, lo, hi));
  }
}

void widen_less_zero_point(const uint8_t* src, size_t n, bool is_signed, int32_t zero_point, int16_t* dst) {
  const auto zp = int16_t(zero_point);
  if (is_signed) {
    for (size_t i = 0; i < n; ++i) dst[i] = int16_t(int16_t(int8_t(src[i])) - zp);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = int16_t(int16_t(src[i]) - zp);
  }
}

}  // namespace etkit::rt::xnnpack
