// Direct float32 convolution for few output channels (at most
// kDirectConvMaxOutputChannels), shared by aten::convolution and the
// XNNPACK backend. With 16 output channels a GEMM over im2col touches every
// patch element twice (im2col, then packing) for only 16 multiply-adds, and
// pads the 16 channels up to tiles of 6 rows; here a register tile of a few
// output pixels x all output channels reads each pixel's taps straight from
// the input (vectors along the output channels, one broadcast per pixel and
// tap), so nothing is gathered except the patches of pixels whose window
// crosses the padding. AVX2/FMA is chosen at run time, like the GEMM.
#pragma once

#include <cstdint>

namespace etkit::rt::kernels::linalg {

constexpr int64_t kDirectConvMaxOutputChannels = 32;

// One image and one group of a 2-D convolution.
struct DirectConv {
  int64_t h, w, oh, ow;  // input and output extents
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t cin, cout;          // of the group; cout <= kDirectConvMaxOutputChannels
  int64_t in_c, in_y, in_x;   // element strides of the input
  bool channels_innermost;    // filter rows ordered (ky, kx, c) (OHWI) rather than (c, ky, kx) (OIHW)
};

// The filter [cout, patch] in the form direct_conv reads: `patch` rows of
// direct_conv_lanes(cout) floats, row t holding tap t's weight for every
// output channel, zero past cout (whole vectors of the instruction set
// chosen at run time, so the form belongs to this process). A constant
// filter is packed once and the packed form kept (the XNNPACK runtime's
// and the loaded method's caches); packing is cheap but per call it was
// about a tenth of LeNet's second convolution.
int64_t direct_conv_lanes(int64_t cout);
inline int64_t direct_conv_packed_floats(int64_t cout, int64_t patch) { return patch * direct_conv_lanes(cout); }
void pack_direct_conv_filter(const float* filter, int64_t cout, int64_t patch, float* packed);

// out[p * out_pixel + co * out_channel] = clamp(bias[co] + sum over the
// patch of filter[co * patch + t] * in[c * in_c + y * in_y + x * in_x]) for
// output pixels p = oy * ow + ox, zero outside the input; filter is
// [cout, patch] with patch = cin * kh * kw in the order the flag names,
// given packed (pack_direct_conv_filter with g.cout), and every output sums
// its terms in that order. bias may be null; the clamp to [lo, hi] applies
// only when `clamp`. out_channel 1 (NHWC) is written directly; otherwise
// (NCHW planes) pixel rows are transposed on the way.
void direct_conv(const DirectConv& g, const float* in, const float* packed_filter, const float* bias, bool clamp,
                 float lo, float hi, float* out, int64_t out_pixel, int64_t out_channel);

// An upper bound on the per-thread scratch direct_conv(g, ...) grows.
int64_t direct_conv_scratch_bytes(const DirectConv& g);

}  // namespace etkit::rt::kernels::linalg
