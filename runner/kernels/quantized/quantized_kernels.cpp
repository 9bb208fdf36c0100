// quantized_decomposed:: reference quantization ops (torch.ao's decomposed
// quant ops as ExecuTorch's kernels/quantized/cpu implements them):
// quantize / dequantize per tensor (scalar or 1-element tensor params), per
// channel (one scale and zero point along an axis) and per token (one per
// row of the last dim), choose_qparams (per tensor, per token) and the
// quantized embedding lookups embedding_byte, embedding_4bit, embedding_2bit.
//
// Arithmetic follows ExecuTorch's scalar (non-NEON) paths exactly:
//  * quantize: inv_scale = 1.0f / float(scale); q = float(zero_point) +
//    nearbyint(float(inv_scale * x)) in float, so ties round half to even
//    (0.5 -> 0, 1.5 -> 2); then clamped to [quant_min, quant_max]. NaN
//    maps to quant_min (what x86's float->int conversion plus the clamp
//    gives ExecuTorch); +-inf saturate.
//  * dequantize: float(q - zero_point) * float(scale), rounded once to
//    float, then converted to out's dtype.
// Quantized dtypes: uint8, int8, int16, int32, uint16 (and BITS16).
#include <cmath>
#include <limits>
#include <optional>

#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/quantized/quantized_ops.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

using math::Reader;
using math::Writer;

struct QuantRange {
  int64_t lo, hi;
};

// The representable range of a quantized dtype, or nullopt if the dtype
// is not one (check_quantize_per_tensor_args).
std::optional<QuantRange> quant_range(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: return QuantRange{0, 255};
    case ScalarType::kChar: return QuantRange{-128, 127};
    case ScalarType::kShort: return QuantRange{INT16_MIN, INT16_MAX};
    case ScalarType::kInt: return QuantRange{INT32_MIN, INT32_MAX};
    case ScalarType::kUInt16: case ScalarType::kBits16: return QuantRange{0, UINT16_MAX};
    default: return std::nullopt;
  }
}

// quant_min/quant_max must lie in the dtype's range, in order.
Status check_quant_bounds(KernelContext& ctx, ScalarType qtype, int64_t qmin, int64_t qmax, std::string_view what) {
  const auto range = quant_range(qtype);
  if (!range) return ctx.fail(std::string(what) + " dtype " + dtype_name(qtype) + " is not a quantized dtype");
  if (qmin < range->lo || qmax > range->hi) {
    return ctx.fail("quant_min " + std::to_string(qmin) + " and quant_max " + std::to_string(qmax) +
                    " must lie in [" + std::to_string(range->lo) + ", " + std::to_string(range->hi) + "] for " +
                    dtype_name(qtype));
  }
  if (qmin > qmax) {
    return ctx.fail("quant_min " + std::to_string(qmin) + " is greater than quant_max " + std::to_string(qmax));
  }
  return {};
}

Result<ScalarType> scalar_type_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> t, math::dtype_arg(ctx, v, what));
  if (!t) return ctx.fail(std::string(what) + " must be a scalar type, not None");
  return *t;
}

// Element k (row-major logical position) of `t`, as an offset.
int64_t logical_offset(const Tensor& t, int64_t k) {
  int64_t off = 0;
  for (size_t d = t.dim(); d-- > 0;) {
    const int64_t size = t.size(d);
    off += (k % size) * t.strides()[d];
    k /= size;
  }
  return off;
}

// Quantization parameters: per element of a scale tensor (or a single
// scalar), read as ExecuTorch reads them.
struct Params {
  const Tensor* scales = nullptr;  // nullptr: the scalar below
  const Tensor* zero_points = nullptr;  // nullptr: the scalar below (0 when absent)
  double scale = 1;
  int64_t zero_point = 0;

  double scale_at(int64_t k) const {
    if (!scales) return scale;
    return Reader<double>(*scales)(logical_offset(*scales, k));
  }
  int64_t zero_point_at(int64_t k) const {
    if (!zero_points) return zero_point;
    return Reader<int64_t>(*zero_points)(logical_offset(*zero_points, k));
  }
};

