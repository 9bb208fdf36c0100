// cadence:: convolutions and im2row as the Cadence backend's generic
// reference kernels compute them: quantized_conv2d_{nchw,nhwc} (.out,
// .per_tensor_out and the dtype-specialised, _dilated and _depthwise
// overloads), quantized_conv2d_depthwise_nhwc, quantized_conv1d_{ncl,nlc}
// (.out, .per_tensor_out), quantized_depthwise_conv1d_{ncl,nlc}, im2row
// (.out, .per_tensor_out), and
// transposed_convolution.out (float), quantized_transposed_conv.out and
// transposed_im2row.out (registered by the AOT flow's ops_registrations.py,
// in no functions*.yaml).
//
// One loop serves every layout; what the reference's per-layout loops differ
// in is a ConvVariant:
//  * the accumulator is a float that starts at float(bias[oc]) and adds
//    float(x - in_zp) * float(w - w_zp); channels-first layouts sum over
//    (input channel, kernel row, kernel column), channels-last over
//    (kernel row, kernel column, input channel), as the reference's loops
//    nest (float addition is order dependent);
//  * padding contributes nothing (the term is skipped, which is the same as
//    padding with the input zero point);
//  * bias_scale * acc is quantized with 1.f / out_scale (ties to even,
//    clamped to out's dtype); out_multiplier and out_shift are unused. The
//    conv1d loops compute the inverse as float(1.0 / out_scale) in double,
//    which equals the float division (double rounding is innocuous for a
//    quotient of floats, 53 >= 2 * 24 + 2);
//  * zero points: the output's is narrowed to out's element type; the
//    input's too, except in the NHWC depthwise kernel; the weight's only for
//    int16 x int8, and NCHW refuses one outside [-128, 127];
//  * the .out overloads take weight_zero_point and bias_scale as tensors and
//    use their first element only (the generic reference has no per-channel
//    path);
//  * a 3-D input to a conv2d op is a conv1d with H = 1 that uses the second
//    entries of stride/padding/dilation for W (a non-zero first padding then
//    drops every term, as in the reference); the conv1d ops use the last
//    entry of each list.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>
#include <string>
#include <type_traits>
#include <vector>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels::cadence {
namespace {

using math::Reader;
using math::Writer;

struct ConvVariant {
  bool channels_last = false;  // NHWC / NLC: channels innermost in input, weight and out
  bool conv1d = false;         // the conv1d ops: [N, C, L] / [N, L, C] only, last list entries
  bool hwo_weight = false;     // weight [KH, KW, OC] / [K, OC] (the NHWC depthwise kernel)
  bool detect_hwo = false;     // NHWC: hwo when groups == C and the weight has one dim fewer
  bool wide = false;           // int16 and int16 x int8 as well as the 8-bit types
  bool narrow_in_zp = true;
  bool check_w_zp = false;     // NCHW refuses a weight zero point outside int8
};

constexpr ConvVariant kNchw{.wide = true, .check_w_zp = true};
constexpr ConvVariant kNhwc{.channels_last = true, .detect_hwo = true, .wide = true};
constexpr ConvVariant kNhwcDepthwise{.channels_last = true, .hwo_weight = true, .narrow_in_zp = false};
constexpr ConvVariant kNcl{.conv1d = true};
constexpr ConvVariant kNlc{.channels_last = true, .conv1d = true};

struct QuantParams {
  int32_t in_zp, w_zp;
  float bias_scale, out_scale;
  int32_t out_zp;
};

// Logical dims of (batch or out channel, channel, H, W) in a tensor; -1: absent (size 1).
struct Axes {
  int a, c, h, w;
};

Axes layout_axes(bool channels_last, size_t rank) {
  const int r = int(rank);
  if (channels_last) return {0, r - 1, r == 4 ? 1 : -1, r - 2};
  return {0, 1, r == 4 ? 2 : -1, r - 1};
}

// Sizes and element strides of a tensor seen as 4-D (a, c, h, w).
struct Indexer {
  std::array<int64_t, 4> size{1, 1, 1, 1}, stride{0, 0, 0, 0};
  Indexer(const Tensor& t, Axes ax) {
    const int dims[4] = {ax.a, ax.c, ax.h, ax.w};
    for (int i = 0; i < 4; ++i) {
      if (dims[i] < 0) continue;
      size[size_t(i)] = t.size(size_t(dims[i]));
      stride[size_t(i)] = t.strides()[size_t(dims[i])];
    }
  }
  int64_t at(int64_t a, int64_t c, int64_t h, int64_t w) const {
    return a * stride[0] + c * stride[1] + h * stride[2] + w * stride[3];
  }
};

// stride/padding/dilation: exactly two entries (H, W), or for the conv1d ops
// any non-empty list, of which the last entry counts.
Result<std::array<int64_t, 2>> spatial_arg(KernelContext& ctx, const EValue& v, std::string_view what, bool positive,
                                           bool conv1d) {
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> items, ctx.int_list(v, what));
  if (conv1d ? items.empty() : items.size() != 2) {
    return ctx.fail(std::string(what) + " must have " + (conv1d ? "at least 1 entry" : "2 entries") + ", got " +
                    list_string(items));
  }
  for (int64_t x : items) {
    if (positive ? x < 1 : x < 0) {
      return ctx.fail(std::string(what) + " " + list_string(items) + " must be " + (positive ? "positive" : "non-negative"));
    }
    if (x > INT16_MAX) return ctx.fail(std::string(what) + " " + list_string(items) + " exceeds int16");
  }
  if (conv1d) return std::array<int64_t, 2>{positive ? 1 : 0, items.back()};
  return std::array<int64_t, 2>{items[0], items[1]};
}

