// cadence:: operators as the Cadence backend's generic reference kernels
// (backends/cadence/generic) compute them, for running Cadence-lowered
// programs on the host: quantize_per_tensor, dequantize_per_tensor and
// quantized_conv2d_nchw.per_tensor_out here; the linear family, the
// elementwise ops, layer norm and pooling, embedding and where, and softmax
// in the cadence_*.cpp files beside this one.
//
// Arithmetic, matched step by step so that results are bit-exact:
//  * quantize: inv_scale = float(1.0 / scale) (divided in double);
//    q = zero_point + nearbyint(inv_scale * x) in float (ties to even),
//    clamped to the full range of out's dtype; quant_min/quant_max are not
//    used (as in the reference). NaN maps to the dtype's minimum.
//  * dequantize: float(scale) * float(q - zero_point).
//  * conv: a float accumulator starts at float(bias[oc]) and adds
//    float(x - in_zp) * float(w - w_zp) over input channel, kernel row,
//    kernel column (in that order); then bias_scale * acc is quantized with
//    1.f / out_scale. out_multiplier and out_shift are unused.
#include <cmath>
#include <limits>
#include <optional>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

using math::Reader;
using math::Writer;
using cadence::dtype_range;
using cadence::quantize_value;
using cadence::Range;
using cadence::zero_point_arg;

// The unused quant_min, quant_max and dtype arguments must still be well formed.
Status check_unused_args(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(int64_t qmin, int_arg(ctx, *args[3], "quant_min"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmax, int_arg(ctx, *args[4], "quant_max"));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, math::dtype_arg(ctx, *args[5], "dtype"));
  (void)qmin, (void)qmax, (void)dtype;
  return {};
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out, ret)
Status quantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t zero_point, zero_point_arg(ctx, *args[2], "zero_point"));
  ETKIT_TRY(check_unused_args(ctx, args));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (input->dtype() != ScalarType::kFloat) return ctx.fail("input must be FLOAT, not " + dtype_name(input->dtype()));
  const auto range = dtype_range(out->dtype());
  if (!range) return ctx.fail("out dtype " + dtype_name(out->dtype()) + " is not a quantized dtype");
  if (scale == 0 || !std::isfinite(scale)) return ctx.fail("scale " + std::to_string(scale) + " must be finite and non-zero");
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  const float inv_scale = static_cast<float>(1.0 / scale);
  const Reader<float> read(*input);
  const Writer<int64_t> write(*out);
  for_each_element(*out, *input, [&](int64_t o, int64_t i) {
    write(o, quantize_value(read(i), inv_scale, zero_point, *range));
  });
  return {};
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out, ret)
Status dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t zero_point, zero_point_arg(ctx, *args[2], "zero_point"));
  ETKIT_TRY(check_unused_args(ctx, args));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (!dtype_range(input->dtype())) return ctx.fail("input dtype " + dtype_name(input->dtype()) + " is not supported");
  if (out->dtype() != ScalarType::kFloat) return ctx.fail("out must be FLOAT, not " + dtype_name(out->dtype()));
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  const float s = static_cast<float>(scale);
  const Reader<int64_t> read(*input);
  const Writer<float> write(*out);
  for_each_element(*out, *input, [&](int64_t o, int64_t i) {
    write(o, s * static_cast<float>(read(i) - zero_point));  // int64: no overflow
  });
  return {};
}

// ---- quantized_conv2d_nchw ------------------------------------------------

struct ConvGeometry {
  int64_t n, c, h, w;       // input (h = 1 for a conv1d [N, C, W] input)
  int64_t oc, wc, kh, kw;   // weight
  int64_t oh, ow;           // out
  int64_t s0, s1, p0, p1, d0, d1, groups;
};

Result<std::array<int64_t, 2>> pair_arg(KernelContext& ctx, const EValue& v, std::string_view what, bool positive) {
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> items, ctx.int_list(v, what));
  if (items.size() != 2) return ctx.fail(std::string(what) + " must have 2 entries, got " + list_string(items));
  for (int64_t x : items) {
    if (positive ? x < 1 : x < 0) {
      return ctx.fail(std::string(what) + " " + list_string(items) + " must be " + (positive ? "positive" : "non-negative"));
    }
    if (x > INT16_MAX) return ctx.fail(std::string(what) + " " + list_string(items) + " exceeds int16");
  }
  return std::array<int64_t, 2>{items[0], items[1]};
}