// Zero points are int32 in ExecuTorch's arithmetic; every one must fit.
Status check_zero_points(KernelContext& ctx, const Params& p, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const int64_t zp = p.zero_point_at(k);
    if (zp < INT32_MIN || zp > INT32_MAX) return ctx.fail("zero_point " + std::to_string(zp) + " does not fit in int32");
  }
  return {};
}

// Quantize needs a usable reciprocal of every scale.
Status check_scales(KernelContext& ctx, const Params& p, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const double s = p.scale_at(k);
    if (!std::isfinite(s) || float(s) == 0.0f) {
      return ctx.fail("scale " + std::to_string(s) + " must be finite and non-zero");
    }
  }
  return {};
}

// One value, as quantize_val in op_quantize.cpp (see the file comment).
int64_t quantize_value(float scaled, int64_t zero_point, int64_t qmin, int64_t qmax) {
  const float q = float(int32_t(zero_point)) + std::nearbyint(scaled);
  if (std::isnan(q)) return qmin;
  if (q <= float(qmin)) return qmin;  // also -inf; comparing in float first keeps
  if (q >= float(qmax)) return qmax;  // the int64 conversion below in range
  const int64_t v = static_cast<int64_t>(q);
  return std::clamp(v, qmin, qmax);
}

// Which parameter index an element uses, from its logical coordinates.
enum class Granularity { kTensor, kChannel, kToken };

struct Layout {
  Granularity granularity = Granularity::kTensor;
  size_t axis = 0;  // kChannel
};

int64_t param_index(const Layout& layout, const Tensor& input, const int64_t* c) {
  switch (layout.granularity) {
    case Granularity::kTensor: return 0;
    case Granularity::kChannel: return c[layout.axis];
    default: {  // kToken: the row-major position over all dims but the last
      int64_t k = 0;
      for (size_t d = 0; d + 1 < input.dim(); ++d) k = k * input.size(d) + c[d];
      return k;
    }
  }
}

// How many parameters a layout needs.
int64_t param_count(const Layout& layout, const Tensor& input) {
  switch (layout.granularity) {
    case Granularity::kTensor: return 1;
    case Granularity::kChannel: return input.size(layout.axis);
    default: {
      int64_t n = 1;
      for (size_t d = 0; d + 1 < input.dim(); ++d) n *= input.size(d);
      return n;
    }
  }
}

Status quantize_into(KernelContext& ctx, const Tensor& input, const Params& p, const Layout& layout, int64_t qmin,
                     int64_t qmax, ScalarType dtype, Tensor& out) {
  const ScalarType in = input.dtype();
  if (in != ScalarType::kFloat && in != ScalarType::kDouble && in != ScalarType::kHalf) {
    return ctx.fail("input must be FLOAT, DOUBLE or HALF, not " + dtype_name(in));
  }
  if (out.dtype() != dtype) {
    return ctx.fail("out dtype " + dtype_name(out.dtype()) + " does not match dtype " + dtype_name(dtype));
  }
  ETKIT_TRY(check_quant_bounds(ctx, dtype, qmin, qmax, "out"));
  const int64_t count = param_count(layout, input);
  ETKIT_TRY(check_scales(ctx, p, count));
  ETKIT_TRY(check_zero_points(ctx, p, count));
  ETKIT_TRY(resize_out(ctx, out, input.sizes()));
  const View src = View::of(input), dst = View::of(out);
  const Reader<double> read(input);
  const Writer<int64_t> write(out);
  const bool is_double = in == ScalarType::kDouble;
  for_each_index(src.sizes, [&](const int64_t* c) {
    const int64_t k = param_index(layout, input, c);
    const float inv_scale = 1.0f / static_cast<float>(p.scale_at(k));
    const double x = read(offset_at(c, src.strides));
    // float * float for FLOAT/HALF inputs, double * double (then float) for DOUBLE.
    const float scaled = is_double ? static_cast<float>(double(inv_scale) * x) : inv_scale * static_cast<float>(x);
    write(offset_at(c, dst.strides), quantize_value(scaled, p.zero_point_at(k), qmin, qmax));
  });
  return {};
}

