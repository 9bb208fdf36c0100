// cortex_m::quantized_conv2d.out, quantized_depthwise_conv2d.out and
// quantized_transpose_conv2d.out with the arithmetic of CMSIS-NN's
// arm_convolve_s8 / arm_depthwise_conv_s8 / arm_transpose_conv_s8:
//   acc = bias[oc] + sum (x[n, iy, ix, ic] + input_offset) * w[...]
//   out = clamp(requantize(acc, multiplier[oc], shift[oc]) + output_offset,
//               activation_min, activation_max)
// where taps outside the input (padding) contribute nothing. Weights are
// OHWI [Cout, kH, kW, Cin/groups] for conv2d and [1, kH, kW, Cout] for
// depthwise (Cout = Cin * depth_multiplier, output channel c * dm + m reads
// input channel c). The transposed convolution scatters each input pixel:
// input (iy, ix) adds to output (iy * stride - pad + ky, ...) with weights
// OHWI [Cout, kH, kW, Cin], the same requantization afterwards. Tensors carry logical NCHW sizes; input and out are
// read through their strides, so channels-last (CMSIS-NN's NHWC) and
// contiguous layouts both work. scratch (CMSIS-NN's im2col buffer) is
// accepted and unused. Sums are formed in 64 bits and wrapped to 32, which
// equals the target's wrapping 32-bit accumulation.
#include <algorithm>

#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

constexpr int64_t kMaxGeometry = int64_t(1) << 20;  // bound on strides, paddings, dilations

struct ConvGeometry {
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
};

// Weight element (oc, ky, kx, ic-within-group) through strides.
struct WeightView {
  const int8_t* data;
  int64_t s_oc, s_ky, s_kx, s_ic;
  int64_t kh, kw, cin_per_group;
};

struct ConvQuant {
  int32_t input_offset, output_offset;
  Requant requant;
  Activation act;
  const Tensor* bias;  // INT [Cout] or nullptr
};

Result<ConvGeometry> geometry_args(KernelContext& ctx, std::span<EValue* const> args, size_t stride_i,
                                   size_t padding_i, size_t dilation_i) {
  ETKIT_ASSIGN_OR_RETURN(auto s, int_list_arg(ctx, *args[stride_i], "stride", 2, 1, kMaxGeometry));
  const int64_t sh = s[0], sw = s[1];
  ETKIT_ASSIGN_OR_RETURN(auto p, int_list_arg(ctx, *args[padding_i], "padding", 2, 0, kMaxGeometry));
  const int64_t ph = p[0], pw = p[1];
  ETKIT_ASSIGN_OR_RETURN(auto d, int_list_arg(ctx, *args[dilation_i], "dilation", 2, 1, kMaxGeometry));
  return ConvGeometry{sh, sw, ph, pw, d[0], d[1]};
}

// Output extent of a convolution, or a negative value when the (dilated)
// kernel does not fit the padded input.
int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  const int64_t span = dil * (k - 1) + 1, padded = in + 2 * pad;
  return padded < span ? -1 : (padded - span) / stride + 1;
}

Result<ConvQuant> quant_args(KernelContext& ctx, std::span<EValue* const> args, size_t first, size_t bias_i,
                             int64_t cout) {
  ConvQuant q{};
  ETKIT_ASSIGN_OR_RETURN(q.input_offset, offset_arg(ctx, *args[first], "input_offset"));
  ETKIT_ASSIGN_OR_RETURN(q.output_offset, offset_arg(ctx, *args[first + 1], "output_offset"));
  ETKIT_ASSIGN_OR_RETURN(q.requant, per_channel_tensors(ctx, *args[first + 2], *args[first + 3], cout));
  ETKIT_ASSIGN_OR_RETURN(q.act, activation_args(ctx, *args[first + 4], *args[first + 5]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[bias_i], "bias"));
  if (bias != nullptr) {
    ETKIT_TRY(check_dtype(ctx, *bias, ScalarType::kInt, "bias"));
    if (bias->dim() != 1 || bias->numel() != cout) {
      return ctx.fail("bias must have shape [" + std::to_string(cout) + "], got " + bias->shape_string());
    }
  }
  q.bias = bias;
  ETKIT_ASSIGN_OR_RETURN(Tensor * scratch, tensor_arg(ctx, *args[first + 6], "scratch"));
  (void)scratch;
  return q;
}

