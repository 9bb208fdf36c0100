// Integer dot products for the 8-bit and 4-bit XNNPACK nodes: operands are
// int16 panels of quantized values less their zero points (each in
// [-255, 255]), so a product fits in int32 and the loops map to the
// baseline x86-64 multiply-add of int16 pairs (pmaddwd). Sums wrap to 32
// bits, as XNNPACK's int32 accumulators do.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etkit::rt::xnnpack {

// c[r * ldc + o] = sum_i a[r * k + i] * b[o * k + i] for r < rows, o < cols.
void dot_rows(const int16_t* a, size_t rows, const int16_t* b, size_t cols, size_t k, int32_t* c, size_t ldc);

// acc[c] += x[c] * w[c] for c < n, wrapping (a depthwise tap over channels).
void multiply_accumulate(const int16_t* x, const int16_t* w, size_t n, uint32_t* acc);

// dst[i] = src[i] - zero_point, the bytes read as int8 or uint8.
void widen_less_zero_point(const uint8_t* src, size_t n, bool is_signed, int32_t zero_point, int16_t* dst);

}  // namespace etkit::rt::xnnpack
