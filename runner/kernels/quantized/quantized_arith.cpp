// quantized_decomposed::add.out, mixed_mm.out and mixed_linear.out as
// ExecuTorch's kernels/quantized/cpu runs them:
//  * add: dequantize both operands ((q - zp) * scale in double, rounded to
//    float), add in float, quantize with out's parameters (float reciprocal
//    of the scale, round half to even, clamp). Same shape and integer dtype
//    for a, b and out; every quant range must lie in [0, 255] (ExecuTorch's
//    precondition, checked for all dtypes).
//  * mixed_mm: input [m, n] (FLOAT or HALF) x int8 weight [n, p] with one
//    scale per weight row: out[i][j] = sum_k x[i][k] * w[k][j] * s[k].
//  * mixed_linear: input [m, n] x int8 weight [p, n] transposed, with one
//    scale per output row or per group of g = ceil(n / G) columns for [p, G]
//    scales: out[i][j] = sum_groups (sum_k x[i][k] * w[j][k]) * s[j][group].
// The matmuls round each product and sum to the dtype ExecuTorch computes it
// in (c10::Half arithmetic rounds every operation to half), so HALF results
// match bit for bit. Weight zero points are refused, as ExecuTorch does.
#include <algorithm>
#include <cmath>

#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels {
namespace {

// The quant range of one operand of add: ExecuTorch insists on [0, 255].
Status check_add_range(KernelContext& ctx, int64_t qmin, int64_t qmax, std::string_view which) {
  if (qmin >= 0 && qmax <= 255 && qmin <= qmax) return {};
  return ctx.fail(std::string(which) + "_quant_min " + std::to_string(qmin) + " and " + std::string(which) +
                  "_quant_max " + std::to_string(qmax) + " must be ordered and lie in [0, 255]");
}

struct AddOperand {
  float scale;
  int32_t zero_point;
};

Result<AddOperand> add_operand(KernelContext& ctx, std::span<EValue* const> args, size_t first, std::string_view which) {
  const std::string w(which);
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[first], w + "_scale"));
  ETKIT_ASSIGN_OR_RETURN(int64_t zp, int_arg(ctx, *args[first + 1], w + "_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmin, int_arg(ctx, *args[first + 2], w + "_quant_min"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmax, int_arg(ctx, *args[first + 3], w + "_quant_max"));
  ETKIT_TRY(check_add_range(ctx, qmin, qmax, which));
  // ExecuTorch narrows both to float / int32 before use.
  const auto s = static_cast<float>(scale);
  if (!std::isfinite(s) || s == 0.0f) return ctx.fail(w + "_scale " + std::to_string(scale) + " must be finite and non-zero");
  if (zp < INT32_MIN || zp > INT32_MAX) return ctx.fail(w + "_zero_point " + std::to_string(zp) + " does not fit in int32");
  return AddOperand{s, int32_t(zp)};
}

// (a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, b_scale, ...,
//  out_scale, out_zero_point, out_quant_min, out_quant_max, out, ret)
Status add_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "a"));
  ETKIT_ASSIGN_OR_RETURN(AddOperand qa, add_operand(ctx, args, 1, "a"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[5], "b"));
  ETKIT_ASSIGN_OR_RETURN(AddOperand qb, add_operand(ctx, args, 6, "b"));
  ETKIT_ASSIGN_OR_RETURN(AddOperand qo, add_operand(ctx, args, 10, "out"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_min, int_arg(ctx, *args[12], "out_quant_min"));
  ETKIT_ASSIGN_OR_RETURN(int64_t out_max, int_arg(ctx, *args[13], "out_quant_max"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[14], "out"));
  if (!is_integral(a->dtype(), false)) return ctx.fail("a must have an integer dtype, not " + dtype_name(a->dtype()));
  if (b->dtype() != a->dtype() || out->dtype() != a->dtype()) {
    return ctx.fail("a, b and out must have one dtype, got " + dtype_name(a->dtype()) + ", " + dtype_name(b->dtype()) +
                    " and " + dtype_name(out->dtype()));
  }
  const auto as = a->sizes(), bs = b->sizes();
  if (!std::equal(as.begin(), as.end(), bs.begin(), bs.end())) {
    return ctx.fail("a " + a->shape_string() + " and b " + b->shape_string() + " must have the same shape");
  }
  ETKIT_TRY(resize_out(ctx, *out, as));
  const math::Reader<int64_t> read_a(*a), read_b(*b);
  const math::Writer<int64_t> write(*out);
  const float inv_scale = 1.0f / qo.scale;
  for_each_broadcast(*out, *a, *b, [&](int64_t oo, int64_t oa, int64_t ob) {
    const auto da = static_cast<float>(double(read_a(oa) - qa.zero_point) * double(qa.scale));
    const auto db = static_cast<float>(double(read_b(ob) - qb.zero_point) * double(qb.scale));
    // The zero point joins the rounded value in float, as in ExecuTorch.
    const float q = float(qo.zero_point) + std::nearbyint(inv_scale * (da + db));
    int64_t v;
    if (std::isnan(q)) v = out_min;  // inf - inf of two huge operands
    else if (q <= float(out_min)) v = out_min;
    else if (q >= float(out_max)) v = out_max;
    else v = static_cast<int64_t>(q);
    write(oo, v);
  });
  return {};
}

// A float that ExecuTorch holds in HALF is rounded to half after every
// operation.
float round_to(bool half, float v) { return half ? half_to_float(float_to_half(v)) : v; }

Status check_float_or_half(KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.dtype() == ScalarType::kFloat || t.dtype() == ScalarType::kHalf) return {};
  return ctx.fail(std::string(what) + " must be FLOAT or HALF, not " + dtype_name(t.dtype()));
}

