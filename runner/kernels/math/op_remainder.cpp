// aten::remainder (Python's %, the sign of the divisor) and aten::fmod (C's
// fmod, the sign of the dividend), each with a Tensor or Scalar divisor,
// broadcasting and promotion. An integer zero divisor fails; a floating one
// gives NaN.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
T remainder_of(T a, T b, bool floored) {
  if constexpr (std::is_floating_point_v<T>) {
    T m = std::fmod(a, b);
    if (floored && m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;  // INT_MIN % -1 overflows
    }
    T m = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (floored && m != 0 && ((b < 0) != (m < 0))) m = static_cast<T>(m + b);
    }
    return m;
  }
}

Status run(KernelContext& ctx, bool floored, const Tensor& a, const Tensor& b, ScalarType common, Tensor& out) {
  if (common == ScalarType::kBool) {
    return ctx.fail(std::string(floored ? "remainder" : "fmod") + " of BOOL values is not supported");
  }
  ETKIT_TRY(prepare_binary(ctx, a, b, out, common));
  bool divided_by_zero = false;
  ETKIT_TRY(binary_loop(ctx, a, b, out, common, [&](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return x;  // rejected above
    } else {
      if constexpr (!std::is_floating_point_v<T>) {
        if (y == 0) {
          divided_by_zero = true;
          return T(0);
        }
      }
      return remainder_of(x, y, floored);
    }
  }));
  if (divided_by_zero) return ctx.fail("integer division by zero");
  return {};
}

// (self, other, out, ret)
KernelFn tensor_variant(bool floored) {
  return [floored](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    return run(ctx, floored, *a, *b, *common, *out);
  };
}

// (self, Scalar other, out, ret)
KernelFn scalar_variant(bool floored) {
  return [floored](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    const ScalarTensor b(*other);
    return run(ctx, floored, *a, b.tensor, promote_with_scalar(a->dtype(), *other), *out);
  };
}

}  // namespace

void add_remainder_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::remainder.Tensor_out", tensor_variant(true), 4, {2}});
  table.push_back({"aten::remainder.Scalar_out", scalar_variant(true), 4, {2}});
  table.push_back({"aten::fmod.Tensor_out", tensor_variant(false), 4, {2}});
  table.push_back({"aten::fmod.Scalar_out", scalar_variant(false), 4, {2}});
}

}  // namespace etkit::rt::kernels::math
