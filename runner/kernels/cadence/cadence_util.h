// Pieces shared by the cadence:: kernels: the generic reference's quantize
// step, its requantization scale from (out_multiplier, out_shift), and
// argument checks whose messages name the argument.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/kernels/kernel_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels::cadence {

struct Range {
  int64_t lo, hi;
};

inline std::optional<Range> dtype_range(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: return Range{0, 255};
    case ScalarType::kChar: return Range{-128, 127};
    case ScalarType::kShort: return Range{INT16_MIN, INT16_MAX};
    case ScalarType::kInt: return Range{INT32_MIN, INT32_MAX};
    case ScalarType::kUInt16: case ScalarType::kBits16: return Range{0, UINT16_MAX};
    default: return std::nullopt;
  }
}

// kernels.cpp's quantize<T>(x, scale, zero_point): zero_point + nearbyint(scale * x)
// in float (ties to even), clamped to the dtype. NaN maps to the minimum.
inline int64_t quantize_value(float x, float scale, int32_t zero_point, Range r) {
  const float q = float(zero_point) + std::nearbyint(scale * x);
  if (std::isnan(q) || q <= float(r.lo)) return r.lo;
  if (q >= float(r.hi)) return r.hi;  // float(INT32_MAX) rounds up to 2^31
  return std::clamp(static_cast<int64_t>(q), r.lo, r.hi);
}

// A double narrowed to float as IEEE does (out of range: +-inf), without the
// undefined behaviour of a plain cast.
inline float narrow_float(double d) {
  if (d > double(FLT_MAX)) return INFINITY;
  if (d < -double(FLT_MAX)) return -INFINITY;
  return static_cast<float>(d);
}

// The reference's scale -m * 1.0 / (1 << 31) * pow(2, shift), in double then
// float; (1 << 31) is INT32_MIN, so this is m * 2^(shift - 31). `negated` is
// -m as the reference's integer type computes it (callers wrap).
inline float multiplier_scale(int64_t negated, int64_t shift) {
  return narrow_float(double(negated) / -2147483648.0 * std::pow(2.0, double(shift)));
}
inline int64_t negate64(int64_t m) { return int64_t(0ull - uint64_t(m)); }
inline int32_t negate32(int32_t m) { return int32_t(0u - uint32_t(m)); }
// int32 arithmetic as two's complement hardware does it.
inline int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

inline Result<int32_t> zero_point_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  ETKIT_ASSIGN_OR_RETURN(int64_t zp, int_arg(ctx, v, what));
  if (zp < INT32_MIN || zp > INT32_MAX) return ctx.fail(std::string(what) + " " + std::to_string(zp) + " does not fit in int32");
  return int32_t(zp);
}

// A per-tensor parameter passed as a tensor: `dtype`, exactly one element.
inline Result<Tensor*> scalar_tensor_arg(KernelContext& ctx, const EValue& v, std::string_view what, ScalarType dtype) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * t, tensor_arg(ctx, v, what));
  if (t->dtype() != dtype) return ctx.fail(std::string(what) + " must be " + dtype_name(dtype) + ", not " + dtype_name(t->dtype()));
  if (t->numel() != 1) return ctx.fail(std::string(what) + " must have one element, got " + t->shape_string());
  return t;
}

// The reference indexes raw memory: tensors must be laid out contiguously.
inline Status require_contiguous(KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (!t.is_contiguous()) return ctx.fail(std::string(what) + " must be contiguous");
  return {};
}

using RawKernel = Status (*)(KernelContext&, std::span<EValue* const>);

// The reference's dtype-specialised overloads (quantized_linear_asym8sxasym8s_asym8s,
// quantize_per_tensor_asym8s, ...): the generic kernel, once the tensors at
// `slots` (schema names `names`) are checked to have dtype kT.
template <RawKernel kFn, ScalarType kT, size_t... kSlots>
Status fixed_dtype(KernelContext& ctx, std::span<EValue* const> args, std::initializer_list<const char*> names) {
  const size_t slots[] = {kSlots...};
  size_t n = 0;
  for (const char* name : names) {
    const size_t slot = slots[n++];
    if (slot >= args.size()) return ctx.fail("expected more arguments");
    ETKIT_ASSIGN_OR_RETURN(Tensor * t, tensor_arg(ctx, *args[slot], name));
    if (t->dtype() != kT) {
      return ctx.fail(std::string(name) + " must be " + dtype_name(kT) + " for this overload, not " + dtype_name(t->dtype()));
    }
  }
  return kFn(ctx, args);
}

std::vector<KernelInfo> matmul_kernels();       // cadence_linear.cpp
std::vector<KernelInfo> elementwise_kernels();  // cadence_elementwise.cpp
std::vector<KernelInfo> norm_pool_kernels();    // cadence_norm_pool.cpp
std::vector<KernelInfo> select_kernels();       // cadence_select.cpp
std::vector<KernelInfo> softmax_kernels();      // cadence_softmax.cpp
std::vector<KernelInfo> conv_kernels();         // cadence_conv.cpp
std::vector<KernelInfo> float_kernels();        // cadence_float.cpp
std::vector<KernelInfo> float_conv_kernels();   // cadence_float_conv.cpp
std::vector<KernelInfo> w8a32_kernels();        // cadence_w8a32.cpp
std::vector<KernelInfo> roi_align_kernels();    // cadence_roi_align.cpp

}  // namespace etkit::rt::kernels::cadence
