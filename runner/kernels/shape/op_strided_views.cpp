// Copies of strided views that are not plain windows: diagonal_copy (a
// diagonal of two dims becomes the last dim), unfold_copy (sliding windows
// along one dim become a new last dim) and as_strided_copy (explicit sizes
// and strides over self's memory). Each builds a View and copies it.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

Status copy_strided(KernelContext& ctx, const View& view, const Tensor& self, Tensor& out) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, view.sizes));
  return copy_view(ctx, View::of(out), view);
}

// (self, int offset, int dim1, int dim2, out, ret): the elements
// self[..., i, ..., i + offset, ...]; offset > 0 is above the main
// diagonal, < 0 below; an offset past the edge gives an empty diagonal.
Status diagonal_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t offset, int_arg(ctx, *args[1], "offset"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim1_value, int_arg(ctx, *args[2], "dim1"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim2_value, int_arg(ctx, *args[3], "dim2"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  if (self->dim() < 2) return ctx.fail("self must have at least 2 dims, got " + self->shape_string());
  ETKIT_ASSIGN_OR_RETURN(size_t dim1, dim_arg(ctx, dim1_value, self->dim(), "dim1"));
  ETKIT_ASSIGN_OR_RETURN(size_t dim2, dim_arg(ctx, dim2_value, self->dim(), "dim2"));
  if (dim1 == dim2) return ctx.fail("dim1 and dim2 are both " + std::to_string(dim1));
  const View all = View::of(*self);
  const int64_t rows = all.sizes[dim1], cols = all.sizes[dim2];
  // Clamp the offset first so that the length below cannot overflow.
  const int64_t clamped = std::clamp<int64_t>(offset, -rows, cols);
  const int64_t length = clamped >= 0 ? std::max<int64_t>(0, std::min(rows, cols - clamped))
                                      : std::max<int64_t>(0, std::min(rows + clamped, cols));
  View diag = all;
  diag.sizes = Shape();
  diag.strides = Shape();
  for (size_t d = 0; d < all.rank(); ++d) {
    if (d == dim1 || d == dim2) continue;
    diag.sizes.push_back(all.sizes[d]);
    diag.strides.push_back(all.strides[d]);
  }
  diag.sizes.push_back(length);
  diag.strides.push_back(all.strides[dim1] + all.strides[dim2]);
  if (length > 0) {
    diag.offset += clamped >= 0 ? clamped * all.strides[dim2] : -clamped * all.strides[dim1];
  }
  return copy_strided(ctx, diag, *self, *out);
}

// (self, int dimension, int size, int step, out, ret): windows of `size`
// elements every `step` along `dimension`; out has that dim replaced by
// the window count and a new last dim of `size`.
Status unfold_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dimension"));
  ETKIT_ASSIGN_OR_RETURN(int64_t size, int_arg(ctx, *args[2], "size"));
  ETKIT_ASSIGN_OR_RETURN(int64_t step, int_arg(ctx, *args[3], "step"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim(), "dimension"));
  if (self->dim() >= kMaxRank) return ctx.fail("self of rank 16 would make out exceed rank 16");
  View v = View::of(*self);
  if (v.rank() == 0) v = v.with_broadcast_dim(0, 1);  // a 0-dim self unfolds as [1]
  const int64_t n = v.sizes[dim];
  if (size < 0 || size > n) {
    return ctx.fail("size " + std::to_string(size) + " out of range for dimension " + std::to_string(dim) + " of size " +
                    std::to_string(n));
  }
  if (step <= 0) return ctx.fail("step must be positive, got " + std::to_string(step));
  const int64_t stride = v.strides[dim];
  v.sizes[dim] = (n - size) / step + 1;
  v.strides[dim] = stride * step;
  v.sizes.push_back(size);
  v.strides.push_back(stride);
  if (self->dim() == 0) {  // ATen gives [size] for a 0-dim self
    v.sizes = Shape();
    v.strides = Shape();
    v.sizes.push_back(size);
    v.strides.push_back(0);
  }
  return copy_strided(ctx, v, *self, *out);
}

// (self, SymInt[] size, SymInt[] stride, SymInt? storage_offset, out, ret):
// strides count elements of self's memory (its storage, in memory order),
// and every element the view reaches must lie inside it.
Status as_strided_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> sizes, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> strides, ctx.int_list(*args[2], "stride"));
  int64_t storage_offset = 0;
  if (!args[3]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(storage_offset, int_arg(ctx, *args[3], "storage_offset"));
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  if (sizes.size() != strides.size()) {
    return ctx.fail("size has " + std::to_string(sizes.size()) + " dims but stride has " + std::to_string(strides.size()));
  }
  if (sizes.size() > kMaxRank) return ctx.fail("rank " + std::to_string(sizes.size()) + " exceeds 16");
  if (storage_offset < 0) return ctx.fail("storage_offset must be non-negative, got " + std::to_string(storage_offset));
  View v = View::of(*self);
  v.sizes = Shape();
  v.strides = Shape();
  v.offset = storage_offset;
  bool empty = false;
  int64_t last = storage_offset;  // the furthest element reached (checked arithmetic)
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) return ctx.fail("size " + list_string(sizes) + " has a negative entry");
    if (strides[d] < 0) return ctx.fail("stride " + list_string(strides) + " has a negative entry");
    if (sizes[d] == 0) empty = true;
    int64_t reach = 0;
    if (sizes[d] > 0 && (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
                         __builtin_add_overflow(last, reach, &last))) {
      return ctx.fail("size " + list_string(sizes) + " with stride " + list_string(strides) + " overflows");
    }
    v.sizes.push_back(sizes[d]);
    v.strides.push_back(strides[d]);
  }
  if (!empty && last >= self->numel()) {
    return ctx.fail("size " + list_string(sizes) + ", stride " + list_string(strides) + " and storage_offset " +
                    std::to_string(storage_offset) + " reach element " + std::to_string(last) + " of a storage of " +
                    std::to_string(self->numel()));
  }
  if (empty) v.offset = 0;
  return copy_strided(ctx, v, *self, *out);
}

}  // namespace

void add_strided_view_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::diagonal_copy.out", diagonal_copy_out, 6, {4}});
  table.push_back({"aten::unfold_copy.out", unfold_copy_out, 6, {4}});
  table.push_back({"aten::as_strided_copy.out", as_strided_copy_out, 6, {4}});
}

}  // namespace etkit::rt::kernels
