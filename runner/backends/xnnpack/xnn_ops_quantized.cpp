// 8-bit quantized fully connected and convolutions as XNNPACK computes them
// (QS8/QU8 with per-tensor weights, QC8 with per-channel weights): int32
// accumulators of (x - x_zero_point) * (w - w_zero_point) plus the int32
// bias, then its fp32 requantization (xnn_qs8_requantize_fp32): the
// accumulator as float times input_scale * weight_scale / output_scale,
// clamped to the output bounds less the zero point, rounded to nearest
// even, plus the zero point. Padding contributes nothing (XNNPACK pads with
// the input zero point). Bit-exact with XNNPACK's reference arithmetic.
#include <algorithm>
#include <cstring>

#include "runner/backends/xnnpack/xnn_ops.h"

namespace etkit::rt::xnnpack {
namespace {

bool is_8bit(xnn::Datatype d) { return d == xnn::Datatype::kQint8 || d == xnn::Datatype::kQuint8; }

int32_t q_at(const Slot& s, size_t i) {
  return s.dtype == xnn::Datatype::kQuint8 ? int32_t(s.data[i]) : int32_t(int8_t(s.data[i]));
}

struct Requantizer {
  std::vector<float> scale;    // per output channel
  std::vector<int32_t> bias;   // per output channel (0 without a bias)
  int32_t x_zero_point = 0, w_zero_point = 0, out_zero_point = 0;
  int32_t out_min = -128, out_max = 127;

  int32_t operator()(int64_t acc, size_t channel) const {
    // The kernels accumulate in int32 (wrapping); the sum of products here is exact in int64.
    const int32_t a = int32_t(uint32_t(uint64_t(acc) + uint64_t(uint32_t(bias[channel]))));
    float v = float(a) * scale[channel];
    v = std::fmax(v, float(out_min - out_zero_point));
    v = std::fmin(v, float(out_max - out_zero_point));
    return int32_t(std::nearbyint(v)) + out_zero_point;
  }
};

// XNNPACK's bound for an output min/max given as a float (xnn_qs8_quantize).
int32_t bound(float value, const Slot& out, int32_t lo, int32_t hi) {
  const float v = value / out.scale + float(out.zero_point);
  return int32_t(std::nearbyint(std::fmin(std::fmax(v, float(lo)), float(hi))));
}

Result<Requantizer> make_requantizer(const NodeCall& call, const Slot& x, const Slot& w, const Slot* b,
                                     const Slot& out, size_t channels) {
  Requantizer r;
  const bool unsigned_out = out.dtype == xnn::Datatype::kQuint8;
  const int32_t lo = unsigned_out ? 0 : -128, hi = unsigned_out ? 255 : 127;
  r.out_min = lo;
  r.out_max = hi;
  if (call.node.has_output_min_max) {
    r.out_min = bound(call.node.output_min, out, lo, hi);
    r.out_max = bound(call.node.output_max, out, lo, hi);
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

bool integer_path(const Slot& x, const Slot& w, const Slot& out) {
  return is_8bit(x.dtype) && is_8bit(out.dtype) && (is_8bit(w.dtype) || w.dtype == xnn::Datatype::kQcint8);
}

Status quantized_fully_connected(NodeCall& call, size_t rows, size_t in_ch, size_t out_ch, bool transposed) {
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, out_ch));
  // Weights as (w - w_zero_point) [out, in], once per call.
  std::vector<float>& scratch = call.runtime.scratch(0);
  scratch.resize(out_ch * in_ch);
  auto* wq = reinterpret_cast<int32_t*>(scratch.data());
  for (size_t o = 0; o < out_ch; ++o) {
    for (size_t i = 0; i < in_ch; ++i) wq[o * in_ch + i] = q_at(w, transposed ? i * out_ch + o : o * in_ch + i) - r.w_zero_point;
  }
  for (size_t row = 0; row < rows; ++row) {
    for (size_t o = 0; o < out_ch; ++o) {
      int64_t acc = 0;
      for (size_t i = 0; i < in_ch; ++i) acc += int64_t(q_at(x, row * in_ch + i) - r.x_zero_point) * wq[o * in_ch + i];
      out.data[row * out_ch + o] = uint8_t(r(acc, o));
    }
  }
  return {};
}

Status quantized_convolution(NodeCall& call, const ConvShape& s) {
  const xnn::Node& node = call.node;
  const xnn::Window& win = node.window;
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, s.oc));
  const size_t gin = node.group_input_channels, gout = node.group_output_channels;
  const size_t patch = size_t(win.kernel_h) * win.kernel_w * gin;
  ETKIT_TRY(call.runtime.check_scratch(uint64_t(patch) * sizeof(int32_t)));
  std::vector<float>& scratch = call.runtime.scratch(0);
  scratch.resize(patch);
  auto* cols = reinterpret_cast<int32_t*>(scratch.data());
  for (size_t img = 0; img < s.n; ++img) {
    for (size_t oy = 0; oy < s.oh; ++oy) {
      for (size_t ox = 0; ox < s.ow; ++ox) {
        const size_t o = ((img * s.oh + oy) * s.ow + ox) * s.oc;
        for (size_t g = 0; g < node.groups; ++g) {
          // The patch as (x - x_zero_point), 0 in the padding.
          int32_t* dst = cols;
          for (size_t ky = 0; ky < win.kernel_h; ++ky) {
            const int64_t iy = int64_t(oy * win.stride_h + ky * win.dilation_h) - int64_t(win.pad_top);
            for (size_t kx = 0; kx < win.kernel_w; ++kx, dst += gin) {
              const int64_t ix = int64_t(ox * win.stride_w + kx * win.dilation_w) - int64_t(win.pad_left);
              if (iy < 0 || ix < 0 || iy >= int64_t(s.ih) || ix >= int64_t(s.iw)) {
                std::fill(dst, dst + gin, 0);
                continue;
              }
              const size_t base = ((img * s.ih + size_t(iy)) * s.iw + size_t(ix)) * s.ic + g * gin;
              for (size_t i = 0; i < gin; ++i) dst[i] = q_at(x, base + i) - r.x_zero_point;
            }
          }
          for (size_t k = 0; k < gout; ++k) {
            const size_t oc = g * gout + k;
            int64_t acc = 0;
            for (size_t p = 0; p < patch; ++p) acc += int64_t(cols[p]) * (q_at(w, oc * patch + p) - r.w_zero_point);
            out.data[o + oc] = uint8_t(r(acc, oc));
          }
        }
      }
    }
  }
  return {};
}

