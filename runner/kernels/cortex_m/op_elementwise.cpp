// cortex_m::quantized_add.out, quantized_mul.out, maximum.out, minimum.out
// on int8, with CMSIS-NN's arm_elementwise_add_s8 / _mul_s8 arithmetic:
//   add: a' = requantize((a - zp_a) << 20, m_a, s_a), b' likewise,
//        out = clamp(requantize(a' + b', m_out, s_out) + zp_out, act_min, act_max)
//   mul: out = clamp(requantize((a - zp_a) * (b - zp_b), m_out, s_out) + zp_out, -128, 127)
// (CMSIS-NN takes offsets, the negated zero points.) The inputs broadcast
// against each other (ExecuTorch runs equal shapes and the per-channel
// broadcast of a [N, C, 1, 1]-sized operand) and may have any dim order.
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

}  // namespace

void add_elementwise_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantized_add.out", quantized_add_out, 15, {13}});
  table.push_back({"cortex_m::quantized_mul.out", quantized_mul_out, 9, {7}});
  table.push_back({"cortex_m::maximum.out", maximum_out, 4, {2}});
  table.push_back({"cortex_m::minimum.out", minimum_out, 4, {2}});
}

}  // namespace etkit::rt::kernels::cortex_m