Status check_weight(KernelContext& ctx, const Tensor& input, const Tensor& weight, const Tensor& scales,
                    const Tensor* zero_points) {
  if (input.dim() != 2) return ctx.fail("input must be 2-D, got " + input.shape_string());
  if (weight.dim() != 2) return ctx.fail("weight must be 2-D, got " + weight.shape_string());
  ETKIT_TRY(check_float_or_half(ctx, input, "input"));
  if (weight.dtype() != ScalarType::kChar) return ctx.fail("weight must be CHAR, not " + dtype_name(weight.dtype()));
  if (scales.dtype() != input.dtype()) {
    return ctx.fail("weight_scales must have input's dtype " + dtype_name(input.dtype()) + ", not " +
                    dtype_name(scales.dtype()));
  }
  if (zero_points) return ctx.fail("weight_zero_points are not supported (ExecuTorch does not implement them)");
  return {};
}

// Element (r, c) of a 2-D tensor as float.
struct Matrix {
  const Tensor& t;
  float operator()(int64_t r, int64_t c) const {
    const auto s = t.strides();
    return load_as<float>(t.dtype(), t.data(), r * s[0] + c * s[1]);
  }
};

// (input, weight, weight_scales, weight_zero_points?, out, ret)
Status mixed_mm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[2], "weight_scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, optional_tensor_arg(ctx, *args[3], "weight_zero_points"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(check_weight(ctx, *input, *weight, *scales, zero_points));
  if (out->dtype() != input->dtype()) {
    return ctx.fail("out must have input's dtype " + dtype_name(input->dtype()) + ", not " + dtype_name(out->dtype()));
  }
  const int64_t m = input->size(0), n = input->size(1), p = weight->size(1);
  if (weight->size(0) != n) {
    return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(n) + " rows for input " +
                    input->shape_string());
  }
  if (scales->dim() != 1 || scales->size(0) != n) {
    return ctx.fail("weight_scales must be [" + std::to_string(n) + "], got " + scales->shape_string());
  }
  const int64_t shape[2] = {m, p};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const bool half = input->dtype() == ScalarType::kHalf;
  const Matrix x{*input}, w{*weight};
  const auto ss = scales->strides()[0];
  const auto os = out->strides();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        const float s = load_as<float>(scales->dtype(), scales->data(), k * ss);
        const float term = round_to(half, round_to(half, x(i, k) * w(k, j)) * s);
        sum = round_to(half, sum + term);
      }
      store_as<float>(out->dtype(), out->data(), i * os[0] + j * os[1], sum);
    }
  }
  return {};
}

// (input, weight, weight_scales, weight_zero_points?, dtype?, out, ret)
Status mixed_linear_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[2], "weight_scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, optional_tensor_arg(ctx, *args[3], "weight_zero_points"));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, math::dtype_arg(ctx, *args[4], "dtype"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_TRY(check_weight(ctx, *input, *weight, *scales, zero_points));
  ETKIT_TRY(check_float_or_half(ctx, *out, "out"));
  if (dtype && *dtype != out->dtype()) {
    return ctx.fail("dtype " + dtype_name(*dtype) + " does not match out dtype " + dtype_name(out->dtype()));
  }
  const int64_t m = input->size(0), n = input->size(1), p = weight->size(0);
  if (weight->size(1) != n) {
    return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(n) + " columns for input " +
                    input->shape_string());
  }
  if ((scales->dim() != 1 && scales->dim() != 2) || scales->size(0) != p || (scales->dim() == 2 && scales->size(1) == 0)) {
    return ctx.fail("weight_scales must be [" + std::to_string(p) + "] or [" + std::to_string(p) + ", groups], got " +
                    scales->shape_string());
  }
  const int64_t shape[2] = {m, p};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const int64_t columns = scales->dim() == 2 ? scales->size(1) : 1;
  // ExecuTorch's grouping: g columns per group, and the scales read as a flat
  // row-major array with ceil(n / g) entries per output row (which is fewer
  // than `columns` when the groups do not divide n evenly).
  const int64_t g = std::max<int64_t>(1, (n + columns - 1) / columns);
  const int64_t per_row = (n + g - 1) / g;
  auto scale_at = [&](int64_t flat) {
    const auto ss = scales->strides();
    const int64_t off = scales->dim() == 2 ? (flat / columns) * ss[0] + (flat % columns) * ss[1] : flat * ss[0];
    return load_as<float>(scales->dtype(), scales->data(), off);
  };
  const bool in_half = input->dtype() == ScalarType::kHalf, out_half = out->dtype() == ScalarType::kHalf;
  const Matrix x{*input}, w{*weight};
  const auto os = out->strides();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      float sum = 0;  // out's dtype
      for (int64_t k = 0; k < n; k += g) {
        float psum = 0;  // out's dtype
        for (int64_t k2 = k; k2 < std::min(k + g, n); ++k2) {
          const float product = round_to(in_half, x(i, k2) * w(j, k2));  // input's dtype
          psum = round_to(out_half, psum + product);
        }
        // out's dtype times input's: HALF only when both are.
        const float scaled = round_to(in_half && out_half, psum * scale_at(j * per_row + k / g));
        sum = round_to(out_half, sum + scaled);
      }
      store_as<float>(out->dtype(), out->data(), i * os[0] + j * os[1], sum);
    }
  }
  return {};
}

}  // namespace

void add_quantized_arith_kernels(std::vector<KernelInfo>& table) {
  const std::string ns = "quantized_decomposed::";
  table.push_back({ns + "add.out", add_out, 16, {14}});
  table.push_back({ns + "mixed_mm.out", mixed_mm_out, 6, {4}});
  table.push_back({ns + "mixed_linear.out", mixed_linear_out, 7, {5}});
}

}  // namespace etkit::rt::kernels