// The output extent of one spatial dim (0 or less: empty).
int64_t conv_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;  // all terms < 2^47
}

Status check_dtypes(KernelContext& ctx, ScalarType it, ScalarType wt, ScalarType ot, bool wide) {
  const bool eight = it == ScalarType::kChar || it == ScalarType::kByte;
  const bool same = it == wt && it == ot && (eight || (wide && it == ScalarType::kShort));
  const bool a16w8 = wide && it == ScalarType::kShort && wt == ScalarType::kChar && ot == ScalarType::kShort;
  if (!same && !a16w8) {
    return ctx.fail("unsupported dtypes: input " + dtype_name(it) + ", weight " + dtype_name(wt) + ", out " + dtype_name(ot));
  }
  return {};
}

// The reference converts zero points to the element types it computes in.
int64_t narrow_to(ScalarType t, int32_t v) {
  switch (t) {
    case ScalarType::kChar: return int8_t(v);
    case ScalarType::kByte: return uint8_t(v);
    case ScalarType::kShort: return int16_t(v);
    default: return v;
  }
}

// The reference sums in float, term after term, from float(bias). When
// |bias| + taps * max|x - in_zp| * max|w - w_zp| <= 2^24, every product and
// every partial sum is an integer that float represents exactly, so that
// float sum equals the integer sum, in any order: the convolution can then
// sum in int32 with the bits of the reference's result. Per output row, the
// taps are gathered once into a column buffer (zero where padding) that every
// output channel of the group sweeps with a vectorizable loop: the term by
// term float loop ran a 7x7 stem over 224x224x3 at 0.5 GMAC/s.
struct IntegerConv {
  const math::Reader<int64_t>& read_in;
  const math::Reader<int64_t>& read_w;
  const math::Reader<int64_t>& read_bias;
  const math::Writer<int64_t>& write;
  const Indexer &in, &wi, &o;
  int64_t n, h, w, oc, oh, ow, groups, icpg, kh, kw, s0, s1, p0, p1, d0, d1;
  int64_t in_zero, w_zero, out_zero;
  Range range;
  float bias_scale, inv_out_scale;
  int64_t input_numel, weight_numel, bias_stride;

  static constexpr int64_t kExactLimit = int64_t(1) << 24;
  static constexpr int64_t kMaxColumnElements = int64_t(1) << 22;  // 16 MiB of int32 per output row

  int64_t taps() const { return icpg * kh * kw; }

  bool exact() const {
    if (taps() * ow > kMaxColumnElements) return false;
    int64_t max_x = 0, max_w = 0, max_bias = 0;
    for (int64_t i = 0; i < input_numel; ++i) max_x = std::max(max_x, std::abs(read_in(i) - in_zero));
    for (int64_t i = 0; i < weight_numel; ++i) max_w = std::max(max_w, std::abs(read_w(i) - w_zero));
    for (int64_t i = 0; i < oc; ++i) max_bias = std::max(max_bias, std::abs(read_bias(i * bias_stride)));
    // Each factor is below 2^33 (int32 values less int32 zero points): the
    // products are checked against the limit one factor at a time.
    if (max_bias > kExactLimit) return false;
    const int64_t room = kExactLimit - max_bias;
    if (max_x == 0 || max_w == 0) return true;
    return max_x <= room / max_w && taps() <= room / (max_x * max_w);
  }

  void run() const {
    const int64_t ocpg = oc / groups, t = taps();
    std::vector<int32_t> weights(size_t(oc * t));
    for (int64_t oo = 0; oo < oc; ++oo) {
      int32_t* row = weights.data() + oo * t;
      for (int64_t ic = 0; ic < icpg; ++ic) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) *row++ = int32_t(read_w(wi.at(oo, ic, ky, kx)) - w_zero);
        }
      }
    }
    std::vector<int32_t> column(static_cast<size_t>(t * ow));
    std::vector<int32_t> acc(static_cast<size_t>(ow));
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t g = 0; g < groups; ++g) {
        for (int64_t y = 0; y < oh; ++y) {
          gather_row(b, g * icpg, y, column.data());
          for (int64_t oo = g * ocpg; oo < (g + 1) * ocpg; ++oo) {
            std::fill(acc.begin(), acc.end(), int32_t(read_bias(oo * bias_stride)));
            const int32_t* wrow = weights.data() + oo * t;
            for (int64_t k = 0; k < t; ++k) {
              const int32_t wv = wrow[k];
              if (wv == 0) continue;
              const int32_t* col = column.data() + k * ow;
              int32_t* a = acc.data();
              for (int64_t x = 0; x < ow; ++x) a[x] += wv * col[x];
            }
            for (int64_t x = 0; x < ow; ++x) {
              const float sum = static_cast<float>(acc[size_t(x)]);
              write(o.at(b, oo, y, x), quantize_value(bias_scale * sum, inv_out_scale, int32_t(out_zero), range));
            }
          }
        }
      }
    }
  }

  // column[k * ow + x] = x - in_zero under tap k of output (y, x); 0 in padding.
  void gather_row(int64_t b, int64_t first_ic, int64_t y, int32_t* column) const {
    for (int64_t ic = 0; ic < icpg; ++ic) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        const int64_t iy = y * s0 + d0 * ky - p0;
        for (int64_t kx = 0; kx < kw; ++kx, column += ow) {
          if (iy < 0 || iy >= h) {
            std::fill(column, column + ow, 0);
            continue;
          }
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t ix = x * s1 + d1 * kx - p1;
            column[x] = ix < 0 || ix >= w ? 0 : int32_t(read_in(in.at(b, first_ic + ic, iy, ix)) - in_zero);
          }
        }
      }
    }
  }
};

