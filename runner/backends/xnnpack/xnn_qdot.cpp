// Four output channels per pass over a row, so each activation load feeds
// four multiply-adds, and the four weight rows (4 * k int8) stay in L1
// while every row of the left operand passes by.
#include "runner/backends/xnnpack/xnn_qdot.h"

#include <algorithm>

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

void multiply_accumulate(const int16_t* x, const int16_t* w, size_t n, uint32_t* acc) {
  for (size_t c = 0; c < n; ++c) acc[c] += uint32_t(int32_t(x[c]) * int32_t(w[c]));
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
