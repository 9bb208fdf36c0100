// 8-bit quantized fully connected and convolutions as XNNPACK computes them
// (QS8/QU8 with per-tensor weights, QC8 with per-channel weights): int32
// accumulators of (x - x_zero_point) * (w - w_zero_point) plus the int32
// bias, then its fp32 requantization (xnn_qs8_requantize_fp32): the
// accumulator as float times input_scale * weight_scale / output_scale,
// clamped to the output bounds less the zero point, rounded to nearest
// even, plus the zero point. Padding contributes nothing (XNNPACK pads with
// the input zero point). Bit-exact with XNNPACK's reference arithmetic.
//
// Below them, the 8-bit elementwise nodes with the arithmetic schemes of the
// XNNPACK ExecuTorch pins (92a7ad50): the add's fixed-point multipliers, the
// 8-bit multiplier of convert and leaky ReLU, the fp32 requantization (also
// the GEMMs'), and the reference kernels' float round trip, which XNNPACK
// runs as a 256-entry table for unary nodes. docs/xnnpack.md lists them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "runner/backends/xnnpack/xnn_ops.h"
#include "runner/backends/xnnpack/xnn_qdot.h"

namespace etkit::rt::xnnpack {
namespace {
bool is_8bit(xnn::Datatype d) { return d == xnn::Datatype::kQint8 || d == xnn::Datatype::kQuint8; }


struct Requantizer {
  std::vector<float> scale;    // per output channel
  std::vector<int32_t> bias;   // per output channel (0 without a bias)
  int32_t x_zero_point = 0, w_zero_point = 0, out_zero_point = 0;
  int32_t out_min = -128, out_max = 127;
  bool out_signed = true;