Status dequantize_into(KernelContext& ctx, const Tensor& input, const Params& p, const Layout& layout, int64_t qmin,
                       int64_t qmax, ScalarType dtype, std::optional<ScalarType> out_dtype, Tensor& out) {
  if (!quant_range(input.dtype())) return ctx.fail("input dtype " + dtype_name(input.dtype()) + " is not supported");
  if (input.dtype() != dtype) {
    return ctx.fail("input dtype " + dtype_name(input.dtype()) + " does not match dtype " + dtype_name(dtype));
  }
  if (out_dtype && *out_dtype != out.dtype()) {
    return ctx.fail("out dtype " + dtype_name(out.dtype()) + " does not match out_dtype " + dtype_name(*out_dtype));
  }
  const ScalarType o = out.dtype();
  if (o != ScalarType::kFloat && o != ScalarType::kDouble && o != ScalarType::kHalf) {
    return ctx.fail("out must be FLOAT, DOUBLE or HALF, not " + dtype_name(o));
  }
  if (qmin > qmax) {
    return ctx.fail("quant_min " + std::to_string(qmin) + " is greater than quant_max " + std::to_string(qmax));
  }
  ETKIT_TRY(check_zero_points(ctx, p, param_count(layout, input)));
  ETKIT_TRY(resize_out(ctx, out, input.sizes()));
  const View src = View::of(input), dst = View::of(out);
  const Reader<int64_t> read(input);
  const Writer<float> write(out);
  for_each_index(src.sizes, [&](const int64_t* c) {
    const int64_t k = param_index(layout, input, c);
    const int64_t diff = read(offset_at(c, src.strides)) - p.zero_point_at(k);  // both fit in int32
    write(offset_at(c, dst.strides), static_cast<float>(diff) * static_cast<float>(p.scale_at(k)));
  });
  return {};
}

// The 1-element DOUBLE scale and LONG zero_point tensors of the .Tensor
// overloads.
Result<Params> tensor_params(KernelContext& ctx, const Tensor& scale, const Tensor& zero_point) {
  if (scale.dtype() != ScalarType::kDouble) return ctx.fail("scale must be DOUBLE, not " + dtype_name(scale.dtype()));
  if (zero_point.dtype() != ScalarType::kLong) {
    return ctx.fail("zero_point must be LONG, not " + dtype_name(zero_point.dtype()));
  }
  if (scale.numel() != 1 || zero_point.numel() != 1) {
    return ctx.fail("scale and zero_point must have one element each, got " + std::to_string(scale.numel()) + " and " +
                    std::to_string(zero_point.numel()));
  }
  Params p;
  p.scale = Reader<double>(scale)(logical_offset(scale, 0));
  p.zero_point = Reader<int64_t>(zero_point)(logical_offset(zero_point, 0));
  return p;
}

// Per-channel / per-token parameter tensors: `count` scales (DOUBLE, or
// also FLOAT when `float_scales`) and zero points (LONG, or also INT when
// `int_zero_points`); zero_points may be absent when `optional_zero_points`.
Result<Params> vector_params(KernelContext& ctx, const Tensor& scales, const Tensor* zero_points, int64_t count,
                             bool float_scales, bool int_zero_points) {
  const ScalarType st = scales.dtype();
  if (st != ScalarType::kDouble && !(float_scales && st == ScalarType::kFloat)) {
    return ctx.fail(std::string("scales must be DOUBLE") + (float_scales ? " or FLOAT" : "") + ", not " + dtype_name(st));
  }
  if (scales.numel() != count) {
    return ctx.fail("scales has " + std::to_string(scales.numel()) + " elements, expected " + std::to_string(count));
  }
  if (zero_points) {
    const ScalarType zt = zero_points->dtype();
    if (zt != ScalarType::kLong && !(int_zero_points && zt == ScalarType::kInt)) {
      return ctx.fail(std::string("zero_points must be LONG") + (int_zero_points ? " or INT" : "") + ", not " +
                      dtype_name(zt));
    }
    if (zero_points->numel() != count) {
      return ctx.fail("zero_points has " + std::to_string(zero_points->numel()) + " elements, expected " +
                      std::to_string(count));
    }
  }
  Params p;
  p.scales = &scales;
  p.zero_points = zero_points;
  return p;
}

