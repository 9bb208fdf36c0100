// cadence::quantized_softmax (.out with tensor parameters, .per_tensor_out
// with scalars) as the generic reference computes it, over the last
// dimension of a uint8/int8/int16 tensor: dequantize (float scale *
// (q - zp)), subtract the row's maximum, exp in float, normalise by the
// float reciprocal of the row sum, quantize with 1 / out_scale (ties to
// even, clamped to the dtype).
//
// mask_type 1 with a non-empty pos (SHORT or LONG, first element P) is the
// incremental causal mask: row r (counted over all rows of the tensor)
// attends to positions 0..P + r and gives the others probability 0; P < 0
// masks every position (each row becomes all zeros, out_zero_point after
// quantization). The mask tensor itself is not read, as in the reference.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::cadence {
namespace {

struct SoftmaxParams {
  float in_scale;
  int32_t in_zp;
  float out_scale;
  int32_t out_zp;
};

template <typename T>
void softmax_rows(const Tensor& input, const SoftmaxParams& p, bool causal, int64_t pos, Tensor& out) {
  const T* x = input.data_as<T>();
  T* y = out.data_as<T>();
  const Range range = *dtype_range(out.dtype());
  const int64_t n = input.dim() == 0 ? 1 : input.size(input.dim() - 1);
  const int64_t rows = n == 0 ? 0 : input.numel() / n;
  const float inv_out_scale = 1.0f / p.out_scale;
  std::vector<float> v(size_t(std::max<int64_t>(n, 0)));
  for (int64_t r = 0; r < rows; ++r) {
    // Positions up to `last` are attended (every one without the causal mask).
    const int64_t last = !causal ? n - 1 : (pos < 0 ? -1 : std::min(pos + r, n - 1));
    for (int64_t i = 0; i < n; ++i) v[i] = p.in_scale * float(wrap32(int64_t(x[r * n + i]) - p.in_zp));
    float max_in = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i <= last; ++i) max_in = std::max(max_in, v[i]);
    if (max_in == -std::numeric_limits<float>::infinity()) max_in = 0.0f;
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      if (i > last) {
        v[i] = 0.0f;
      } else {
        v[i] = std::exp(v[i] - max_in);
        sum += v[i];
      }
    }
    const float recip = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = static_cast<T>(quantize_value(v[i] * recip, inv_out_scale, p.out_zp, range));
  }
}

// Shared by both overloads once the quantization parameters are read.
Status softmax(KernelContext& ctx, std::span<EValue* const> args, const SoftmaxParams& p) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[1], "mask"));
  (void)mask;
  ETKIT_ASSIGN_OR_RETURN(int64_t dim, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t mask_type, int_arg(ctx, *args[3], "mask_type"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * pos, tensor_arg(ctx, *args[4], "pos"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  const ScalarType t = input->dtype();
  if (t != ScalarType::kByte && t != ScalarType::kChar && t != ScalarType::kShort) {
    return ctx.fail("input must be BYTE, CHAR or SHORT, not " + dtype_name(t));
  }
  if (out->dtype() != t) return ctx.fail("out must be " + dtype_name(t) + " as input, not " + dtype_name(out->dtype()));
  const auto rank = int64_t(input->dim());
  if (rank == 0) return ctx.fail("input must have at least one dimension");
  if (dim != rank - 1 && dim != -1) {
    return ctx.fail("dim " + std::to_string(dim) + " is not the last dimension (the reference only supports it)");
  }
  const bool causal = mask_type == 1 && pos->numel() > 0;
  int64_t base = 0;
  if (causal) {
    if (pos->dtype() == ScalarType::kShort) base = pos->data_as<int16_t>()[0];
    else if (pos->dtype() == ScalarType::kLong) base = pos->data_as<int64_t>()[0];
    else return ctx.fail("pos must be SHORT or LONG, not " + dtype_name(pos->dtype()));
  }
  ETKIT_TRY(require_contiguous(ctx, *input, "input"));
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  switch (t) {
    case ScalarType::kByte: softmax_rows<uint8_t>(*input, p, causal, base, *out); break;
    case ScalarType::kChar: softmax_rows<int8_t>(*input, p, causal, base, *out); break;
    default: softmax_rows<int16_t>(*input, p, causal, base, *out); break;
  }
  return {};
}

// (input, mask, dim, mask_type, pos, float in_scale, int in_zero_point,
// float out_scale, int out_zero_point, out, ret)
Status softmax_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  SoftmaxParams p{};
  ETKIT_ASSIGN_OR_RETURN(double in_scale, double_arg(ctx, *args[5], "in_scale"));
  ETKIT_ASSIGN_OR_RETURN(p.in_zp, zero_point_arg(ctx, *args[6], "in_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[7], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(p.out_zp, zero_point_arg(ctx, *args[8], "out_zero_point"));
  p.in_scale = narrow_float(in_scale);
  p.out_scale = narrow_float(out_scale);
  return softmax(ctx, args, p);
}

// (input, mask, dim, mask_type, pos, Tensor in_scale (FLOAT), Tensor
// in_zero_point (LONG), Tensor out_scale (FLOAT), Tensor out_zero_point
// (LONG), out, ret)
Status softmax_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * is, scalar_tensor_arg(ctx, *args[5], "in_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * iz, scalar_tensor_arg(ctx, *args[6], "in_zero_point", ScalarType::kLong));
  ETKIT_ASSIGN_OR_RETURN(Tensor * os, scalar_tensor_arg(ctx, *args[7], "out_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * oz, scalar_tensor_arg(ctx, *args[8], "out_zero_point", ScalarType::kLong));
  for (auto [zp, name] : {std::pair{iz, "in_zero_point"}, std::pair{oz, "out_zero_point"}}) {
    const int64_t v = *zp->data_as<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) return ctx.fail(std::string(name) + " " + std::to_string(v) + " does not fit in int32");
  }
  const SoftmaxParams p{*is->data_as<float>(), int32_t(*iz->data_as<int64_t>()), *os->data_as<float>(),
                        int32_t(*oz->data_as<int64_t>())};
  return softmax(ctx, args, p);
}

}  // namespace

std::vector<KernelInfo> softmax_kernels() {
  return {
      {"cadence::quantized_softmax.out", softmax_out, 11, {9}},
      {"cadence::quantized_softmax.per_tensor_out", softmax_per_tensor_out, 11, {9}},
  };
}

}  // namespace etkit::rt::kernels::cadence