  int32_t operator()(int64_t acc, size_t channel) const {
    // The kernels accumulate in int32 (wrapping); the sum of products here is exact in int64.
    const int32_t a = int32_t(uint32_t(uint64_t(acc) + uint64_t(uint32_t(bias[channel]))));
    return requantize_fp32(a, scale[channel], out_zero_point, out_min, out_max);
  }
  // Channels [first, first + n) of one pixel.
  void row(const int32_t* acc, size_t first, size_t n, uint8_t* dst) const {
    requantize_row(acc, n, bias.data() + first, scale.data() + first, out_zero_point, out_min, out_max, out_signed, dst);
  }
};

Result<Requantizer> make_requantizer(const NodeCall& call, const Slot& x, const Slot& w, const Slot* b,
                                     const Slot& out, size_t channels) {
  Requantizer r;
  const Q8 oq = q8_of(out);
  r.out_min = oq.lo();
  r.out_max = oq.hi();
  r.out_signed = oq.is_signed;
  if (call.node.has_output_min_max) {
    r.out_min = quantized_bound(call.node.output_min, oq);
    r.out_max = quantized_bound(call.node.output_max, oq);
  }
  r.x_zero_point = x.zero_point;
  r.w_zero_point = w.dtype == xnn::Datatype::kQcint8 ? 0 : w.zero_point;
  r.out_zero_point = out.zero_point;
  if (w.dtype == xnn::Datatype::kQcint8 && w.channel_scales.size() != channels) {
    return node_error("filter has " + std::to_string(w.channel_scales.size()) + " scales for " + std::to_string(channels) +
                      " output channels");
  }
  r.scale.resize(channels);
  for (size_t c = 0; c < channels; ++c) {
    const float w_scale = w.dtype == xnn::Datatype::kQcint8 ? w.channel_scales[c] : w.scale;
    r.scale[c] = x.scale * w_scale / out.scale;
    if (!(r.scale[c] < 256.0f) || !(r.scale[c] >= 0x1.0p-32f)) {
      return node_error("requantization scale " + std::to_string(r.scale[c]) + " outside XNNPACK's [2^-32, 256)");
    }
  }
  r.bias.assign(channels, 0);
  if (b) {
    if (b->dtype != xnn::Datatype::kQint32 && b->dtype != xnn::Datatype::kQcint32 && b->dtype != xnn::Datatype::kInt32) {
      return node_error("a quantized node needs an int32 bias, not " + std::string(xnn::datatype_name(b->dtype)));
    }
    if (b->numel() != channels) return node_error("bias has " + std::to_string(b->numel()) + " values for " + std::to_string(channels) + " channels");
    std::memcpy(r.bias.data(), b->data, channels * sizeof(int32_t));
  }
  return r;
}

}  // namespace

bool is_q8(const Slot& s) { return is_8bit(s.dtype); }

Q8 q8_of(const Slot& s) { return Q8{s.dtype != xnn::Datatype::kQuint8, s.scale, s.zero_point}; }

int32_t requantize_fp32(int32_t acc, float scale, int32_t zero_point, int32_t lo, int32_t hi) {
  // The kernels add a magic bias (1.5 * 2^23) to round: nearest even.
  float v = float(acc) * scale;
  // Comparisons, not fmax/fmin (libm calls on baseline x86-64): v is never
  // NaN, and a signed zero rounds to the same integer.
  const float vlo = float(lo - zero_point), vhi = float(hi - zero_point);
  v = v < vlo ? vlo : v;
  v = v > vhi ? vhi : v;
  // |v| <= 383 after the clamps: adding and removing 1.5 * 2^23 leaves it
  // rounded to nearest even, as nearbyint would, without a libm call per
  // output (baseline x86-64 has no rounding instruction).
  constexpr float kMagic = 12582912.0f;
  return int32_t((v + kMagic) - kMagic) + zero_point;
}

int32_t quantized_bound(float value, const Q8& out) {
  const float v = value / out.scale + float(out.zero_point);
  return int32_t(std::nearbyint(std::fmin(std::fmax(v, float(out.lo())), float(out.hi()))));
}

int32_t quantize_reference(float y, float inv_scale, float zero_point, int32_t lo, int32_t hi) {
  // Multiply and add stay two roundings: XNNPACK's x86-64 build does not fuse them.
  float v = y * inv_scale;
  v = v + zero_point;
  if (std::isnan(v)) v = 0.0f;
  v = std::nearbyint(v);
  return int32_t(std::fmin(std::fmax(v, float(lo)), float(hi)));
}

bool integer_path(const Slot& x, const Slot& w, const Slot& out) {
  return is_8bit(x.dtype) && is_8bit(out.dtype) && (is_8bit(w.dtype) || w.dtype == xnn::Datatype::kQcint8);
}

namespace {

// Packs an 8-bit or 4-bit filter as rows [out, k] of (w - offset), int8
// for dot_rows or int16 for the depthwise taps: `at(o, i)` is the filter's
// flat index.
template <typename Out, typename Index>
void pack_filter(const Slot& w, int32_t offset, size_t out_ch, size_t k, Index at, Out* dst) {
  const bool contiguous = at(0, 1) == 1 && at(1, 0) == k;  // rows already [out, k]
  if (w.dtype == xnn::Datatype::kQcint4) {
    // Two weights per byte, the first in the low nibble.
    if (contiguous) {
      const size_t n = out_ch * k;
      for (size_t j = 0; j < n / 2; ++j) {
        dst[2 * j] = Out((w.data[j] & 0xF) - offset);
        dst[2 * j + 1] = Out((w.data[j] >> 4) - offset);
      }
      if (n % 2) dst[n - 1] = Out((w.data[n / 2] & 0xF) - offset);
      return;
    }
    for (size_t o = 0; o < out_ch; ++o) {
      for (size_t i = 0; i < k; ++i) {
        const size_t index = at(o, i);
        const uint8_t byte = w.data[index / 2];
        dst[o * k + i] = Out(int32_t(index % 2 == 0 ? byte & 0xF : byte >> 4) - offset);
      }
    }
    return;
  }
  const bool is_signed = w.dtype != xnn::Datatype::kQuint8;
  if (contiguous) {
    const size_t n = out_ch * k;
    if (is_signed) {
      for (size_t i = 0; i < n; ++i) dst[i] = Out(int32_t(int8_t(w.data[i])) - offset);
    } else {
      for (size_t i = 0; i < n; ++i) dst[i] = Out(int32_t(w.data[i]) - offset);
    }
    return;
  }
  for (size_t o = 0; o < out_ch; ++o) {
    for (size_t i = 0; i < k; ++i) {
      const uint8_t byte = w.data[at(o, i)];
      dst[o * k + i] = Out((is_signed ? int32_t(int8_t(byte)) : int32_t(byte)) - offset);
    }
  }
}

// What pack_filter subtracts for an int8 panel (a 4-bit filter's zero point
// fits; an 8-bit one is applied in dot_rows as b_bias = offset - zero point).
int32_t int8_offset(const Slot& w, int32_t w_zero_point) {
  if (w.dtype == xnn::Datatype::kQcint4) return w_zero_point;
  return w.dtype == xnn::Datatype::kQuint8 ? 128 : 0;
}

int16_t* int16_scratch(Runtime& runtime, size_t which, size_t n) {
  std::vector<float>& v = runtime.scratch(which);
  v.resize((n + 1) / 2);
  return reinterpret_cast<int16_t*>(v.data());
}

int32_t* int32_scratch(Runtime& runtime, size_t which, size_t n) {
  std::vector<float>& v = runtime.scratch(which);
  v.resize(n);
  return reinterpret_cast<int32_t*>(v.data());
}

// How a filter is packed, part of the runtime's cache key.
enum Layout : uint32_t { kRows, kRowsTransposed, kDepthwiseTaps };

// The filter packed by pack_filter: a constant once per runtime (its
// packing is reused by every later call), any other filter per call.
template <typename Out, typename Index>
Result<const Out*> filter_panel(NodeCall& call, const Slot& w, int32_t offset, size_t out_ch, size_t k, Layout layout,
                                Index at) {
  const size_t bytes = out_ch * k * sizeof(Out);
  Out* dst;
  if (w.def && w.def->is_constant()) {
    ETKIT_ASSIGN_OR_RETURN(const Runtime::Packed p, call.runtime.packed(w.def, layout, bytes));
    dst = static_cast<Out*>(p.data);
    if (!p.fresh) return static_cast<const Out*>(dst);
  } else {
    ETKIT_TRY(call.runtime.check_scratch(bytes));
    std::vector<float>& v = call.runtime.scratch(0);
    v.resize((bytes + sizeof(float) - 1) / sizeof(float));
    dst = reinterpret_cast<Out*>(v.data());
  }
  pack_filter(w, offset, out_ch, k, at, dst);
  return static_cast<const Out*>(dst);
}

// Rows of the left operand per dot_rows call: bounds the int16 and int32
// scratch of a long input while keeping the weight panels hot across rows.
constexpr size_t kRowTile = 64;

}  // namespace

Status quantized_fully_connected(NodeCall& call, size_t rows, size_t in_ch, size_t out_ch, bool transposed) {
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, out_ch));
  const size_t tile = std::min(rows, kRowTile);
  const int32_t offset = int8_offset(w, r.w_zero_point);
  ETKIT_ASSIGN_OR_RETURN(const int8_t* wq, filter_panel<int8_t>(call, w, offset, out_ch, in_ch, transposed ? kRowsTransposed : kRows,
                                                               [&](size_t o, size_t i) { return transposed ? i * out_ch + o : o * in_ch + i; }));
  ETKIT_TRY(call.runtime.check_scratch(uint64_t(tile) * in_ch * sizeof(int16_t) + uint64_t(tile) * out_ch * sizeof(int32_t)));
  int16_t* xq = int16_scratch(call.runtime, 1, tile * in_ch);
  int32_t* acc = int32_scratch(call.runtime, 2, tile * out_ch);
  const bool x_signed = x.dtype != xnn::Datatype::kQuint8;
  for (size_t row0 = 0; row0 < rows; row0 += tile) {
    const size_t n = std::min(tile, rows - row0);
    widen_less_zero_point(x.data + row0 * in_ch, n * in_ch, x_signed, r.x_zero_point, xq);
    dot_rows(xq, n, wq, offset - r.w_zero_point, out_ch, in_ch, acc, out_ch);
    for (size_t row = 0; row < n; ++row) r.row(acc + row * out_ch, 0, out_ch, out.data + (row0 + row) * out_ch);
  }
  return {};
}

