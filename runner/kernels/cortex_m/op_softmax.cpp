// cortex_m::softmax.out: int8 softmax over the last dimension with
// CMSIS-NN's arm_softmax_s8 fixed point (output scale 1/256, zero point
// -128). Per row: diff = x - max(row) scaled into Q5.26 by input_multiplier
// and 2^input_shift; terms with diff < diff_min count as zero; exp() of the
// rest is summed in Q12, inverted, and each output is
// exp(diff) / sum rounded to 1/256 and shifted by -128. input_zero_point
// cancels out (only differences matter) and is only range-checked.
#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

constexpr int kAccumBits = 12;  // the exp() sum is in Q19.12
constexpr int32_t kSoftmaxOutputZeroPoint = -128;

struct SoftmaxParams {
  int32_t multiplier;
  int32_t scale_up;  // 2^input_shift (wrapping for a shift of 31)
  int32_t diff_min;
};

// exp(diff * multiplier * 2^shift) in Q0.31, diff <= 0.
int32_t exp_of_diff(int32_t diff, const SoftmaxParams& p) {
  return exp_on_negative_values(doubling_high_mult(wrapping_mul(diff, p.scale_up), p.multiplier));
}

// One row of `n` values at element stride `in_step` / `out_step`.
void softmax_row(const int8_t* in, int64_t in_step, int8_t* out, int64_t out_step, int64_t n,
                 const SoftmaxParams& p) {
  int32_t max = in[0];
  for (int64_t i = 1; i < n; ++i) max = std::max<int32_t>(max, in[i * in_step]);
  int32_t sum = 0;  // wraps as on the target for rows of more than 4096 values
  for (int64_t i = 0; i < n; ++i) {
    const int32_t diff = int32_t(in[i * in_step]) - max;
    if (diff >= p.diff_min) sum = wrapping_add(sum, divide_by_power_of_two(exp_of_diff(diff, p), kAccumBits));
  }
  const int headroom = count_leading_zeros(static_cast<uint32_t>(sum));
  // sum normalised to [1, 2) in Q1.31, minus 1: the x of 1 / (1 + x).
  const int32_t normalised = sum > 0 ? wrapping_shl(sum, headroom) : 0;
  const int32_t shifted_scale = one_over_one_plus_x(wrapping_sub(normalised, kQ31Min));
  const int bits_over_unit = kAccumBits - headroom + 23;
  // max and sum are known before any write, so out may alias in.
  for (int64_t i = 0; i < n; ++i) {
    const int32_t diff = int32_t(in[i * in_step]) - max;
    int32_t result = kSoftmaxOutputZeroPoint;
    if (diff >= p.diff_min) {
      const int32_t scaled = doubling_high_mult(shifted_scale, exp_of_diff(diff, p));
      result = clamp32(wrapping_add(divide_by_power_of_two(scaled, bits_over_unit), kSoftmaxOutputZeroPoint), -128, 127);
    }
    out[i * out_step] = static_cast<int8_t>(result);
  }
}

// (input, dim, input_zero_point, output_zero_point, input_multiplier,
//  input_shift, diff_min, out, ret)
Status softmax_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_TRY(check_dtype(ctx, *in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kChar, "out"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_raw, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_raw, in->dim()));
  if (in->dim() == 0 || dim != in->dim() - 1) {
    return ctx.fail("dim " + std::to_string(dim_raw) + " must be the last dimension (CMSIS-NN softmax is row-wise)");
  }
  ETKIT_ASSIGN_OR_RETURN(int32_t in_zp, int_in_range(ctx, *args[2], "input_zero_point", -128, 127));
  (void)in_zp;  // differences from the row maximum do not depend on it
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, int_in_range(ctx, *args[3], "output_zero_point", -128, 127));
  if (out_zp != kSoftmaxOutputZeroPoint) {
    return ctx.fail("output_zero_point must be -128 (CMSIS-NN's fixed output quantization), got " +
                    std::to_string(out_zp));
  }
  SoftmaxParams p{};
  ETKIT_ASSIGN_OR_RETURN(p.multiplier, multiplier_arg(ctx, *args[4], "input_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int32_t shift, int_in_range(ctx, *args[5], "input_shift", 0, 31));
  p.scale_up = wrapping_shl(1, shift);
  ETKIT_ASSIGN_OR_RETURN(p.diff_min, int_in_range(ctx, *args[6], "diff_min", kInt32Min, kInt32Max));
  ETKIT_TRY(resize_out(ctx, *out, in->sizes()));

  const int64_t n = in->size(in->dim() - 1);
  const int64_t in_step = in->strides()[in->dim() - 1], out_step = out->strides()[out->dim() - 1];
  const int8_t* src = in->data_as<int8_t>();
  int8_t* dst = out->data_as<int8_t>();
  for_each_row(*in, *out, [&](int64_t io, int64_t oo) { softmax_row(src + io, in_step, dst + oo, out_step, n, p); });
  return {};
}

}  // namespace

void add_softmax_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::softmax.out", softmax_out, 9, {7}});
}

}  // namespace etkit::rt::kernels::cortex_m
