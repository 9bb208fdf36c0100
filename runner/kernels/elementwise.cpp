#include "runner/kernels/elementwise.h"

namespace etkit::rt::kernels {

Status prepare_binary(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out, ScalarType compute) {
  ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast_shape(ctx, a.sizes(), b.sizes()));
  ETKIT_TRY(resize_out(ctx, out, shape));
  if (!can_cast(compute, out.dtype())) {
    return ctx.fail("result type " + std::string(scalar_type_name(int(compute))) + " cannot be stored in out of type " +
                    std::string(scalar_type_name(int(out.dtype()))));
  }
  return {};
}

}  // namespace etkit::rt::kernels
