// aten::where.self_out: out = condition ? self : other, the three inputs
// broadcast together. condition is BOOL (or BYTE); the values are promoted
// to a common dtype that out must be able to hold.
#include <algorithm>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// (condition, self, other, out, ret)
Status where_self_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * cond, tensor_arg(ctx, *args[0], "condition"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[1], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[2], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (cond->dtype() != ScalarType::kBool && cond->dtype() != ScalarType::kByte) {
    return ctx.fail("condition must be BOOL or BYTE, not " + dtype_name(cond->dtype()));
  }
  auto common = promote_types(a->dtype(), b->dtype());
  if (!common) return ctx.fail(common.error().message);
  ETKIT_TRY(check_can_store(ctx, *common, *out));
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape3(ctx, *cond, *a, *b));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  // A contiguous out whose operands are each either contiguous in out's
  // shape or a single element (module_model's where(BOOL[1], FLOAT[],
  // FLOAT[1])): one flat loop, without the 512-byte stride table.
  const auto flat_step = [&](const Tensor& t) -> int64_t {
    if (t.numel() == 1) return 0;
    const auto sizes = t.sizes();
    const bool same = t.is_contiguous() && std::equal(sizes.begin(), sizes.end(), shape.begin(), shape.end());
    return same ? 1 : -1;
  };
  const int64_t sc = flat_step(*cond), sa = flat_step(*a), sb = flat_step(*b);
  if (out->is_contiguous() && sc >= 0 && sa >= 0 && sb >= 0) {
    const auto* flags = static_cast<const uint8_t*>(cond->data());
    return dispatch_compute(ctx, *common, [&](auto tag) {
      using CT = decltype(tag);
      const Reader<CT> ra(*a), rb(*b);
      const Writer<CT> write(*out);
      for (int64_t i = 0, n = out->numel(); i < n; ++i) write(i, flags[i * sc] ? ra(i * sa) : rb(i * sb));
    });
  }
  const StrideTable<4> strides = {strides_of(*out), broadcast_strides(*cond, shape), broadcast_strides(*a, shape),
                                  broadcast_strides(*b, shape)};
  const auto* c = static_cast<const uint8_t*>(cond->data());
  return dispatch_compute(ctx, *common, [&](auto tag) {
    using CT = decltype(tag);
    const Reader<CT> ra(*a), rb(*b);
    const Writer<CT> write(*out);
    strided_loop(shape, strides, [&](const std::array<int64_t, 4>& off) {
      write(off[0], c[off[1]] ? ra(off[2]) : rb(off[3]));
    });
  });
}

}  // namespace

void add_where_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::where.self_out", where_self_out, 5, {3}});
}

}  // namespace etkit::rt::kernels::math
