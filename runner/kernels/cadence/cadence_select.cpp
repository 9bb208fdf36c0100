// cadence::quantized_embedding_byte.out and where_Scalar.out as the generic
// reference computes them:
//  * quantized_embedding_byte: rows of an int8/uint8 [V, D] table picked by
//    LONG indices and dequantized into FLOAT as (float(w) - zp) * scale, with
//    one scale (and zero point, of the weight's dtype) per row, or per group
//    of D / G columns for [V, G] scales. out is indices' shape + [D].
//    Indices are range-checked (the reference reads out of bounds);
//    pruned_weights must be false (the op's meta function insists).
//  * where_Scalar: out = condition ? float(self) : float(other), FLOAT, with
//    condition's shape.
#include <string>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::cadence {
namespace {

// (weight, weight_scales, weight_zero_points?, indices, pruned_weights, out, ret)
Status embedding_byte_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[0], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(ctx, *args[1], "weight_scales"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_points, optional_tensor_arg(ctx, *args[2], "weight_zero_points"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[3], "indices"));
  ETKIT_ASSIGN_OR_RETURN(bool pruned, bool_arg(ctx, *args[4], "pruned_weights"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (pruned) return ctx.fail("pruned_weights must be false");
  const ScalarType wt = weight->dtype();
  if (wt != ScalarType::kChar && wt != ScalarType::kByte) return ctx.fail("weight must be CHAR or BYTE, not " + dtype_name(wt));
  if (weight->dim() != 2) return ctx.fail("weight must be 2-D [V, D], got " + weight->shape_string());
  const int64_t rows = weight->size(0), dim = weight->size(1);
  if (scales->dtype() != ScalarType::kFloat) return ctx.fail("weight_scales must be FLOAT, not " + dtype_name(scales->dtype()));
  if ((scales->dim() != 1 && scales->dim() != 2) || scales->size(0) != rows) {
    return ctx.fail("weight_scales must be [" + std::to_string(rows) + "] or [" + std::to_string(rows) + ", groups], got " +
                    scales->shape_string());
  }
  const int64_t groups = scales->dim() == 2 ? scales->size(1) : 1;
  if (groups == 0 || dim % groups != 0) {
    return ctx.fail(std::to_string(groups) + " groups do not divide the embedding dim " + std::to_string(dim));
  }
  if (zero_points) {
    const auto zs = zero_points->sizes(), ss = scales->sizes();
    if (zero_points->dtype() != wt || !std::equal(zs.begin(), zs.end(), ss.begin(), ss.end())) {
      return ctx.fail("weight_zero_points must have weight_scales' shape and weight's dtype " + dtype_name(wt));
    }
    ETKIT_TRY(require_contiguous(ctx, *zero_points, "weight_zero_points"));
  }
  if (indices->dtype() != ScalarType::kLong) return ctx.fail("indices must be LONG, not " + dtype_name(indices->dtype()));
  if (indices->dim() != 1 && indices->dim() != 2) return ctx.fail("indices must be 1-D or 2-D, got " + indices->shape_string());
  if (out->dtype() != ScalarType::kFloat) return ctx.fail("out must be FLOAT, not " + dtype_name(out->dtype()));
  ETKIT_TRY(require_contiguous(ctx, *weight, "weight"));
  ETKIT_TRY(require_contiguous(ctx, *scales, "weight_scales"));
  ETKIT_TRY(require_contiguous(ctx, *indices, "indices"));
  const int64_t* index = indices->data_as<int64_t>();
  const int64_t count = indices->numel();
  for (int64_t i = 0; i < count; ++i) {
    if (index[i] < 0 || index[i] >= rows) {
      return ctx.fail("indices[" + std::to_string(i) + "] = " + std::to_string(index[i]) + " is out of range for " +
                      std::to_string(rows) + " rows");
    }
  }
  Shape shape = shape_of(*indices);
  shape.push_back(dim);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const float* scale = scales->data_as<float>();
  float* dst = out->data_as<float>();
  const int64_t group_size = dim / groups;
  auto lookup = [&](auto tag) {
    using T = decltype(tag);
    const T* w = weight->data_as<T>();
    const T* zp = zero_points ? zero_points->data_as<T>() : nullptr;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t row = index[i];
      for (int64_t j = 0; j < dim; ++j) {
        const int64_t k = row * groups + j / group_size;
        const float z = zp ? float(zp[k]) : 0.f;
        *dst++ = (float(w[row * dim + j]) - z) * scale[k];
      }
    }
  };
  if (wt == ScalarType::kChar) lookup(int8_t{});
  else lookup(uint8_t{});
  return {};
}

// (condition, float self, float other, out, ret)
Status where_scalar_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * condition, tensor_arg(ctx, *args[0], "condition"));
  ETKIT_ASSIGN_OR_RETURN(double self, double_arg(ctx, *args[1], "self"));
  ETKIT_ASSIGN_OR_RETURN(double other, double_arg(ctx, *args[2], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (condition->dtype() != ScalarType::kBool) {
    return ctx.fail("condition must be BOOL, not " + dtype_name(condition->dtype()));
  }
  if (out->dtype() != ScalarType::kFloat) return ctx.fail("out must be FLOAT, not " + dtype_name(out->dtype()));
  ETKIT_TRY(resize_out(ctx, *out, condition->sizes()));
  const float a = narrow_float(self), b = narrow_float(other);
  const auto* c = static_cast<const uint8_t*>(condition->data());
  float* dst = out->data_as<float>();
  for_each_element(*out, *condition, [&](int64_t o, int64_t i) { dst[o] = c[i] != 0 ? a : b; });
  return {};
}

}  // namespace

std::vector<KernelInfo> select_kernels() {
  return {
      {"cadence::quantized_embedding_byte.out", embedding_byte_out, 7, {5}},
      {"cadence::where_Scalar.out", where_scalar_out, 5, {3}},
  };
}

}  // namespace etkit::rt::kernels::cadence
