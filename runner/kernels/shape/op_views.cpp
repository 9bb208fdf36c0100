// View-like copies: view_copy, permute_copy, transpose_copy, t_copy,
// expand_copy, clone, alias_copy, the dim-order ops, _to_copy,
// squeeze/unsqueeze, select_copy, slice_copy. Each builds a strided view of
// its input and copies it into out (strided_copy.h).
#include "runner/kernels/shape/shape_ops.h"
#include "runner/kernels/shape/strided_copy.h"

namespace etkit::rt::kernels {
namespace {

Status copy_with_shape(KernelContext& ctx, const StridedView& view, Tensor& out) {
  ETKIT_TRY(resize_out(ctx, out, view.sizes));
  return copy_into(ctx, view, out);
}

// (self, size, out, ret): at most one -1, numel preserved.
Status view_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  Shape shape;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer >= 0) return ctx.fail("only one dimension can be -1");
      infer = int64_t(i);
    } else if (size[i] < 0) {
      return ctx.fail("invalid size " + std::to_string(size[i]));
    } else {
      known *= size[i];
    }
    shape.push_back(size[i]);
  }
  if (infer >= 0) {
    if (known == 0 || a->numel() % known != 0) return ctx.fail("cannot infer -1 for " + std::to_string(a->numel()) + " elements");
    shape[size_t(infer)] = a->numel() / known;
  } else if (known != a->numel()) {
    return ctx.fail("shape of " + std::to_string(known) + " elements does not fit " + std::to_string(a->numel()));
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  return copy_into(ctx, StridedView::of(*a), *out);
}

Status permute_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dims"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (dims.size() != a->dim()) return ctx.fail("dims has " + std::to_string(dims.size()) + " entries for rank " + std::to_string(a->dim()));
  StridedView view = StridedView::of(*a), permuted = view;
  bool seen[kMaxRank] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, dims[i], a->dim()));
    if (seen[d]) return ctx.fail("dims is not a permutation");
    seen[d] = true;
    permuted.sizes[i] = view.sizes[d];
    permuted.strides[i] = view.strides[d];
  }
  return copy_with_shape(ctx, permuted, *out);
}

Status transpose(KernelContext& ctx, const Tensor& a, int64_t d0v, int64_t d1v, Tensor& out) {
  StridedView view = StridedView::of(a);
  if (a.dim() > 0) {
    ETKIT_ASSIGN_OR_RETURN(size_t d0, dim_arg(ctx, d0v, a.dim(), "dim0"));
    ETKIT_ASSIGN_OR_RETURN(size_t d1, dim_arg(ctx, d1v, a.dim(), "dim1"));
    std::swap(view.sizes[d0], view.sizes[d1]);
    std::swap(view.strides[d0], view.strides[d1]);
  }
  return copy_with_shape(ctx, view, out);
}

Status transpose_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t d0, int_arg(ctx, *args[1], "dim0"));
  ETKIT_ASSIGN_OR_RETURN(int64_t d1, int_arg(ctx, *args[2], "dim1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return transpose(ctx, *a, d0, d1, *out);
}

Status t_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  if (a->dim() > 2) return ctx.fail("t expects a tensor of at most 2 dims, got " + a->shape_string());
  if (a->dim() < 2) return copy_with_shape(ctx, StridedView::of(*a), *out);
  return transpose(ctx, *a, 0, 1, *out);
}

// (self, size, implicit, out, ret): -1 keeps a dim; new leading dims allowed.
Status expand_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (size.size() < a->dim()) return ctx.fail("cannot expand " + a->shape_string() + " to fewer dimensions");
  StridedView view = StridedView::of(*a), expanded;
  expanded.data = view.data;
  expanded.dtype = view.dtype;
  const size_t lead = size.size() - a->dim();
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      if (size[i] < 0) return ctx.fail("-1 is not allowed for a new leading dimension");
      expanded.sizes.push_back(size[i]);
      expanded.strides.push_back(0);
      continue;
    }
    const int64_t have = view.sizes[i - lead];
    const int64_t want = size[i] == -1 ? have : size[i];
    if (want != have && have != 1) {
      return ctx.fail("cannot expand dimension " + std::to_string(i) + " of size " + std::to_string(have) + " to " + std::to_string(want));
    }
    expanded.sizes.push_back(want);
    expanded.strides.push_back(want == have ? view.strides[i - lead] : 0);
  }
  return copy_with_shape(ctx, expanded, *out);
}

