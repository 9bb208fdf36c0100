// cadence:: elementwise operators as the Cadence backend's generic reference
// kernels compute them: quantized_relu, quantized_add, quantized_mul (and
// their _Scalar forms, X against a number) and requantize (.out with tensor
// parameters, .per_tensor_out with scalars).
//
//  * quantized_relu: v = x > x_zero_point ? x - x_zero_point : 0, then
//    out_zero_point + nearbyint(scale * v) with scale = out_multiplier *
//    2^(out_shift - 31) (double, narrowed to float). The .out overload keeps
//    v in the element type (x - zero point wraps there) and negates the
//    multiplier in int32; .per_tensor_out keeps v exact.
//  * quantized_add / quantized_mul: each side dequantized as float(scale) *
//    float(q - zp), summed (multiplied) in float, quantized with
//    1.f / float(out_scale); X and Y broadcast to out.
//  * requantize: float(in_scale) * float(q - in_zp) quantized with the
//    inverse out scale (1 / out_scale in float for .out, in double narrowed
//    to float for .per_tensor_out).
// q - zero_point is int32 arithmetic that wraps as the target's does.
#include <string>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels::cadence {
namespace {

using math::Reader;
using math::Writer;

bool is_8bit(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

// Narrows v to the 8-bit element type t, wrapping.
int32_t narrow8(ScalarType t, int64_t v) { return t == ScalarType::kChar ? int32_t(int8_t(uint8_t(uint64_t(v)))) : int32_t(uint8_t(uint64_t(v))); }

// ---- quantized_relu -------------------------------------------------------

Status relu_common(KernelContext& ctx, const Tensor& x, Tensor& out) {
  if (!is_8bit(x.dtype())) return ctx.fail("X must be CHAR or BYTE, not " + dtype_name(x.dtype()));
  if (out.dtype() != x.dtype()) return ctx.fail("out must be " + dtype_name(x.dtype()) + " as X, not " + dtype_name(out.dtype()));
  return resize_out(ctx, out, x.sizes());
}

// (X, int X_zero_point, int out_zero_point, int out_multiplier, int out_shift, out, ret)
Status relu_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(int32_t x_zp, zero_point_arg(ctx, *args[1], "X_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[2], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int64_t multiplier, int_arg(ctx, *args[3], "out_multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int64_t shift, int_arg(ctx, *args[4], "out_shift"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_TRY(relu_common(ctx, *x, *out));
  const float scale = multiplier_scale(negate64(multiplier), shift);
  const Range range = *dtype_range(out->dtype());
  const Reader<int32_t> read(*x);
  const Writer<int64_t> write(*out);
  for_each_element(*out, *x, [&](int64_t o, int64_t i) {
    const int64_t v = read(i);
    const float t = v > x_zp ? float(v - x_zp) : 0.f;  // both fit in int32: exact difference
    write(o, quantize_value(t, scale, out_zp, range));
  });
  return {};
}

// (X, Tensor X_zero_point, int out_zero_point, Tensor out_multiplier, Tensor out_shift, out, ret)
Status relu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zp_t, tensor_arg(ctx, *args[1], "X_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[2], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mult_t, scalar_tensor_arg(ctx, *args[3], "out_multiplier", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * shift_t, scalar_tensor_arg(ctx, *args[4], "out_shift", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_TRY(relu_common(ctx, *x, *out));
  // The reference reads the zero point as X's element type: an INT tensor's
  // value narrows (its low byte on a little-endian target).
  if (zp_t->dtype() != x->dtype() && zp_t->dtype() != ScalarType::kInt) {
    return ctx.fail("X_zero_point must be INT or X's " + dtype_name(x->dtype()) + ", not " + dtype_name(zp_t->dtype()));
  }
  if (zp_t->numel() != 1) return ctx.fail("X_zero_point must have one element, got " + zp_t->shape_string());
  const ScalarType t = x->dtype();
  const int32_t zp = narrow8(t, Reader<int64_t>(*zp_t)(0));
  const float scale = multiplier_scale(negate32(*mult_t->data_as<int32_t>()), *shift_t->data_as<int32_t>());
  const Range range = *dtype_range(out->dtype());
  const Reader<int32_t> read(*x);
  const Writer<int64_t> write(*out);
  for_each_element(*out, *x, [&](int64_t o, int64_t i) {
    const int32_t v = read(i);
    const int32_t d = v > zp ? narrow8(t, v - zp) : 0;  // the difference is stored in the element type
    write(o, quantize_value(float(d), scale, out_zp, range));
  });
  return {};
}

// ---- quantized_add --------------------------------------------------------

struct AddParams {
  float x_scale;
  int32_t x_zp;
  float y_scale;
  int32_t y_zp;
  float out_scale;
  int32_t out_zp;
};

enum class BinaryOp { kAdd, kMul };

Status binary(KernelContext& ctx, const Tensor& x, const Tensor& y, const AddParams& p, BinaryOp op, Tensor& out) {
  if (!is_8bit(out.dtype())) return ctx.fail("out must be CHAR or BYTE, not " + dtype_name(out.dtype()));
  if (x.dtype() != out.dtype() || y.dtype() != out.dtype()) {
    return ctx.fail("X " + dtype_name(x.dtype()) + " and Y " + dtype_name(y.dtype()) + " must have out's dtype " +
                    dtype_name(out.dtype()));
  }
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, x.sizes(), y.sizes()));
  ETKIT_TRY(resize_out(ctx, out, shape));
  const float inv_out_scale = 1.0f / p.out_scale;
  const Range range = *dtype_range(out.dtype());
  const Reader<int32_t> rx(x), ry(y);
  const Writer<int64_t> write(out);
  for_each_broadcast(out, x, y, [&](int64_t o, int64_t ix, int64_t iy) {
    const float a = p.x_scale * float(wrap32(int64_t(rx(ix)) - p.x_zp));
    const float b = p.y_scale * float(wrap32(int64_t(ry(iy)) - p.y_zp));
    write(o, quantize_value(op == BinaryOp::kAdd ? a + b : a * b, inv_out_scale, p.out_zp, range));
  });
  return {};
}

// (X, float X_scale, int X_zero_point, Y, float Y_scale, int Y_zero_point, float out_scale,
// int out_zero_point, out, ret)
template <BinaryOp kOp>
Status binary_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(double x_scale, double_arg(ctx, *args[1], "X_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t x_zp, zero_point_arg(ctx, *args[2], "X_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * y, tensor_arg(ctx, *args[3], "Y"));
  ETKIT_ASSIGN_OR_RETURN(double y_scale, double_arg(ctx, *args[4], "Y_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t y_zp, zero_point_arg(ctx, *args[5], "Y_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[6], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[7], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[8], "out"));
  const AddParams p{narrow_float(x_scale), x_zp, narrow_float(y_scale), y_zp, narrow_float(out_scale), out_zp};
  return binary(ctx, *x, *y, p, kOp, *out);
}

// (X, Tensor X_scale, Tensor X_zero_point, Y, Tensor Y_scale, Tensor Y_zero_point,
// float out_scale, int out_zero_point, out, ret)
template <BinaryOp kOp>
Status binary_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * xs, scalar_tensor_arg(ctx, *args[1], "X_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * xz, scalar_tensor_arg(ctx, *args[2], "X_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * y, tensor_arg(ctx, *args[3], "Y"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * ys, scalar_tensor_arg(ctx, *args[4], "Y_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * yz, scalar_tensor_arg(ctx, *args[5], "Y_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[6], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[7], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[8], "out"));
  const AddParams p{*xs->data_as<float>(), *xz->data_as<int32_t>(), *ys->data_as<float>(), *yz->data_as<int32_t>(),
                    narrow_float(out_scale), out_zp};
  return binary(ctx, *x, *y, p, kOp, *out);
}

// (X, Tensor X_scale, Tensor X_zero_point, Scalar Y, float out_scale,
// int out_zero_point, out, ret): X dequantized, Y as float, the sum
// (product) quantized; out has X's shape.
template <BinaryOp kOp>
Status binary_scalar_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x, tensor_arg(ctx, *args[0], "X"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * xs, scalar_tensor_arg(ctx, *args[1], "X_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * xz, scalar_tensor_arg(ctx, *args[2], "X_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(const EValue* y_arg, scalar_arg(ctx, *args[3], "Y"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[4], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[5], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (!is_8bit(out->dtype())) return ctx.fail("out must be CHAR or BYTE, not " + dtype_name(out->dtype()));
  if (x->dtype() != out->dtype()) {
    return ctx.fail("X " + dtype_name(x->dtype()) + " must have out's dtype " + dtype_name(out->dtype()));
  }
  const double y_value = y_arg->tag == Tag::kDouble ? y_arg->d : y_arg->tag == Tag::kInt ? double(y_arg->i) : double(y_arg->b);
  const float y = float(y_value), x_scale = *xs->data_as<float>(), inv_out_scale = 1.0f / narrow_float(out_scale);
  const int32_t x_zp = *xz->data_as<int32_t>();
  ETKIT_TRY(resize_out(ctx, *out, x->sizes()));
  const Range range = *dtype_range(out->dtype());
  const Reader<int32_t> rx(*x);
  const Writer<int64_t> write(*out);
  for_each_element(*out, *x, [&](int64_t o, int64_t i) {
    const float a = x_scale * float(wrap32(int64_t(rx(i)) - x_zp));
    write(o, quantize_value(kOp == BinaryOp::kAdd ? a + y : a * y, inv_out_scale, out_zp, range));
  });
  return {};
}

// ---- requantize -----------------------------------------------------------

bool requant_dtype(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kChar || t == ScalarType::kUInt16 || t == ScalarType::kShort;
}

Status requantize(KernelContext& ctx, const Tensor& input, float in_scale, int32_t in_zp, float inv_out_scale,
                  int32_t out_zp, const EValue& out_dtype_arg, Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> out_dtype, math::dtype_arg(ctx, out_dtype_arg, "out_dtype"));
  if (!out_dtype) return ctx.fail("out_dtype must be given");
  if (out.dtype() != *out_dtype) {
    return ctx.fail("out dtype " + dtype_name(out.dtype()) + " does not match out_dtype " + dtype_name(*out_dtype));
  }
  if (!requant_dtype(input.dtype())) return ctx.fail("input dtype " + dtype_name(input.dtype()) + " is not supported");
  if (!requant_dtype(out.dtype())) return ctx.fail("out dtype " + dtype_name(out.dtype()) + " is not supported");
  ETKIT_TRY(resize_out(ctx, out, input.sizes()));
  const Range range = *dtype_range(out.dtype());
  const Reader<int32_t> read(input);
  const Writer<int64_t> write(out);
  for_each_element(out, input, [&](int64_t o, int64_t i) {
    const float v = in_scale * float(wrap32(int64_t(read(i)) - in_zp));
    write(o, quantize_value(v, inv_out_scale, out_zp, range));
  });
  return {};
}

// (input, Tensor in_scale, Tensor in_zero_point, Tensor out_scale, Tensor out_zero_point,
// ScalarType out_dtype, out, ret)
Status requantize_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * is, scalar_tensor_arg(ctx, *args[1], "in_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * iz, scalar_tensor_arg(ctx, *args[2], "in_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * os, scalar_tensor_arg(ctx, *args[3], "out_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * oz, scalar_tensor_arg(ctx, *args[4], "out_zero_point", ScalarType::kInt));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  return requantize(ctx, *input, *is->data_as<float>(), *iz->data_as<int32_t>(), 1 / *os->data_as<float>(),
                    *oz->data_as<int32_t>(), *args[5], *out);
}

// (input, float in_scale, int in_zero_point, float out_scale, int out_zero_point,
// ScalarType out_dtype, out, ret)
Status requantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double in_scale, double_arg(ctx, *args[1], "in_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t in_zp, zero_point_arg(ctx, *args[2], "in_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(double out_scale, double_arg(ctx, *args[3], "out_scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, zero_point_arg(ctx, *args[4], "out_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  return requantize(ctx, *input, narrow_float(in_scale), in_zp, narrow_float(1 / out_scale), out_zp, *args[5], *out);
}

}  // namespace

std::vector<KernelInfo> elementwise_kernels() {
  std::vector<KernelInfo> table{
      {"cadence::quantized_relu.out", relu_out, 7, {5}},
      {"cadence::quantized_relu.per_tensor_out", relu_per_tensor_out, 7, {5}},
      {"cadence::quantized_add.out", binary_out<BinaryOp::kAdd>, 10, {8}},
      {"cadence::quantized_mul.out", binary_out<BinaryOp::kMul>, 10, {8}},
      {"cadence::quantized_add_Scalar.out", binary_scalar_out<BinaryOp::kAdd>, 8, {6}},
      {"cadence::quantized_mul_Scalar.out", binary_scalar_out<BinaryOp::kMul>, 8, {6}},
      {"cadence::quantized_add.per_tensor_out", binary_per_tensor_out<BinaryOp::kAdd>, 10, {8}},
      {"cadence::quantized_mul.per_tensor_out", binary_per_tensor_out<BinaryOp::kMul>, 10, {8}},
      {"cadence::requantize.out", requantize_out, 8, {6}},
      {"cadence::requantize.per_tensor_out", requantize_per_tensor_out, 8, {6}},
  };
  table.push_back({"cadence::quantized_relu_asym8s_asym8s.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<relu_per_tensor_out, ScalarType::kChar, 0, 5>(c, a, {"X", "out"});
  }, 7, {5}});
  table.push_back({"cadence::quantized_add_asym8sxasym8s_asym8s.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<binary_per_tensor_out<BinaryOp::kAdd>, ScalarType::kChar, 0, 3, 8>(c, a, {"X", "Y", "out"});
  }, 10, {8}});
  table.push_back({"cadence::quantized_relu_asym8u_asym8u.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<relu_per_tensor_out, ScalarType::kByte, 0, 5>(c, a, {"X", "out"});
  }, 7, {5}});
  table.push_back({"cadence::quantized_add_asym8uxasym8u_asym8u.per_tensor_out", [](KernelContext& c, std::span<EValue* const> a) {
    return fixed_dtype<binary_per_tensor_out<BinaryOp::kAdd>, ScalarType::kByte, 0, 3, 8>(c, a, {"X", "Y", "out"});
  }, 10, {8}});
  return table;
}

}  // namespace etkit::rt::kernels::cadence
