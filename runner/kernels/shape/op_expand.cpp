// Broadcast copies: expand_copy (a view with stride 0 on the expanded dims)
// and repeat (the input tiled along every dim).
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// (self, size, implicit, out, ret): -1 keeps a dim; new leading dims allowed.
Status expand_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(bool implicit, bool_arg(ctx, *args[2], "implicit"));
  (void)implicit;  // only matters to autograd
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (size.size() > kMaxRank) return ctx.fail("rank " + std::to_string(size.size()) + " exceeds 16");
  if (size.size() < self->dim()) {
    return ctx.fail("size " + list_string(size) + " has fewer dims than self " + self->shape_string());
  }
  const View view = View::of(*self);
  View expanded = view;
  expanded.sizes = Shape();
  expanded.strides = Shape();
  const size_t lead = size.size() - self->dim();
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      if (size[i] < 0) {
        return ctx.fail("size " + std::to_string(size[i]) + " is not allowed for new leading dimension " + std::to_string(i));
      }
      expanded.sizes.push_back(size[i]);
      expanded.strides.push_back(0);
      continue;
    }
    const int64_t have = view.sizes[i - lead];
    if (size[i] < -1) return ctx.fail("invalid size " + std::to_string(size[i]) + " for dimension " + std::to_string(i));
    const int64_t want = size[i] == -1 ? have : size[i];
    if (want != have && have != 1) {
      return ctx.fail("cannot expand dimension " + std::to_string(i) + " of size " + std::to_string(have) + " to " +
                      std::to_string(want));
    }
    expanded.sizes.push_back(want);
    expanded.strides.push_back(want == have ? view.strides[i - lead] : 0);
  }
  ETKIT_TRY(resize_out(ctx, *out, expanded.sizes));
  return copy_view(ctx, View::of(*out), expanded);
}

// (self, repeats, out, ret): out dim d = self dim d (1 for new leading dims)
// times repeats[d]; the input is copied once per tile.
Status repeat_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto repeats, ctx.int_list(*args[1], "repeats"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (repeats.size() > kMaxRank) return ctx.fail("rank " + std::to_string(repeats.size()) + " exceeds 16");
  if (repeats.size() < self->dim()) {
    return ctx.fail("repeats " + list_string(repeats) + " has fewer dims than self " + self->shape_string());
  }
  View src = View::of(*self);
  const size_t lead = repeats.size() - self->dim();
  for (size_t i = 0; i < lead; ++i) src = src.with_broadcast_dim(0, 1);
  Shape shape;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) return ctx.fail("repeats " + list_string(repeats) + " must be non-negative");
    shape.push_back(src.sizes[d] * repeats[d]);
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};
  const View dst = View::of(*out);
  const size_t rank = repeats.size();
  int64_t tile[kMaxRank] = {};
  for (;;) {
    View window = dst;
    for (size_t d = 0; d < rank; ++d) window = window.narrow(d, tile[d] * src.sizes[d], src.sizes[d]);
    ETKIT_TRY(copy_view(ctx, window, src));
    size_t d = rank;
    for (;;) {
      if (d == 0) return {};
      --d;
      if (++tile[d] < repeats[d]) break;
      tile[d] = 0;
    }
  }
}

}  // namespace

void add_expand_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::expand_copy.out", expand_copy_out, 5, {3}});
  table.push_back({"aten::repeat.out", repeat_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
