// Windows along one dim: select_copy (one index, the dim goes), slice_copy
// (Python slicing with clamped bounds and a positive step), narrow_copy.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

Status copy_window(KernelContext& ctx, const View& window, const Tensor& self, Tensor& out) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, window.sizes));
  return copy_view(ctx, View::of(out), window);
}

// (self, dim, index, out, ret): a negative index counts from the end.
Status select_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t index, int_arg(ctx, *args[2], "index"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (self->dim() == 0) return ctx.fail("cannot select from a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t n = self->size(dim);
  if (!wrap_index(index, n)) {
    return ctx.fail("index " + std::to_string(index) + " out of range for size " + std::to_string(n));
  }
  return copy_window(ctx, View::of(*self).select(dim, index), *self, *out);
}

// (self, dim, start?, end?, step, out, ret): negative bounds count from the
// end; both are clamped to [0, size] (end to at least start), as Python's.
Status slice_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t step, int_arg(ctx, *args[4], "step"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (self->dim() == 0) return ctx.fail("cannot slice a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  if (step < 1) return ctx.fail("step must be positive, got " + std::to_string(step));
  const int64_t n = self->size(dim);
  int64_t start = 0, end = n;
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(start, int_arg(ctx, *args[2], "start"));
  }
  if (!args[3]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(end, int_arg(ctx, *args[3], "end"));
  }
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  const int64_t length = (end - start + step - 1) / step;
  return copy_window(ctx, View::of(*self).narrow(dim, start, length, step), *self, *out);
}

// (self, dim, start, length, out, ret): start may be negative.
Status narrow_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t start, int_arg(ctx, *args[2], "start"));
  ETKIT_ASSIGN_OR_RETURN(int64_t length, int_arg(ctx, *args[3], "length"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  if (self->dim() == 0) return ctx.fail("cannot narrow a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t n = self->size(dim);
  if (start < -n || start > n) return ctx.fail("start " + std::to_string(start) + " out of range for size " + std::to_string(n));
  if (start < 0) start += n;
  if (length < 0 || start + length > n) {
    return ctx.fail("start " + std::to_string(start) + " + length " + std::to_string(length) + " exceeds size " +
                    std::to_string(n));
  }
  return copy_window(ctx, View::of(*self).narrow(dim, start, length), *self, *out);
}

}  // namespace

void add_slice_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::select_copy.int_out", select_copy_out, 5, {3}});
  table.push_back({"aten::slice_copy.Tensor_out", slice_copy_out, 7, {5}});
  table.push_back({"aten::narrow_copy.out", narrow_copy_out, 6, {4}});
}

}  // namespace etkit::rt::kernels
