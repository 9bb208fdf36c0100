// Data movement (transpose, reshape, slice, pad, concatenate: byte-exact for
// every datatype), pooling and global average pooling over NHWC, bilinear
// resize and scaled dot-product attention.
#include <algorithm>
#include <cstring>

#include "runner/backends/xnnpack/xnn_ops.h"
#include "runner/backends/xnnpack/xnn_ops_table.h"
#include "runner/kernels/linalg/gemm.h"

namespace etkit::rt::xnnpack {
namespace {

Result<size_t> movable_size(const Slot& s) {
  const size_t e = element_size(s.dtype);
  if (e == 0) return node_error("cannot move " + std::string(xnn::datatype_name(s.dtype)) + " elements");
  return e;
}

Status same_datatype(const Slot& in, const Slot& out) {
  if (in.dtype != out.dtype) {
    return node_error("input is " + std::string(xnn::datatype_name(in.dtype)) + ", output " +
                                std::string(xnn::datatype_name(out.dtype)));
  }
  return {};
}

std::vector<size_t> contiguous_strides(std::span<const size_t> dims) {
  std::vector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

Status transpose(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  const auto& perm = call.node.perm;
  if (perm.size() != in.dims.size()) return node_error("perm has " + std::to_string(perm.size()) + " entries, input rank " + std::to_string(in.dims.size()));
  ETKIT_TRY(same_datatype(in, out));
  ETKIT_ASSIGN_OR_RETURN(size_t e, movable_size(in));
  std::vector<size_t> shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) shape[i] = in.dims[perm[i]];
  ETKIT_TRY(call.runtime.reshape(out, shape));
  const auto in_strides = contiguous_strides(in.dims);
  const size_t rank = shape.size(), n = out.numel();
  if (n == 0) return {};
  std::vector<size_t> index(rank, 0);
  for (size_t o = 0; o < n; ++o) {
    size_t src = 0;
    for (size_t k = 0; k < rank; ++k) src += index[k] * in_strides[perm[k]];
    std::memcpy(out.data + o * e, in.data + src * e, e);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return {};
}

// A dimension of 0 in the new shape is inferred from the element count.
Status reshape(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  ETKIT_TRY(same_datatype(in, out));
  ETKIT_ASSIGN_OR_RETURN(size_t e, movable_size(in));
  const size_t n = in.numel();
  std::vector<size_t> shape(call.node.shape.begin(), call.node.shape.end());
  size_t known = 1, inferred = shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      if (inferred != shape.size()) return node_error("new shape has more than one inferred (0) dimension");
      inferred = i;
    } else {
      known *= shape[i];
    }
  }
  if (inferred != shape.size()) shape[inferred] = known == 0 ? 0 : n / known;
  size_t total = 1;
  for (size_t d : shape) total *= d;
  if (total != n) return node_error("new shape holds " + std::to_string(total) + " elements, the input " + std::to_string(n));
  ETKIT_TRY(call.runtime.reshape(out, shape));
  if (out.data != in.data) std::memmove(out.data, in.data, n * e);
  return {};
}

Status slice(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  const auto& offsets = call.node.offsets;
  if (offsets.size() != in.dims.size()) return node_error("offsets do not match the input rank");
  ETKIT_TRY(same_datatype(in, out));
  ETKIT_ASSIGN_OR_RETURN(size_t e, movable_size(in));
  std::vector<size_t> shape(in.dims.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    // A size of 0 extends the slice to the end of its dimension.
    const size_t size = call.node.shape[i] == 0 ? (offsets[i] <= in.dims[i] ? in.dims[i] - offsets[i] : 0) : call.node.shape[i];
    if (offsets[i] > in.dims[i] || size > in.dims[i] - offsets[i]) {
      return node_error("slice [" + std::to_string(offsets[i]) + ", +" + std::to_string(size) + ") of dimension " +
                                  std::to_string(i) + " exceeds its size " + std::to_string(in.dims[i]));
    }
    shape[i] = size;
  }
  ETKIT_TRY(call.runtime.reshape(out, shape));
  const auto strides = contiguous_strides(in.dims);
  const size_t n = out.numel(), rank = shape.size();
  if (n == 0) return {};
  if (rank == 0) {
    std::memcpy(out.data, in.data, e);
    return {};
  }
  const size_t inner = shape.back();
  std::vector<size_t> index(rank, 0);
  for (size_t o = 0; o < n; o += inner) {
    size_t src = 0;
    for (size_t k = 0; k < rank; ++k) src += (index[k] + offsets[k]) * strides[k];
    std::memcpy(out.data + o * e, in.data + src * e, inner * e);
    for (size_t k = rank - 1; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return {};
}

Status constant_pad(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  const auto& pre = call.node.pre_paddings;
  const auto& post = call.node.post_paddings;
  if (pre.size() < in.dims.size()) return node_error("paddings do not cover the input rank");
  ETKIT_TRY(same_datatype(in, out));
  ETKIT_ASSIGN_OR_RETURN(size_t e, movable_size(in));
  const size_t rank = in.dims.size();
  std::vector<size_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = in.dims[i] + pre[i] + post[i];
  ETKIT_TRY(call.runtime.reshape(out, shape));
  // The padding value in the output's datatype (8-bit: xnn_qs8_quantize, as
  // xnn_define_static_constant_pad stores it).
  std::vector<float>& one = call.runtime.scratch(0);
  std::vector<uint8_t> fill(e, 0);
  if (is_q8(out)) {
    fill[0] = uint8_t(quantized_bound(call.node.scalar, q8_of(out)));
  } else {
    Slot cell = out;
    cell.dims = {};
    cell.data = fill.data();
    one.assign(1, call.node.scalar);
    ETKIT_TRY(write_floats(cell, one.data()));
  }
  const size_t n = out.numel();
  for (size_t o = 0; o < n; ++o) std::memcpy(out.data + o * e, fill.data(), e);
  if (in.numel() == 0 || rank == 0) {
    if (rank == 0 && n) std::memcpy(out.data, in.data, e);
    return {};
  }
  const auto out_strides = contiguous_strides(shape);
  const size_t inner = in.dims.back();
  std::vector<size_t> index(rank, 0);
  for (size_t i = 0; i < in.numel(); i += inner) {
    size_t dst = 0;
    for (size_t k = 0; k < rank; ++k) dst += (index[k] + pre[k]) * out_strides[k];
    std::memcpy(out.data + dst * e, in.data + i * e, inner * e);
    for (size_t k = rank - 1; k-- > 0;) {
      if (++index[k] < in.dims[k]) break;
      index[k] = 0;
    }
  }
  return {};
}

Status concatenate(NodeCall& call) {
  Slot& out = *call.out[0];
  Slot& first = *call.in[0];
  const size_t rank = first.dims.size();
  const size_t axis = call.node.axis;
  if (axis >= rank) return node_error("axis " + std::to_string(axis) + " outside rank " + std::to_string(rank));
  ETKIT_ASSIGN_OR_RETURN(size_t e, movable_size(first));
  std::vector<size_t> shape = first.dims;
  shape[axis] = 0;
  for (Slot* in : call.in) {
    ETKIT_TRY(same_datatype(*in, out));
    if (in->dims.size() != rank) return node_error("inputs differ in rank");
    for (size_t k = 0; k < rank; ++k) {
      if (k != axis && in->dims[k] != first.dims[k]) return node_error("inputs differ outside the axis (dimension " + std::to_string(k) + ")");
    }
    shape[axis] += in->dims[axis];
  }
  ETKIT_TRY(call.runtime.reshape(out, shape));
  size_t outer = 1, inner = 1;
  for (size_t k = 0; k < axis; ++k) outer *= shape[k];
  for (size_t k = axis + 1; k < rank; ++k) inner *= shape[k];
  const size_t out_row = shape[axis] * inner * e;
  size_t column = 0;
  for (Slot* in : call.in) {
    const size_t row = in->dims[axis] * inner * e;
    // Quantized inputs with other parameters than the output requantize.
    if (is_per_tensor_quantized(in->dtype) && (in->scale != out.scale || in->zero_point != out.zero_point)) {
      ETKIT_ASSIGN_OR_RETURN(const float* values, read_floats(*in, call.runtime.scratch(0)));
      Slot part = out;
      part.dims = {row / e};
      std::vector<uint8_t> bytes(row);
      for (size_t o = 0; o < outer; ++o) {
        part.data = bytes.data();
        ETKIT_TRY(write_floats(part, values + o * (row / e)));
        std::memcpy(out.data + o * out_row + column, bytes.data(), row);
      }
    } else {
      for (size_t o = 0; o < outer; ++o) std::memcpy(out.data + o * out_row + column, in->data + o * row, row);
    }
    column += row;
  }
  return {};
}

struct PoolGeometry {
  size_t n, ih, iw, c, oh, ow;
};

Result<PoolGeometry> pool_geometry(const NodeCall& call, const Slot& in) {
  if (in.dims.size() != 4) return node_error("input must be NHWC (rank 4)");
  const xnn::Window& w = call.node.window;
  if (w.kernel_h == 0 || w.kernel_w == 0 || w.stride_h == 0 || w.stride_w == 0 || w.dilation_h == 0 || w.dilation_w == 0) {
    return node_error("pooling size, stride and dilation must be positive");
  }
  PoolGeometry g{in.dims[0], in.dims[1], in.dims[2], in.dims[3], 0, 0};
  const size_t eh = size_t(w.dilation_h) * (w.kernel_h - 1) + 1, ew = size_t(w.dilation_w) * (w.kernel_w - 1) + 1;
  const size_t ph = g.ih + w.pad_top + w.pad_bottom, pw = g.iw + w.pad_left + w.pad_right;
  if (ph < eh || pw < ew) return node_error("pooling window larger than the padded input");
  g.oh = (ph - eh) / w.stride_h + 1;
  g.ow = (pw - ew) / w.stride_w + 1;
  return g;
}

// s8/u8 max pooling: the largest byte under the window, clamped between the
// quantized output min/max (the output keeps the input's parameters).
void max_pooling_q8(const NodeCall& call, const PoolGeometry& g, const Slot& in, Slot& out) {
  const Q8 iq = q8_of(in), oq = q8_of(out);
  const xnn::Window& w = call.node.window;
  const int32_t lo = quantized_bound(call.node.output_min, oq), hi = quantized_bound(call.node.output_max, oq);
  for (size_t img = 0; img < g.n; ++img) {
    for (size_t oy = 0; oy < g.oh; ++oy) {
      const TapRange ry = valid_taps(oy, w.stride_h, w.dilation_h, w.pad_top, w.kernel_h, g.ih);
      for (size_t ox = 0; ox < g.ow; ++ox) {
        const TapRange rx = valid_taps(ox, w.stride_w, w.dilation_w, w.pad_left, w.kernel_w, g.iw);
        const size_t o = ((img * g.oh + oy) * g.ow + ox) * g.c;
        for (size_t c = 0; c < g.c; ++c) {
          int32_t m = iq.lo();
          for (size_t ky = ry.first; ky < ry.last; ++ky) {
            const size_t iy = oy * w.stride_h + ky * w.dilation_h - w.pad_top;
            for (size_t kx = rx.first; kx < rx.last; ++kx) {
              const size_t ix = ox * w.stride_w + kx * w.dilation_w - w.pad_left;
              m = std::max(m, iq.at(in.data, ((img * g.ih + iy) * g.iw + ix) * g.c + c));
            }
          }
          out.data[o + c] = uint8_t(std::clamp(m, lo, hi));
        }
      }
    }
  }
}

// Max pooling ignores padding; average pooling divides by the number of
// input pixels under the window (padding excluded, as XNNPACK does).
Status pooling(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(PoolGeometry g, pool_geometry(call, in));
  ETKIT_TRY(call.runtime.reshape(out, std::vector<size_t>{g.n, g.oh, g.ow, g.c}));
  if (call.node.type == xnn::NodeType::kMaxPooling2d && is_q8(in) && in.dtype == out.dtype) {
    max_pooling_q8(call, g, in, out);
    return {};
  }
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(out, call.runtime.scratch(1));
  const xnn::Window& w = call.node.window;
  const bool is_max = call.node.type == xnn::NodeType::kMaxPooling2d;
  for (size_t img = 0; img < g.n; ++img) {
    for (size_t oy = 0; oy < g.oh; ++oy) {
      for (size_t ox = 0; ox < g.ow; ++ox) {
        float* acc = y + ((img * g.oh + oy) * g.ow + ox) * g.c;
        std::fill(acc, acc + g.c, is_max ? -INFINITY : 0.0f);
        const TapRange ry = valid_taps(oy, w.stride_h, w.dilation_h, w.pad_top, w.kernel_h, g.ih);
        const TapRange rx = valid_taps(ox, w.stride_w, w.dilation_w, w.pad_left, w.kernel_w, g.iw);
        const size_t count = (ry.last - ry.first) * (rx.last - rx.first);
        for (size_t ky = ry.first; ky < ry.last; ++ky) {
          const size_t iy = oy * w.stride_h + ky * w.dilation_h - w.pad_top;
          for (size_t kx = rx.first; kx < rx.last; ++kx) {
            const size_t ix = ox * w.stride_w + kx * w.dilation_w - w.pad_left;
            const float* px = x + ((img * g.ih + iy) * g.iw + ix) * g.c;
            if (is_max) {
              for (size_t c = 0; c < g.c; ++c) acc[c] = std::fmax(acc[c], px[c]);
            } else {
              for (size_t c = 0; c < g.c; ++c) acc[c] += px[c];
            }
          }
        }
        if (!is_max) {
          const float inv = count ? 1.0f / float(count) : 0.0f;
          for (size_t c = 0; c < g.c; ++c) acc[c] *= inv;
        }
        clamp_all(acc, g.c, call.node);
      }
    }
  }
  return write_floats(out, y);
}

// XNNPACK's 8-bit mean (a static reduce): int32 sums of the stored values,
// converted as float(sum) * scale' + zero_point' with scale' = (input scale
// / output scale) * (1 / count) and zero_point' = out_zp - count * in_zp *
// scale' (the input zero point folded into the output's), rounded to
// nearest even and saturated; then the clamp node xnn_define_global_average_
// pooling_2d adds for a finite min/max, between the quantized bounds.
void mean_q8(const NodeCall& call, const Slot& in, Slot& out, size_t n, size_t pixels, size_t c) {
  const Q8 iq = q8_of(in), oq = q8_of(out);
  const float scale = (in.scale / out.scale) * (1.0f / float(pixels));
  const float zero_point = float(oq.zero_point) - (float(int32_t(pixels)) * float(iq.zero_point)) * scale;
  int32_t lo = oq.lo(), hi = oq.hi();
  const xnn::Node& node = call.node;
  if (node.has_output_min_max && !(node.output_min == -INFINITY && node.output_max == INFINITY)) {
    lo = quantized_bound(node.output_min, oq);
    hi = quantized_bound(node.output_max, oq);
  }
  for (size_t img = 0; img < n; ++img) {
    for (size_t k = 0; k < c; ++k) {
      uint32_t sum = 0;  // wraps as XNNPACK's int32 accumulators do
      for (size_t p = 0; p < pixels; ++p) sum += uint32_t(iq.at(in.data, (img * pixels + p) * c + k));
      const int32_t q = quantize_reference(float(int32_t(sum)), scale, zero_point, oq.lo(), oq.hi());
      out.data[img * c + k] = uint8_t(std::clamp(q, lo, hi));
    }
  }
}

// The mean over height and width: [N, H, W, C] -> [N, 1, 1, C] (or [N, C]
// when the output is declared 2-D).
Status global_average_pooling(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  if (in.dims.size() != 4) return node_error("input must be NHWC (rank 4)");
  const size_t n = in.dims[0], pixels = in.dims[1] * in.dims[2], c = in.dims[3];
  const std::vector<size_t> shape = out.def->dims.size() == 2 ? std::vector<size_t>{n, c} : std::vector<size_t>{n, 1, 1, c};
  ETKIT_TRY(call.runtime.reshape(out, shape));
  if (is_q8(in) && in.dtype == out.dtype) {
    mean_q8(call, in, out, n, pixels, c);
    return {};
  }
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(out, call.runtime.scratch(1));
  for (size_t img = 0; img < n; ++img) {
    float* acc = y + img * c;
    std::fill(acc, acc + c, 0.0f);
    for (size_t p = 0; p < pixels; ++p) {
      const float* px = x + (img * pixels + p) * c;
      for (size_t k = 0; k < c; ++k) acc[k] += px[k];
    }
    const float inv = pixels ? 1.0f / float(pixels) : 0.0f;
    for (size_t k = 0; k < c; ++k) acc[k] *= inv;
    clamp_all(acc, c, call.node);
  }
  return write_floats(out, y);
}

// Max pooling with the window's flat index (ky * kw + kx) of the maximum,
// the first one on ties; stride = window (xnn_define_argmax_pooling_2d).
Status argmax_pooling(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& values = *call.out[0];
  Slot& indices = *call.out[1];
  ETKIT_ASSIGN_OR_RETURN(PoolGeometry g, pool_geometry(call, in));
  if (element_size(indices.dtype) != 4) return node_error("indices must be 32-bit");
  ETKIT_TRY(call.runtime.reshape(values, std::vector<size_t>{g.n, g.oh, g.ow, g.c}));
  ETKIT_TRY(call.runtime.reshape(indices, std::vector<size_t>{g.n, g.oh, g.ow, g.c}));
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(values, call.runtime.scratch(1));
  const xnn::Window& w = call.node.window;
  for (size_t img = 0; img < g.n; ++img) {
    for (size_t oy = 0; oy < g.oh; ++oy) {
      for (size_t ox = 0; ox < g.ow; ++ox) {
        const size_t o = ((img * g.oh + oy) * g.ow + ox) * g.c;
        const TapRange ry = valid_taps(oy, w.stride_h, 1, w.pad_top, w.kernel_h, g.ih);
        const TapRange rx = valid_taps(ox, w.stride_w, 1, w.pad_left, w.kernel_w, g.iw);
        for (size_t c = 0; c < g.c; ++c) {
          float best = -INFINITY;
          uint32_t best_index = 0;
          for (size_t ky = ry.first; ky < ry.last; ++ky) {
            const size_t iy = oy * w.stride_h + ky - w.pad_top;
            for (size_t kx = rx.first; kx < rx.last; ++kx) {
              const size_t ix = ox * w.stride_w + kx - w.pad_left;
              const float v = x[((img * g.ih + iy) * g.iw + ix) * g.c + c];
              if (v > best) {
                best = v;
                best_index = uint32_t(ky * w.kernel_w + kx);
              }
            }
          }
          y[o + c] = best;
          std::memcpy(indices.data + (o + c) * 4, &best_index, 4);
        }
      }
    }
  }
  return write_floats(values, y);
}

// Bilinear resize of NHWC, half-pixel centres unless align_corners (or the
// TensorFlow legacy mode, which maps corners by the plain ratio).
// One output coordinate's source pixels and 11-bit weight, as XNNPACK's
// q11 indirection computes them for 8-bit resizes (in float, then
// round(fraction * 2048)).
struct Q11Tap {
  size_t first, second;
  int32_t weight;
};
Q11Tap q11_tap(size_t o, size_t in_size, size_t out_size, bool align, bool legacy) {
  const int32_t adjustment = align && out_size != 1 ? 1 : 0;
  const float scale = float(int32_t(in_size) - adjustment) / float(int32_t(out_size) - adjustment);
  const float max = float(in_size - 1);
  float source;
  if (align || legacy) {
    source = std::fmin(float(int32_t(o)) * scale, max);
  } else {
    source = float(int32_t(o)) * scale + (0.5f * scale - 0.5f);
    source = std::fmin(std::fmax(source, 0.0f), max);
  }
  const size_t first = size_t(int32_t(source));
  return Q11Tap{first, std::min(first + 1, in_size - 1), int32_t(std::lrint((source - float(first)) * 0x1.0p+11f))};
}

// s8/u8 bilinear interpolation of the stored bytes (the quantization
// parameters pass through): horizontal then vertical blends in Q11 fixed
// point, rounded once at the end: (acc + 2^21) >> 22.
void resize_bilinear_q8(const Slot& in, Slot& out, size_t n, size_t ih, size_t iw, size_t oh, size_t ow, size_t c,
                        bool align, bool legacy) {
  const Q8 q = q8_of(in);
  for (size_t img = 0; img < n; ++img) {
    for (size_t oy = 0; oy < oh; ++oy) {
      const Q11Tap ty = q11_tap(oy, ih, oh, align, legacy);
      for (size_t ox = 0; ox < ow; ++ox) {
        const Q11Tap tx = q11_tap(ox, iw, ow, align, legacy);
        const size_t row0 = (img * ih + ty.first) * iw, row1 = (img * ih + ty.second) * iw;
        const size_t o = ((img * oh + oy) * ow + ox) * c;
        for (size_t k = 0; k < c; ++k) {
          const int32_t tl = q.at(in.data, (row0 + tx.first) * c + k), tr = q.at(in.data, (row0 + tx.second) * c + k);
          const int32_t bl = q.at(in.data, (row1 + tx.first) * c + k), br = q.at(in.data, (row1 + tx.second) * c + k);
          const int32_t top = tl * 2048 + (tr - tl) * tx.weight;
          const int32_t bottom = bl * 2048 + (br - bl) * tx.weight;
          const int32_t acc = top * 2048 + (bottom - top) * ty.weight;
          out.data[o + k] = uint8_t((acc + (1 << 21)) >> 22);
        }
      }
    }
  }
}

Status resize_bilinear(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  if (in.dims.size() != 4) return node_error("input must be NHWC (rank 4)");
  const size_t n = in.dims[0], ih = in.dims[1], iw = in.dims[2], c = in.dims[3];
  const size_t oh = call.node.new_height, ow = call.node.new_width;
  ETKIT_TRY(call.runtime.reshape(out, std::vector<size_t>{n, oh, ow, c}));
  const bool align = (call.node.flags & xnn::kAlignCorners) != 0;
  const bool legacy = (call.node.flags & xnn::kTensorflowLegacy) != 0;
  if (is_q8(in) && in.dtype == out.dtype) {
    if (ih == 0 || iw == 0 || oh == 0 || ow == 0) return {};
    resize_bilinear_q8(in, out, n, ih, iw, oh, ow, c, align, legacy);
    return {};
  }
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(out, call.runtime.scratch(1));
  auto source = [&](size_t o, size_t in_size, size_t out_size) {
    if (align) return out_size > 1 ? float(o) * float(in_size - 1) / float(out_size - 1) : 0.0f;
    const float scale = float(in_size) / float(out_size);
    if (legacy) return float(o) * scale;
    return std::fmax(0.0f, (float(o) + 0.5f) * scale - 0.5f);
  };
  for (size_t img = 0; img < n; ++img) {
    for (size_t oy = 0; oy < oh; ++oy) {
      const float sy = source(oy, ih, oh);
      const size_t y0 = std::min(size_t(sy), ih - 1), y1 = std::min(y0 + 1, ih - 1);
      const float fy = sy - float(y0);
      for (size_t ox = 0; ox < ow; ++ox) {
        const float sx = source(ox, iw, ow);
        const size_t x0 = std::min(size_t(sx), iw - 1), x1 = std::min(x0 + 1, iw - 1);
        const float fx = sx - float(x0);
        const float* p00 = x + ((img * ih + y0) * iw + x0) * c;
        const float* p01 = x + ((img * ih + y0) * iw + x1) * c;
        const float* p10 = x + ((img * ih + y1) * iw + x0) * c;
        const float* p11 = x + ((img * ih + y1) * iw + x1) * c;
        float* py = y + ((img * oh + oy) * ow + ox) * c;
        for (size_t k = 0; k < c; ++k) {
          const float top = p00[k] + (p01[k] - p00[k]) * fx;
          const float bottom = p10[k] + (p11[k] - p10[k]) * fx;
          py[k] = top + (bottom - top) * fy;
        }
      }
    }
  }
  return write_floats(out, y);
}

// softmax(Q K^T * scale + mask) V over [.., heads, tokens, channels]; the
// scale is a per-channel vector applied to Q (xnn_define_scaled_dot_product_attention).
Status attention(NodeCall& call) {
  Slot& q = *call.in[0];
  Slot& k = *call.in[1];
  Slot& v = *call.in[2];
  Slot& scale = *call.in[3];
  Slot* mask = call.in[4];
  Slot& out = *call.out[0];
  if (q.dims.size() < 2 || k.dims.size() != q.dims.size() || v.dims.size() != q.dims.size()) {
    return node_error("query, key and value need the same rank (at least 2)");
  }
  const size_t r = q.dims.size();
  const size_t tq = q.dims[r - 2], c = q.dims[r - 1], tk = k.dims[r - 2], cv = v.dims[r - 1];
  if (k.dims[r - 1] != c || v.dims[r - 2] != tk || scale.numel() != c) return node_error("attention shapes do not agree");
  size_t batches = 1;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (k.dims[i] != q.dims[i] || v.dims[i] != q.dims[i]) return node_error("batch dimensions differ");
    batches *= q.dims[i];
  }
  if (mask && mask->numel() != tq * tk) return node_error("mask must be [query tokens, key tokens]");
  std::vector<size_t> shape = q.dims;
  shape[r - 1] = cv;
  ETKIT_TRY(call.runtime.reshape(out, shape));
  ETKIT_ASSIGN_OR_RETURN(const float* pq, read_floats(q, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* pk, read_floats(k, call.runtime.scratch(1)));
  ETKIT_ASSIGN_OR_RETURN(const float* pv, read_floats(v, call.runtime.scratch(2)));
  ETKIT_ASSIGN_OR_RETURN(const float* ps, read_floats(scale, call.runtime.scratch(3)));
  const float* pm = nullptr;
  if (mask) {
    ETKIT_ASSIGN_OR_RETURN(pm, read_floats(*mask, call.runtime.scratch(4)));
  }
  float* y = output_floats(out, call.runtime.scratch(5));
  std::vector<float>& scaled = call.runtime.scratch(6);
  std::vector<float>& logits = call.runtime.scratch(7);
  scaled.resize(tq * c);
  logits.resize(tq * tk);
  using kernels::linalg::MatrixView;
  for (size_t b = 0; b < batches; ++b) {
    for (size_t i = 0; i < tq * c; ++i) scaled[i] = pq[b * tq * c + i] * ps[i % c];
    kernels::linalg::sgemm(int64_t(tq), int64_t(tk), int64_t(c), 1.0f, MatrixView{scaled.data(), int64_t(c), 1},
                           MatrixView{pk + b * tk * c, 1, int64_t(c)}, 0.0f, logits.data(), int64_t(tk));
    for (size_t i = 0; i < tq; ++i) {
      float* row = logits.data() + i * tk;
      float max = -INFINITY;
      for (size_t j = 0; j < tk; ++j) {
        if (pm) row[j] += pm[i * tk + j];
        max = std::fmax(max, row[j]);
      }
      float sum = 0;
      for (size_t j = 0; j < tk; ++j) sum += (row[j] = std::exp(row[j] - max));
      for (size_t j = 0; j < tk; ++j) row[j] /= sum;
    }
    kernels::linalg::sgemm(int64_t(tq), int64_t(cv), int64_t(tk), 1.0f, MatrixView{logits.data(), int64_t(tk), 1},
                           MatrixView{pv + b * tk * cv, int64_t(cv), 1}, 0.0f, y + b * tq * cv, int64_t(cv));
  }
  return write_floats(out, y);
}

}  // namespace

void add_layout_nodes(NodeTable& table) {
  using T = xnn::NodeType;
  table[size_t(T::kStaticTranspose)] = transpose;
  table[size_t(T::kStaticReshape)] = reshape;
  table[size_t(T::kStaticSlice)] = slice;
  table[size_t(T::kStaticConstantPad)] = constant_pad;
  for (T t : {T::kConcatenate2, T::kConcatenate3, T::kConcatenate4, T::kConcatenate5}) table[size_t(t)] = concatenate;
  table[size_t(T::kMaxPooling2d)] = pooling;
  table[size_t(T::kAvgPooling2d)] = pooling;
  table[size_t(T::kGlobalAvgPooling2d)] = global_average_pooling;
  table[size_t(T::kArgMaxPooling2d)] = argmax_pooling;
  table[size_t(T::kStaticResizeBilinear2D)] = resize_bilinear;
  table[size_t(T::kScaledDotProductAttention)] = attention;
}

}  // namespace etkit::rt::xnnpack
