// cadence:: matrix products as the Cadence backend's generic reference
// kernels compute them: quantized_linear and quantized_fully_connected
// (.out with tensor parameters, .per_tensor_out with ints) and
// quantized_matmul.out.
//
// Integer semantics, matched step by step:
//  * each product term is (x - x_zero_point) * (w - w_zero_point) and the sum
//    starts at bias[j] (linear) or 0 (matmul), all in int32 arithmetic that
//    wraps as the target's does (computed here in uint32, so no UB);
//  * the requantization scale is out_multiplier * 2^(out_shift - 31),
//    computed in double and narrowed to float; per channel (linear .out with
//    more than one multiplier) the multiplier is negated in int32 first;
//  * the output is zero_point + nearbyint(scale * float(sum)) in float (ties
//    to even), clamped to the out dtype.
// The reference indexes raw memory, so tensors must be contiguous.
#include <string>
#include <vector>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels::cadence {
namespace {

using math::Reader;
using math::Writer;

// The dtypes the reference dispatches on: one of uint8/int8/int16 for all
// three, or (when `a16w8`) int16 activations with int8 weights.
Status check_dtypes(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out, bool a16w8,
                    std::string_view a_name, std::string_view b_name) {
  const ScalarType at = a.dtype(), bt = b.dtype(), ot = out.dtype();
  const bool same = at == bt && at == ot && (at == ScalarType::kChar || at == ScalarType::kByte || at == ScalarType::kShort);
  const bool mixed = a16w8 && at == ScalarType::kShort && bt == ScalarType::kChar && ot == ScalarType::kShort;
  if (!same && !mixed) {
    return ctx.fail("unsupported dtypes: " + std::string(a_name) + " " + dtype_name(at) + ", " + std::string(b_name) + " " +
                    dtype_name(bt) + ", out " + dtype_name(ot));
  }
  return {};
}

// Linear / fully connected: src [..., in_dim] x weight [out_dim, in_dim]^T + bias [out_dim].
// `scales` has one entry (per tensor) or out_dim entries (per channel).
Status linear(KernelContext& ctx, const Tensor& src, const Tensor& weight, const Tensor& bias, int32_t src_zp,
              int32_t w_zp, const std::vector<float>& scales, int32_t out_zp, Tensor& out, bool a16w8) {
  ETKIT_TRY(check_dtypes(ctx, src, weight, out, a16w8, "src", "weight"));
  if (weight.dim() != 2) return ctx.fail("weight must be [out_dim, in_dim], got " + weight.shape_string());
  const int64_t out_dim = weight.size(0), in_dim = weight.size(1);
  if (src.dim() < 1 || src.size(src.dim() - 1) != in_dim) {
    return ctx.fail("src " + src.shape_string() + " must end in weight's in_dim " + std::to_string(in_dim));
  }
  if (bias.dtype() != ScalarType::kInt) return ctx.fail("bias must be INT, not " + dtype_name(bias.dtype()));
  if (bias.dim() != 1 || bias.size(0) != out_dim) {
    return ctx.fail("bias must be [" + std::to_string(out_dim) + "], got " + bias.shape_string());
  }
  ETKIT_TRY(require_contiguous(ctx, src, "src"));
  ETKIT_TRY(require_contiguous(ctx, weight, "weight"));
  Shape shape;
  for (size_t d = 0; d + 1 < src.dim(); ++d) shape.push_back(src.size(d));
  shape.push_back(out_dim);
  ETKIT_TRY(resize_out(ctx, out, shape));
  ETKIT_TRY(require_contiguous(ctx, out, "out"));
  const int64_t rows = in_dim == 0 ? out.numel() / std::max<int64_t>(out_dim, 1) : src.numel() / in_dim;
  const Range range = *dtype_range(out.dtype());
  const Reader<int32_t> read_src(src), read_w(weight);
  const Writer<int64_t> write(out);
  const int32_t* b = bias.data_as<int32_t>();
  const int64_t bstride = bias.strides()[0];
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < out_dim; ++j) {
      uint32_t sum = uint32_t(b[j * bstride]);
      for (int64_t k = 0; k < in_dim; ++k) {
        const uint32_t x = uint32_t(read_src(i * in_dim + k)) - uint32_t(src_zp);
        const uint32_t w = uint32_t(read_w(j * in_dim + k)) - uint32_t(w_zp);
        sum += x * w;
      }
      const float scale = scales.size() == 1 ? scales[0] : scales[size_t(j)];
      write(i * out_dim + j, quantize_value(float(int32_t(sum)), scale, out_zp, range));
    }
  }
  return {};
}