Status check_io(KernelContext& ctx, const Tensor& in, const Tensor& w, const Tensor& out) {
  ETKIT_TRY(check_dtype(ctx, in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, w, ScalarType::kChar, "weight"));
  ETKIT_TRY(check_dtype(ctx, out, ScalarType::kChar, "out"));
  if (in.dim() != 4) return ctx.fail("input must be 4-D [N, C, H, W], got " + in.shape_string());
  if (w.dim() != 4) return ctx.fail("weight must be 4-D, got " + w.shape_string());
  if (out.dim() != 4) return ctx.fail("out must be 4-D [N, C, H, W], got " + out.shape_string());
  return {};
}

// Resizes out to [N, Cout, OH, OW] for this geometry.
Status resize_conv_out(KernelContext& ctx, const Tensor& in, const WeightView& w, const ConvGeometry& g,
                       int64_t cout, Tensor& out) {
  const int64_t oh = conv_out_size(in.size(2), w.kh, g.stride_h, g.pad_h, g.dil_h);
  const int64_t ow = conv_out_size(in.size(3), w.kw, g.stride_w, g.pad_w, g.dil_w);
  if (oh <= 0 || ow <= 0) {
    return ctx.fail("kernel " + std::to_string(w.kh) + "x" + std::to_string(w.kw) + " does not fit input " +
                    in.shape_string() + " with this padding and dilation");
  }
  const int64_t shape[4] = {in.size(0), cout, oh, ow};
  ETKIT_TRY(resize_out(ctx, out, shape));
  if (overlaps(in, out)) return ctx.fail("out must not overlap input");
  return {};
}

// The direct loops: output channel oc reads input channels
// [group(oc) * cin_per_group, +cin_per_group) with `couts_per_group` output
// channels per group.
void direct_conv(const Tensor& input, const WeightView& w, const ConvGeometry& g, const ConvQuant& q,
                 int64_t couts_per_group, Tensor& output) {
  const Nchw is = nchw(input), os = nchw(output);
  const int8_t* x = input.data_as<int8_t>();
  int8_t* y = output.data_as<int8_t>();
  for (int64_t n = 0; n < os.n; ++n) {
    for (int64_t oc = 0; oc < os.c; ++oc) {
      const int64_t ic0 = (oc / couts_per_group) * w.cin_per_group;
      const int32_t bias = q.bias ? q.bias->data_as<int32_t>()[oc * q.bias->strides()[0]] : 0;
      const auto mult = int32_t(q.requant.multipliers[oc]);
      const auto shift = int32_t(q.requant.shifts[oc]);
      for (int64_t oy = 0; oy < os.h; ++oy) {
        for (int64_t ox = 0; ox < os.w; ++ox) {
          int64_t acc = bias;
          for (int64_t ky = 0; ky < w.kh; ++ky) {
            const int64_t iy = oy * g.stride_h - g.pad_h + ky * g.dil_h;
            if (iy < 0 || iy >= is.h) continue;
            for (int64_t kx = 0; kx < w.kw; ++kx) {
              const int64_t ix = ox * g.stride_w - g.pad_w + kx * g.dil_w;
              if (ix < 0 || ix >= is.w) continue;
              const int8_t* px = x + n * is.sn + iy * is.sh + ix * is.sw;
              const int8_t* pw = w.data + oc * w.s_oc + ky * w.s_ky + kx * w.s_kx;
              for (int64_t c = 0; c < w.cin_per_group; ++c) {
                acc += int64_t(px[(ic0 + c) * is.sc] + q.input_offset) * pw[c * w.s_ic];
              }
            }
          }
          const int32_t r = wrapping_add(requantize(wrap32(acc), mult, shift), q.output_offset);
          y[n * os.sn + oc * os.sc + oy * os.sh + ox * os.sw] = static_cast<int8_t>(clamp32(r, q.act.min, q.act.max));
        }
      }
    }
  }
}