struct QuantArgs {
  int64_t qmin, qmax;
  ScalarType dtype;
};

Result<QuantArgs> quant_args(KernelContext& ctx, const EValue& qmin, const EValue& qmax, const EValue& dtype) {
  QuantArgs q{};
  ETKIT_ASSIGN_OR_RETURN(q.qmin, int_arg(ctx, qmin, "quant_min"));
  ETKIT_ASSIGN_OR_RETURN(q.qmax, int_arg(ctx, qmax, "quant_max"));
  ETKIT_ASSIGN_OR_RETURN(q.dtype, scalar_type_arg(ctx, dtype, "dtype"));
  return q;
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out, ret)
Status quantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  Params p;
  ETKIT_ASSIGN_OR_RETURN(p.scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(p.zero_point, int_arg(ctx, *args[2], "zero_point"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  return quantize_into(ctx, *input, p, Layout{}, q.qmin, q.qmax, q.dtype, *out);
}

// (input, Tensor scale, Tensor zero_point, quant_min, quant_max, dtype, out, ret)
Status quantize_per_tensor_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scale, tensor_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_point, tensor_arg(ctx, *args[2], "zero_point"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(Params p, tensor_params(ctx, *scale, *zero_point));
  return quantize_into(ctx, *input, p, Layout{}, q.qmin, q.qmax, q.dtype, *out);
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out_dtype?, out, ret)
Status dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  Params p;
  ETKIT_ASSIGN_OR_RETURN(p.scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(p.zero_point, int_arg(ctx, *args[2], "zero_point"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> out_dtype, math::dtype_arg(ctx, *args[6], "out_dtype"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  return dequantize_into(ctx, *input, p, Layout{}, q.qmin, q.qmax, q.dtype, out_dtype, *out);
}

// (input, Tensor scale, Tensor zero_point, quant_min, quant_max, dtype, out_dtype?, out, ret)
Status dequantize_per_tensor_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scale, tensor_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_point, tensor_arg(ctx, *args[2], "zero_point"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> out_dtype, math::dtype_arg(ctx, *args[6], "out_dtype"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_ASSIGN_OR_RETURN(Params p, tensor_params(ctx, *scale, *zero_point));
  return dequantize_into(ctx, *input, p, Layout{}, q.qmin, q.qmax, q.dtype, out_dtype, *out);
}

Result<Layout> channel_layout(KernelContext& ctx, const Tensor& input, const EValue& axis_value) {
  ETKIT_ASSIGN_OR_RETURN(int64_t axis, int_arg(ctx, axis_value, "axis"));
  if (input.dim() == 0) return ctx.fail("input must have at least 1 dim for a per-channel axis");
  ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, axis, input.dim(), "axis"));
  return Layout{Granularity::kChannel, d};
}

// (input, scales, zero_points, axis, quant_min, quant_max, dtype, out, ret)
Status quantize_per_channel_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, tensor_arg(ctx, *args[2], "zero_points"));
  ETKIT_ASSIGN_OR_RETURN(Layout layout, channel_layout(ctx, *input, *args[3]));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[4], *args[5], *args[6]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_ASSIGN_OR_RETURN(Params p,
                         vector_params(ctx, *scales, zero_points, param_count(layout, *input), false, false));
  return quantize_into(ctx, *input, p, layout, q.qmin, q.qmax, q.dtype, *out);
}

// (input, scales, zero_points?, axis, quant_min, quant_max, dtype, out_dtype?, out, ret)
Status dequantize_per_channel_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, optional_tensor_arg(ctx, *args[2], "zero_points"));
  ETKIT_ASSIGN_OR_RETURN(Layout layout, channel_layout(ctx, *input, *args[3]));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[4], *args[5], *args[6]));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> out_dtype, math::dtype_arg(ctx, *args[7], "out_dtype"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[8], "out"));
  ETKIT_ASSIGN_OR_RETURN(Params p, vector_params(ctx, *scales, zero_points, param_count(layout, *input), true, true));
  return dequantize_into(ctx, *input, p, layout, q.qmin, q.qmax, q.dtype, out_dtype, *out);
}

