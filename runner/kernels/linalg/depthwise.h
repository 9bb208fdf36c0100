// Direct float32 depthwise convolution (one input channel per output
// channel), shared by aten::convolution (NCHW planes) and the XNNPACK
// backend (NHWC images). A depthwise GEMM would have one row and a depth
// of kH*kW, so these loops vectorise along the contiguous axis instead:
// along W for a plane, along channels for NHWC. Both use AVX2/FMA when the
// CPU has them (chosen at run time, like the GEMM).
#pragma once

#include <cstdint>
#include <vector>

namespace etkit::rt::kernels::linalg {

// Window of a 2-D convolution; out extents already derived from it.
struct DepthwiseWindow {
  int64_t h, w, oh, ow;  // input and output extents
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

// One plane: out[oy * out_row + ox] = bias + sum over taps of
// weights[ky * kw + kx] * in[y * in_row + x * in_col] (zero outside the
// input). With AVX2, planes at column stride 1 or 2 are read straight
// from the input (edges under lane masks); otherwise `scratch` holds a
// padded copy of the plane split by column phase (stride), so every tap
// reads a contiguous run.
void depthwise_plane(const DepthwiseWindow& g, const float* in, int64_t in_row, int64_t in_col, const float* weights,
                     float bias, float* out, int64_t out_row, int64_t out_col, std::vector<float>& scratch);

// One NHWC image with `channels` channels (multiplier 1): pixel (y, x) of
// the input at in + y * in_row + x * in_pixel, channels contiguous; out
// contiguous [oh, ow, channels]. taps_by_channel is [kh * kw, channels];
// bias may be null; results are clamped to [lo, hi].
void depthwise_nhwc(const DepthwiseWindow& g, int64_t channels, const float* in, int64_t in_row, int64_t in_pixel,
                    const float* taps_by_channel, const float* bias, float lo, float hi, float* out);

}  // namespace etkit::rt::kernels::linalg