// (input, weight, bias, stride, padding, dilation, groups, ...): the
// convolution once the quantization parameters are read.
Status conv(KernelContext& ctx, ConvVariant v, std::span<EValue* const> args, const QuantParams& q, Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(auto stride, spatial_arg(ctx, *args[3], "stride", true, v.conv1d));
  ETKIT_ASSIGN_OR_RETURN(auto padding, spatial_arg(ctx, *args[4], "padding", false, v.conv1d));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, spatial_arg(ctx, *args[5], "dilation", true, v.conv1d));
  ETKIT_ASSIGN_OR_RETURN(int64_t groups, int_arg(ctx, *args[6], "groups"));
  const ScalarType it = input->dtype(), wt = weight->dtype(), ot = out.dtype();
  ETKIT_TRY(check_dtypes(ctx, it, wt, ot, v.wide));
  const bool a16w8 = it == ScalarType::kShort && wt == ScalarType::kChar;
  if (v.check_w_zp && (q.w_zp < -128 || q.w_zp > 127)) {
    return ctx.fail("weight_zero_point " + std::to_string(q.w_zp) + " must be in [-128, 127]");
  }
  if (q.out_scale == 0 || !std::isfinite(q.out_scale)) return ctx.fail("out_scale must be finite and non-zero");

  const std::string layout = v.conv1d ? (v.channels_last ? "[N, L, C]" : "[N, C, L]")
                                      : (v.channels_last ? "[N, H, W, C] or [N, W, C]" : "[N, C, H, W] or [N, C, W]");
  const size_t rank = input->dim();
  if (v.conv1d ? rank != 3 : rank != 3 && rank != 4) return ctx.fail("input must be " + layout + ", got " + input->shape_string());
  const Axes act = layout_axes(v.channels_last, rank);
  const Indexer in(*input, act);
  const int64_t n = in.size[0], c = in.size[1], h = in.size[2], w = in.size[3];
  if (groups < 1 || groups > INT16_MAX || c % groups != 0) {
    return ctx.fail("groups " + std::to_string(groups) + " must divide the " + std::to_string(c) + " input channels");
  }
  const bool hwo = v.hwo_weight || (v.detect_hwo && c == groups && weight->dim() + 1 == rank);
  if (weight->dim() != (hwo ? rank - 1 : rank)) {
    return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(hwo ? rank - 1 : rank) + " dims");
  }
  // A [KH, KW, OC] weight has no input-channel dim: one input channel per group.
  const Axes wax = hwo ? Axes{int(rank) - 2, -1, rank == 4 ? 0 : -1, int(rank) - 3} : act;
  const Indexer wi(*weight, wax);
  const int64_t oc = wi.size[0], wc = wi.size[1], kh = wi.size[2], kw = wi.size[3];
  if (oc % groups != 0) {
    return ctx.fail("groups " + std::to_string(groups) + " must divide the " + std::to_string(oc) + " output channels");
  }
  if (wc != c / groups) {
    if (hwo) return ctx.fail("groups " + std::to_string(groups) + " must equal the " + std::to_string(c) + " input channels for a depthwise weight " + weight->shape_string());
    return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(c / groups) +
                    " input channels per group");
  }
  if (bias->dtype() != ScalarType::kInt) return ctx.fail("bias must be INT, not " + dtype_name(bias->dtype()));
  if (bias->dim() != 1 || bias->size(0) != oc) {
    return ctx.fail("bias must be [" + std::to_string(oc) + "], got " + bias->shape_string());
  }
  const int64_t oh = rank == 4 ? conv_extent(h, kh, stride[0], padding[0], dilation[0]) : 1;
  const int64_t ow = conv_extent(w, kw, stride[1], padding[1], dilation[1]);
  if (oh < 0 || ow < 0) return ctx.fail("the kernel is larger than the padded input");
  Shape shape;
  shape.push_back(n);
  if (!v.channels_last) shape.push_back(oc);
  if (rank == 4) shape.push_back(oh);
  shape.push_back(ow);
  if (v.channels_last) shape.push_back(oc);
  ETKIT_TRY(resize_out(ctx, out, shape));
  const Indexer o(out, act);

  const int64_t in_zero = v.narrow_in_zp ? narrow_to(it, q.in_zp) : q.in_zp;
  const int64_t w_zero = a16w8 ? int64_t(int8_t(q.w_zp)) : q.w_zp;
  const int64_t out_zero = narrow_to(ot, q.out_zp);
  const Range range = *dtype_range(ot);
  const float inv_out_scale = 1.f / q.out_scale;
  const Reader<int64_t> read_in(*input), read_w(*weight), read_bias(*bias);
  const Writer<int64_t> write(out);
  const int64_t ocpg = oc / groups, icpg = c / groups;
  const int64_t s0 = stride[0], s1 = stride[1], p0 = padding[0], p1 = padding[1], d0 = dilation[0], d1 = dilation[1];

  IntegerConv fast{.read_in = read_in, .read_w = read_w, .read_bias = read_bias, .write = write, .in = in, .wi = wi,
                   .o = o, .n = n, .h = h, .w = w, .oc = oc, .oh = oh, .ow = ow, .groups = groups, .icpg = icpg,
                   .kh = kh, .kw = kw, .s0 = s0, .s1 = s1, .p0 = p0, .p1 = p1, .d0 = d0, .d1 = d1,
                   .in_zero = in_zero, .w_zero = w_zero, .out_zero = out_zero, .range = range,
                   .bias_scale = q.bias_scale, .inv_out_scale = inv_out_scale,
                   .input_numel = input->numel(), .weight_numel = weight->numel(), .bias_stride = bias->strides()[0]};
  if (fast.exact()) {
    fast.run();
    return {};
  }
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oo = 0; oo < oc; ++oo) {
      const int64_t first_ic = (oo / ocpg) * icpg;
      const float bias_value = static_cast<float>(read_bias(oo * bias->strides()[0]));
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          float acc = bias_value;
          const auto term = [&](int64_t ic, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
            const int64_t xv = read_in(in.at(b, ic, iy, ix));
            const int64_t wv = read_w(wi.at(oo, ic - first_ic, ky, kx));
            acc += static_cast<float>(xv - in_zero) * static_cast<float>(wv - w_zero);
          };
          if (v.channels_last) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = y * s0 + d0 * ky - p0;
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = x * s1 + d1 * kx - p1;
                if (ix < 0 || ix >= w) continue;
                for (int64_t ic = first_ic; ic < first_ic + icpg; ++ic) term(ic, ky, kx, iy, ix);
              }
            }
          } else {
            for (int64_t ic = first_ic; ic < first_ic + icpg; ++ic) {
              for (int64_t ky = 0; ky < kh; ++ky) {
                const int64_t iy = y * s0 + d0 * ky - p0;
                if (iy < 0 || iy >= h) continue;
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t ix = x * s1 + d1 * kx - p1;
                  if (ix < 0 || ix >= w) continue;
                  term(ic, ky, kx, iy, ix);
                }
              }
            }
          }
          write(o.at(b, oo, y, x), quantize_value(q.bias_scale * acc, inv_out_scale, int32_t(out_zero), range));
        }
      }
    }
  }
  return {};
}