// Patches up to this long go through dot_short's register tile; longer
// ones amortise dot_rows' vector loop over the patch.
constexpr size_t kShortPatch = 64;

Status quantized_convolution(NodeCall& call, const ConvShape& s) {
  const xnn::Node& node = call.node;
  const xnn::Window& win = node.window;
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, s.oc));
  const size_t gin = node.group_input_channels, gout = node.group_output_channels;
  const size_t patch = size_t(win.kernel_h) * win.kernel_w * gin;
  const size_t pixels = s.oh * s.ow;
  const size_t tile = std::min(pixels, kRowTile);
  // OHWI: each output channel's filter is one contiguous patch-sized row.
  const int32_t offset = int8_offset(w, r.w_zero_point);
  ETKIT_ASSIGN_OR_RETURN(const int8_t* wq, filter_panel<int8_t>(call, w, offset, s.oc, patch, kRows,
                                                               [&](size_t o, size_t p) { return o * patch + p; }));
  const bool is_short = patch <= kShortPatch;
  // A 1x1, stride 1, unpadded, ungrouped convolution's patches are the
  // input's rows: read in place from the widened input.
  const bool in_place = win.kernel_h == 1 && win.kernel_w == 1 && node.groups == 1 && s.oh == s.ih && s.ow == s.iw &&
                        win.stride_h == 1 && win.stride_w == 1 && win.pad_top == 0 && win.pad_left == 0;
  const size_t in_values = s.n * s.ih * s.iw * s.ic;
  const size_t panel = is_short ? short_panel_size(gout, patch) : 0;
  ETKIT_TRY(call.runtime.check_scratch(uint64_t(in_values) * sizeof(int16_t) + uint64_t(tile) * patch * sizeof(int16_t) +
                                       uint64_t(tile) * gout * sizeof(int32_t) + uint64_t(panel) * sizeof(int16_t)));
  // The input widened once (each value feeds up to kernel_h * kernel_w patches).
  int16_t* xw = int16_scratch(call.runtime, 3, in_values);
  widen_less_zero_point(x.data, in_values, x.dtype != xnn::Datatype::kQuint8, r.x_zero_point, xw);
  int16_t* cols = in_place ? nullptr : int16_scratch(call.runtime, 1, tile * patch);
  int32_t* acc = int32_scratch(call.runtime, 2, tile * gout);
  int16_t* short_panel = is_short ? int16_scratch(call.runtime, 4, panel) : nullptr;
  // A kernel row's valid taps are one run of the input when nothing skips
  // between them (no dilation, every channel in the group).
  const bool row_runs = win.dilation_w == 1 && node.groups == 1;
  for (size_t g = 0; g < node.groups; ++g) {
    // Repacked per call: gout * patch values against pixels * gout * patch products.
    if (is_short) pack_short(wq + g * gout * patch, offset - r.w_zero_point, gout, patch, short_panel);
    for (size_t img = 0; img < s.n; ++img) {
      for (size_t p0 = 0; p0 < pixels; p0 += tile) {
        const size_t n = std::min(tile, pixels - p0);
        const int16_t* a = in_place ? xw + (img * pixels + p0) * s.ic : cols;
        if (!in_place) {
          // The patches as (x - x_zero_point), 0 in the padding.
          for (size_t t = 0; t < n; ++t) {
            const size_t oy = (p0 + t) / s.ow, ox = (p0 + t) % s.ow;
            const TapRange rx = valid_taps(ox, win.stride_w, win.dilation_w, win.pad_left, win.kernel_w, s.iw);
            int16_t* dst = cols + t * patch;
            for (size_t ky = 0; ky < win.kernel_h; ++ky, dst += win.kernel_w * gin) {
              const int64_t iy = int64_t(oy * win.stride_h + ky * win.dilation_h) - int64_t(win.pad_top);
              if (iy < 0 || iy >= int64_t(s.ih) || rx.first >= rx.last) {
                std::fill(dst, dst + win.kernel_w * gin, int16_t(0));
                continue;
              }
              std::fill(dst, dst + rx.first * gin, int16_t(0));
              std::fill(dst + rx.last * gin, dst + win.kernel_w * gin, int16_t(0));
              const size_t ix0 = ox * win.stride_w + rx.first * win.dilation_w - win.pad_left;
              const int16_t* row = xw + ((img * s.ih + size_t(iy)) * s.iw) * s.ic + g * gin;
              if (row_runs) {
                std::copy(row + ix0 * s.ic, row + (ix0 + rx.last - rx.first) * s.ic, dst + rx.first * gin);
              } else {
                for (size_t kx = rx.first; kx < rx.last; ++kx) {
                  const size_t ix = ix0 + (kx - rx.first) * win.dilation_w;
                  std::copy(row + ix * s.ic, row + ix * s.ic + gin, dst + kx * gin);
                }
              }
            }
          }
        }
        if (is_short) {
          dot_short(a, n, in_place ? s.ic : patch, short_panel, gout, patch, acc, gout);
        } else {
          dot_rows(a, n, wq + g * gout * patch, offset - r.w_zero_point, gout, patch, acc, gout);
        }
        for (size_t t = 0; t < n; ++t) r.row(acc + t * gout, g * gout, gout, out.data + (img * pixels + p0 + t) * s.oc + g * gout);
      }
    }
  }
  return {};
}

