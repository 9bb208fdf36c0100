#include "runner/kernels/linalg/direct_conv.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "runner/kernels/linalg/cpu.h"
#include "runner/kernels/linalg/vec_f32.h"

namespace etkit::rt::kernels::linalg {
namespace {

// Per-thread buffers, grown once: the padded bias, the in-place and
// gathered offset tables, the gathered patches, and pixel rows on their way
// to channel planes, and a padded band of input rows. The offset tables
// stay from one call to the next with the geometry they were built for
// (offsets_key): a model's layer sees the same input extents and strides
// on every call, and rebuilding them was 2.7% of LeNet's second
// convolution.
struct Scratch {
  std::vector<float> bias, gathered, rows, band;
  std::vector<int64_t> offsets, identity;
  std::array<int64_t, 11> offsets_key{};
  bool offsets_built = false;
};

// offsets[t]: where tap t lies relative to a pixel's window origin in the
// input, in the filter's order; identity[t] = t, for gathered patches.
// When the window is wider or taller than the input no pixel reads in
// place, and the offsets (which could then overflow) are not computed.
// Rebuilt only when what they derive from (the window's taps, the input's
// extents and strides) differs from the last call's on this thread.
void tap_offsets(const DirectConv& g, Scratch& s) {
  const std::array<int64_t, 11> key{g.cin, g.kh, g.kw, g.dh, g.dw, g.h, g.w, g.in_c, g.in_y, g.in_x,
                                    g.channels_innermost};
  if (s.offsets_built && key == s.offsets_key) return;
  const int64_t patch = g.cin * g.kh * g.kw;
  s.offsets.resize(size_t(patch));
  s.identity.resize(size_t(patch));
  for (int64_t i = 0; i < patch; ++i) s.identity[size_t(i)] = i;
  s.offsets_key = key;
  s.offsets_built = true;
  if ((g.kh - 1) * g.dh >= g.h || (g.kw - 1) * g.dw >= g.w) return;
  int64_t t = 0;
  if (g.channels_innermost) {
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        for (int64_t c = 0; c < g.cin; ++c) s.offsets[size_t(t++)] = c * g.in_c + ky * g.dh * g.in_y + kx * g.dw * g.in_x;
      }
    }
  } else {
    for (int64_t c = 0; c < g.cin; ++c) {
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        for (int64_t kx = 0; kx < g.kw; ++kx) s.offsets[size_t(t++)] = c * g.in_c + ky * g.dh * g.in_y + kx * g.dw * g.in_x;
      }
    }
  }
}

// The patch of output pixel (oy, ox) in the filter's order, zero where the
// window lies in the padding.
void gather_patch(const DirectConv& g, const float* in, int64_t oy, int64_t ox, float* dst) {
  const int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  auto value = [&](int64_t c, int64_t ky, int64_t kx) {
    const int64_t y = y0 + ky * g.dh, x = x0 + kx * g.dw;
    return y >= 0 && y < g.h && x >= 0 && x < g.w ? in[c * g.in_c + y * g.in_y + x * g.in_x] : 0.0f;
  };
  if (g.channels_innermost) {
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        for (int64_t c = 0; c < g.cin; ++c) *dst++ = value(c, ky, kx);
      }
    }
  } else {
    for (int64_t c = 0; c < g.cin; ++c) {
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        for (int64_t kx = 0; kx < g.kw; ++kx) *dst++ = value(c, ky, kx);
      }
    }
  }
}

// Whether a zero-padded copy of the input stays within a few times what the
// input and output hold (computed in double: a hostile window's extents
// can be near 2^62).
bool padded_copy_fits(const DirectConv& g) {
  const double rows = double(g.oh - 1) * double(g.sh) + double(g.kh - 1) * double(g.dh) + 1;
  const double cols = double(g.ow - 1) * double(g.sw) + double(g.kw - 1) * double(g.dw) + 1;
  return rows * cols <= 4.0 * (double(g.h) * double(g.w) + double(g.oh) * double(g.ow)) + 4096.0;
}

// Whether padded bands cost less than gathering the patches of the tiles
// whose windows reach into the padding. Tiles run along rows of `tile`
// pixels, so a row with border columns gathers about two tiles, a row with
// its windows in the top or bottom padding all of its pixels; a gathered
// value (bounds-checked, one at a time) counts as two copied ones. Large
// images with a thin border (the 224x224 stem: 4% of its pixels) gather;
// small ones (LeNet's 14x14 with padding 2: all of them) copy.
bool prefer_bands(const DirectConv& g, int64_t tile) {
  auto inside = [](int64_t o, int64_t stride, int64_t pad, int64_t span, int64_t in) {
    const int64_t first = o * stride - pad;
    return first >= 0 && first + span < in;
  };
  int64_t rows_inside = 0, cols_inside = 0;
  for (int64_t oy = 0; oy < g.oh; ++oy) rows_inside += inside(oy, g.sh, g.ph, (g.kh - 1) * g.dh, g.h);
  for (int64_t ox = 0; ox < g.ow; ++ox) cols_inside += inside(ox, g.sw, g.pw, (g.kw - 1) * g.dw, g.w);
  const double per_row = cols_inside == g.ow ? 0.0 : double(std::min(g.ow, 2 * tile));
  const double gathered = double(g.oh - rows_inside) * double(g.ow) + double(rows_inside) * per_row;
  const double band_rows = double(g.oh - 1) * double(g.sh) + double(g.kh - 1) * double(g.dh) + 1;
  const double band_cols = double(g.ow - 1) * double(g.sw) + double(g.kw - 1) * double(g.dw) + 1;
  return 2.0 * gathered * double(g.cin * g.kh * g.kw) > double(g.cin) * band_rows * band_cols;
}