// (input, weight, bias, stride, padding, dilation, input_offset,
//  output_offset, requantize_multipliers, requantize_shifts, activation_min,
//  activation_max, scratch, out, ret)
Status quantized_conv2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[13], "out"));
  ETKIT_TRY(check_io(ctx, *in, *weight, *out));
  const auto ws = weight->strides();
  const WeightView w{weight->data_as<int8_t>(), ws[0], ws[1], ws[2], ws[3],
                     weight->size(1), weight->size(2), weight->size(3)};
  const int64_t cout = weight->size(0), cin = in->size(1);
  if (w.cin_per_group <= 0 || cin < w.cin_per_group || cin % w.cin_per_group != 0 || cout % (cin / w.cin_per_group) != 0) {
    return ctx.fail("weight " + weight->shape_string() + " (OHWI) does not match input channels of " +
                    in->shape_string());
  }
  ETKIT_ASSIGN_OR_RETURN(ConvGeometry g, geometry_args(ctx, args, 3, 4, 5));
  ETKIT_ASSIGN_OR_RETURN(ConvQuant q, quant_args(ctx, args, 6, 2, cout));
  ETKIT_TRY(resize_conv_out(ctx, *in, w, g, cout, *out));
  const int64_t groups = cin / w.cin_per_group;
  direct_conv(*in, w, g, q, cout / groups, *out);
  return {};
}

// (input, weight, bias, stride, padding, dilation, depth_multiplier,
//  input_offset, output_offset, requantize_multipliers, requantize_shifts,
//  activation_min, activation_max, scratch, out, ret)
Status quantized_depthwise_conv2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[14], "out"));
  ETKIT_TRY(check_io(ctx, *in, *weight, *out));
  ETKIT_ASSIGN_OR_RETURN(int32_t dm, int_in_range(ctx, *args[6], "depth_multiplier", 1, kMaxGeometry));
  const int64_t cin = in->size(1), cout = weight->size(3);
  if (weight->size(0) != 1 || cout != cin * dm) {
    return ctx.fail("weight " + weight->shape_string() + " must be [1, kH, kW, " + std::to_string(cin * dm) +
                    "] (input channels x depth_multiplier)");
  }
  // Output channel oc is one group of its own: its weights are column oc.
  const auto ws = weight->strides();
  const WeightView w{weight->data_as<int8_t>(), ws[3], ws[1], ws[2], 0, weight->size(1), weight->size(2), 1};
  ETKIT_ASSIGN_OR_RETURN(ConvGeometry g, geometry_args(ctx, args, 3, 4, 5));
  ETKIT_ASSIGN_OR_RETURN(ConvQuant q, quant_args(ctx, args, 7, 2, cout));
  ETKIT_TRY(resize_conv_out(ctx, *in, w, g, cout, *out));
  direct_conv(*in, w, g, q, dm, *out);
  return {};
}

// Output extent of a transposed convolution (PyTorch's formula, dilation
// 1), or a negative value when CMSIS-NN cannot produce it: its rolling
// accumulator spans (in - 1) * stride + max(k, stride) positions from -pad,
// so output padding past that (output_padding > pad when k >= stride) would
// be rows the reference kernel never writes.
int64_t transpose_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t out_pad) {
  const int64_t size = (in - 1) * stride - 2 * pad + k + out_pad;
  if (pad + size > (in - 1) * stride + std::max(k, stride)) return -1;
  return size;
}

