// Dim reorderings: permute_copy, transpose_copy, t_copy. The input view's
// sizes and strides are reordered; the copy then writes out's layout.
#include <algorithm>

#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

Status copy_reordered(KernelContext& ctx, const View& view, Tensor& self, Tensor& out) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, view.sizes));
  return copy_view(ctx, View::of(out), view);
}

// (self, dims, out, ret): out dim i is self dim dims[i]. No views: the
// permuted sizes and self's strides go straight to copy_elements, which
// drops size-1 dims and merges the rest (a permutation that keeps the
// order of the dims of size > 1 between dense tensors is one memmove).
Status permute_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dims"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const size_t rank = self->dim();
  if (dims.size() != rank) {
    return ctx.fail("dims " + list_string(dims) + " has " + std::to_string(dims.size()) + " entries for a tensor of rank " +
                    std::to_string(rank));
  }
  int64_t sizes[kMaxRank], strides[kMaxRank];
  uint32_t seen = 0;  // a bit per dim of self (kMaxRank <= 32), kept in a register
  static_assert(kMaxRank <= 32);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t r = rank == 0 ? 1 : int64_t(rank);
    int64_t d = dims[i];
    if (d < -r || d >= r) ETKIT_TRY(dim_arg(ctx, d, rank));  // the message
    if (d < 0) d += r;
    if (seen >> d & 1) return ctx.fail("dims " + list_string(dims) + " repeats dim " + std::to_string(d));
    seen |= uint32_t(1) << d;
    sizes[i] = self->size(size_t(d));
    strides[i] = self->strides()[size_t(d)];
  }
  if (self->dtype() != out->dtype()) ETKIT_TRY(check_same_dtype(ctx, *self, *out));  // the message
  // Out usually has the permuted sizes already (a planned tensor, every
  // call): then there is nothing to resize.
  const auto out_sizes = out->sizes();
  if (!std::equal(sizes, sizes + rank, out_sizes.begin(), out_sizes.end())) {
    ETKIT_TRY(resize_out(ctx, *out, std::span<const int64_t>(sizes, rank)));
  }
  if (copy_elements(self->element_size(), rank, sizes, static_cast<uint8_t*>(out->data()), out->strides().data(),
                    static_cast<const uint8_t*>(self->data()), strides)) {
    return {};
  }
  View permuted = View::of(*self);
  for (size_t i = 0; i < rank; ++i) {
    permuted.sizes[i] = sizes[i];
    permuted.strides[i] = strides[i];
  }
  return copy_view(ctx, View::of(*out), permuted);
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
