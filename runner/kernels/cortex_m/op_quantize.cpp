// cortex_m::quantize_per_tensor.out / dequantize_per_tensor.out: float32 to
// int8/int16 and back, as ExecuTorch's Cortex-M kernels compute them in
// single precision: q = clamp(zp + round_half_even(x * (1.0f / scale))) and
// x = float(q - zp) * float(scale). Any dim order (elements are matched by
// logical index).
#include <cmath>

#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

struct QuantParams {
  float scale;
  int32_t zero_point, quant_min, quant_max;
  ScalarType dtype;  // CHAR or SHORT
};

// (scale, zero_point, quant_min, quant_max, dtype) at args[1..5].
Result<QuantParams> quant_params(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[1], "scale"));
  if (!(scale > 0) || !std::isfinite(float(scale))) {
    return ctx.fail("scale must be positive and finite, got " + std::to_string(scale));
  }
  ETKIT_ASSIGN_OR_RETURN(int64_t dtype_code, int_arg(ctx, *args[5], "dtype"));
  const auto dtype = static_cast<ScalarType>(dtype_code);
  if (dtype != ScalarType::kChar && dtype != ScalarType::kShort) {
    return ctx.fail("dtype must be CHAR (int8) or SHORT (int16), got code " + std::to_string(dtype_code));
  }
  const int64_t lo = dtype == ScalarType::kChar ? -128 : -32768, hi = dtype == ScalarType::kChar ? 127 : 32767;
  ETKIT_ASSIGN_OR_RETURN(int32_t qmin, int_in_range(ctx, *args[3], "quant_min", lo, hi));
  ETKIT_ASSIGN_OR_RETURN(int32_t qmax, int_in_range(ctx, *args[4], "quant_max", lo, hi));
  if (qmin > qmax) return ctx.fail("quant_min " + std::to_string(qmin) + " is greater than quant_max " + std::to_string(qmax));
  ETKIT_ASSIGN_OR_RETURN(int32_t zp, int_in_range(ctx, *args[2], "zero_point", lo, hi));
  return QuantParams{float(scale), zp, qmin, qmax, dtype};
}

// float -> int32 as the target's VCVT does: saturating, NaN to 0 (a plain
// C++ cast of an out-of-range float is undefined).
int32_t saturating_float_to_int(float v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483648.0f) return kQ31Max;
  if (v <= -2147483648.0f) return kQ31Min;
  return static_cast<int32_t>(v);
}

template <typename Q>
void quantize_loop(const Tensor& in, Tensor& out, const QuantParams& p) {
  const float inv_scale = 1.0f / p.scale;
  const float* x = in.data_as<float>();
  Q* q = out.data_as<Q>();
  for_each_element(out, in, [&](int64_t o, int64_t i) {
    // nearbyint under the default rounding mode: ties to even.
    const int32_t r = saturating_float_to_int(std::nearbyint(x[i] * inv_scale));
    q[o] = static_cast<Q>(clamp32(wrapping_add(p.zero_point, r), p.quant_min, p.quant_max));
  });
}

// (input, scale, zero_point, quant_min, quant_max, dtype, out, ret)
Status quantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(QuantParams p, quant_params(ctx, args));
  ETKIT_TRY(check_dtype(ctx, *in, ScalarType::kFloat, "input"));
  ETKIT_TRY(check_dtype(ctx, *out, p.dtype, "out"));
  ETKIT_TRY(resize_out(ctx, *out, in->sizes()));
  if (p.dtype == ScalarType::kChar) quantize_loop<int8_t>(*in, *out, p);
  else quantize_loop<int16_t>(*in, *out, p);
  return {};
}

template <typename Q>
void dequantize_loop(const Tensor& in, Tensor& out, const QuantParams& p) {
  const Q* q = in.data_as<Q>();
  float* x = out.data_as<float>();
  for_each_element(out, in, [&](int64_t o, int64_t i) { x[o] = float(int32_t(q[i]) - p.zero_point) * p.scale; });
}

// (input, scale, zero_point, quant_min, quant_max, dtype, out, ret)
Status dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(QuantParams p, quant_params(ctx, args));
  ETKIT_TRY(check_dtype(ctx, *in, p.dtype, "input"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kFloat, "out"));
  ETKIT_TRY(resize_out(ctx, *out, in->sizes()));
  if (p.dtype == ScalarType::kChar) dequantize_loop<int8_t>(*in, *out, p);
  else dequantize_loop<int16_t>(*in, *out, p);
  return {};
}

}  // namespace

void add_quantize_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantize_per_tensor.out", quantize_per_tensor_out, 8, {6}});
  table.push_back({"cortex_m::dequantize_per_tensor.out", dequantize_per_tensor_out, 8, {6}});
}

}  // namespace etkit::rt::kernels::cortex_m