Status check_token_input(KernelContext& ctx, const Tensor& input) {
  if (input.dim() == 0) return ctx.fail("input must have at least 1 dim (tokens are rows of the last dim)");
  return {};
}

// (input, scales, zero_points, quant_min, quant_max, dtype, out, ret): one
// scale per row of the last dim (scales DOUBLE, zero_points LONG).
Status quantize_per_token_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, tensor_arg(ctx, *args[2], "zero_points"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_TRY(check_token_input(ctx, *input));
  const Layout layout{Granularity::kToken, 0};
  ETKIT_ASSIGN_OR_RETURN(Params p,
                         vector_params(ctx, *scales, zero_points, param_count(layout, *input), false, false));
  return quantize_into(ctx, *input, p, layout, q.qmin, q.qmax, q.dtype, *out);
}

// (input, scales, zero_points, quant_min, quant_max, dtype, output_dtype, out, ret)
Status dequantize_per_token_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, tensor_arg(ctx, *args[2], "zero_points"));
  ETKIT_ASSIGN_OR_RETURN(QuantArgs q, quant_args(ctx, *args[3], *args[4], *args[5]));
  ETKIT_ASSIGN_OR_RETURN(ScalarType output_dtype, scalar_type_arg(ctx, *args[6], "output_dtype"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_TRY(check_token_input(ctx, *input));
  const Layout layout{Granularity::kToken, 0};
  ETKIT_ASSIGN_OR_RETURN(Params p, vector_params(ctx, *scales, zero_points, param_count(layout, *input), true, true));
  return dequantize_into(ctx, *input, p, layout, q.qmin, q.qmax, q.dtype, output_dtype, *out);
}

// ---- embedding_byte, embedding_4bit, embedding_2bit ------------------------

// embedding_{byte,4bit,2bit}.out (weight, weight_scales, weight_zero_points?,
// quant_min, quant_max, indices, out, ret) and .dtype_out (... indices,
// dtype?, out, ret): rows of a [V, D] table dequantized as
// (float(w) - float(zp)) * float(scale), with one scale (and zero point)
// per row, or per group of D / G columns for [V, G] scales. Scales and zero
// points have out's dtype (FLOAT, HALF or BFLOAT16).
//  * byte: weight int8/uint8 [V, D]; indices LONG.
//  * 4bit / 2bit: weight BYTE [V, D * bits / 8], 8 / bits values per byte
//    (embeddingxb.cpp's weight_value): 4-bit column j is the high nibble of
//    byte j / 2 when j is even, the low one when odd, minus 8; 2-bit column
//    j is bits 2(j % 4) and up of byte j / 4, minus 2. Indices INT or LONG.
// Indices are range-checked (ExecuTorch reads out of bounds).
KernelFn embedding_quantized(int bits, bool with_dtype) {
  return [bits, with_dtype](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[0], "weight"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "weight_scales"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, optional_tensor_arg(ctx, *args[2], "weight_zero_points"));
    ETKIT_ASSIGN_OR_RETURN(int64_t qmin, int_arg(ctx, *args[3], "weight_quant_min"));
    ETKIT_ASSIGN_OR_RETURN(int64_t qmax, int_arg(ctx, *args[4], "weight_quant_max"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[5], "indices"));
    std::optional<ScalarType> dtype;
    if (with_dtype) {
      ETKIT_ASSIGN_OR_RETURN(dtype, math::dtype_arg(ctx, *args[6], "dtype"));
    }
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[with_dtype ? 7 : 6], "out"));
    const ScalarType o = out->dtype();
    if (o != ScalarType::kFloat && o != ScalarType::kHalf && o != ScalarType::kBFloat16) {
      return ctx.fail("out must be FLOAT, HALF or BFLOAT16, not " + dtype_name(o));
    }
    if (dtype && *dtype != o) return ctx.fail("dtype " + dtype_name(*dtype) + " does not match out dtype " + dtype_name(o));
    if (weight->dim() != 2) return ctx.fail("weight must be 2-D, got " + weight->shape_string());
    const bool packed = bits < 8;
    if (weight->dtype() != ScalarType::kByte && (packed || weight->dtype() != ScalarType::kChar)) {
      return ctx.fail(std::string("weight must be BYTE") + (packed ? "" : " or CHAR") + ", not " + dtype_name(weight->dtype()));
    }
    const int64_t per_byte = 8 / bits;
    const int64_t rows = weight->size(0), dim = weight->size(1) * per_byte;
    if ((scales->dim() != 1 && scales->dim() != 2) || scales->size(0) != rows) {
      return ctx.fail("weight_scales must be [" + std::to_string(rows) + "] or [" + std::to_string(rows) +
                      ", groups], got " + scales->shape_string());
    }
    const int64_t groups = scales->dim() == 2 ? scales->size(1) : 1;
    if (groups == 0 || dim % groups != 0) {
      return ctx.fail(std::to_string(groups) + " groups do not divide the embedding dim " + std::to_string(dim));
    }
    if (scales->dtype() != o) return ctx.fail("weight_scales must have out's dtype " + dtype_name(o));
    if (zero_points) {
      const auto zs = zero_points->sizes(), ss = scales->sizes();
      if (zero_points->dtype() != o || !std::equal(zs.begin(), zs.end(), ss.begin(), ss.end())) {
        return ctx.fail("weight_zero_points must have weight_scales' shape and out's dtype");
      }
    }
    if (qmin > qmax) return ctx.fail("weight_quant_min " + std::to_string(qmin) + " is greater than weight_quant_max");
    const ScalarType it = indices->dtype();
    if (it != ScalarType::kLong && (!packed || it != ScalarType::kInt)) {
      return ctx.fail(std::string("indices must be LONG") + (packed ? " or INT" : "") + ", not " + dtype_name(it));
    }
    if (indices->dim() >= kMaxRank) return ctx.fail("indices of rank 16 make out exceed rank 16");
    const View idx = View::of(*indices);
    const Reader<int64_t> read_index(*indices);
    Status bad;
    for_each_index(idx.sizes, [&](const int64_t* c) {
      const int64_t i = read_index(offset_at(c, idx.strides));
      if (bad && (i < 0 || i >= rows)) {
        bad = ctx.fail("index " + std::to_string(i) + " is out of range for " + std::to_string(rows) + " rows");
      }
    });
    ETKIT_TRY(bad);
    Shape shape = shape_of(*indices);
    shape.push_back(dim);
    ETKIT_TRY(resize_out(ctx, *out, shape));
    const View w = View::of(*weight), dst = View::of(*out);
    const Reader<int64_t> read_w(*weight);
    const Reader<float> read_param_scale(*scales);
    const size_t last = idx.rank();
    const int64_t group_size = dim / groups;
    const int64_t bias = packed ? int64_t(1) << (bits - 1) : 0;  // 8 for 4-bit, 2 for 2-bit
    auto value = [&](int64_t row, int64_t j) -> int64_t {
      if (!packed) return read_w(row * w.strides[0] + j * w.strides[1]);
      const int64_t byte = read_w(row * w.strides[0] + (j / per_byte) * w.strides[1]);
      // 4-bit: even columns in the high nibble; 2-bit: column j % 4 at bits 2(j % 4).
      const int shift = bits == 4 ? (j % 2 == 0 ? 4 : 0) : int(2 * (j % 4));
      return ((byte >> shift) & ((1 << bits) - 1)) - bias;
    };
    for_each_index(idx.sizes, [&](const int64_t* c) {
      const int64_t row = read_index(offset_at(c, idx.strides));
      const int64_t base = offset_at(c, dst.strides);
      for (int64_t j = 0; j < dim; ++j) {
        const int64_t k = row * groups + j / group_size;  // row-major position in the [V, G] parameters
        const float scale = read_param_scale(logical_offset(*scales, k));
        const float zp = zero_points ? Reader<float>(*zero_points)(logical_offset(*zero_points, k)) : 0.0f;
        const float q = static_cast<float>(value(row, j));
        store_as<float>(o, out->data(), base + j * dst.strides[last], (q - zp) * scale);
      }
    });
    return {};
  };
}