Status quantized_depthwise_convolution(NodeCall& call, const ConvShape& s, size_t multiplier) {
  const xnn::Window& win = call.node.window;
  const Slot& x = *call.in[0];
  const Slot& w = *call.in[1];
  Slot& out = *call.out[0];
  ETKIT_ASSIGN_OR_RETURN(Requantizer r, make_requantizer(call, x, w, call.in[2], out, s.oc));
  for (size_t img = 0; img < s.n; ++img) {
    for (size_t oy = 0; oy < s.oh; ++oy) {
      const TapRange ry = valid_taps(oy, win.stride_h, win.dilation_h, win.pad_top, win.kernel_h, s.ih);
      for (size_t ox = 0; ox < s.ow; ++ox) {
        const TapRange rx = valid_taps(ox, win.stride_w, win.dilation_w, win.pad_left, win.kernel_w, s.iw);
        const size_t o = ((img * s.oh + oy) * s.ow + ox) * s.oc;
        for (size_t oc = 0; oc < s.oc; ++oc) {
          int64_t acc = 0;
          for (size_t ky = ry.first; ky < ry.last; ++ky) {
            const size_t iy = oy * win.stride_h + ky * win.dilation_h - win.pad_top;
            for (size_t kx = rx.first; kx < rx.last; ++kx) {
              const size_t ix = ox * win.stride_w + kx * win.dilation_w - win.pad_left;
              const int32_t xv = q_at(x, ((img * s.ih + iy) * s.iw + ix) * s.ic + oc / multiplier) - r.x_zero_point;
              acc += int64_t(xv) * (q_at(w, (ky * win.kernel_w + kx) * s.oc + oc) - r.w_zero_point);
            }
          }
          out.data[o + oc] = uint8_t(r(acc, oc));
        }
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
  const bool four_bit = w.dtype == xnn::Datatype::kQcint4;
  auto weight = [&](size_t o, size_t i) {
    const size_t index = transposed ? i * out_ch + o : o * in_ch + i;
    if (!four_bit) return int32_t(int8_t(w.data[index]));
    const uint8_t byte = w.data[index / 2];
    return int32_t(index % 2 == 0 ? byte & 0xF : byte >> 4) - w.zero_point;
  };
  const float* bias = nullptr;
  if (b) {
    if (b->dtype != xnn::Datatype::kFp32 || b->numel() != out_ch) return node_error("bias must be fp32 with one value per channel");
    bias = reinterpret_cast<const float*>(b->data);
  }
  std::vector<float>& wscratch = call.runtime.scratch(0);
  wscratch.resize(out_ch * in_ch);
  auto* wq = reinterpret_cast<int32_t*>(wscratch.data());
  for (size_t o = 0; o < out_ch; ++o) {
    for (size_t i = 0; i < in_ch; ++i) wq[o * in_ch + i] = weight(o, i);
  }
  auto* y = reinterpret_cast<float*>(out.data);
  for (size_t r = 0; r < rows; ++r) {
    const size_t p = r * in_ch / per_param;
    const int32_t zp = x.row_zero_points[p];
    const float x_scale = x.channel_scales[p];
    for (size_t o = 0; o < out_ch; ++o) {
      int64_t acc = 0;
      for (size_t i = 0; i < in_ch; ++i) acc += int64_t(int32_t(int8_t(x.data[r * in_ch + i])) - zp) * wq[o * in_ch + i];
      float v = float(int32_t(uint32_t(uint64_t(acc)))) * x_scale;
      v *= w.channel_scales[o];
      if (bias) v += bias[o];
      y[r * out_ch + o] = clamp_output(v, call.node);
    }
  }
  return {};
}

}  // namespace etkit::rt::xnnpack