// Output rows per padded band: its copy holds about kBandFloats floats (1
// MiB, within L2) but at least one output row's windows.
int64_t band_output_rows(const DirectConv& g) {
  constexpr int64_t kBandFloats = int64_t(1) << 18;
  const int64_t cols = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  const int64_t rows = std::max<int64_t>(1, kBandFloats / std::max<int64_t>(1, g.cin * cols));
  const int64_t extra = (g.kh - 1) * g.dh;
  return rows <= extra ? 1 : (rows - extra - 1) / g.sh + 1;
}

// Copies the input rows that output rows [oy0, oy1) read into s.band, zero
// where they lie in the padding, in the input's own channel order (planes
// for OIHW filters, interleaved channels for OHWI ones, so offsets stay
// short); returns the geometry of that band: no padding, every window
// inside.
DirectConv padded_band(const DirectConv& g, const float* in, int64_t oy0, int64_t oy1, Scratch& s) {
  DirectConv b = g;
  b.oh = oy1 - oy0;
  b.h = (b.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  b.w = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  b.ph = 0;
  b.pw = 0;
  if (g.channels_innermost) {
    b.in_c = 1;
    b.in_x = g.cin;
    b.in_y = b.w * g.cin;
  } else {
    b.in_x = 1;
    b.in_y = b.w;
    b.in_c = b.h * b.w;
  }
  s.band.assign(size_t(g.cin * b.h * b.w), 0.0f);
  // Band column x holds input column x - pw: inside the input for [x_lo, x_hi).
  const int64_t x_lo = std::min(b.w, g.pw), x_hi = std::max(x_lo, std::min(b.w, g.w + g.pw));
  for (int64_t r = 0; r < b.h; ++r) {
    const int64_t y = oy0 * g.sh - g.ph + r;
    if (y < 0 || y >= g.h || x_hi == x_lo) continue;
    const float* row = in + y * g.in_y + (x_lo - g.pw) * g.in_x;
    if (g.channels_innermost && g.in_c == 1 && g.in_x == g.cin) {
      // An NHWC row: one run of interleaved channels.
      std::memcpy(s.band.data() + r * b.in_y + x_lo * b.in_x, row, size_t((x_hi - x_lo) * g.cin) * sizeof(float));
      continue;
    }
    for (int64_t c = 0; c < g.cin; ++c) {
      float* dst = s.band.data() + c * b.in_c + r * b.in_y + x_lo * b.in_x;
      const float* src = row + c * g.in_c;
      if (b.in_x == 1 && g.in_x == 1) {
        std::memcpy(dst, src, size_t(x_hi - x_lo) * sizeof(float));
      } else {
        for (int64_t x = 0; x < x_hi - x_lo; ++x) dst[x * b.in_x] = src[x * g.in_x];
      }
    }
  }
  return b;
}

// Each copy of the loops gets the vector operations of its instruction set
// (vec_f32.h).
#ifdef ETKIT_VEC_X86
ETKIT_AVX2_FMA_BEGIN
namespace avx2 {
using Ops = vec::Avx2;
#include "runner/kernels/linalg/direct_conv_loops.inc"
}  // namespace avx2
ETKIT_AVX2_FMA_END
namespace baseline {
using Ops = vec::Sse;
#include "runner/kernels/linalg/direct_conv_loops.inc"
}  // namespace baseline
#else
namespace baseline {
using Ops = vec::Generic;
#include "runner/kernels/linalg/direct_conv_loops.inc"
}  // namespace baseline
#endif

}  // namespace

int64_t direct_conv_lanes(int64_t cout) {
#ifdef ETKIT_VEC_X86
  if (cpu_has_avx2_fma()) return avx2::tile_vectors(cout) * vec::Avx2::kW;
#endif
  return baseline::tile_vectors(cout) * baseline::Ops::kW;
}

void pack_direct_conv_filter(const float* filter, int64_t cout, int64_t patch, float* packed) {
#ifdef ETKIT_VEC_X86
  if (cpu_has_avx2_fma()) return avx2::pack(filter, cout, patch, packed);
#endif
  baseline::pack(filter, cout, patch, packed);
}

int64_t direct_conv_scratch_bytes(const DirectConv& g) {
  const int64_t patch = g.cin * g.kh * g.kw;
  // Gathered patches (6 tiles at most), the two offset tables, the padded
  // bias, the rows buffer (the packed filter is the caller's).
  int64_t floats = patch * 6 + patch * 4 + kDirectConvMaxOutputChannels + 240 * kDirectConvMaxOutputChannels;
  if ((g.ph != 0 || g.pw != 0) && padded_copy_fits(g)) {
    const int64_t band_oh = std::min(g.oh, band_output_rows(g));
    const int64_t rows = (band_oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    floats += g.cin * rows * ((g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  }
  return floats * int64_t(sizeof(float));
}

void direct_conv(const DirectConv& g, const float* in, const float* packed_filter, const float* bias, bool clamp,
                 float lo, float hi, float* out, int64_t out_pixel, int64_t out_channel) {
  thread_local Scratch scratch;
  if (g.oh <= 0 || g.ow <= 0 || g.cout <= 0) return;
#ifdef ETKIT_VEC_X86
  if (cpu_has_avx2_fma()) {
    avx2::conv(g, in, packed_filter, bias, clamp, lo, hi, out, out_pixel, out_channel, scratch);
    return;
  }
#endif
  baseline::conv(g, in, packed_filter, bias, clamp, lo, hi, out, out_pixel, out_channel, scratch);
}

}  // namespace etkit::rt::kernels::linalg