// ---- choose_qparams -------------------------------------------------------

constexpr float kSmallScale = 6.1e-5f;  // op_choose_qparams.cpp's SMALL_SCALE_THRESHOLD

struct QParams {
  double scale;
  int64_t zero_point;
};

// calculate_scale_and_zero_point of op_choose_qparams.cpp: the range is
// widened to include 0, the scale is (max - min) / (qmax - qmin) in double
// (0.1 if that is 0 in float or its float reciprocal overflows, at least
// 6.1e-5 with the range stretched to match), and the zero point comes from
// whichever end has the smaller error, nudged into [qmin, qmax] and
// rounded half to even in float. min and max are finite here.
QParams scale_and_zero_point(float min, float max, int32_t qmin, int32_t qmax) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (float(scale) == 0.0f || std::isinf(1.0f / float(scale))) scale = 0.1;
  if (scale < kSmallScale) {
    const float original = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * float(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * float(qmax - qmin);
    } else {
      const float amplifier = kSmallScale / original;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double from_min = qmin - min / scale, from_max = qmax - max / scale;
  const double min_error = std::abs(qmin) - std::abs(min / scale);
  const double max_error = std::abs(qmax) - std::abs(max / scale);
  const double initial = min_error < max_error ? from_min : from_max;
  int64_t zero_point;
  if (initial < qmin) zero_point = qmin;
  else if (initial > qmax) zero_point = qmax;
  else zero_point = static_cast<int64_t>(std::nearbyint(static_cast<float>(initial)));
  return {scale, zero_point};
}

// min and max of `count` FLOAT values read by `at(i)`; every value must be
// finite (a NaN or inf would make the parameters meaningless).
template <typename At>
Result<std::pair<float, float>> finite_min_max(KernelContext& ctx, int64_t count, At at) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int64_t i = 0; i < count; ++i) {
    const float v = at(i);
    if (!std::isfinite(v)) return ctx.fail("input has a non-finite value (" + std::to_string(v) + ")");
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return std::pair<float, float>{lo, hi};
}