// The output extent of one spatial dim (0 or less: empty).
int64_t conv_extent(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;  // all terms < 2^47
}

Result<ConvGeometry> conv_geometry(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                   std::span<EValue* const> args) {
  ConvGeometry g{};
  const bool conv1d = input.dim() == 3;
  if (input.dim() != 4 && !conv1d) return ctx.fail("input must be [N, C, H, W] or [N, C, W], got " + input.shape_string());
  if (weight.dim() != input.dim()) return ctx.fail("weight " + weight.shape_string() + " must have input's rank");
  g.n = input.size(0);
  g.c = input.size(1);
  g.h = conv1d ? 1 : input.size(2);
  g.w = input.size(conv1d ? 2 : 3);
  g.oc = weight.size(0);
  g.wc = weight.size(1);
  g.kh = conv1d ? 1 : weight.size(2);
  g.kw = weight.size(conv1d ? 2 : 3);
  ETKIT_ASSIGN_OR_RETURN(auto stride, pair_arg(ctx, *args[3], "stride", true));
  ETKIT_ASSIGN_OR_RETURN(auto padding, pair_arg(ctx, *args[4], "padding", false));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, pair_arg(ctx, *args[5], "dilation", true));
  ETKIT_ASSIGN_OR_RETURN(g.groups, int_arg(ctx, *args[6], "groups"));
  g.s0 = stride[0], g.s1 = stride[1], g.p0 = padding[0], g.p1 = padding[1], g.d0 = dilation[0], g.d1 = dilation[1];
  if (g.groups < 1 || g.groups > INT16_MAX || g.c % g.groups != 0 || g.oc % g.groups != 0) {
    return ctx.fail("groups " + std::to_string(g.groups) + " must divide the " + std::to_string(g.c) + " input and " +
                    std::to_string(g.oc) + " output channels");
  }
  if (g.wc != g.c / g.groups) {
    return ctx.fail("weight " + weight.shape_string() + " must have " + std::to_string(g.c / g.groups) +
                    " input channels per group");
  }
  if (bias.dtype() != ScalarType::kInt) return ctx.fail("bias must be INT, not " + dtype_name(bias.dtype()));
  if (bias.dim() != 1 || bias.size(0) != g.oc) {
    return ctx.fail("bias must be [" + std::to_string(g.oc) + "], got " + bias.shape_string());
  }
  // conv1d inputs have no H: the reference uses the second entries (W) only.
  g.oh = conv1d ? 1 : conv_extent(g.h, g.kh, g.s0, g.p0, g.d0);
  g.ow = conv_extent(g.w, g.kw, g.s1, g.p1, g.d1);
  if (g.oh < 0 || g.ow < 0) return ctx.fail("the kernel is larger than the padded input");
  return g;
}