// The per-tensor overloads: (..., groups, int input_zero_point, int weight_zero_point,
// float bias_scale, float out_scale, int out_zero_point, int out_multiplier,
// int out_shift, [Tensor? offset,] out, ret); `kOut` is out's slot.
template <ConvVariant kVariant, size_t kOut>
Status conv_per_tensor(KernelContext& ctx, std::span<EValue* const> args) {
  QuantParams q{};
  ETKIT_ASSIGN_OR_RETURN(q.in_zp, zero_point_arg(ctx, *args[7], "input_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(q.w_zp, zero_point_arg(ctx, *args[8], "weight_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(double bias_scale, double_arg(ctx, *args[9], "bias_scale"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[10], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(q.out_zp, zero_point_arg(ctx, *args[11], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_multiplier, int_arg(ctx, *args[12], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_shift, int_arg(ctx, *args[13], "out_shift"));
  (void)out_multiplier, (void)out_shift;  // unused by the generic reference
  if constexpr (kOut == 15) {
    ETKIT_ASSIGN_OR_RETURN(Tensor * offset, optional_tensor_arg(ctx, *args[14], "offset"));
    (void)offset;  // unused by the generic reference
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[kOut], "out"));
  q.bias_scale = narrow_float(bias_scale);
  q.out_scale = narrow_float(out_scale);
  return conv(ctx, kVariant, args, q, *out);
}

// The first element of a tensor parameter of `dtype` (the reference reads no other).
template <typename T>
Result<T> first_element(KernelContext& ctx, const EValue& v, std::string_view what, ScalarType dtype) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * t, tensor_arg(ctx, v, what));
  if (t->dtype() != dtype) return ctx.fail(std::string(what) + " must be " + dtype_name(dtype) + ", not " + dtype_name(t->dtype()));
  if (t->numel() < 1) return ctx.fail(std::string(what) + " must not be empty");
  return t->data_as<T>()[0];
}

// The .out overloads: (..., groups, int input_zero_point, Tensor weight_zero_point,
// Tensor bias_scale, float out_scale, int out_zero_point, Tensor out_multiplier,
// Tensor out_shift, out, ret).
template <ConvVariant kVariant>
Status conv_tensor_params(KernelContext& ctx, std::span<EValue* const> args) {
  QuantParams q{};
  ETKIT_ASSIGN_OR_RETURN(q.in_zp, zero_point_arg(ctx, *args[7], "input_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(q.w_zp, first_element<int32_t>(ctx, *args[8], "weight_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(q.bias_scale, first_element<float>(ctx, *args[9], "bias_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[10], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(q.out_zp, zero_point_arg(ctx, *args[11], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out_multiplier, tensor_arg(ctx, *args[12], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out_shift, tensor_arg(ctx, *args[13], "out_shift"));
  (void)out_multiplier, (void)out_shift;  // unused by the generic reference
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[14], "out"));
  q.out_scale = narrow_float(out_scale);
  return conv(ctx, kVariant, args, q, *out);
}

// ---- im2row, transposed_im2row, transposed_convolution -------------------

// Which input row (or column) a kernel tap reads for output position y, or -1
// when it falls in the padding. A convolution reads y * s - p + k * d. A
// transposed convolution is a convolution over the input spread out by the
// stride (s - 1 zeros between elements) with the kernel taps reversed: tap k
// of a kernel of `taps` reads position y - (taps - 1) * d + k * d + p of the
// spread input, an input element when that is a multiple of s.
struct TapMap {
  bool transposed;
  int64_t taps, s, p, d, extent;
  int64_t operator()(int64_t y, int64_t k) const {
    if (!transposed) {
      const int64_t i = y * s - p + k * d;
      return i >= 0 && i < extent ? i : -1;
    }
    const int64_t t = y - (taps - 1) * d + k * d + p;
    return t >= 0 && t < s * extent && t % s == 0 ? t / s : -1;
  }
  // The output extent (negative: none).
  int64_t out_extent(int64_t output_padding) const {
    if (!transposed) return conv_extent(extent, taps, s, p, d);
    return (extent - 1) * s - 2 * p + d * (taps - 1) + output_padding + 1;  // all terms < 2^47
  }
};

// im2row: (input, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride,
// in_zero_point (Tensor, or int for .per_tensor_out), bool channel_last, out, ret);
// transposed_im2row: output_padding before in_zero_point (a Tensor).
// out[n][oy * OW + ox][column] is the input element kernel tap (ky, kx) of
// channel c reads at (oy, ox), or the input zero point (converted to the
// input's dtype) where it falls in the padding. The column is
// (c * KH + ky) * KW + kx (torch's unfold order, channels-last inputs too),
// except for channels-last transposed_im2row: (ky * KW + kx) * C + c.
template <bool kPerTensor, bool kTransposed>
Status im2row(KernelContext& ctx, std::span<EValue* const> args) {
  constexpr size_t kZp = kTransposed ? 6 : 5;
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(auto kernel, spatial_arg(ctx, *args[1], "kernel_size", true, false));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, spatial_arg(ctx, *args[2], "dilation", true, false));
  ETKIT_ASSIGN_OR_RETURN(auto padding, spatial_arg(ctx, *args[3], "padding", false, false));
  ETKIT_ASSIGN_OR_RETURN(auto stride, spatial_arg(ctx, *args[4], "stride", true, false));
  std::array<int64_t, 2> output_padding{0, 0};
  if constexpr (kTransposed) {
    ETKIT_ASSIGN_OR_RETURN(output_padding, spatial_arg(ctx, *args[5], "output_padding", false, false));
  }
  ETKIT_ASSIGN_OR_RETURN(bool channel_last, bool_arg(ctx, *args[kZp + 1], "channel_last"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[kZp + 2], "out"));
  const ScalarType t = input->dtype();
  const bool dtype_ok = t == ScalarType::kFloat || t == ScalarType::kByte || (!kTransposed && t == ScalarType::kChar);
  if (!dtype_ok) {
    return ctx.fail("input dtype " + dtype_name(t) + " is not supported (" + (kTransposed ? "FLOAT or BYTE" : "FLOAT, BYTE or CHAR") + ")");
  }
  if (out->dtype() != t) return ctx.fail("out must be " + dtype_name(t) + " like input, not " + dtype_name(out->dtype()));
  const size_t rank = input->dim();
  if (rank != 3 && rank != 4) {
    return ctx.fail("input must be " + std::string(channel_last ? "[N, H, W, C] or [N, W, C]" : "[N, C, H, W] or [N, C, W]") +
                    ", got " + input->shape_string());
  }
  const Indexer in(*input, layout_axes(channel_last, rank));
  const int64_t n = in.size[0], c = in.size[1];
  std::vector<int32_t> zero_points;
  if constexpr (kPerTensor) {
    ETKIT_ASSIGN_OR_RETURN(int32_t zp, zero_point_arg(ctx, *args[kZp], "in_zero_point"));
    zero_points.push_back(zp);
  } else {
    // One zero point, or one per batch entry.
    ETKIT_ASSIGN_OR_RETURN(Tensor * zp, tensor_arg(ctx, *args[kZp], "in_zero_point"));
    if (zp->dtype() != ScalarType::kInt) return ctx.fail("in_zero_point must be INT, not " + dtype_name(zp->dtype()));
    if (zp->numel() != 1 && zp->numel() != n) {
      return ctx.fail("in_zero_point must have one element or one per batch entry (" + std::to_string(n) + "), got " +
                      zp->shape_string());
    }
    ETKIT_TRY(require_contiguous(ctx, *zp, "in_zero_point"));
    zero_points.assign(zp->data_as<int32_t>(), zp->data_as<int32_t>() + zp->numel());
  }
  // A 3-D input has H = 1 and still uses the first entries for it.
  const TapMap rows_of{kTransposed, kernel[0], stride[0], padding[0], dilation[0], in.size[2]};
  const TapMap cols_of{kTransposed, kernel[1], stride[1], padding[1], dilation[1], in.size[3]};
  const int64_t oh = rows_of.out_extent(output_padding[0]), ow = cols_of.out_extent(output_padding[1]);
  if (oh < 0 || ow < 0) return ctx.fail("the output would have a negative extent");
  int64_t rows = 0, cols = 0;
  if (__builtin_mul_overflow(oh, ow, &rows) || __builtin_mul_overflow(kernel[0] * kernel[1], c, &cols)) {
    return ctx.fail("out would have more than 2^63 elements");
  }
  const int64_t shape[] = {n, rows, cols};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View ov = View::of(*out);
  const Reader<double> read(*input);  // FLOAT, BYTE and CHAR are exact in double
  const Writer<double> write(*out);
  const int64_t kh = kernel[0], kw = kernel[1];
  const bool taps_outer = kTransposed && channel_last;
  for (int64_t b = 0; b < n; ++b) {
    const int32_t zp = zero_points.size() == 1 ? zero_points[0] : zero_points[size_t(b)];
    const double pad = t == ScalarType::kFloat ? double(float(zp)) : double(narrow_to(t, zp));
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        const int64_t row = b * ov.strides[0] + (y * ow + x) * ov.strides[1];
        for (int64_t ch = 0; ch < c; ++ch) {
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = rows_of(y, ky);
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = cols_of(x, kx);
              const int64_t col = taps_outer ? (ky * kw + kx) * c + ch : (ch * kh + ky) * kw + kx;
              write(row + col * ov.strides[2], iy >= 0 && ix >= 0 ? read(in.at(b, ch, iy, ix)) : pad);
            }
          }
        }
      }
    }
  }
  return {};
}

