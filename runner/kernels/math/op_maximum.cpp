// aten::maximum.out and aten::minimum.out: element-wise extremes of two
// broadcast tensors in their promoted dtype; NaN wins, as in PyTorch.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// (self, other, out, ret)
KernelFn extreme(bool max) {
  return [max](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    ETKIT_TRY(prepare_binary(ctx, *a, *b, *out, *common));
    return binary_loop(ctx, *a, *b, *out, *common, [max](auto x, auto y) {
      if constexpr (std::is_floating_point_v<decltype(x)>) {
        if (std::isnan(x)) return x;
        if (std::isnan(y)) return y;
      }
      return max ? (x < y ? y : x) : (y < x ? y : x);
    });
  };
}

}  // namespace

void add_maximum_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::maximum.out", extreme(true), 4, {2}});
  table.push_back({"aten::minimum.out", extreme(false), 4, {2}});
}

}  // namespace etkit::rt::kernels::math