Status check_qparams_outs(KernelContext& ctx, const Tensor& input, const Tensor& scale_out,
                          const Tensor& zero_point_out) {
  if (input.dtype() != ScalarType::kFloat) return ctx.fail("input must be FLOAT, not " + dtype_name(input.dtype()));
  if (scale_out.dtype() != ScalarType::kDouble) {
    return ctx.fail("scale_out must be DOUBLE, not " + dtype_name(scale_out.dtype()));
  }
  if (zero_point_out.dtype() != ScalarType::kLong) {
    return ctx.fail("zero_point_out must be LONG, not " + dtype_name(zero_point_out.dtype()));
  }
  if (input.numel() == 0) return ctx.fail("cannot choose parameters for an empty input");
  return {};
}

// (input, quant_min, quant_max, float eps, dtype, scale_out, zero_point_out,
// ret): eps is unused, as in ExecuTorch; the outs hold one element each.
Status choose_qparams_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmin, int_arg(ctx, *args[1], "quant_min"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmax, int_arg(ctx, *args[2], "quant_max"));
  ETKIT_ASSIGN_OR_RETURN(double eps, double_arg(ctx, *args[3], "eps"));
  (void)eps;
  ETKIT_ASSIGN_OR_RETURN(ScalarType dtype, scalar_type_arg(ctx, *args[4], "dtype"));
  (void)dtype;  // the range comes from quant_min/quant_max
  ETKIT_ASSIGN_OR_RETURN(Tensor * scale_out, tensor_arg(ctx, *args[5], "scale_out"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_point_out, tensor_arg(ctx, *args[6], "zero_point_out"));
  if (qmin >= qmax || qmin < INT32_MIN || qmax > INT32_MAX) {
    return ctx.fail("quant_min " + std::to_string(qmin) + " must be less than quant_max " + std::to_string(qmax) +
                    " (both int32)");
  }
  ETKIT_TRY(check_qparams_outs(ctx, *input, *scale_out, *zero_point_out));
  if (scale_out->numel() != 1 || zero_point_out->numel() != 1) {
    return ctx.fail("scale_out and zero_point_out must have one element each");
  }
  const Reader<float> read(*input);
  ETKIT_ASSIGN_OR_RETURN(auto range, finite_min_max(ctx, input->numel(), [&](int64_t i) {
                           return read(logical_offset(*input, i));
                         }));
  const QParams qp = scale_and_zero_point(range.first, range.second, int32_t(qmin), int32_t(qmax));
  scale_out->data_as<double>()[0] = qp.scale;
  zero_point_out->data_as<int64_t>()[0] = qp.zero_point;
  return {};
}