// transposed_convolution.out(input, weight, bias, int[] stride, int[] padding,
// int[] dilation, int[] output_padding, int groups, bool channel_last, out, ret),
// in float. The weight is [OC / groups, C, KH, KW] ([OC / groups, KH, KW, C]
// channels-last): output channel o of group g reads weight row o - g * OC/groups
// at the input channel's absolute index. The accumulator starts at bias[o]
// and sums over (input channel, kernel row, kernel column), channels-last
// over (kernel row, kernel column, input channel). A 3-D input uses the first
// entry of each list for its width.
//
// kQuantized: quantized_transposed_conv.out(..., groups, int input_zero_point,
// Tensor weight_zero_point, Tensor bias_scale, float out_scale, int
// out_zero_point, Tensor out_multiplier, Tensor out_shift, bool channel_last,
// out, ret), which the reference provides for uint8 input, weight and out
// with an int32 bias only. Each term is float(x - input_zero_point) *
// float(w - weight_zero_point[0]); the sum (from float(bias)) is scaled by
// bias_scale (one, or one per output channel) and quantized with
// float(1 / out_scale), ties to even. input_zero_point and out_zero_point
// are narrowed to uint8 first, as the reference passes them; out_multiplier
// and out_shift are not used.
template <bool kQuantized>
Status transposed_convolution(KernelContext& ctx, std::span<EValue* const> args) {
  constexpr size_t kChannelLast = kQuantized ? 15 : 8, kOut = kQuantized ? 16 : 9;
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(int64_t groups, int_arg(ctx, *args[7], "groups"));
  ETKIT_ASSIGN_OR_RETURN(bool channel_last, bool_arg(ctx, *args[kChannelLast], "channel_last"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[kOut], "out"));
  using Named = std::pair<const Tensor*, const char*>;
  for (const auto& [t, name] : std::initializer_list<Named>{{input, "input"}, {weight, "weight"}, {bias, "bias"}, {out, "out"}}) {
    const ScalarType want = !kQuantized ? ScalarType::kFloat : t == bias ? ScalarType::kInt : ScalarType::kByte;
    if (t->dtype() != want) return ctx.fail(std::string(name) + " must be " + dtype_name(want) + ", not " + dtype_name(t->dtype()));
  }
  uint8_t in_zp = 0, out_zp = 0;
  int32_t weight_zp = 0;
  float inv_out_scale = 1.0f;
  const float* bias_scale = nullptr;
  int64_t bias_scales = 0;
  if constexpr (kQuantized) {
    ETKIT_ASSIGN_OR_RETURN(int32_t izp, zero_point_arg(ctx, *args[8], "input_zero_point"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * wzp, tensor_arg(ctx, *args[9], "weight_zero_point"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * bs, tensor_arg(ctx, *args[10], "bias_scale"));
    ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[11], "out_scale"));
    ETKIT_ASSIGN_OR_RETURN(int32_t ozp, zero_point_arg(ctx, *args[12], "out_zero_point"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * multiplier, tensor_arg(ctx, *args[13], "out_multiplier"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * shift, tensor_arg(ctx, *args[14], "out_shift"));
    (void)multiplier, (void)shift;
    if (wzp->dtype() != ScalarType::kInt || wzp->numel() < 1) {
      return ctx.fail("weight_zero_point must be a non-empty INT tensor, got " + dtype_name(wzp->dtype()) + " " + wzp->shape_string());
    }
    if (bs->dtype() != ScalarType::kFloat || bs->numel() < 1) {
      return ctx.fail("bias_scale must be a non-empty FLOAT tensor, got " + dtype_name(bs->dtype()) + " " + bs->shape_string());
    }
    ETKIT_TRY(require_contiguous(ctx, *wzp, "weight_zero_point"));
    ETKIT_TRY(require_contiguous(ctx, *bs, "bias_scale"));
    in_zp = uint8_t(izp);
    out_zp = uint8_t(ozp);
    weight_zp = wzp->data_as<int32_t>()[0];
    inv_out_scale = narrow_float(1.0 / double(narrow_float(out_scale)));
    bias_scale = bs->data_as<float>();
    bias_scales = bs->numel();
  }
  const size_t rank = input->dim();
  if (rank != 3 && rank != 4) {
    return ctx.fail("input must be " + std::string(channel_last ? "[N, H, W, C] or [N, W, C]" : "[N, C, H, W] or [N, C, W]") +
                    ", got " + input->shape_string());
  }
  // Stride, padding, dilation, output padding: (H, W), or (W) for a 3-D input.
  std::array<std::array<int64_t, 2>, 4> lists{};
  const char* names[] = {"stride", "padding", "dilation", "output_padding"};
  for (size_t i = 0; i < 4; ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> items, ctx.int_list(*args[3 + i], names[i]));
    const size_t need = rank == 4 ? 2 : 1;
    if (items.size() < need) {
      return ctx.fail(std::string(names[i]) + " must have " + std::to_string(need) + " entries, got " + list_string(items));
    }
    const bool positive = i == 0 || i == 2;
    for (int64_t v : items) {
      if (positive ? v < 1 : v < 0) {
        return ctx.fail(std::string(names[i]) + " " + list_string(items) + " must be " + (positive ? "positive" : "non-negative"));
      }
      if (v > INT16_MAX) return ctx.fail(std::string(names[i]) + " " + list_string(items) + " exceeds int16");
    }
    lists[i] = rank == 4 ? std::array<int64_t, 2>{items[0], items[1]} : std::array<int64_t, 2>{positive ? 1 : 0, items[0]};
  }
  const auto& [stride, padding, dilation, output_padding] = lists;
  const Axes act = layout_axes(channel_last, rank);
  const Indexer in(*input, act);
  const int64_t n = in.size[0], c = in.size[1];
  if (weight->dim() != rank) return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(rank) + " dims");
  const Indexer wi(*weight, act);
  const int64_t ocpg = wi.size[0], wc = wi.size[1], kh = wi.size[2], kw = wi.size[3];
  if (groups < 1 || groups > INT16_MAX || c % groups != 0) {
    return ctx.fail("groups " + std::to_string(groups) + " must divide the " + std::to_string(c) + " input channels");
  }
  if (wc != c) return ctx.fail("weight " + weight->shape_string() + " must have the " + std::to_string(c) + " input channels");
  const int64_t oc = ocpg * groups;
  if (bias->dim() != 1 || bias->size(0) != oc) {
    return ctx.fail("bias must be [" + std::to_string(oc) + "], got " + bias->shape_string());
  }
  if (kQuantized && bias_scales != 1 && bias_scales != oc) {
    return ctx.fail("bias_scale must have 1 or " + std::to_string(oc) + " elements, got " + std::to_string(bias_scales));
  }
  const TapMap rows_of{true, kh, stride[0], padding[0], dilation[0], in.size[2]};
  const TapMap cols_of{true, kw, stride[1], padding[1], dilation[1], in.size[3]};
  const int64_t oh = rank == 4 ? rows_of.out_extent(output_padding[0]) : 1, ow = cols_of.out_extent(output_padding[1]);
  if (oh < 0 || ow < 0) return ctx.fail("the output would have a negative extent");
  Shape shape;
  shape.push_back(n);
  if (!channel_last) shape.push_back(oc);
  if (rank == 4) shape.push_back(oh);
  shape.push_back(ow);
  if (channel_last) shape.push_back(oc);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const Indexer o(*out, act);
  using Value = std::conditional_t<kQuantized, int64_t, float>;
  const Reader<Value> read_in(*input), read_w(*weight), read_bias(*bias);
  const Writer<Value> write(*out);
  const Range u8 = *dtype_range(ScalarType::kByte);
  const int64_t icpg = c / groups;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oo = 0; oo < oc; ++oo) {
      const int64_t g = oo / ocpg, first_ic = g * icpg, row = oo - g * ocpg;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          float acc = float(read_bias(oo * bias->strides()[0]));
          const auto term = [&](int64_t ic, int64_t ky, int64_t kx, int64_t iy, int64_t ix) {
            if constexpr (kQuantized) {
              const float lhs = float(read_in(in.at(b, ic, iy, ix)) - in_zp);
              const float rhs = float(wrap32(read_w(wi.at(row, ic, ky, kx)) - weight_zp));
              acc += lhs * rhs;
            } else {
              acc += read_in(in.at(b, ic, iy, ix)) * read_w(wi.at(row, ic, ky, kx));
            }
          };
          if (channel_last) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = rows_of(y, ky);
              if (iy < 0) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = cols_of(x, kx);
                if (ix < 0) continue;
                for (int64_t ic = first_ic; ic < first_ic + icpg; ++ic) term(ic, ky, kx, iy, ix);
              }
            }
          } else {
            for (int64_t ic = first_ic; ic < first_ic + icpg; ++ic) {
              for (int64_t ky = 0; ky < kh; ++ky) {
                const int64_t iy = rows_of(y, ky);
                if (iy < 0) continue;
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t ix = cols_of(x, kx);
                  if (ix >= 0) term(ic, ky, kx, iy, ix);
                }
              }
            }
          }
          if constexpr (kQuantized) {
            const float val = bias_scale[bias_scales == 1 ? 0 : oo] * acc;
            write(o.at(b, oo, y, x), quantize_value(val, inv_out_scale, out_zp, u8));
          } else {
            write(o.at(b, oo, y, x), acc);
          }
        }
      }
    }
  }
  return {};
}

