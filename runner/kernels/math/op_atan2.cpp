// aten::atan2.out: out = atan2(self, other) element-wise with broadcasting.
// Integer and BOOL operands compute in float (PyTorch's default dtype);
// out must be floating, and double is used when out or an operand is
// double. Signs of zeros and NaN behave as std::atan2.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// (self, other, out, ret)
Status atan2_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(require_floating(ctx, *out, "out"));
  auto common = promote_types(a->dtype(), b->dtype());
  if (!common) return ctx.fail(common.error().message);
  ScalarType compute = is_floating(*common) ? *common : ScalarType::kFloat;
  if (out->dtype() == ScalarType::kDouble) compute = ScalarType::kDouble;
  ETKIT_TRY(prepare_binary(ctx, *a, *b, *out, compute));
  return binary_loop(ctx, *a, *b, *out, compute, [](auto y, auto x) {
    using T = decltype(y);
    if constexpr (std::is_floating_point_v<T>) return std::atan2(y, x);
    else return y;  // not reached: compute is floating
  });
}

}  // namespace

void add_atan2_kernels(std::vector<KernelInfo>& table) { table.push_back({"aten::atan2.out", atan2_out, 4, {2}}); }

}  // namespace etkit::rt::kernels::math