// Pixels of an output row per depthwise_taps pass, sharing its weight loads.
constexpr size_t kDepthwisePixels = 4;

Status quantized_depthwise_convolution(NodeCall& call, const ConvShape& s, size_t multiplier) {
  const xnn::Window& win = call.node.window;
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, s.oc));
  const size_t taps = size_t(win.kernel_h) * win.kernel_w;
  const size_t in_pixels = s.n * s.ih * s.iw;
  const size_t padded = (s.oc + 7) / 8 * 8;  // depthwise_taps reads whole blocks of 8 channels
  // Filter [taps, oc] and input as int16 less their zero points; the input
  // repeated per multiplier so each tap is one contiguous run over channels.
  ETKIT_ASSIGN_OR_RETURN(const int16_t* wq, filter_panel<int16_t>(call, w, r.w_zero_point, taps, s.oc, kDepthwiseTaps,
                                                        [&](size_t t, size_t c) { return t * s.oc + c; }));
  const size_t panel = depthwise_panel_size(taps, s.oc);
  ETKIT_TRY(call.runtime.check_scratch((uint64_t(in_pixels) * s.oc + padded) * sizeof(int16_t) + kDepthwisePixels * uint64_t(padded) * sizeof(int32_t) +
                                       (uint64_t(panel) + padded) * sizeof(int16_t) + uint64_t(taps) * sizeof(void*)));
  // padded values past the last pixel: the last pixel's block reads stay inside.
  int16_t* xq = int16_scratch(call.runtime, 1, in_pixels * s.oc + padded);
  std::fill(xq + in_pixels * s.oc, xq + in_pixels * s.oc + padded, int16_t(0));
  const bool x_signed = x.dtype != xnn::Datatype::kQuint8;
  if (multiplier == 1) {
    widen_less_zero_point(x.data, in_pixels * s.ic, x_signed, r.x_zero_point, xq);
  } else {
    for (size_t p = 0; p < in_pixels; ++p) {
      for (size_t oc = 0; oc < s.oc; ++oc) {
        const uint8_t byte = x.data[p * s.ic + oc / multiplier];
        xq[p * s.oc + oc] = int16_t((x_signed ? int32_t(int8_t(byte)) : int32_t(byte)) - r.x_zero_point);
      }
    }
  }
  int32_t* acc = int32_scratch(call.runtime, 2, kDepthwisePixels * padded);
  // The taps' weights paired for depthwise_taps, then zeros for the taps in the padding.
  int16_t* tap_panel = int16_scratch(call.runtime, 4, panel + padded);
  pack_depthwise(wq, taps, s.oc, tap_panel);
  const int16_t* zeros = tap_panel + panel;
  std::fill(tap_panel + panel, tap_panel + panel + padded, int16_t(0));
  std::vector<const int16_t*> rows(kDepthwisePixels * taps);
  for (size_t img = 0; img < s.n; ++img) {
    for (size_t oy = 0; oy < s.oh; ++oy) {
      const TapRange ry = valid_taps(oy, win.stride_h, win.dilation_h, win.pad_top, win.kernel_h, s.ih);
      for (size_t ox0 = 0; ox0 < s.ow; ox0 += kDepthwisePixels) {
        const size_t count = std::min(kDepthwisePixels, s.ow - ox0);
        std::fill(rows.begin(), rows.end(), zeros);
        for (size_t p = 0; p < count; ++p) {
          const size_t ox = ox0 + p;
          const TapRange rx = valid_taps(ox, win.stride_w, win.dilation_w, win.pad_left, win.kernel_w, s.iw);
          for (size_t ky = ry.first; ky < ry.last; ++ky) {
            const size_t iy = oy * win.stride_h + ky * win.dilation_h - win.pad_top;
            for (size_t kx = rx.first; kx < rx.last; ++kx) {
              const size_t ix = ox * win.stride_w + kx * win.dilation_w - win.pad_left;
              rows[p * taps + ky * win.kernel_w + kx] = xq + ((img * s.ih + iy) * s.iw + ix) * s.oc;
            }
          }
        }
        depthwise_taps(rows.data(), count, taps, tap_panel, s.oc, acc, padded);
        for (size_t p = 0; p < count; ++p) r.row(acc + p * padded, 0, s.oc, out.data + ((img * s.oh + oy) * s.ow + ox0 + p) * s.oc);
      }
    }
  }
  return {};
}

