// aten::rsub.Scalar_out: out = other - alpha * self for a Scalar other.
// The result dtype is self's promoted with `other` and must be out's
// (op_rsub.cpp); alpha may not be a bool, nor a float for integer results.
// Integer arithmetic wraps (computed unsigned), BOOL results are refused.
#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
T reverse_subtract(T self, T other, T alpha) {
  if constexpr (std::is_integral_v<T>) {
    return wrapping_sub(other, wrapping_mul(alpha, self));
  } else {
    return other - alpha * self;
  }
}

// (self, Scalar other, Scalar alpha, out, ret)
Status rsub_scalar_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* alpha, scalar_arg(ctx, *args[2], "alpha"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (alpha->tag == Tag::kBool) return ctx.fail("alpha must not be a bool");
  const ScalarType common = promote_with_scalar(self->dtype(), *other);
  if (common == ScalarType::kBool) return ctx.fail("rsub of BOOL values is not supported");
  if (common != out->dtype()) {
    return ctx.fail("result type " + dtype_name(common) + " differs from out dtype " + dtype_name(out->dtype()));
  }
  if (!is_floating(common) && alpha->tag == Tag::kDouble) return ctx.fail("alpha must be an integer for integral inputs");
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  const ScalarTensor o(*other), al(*alpha);
  return dispatch_compute(ctx, common, [&](auto tag) {
    using CT = decltype(tag);
    if constexpr (!std::is_same_v<CT, bool>) {
      const CT other_value = Reader<CT>(o.tensor)(0), alpha_value = Reader<CT>(al.tensor)(0);
      const Reader<CT> read(*self);
      const Writer<CT> write(*out);
      for_each_element(*out, *self, [&](int64_t i_out, int64_t i_in) {
        write(i_out, reverse_subtract(read(i_in), other_value, alpha_value));
      });
    }
  });
}

}  // namespace

void add_rsub_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::rsub.Scalar_out", rsub_scalar_out, 5, {3}});
}

}  // namespace etkit::rt::kernels::math
