// aten::pow: Tensor_Tensor_out, Tensor_Scalar_out and Scalar_out, with
// broadcasting and promotion. Floating results use std::pow in the
// computation type; integer results are exact (by squaring, wrapping on
// overflow), and a negative integer exponent gives 1, -1 or 0 as
// PyTorch's integer pow does (the Tensor_Scalar form refuses it, as
// PyTorch does). BOOL operands alone are not supported.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 == 0) ? T(1) : T(-1);
      return 0;
    }
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base), e = static_cast<uint64_t>(exponent);
  while (e != 0) {  // mod 2^64 first, then mod 2^bits: the same as wrapping in T
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<T>(result);
}

Status run_pow(KernelContext& ctx, const Tensor& a, const Tensor& b, ScalarType common, Tensor& out) {
  if (common == ScalarType::kBool) return ctx.fail("pow of BOOL values is not supported");
  ETKIT_TRY(prepare_binary(ctx, a, b, out, common));
  return binary_loop(ctx, a, b, out, common, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) return std::pow(x, y);
    else if constexpr (std::is_same_v<T, bool>) return x;  // rejected above
    else return integer_pow(x, y);
  });
}

// (self, exponent, out, ret)
Status pow_tensor_tensor(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "exponent"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  auto common = promote_types(a->dtype(), b->dtype());
  if (!common) return ctx.fail(common.error().message);
  return run_pow(ctx, *a, *b, *common, *out);
}

// (self, Scalar exponent, out, ret)
Status pow_tensor_scalar(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* exponent, scalar_arg(ctx, *args[1], "exponent"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const ScalarType common = promote_with_scalar(a->dtype(), *exponent);
  if (is_integral(common, false) && exponent->tag == Tag::kInt && exponent->i < 0) {
    return ctx.fail("integers to negative integer powers are not allowed");
  }
  const ScalarTensor b(*exponent);
  return run_pow(ctx, *a, b.tensor, common, *out);
}

// (Scalar self, exponent, out, ret)
Status pow_scalar(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(const EValue* base, scalar_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "exponent"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const ScalarTensor a(*base);
  return run_pow(ctx, a.tensor, *b, promote_with_scalar(b->dtype(), *base), *out);
}

}  // namespace

void add_pow_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::pow.Tensor_Tensor_out", pow_tensor_tensor, 4, {2}});
  table.push_back({"aten::pow.Tensor_Scalar_out", pow_tensor_scalar, 4, {2}});
  table.push_back({"aten::pow.Scalar_out", pow_scalar, 4, {2}});
}

}  // namespace etkit::rt::kernels::math