// int32 sums of (x - row zero point) * w, then float(sum) * row scale *
// channel scale + bias, clamped (xnn_qd8_f32_qc8w_gemm's arithmetic; 4-bit
// weights are nibbles, low first, less 8).
Status dynamic_fully_connected(NodeCall& call, const Slot& x, size_t rows, size_t in_ch, size_t out_ch, bool transposed) {
  const Slot& w = *call.in[1];
  const Slot* b = call.in[2];
  Slot& out = *call.out[0];
  if (w.channel_scales.size() != out_ch) return node_error("filter scales do not match its output channels");
  if (out.dtype != xnn::Datatype::kFp32) return node_error("a dynamically quantized product writes fp32, not " + std::string(xnn::datatype_name(out.dtype)));
  const size_t param_rows = x.channel_scales.size();
  if (param_rows == 0 || (rows * in_ch) % param_rows != 0) return node_error("dynamically quantized input without row parameters");
  const size_t per_param = rows * in_ch / param_rows;  // elements sharing one row's parameters
  const float* bias = nullptr;
  if (b) {
    if (b->dtype != xnn::Datatype::kFp32 || b->numel() != out_ch) return node_error("bias must be fp32 with one value per channel");
    bias = reinterpret_cast<const float*>(b->data);
  }
  const size_t tile = std::min(rows, kRowTile);
  const int32_t w_zero_point = w.dtype == xnn::Datatype::kQcint4 ? w.zero_point : 0;
  ETKIT_ASSIGN_OR_RETURN(const int8_t* wq, filter_panel<int8_t>(call, w, w_zero_point, out_ch, in_ch, transposed ? kRowsTransposed : kRows,
                                                               [&](size_t o, size_t i) { return transposed ? i * out_ch + o : o * in_ch + i; }));
  ETKIT_TRY(call.runtime.check_scratch(uint64_t(tile) * in_ch * sizeof(int16_t) + uint64_t(tile) * out_ch * sizeof(int32_t)));
  int16_t* xq = int16_scratch(call.runtime, 1, tile * in_ch);
  int32_t* acc = int32_scratch(call.runtime, 2, tile * out_ch);
  auto* y = reinterpret_cast<float*>(out.data);
  for (size_t row0 = 0; row0 < rows; row0 += tile) {
    const size_t n = std::min(tile, rows - row0);
    for (size_t t = 0; t < n; ++t) {
      const size_t p = (row0 + t) * in_ch / per_param;
      widen_less_zero_point(x.data + (row0 + t) * in_ch, in_ch, true, x.row_zero_points[p], xq + t * in_ch);
    }
    dot_rows(xq, n, wq, 0, out_ch, in_ch, acc, out_ch);
    for (size_t t = 0; t < n; ++t) {
      const float x_scale = x.channel_scales[(row0 + t) * in_ch / per_param];
      for (size_t o = 0; o < out_ch; ++o) {
        float v = float(acc[t * out_ch + o]) * x_scale;
        v *= w.channel_scales[o];
        if (bias) v += bias[o];
        y[(row0 + t) * out_ch + o] = clamp_output(v, call.node);
      }
    }
  }
  return {};
}

