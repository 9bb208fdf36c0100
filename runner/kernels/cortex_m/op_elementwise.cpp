// cortex_m::quantized_add.out, quantized_mul.out, maximum.out, minimum.out
// on int8, with CMSIS-NN's arm_elementwise_add_s8 / _mul_s8 arithmetic, and
// the two ops ExecuTorch's Cortex-M backend runs without CMSIS-NN,
// quantized_div.out and quantized_activation.out:
//   add: a' = requantize((a - zp_a) << 20, m_a, s_a), b' likewise,
//        out = clamp(requantize(a' + b', m_out, s_out) + zp_out, act_min, act_max)
//   mul: out = clamp(requantize((a - zp_a) * (b - zp_b), m_out, s_out) + zp_out, -128, 127)
//   div: out = clamp(round_half_away(float(a - zp_a) / float(b - zp_b) * scale)
//        + zp_out) in float (0 where b == zp_b), int8 or int16, equal shapes
//   activation: out = lut[x + 128], a 256-entry int8 table built ahead of time
// (CMSIS-NN takes offsets, the negated zero points.) The inputs broadcast
// against each other (ExecuTorch runs equal shapes and the per-channel
// broadcast of a [N, C, 1, 1]-sized operand) and may have any dim order.
#include <algorithm>
#include <cmath>

#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

// The two int8 inputs and out (resized to their broadcast shape).
struct Int8Binary {
  const Tensor* a;
  const Tensor* b;
  Tensor* out;
};

Result<Int8Binary> int8_binary(KernelContext& ctx, const EValue& a_v, const EValue& b_v, const EValue& out_v) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, a_v, "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, b_v, "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, out_v, "out"));
  ETKIT_TRY(check_dtype(ctx, *a, ScalarType::kChar, "self"));
  ETKIT_TRY(check_dtype(ctx, *b, ScalarType::kChar, "other"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kChar, "out"));
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, a->sizes(), b->sizes()));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  return Int8Binary{a, b, out};
}

template <typename F>
void map_int8(const Int8Binary& t, F&& fn) {
  const int8_t* a = t.a->data_as<int8_t>();
  const int8_t* b = t.b->data_as<int8_t>();
  int8_t* o = t.out->data_as<int8_t>();
  for_each_broadcast(*t.out, *t.a, *t.b,
                     [&](int64_t oo, int64_t oa, int64_t ob) { o[oo] = static_cast<int8_t>(fn(a[oa], b[ob])); });
}

struct Rescale {
  int32_t zero_point, multiplier, shift;
};

