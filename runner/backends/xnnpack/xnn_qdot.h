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

// Short patches (a 1x1 or stem convolution: a few dozen values) leave one
// vector step per dot product, so dot_short runs a register tile of 4 rows
// x 8 output channels instead: each pair of patch values, broadcast, meets
// a panel of 8 channels x 2 values in one pmaddwd. The panel is int16
// blocks of 8 channels (zero past cols), each ceil(k / 2) pairs of
// 8 channels x 2 values (zero past k), holding b[o * k + i] + b_bias.
size_t short_panel_size(size_t cols, size_t k);  // in int16 values
void pack_short(const int8_t* b, int32_t b_bias, size_t cols, size_t k, int16_t* panel);

// c[r * ldc + o] = sum_i a[r * lda + i] * panel(o, i) for r < rows, o < cols,
// wrapping. Sums are exact while k < 16384 (|products| <= 255 * 255).
void dot_short(const int16_t* a, size_t rows, size_t lda, const int16_t* panel, size_t cols, size_t k, int32_t* c,
               size_t ldc);

// Depthwise taps as pairs over blocks of 8 channels: the panel is int16
// blocks of 8 channels, each ceil(taps / 2) pairs of (tap 2j, tap 2j + 1)
// interleaved per channel, zero past taps and channels.
size_t depthwise_panel_size(size_t taps, size_t channels);  // in int16 values
void pack_depthwise(const int16_t* w, size_t taps, size_t channels, int16_t* panel);

// acc[p * ld + c] = sum_t x[p * taps + t][c] * w[t][c] for p < pixels (1
// to 4: they share each weight load), c < channels rounded up to 8,
// wrapping: every x row must be readable up to that rounding (a tap in the
// padding points at zeros).
void depthwise_taps(const int16_t* const* x, size_t pixels, size_t taps, const int16_t* panel, size_t channels,
                    int32_t* acc, size_t ld);

// out[c] = requantize_fp32(acc[c] + bias[c] (wrapping), scale[c], ...) for
// c < n, eight or four at a time in SSE2 with the same float operations in the
// same order as the scalar function, so the bits are the same.
void requantize_row(const int32_t* acc, size_t n, const int32_t* bias, const float* scale, int32_t zero_point,
                    int32_t lo, int32_t hi, bool is_signed, uint8_t* out);

// dst[i] = src[i] - zero_point, the bytes read as int8 or uint8.
void widen_less_zero_point(const uint8_t* src, size_t n, bool is_signed, int32_t zero_point, int16_t* dst);

}  // namespace etkit::rt::xnnpack