// clone, alias_copy and the dim-order copies: same shape, out's own dim
// order and dtype (a dtype change only where the op converts).
KernelFn same_shape_copy(size_t out_slot, bool converts, std::string_view check_dim_order_slot = {}) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[out_slot], "out"));
    if (!converts && a->dtype() != out->dtype()) return ctx.fail("self and out must have one dtype");
    if (!check_dim_order_slot.empty() && !args[2]->is_none()) {
      // The requested dim order must be out's (the emitter plans out that way).
      ETKIT_ASSIGN_OR_RETURN(auto order, ctx.int_list(*args[2], "dim_order"));
      const auto od = out->dim_order();
      if (order.size() != od.size() || !std::equal(order.begin(), order.end(), od.begin(), [](int64_t x, uint8_t y) { return x == y; })) {
        return ctx.fail("dim_order does not match out's dim order");
      }
    }
    return copy_with_shape(ctx, StridedView::of(*a), *out);
  };
}

Status unsqueeze_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, a->dim() + 1));
  Shape shape;
  for (size_t d = 0; d <= a->dim(); ++d) {
    if (d == dim) shape.push_back(1);
    if (d < a->dim()) shape.push_back(a->size(d));
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  return copy_into(ctx, StridedView::of(*a), *out);
}

// squeeze_copy.dims_out (IntList) and .dim_out (Int): only size-1 dims go.
KernelFn squeeze(bool list) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    bool drop[kMaxRank] = {};
    auto mark = [&](int64_t dv) -> Status {
      if (a->dim() == 0) return {};
      ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, dv, a->dim()));
      if (a->size(d) == 1) drop[d] = true;
      return {};
    };
    if (list) {
      ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dim"));
      for (int64_t d : dims) ETKIT_TRY(mark(d));
    } else {
      ETKIT_ASSIGN_OR_RETURN(int64_t d, int_arg(ctx, *args[1], "dim"));
      ETKIT_TRY(mark(d));
    }
    Shape shape;
    for (size_t d = 0; d < a->dim(); ++d) {
      if (!drop[d]) shape.push_back(a->size(d));
    }
    ETKIT_TRY(resize_out(ctx, *out, shape));
    return copy_into(ctx, StridedView::of(*a), *out);
  };
}

// (self, dim, index, out, ret)
Status select_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t index, int_arg(ctx, *args[2], "index"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (a->dim() == 0) return ctx.fail("cannot select from a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, a->dim()));
  const int64_t n = a->size(dim);
  if (index < -n || index >= n) return ctx.fail("index " + std::to_string(index) + " out of range for size " + std::to_string(n));
  if (index < 0) index += n;
  StridedView view = StridedView::of(*a), selected;
  selected.data = view.data;
  selected.dtype = view.dtype;
  selected.offset = index * view.strides[dim];
  for (size_t d = 0; d < a->dim(); ++d) {
    if (d == dim) continue;
    selected.sizes.push_back(view.sizes[d]);
    selected.strides.push_back(view.strides[d]);
  }
  return copy_with_shape(ctx, selected, *out);
}

// (self, dim, start?, end?, step, out, ret): Python slice semantics, clamped.
Status slice_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(int64_t step, int_arg(ctx, *args[4], "step"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (step < 1) return ctx.fail("step must be positive");
  if (a->dim() == 0) return ctx.fail("cannot slice a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, a->dim()));
  const int64_t n = a->size(dim);
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
  StridedView view = StridedView::of(*a);
  view.offset = start * view.strides[dim];
  view.sizes[dim] = (end - start + step - 1) / step;
  view.strides[dim] *= step;
  return copy_with_shape(ctx, view, *out);
}

}  // namespace

void add_view_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::view_copy.out", view_copy_out, 4, {2}});
  table.push_back({"aten::permute_copy.out", permute_copy_out, 4, {2}});
  table.push_back({"aten::transpose_copy.int_out", transpose_copy_out, 5, {3}});
  table.push_back({"aten::t_copy.out", t_copy_out, 3, {1}});
  table.push_back({"aten::expand_copy.out", expand_copy_out, 5, {3}});
  table.push_back({"aten::clone.out", same_shape_copy(2, false), 4, {2}});
  table.push_back({"aten::alias_copy.out", same_shape_copy(1, false), 3, {1}});
  table.push_back({"aten::_to_copy.out", same_shape_copy(3, true), 5, {3}});
  table.push_back({"dim_order_ops::_clone_dim_order.out", same_shape_copy(3, false, "dim_order"), 5, {3}});
  table.push_back({"dim_order_ops::_to_dim_order_copy.out", same_shape_copy(3, true, "dim_order"), 5, {3}});
  table.push_back({"aten::unsqueeze_copy.out", unsqueeze_copy_out, 4, {2}});
  table.push_back({"aten::squeeze_copy.dims_out", squeeze(true), 4, {2}});
  table.push_back({"aten::squeeze_copy.dim_out", squeeze(false), 4, {2}});
  table.push_back({"aten::select_copy.int_out", select_copy_out, 5, {3}});
  table.push_back({"aten::slice_copy.Tensor_out", slice_copy_out, 7, {5}});
}

}  // namespace etkit::rt::kernels
