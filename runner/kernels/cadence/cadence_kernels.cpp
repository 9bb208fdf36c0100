// cadence:: operators as the Cadence backend's generic reference kernels
// (backends/cadence/generic) compute them, for running Cadence-lowered
// programs on the host: quantize_per_tensor and dequantize_per_tensor here;
// the linear family, the elementwise ops, the convolutions and im2row, layer
// norm and pooling, embedding and where, and softmax in the cadence_*.cpp
// files beside this one; the flow's float helpers (softmax, rope, rms_norm,
// the mask packer and the no-op copies) in cadence_float.cpp; the float
// convolutions and fully_connected in cadence_float_conv.cpp; the int8-weight
// float-activation (w8a32) linear, conv and GRU in cadence_w8a32.cpp; the
// ROI-align box records in cadence_roi_align.cpp.
//
// Arithmetic, matched step by step so that results are bit-exact:
//  * quantize: inv_scale = float(1.0 / scale) (divided in double);
//    q = zero_point + nearbyint(inv_scale * x) in float (ties to even),
//    clamped to the full range of out's dtype; quant_min/quant_max are not
//    used (as in the reference). NaN maps to the dtype's minimum.
//  * dequantize: float(scale) * float(q - zero_point).
#include <cmath>
#include <limits>
#include <optional>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

using math::Reader;
using math::Writer;
using cadence::dtype_range;
using cadence::quantize_value;
using cadence::zero_point_arg;

// The unused quant_min, quant_max and dtype arguments must still be well formed.
Status check_unused_args(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(int64_t qmin, int_arg(ctx, *args[3], "quant_min"));
  ETKIT_ASSIGN_OR_RETURN(int64_t qmax, int_arg(ctx, *args[4], "quant_max"));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, math::dtype_arg(ctx, *args[5], "dtype"));
  (void)qmin, (void)qmax, (void)dtype;
  return {};
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out, ret)
Status quantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t zero_point, zero_point_arg(ctx, *args[2], "zero_point"));
  ETKIT_TRY(check_unused_args(ctx, args));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (input->dtype() != ScalarType::kFloat) return ctx.fail("input must be FLOAT, not " + dtype_name(input->dtype()));
  const auto range = dtype_range(out->dtype());
  if (!range) return ctx.fail("out dtype " + dtype_name(out->dtype()) + " is not a quantized dtype");
  if (scale == 0 || !std::isfinite(scale)) return ctx.fail("scale " + std::to_string(scale) + " must be finite and non-zero");
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  const float inv_scale = static_cast<float>(1.0 / scale);
  const Reader<float> read(*input);
  const Writer<int64_t> write(*out);
  for_each_element(*out, *input, [&](int64_t o, int64_t i) {
    write(o, quantize_value(read(i), inv_scale, zero_point, *range));
  });
  return {};
}

// (input, float scale, int zero_point, quant_min, quant_max, dtype, out, ret)
Status dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double scale, double_arg(ctx, *args[1], "scale"));
  ETKIT_ASSIGN_OR_RETURN(int32_t zero_point, zero_point_arg(ctx, *args[2], "zero_point"));
  ETKIT_TRY(check_unused_args(ctx, args));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (!dtype_range(input->dtype())) return ctx.fail("input dtype " + dtype_name(input->dtype()) + " is not supported");
  if (out->dtype() != ScalarType::kFloat) return ctx.fail("out must be FLOAT, not " + dtype_name(out->dtype()));
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  const float s = static_cast<float>(scale);
  const Reader<int64_t> read(*input);
  const Writer<float> write(*out);
  for_each_element(*out, *input, [&](int64_t o, int64_t i) {
    write(o, s * static_cast<float>(read(i) - zero_point));  // int64: no overflow
  });
  return {};
}

}  // namespace

std::vector<KernelInfo> cadence_kernels() {
  std::vector<KernelInfo> table;
  table.push_back({"cadence::quantize_per_tensor.out", quantize_per_tensor_out, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor.out", dequantize_per_tensor_out, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym8s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kChar, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym8s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kChar, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym8u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kByte, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym8u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kByte, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym16s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kShort, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym16s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kShort, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym16u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kUInt16, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym16u.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kUInt16, 0>(c, a, {"input"});
  }, 8, {6}});
  table.push_back({"cadence::quantize_per_tensor_asym32s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<quantize_per_tensor_out, ScalarType::kInt, 6>(c, a, {"out"});
  }, 8, {6}});
  table.push_back({"cadence::dequantize_per_tensor_asym32s.out", [](KernelContext& c, std::span<EValue* const> a) {
    return cadence::fixed_dtype<dequantize_per_tensor_out, ScalarType::kInt, 0>(c, a, {"input"});
  }, 8, {6}});
  for (auto& k : cadence::matmul_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::elementwise_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::norm_pool_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::select_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::softmax_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::conv_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::float_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::float_conv_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::w8a32_kernels()) table.push_back(std::move(k));
  for (auto& k : cadence::roi_align_kernels()) table.push_back(std::move(k));
  return table;
}

}  // namespace etkit::rt::kernels
