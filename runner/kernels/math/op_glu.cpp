// aten::glu.out: splits self in two halves a, b along `dim` and writes
// a * sigmoid(b). Floating self and out; computed in double when either is
// double, else float.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// (self, int dim, out, ret)
Status glu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (self->dim() == 0) return ctx.fail("self must have at least one dimension");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  ETKIT_TRY(require_floating(ctx, *self, "self"));
  ETKIT_TRY(require_floating(ctx, *out, "out"));
  const int64_t size = self->size(dim);
  if (size % 2 != 0) {
    return ctx.fail("dim " + std::to_string(dim) + " of size " + std::to_string(size) + " cannot be halved");
  }
  Shape shape = shape_of(self->sizes());
  shape[dim] = size / 2;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const StrideTable<2> strides = {strides_of(*out), strides_of(*self)};
  const int64_t second = (size / 2) * self->strides()[dim];  // offset of b from a
  auto run = [&](auto tag) {
    using CT = decltype(tag);
    const Reader<CT> read(*self);
    const Writer<CT> write(*out);
    strided_loop(shape, strides, [&](const std::array<int64_t, 2>& off) {
      const CT a = read(off[1]);
      const CT b = read(off[1] + second);
      write(off[0], a / (CT(1) + std::exp(-b)));
    });
  };
  if (self->dtype() == ScalarType::kDouble || out->dtype() == ScalarType::kDouble) run(double{});
  else run(float{});
  return {};
}

}  // namespace

void add_glu_kernels(std::vector<KernelInfo>& table) { table.push_back({"aten::glu.out", glu_out, 4, {2}}); }

}  // namespace etkit::rt::kernels::math