// (src, weight, bias, int src_zero_point, int weight_zero_point, int out_multiplier,
// int out_shift, int out_zero_point, Tensor? offset, out, ret)
template <bool kA16W8>
Status linear_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[0], "src"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(int32_t src_zp, zero_point_arg(ctx, *args[3], "src_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t w_zp, zero_point_arg(ctx, *args[4], "weight_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int64_t multiplier, int_arg(ctx, *args[5], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int64_t shift, int_arg(ctx, *args[6], "out_shift"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[7], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * offset, optional_tensor_arg(ctx, *args[8], "offset"));
  (void)offset;  // unused by the reference
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  // The per-tensor multiplier is an int64 there: negated without wrapping at int32.
  const std::vector<float> scales{multiplier_scale(negate64(multiplier), shift)};
  return linear(ctx, *src, *weight, *bias, src_zp, w_zp, scales, out_zp, *out, kA16W8);
}

// (src, weight, bias, int src_zero_point, Tensor weight_zero_point, Tensor out_multiplier,
// Tensor out_shift, int out_zero_point, Tensor? offset, out, ret)
template <bool kA16W8>
Status linear_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[0], "src"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(int32_t src_zp, zero_point_arg(ctx, *args[3], "src_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w_zp_t, scalar_tensor_arg(ctx, *args[4], "weight_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mult_t, tensor_arg(ctx, *args[5], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * shift_t, tensor_arg(ctx, *args[6], "out_shift"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[7], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * offset, optional_tensor_arg(ctx, *args[8], "offset"));
  (void)offset;
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  for (auto [t, name] : {std::pair{mult_t, "out_multiplier"}, std::pair{shift_t, "out_shift"}}) {
    if (t->dtype() != ScalarType::kInt) return ctx.fail(std::string(name) + " must be INT, not " + dtype_name(t->dtype()));
    if (t->dim() > 1) return ctx.fail(std::string(name) + " must be 1-D, got " + t->shape_string());
  }
  const int64_t out_dim = weight->dim() == 2 ? weight->size(0) : 0;
  const int64_t channels = mult_t->numel();
  if (channels != 1 && channels != out_dim) {
    return ctx.fail("out_multiplier " + mult_t->shape_string() + " must have 1 or " + std::to_string(out_dim) + " entries");
  }
  if (shift_t->numel() != channels) {
    return ctx.fail("out_shift " + shift_t->shape_string() + " must have out_multiplier's " + std::to_string(channels) +
                    " entries");
  }
  const int32_t* m = mult_t->data_as<int32_t>();
  const int32_t* s = shift_t->data_as<int32_t>();
  const int64_t ms = mult_t->dim() ? mult_t->strides()[0] : 0, ss = shift_t->dim() ? shift_t->strides()[0] : 0;
  std::vector<float> scales;
  if (channels == 1) {
    scales.push_back(multiplier_scale(negate64(m[0]), s[0]));  // the per-tensor path widens to int64 first
  } else {
    for (int64_t j = 0; j < channels; ++j) scales.push_back(multiplier_scale(negate32(m[j * ms]), s[j * ss]));
  }
  return linear(ctx, *src, *weight, *bias, src_zp, *w_zp_t->data_as<int32_t>(), scales, out_zp, *out, kA16W8);
}

// (X, int X_zero_point, Y, int Y_zero_point, Tensor? bias, int out_multiplier, int out_shift,
// int out_zero_point, bool transposed, out, ret)
Status matmul_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(int32_t x_zp, zero_point_arg(ctx, *args[1], "X_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * y, tensor_arg(ctx, *args[2], "Y"));
  ETKIT_ASSIGN_OR_RETURN(int32_t y_zp, zero_point_arg(ctx, *args[3], "Y_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[4], "bias"));
  (void)bias;  // unused by the reference
  ETKIT_ASSIGN_OR_RETURN(int64_t multiplier, int_arg(ctx, *args[5], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int64_t shift, int_arg(ctx, *args[6], "out_shift"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[7], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(bool transposed, bool_arg(ctx, *args[8], "transposed"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  ETKIT_TRY(check_dtypes(ctx, *x, *y, *out, true, "X", "Y"));
  if (x->dim() < 2) return ctx.fail("X must have at least 2 dims, got " + x->shape_string());
  if (y->dim() != x->dim()) return ctx.fail("Y " + y->shape_string() + " must have X's rank " + std::to_string(x->dim()));
  const size_t r = x->dim();
  for (size_t d = 0; d + 2 < r; ++d) {
    if (y->size(d) != x->size(d)) return ctx.fail("Y " + y->shape_string() + " must have X's batch dims " + x->shape_string());
  }
  const int64_t m = x->size(r - 2), n = x->size(r - 1);
  const int64_t yn = transposed ? y->size(r - 1) : y->size(r - 2);
  const int64_t p = transposed ? y->size(r - 2) : y->size(r - 1);
  if (yn != n) {
    return ctx.fail("Y " + y->shape_string() + " does not match X " + x->shape_string() +
                    (transposed ? " (transposed)" : ""));
  }
  ETKIT_TRY(require_contiguous(ctx, *x, "X"));
  ETKIT_TRY(require_contiguous(ctx, *y, "Y"));
  Shape shape;
  for (size_t d = 0; d + 2 < r; ++d) shape.push_back(x->size(d));
  shape.push_back(m);
  shape.push_back(p);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < r; ++d) batches *= x->size(d);
  // The reference narrows multiplier and shift to int32, then negates in int32.
  const float scale = multiplier_scale(negate32(int32_t(multiplier)), int32_t(shift));
  const Range range = *dtype_range(out->dtype());
  const Reader<int32_t> rx(*x), ry(*y);
  const Writer<int64_t> write(*out);
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t xb = b * m * n, yb = b * n * p, ob = b * m * p;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        uint32_t sum = 0;
        for (int64_t k = 0; k < n; ++k) {
          const uint32_t a = uint32_t(rx(xb + i * n + k)) - uint32_t(x_zp);
          const uint32_t c = uint32_t(ry(yb + (transposed ? j * n + k : k * p + j))) - uint32_t(y_zp);
          sum += a * c;
        }
        write(ob + i * p + j, quantize_value(float(int32_t(sum)), scale, out_zp, range));
      }
    }
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> matmul_kernels() {
  std::vector<KernelInfo> table{
      {"cadence::quantized_linear.out", linear_out<true>, 11, {9}},
      {"cadence::quantized_linear.per_tensor_out", linear_per_tensor_out<true>, 11, {9}},
      {"cadence::quantized_fully_connected.out", linear_out<false>, 11, {9}},
      {"cadence::quantized_fully_connected.per_tensor_out", linear_per_tensor_out<false>, 11, {9}},
      {"cadence::quantized_matmul.out", matmul_out, 11, {9}},
  };
  table.push_back({"cadence::quantized_linear_asym8sxasym8s_asym8s.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<linear_per_tensor_out<false>, ScalarType::kChar, 0, 1, 9>(c, a, {"src", "weight", "out"});
  }, 11, {9}});
  table.push_back({"cadence::quantized_fully_connected_asym8sxasym8s_asym8s.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<linear_per_tensor_out<false>, ScalarType::kChar, 0, 1, 9>(c, a, {"src", "weight", "out"});
  }, 11, {9}});
  table.push_back({"cadence::quantized_matmul_asym8sxasym8s_asym8s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<matmul_out, ScalarType::kChar, 0, 2, 9>(c, a, {"X", "Y", "out"});
  }, 11, {9}});
  table.push_back({"cadence::quantized_linear_asym8uxasym8u_asym8u.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<linear_per_tensor_out<false>, ScalarType::kByte, 0, 1, 9>(c, a, {"src", "weight", "out"});
  }, 11, {9}});
  table.push_back({"cadence::quantized_fully_connected_asym8uxasym8u_asym8u.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<linear_per_tensor_out<false>, ScalarType::kByte, 0, 1, 9>(c, a, {"src", "weight", "out"});
  }, 11, {9}});
  table.push_back({"cadence::quantized_matmul_asym8uxasym8u_asym8u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<matmul_out, ScalarType::kByte, 0, 2, 9>(c, a, {"X", "Y", "out"});
  }, 11, {9}});
  return table;
}

}  // namespace etkit::rt::kernels::cadence
