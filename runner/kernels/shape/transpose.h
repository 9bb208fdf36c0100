// The matrix transpose inside permute_copy and transpose_copy (NCHW <->
// NHWC, swapped inner dims): square blocks of elements go through vector
// registers, inside tiles that keep both sides' cache lines in L1 while they
// are used. 4- and 8-byte elements take AVX2 blocks (8x8, 4x4) when the CPU
// has AVX2 (linalg/cpu.h), then SSE blocks (4x4, 2x2) on the edges those
// leave; ETKIT_NO_AVX2=1 forces the SSE blocks alone. 2-byte and 1-byte
// elements take 8x8 SSE2 blocks either way. 4-byte transposes into 8 MiB
// or more (aligned to 16 bytes) write whole cache lines with streaming
// stores instead of going through the tiles. Only bits move, so every path
// gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace etkit::rt::kernels {

// dst[i * dst_row + j] = src[i + j * src_col] for i < rows and j < cols, in
// elements of `element_size` bytes (1, 2, 4 or 8; others are not handled).
// dst and src must not overlap.
void transpose_matrix(size_t element_size, uint8_t* dst, int64_t dst_row, const uint8_t* src, int64_t src_col,
                      int64_t rows, int64_t cols);

}  // namespace etkit::rt::kernels