Result<Rescale> rescale_args(KernelContext& ctx, std::span<EValue* const> args, size_t first, std::string_view name) {
  const std::string n(name);
  ETKIT_ASSIGN_OR_RETURN(int32_t zp, int_in_range(ctx, *args[first], n + "_zero_point", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(int32_t m, multiplier_arg(ctx, *args[first + 1], n + "_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int32_t s, shift_arg(ctx, *args[first + 2], n + "_shift"));
  return Rescale{zp, m, s};
}

// The inputs are scaled up by 2^20 before their rescale so that it keeps
// precision (ExecuTorch's fixed left_shift for arm_elementwise_add_s8).
constexpr int kAddLeftShift = 20;

int32_t add_one(int8_t a, int8_t b, const Rescale& ra, const Rescale& rb, const Rescale& ro, const Activation& act) {
  const int32_t sa = requantize(wrapping_shl(int32_t(a) - ra.zero_point, kAddLeftShift), ra.multiplier, ra.shift);
  const int32_t sb = requantize(wrapping_shl(int32_t(b) - rb.zero_point, kAddLeftShift), rb.multiplier, rb.shift);
  const int32_t sum = requantize(wrapping_add(sa, sb), ro.multiplier, ro.shift);
  return clamp32(wrapping_add(sum, ro.zero_point), act.min, act.max);
}

// (self, self_zero_point, self_multiplier, self_shift, other, other_zero_point,
//  other_multiplier, other_shift, output_zero_point, output_multiplier,
//  output_shift, activation_min, activation_max, out, ret)
Status quantized_add_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Rescale ra, rescale_args(ctx, args, 1, "self"));
  ETKIT_ASSIGN_OR_RETURN(Rescale rb, rescale_args(ctx, args, 5, "other"));
  ETKIT_ASSIGN_OR_RETURN(Rescale ro, rescale_args(ctx, args, 8, "output"));
  ETKIT_ASSIGN_OR_RETURN(Activation act, activation_args(ctx, *args[11], *args[12]));
  ETKIT_ASSIGN_OR_RETURN(Int8Binary t, int8_binary(ctx, *args[0], *args[4], *args[13]));
  map_int8(t, [&](int8_t a, int8_t b) { return add_one(a, b, ra, rb, ro, act); });
  return {};
}

// (self, self_zero_point, other, other_zero_point, output_zero_point,
//  output_multiplier, output_shift, out, ret)
Status quantized_mul_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(int32_t zp_a, int_in_range(ctx, *args[1], "self_zero_point", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(int32_t zp_b, int_in_range(ctx, *args[3], "other_zero_point", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(Rescale ro, rescale_args(ctx, args, 4, "output"));
  ETKIT_ASSIGN_OR_RETURN(Int8Binary t, int8_binary(ctx, *args[0], *args[2], *args[7]));
  map_int8(t, [&](int8_t a, int8_t b) {
    // |product| <= 255 * 255: no overflow.
    const int32_t product = (int32_t(a) - zp_a) * (int32_t(b) - zp_b);
    return clamp32(wrapping_add(requantize(product, ro.multiplier, ro.shift), ro.zero_point), -128, 127);
  });
  return {};
}

// (self, other, out, ret)
Status maximum_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Int8Binary t, int8_binary(ctx, *args[0], *args[1], *args[2]));
  map_int8(t, [](int8_t a, int8_t b) { return a > b ? a : b; });
  return {};
}

Status minimum_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Int8Binary t, int8_binary(ctx, *args[0], *args[1], *args[2]));
  map_int8(t, [](int8_t a, int8_t b) { return a < b ? a : b; });
  return {};
}

// (self, self_zero_point, other, other_zero_point, output_zero_point,
//  float output_scale, out, ret): output_scale is the effective scale
// s_self / (s_other * s_out), computed ahead of time.
Status quantized_div_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[2], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  const ScalarType dtype = out->dtype();
  if (dtype != ScalarType::kChar && dtype != ScalarType::kShort) {
    return ctx.fail("out must be CHAR or SHORT, not " + dtype_name(dtype));
  }
  ETKIT_TRY(check_dtype(ctx, *a, dtype, "self"));
  ETKIT_TRY(check_dtype(ctx, *b, dtype, "other"));
  const bool wide = dtype == ScalarType::kShort;
  const int64_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
  ETKIT_ASSIGN_OR_RETURN(int32_t zp_a, int_in_range(ctx, *args[1], "self_zero_point", lo, hi));
  ETKIT_ASSIGN_OR_RETURN(int32_t zp_b, int_in_range(ctx, *args[3], "other_zero_point", lo, hi));
  ETKIT_ASSIGN_OR_RETURN(int32_t zp_out, int_in_range(ctx, *args[4], "output_zero_point", lo, hi));
  ETKIT_ASSIGN_OR_RETURN(double scale_d, double_arg(ctx, *args[5], "output_scale"));
  const auto scale = static_cast<float>(scale_d);
  if (!std::isfinite(scale)) return ctx.fail("output_scale " + std::to_string(scale_d) + " is not finite in float");
  // No broadcast: division does not commute, so the backend never swaps operands.
  const auto as = a->sizes(), bs = b->sizes();
  if (!std::equal(as.begin(), as.end(), bs.begin(), bs.end())) {
    return ctx.fail("self " + a->shape_string() + " and other " + b->shape_string() + " must have the same shape");
  }
  ETKIT_TRY(resize_out(ctx, *out, as));
  auto divide = [&](auto tag) {
    using T = decltype(tag);
    const T* x = a->data_as<T>();
    const T* y = b->data_as<T>();
    T* o = out->data_as<T>();
    for_each_broadcast(*out, *a, *b, [&](int64_t oo, int64_t oa, int64_t ob) {
      const int32_t num = int32_t(x[oa]) - zp_a, den = int32_t(y[ob]) - zp_b;
      const float quotient = den != 0 ? float(num) / float(den) : 0.0f;
      // In float throughout: a divisor one step off its zero point gives a
      // quotient far outside int32.
      const float q = std::round(quotient * scale) + float(zp_out);
      o[oo] = static_cast<T>(std::clamp(q, float(lo), float(hi)));
    });
  };
  if (wide) divide(int16_t{});
  else divide(int8_t{});
  return {};
}

// (input, lut, out, ret)
Status quantized_activation_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * lut, tensor_arg(ctx, *args[1], "lut"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_dtype(ctx, *in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, *lut, ScalarType::kChar, "lut"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kChar, "out"));
  if (lut->dim() != 1 || lut->numel() != 256) return ctx.fail("lut must be [256], got " + lut->shape_string());
  ETKIT_TRY(resize_out(ctx, *out, in->sizes()));
  const int8_t* x = in->data_as<int8_t>();
  const int8_t* table = lut->data_as<int8_t>();
  int8_t* o = out->data_as<int8_t>();
  const int64_t step = lut->strides()[0];
  for_each_element(*out, *in, [&](int64_t oo, int64_t oi) { o[oo] = table[(int32_t(x[oi]) + 128) * step]; });
  return {};
}

}  // namespace

void add_elementwise_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantized_add.out", quantized_add_out, 15, {13}});
  table.push_back({"cortex_m::quantized_mul.out", quantized_mul_out, 9, {7}});
  table.push_back({"cortex_m::maximum.out", maximum_out, 4, {2}});
  table.push_back({"cortex_m::minimum.out", minimum_out, 4, {2}});
  table.push_back({"cortex_m::quantized_div.out", quantized_div_out, 8, {6}});
  table.push_back({"cortex_m::quantized_activation.out", quantized_activation_out, 4, {2}});
}

}  // namespace etkit::rt::kernels::cortex_m
