// Integer dot products for the 8-bit and 4-bit XNNPACK nodes: activations
// are int16 panels of quantized values less their zero point (each in
// [-255, 255]), filters int8 panels (half the memory traffic of int16, which
// bounds the one-row products), widened in the loop so it maps to the
// baseline x86-64 multiply-add of int16 pairs (pmaddwd). Sums wrap to 32
// bits, as XNNPACK's int32 accumulators do.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etkit::rt::xnnpack {

// c[r * ldc + o] = sum_i a[r * k + i] * (b[o * k + i] + b_bias) for r < rows,
// o < cols: b_bias carries what did not fit an int8 filter (a uint8 filter
// is stored less 128, its zero point is applied here).
void dot_rows(const int16_t* a, size_t rows, const int8_t* b, int32_t b_bias, size_t cols, size_t k, int32_t* c,
              size_t ldc);

// acc[c] += x[c] * w[c] for c < n, wrapping (a depthwise tap over channels).
void multiply_accumulate(const int16_t* x, const int16_t* w, size_t n, uint32_t* acc);

// dst[i] = src[i] - zero_point, the bytes read as int8 or uint8.
void widen_less_zero_point(const uint8_t* src, size_t n, bool is_signed, int32_t zero_point, int16_t* dst);

}  // namespace etkit::rt::xnnpack