// (input, weight, bias, stride, padding, output_padding, dilation,
//  input_offset, output_offset, requantize_multipliers, requantize_shifts,
//  activation_min, activation_max, scratch, output_scratch, out, ret)
Status quantized_transpose_conv2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[15], "out"));
  ETKIT_TRY(check_io(ctx, *in, *weight, *out));
  const int64_t cout = weight->size(0), kh = weight->size(1), kw = weight->size(2), cin = in->size(1);
  if (weight->size(3) != cin) {
    return ctx.fail("weight " + weight->shape_string() + " (OHWI) does not match input channels of " +
                    in->shape_string());
  }
  ETKIT_ASSIGN_OR_RETURN(ConvGeometry g, geometry_args(ctx, args, 3, 4, 6));
  // arm_transpose_conv_s8 has no dilation; the backend lowers only 1.
  if (g.dil_h != 1 || g.dil_w != 1) return ctx.fail("dilation must be [1, 1] (CMSIS-NN has no dilated transpose conv)");
  ETKIT_ASSIGN_OR_RETURN(auto op, int_list_arg(ctx, *args[5], "output_padding", 2, 0, kMaxGeometry));
  ETKIT_ASSIGN_OR_RETURN(ConvQuant q, quant_args(ctx, args, 7, 2, cout));
  ETKIT_ASSIGN_OR_RETURN(Tensor * output_scratch, tensor_arg(ctx, *args[14], "output_scratch"));
  (void)output_scratch;
  const int64_t oh = transpose_out_size(in->size(2), kh, g.stride_h, g.pad_h, op[0]);
  const int64_t ow = transpose_out_size(in->size(3), kw, g.stride_w, g.pad_w, op[1]);
  if (oh <= 0 || ow <= 0) {
    return ctx.fail("kernel " + std::to_string(kh) + "x" + std::to_string(kw) + " with this stride, padding and " +
                    "output_padding gives no output CMSIS-NN computes for input " + in->shape_string());
  }
  const int64_t shape[4] = {in->size(0), cout, oh, ow};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (overlaps(*in, *out)) return ctx.fail("out must not overlap input");
  const Nchw is = nchw(*in), os = nchw(*out);
  const auto ws = weight->strides();
  const int8_t* x = in->data_as<int8_t>();
  const int8_t* w = weight->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  for (int64_t n = 0; n < os.n; ++n) {
    for (int64_t oc = 0; oc < os.c; ++oc) {
      const int32_t bias = q.bias ? q.bias->data_as<int32_t>()[oc * q.bias->strides()[0]] : 0;
      const auto mult = int32_t(q.requant.multipliers[oc]);
      const auto shift = int32_t(q.requant.shifts[oc]);
      for (int64_t oy = 0; oy < os.h; ++oy) {
        for (int64_t ox = 0; ox < os.w; ++ox) {
          // Gather form of the scatter: tap (ky, kx) of input (iy, ix) lands here
          // when iy * stride + ky == oy + pad.
          int64_t acc = bias;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t ry = oy + g.pad_h - ky;
            if (ry < 0 || ry % g.stride_h != 0 || ry / g.stride_h >= is.h) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t rx = ox + g.pad_w - kx;
              if (rx < 0 || rx % g.stride_w != 0 || rx / g.stride_w >= is.w) continue;
              const int8_t* px = x + n * is.sn + (ry / g.stride_h) * is.sh + (rx / g.stride_w) * is.sw;
              const int8_t* pw = w + oc * ws[0] + ky * ws[1] + kx * ws[2];
              for (int64_t c = 0; c < cin; ++c) acc += int64_t(px[c * is.sc] + q.input_offset) * pw[c * ws[3]];
            }
          }
          const int32_t r = wrapping_add(requantize(wrap32(acc), mult, shift), q.output_offset);
          y[n * os.sn + oc * os.sc + oy * os.sh + ox * os.sw] = static_cast<int8_t>(clamp32(r, q.act.min, q.act.max));
        }
      }
    }
  }
  return {};
}

}  // namespace

void add_conv_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantized_conv2d.out", quantized_conv2d_out, 15, {13}});
  table.push_back({"cortex_m::quantized_depthwise_conv2d.out", quantized_depthwise_conv2d_out, 16, {14}});
  table.push_back({"cortex_m::quantized_transpose_conv2d.out", quantized_transpose_conv2d_out, 17, {15}});
}

}  // namespace etkit::rt::kernels::cortex_m
