#include <algorithm>
#include <cstring>

#include "libcore/support/float16.h"
#include "runner/backends/xnnpack/xnn_ops.h"

namespace etkit::rt::xnnpack {

// A node's shapes or parameters that the payload got wrong: bad input (exit 2),
// found when the shapes are known, at run time.
Error node_error(const std::string& message) { return Error{ErrorKind::kBadInput, {}, {}, message}; }

size_t element_size(xnn::Datatype d) {
  switch (d) {
    case xnn::Datatype::kQcint4: case xnn::Datatype::kQbint4: return 0;
    case xnn::Datatype::kFp16: case xnn::Datatype::kBf16: return 2;
    case xnn::Datatype::kQint8: case xnn::Datatype::kQuint8: case xnn::Datatype::kQcint8:
    case xnn::Datatype::kQdint8: return 1;
    default: return 4;
  }
}

bool is_per_tensor_quantized(xnn::Datatype d) {
  return d == xnn::Datatype::kQint8 || d == xnn::Datatype::kQuint8 || d == xnn::Datatype::kQint32;
}

int32_t quantize(float value, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  // As XNNPACK's f32->qs8/qu8 convert (f32-qs8-vcvt): times the inverse
  // scale, clamped to the range less the zero point, rounded to nearest
  // even, then the zero point added.
  const float scaled = value * (1.0f / scale);
  if (std::isnan(scaled)) return std::clamp(zero_point, qmin, qmax);
  const float lo = float(qmin - zero_point), hi = float(qmax - zero_point);
  return int32_t(std::nearbyint(std::fmin(std::fmax(scaled, lo), hi))) + zero_point;
}

Result<const float*> read_floats(const Slot& slot, std::vector<float>& scratch) {
  if (slot.dtype == xnn::Datatype::kFp32) return reinterpret_cast<const float*>(slot.data);
  const size_t n = slot.numel();
  scratch.resize(n);
  const uint8_t* p = slot.data;
  switch (slot.dtype) {
    case xnn::Datatype::kFp16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        scratch[i] = half_to_float(h);
      }
      break;
    case xnn::Datatype::kBf16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        scratch[i] = bfloat16_to_float(h);
      }
      break;
    case xnn::Datatype::kInt32:
      for (size_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        scratch[i] = float(v);
      }
      break;
    case xnn::Datatype::kQint8:
      for (size_t i = 0; i < n; ++i) scratch[i] = float(int32_t(int8_t(p[i])) - slot.zero_point) * slot.scale;
      break;
    case xnn::Datatype::kQuint8:
      for (size_t i = 0; i < n; ++i) scratch[i] = float(int32_t(p[i]) - slot.zero_point) * slot.scale;
      break;
    case xnn::Datatype::kQint32:
      for (size_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        scratch[i] = float(int64_t(v) - slot.zero_point) * slot.scale;
      }
      break;
    default:
      return node_error("cannot read a " + std::string(xnn::datatype_name(slot.dtype)) + " value as numbers here");
  }
  return static_cast<const float*>(scratch.data());
}

float* output_floats(Slot& slot, std::vector<float>& scratch) {
  if (slot.dtype == xnn::Datatype::kFp32) return reinterpret_cast<float*>(slot.data);
  scratch.resize(slot.numel());
  return scratch.data();
}

Status write_floats(Slot& slot, const float* values) {
  const size_t n = slot.numel();
  uint8_t* p = slot.data;
  switch (slot.dtype) {
    case xnn::Datatype::kFp32:
      if (reinterpret_cast<const float*>(p) != values) std::memcpy(p, values, n * 4);
      return {};
    case xnn::Datatype::kFp16:
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = float_to_half(values[i]);
        std::memcpy(p + 2 * i, &h, 2);
      }
      return {};
    case xnn::Datatype::kBf16:
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = float_to_bfloat16(values[i]);
        std::memcpy(p + 2 * i, &h, 2);
      }
      return {};
    case xnn::Datatype::kInt32:
      for (size_t i = 0; i < n; ++i) {
        const float r = std::nearbyint(std::fmin(std::fmax(values[i], -2147483648.0f), 2147483520.0f));
        const int32_t v = std::isnan(r) ? 0 : int32_t(r);
        std::memcpy(p + 4 * i, &v, 4);
      }
      return {};
    case xnn::Datatype::kQint8:
      for (size_t i = 0; i < n; ++i) p[i] = uint8_t(int8_t(quantize(values[i], slot.scale, slot.zero_point, -128, 127)));
      return {};
    case xnn::Datatype::kQuint8:
      for (size_t i = 0; i < n; ++i) p[i] = uint8_t(quantize(values[i], slot.scale, slot.zero_point, 0, 255));
      return {};
    default:
      return node_error("cannot write numbers into a " + std::string(xnn::datatype_name(slot.dtype)) + " value");
  }
}

void clamp_all(float* data, size_t count, const xnn::Node& n) {
  if (!n.has_output_min_max || (std::isinf(n.output_min) && std::isinf(n.output_max))) return;
  const float lo = n.output_min, hi = n.output_max;
  for (size_t i = 0; i < count; ++i) data[i] = std::fmin(std::fmax(data[i], lo), hi);
}

TapRange valid_taps(size_t o, uint32_t stride, uint32_t dilation, uint32_t pad, uint32_t kernel, size_t in) {
  // Input position of tap k: o * stride + k * dilation - pad, valid in [0, in).
  const int64_t base = int64_t(o) * stride - int64_t(pad);
  const int64_t d = dilation;
  const int64_t first = base >= 0 ? 0 : (-base + d - 1) / d;
  const int64_t last = base >= int64_t(in) ? 0 : (int64_t(in) - 1 - base) / d + 1;
  const int64_t lo = std::min<int64_t>(first, kernel), hi = std::min<int64_t>(last, kernel);
  return TapRange{size_t(lo), size_t(std::max(lo, hi))};
}

namespace {

Result<size_t> conv_extent(size_t in, uint32_t pad_a, uint32_t pad_b, uint32_t kernel,
                           uint32_t stride, uint32_t dilation, const char* what) {
  if (kernel == 0 || stride == 0 || dilation == 0) return node_error(std::string(what) + ": kernel, stride and dilation must be positive");
  const size_t padded = in + pad_a + pad_b;
  const size_t effective = size_t(dilation) * (kernel - 1) + 1;
  if (padded < effective) return node_error(std::string(what) + ": kernel larger than the padded input");
  return (padded - effective) / stride + 1;
}

}  // namespace

Result<ConvShape> conv_shape(const NodeCall& call, const Slot& x, size_t out_channels) {
  if (x.dims.size() != 4) return node_error("input must be NHWC (rank 4), it has rank " + std::to_string(x.dims.size()));
  const xnn::Window& w = call.node.window;
  ConvShape s{x.dims[0], x.dims[1], x.dims[2], x.dims[3], 0, 0, out_channels};
  ETKIT_ASSIGN_OR_RETURN(s.oh, conv_extent(s.ih, w.pad_top, w.pad_bottom, w.kernel_h, w.stride_h, w.dilation_h, "height"));
  ETKIT_ASSIGN_OR_RETURN(s.ow, conv_extent(s.iw, w.pad_left, w.pad_right, w.kernel_w, w.stride_w, w.dilation_w, "width"));
  return s;
}

Result<size_t> product(std::span<const size_t> dims) {
  size_t n = 1;
  for (size_t d : dims) {
    if (d != 0 && n > (size_t(1) << 40) / d) return node_error("shape too large");
    n *= d;
  }
  return n;
}

}  // namespace etkit::rt::xnnpack