namespace {

// The 8-bit multiplier scheme of qs8/qu8 convert and leaky ReLU:
// ((x - in_zero_point) * multiplier + 128) >> 8 (arithmetic) + out_zero_point,
// saturated; the multiplier is round_half_even(256 * scale).
int32_t multiply_shift8(int32_t x_less_zero_point, int32_t multiplier, const Q8& out) {
  const int32_t v = ((x_less_zero_point * multiplier + 0x80) >> 8) + out.zero_point;
  return std::clamp(v, out.lo(), out.hi());
}

Result<int32_t> multiplier8(float scale, bool allow_negative) {
  const float magnitude = std::fabs(scale);
  if (!(magnitude >= 0x1.0p-8f && magnitude <= 0x1.0p+7f) || (!allow_negative && scale < 0)) {
    return node_error("quantization scale ratio " + std::to_string(scale) + " outside XNNPACK's [2^-8, 2^7]");
  }
  return int32_t(std::lrint(256.0f * scale));
}

// qs8/qu8 add (subtract negates b's scale): a and b times fixed-point
// multipliers with 20-21 significant bits, a rounding bias, an arithmetic
// shift, the zero point, saturation (xnn_init_qs8_add_minmax_scalar_params).
struct AddScheme {
  int32_t a_multiplier = 0, b_multiplier = 0, bias = 0;
  int shift = 0;