// (input, weight, bias, stride, padding, dilation, groups, input_zero_point,
// weight_zero_point, bias_scale, out_scale, out_zero_point, out_multiplier,
// out_shift, out, ret)
Status quantized_conv2d_nchw_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(int32_t in_zp, zero_point_arg(ctx, *args[7], "input_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t w_zp, zero_point_arg(ctx, *args[8], "weight_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(double bias_scale, double_arg(ctx, *args[9], "bias_scale"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[10], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[11], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_multiplier, int_arg(ctx, *args[12], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_shift, int_arg(ctx, *args[13], "out_shift"));
  (void)out_multiplier, (void)out_shift;  // unused by the generic reference
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[14], "out"));
  // Supported: one of int8/uint8/int16 throughout, or int16 activations with int8 weights.
  const ScalarType it = input->dtype(), wt = weight->dtype(), ot = out->dtype();
  const bool same = it == wt && it == ot && (it == ScalarType::kChar || it == ScalarType::kByte || it == ScalarType::kShort);
  const bool a16w8 = it == ScalarType::kShort && wt == ScalarType::kChar && ot == ScalarType::kShort;
  if (!same && !a16w8) {
    return ctx.fail("unsupported dtypes: input " + dtype_name(it) + ", weight " + dtype_name(wt) + ", out " + dtype_name(ot));
  }
  if (w_zp < -128 || w_zp > 127) return ctx.fail("weight_zero_point " + std::to_string(w_zp) + " must be in [-128, 127]");
  if (out_scale == 0 || !std::isfinite(out_scale)) return ctx.fail("out_scale must be finite and non-zero");
  ETKIT_ASSIGN_OR_RETURN(ConvGeometry g, conv_geometry(ctx, *input, *weight, *bias, args));
  Shape shape;
  shape.push_back(g.n);
  shape.push_back(g.oc);
  if (input->dim() == 4) shape.push_back(g.oh);
  shape.push_back(g.ow);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  // The reference narrows the zero points to the element types.
  const auto narrow = [](ScalarType t, int32_t v) -> int64_t {
    switch (t) {
      case ScalarType::kChar: return int8_t(v);
      case ScalarType::kByte: return uint8_t(v);
      default: return int16_t(v);
    }
  };
  const int64_t in_zero = narrow(it, in_zp), w_zero = w_zp;  // w_zp was checked to fit int8
  const int64_t out_zero = narrow(ot, out_zp);
  const Range range = *dtype_range(ot);
  const float inv_out_scale = 1.f / static_cast<float>(out_scale);
  const float bscale = static_cast<float>(bias_scale);
  // Views with an explicit H of 1 for conv1d, so one loop serves both.
  const auto as4d = [](const Tensor& t) {
    View v = View::of(t);
    if (v.rank() == 3) v = v.with_broadcast_dim(2, 1);
    return v;
  };
  const View in = as4d(*input), wv = as4d(*weight), ov = as4d(*out);
  const Reader<int64_t> read_in(*input), read_w(*weight), read_bias(*bias);
  const Writer<int64_t> write(*out);
  const int64_t ocpg = g.oc / g.groups, icpg = g.c / g.groups;
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t o = 0; o < g.oc; ++o) {
      const int64_t first_ic = (o / ocpg) * icpg;
      const float bias_value = static_cast<float>(read_bias(o * bias->strides()[0]));
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t x = 0; x < g.ow; ++x) {
          float acc = bias_value;
          for (int64_t ic = first_ic; ic < first_ic + icpg; ++ic) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t iy = y * g.s0 + g.d0 * ky - g.p0;
              if (iy < 0 || iy >= g.h) continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t ix = x * g.s1 + g.d1 * kx - g.p1;
                if (ix < 0 || ix >= g.w) continue;
                const int64_t xi = read_in(b * in.strides[0] + ic * in.strides[1] + iy * in.strides[2] + ix * in.strides[3]);
                const int64_t wi = read_w(o * wv.strides[0] + (ic - first_ic) * wv.strides[1] + ky * wv.strides[2] +
                                          kx * wv.strides[3]);
                acc += static_cast<float>(xi - in_zero) * static_cast<float>(wi - w_zero);
              }
            }
          }
          const int64_t q = quantize_value(bscale * acc, inv_out_scale, int32_t(out_zero), range);
          write(b * ov.strides[0] + o * ov.strides[1] + y * ov.strides[2] + x * ov.strides[3], q);
        }
      }
    }
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> cadence_kernels() {
  std::vector<KernelInfo> table;
  table.push_back({"cadence::quantize_per_tensor.out", quantize_per_tensor_out, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor.out", dequantize_per_tensor_out, 8, {6}});
  table.push_back({"cadence::quantized_conv2d_nchw.per_tensor_out", quantized_conv2d_nchw_per_tensor_out, 16, {14}});
  table.push_back({"cadence::quantize_per_tensor_asym8s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kChar, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym8s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kChar, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym8u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kByte, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym8u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kByte, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym16s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kShort, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym16s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kShort, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym16u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kUInt16, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym16u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kUInt16, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym32s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kInt, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym32s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kInt, 0>(c, a, {"input"});
  }, 8, {6}});
  for (auto& k : cadence::matmul_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::elementwise_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::norm_pool_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::select_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::softmax_kernels()) table.push_back(std::move(k));
  return table;
}

}  // namespace etkit::rt::kernels
