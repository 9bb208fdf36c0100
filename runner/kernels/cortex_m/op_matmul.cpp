// cortex_m::quantized_linear.out (arm_fully_connected_s8) and
// cortex_m::quantized_batch_matmul.out (arm_batch_matmul_s8) on int8 with
// 32-bit accumulators:
//   acc = bias[o] + sum_k (x[k] + input_offset) * (w[o, k] + filter_offset)
//   out = clamp(requantize(acc, multiplier, shift) + output_offset, act_min, act_max)
// When the program carries a precomputed kernel_sum (the MVE flavour) it
// replaces bias and the input offset term:
//   acc = kernel_sum[o] + sum_k x[k] * w[o, k] + filter_offset * sum_k x[k].
// Sums are formed in 64 bits and wrapped to 32, which equals the target's
// wrapping 32-bit accumulation.
#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

// An optional INT vector of `n` values (bias, kernel_sum).
Result<const Tensor*> optional_int_vector(KernelContext& ctx, const EValue& v, std::string_view what, int64_t n) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * t, optional_tensor_arg(ctx, v, what));
  if (t == nullptr) return static_cast<const Tensor*>(nullptr);
  ETKIT_TRY(check_dtype(ctx, *t, ScalarType::kInt, what));
  if (t->dim() != 1 || t->numel() != n) {
    return ctx.fail(std::string(what) + " must have shape [" + std::to_string(n) + "], got " + t->shape_string());
  }
  return static_cast<const Tensor*>(t);
}

int32_t int_at(const Tensor& v, int64_t i) { return v.data_as<int32_t>()[i * v.strides()[0]]; }

// (input, weights, bias, kernel_sum, input_offset, filter_offset,
//  output_offset, requantize_multipliers, requantize_shifts, activation_max,
//  activation_min, out, ret)
Status quantized_linear_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[1], "weights"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[11], "out"));
  ETKIT_TRY(check_dtype(ctx, *in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, *w, ScalarType::kChar, "weights"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kChar, "out"));
  if (in->dim() < 1) return ctx.fail("input must have at least one dimension");
  if (w->dim() != 2) return ctx.fail("weights must be [out_features, in_features], got " + w->shape_string());
  const int64_t k = in->size(in->dim() - 1), n = w->size(0);
  if (w->size(1) != k) {
    return ctx.fail("weights " + w->shape_string() + " do not match input " + in->shape_string() + " (in_features)");
  }
  ETKIT_ASSIGN_OR_RETURN(const Tensor* bias, optional_int_vector(ctx, *args[2], "bias", n));
  ETKIT_ASSIGN_OR_RETURN(const Tensor* kernel_sum, optional_int_vector(ctx, *args[3], "kernel_sum", n));
  ETKIT_ASSIGN_OR_RETURN(int32_t in_off, offset_arg(ctx, *args[4], "input_offset"));
  ETKIT_ASSIGN_OR_RETURN(int32_t w_off, offset_arg(ctx, *args[5], "filter_offset"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_off, offset_arg(ctx, *args[6], "output_offset"));
  ETKIT_ASSIGN_OR_RETURN(Requant q, per_channel_lists(ctx, *args[7], *args[8], n));
  ETKIT_ASSIGN_OR_RETURN(Activation act, activation_args(ctx, *args[10], *args[9]));
  Shape shape;
  for (size_t d = 0; d + 1 < in->dim(); ++d) shape.push_back(in->size(d));
  shape.push_back(n);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (overlaps(*in, *out)) return ctx.fail("out must not overlap input");

  const int8_t* x = in->data_as<int8_t>();
  const int8_t* wd = w->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  const int64_t xs = in->strides()[in->dim() - 1], ys = out->strides()[out->dim() - 1];
  const int64_t wr = w->strides()[0], wc = w->strides()[1];
  for_each_row(*in, *out, [&](int64_t io, int64_t oo) {
    for (int64_t o = 0; o < n; ++o) {
      int64_t acc = 0;
      if (kernel_sum != nullptr) {
        int64_t x_sum = 0;
        for (int64_t i = 0; i < k; ++i) {
          const int32_t xv = x[io + i * xs];
          acc += int64_t(xv) * wd[o * wr + i * wc];
          x_sum += xv;
        }
        acc += int64_t(int_at(*kernel_sum, o)) + x_sum * w_off;
      } else {
        for (int64_t i = 0; i < k; ++i) {
          acc += int64_t(x[io + i * xs] + in_off) * (wd[o * wr + i * wc] + w_off);
        }
        if (bias != nullptr) acc += int_at(*bias, o);
      }
      const int32_t r = requantize(wrap32(acc), int32_t(q.multipliers[o]), int32_t(q.shifts[o]));
      y[oo + o * ys] = static_cast<int8_t>(clamp32(wrapping_add(r, out_off), act.min, act.max));
    }
  });
  return {};
}