  static Result<AddScheme> make(const Q8& a, const Q8& b, const Q8& out, bool subtract) {
    const float a_scale = a.scale / out.scale;
    const float b_scale = (subtract ? -b.scale : b.scale) / out.scale;
    const float max_scale = std::fmax(std::fabs(a_scale), std::fabs(b_scale));
    for (float v : {a_scale, b_scale}) {
      if (!(std::fabs(v) >= 0x1.0p-10f && std::fabs(v) < 0x1.0p+8f)) {
        return node_error("input to output scale ratio " + std::to_string(v) + " outside XNNPACK's [2^-10, 2^8)");
      }
    }
    AddScheme r;
    r.shift = 20 - std::ilogb(max_scale);  // in [13, 30]
    const auto multiplier = [&](float v) {
      const int32_t m = int32_t(std::lrint(std::ldexp(std::fabs(v), r.shift)));
      return std::signbit(v) ? -m : m;
    };
    r.a_multiplier = multiplier(a_scale);
    r.b_multiplier = multiplier(b_scale);
    r.bias = (int32_t(1) << (r.shift - 1)) - r.a_multiplier * a.zero_point - r.b_multiplier * b.zero_point;
    return r;
  }
  int32_t operator()(int32_t a, int32_t b, const Q8& out) const {
    const int32_t acc = bias + a * a_multiplier + b * b_multiplier;
    return std::clamp((acc >> shift) + out.zero_point, out.lo(), out.hi());
  }
};

float dequantize_reference(int32_t q, const Q8& in) { return (float(q) - float(in.zero_point)) * in.scale; }

// The float function XNNPACK's reference kernel applies to dequantized
// values (src/reference/unary-elementwise.cc), evaluated as it is.
float reference_unary(xnn::NodeType t, float x, const xnn::Node& node) {
  using T = xnn::NodeType;
  switch (t) {
    case T::kSigmoid: {
      if (x > 100) return 1;
      if (x < -100) return 0;
      const double e = std::exp(double(x));
      return float(e / (1 + e));
    }
    case T::kTanh: return std::tanh(x);
    case T::kELU: return x < 0 ? node.scalar * std::expm1(x) : x;
    case T::kGelu: return float((x / 2) * (1 + std::erf(double(x) * std::sqrt(2.0) / 2)));
    case T::kHardswish: return (x / 6) * std::max<float>(std::min<float>(x + 3, 6), 0);
    case T::kLeakyReLU: return x < 0 ? x * node.scalar : x;
    case T::kFloor: return std::floor(x);
    case T::kCeiling: return std::ceil(x);
    case T::kSquareRoot: return std::sqrt(x);
    case T::kReciprocalSquareRoot: return 1 / std::sqrt(x);
    case T::kLog: return std::log(x);
    case T::kExp: return std::exp(x);
    case T::kSin: return std::sin(x);
    case T::kCos: return std::cos(x);
    case T::kAbs: return std::fabs(x);
    case T::kNegate: return -x;
    case T::kSquare: return x * x;
    default: return x;  // Convert, Copy
  }
}

// A 256-entry table indexed by the input byte, applied to every element:
// how XNNPACK runs reference unary operators on 8-bit values.
using Table = std::array<uint8_t, 256>;

void apply(const Table& table, const Slot& in, Slot& out) {
  const size_t n = out.numel();
  for (size_t i = 0; i < n; ++i) out.data[i] = table[in.data[i]];
}

Table reference_table(const NodeCall& call, const Q8& in, const Q8& out) {
  Table table{};
  const float inv_scale = 1.0f / out.scale;
  for (int b = 0; b < 256; ++b) {
    const float x = dequantize_reference(in.of(uint8_t(b)), in);
    const float y = reference_unary(call.node.type, x, call.node);
    table[size_t(b)] = uint8_t(quantize_reference(y, inv_scale, float(out.zero_point), out.lo(), out.hi()));
  }
  return table;
}

// An 8-bit clamp: between the quantized bounds when input and output share
// their parameters (s8/u8 clamp), else XNNPACK's reference table.
Table clamp_table(const Q8& in, const Q8& out, bool same_params, float min, float max) {
  Table table{};
  const int32_t lo = quantized_bound(min, out), hi = quantized_bound(max, out);
  const float inv_scale = 1.0f / out.scale;
  for (int b = 0; b < 256; ++b) {
    const int32_t q = in.of(uint8_t(b));
    table[size_t(b)] = uint8_t(same_params ? std::clamp(q, lo, hi)
                                           : quantize_reference(std::min(std::max(dequantize_reference(q, in), min), max),
                                                                inv_scale, float(out.zero_point), out.lo(), out.hi()));
  }
  return table;
}

bool same_params(const Slot& a, const Slot& b) {
  return a.dtype == b.dtype && a.scale == b.scale && a.zero_point == b.zero_point;
}

// A constant holding one value (XNNPACK's "static scalar").
bool is_static_scalar(const Slot& s) { return s.def && s.def->is_constant() && s.numel() == 1; }

}  // namespace

Result<bool> quantized_unary(NodeCall& call) {
  using T = xnn::NodeType;
  const Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  if (!is_q8(in) || !is_q8(out) || call.node.type == T::kCopy) return false;
  const Q8 iq = q8_of(in), oq = q8_of(out);
  const bool same_type = in.dtype == out.dtype;
  const float min = call.node.output_min, max = call.node.output_max;
  Table table{};
  if (call.node.type == T::kClamp && same_type && min == -INFINITY && max == INFINITY) {
    // optimize_common_subgraphs_spurious_clamps makes an unbounded clamp a copy.
    if (out.data != in.data) std::memmove(out.data, in.data, out.numel());
    return true;
  } else if (call.node.type == T::kClamp) {
    table = clamp_table(iq, oq, same_params(in, out), min, max);
  } else if (call.node.type == T::kConvert && same_type) {
    ETKIT_ASSIGN_OR_RETURN(const int32_t m, multiplier8(in.scale / out.scale, false));
    for (int b = 0; b < 256; ++b) {
      table[size_t(b)] = uint8_t(multiply_shift8(iq.of(uint8_t(b)) - iq.zero_point, m, oq));
    }
  } else if (call.node.type == T::kLeakyReLU && same_type) {
    const float positive = in.scale / out.scale;
    ETKIT_ASSIGN_OR_RETURN(const int32_t mp, multiplier8(positive, false));
    ETKIT_ASSIGN_OR_RETURN(const int32_t mn, multiplier8(positive * call.node.scalar, true));
    for (int b = 0; b < 256; ++b) {
      const int32_t x = iq.of(uint8_t(b)) - iq.zero_point;
      table[size_t(b)] = uint8_t(multiply_shift8(x, x >= 0 ? mp : mn, oq));
    }
  } else {
    table = reference_table(call, iq, oq);
  }
  apply(table, in, out);
  return true;
}

