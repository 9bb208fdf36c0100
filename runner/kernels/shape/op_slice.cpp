// Windows along one dim: select_copy (one index, the dim goes), slice_copy
// (Python slicing with clamped bounds and a positive step), narrow_copy;
// and their inverses select_scatter / slice_scatter (out = self with the
// window replaced by src), and slice_scatter in place (the Cadence flow's
// cadence::slice_scatter_, registered with the cadence kernels).
#include <algorithm>

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
  if (self->is_contiguous() && out->is_contiguous()) {
    // One run of the dims after `dim` per index of the dims before it,
    // without building views (which cost more than the copy of
    // stress_mlp's 256-float rows).
    ETKIT_TRY(check_same_dtype(ctx, *self, *out));
    Shape shape;
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < self->dim(); ++d) {
      if (d == dim) continue;
      shape.push_back(self->size(d));
      (d < dim ? outer : inner) *= self->size(d);
    }
    ETKIT_TRY(resize_out(ctx, *out, shape));
    const size_t run = size_t(inner) * self->element_size();
    const auto* src = static_cast<const uint8_t*>(self->data()) + size_t(index) * run;
    auto* dst = static_cast<uint8_t*>(out->data());
    for (int64_t o = 0; o < outer && run > 0; ++o) std::memmove(dst + size_t(o) * run, src + size_t(o * n) * run, run);
    return {};
  }
  return copy_window(ctx, View::of(*self).select(dim, index), *self, *out);
}

struct SliceSpec {
  size_t dim;
  int64_t start, length, step;
};

// The window of self that slice (dim, start?, end?, step) names: negative
// bounds count from the end; both are clamped to [0, size] (end to at
// least start), as Python's.
Result<SliceSpec> slice_spec(KernelContext& ctx, const Tensor& self, const EValue& dim_value_arg, const EValue& start_arg,
                             const EValue& end_arg, const EValue& step_arg) {
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, dim_value_arg, "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t step, int_arg(ctx, step_arg, "step"));
  if (self.dim() == 0) return ctx.fail("cannot slice a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self.dim()));
  if (step < 1) return ctx.fail("step must be positive, got " + std::to_string(step));
  const int64_t n = self.size(dim);
  int64_t start = 0, end = n;
  if (!start_arg.is_none()) {
    ETKIT_ASSIGN_OR_RETURN(start, int_arg(ctx, start_arg, "start"));
  }
  if (!end_arg.is_none()) {
    ETKIT_ASSIGN_OR_RETURN(end, int_arg(ctx, end_arg, "end"));
  }
  // Clamp before adding n so that no bound can overflow.
  start = std::clamp<int64_t>(start, -n, n);
  end = std::clamp<int64_t>(end, -n, n);
  if (start < 0) start += n;
  if (end < 0) end += n;
  end = std::max(end, start);
  const int64_t length = end > start ? (end - start - 1) / step + 1 : 0;
  return SliceSpec{dim, start, length, step};
}

View slice_of(const View& v, const SliceSpec& s) { return v.narrow(s.dim, s.start, s.length, s.step); }

// (self, dim, start?, end?, step, out, ret)
Status slice_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_ASSIGN_OR_RETURN(SliceSpec spec, slice_spec(ctx, *self, *args[1], *args[2], *args[3], *args[4]));
  return copy_window(ctx, slice_of(View::of(*self), spec), *self, *out);
}

// Scatters: out = self, then src (of the window's shape and self's dtype)
// is copied into the same window of out. `window_of` maps a view of self's
// shape (self's, then out's) to the window.
// src must fill `target`, a window of self: self's dtype, the window's shape.
Status check_scatter_source(KernelContext& ctx, const Tensor& self, const Tensor& src, const View& target) {
  if (src.dtype() != self.dtype()) {
    return ctx.fail("src has dtype " + dtype_name(src.dtype()) + ", expected " + dtype_name(self.dtype()));
  }
  const View from = View::of(src);
  if (from.rank() != target.rank() || !std::equal(from.sizes.begin(), from.sizes.end(), target.sizes.begin())) {
    return ctx.fail("src has shape " + src.shape_string() + " but the window has shape " + list_string(target.sizes));
  }
  return {};
}

template <typename WindowOf>
Status scatter_window(KernelContext& ctx, const Tensor& self, const Tensor& src, Tensor& out, WindowOf window_of) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(check_scatter_source(ctx, self, src, window_of(View::of(self))));
  ETKIT_TRY(resize_out(ctx, out, self.sizes()));
  const View whole = View::of(out);
  ETKIT_TRY(copy_view(ctx, whole, View::of(self)));
  return copy_view(ctx, window_of(whole), View::of(src));
}

// (self, src, dim, start?, end?, step, out, ret)
Status slice_scatter_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[1], "src"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(SliceSpec spec, slice_spec(ctx, *self, *args[2], *args[3], *args[4], *args[5]));
  return scatter_window(ctx, *self, *src, *out, [&](const View& v) { return slice_of(v, spec); });
}

}  // namespace

// (self, src, dim, start?, end?, step, ret): the window of self is
// overwritten with src in place, the rest left as it is; a return slot
// holding another tensor receives a copy.
Status slice_scatter_in_place(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[1], "src"));
  ETKIT_ASSIGN_OR_RETURN(SliceSpec spec, slice_spec(ctx, *self, *args[2], *args[3], *args[4], *args[5]));
  const View target = slice_of(View::of(*self), spec);
  ETKIT_TRY(check_scatter_source(ctx, *self, *src, target));
  ETKIT_TRY(copy_view(ctx, target, View::of(*src)));
  return copy_to_return_slot(ctx, *self, *args[6]);
}

namespace {

// (self, src, dim, index, out, ret): a negative index counts from the end.
Status select_scatter_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[1], "src"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t index, int_arg(ctx, *args[3], "index"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  if (self->dim() == 0) return ctx.fail("cannot select from a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t n = self->size(dim);
  if (!wrap_index(index, n)) {
    return ctx.fail("index " + std::to_string(index) + " out of range for size " + std::to_string(n));
  }
  return scatter_window(ctx, *self, *src, *out, [&](const View& v) { return v.select(dim, index); });
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
  table.push_back({"aten::slice_scatter.out", slice_scatter_out, 8, {6}});
  table.push_back({"aten::select_scatter.out", select_scatter_out, 6, {4}});
}

}  // namespace etkit::rt::kernels
