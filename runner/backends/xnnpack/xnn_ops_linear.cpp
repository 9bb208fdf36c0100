// Fully connected, 2-D convolutions (regular, depthwise, transposed) and
// batch matrix multiply, in XNNPACK's layouts: activations NHWC, filters
// OHWI ([groups * group_output_channels, kh, kw, group_input_channels]),
// depthwise filters [1, kh, kw, channels * multiplier], fully connected
// filters [output, input] (or [input, output] with kTransposeWeights).
// fp32 runs through the runner's blocked GEMM (convolutions with one group
// and at most 32 output channels through its direct kernel); quantized
// filters are dequantized once per call into float (their scales per
// channel or per block), and dynamically quantized inputs (qdint8) are
// quantized per row as XNNPACK does before the product.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runner/backends/xnnpack/xnn_ops.h"
#include "runner/backends/xnnpack/xnn_ops_table.h"
#include "runner/kernels/linalg/depthwise.h"
#include "runner/kernels/linalg/direct_conv.h"
#include "runner/kernels/linalg/gemm.h"

namespace etkit::rt::xnnpack {
namespace {

using kernels::linalg::MatrixView;
using kernels::linalg::sgemm;

// The filter as floats [rows, cols] (rows = output channels for the layouts
// above), dequantizing per-channel / per-block / 4-bit weights: a constant
// once per runtime (kept by the runtime for later calls), others per call.
Result<const float*> filter_floats(Runtime& runtime, const Slot& w, size_t out_channel_dim,
                                   std::vector<float>& scratch) {
  if (w.dtype == xnn::Datatype::kFp32) return reinterpret_cast<const float*>(w.data);
  const size_t n = w.numel();
  const bool four_bit = w.dtype == xnn::Datatype::kQcint4 || w.dtype == xnn::Datatype::kQbint4;
  if (w.dtype != xnn::Datatype::kQcint8 && !four_bit) return read_floats(w, scratch);
  if (w.dims.empty()) return node_error("filter without dimensions");
  const size_t channels = w.dims[out_channel_dim];
  size_t inner = 1;
  for (size_t d = out_channel_dim + 1; d < w.dims.size(); ++d) inner *= w.dims[d];
  const bool blockwise = w.def->quant.scheme == xnn::QuantScheme::kPerChannelGroup;
  const size_t group = blockwise ? size_t(w.def->quant.group_size) : 0;
  const size_t blocks_per_row = blockwise ? w.dims[1] / group : 0;
  if (!blockwise && w.channel_scales.size() != channels) return node_error("filter scales do not match its channels");
  float* dst;  // the checks above come first: a cache entry handed out is never left unfilled
  if (w.def->is_constant()) {
    // Layouts 0x100 + dim: apart from the integer paths' packings of the same value.
    ETKIT_ASSIGN_OR_RETURN(const Runtime::Packed p, runtime.packed(w.def, 0x100 + uint32_t(out_channel_dim), n * sizeof(float)));
    dst = static_cast<float*>(p.data);
    if (!p.fresh) return static_cast<const float*>(dst);
  } else {
    scratch.resize(n);
    dst = scratch.data();
  }
  for (size_t i = 0; i < n; ++i) {
    int32_t q;
    if (four_bit) {
      // Two weights per byte, the first in the low nibble, stored with zero point 8.
      const uint8_t byte = w.data[i / 2];
      q = int32_t(i % 2 == 0 ? byte & 0xF : byte >> 4) - w.zero_point;
    } else {
      q = int32_t(int8_t(w.data[i]));
    }
    const size_t channel = (i / inner) % channels;
    const float scale = blockwise ? w.channel_scales[channel * blocks_per_row + (i % w.dims[1]) / group]
                                  : w.channel_scales[channel];
    dst[i] = float(q) * scale;
  }
  return static_cast<const float*>(dst);
}

// Bias as floats (qint32/qcint32 biases carry input scale * filter scale).
Result<const float*> bias_floats(const Slot* b, size_t channels, std::vector<float>& scratch) {
  if (!b) return static_cast<const float*>(nullptr);
  if (b->numel() != channels) return node_error("bias has " + std::to_string(b->numel()) + " values, " +
                                                          std::to_string(channels) + " channels");
  if (b->dtype == xnn::Datatype::kQcint32) {
    scratch.resize(channels);
    for (size_t c = 0; c < channels; ++c) {
      int32_t v;
      std::memcpy(&v, b->data + 4 * c, 4);
      scratch[c] = float(v) * b->channel_scales.at(c);
    }
    return static_cast<const float*>(scratch.data());
  }
  return read_floats(*b, scratch);
}

// The activations of a fully connected node whose input is qdint8: the
// quantized values dequantized with their row's parameters (what the
// integer product computes exactly, up to float rounding of the sum).
Result<const float*> activation_floats(const Slot& x, std::vector<float>& scratch) {
  if (x.dtype != xnn::Datatype::kQdint8) return read_floats(x, scratch);
  const size_t n = x.numel();
  const size_t rows = x.channel_scales.size();
  if (rows == 0 || n % rows != 0) return node_error("dynamically quantized input without row parameters");
  const size_t cols = n / rows;
  scratch.resize(n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      scratch[r * cols + c] = float(int32_t(int8_t(x.data[r * cols + c])) - x.row_zero_points[r]) * x.channel_scales[r];
    }
  }
  return static_cast<const float*>(scratch.data());
}

void add_bias_and_clamp(float* y, size_t rows, size_t channels, size_t ldc, const float* bias, const xnn::Node& n) {
  for (size_t r = 0; r < rows; ++r) {
    float* row = y + r * ldc;
    if (bias) {
      for (size_t c = 0; c < channels; ++c) row[c] += bias[c];
    }
    clamp_all(row, channels, n);
  }
}

Status fully_connected(NodeCall& call) {
  Slot& x = *call.in[0];
  Slot& w = *call.in[1];
  Slot* b = call.in[2];
  Slot& out = *call.out[0];
  if (w.dims.size() != 2) return node_error("filter must be 2-D, it has rank " + std::to_string(w.dims.size()));
  const bool transposed = (call.node.flags & xnn::kTransposeWeights) != 0;
  const size_t in_ch = transposed ? w.dims[0] : w.dims[1];
  const size_t out_ch = transposed ? w.dims[1] : w.dims[0];
  if (x.dims.empty() || x.dims.back() != in_ch) {
    return node_error("input's last dimension " + std::to_string(x.dims.empty() ? 0 : x.dims.back()) +
                                " does not match the filter's " + std::to_string(in_ch) + " input channels");
  }
  std::vector<size_t> shape = x.dims;
  shape.back() = out_ch;
  ETKIT_TRY(call.runtime.reshape(out, shape));
  const size_t rows = in_ch == 0 ? 0 : x.numel() / in_ch;
  if (integer_path(x, w, out)) return quantized_fully_connected(call, rows, in_ch, out_ch, transposed);
  const Slot* activations = &x;
  Slot quantized;
  if (x.def->dq_datatype == xnn::Datatype::kQint8 && x.dtype == xnn::Datatype::kFp32) {
    // The legacy dq_datatype input: quantized per row before the product,
    // as the Convert node XNNCompiler inserts for it.
    quantized = x;
    quantized.dtype = xnn::Datatype::kQdint8;
    std::vector<float>& bytes = call.runtime.scratch(4);
    bytes.resize((x.numel() + 3) / 4);
    quantized.data = reinterpret_cast<uint8_t*>(bytes.data());
    ETKIT_TRY(quantize_dynamic(x, quantized));
    activations = &quantized;
  }
  if (activations->dtype == xnn::Datatype::kQdint8 &&
      (w.dtype == xnn::Datatype::kQcint8 || w.dtype == xnn::Datatype::kQcint4)) {
    return dynamic_fully_connected(call, *activations, rows, in_ch, out_ch, transposed);
  }
  ETKIT_ASSIGN_OR_RETURN(const float* a, activation_floats(*activations, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* wf, filter_floats(call.runtime, w, transposed ? 1 : 0, call.runtime.scratch(1)));
  ETKIT_ASSIGN_OR_RETURN(const float* bias, bias_floats(b, out_ch, call.runtime.scratch(2)));
  float* y = output_floats(out, call.runtime.scratch(3));
  const MatrixView bw = transposed ? MatrixView{wf, int64_t(out_ch), 1} : MatrixView{wf, 1, int64_t(in_ch)};
  sgemm(int64_t(rows), int64_t(out_ch), int64_t(in_ch), 1.0f, MatrixView{a, int64_t(in_ch), 1}, bw, 0.0f, y,
        int64_t(out_ch));
  add_bias_and_clamp(y, rows, out_ch, out_ch, bias, call.node);
  return write_floats(out, y);
}

// Copies floats; a few in 16-, 8- and 4-byte moves: the runs im2col copies
// are mostly short (3 to 9 floats in the stem), too short for a memmove call.
void copy_short(const float* src, size_t n, float* dst) {
  if (n > 32) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  size_t i = 0;
  for (; i + 4 <= n; i += 4) std::memcpy(dst + i, src + i, 4 * sizeof(float));
  if (n - i >= 2) {
    std::memcpy(dst + i, src + i, 2 * sizeof(float));
    i += 2;
  }
  if (i < n) dst[i] = src[i];
}

// Gathers the input patches of output rows [oy0, oy0 + rows) for one group
// into `cols` ([pixels, kh * kw * group_in]; zero where padding). With one
// group and no dilation a kernel row's taps are one contiguous run of the
// input (9 floats for the RGB stem), copied at once rather than tap by tap.
void im2col_nhwc(const float* x, const ConvShape& s, const xnn::Window& w, size_t group_offset, size_t group_in,
                 size_t image, size_t oy0, size_t rows, float* cols) {
  const size_t row_len = size_t(w.kernel_w) * group_in, patch = size_t(w.kernel_h) * row_len;
  const bool runs = group_in == s.ic && w.dilation_w == 1;
  for (size_t oy = oy0; oy < oy0 + rows; ++oy) {
    const TapRange ry = valid_taps(oy, w.stride_h, w.dilation_h, w.pad_top, w.kernel_h, s.ih);
    for (size_t ox = 0; ox < s.ow; ++ox) {
      const TapRange rx = valid_taps(ox, w.stride_w, w.dilation_w, w.pad_left, w.kernel_w, s.iw);
      float* dst = cols + ((oy - oy0) * s.ow + ox) * patch;
      for (size_t ky = 0; ky < w.kernel_h; ++ky, dst += row_len) {
        if (ky < ry.first || ky >= ry.last || rx.first == rx.last) {
          std::fill(dst, dst + row_len, 0.0f);
          continue;
        }
        const size_t iy = oy * w.stride_h + ky * w.dilation_h - w.pad_top;
        const size_t ix0 = ox * w.stride_w + rx.first * w.dilation_w - w.pad_left;
        const float* src = x + ((image * s.ih + iy) * s.iw + ix0) * s.ic + group_offset;
        std::fill(dst, dst + rx.first * group_in, 0.0f);
        if (runs) {
          copy_short(src, (rx.last - rx.first) * group_in, dst + rx.first * group_in);
        } else {
          for (size_t kx = rx.first; kx < rx.last; ++kx) {
            copy_short(src, group_in, dst + kx * group_in);
            src += size_t(w.dilation_w) * s.ic;
          }
        }
        std::fill(dst + rx.last * group_in, dst + row_len, 0.0f);
      }
    }
  }
}

// The filter (floats [cout, patch]) packed for the direct convolution: a
// static filter once per runtime, in the runtime's cache under layout
// 0xDC00 (apart from the float filters' 0x100 + dim and the integer
// panels); any other per call, in scratch 4 (unused on that path).
Result<const float*> direct_conv_filter(NodeCall& call, const Slot& w, const float* filter, int64_t cout,
                                        int64_t patch) {
  constexpr uint32_t kDirectConvLayout = 0xDC00;
  const size_t floats = size_t(kernels::linalg::direct_conv_packed_floats(cout, patch));
  float* dst;
  if (w.def->is_constant()) {
    ETKIT_ASSIGN_OR_RETURN(const Runtime::Packed p, call.runtime.packed(w.def, kDirectConvLayout, floats * sizeof(float)));
    dst = static_cast<float*>(p.data);
    if (!p.fresh) return static_cast<const float*>(dst);
  } else {
    ETKIT_TRY(call.runtime.check_scratch(uint64_t(floats) * sizeof(float)));
    std::vector<float>& scratch = call.runtime.scratch(4);
    scratch.resize(floats);
    dst = scratch.data();
  }
  kernels::linalg::pack_direct_conv_filter(filter, cout, patch, dst);
  return static_cast<const float*>(dst);
}

Status convolution(NodeCall& call) {
  const xnn::Node& node = call.node;
  Slot& x = *call.in[0];
  Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  const size_t groups = node.groups, gin = node.group_input_channels, gout = node.group_output_channels;
  ETKIT_ASSIGN_OR_RETURN(ConvShape s, conv_shape(call, x, groups * gout));
  if (s.ic != groups * gin) {
    return node_error("input has " + std::to_string(s.ic) + " channels, groups * group_input_channels is " +
                                std::to_string(groups * gin));
  }
  const std::vector<size_t> filter_dims = {groups * gout, node.window.kernel_h, node.window.kernel_w, gin};
  if (w.dims != filter_dims) return node_error("filter dims do not match [groups * out, kh, kw, in]");
  ETKIT_TRY(call.runtime.reshape(out, std::vector<size_t>{s.n, s.oh, s.ow, s.oc}));
  if (integer_path(x, w, out)) return quantized_convolution(call, s);
  ETKIT_ASSIGN_OR_RETURN(const float* a, read_floats(x, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* wf, filter_floats(call.runtime, w, 0, call.runtime.scratch(1)));
  ETKIT_ASSIGN_OR_RETURN(const float* bias, bias_floats(call.in[2], s.oc, call.runtime.scratch(2)));
  float* y = output_floats(out, call.runtime.scratch(3));
  const size_t patch = size_t(node.window.kernel_h) * node.window.kernel_w * gin;
  const bool pointwise = patch == gin && node.window.stride_h == 1 && node.window.stride_w == 1 &&
                         node.window.pad_top + node.window.pad_bottom + node.window.pad_left + node.window.pad_right == 0;
  const size_t pixels = s.oh * s.ow;
  if (groups == 1 && gout <= size_t(kernels::linalg::kDirectConvMaxOutputChannels) && !pointwise) {
    // Few output channels: the direct kernel reads the input in place and
    // adds bias and clamp itself.
    const xnn::Window& win = node.window;
    const kernels::linalg::DirectConv d{int64_t(s.ih), int64_t(s.iw), int64_t(s.oh), int64_t(s.ow), win.kernel_h,
                                        win.kernel_w, win.stride_h, win.stride_w, win.pad_top, win.pad_left,
                                        win.dilation_h, win.dilation_w, int64_t(gin), int64_t(gout), 1,
                                        int64_t(s.iw * s.ic), int64_t(s.ic), true};
    ETKIT_TRY(call.runtime.check_scratch(uint64_t(kernels::linalg::direct_conv_scratch_bytes(d))));
    ETKIT_ASSIGN_OR_RETURN(const float* packed, direct_conv_filter(call, w, wf, int64_t(gout), int64_t(patch)));
    const bool clamp = node.has_output_min_max && !(std::isinf(node.output_min) && std::isinf(node.output_max));
    for (size_t img = 0; img < s.n; ++img) {
      kernels::linalg::direct_conv(d, a + img * s.ih * s.iw * s.ic, packed, bias, clamp, node.output_min,
                                   node.output_max, y + img * pixels * s.oc, int64_t(s.oc), 1);
    }
    return write_floats(out, y);
  }
  // Patches in chunks of output rows so the scratch stays within ~16 MiB.
  const size_t rows_per_chunk = std::max<size_t>(1, (size_t(4) << 20) / std::max<size_t>(1, s.ow * patch));
  std::vector<float>& cols = call.runtime.scratch(4);
  if (!pointwise) ETKIT_TRY(call.runtime.check_scratch(uint64_t(s.ow) * patch * sizeof(float)));
  for (size_t img = 0; img < s.n; ++img) {
    for (size_t g = 0; g < groups; ++g) {
      const float* wg = wf + g * gout * patch;
      float* yg = y + img * pixels * s.oc + g * gout;
      if (pointwise) {
        // A 1x1 convolution is a fully connected layer over the pixels.
        sgemm(int64_t(pixels), int64_t(gout), int64_t(gin), 1.0f,
              MatrixView{a + img * s.ih * s.iw * s.ic + g * gin, int64_t(s.ic), 1}, MatrixView{wg, 1, int64_t(patch)},
              0.0f, yg, int64_t(s.oc));
        continue;
      }
      for (size_t oy0 = 0; oy0 < s.oh; oy0 += rows_per_chunk) {
        const size_t rows = std::min(rows_per_chunk, s.oh - oy0);
        cols.resize(rows * s.ow * patch);
        im2col_nhwc(a, s, node.window, g * gin, gin, img, oy0, rows, cols.data());
        sgemm(int64_t(rows * s.ow), int64_t(gout), int64_t(patch), 1.0f, MatrixView{cols.data(), int64_t(patch), 1},
              MatrixView{wg, 1, int64_t(patch)}, 0.0f, yg + oy0 * s.ow * s.oc, int64_t(s.oc));
      }
    }
  }
  add_bias_and_clamp(y, s.n * pixels, s.oc, s.oc, bias, node);
  return write_floats(out, y);
}

Status depthwise_convolution(NodeCall& call) {
  const xnn::Node& node = call.node;
  Slot& x = *call.in[0];
  Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  // XNNCompiler: input channels = groups, multiplier = group_output / group_input.
  const size_t channels = node.groups;
  if (node.group_output_channels % node.group_input_channels != 0) {
    return node_error("group_output_channels is not a multiple of group_input_channels");
  }
  const size_t multiplier = node.group_output_channels / node.group_input_channels;
  ETKIT_ASSIGN_OR_RETURN(ConvShape s, conv_shape(call, x, channels * multiplier));
  if (s.ic != channels) return node_error("input has " + std::to_string(s.ic) + " channels, groups is " + std::to_string(channels));
  const std::vector<size_t> filter_dims = {1, node.window.kernel_h, node.window.kernel_w, s.oc};
  if (w.dims != filter_dims) return node_error("filter dims do not match [1, kh, kw, channels * multiplier]");
  ETKIT_TRY(call.runtime.reshape(out, std::vector<size_t>{s.n, s.oh, s.ow, s.oc}));
  if (integer_path(x, w, out)) return quantized_depthwise_convolution(call, s, multiplier);
  ETKIT_ASSIGN_OR_RETURN(const float* a, read_floats(x, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* wf, filter_floats(call.runtime, w, 3, call.runtime.scratch(1)));
  ETKIT_ASSIGN_OR_RETURN(const float* bias, bias_floats(call.in[2], s.oc, call.runtime.scratch(2)));
  float* y = output_floats(out, call.runtime.scratch(3));
  const xnn::Window& win = node.window;
  const float inf = std::numeric_limits<float>::infinity();
  const float lo = node.has_output_min_max ? node.output_min : -inf, hi = node.has_output_min_max ? node.output_max : inf;
  const kernels::linalg::DepthwiseWindow dw{int64_t(s.ih), int64_t(s.iw), int64_t(s.oh), int64_t(s.ow),
                                            win.kernel_h, win.kernel_w, win.stride_h, win.stride_w,
                                            win.pad_top, win.pad_left, win.dilation_h, win.dilation_w};
  // Output channel c * multiplier + m reads input channel c: the image with
  // each channel repeated `multiplier` times is a multiplier-1 input.
  std::vector<float>& repeated = call.runtime.scratch(4);
  if (multiplier > 1) {
    ETKIT_TRY(call.runtime.check_scratch(uint64_t(s.ih) * s.iw * s.oc * sizeof(float)));
    repeated.resize(s.ih * s.iw * s.oc);
  }
  for (size_t img = 0; img < s.n; ++img) {
    const float* image = a + img * s.ih * s.iw * s.ic;
    if (multiplier > 1) {
      float* r = repeated.data();
      for (size_t p = 0; p < s.ih * s.iw; ++p) {
        for (size_t c = 0; c < s.ic; ++c, r += multiplier) std::fill(r, r + multiplier, image[p * s.ic + c]);
      }
      image = repeated.data();
    }
    kernels::linalg::depthwise_nhwc(dw, int64_t(s.oc), image, int64_t(s.iw * s.oc), int64_t(s.oc), wf, bias, lo, hi,
                                    y + img * s.oh * s.ow * s.oc);
  }
  return write_floats(out, y);
}

Status transposed_convolution(NodeCall& call) {
  const xnn::Node& node = call.node;
  const xnn::Window& win = node.window;
  Slot& x = *call.in[0];
  Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  if (x.dims.size() != 4) return node_error("input must be NHWC (rank 4)");
  const size_t groups = node.groups, gin = node.group_input_channels, gout = node.group_output_channels;
  const size_t n = x.dims[0], ih = x.dims[1], iw = x.dims[2], ic = x.dims[3], oc = groups * gout;
  if (ic != groups * gin) return node_error("input channels do not match groups * group_input_channels");
  if (win.stride_h == 0 || win.stride_w == 0 || win.dilation_h == 0 || win.dilation_w == 0 || win.kernel_h == 0 ||
      win.kernel_w == 0) {
    return node_error("kernel, stride and dilation must be positive");
  }
  // (in - 1) * stride + adjustment + dilated kernel - padding (xnnpack.h).
  const int64_t oh = int64_t(ih - 1) * win.stride_h + node.adjustment_h + int64_t(win.dilation_h) * (win.kernel_h - 1) + 1 -
                     win.pad_top - win.pad_bottom;
  const int64_t ow = int64_t(iw - 1) * win.stride_w + node.adjustment_w + int64_t(win.dilation_w) * (win.kernel_w - 1) + 1 -
                     win.pad_left - win.pad_right;
  if (ih == 0 || iw == 0 || oh <= 0 || ow <= 0) return node_error("empty or negative output size");
  const std::vector<size_t> filter_dims = {oc, win.kernel_h, win.kernel_w, gin};
  if (w.dims != filter_dims) return node_error("filter dims do not match [groups * out, kh, kw, in]");
  ETKIT_TRY(call.runtime.reshape(out, std::vector<size_t>{n, size_t(oh), size_t(ow), oc}));
  ETKIT_ASSIGN_OR_RETURN(const float* a, read_floats(x, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* wf, filter_floats(call.runtime, w, 0, call.runtime.scratch(1)));
  ETKIT_ASSIGN_OR_RETURN(const float* bias, bias_floats(call.in[2], oc, call.runtime.scratch(2)));
  float* y = output_floats(out, call.runtime.scratch(3));
  const size_t total = n * size_t(oh) * size_t(ow);
  for (size_t p = 0; p < total; ++p) {
    float* row = y + p * oc;
    if (bias) {
      std::memcpy(row, bias, oc * sizeof(float));
    } else {
      std::fill(row, row + oc, 0.0f);
    }
  }
  // Per group a GEMM gives every input pixel's contribution to each tap,
  // cols[pixel, (tap, o)] = x_g[pixel, :] @ filter_g[o, tap, :], which then
  // adds into the output pixel the tap lands on (col2im). The filter is
  // rearranged to [gin, (tap, o)] so each tap's outputs are contiguous.
  const size_t taps = size_t(win.kernel_h) * win.kernel_w, ncols = taps * gout;
  std::vector<float>& wt = call.runtime.scratch(4);
  wt.resize(groups * gin * ncols);
  for (size_t g = 0; g < groups; ++g) {
    for (size_t o = 0; o < gout; ++o) {
      for (size_t t = 0; t < taps; ++t) {
        const float* src = wf + ((g * gout + o) * taps + t) * gin;
        for (size_t i = 0; i < gin; ++i) wt[(g * gin + i) * ncols + t * gout + o] = src[i];
      }
    }
  }
  // Input pixels per GEMM, so the columns stay within ~16 MiB.
  const size_t pixels = ih * iw, chunk = std::min(pixels, std::max<size_t>(1, (size_t(4) << 20) / ncols));
  ETKIT_TRY(call.runtime.check_scratch(uint64_t(chunk) * ncols * sizeof(float)));
  std::vector<float>& cols = call.runtime.scratch(5);
  cols.resize(chunk * ncols);
  for (size_t img = 0; img < n; ++img) {
    for (size_t g = 0; g < groups; ++g) {
      for (size_t p0 = 0; p0 < pixels; p0 += chunk) {
        const size_t count = std::min(chunk, pixels - p0);
        sgemm(int64_t(count), int64_t(ncols), int64_t(gin), 1.0f,
              MatrixView{a + (img * pixels + p0) * ic + g * gin, int64_t(ic), 1},
              MatrixView{wt.data() + g * gin * ncols, int64_t(ncols), 1}, 0.0f, cols.data(), int64_t(ncols));
        for (size_t p = p0; p < p0 + count; ++p) {
          const size_t iy = p / iw, ix = p % iw;
          for (size_t ky = 0; ky < win.kernel_h; ++ky) {
            const int64_t oy = int64_t(iy * win.stride_h + ky * win.dilation_h) - int64_t(win.pad_top);
            if (oy < 0 || oy >= oh) continue;
            for (size_t kx = 0; kx < win.kernel_w; ++kx) {
              const int64_t ox = int64_t(ix * win.stride_w + kx * win.dilation_w) - int64_t(win.pad_left);
              if (ox < 0 || ox >= ow) continue;
              float* __restrict py = y + ((img * size_t(oh) + size_t(oy)) * size_t(ow) + size_t(ox)) * oc + g * gout;
              const float* __restrict src = cols.data() + (p - p0) * ncols + (ky * win.kernel_w + kx) * gout;
              for (size_t o = 0; o < gout; ++o) py[o] += src[o];
            }
          }
        }
      }
    }
  }
  clamp_all(y, total * oc, node);
  return write_floats(out, y);
}

// [..., m, k] x [..., k, n] (or [..., n, k] with kTransposeWeights), the
// batch dimensions broadcast.
Status batch_matrix_multiply(NodeCall& call) {
  Slot& a = *call.in[0];
  Slot& b = *call.in[1];
  Slot& out = *call.out[0];
  if (a.dims.size() < 2 || b.dims.size() < 2) return node_error("operands need at least 2 dimensions");
  const bool transposed = (call.node.flags & xnn::kTransposeWeights) != 0;
  const size_t m = a.dims[a.dims.size() - 2], k = a.dims.back();
  const size_t kb = transposed ? b.dims.back() : b.dims[b.dims.size() - 2];
  const size_t nn = transposed ? b.dims[b.dims.size() - 2] : b.dims.back();
  if (k != kb) return node_error("inner dimensions differ: " + std::to_string(k) + " vs " + std::to_string(kb));
  const size_t batch_rank = std::max(a.dims.size(), b.dims.size()) - 2;
  std::vector<size_t> shape(batch_rank + 2), sa(batch_rank, 0), sb(batch_rank, 0);
  size_t stride_a = m * k, stride_b = k * nn;
  for (size_t i = batch_rank; i-- > 0;) {
    const size_t ia = i + a.dims.size() - 2 >= batch_rank ? a.dims[i + a.dims.size() - 2 - batch_rank] : 1;
    const size_t ib = i + b.dims.size() - 2 >= batch_rank ? b.dims[i + b.dims.size() - 2 - batch_rank] : 1;
    if (ia != ib && ia != 1 && ib != 1) return node_error("batch dimensions cannot broadcast");
    shape[i] = std::max(ia, ib);
    sa[i] = ia == 1 ? 0 : stride_a;
    sb[i] = ib == 1 ? 0 : stride_b;
    stride_a *= ia;
    stride_b *= ib;
  }
  shape[batch_rank] = m;
  shape[batch_rank + 1] = nn;
  ETKIT_TRY(call.runtime.reshape(out, shape));
  ETKIT_ASSIGN_OR_RETURN(const float* pa, read_floats(a, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* pb, read_floats(b, call.runtime.scratch(1)));
  float* y = output_floats(out, call.runtime.scratch(2));
  size_t batches = 1;
  for (size_t i = 0; i < batch_rank; ++i) batches *= shape[i];
  std::vector<size_t> index(batch_rank, 0);
  for (size_t bi = 0; bi < batches; ++bi) {
    size_t oa = 0, ob = 0;
    for (size_t i = 0; i < batch_rank; ++i) {
      oa += index[i] * sa[i];
      ob += index[i] * sb[i];
    }
    const MatrixView vb = transposed ? MatrixView{pb + ob, 1, int64_t(k)} : MatrixView{pb + ob, int64_t(nn), 1};
    sgemm(int64_t(m), int64_t(nn), int64_t(k), 1.0f, MatrixView{pa + oa, int64_t(k), 1}, vb, 0.0f, y + bi * m * nn,
          int64_t(nn));
    for (size_t i = batch_rank; i-- > 0;) {
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  return write_floats(out, y);
}

}  // namespace

// Per-row asymmetric int8 quantization, as XNNPACK's f32 -> qd8 convert
// (xnn_qd8_asymmetric_quantization_params, then f32-qs8-vcvt): the row's
// range widened to include 0; inverse scale 255 / range (1 for an all-zero
// row); the zero point from whichever end has the smaller error, clamped
// and rounded; values times the inverse scale, clamped to [-128, 127] less
// the zero point, rounded to nearest even, plus the zero point. The row's
// dequantization scale is 1 / inverse scale.
Status quantize_dynamic(const Slot& in, Slot& out) {
  if (in.dtype != xnn::Datatype::kFp32) return node_error("dynamic quantization reads fp32, not " + std::string(xnn::datatype_name(in.dtype)));
  const int nonbatch = out.def->quant.scheme == xnn::QuantScheme::kPerTokenDynamic ? out.def->quant.num_nonbatch_dims : 1;
  size_t cols = 1;
  for (size_t d = in.dims.size() - std::min<size_t>(size_t(nonbatch), in.dims.size()); d < in.dims.size(); ++d) cols *= in.dims[d];
  const size_t n = in.numel();
  const size_t rows = cols == 0 ? 0 : n / cols;
  out.channel_scales.assign(rows, 1.0f);
  out.row_zero_points.assign(rows, 0);
  const float* x = reinterpret_cast<const float*>(in.data);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float lo = 0, hi = 0;
    for (size_t c = 0; c < cols; ++c) {
      lo = std::fmin(lo, row[c]);
      hi = std::fmax(hi, row[c]);
    }
    const float inv = lo == hi ? 1.0f : 255.0f / (hi - lo);
    const float descaled_min = lo * inv, descaled_max = hi * inv;
    float zp = (-128.0f + descaled_min) + (127.0f + descaled_max) > 0 ? -128.0f - descaled_min : 127.0f - descaled_max;
    zp = std::fmin(std::fmax(zp, -128.0f), 127.0f);
    const int32_t zero_point = int32_t(std::nearbyint(zp));
    out.channel_scales[r] = 1.0f / inv;
    out.row_zero_points[r] = zero_point;
    const float qlo = float(-128 - zero_point), qhi = float(127 - zero_point);
    for (size_t c = 0; c < cols; ++c) {
      const float q = std::nearbyint(std::fmin(std::fmax(row[c] * inv, qlo), qhi));
      out.data[r * cols + c] = uint8_t(int8_t(int32_t(q) + zero_point));
    }
  }
  return {};
}

void add_linear_nodes(NodeTable& table) {
  using T = xnn::NodeType;
  table[size_t(T::kFullyConnected)] = fully_connected;
  table[size_t(T::kConv2d)] = convolution;
  table[size_t(T::kDepthwiseConv2d)] = depthwise_convolution;
  table[size_t(T::kConvTranspose2d)] = transposed_convolution;
  table[size_t(T::kBatchMatrixMultiply)] = batch_matrix_multiply;
}

}  // namespace etkit::rt::xnnpack