template <RawKernel kFn, ScalarType kT>
Status typed(KernelContext& ctx, std::span<EValue* const> args) {
  return fixed_dtype<kFn, kT, 0, 1, 14>(ctx, args, {"input", "weight", "out"});
}

}  // namespace

std::vector<KernelInfo> conv_kernels() {
  constexpr ScalarType s8 = ScalarType::kChar, u8 = ScalarType::kByte;
  constexpr RawKernel nchw = conv_per_tensor<kNchw, 14>, nhwc = conv_per_tensor<kNhwc, 14>,
                      nhwc_dw = conv_per_tensor<kNhwcDepthwise, 14>;
  std::vector<KernelInfo> table;
  table.push_back({"cadence::quantized_conv2d_nchw.out", conv_tensor_params<kNchw>, 16, {14}});
  table.push_back({"cadence::quantized_conv2d_nhwc.out", conv_tensor_params<kNhwc>, 16, {14}});
  table.push_back({"cadence::quantized_conv2d_nchw.per_tensor_out", nchw, 16, {14}});
  table.push_back({"cadence::quantized_conv2d_nhwc.per_tensor_out", conv_per_tensor<kNhwc, 15>, 17, {15}});
  table.push_back({"cadence::quantized_conv2d_depthwise_nhwc.out", nhwc, 16, {14}});
  table.push_back({"cadence::quantized_conv1d_ncl.out", conv_tensor_params<kNcl>, 16, {14}});
  table.push_back({"cadence::quantized_conv1d_nlc.out", conv_tensor_params<kNlc>, 16, {14}});
  table.push_back({"cadence::quantized_conv1d_ncl.per_tensor_out", conv_per_tensor<kNcl, 14>, 16, {14}});
  table.push_back({"cadence::quantized_conv1d_nlc.per_tensor_out", conv_per_tensor<kNlc, 15>, 17, {15}});
  table.push_back({"cadence::quantized_depthwise_conv1d_ncl.per_tensor_out", conv_per_tensor<kNcl, 14>, 16, {14}});
  table.push_back({"cadence::quantized_depthwise_conv1d_nlc.per_tensor_out", conv_per_tensor<kNlc, 14>, 16, {14}});
  // The dtype-specialised overloads; _dilated_ and NCHW _depthwise_ run the
  // generic loops, NHWC _depthwise_ the kernel with a [KH, KW, OC] weight.
  for (const char* kind : {"", "_dilated", "_depthwise"}) {
    const std::string k = kind;
    const bool dw = k == "_depthwise";
    table.push_back({"cadence::quantized_conv2d_nchw" + k + "_asym8sxsym8s_asym8s.per_tensor_out", typed<nchw, s8>, 16, {14}});
    table.push_back({"cadence::quantized_conv2d_nchw" + k + "_asym8uxsym8u_asym8u.per_tensor_out", typed<nchw, u8>, 16, {14}});
    table.push_back({"cadence::quantized_conv2d_nhwc" + k + "_asym8sxsym8s_asym8s.per_tensor_out",
                     dw ? typed<nhwc_dw, s8> : typed<nhwc, s8>, 16, {14}});
    table.push_back({"cadence::quantized_conv2d_nhwc" + k + "_asym8uxsym8u_asym8u.per_tensor_out",
                     dw ? typed<nhwc_dw, u8> : typed<nhwc, u8>, 16, {14}});
  }
  table.push_back({"cadence::im2row.out", im2row<false, false>, 9, {7}});
  table.push_back({"cadence::im2row.per_tensor_out", im2row<true, false>, 9, {7}});
  table.push_back({"cadence::transposed_im2row.out", im2row<false, true>, 10, {8}});
  table.push_back({"cadence::transposed_convolution.out", transposed_convolution<false>, 11, {9}});
  table.push_back({"cadence::quantized_transposed_conv.out", transposed_convolution<true>, 18, {16}});
  return table;
}

}  // namespace etkit::rt::kernels::cadence
