// Dim reorderings: permute_copy, transpose_copy, t_copy. The input view's
// sizes and strides are reordered; the copy then writes out's layout.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

Status copy_reordered(KernelContext& ctx, const View& view, Tensor& self, Tensor& out) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, view.sizes));
  return copy_view(ctx, View::of(out), view);
}

// (self, dims, out, ret): out dim i is self dim dims[i].
Status permute_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dims"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (dims.size() != self->dim()) {
    return ctx.fail("dims " + list_string(dims) + " has " + std::to_string(dims.size()) + " entries for a tensor of rank " +
                    std::to_string(self->dim()));
  }
  const View view = View::of(*self);
  View permuted = view;
  bool seen[kMaxRank] = {};
  // Whether the dims of size > 1 keep their order: then the permutation only
  // moves size-1 dims, and a contiguous out holds a contiguous self's bytes
  // as they are.
  bool in_order = true;
  size_t last = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, dims[i], self->dim()));
    if (seen[d]) return ctx.fail("dims " + list_string(dims) + " repeats dim " + std::to_string(d));
    seen[d] = true;
    permuted.sizes[i] = view.sizes[d];
    permuted.strides[i] = view.strides[d];
    if (view.sizes[d] != 1) {
      in_order = in_order && d >= last;
      last = d;
    }
  }
  if (in_order && self->dtype() == out->dtype() && self->is_contiguous() && out->is_contiguous()) {
    ETKIT_TRY(resize_out(ctx, *out, permuted.sizes));
    if (out->data() != self->data() && out->nbytes() > 0) std::memmove(out->data(), self->data(), out->nbytes());
    return {};
  }
  return copy_reordered(ctx, permuted, *self, *out);
}

Status transpose(KernelContext& ctx, Tensor& self, int64_t dim0, int64_t dim1, Tensor& out) {
  View view = View::of(self);
  ETKIT_ASSIGN_OR_RETURN(size_t d0, dim_arg(ctx, dim0, self.dim(), "dim0"));
  ETKIT_ASSIGN_OR_RETURN(size_t d1, dim_arg(ctx, dim1, self.dim(), "dim1"));
  if (self.dim() > 0) {
    std::swap(view.sizes[d0], view.sizes[d1]);
    std::swap(view.strides[d0], view.strides[d1]);
  }
  return copy_reordered(ctx, view, self, out);
}

// (self, dim0, dim1, out, ret)
Status transpose_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim0, int_arg(ctx, *args[1], "dim0"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim1, int_arg(ctx, *args[2], "dim1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return transpose(ctx, *self, dim0, dim1, *out);
}

// (self, out, ret): a transpose of a rank <= 2 tensor (rank 0 and 1 copy).
Status t_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  if (self->dim() > 2) return ctx.fail("t expects a tensor of at most 2 dims, got " + self->shape_string());
  if (self->dim() < 2) return copy_reordered(ctx, View::of(*self), *self, *out);
  return transpose(ctx, *self, 0, 1, *out);
}

}  // namespace

void add_permute_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::permute_copy.out", permute_copy_out, 4, {2}});
  table.push_back({"aten::transpose_copy.int_out", transpose_copy_out, 5, {3}});
  table.push_back({"aten::t_copy.out", t_copy_out, 3, {1}});
}

}  // namespace etkit::rt::kernels