// (input, dtype, scale_out, zero_point_out, ret): parameters per row of
// the last dim for the int8 range [-128, 127]; the outs take input's shape
// with the last dim 1.
Status choose_qparams_per_token_asymmetric_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(ScalarType dtype, scalar_type_arg(ctx, *args[1], "dtype"));
  (void)dtype;  // ExecuTorch uses [-128, 127] whatever the dtype
  ETKIT_ASSIGN_OR_RETURN(Tensor * scale_out, tensor_arg(ctx, *args[2], "scale_out"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_point_out, tensor_arg(ctx, *args[3], "zero_point_out"));
  ETKIT_TRY(check_token_input(ctx, *input));
  ETKIT_TRY(check_qparams_outs(ctx, *input, *scale_out, *zero_point_out));
  Shape shape = shape_of(*input);
  const size_t last = input->dim() - 1;
  const int64_t row = shape[last];
  shape[last] = 1;
  ETKIT_TRY(resize_out(ctx, *scale_out, shape));
  ETKIT_TRY(resize_out(ctx, *zero_point_out, shape));
  const Reader<float> read(*input);
  const int64_t tokens = input->numel() / row;  // row > 0: the input is not empty
  for (int64_t t = 0; t < tokens; ++t) {
    ETKIT_ASSIGN_OR_RETURN(auto range, finite_min_max(ctx, row, [&](int64_t i) {
                             return read(logical_offset(*input, t * row + i));
                           }));
    const QParams qp = scale_and_zero_point(range.first, range.second, -128, 127);
    scale_out->data_as<double>()[logical_offset(*scale_out, t)] = qp.scale;
    zero_point_out->data_as<int64_t>()[logical_offset(*zero_point_out, t)] = qp.zero_point;
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> quantized_kernels() {
  const std::string ns = "quantized_decomposed::";
  std::vector<KernelInfo> table;
  table.push_back({ns + "quantize_per_tensor.out", quantize_per_tensor_out, 8, {6}});
  table.push_back({ns + "quantize_per_tensor.Tensor_out", quantize_per_tensor_tensor_out, 8, {6}});
  table.push_back({ns + "dequantize_per_tensor.out", dequantize_per_tensor_out, 9, {7}});
  table.push_back({ns + "dequantize_per_tensor.Tensor_out", dequantize_per_tensor_tensor_out, 9, {7}});
  table.push_back({ns + "quantize_per_channel.out", quantize_per_channel_out, 9, {7}});
  table.push_back({ns + "dequantize_per_channel.out", dequantize_per_channel_out, 10, {8}});
  table.push_back({ns + "quantize_per_token.out", quantize_per_token_out, 8, {6}});
  table.push_back({ns + "dequantize_per_token.out", dequantize_per_token_out, 9, {7}});
  table.push_back({ns + "choose_qparams.Tensor_out", choose_qparams_tensor_out, 8, {5, 6}});
  table.push_back({ns + "embedding_byte.out", embedding_quantized(8, false), 8, {6}});
  table.push_back({ns + "embedding_byte.dtype_out", embedding_quantized(8, true), 9, {7}});
  table.push_back({ns + "embedding_4bit.out", embedding_quantized(4, false), 8, {6}});
  table.push_back({ns + "embedding_4bit.dtype_out", embedding_quantized(4, true), 9, {7}});
  table.push_back({ns + "embedding_2bit.out", embedding_quantized(2, false), 8, {6}});
  table.push_back({ns + "embedding_2bit.dtype_out", embedding_quantized(2, true), 9, {7}});
  table.push_back({ns + "choose_qparams_per_token_asymmetric.out", choose_qparams_per_token_asymmetric_out, 5, {2, 3}});
  add_quantized_arith_kernels(table);
  return table;
}

}  // namespace etkit::rt::kernels