// (lhs, lhs_zero_point, rhs_transposed, rhs_zero_point, output_zero_point,
//  output_multiplier, output_shift, scratch, out, ret). Despite their names
// the three "zero points" are CMSIS-NN offsets: added to the values.
Status quantized_batch_matmul_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * lhs, tensor_arg(ctx, *args[0], "lhs"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * rhs, tensor_arg(ctx, *args[2], "rhs_transposed"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[8], "out"));
  // scratch: CMSIS-NN's working memory; not needed here, but must be a tensor.
  ETKIT_ASSIGN_OR_RETURN(Tensor * scratch, tensor_arg(ctx, *args[7], "scratch"));
  (void)scratch;
  ETKIT_TRY(check_dtype(ctx, *lhs, ScalarType::kChar, "lhs"));
  ETKIT_TRY(check_dtype(ctx, *rhs, ScalarType::kChar, "rhs_transposed"));
  ETKIT_TRY(check_dtype(ctx, *out, ScalarType::kChar, "out"));
  if (lhs->dim() != 3 || rhs->dim() != 3 || lhs->size(0) != rhs->size(0) || lhs->size(2) != rhs->size(2)) {
    return ctx.fail("lhs " + lhs->shape_string() + " and rhs_transposed " + rhs->shape_string() +
                    " must be [B, M, K] and [B, N, K]");
  }
  ETKIT_ASSIGN_OR_RETURN(int32_t lo, offset_arg(ctx, *args[1], "lhs_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t ro, offset_arg(ctx, *args[3], "rhs_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t oo, offset_arg(ctx, *args[4], "output_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t mult, multiplier_arg(ctx, *args[5], "output_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int32_t shift, shift_arg(ctx, *args[6], "output_shift"));
  const int64_t b = lhs->size(0), m = lhs->size(1), k = lhs->size(2), n = rhs->size(1);
  const int64_t shape[3] = {b, m, n};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (overlaps(*lhs, *out) || overlaps(*rhs, *out)) return ctx.fail("out must not overlap lhs or rhs_transposed");
  const auto ls = lhs->strides(), rs = rhs->strides(), os = out->strides();
  const int8_t* l = lhs->data_as<int8_t>();
  const int8_t* r = rhs->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t t = 0; t < k; ++t) {
          acc += int64_t(l[bi * ls[0] + i * ls[1] + t * ls[2]] + lo) * (r[bi * rs[0] + j * rs[1] + t * rs[2]] + ro);
        }
        const int32_t v = wrapping_add(requantize(wrap32(acc), mult, shift), oo);
        y[bi * os[0] + i * os[1] + j * os[2]] = static_cast<int8_t>(clamp32(v, -128, 127));
      }
    }
  }
  return {};
}

}  // namespace

void add_matmul_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantized_linear.out", quantized_linear_out, 13, {11}});
  table.push_back({"cortex_m::quantized_batch_matmul.out", quantized_batch_matmul_out, 10, {8}});
}

}  // namespace etkit::rt::kernels::cortex_m