Result<bool> quantized_binary(NodeCall& call, std::span<const size_t> shape, std::span<const size_t> stride_a,
                              std::span<const size_t> stride_b) {
  using T = xnn::NodeType;
  const Slot& a = *call.in[0];
  const Slot& b = *call.in[1];
  Slot& out = *call.out[0];
  // XNNPACK's binary nodes need one datatype for both inputs and the output.
  if (!is_q8(out) || a.dtype != out.dtype || b.dtype != out.dtype) return false;
  const Q8 aq = q8_of(a), bq = q8_of(b), oq = q8_of(out);
  const T type = call.node.type;
  // Minimum/maximum with a constant scalar become a clamp of the other operand
  // (optimize_common_subgraphs_min_max_to_clamp; the scalar is b unless only a is one).
  if ((type == T::kMinimum || type == T::kMaximum) && (is_static_scalar(a) || is_static_scalar(b))) {
    const bool b_is_arg = is_static_scalar(b);
    const Slot& x = b_is_arg ? a : b;
    const Slot& c = b_is_arg ? b : a;
    if (c.dims.size() <= x.dims.size() && x.numel() == out.numel()) {
      const float value = dequantize_reference(q8_of(c).at(c.data, 0), q8_of(c));
      const float min = type == T::kMaximum ? value : -INFINITY, max = type == T::kMinimum ? value : INFINITY;
      apply(clamp_table(q8_of(x), oq, same_params(x, out), min, max), x, out);
      return true;
    }
  }
  AddScheme add;
  if (type == T::kAdd || type == T::kSubtract) {
    ETKIT_ASSIGN_OR_RETURN(add, AddScheme::make(aq, bq, oq, type == T::kSubtract));
  }
  const float product_scale = a.scale * b.scale / out.scale;
  if ((type == T::kMultiply || type == T::kPReLU) && !(product_scale >= 0x1.0p-16f && product_scale < 0x1.0p+8f)) {
    return node_error("product to output scale ratio " + std::to_string(product_scale) + " outside XNNPACK's [2^-16, 2^8)");
  }
  const float positive_scale = a.scale / out.scale;
  const float inv_scale = 1.0f / out.scale;
  const auto element = [&](int32_t qa, int32_t qb) -> int32_t {
    switch (type) {
      case T::kAdd: case T::kSubtract: return add(qa, qb, oq);
      case T::kMultiply: return requantize_fp32((qa - aq.zero_point) * (qb - bq.zero_point), product_scale, oq.zero_point, oq.lo(), oq.hi());
      case T::kPReLU: {
        const int32_t x = qa - aq.zero_point;
        return x < 0 ? requantize_fp32(x * (qb - bq.zero_point), product_scale, oq.zero_point, oq.lo(), oq.hi())
                     : requantize_fp32(x, positive_scale, oq.zero_point, oq.lo(), oq.hi());
      }
      default: {
        // Divide, minimum, maximum: the reference kernel, in float.
        const float x = dequantize_reference(qa, aq), y = dequantize_reference(qb, bq);
        const float r = type == T::kDiv ? x / y : type == T::kMaximum ? (x > y ? x : y) : (x < y ? x : y);
        return quantize_reference(r, inv_scale, float(oq.zero_point), oq.lo(), oq.hi());
      }
    }
  };
  // A clamp node follows the arithmetic ones when their min/max is not
  // (-inf, +inf) (xnn_define_binary): s8/u8 clamp between quantized bounds.
  int32_t lo = oq.lo(), hi = oq.hi();
  const bool clamps = type == T::kAdd || type == T::kSubtract || type == T::kMultiply || type == T::kDiv;
  if (clamps && call.node.has_output_min_max && !(call.node.output_min == -INFINITY && call.node.output_max == INFINITY)) {
    lo = quantized_bound(call.node.output_min, oq);
    hi = quantized_bound(call.node.output_max, oq);
  }
  const size_t rank = shape.size(), total = out.numel();
  std::array<size_t, 8> index{};
  for (size_t i = 0; i < total; ++i) {
    size_t ia = 0, ib = 0;
    for (size_t k = 0; k < rank; ++k) {
      ia += index[k] * stride_a[k];
      ib += index[k] * stride_b[k];
    }
    out.data[i] = uint8_t(std::clamp(element(aq.at(a.data, ia), bq.at(b.data, ib)), lo, hi));
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return true;
}

}  // namespace etkit::rt::xnnpack
