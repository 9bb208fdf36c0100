// Copies that keep the logical element order and only change the shape:
// view_copy, alias_copy (and detach_copy, lift_fresh_copy, the et_copy
// host/device copies), unsqueeze_copy, squeeze_copy; and the complex views
// _conj_physical and view_as_real_copy.
#include <optional>

#include "runner/kernels/shape/shape_ops.h"
#include "runner/kernels/stream_store.h"

namespace etkit::rt::kernels {
namespace {

// Resizes out to `sizes` and copies self's elements into it, in order.
Status reshape_into(KernelContext& ctx, const Tensor& self, std::span<const int64_t> sizes, Tensor& out) {
  ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, sizes));
  // Both contiguous (nearly always): the bytes in order, without building
  // views, which cost more than the copy on the fixtures' small tensors.
  if (self.is_contiguous() && out.is_contiguous() && out.numel() == self.numel()) {
    if (out.data() != self.data() && out.nbytes() > 0) move_bytes(out.data(), self.data(), out.nbytes());
    return {};
  }
  return copy_view(ctx, View::of(out), View::of(self));
}

// (self, size, out, ret): at most one -1, which takes the remaining elements.
Status view_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (size.size() > kMaxRank) return ctx.fail("rank " + std::to_string(size.size()) + " exceeds 16");
  Shape shape;
  int64_t known = 1;
  size_t infer = kMaxRank;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer != kMaxRank) return ctx.fail("only one dimension can be -1");
      infer = i;
    } else if (size[i] < 0) {
      return ctx.fail("invalid size " + std::to_string(size[i]) + " in shape " + list_string(size));
    } else {
      known *= size[i];
    }
    shape.push_back(size[i]);
  }
  if (infer != kMaxRank) {
    if (known == 0) return ctx.fail("cannot infer the -1 in shape " + list_string(size) + " for 0 elements");
    shape[infer] = self->numel() / known;
    known *= shape[infer];
  }
  if (known != self->numel()) {
    return ctx.fail("shape " + list_string(size) + " is invalid for input of " + std::to_string(self->numel()) +
                    " elements");
  }
  return reshape_into(ctx, *self, shape, *out);
}

// (self, out, ret): alias_copy, detach_copy, lift_fresh_copy, et_copy host/device copies.
Status plain_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  return reshape_into(ctx, *self, shape_of(*self), *out);
}

// The real dtype of a complex dtype's two parts, or nullopt.
std::optional<ScalarType> complex_part(ScalarType t) {
  switch (t) {
    case ScalarType::kComplexHalf: return ScalarType::kHalf;
    case ScalarType::kComplexFloat: return ScalarType::kFloat;
    case ScalarType::kComplexDouble: return ScalarType::kDouble;
    default: return std::nullopt;
  }
}

// t's memory read as pairs of `part` values: a new last dim of 2.
View as_parts(const Tensor& t, ScalarType part) {
  View parts = View::of(t);
  parts.dtype = part;
  parts.element_size = t.element_size() / 2;
  for (size_t d = 0; d < parts.rank(); ++d) parts.strides[d] *= 2;
  parts.sizes.push_back(2);
  parts.strides.push_back(1);
  return parts;
}

// (self, out, ret): the complex conjugate; real tensors are copied as they
// are, complex ones have their imaginary parts negated.
Status conj_physical_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(plain_copy_out(ctx, args));
  Tensor& out = *args[1]->tensor;  // checked by plain_copy_out
  const auto part = complex_part(out.dtype());
  if (!part) return {};
  const View parts = as_parts(out, *part);
  const View imag = parts.select(parts.rank() - 1, 1);
  for_each_index(imag.sizes, [&](const int64_t* c) {
    const int64_t at = imag.offset + offset_at(c, imag.strides);
    const double v = load_as<double>(*part, parts.data, at);
    store_as<double>(*part, parts.data, at, -v);
  });
  return {};
}

// (self, out, ret): a complex self as its real and imaginary parts, a new
// last dim of 2, converted to out's floating dtype (op_view_as_real_copy.cpp).
Status view_as_real_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  const auto part = complex_part(self->dtype());
  if (!part) return ctx.fail("self must be complex, not " + dtype_name(self->dtype()));
  const ScalarType o = out->dtype();
  if (o != ScalarType::kHalf && o != ScalarType::kFloat && o != ScalarType::kDouble) {
    return ctx.fail("out must be HALF, FLOAT or DOUBLE, not " + dtype_name(o));
  }
  if (self->dim() >= kMaxRank) return ctx.fail("self of rank 16 would make out exceed rank 16");
  const View parts = as_parts(*self, *part);
  ETKIT_TRY(resize_out(ctx, *out, parts.sizes));
  return copy_view(ctx, View::of(*out), parts);
}

// (self, dim, out, ret): dim in [-rank-1, rank].
Status unsqueeze_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (self->dim() >= kMaxRank) return ctx.fail("cannot unsqueeze a tensor of rank 16");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim() + 1));
  Shape shape;
  for (size_t d = 0; d <= self->dim(); ++d) {
    if (d == dim) shape.push_back(1);
    if (d < self->dim()) shape.push_back(self->size(d));
  }
  return reshape_into(ctx, *self, shape, *out);
}

// Drops the size-1 dims among `dims` (others stay, as in PyTorch).
Status squeeze_into(KernelContext& ctx, const Tensor& self, std::span<const int64_t> dims, Tensor& out) {
  bool listed[kMaxRank] = {};
  for (int64_t value : dims) {
    ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, value, self.dim()));
    if (listed[d]) return ctx.fail("dim " + std::to_string(d) + " appears more than once in dims");
    listed[d] = true;
  }
  Shape shape;
  for (size_t d = 0; d < self.dim(); ++d) {
    if (!(listed[d] && self.size(d) == 1)) shape.push_back(self.size(d));
  }
  return reshape_into(ctx, self, shape, out);
}

// (self, dim, out, ret)
Status squeeze_copy_dims_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  return squeeze_into(ctx, *self, dims, *out);
}

// (self, dim, out, ret)
Status squeeze_copy_dim_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const int64_t dims[1] = {dim};
  return squeeze_into(ctx, *self, dims, *out);
}

// (self, out, ret): every size-1 dim goes.
Status squeeze_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  Shape shape;
  for (size_t d = 0; d < self->dim(); ++d) {
    if (self->size(d) != 1) shape.push_back(self->size(d));
  }
  return reshape_into(ctx, *self, shape, *out);
}

}  // namespace

void add_reshape_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::view_copy.out", view_copy_out, 4, {2}});
  table.push_back({"aten::alias_copy.out", plain_copy_out, 3, {1}});
  table.push_back({"aten::detach_copy.out", plain_copy_out, 3, {1}});
  table.push_back({"aten::_conj_physical.out", conj_physical_out, 3, {1}});
  table.push_back({"aten::view_as_real_copy.out", view_as_real_copy_out, 3, {1}});
  // Host <-> device copies: on the host both sides are host memory.
  table.push_back({"et_copy::_h2d_copy.out", plain_copy_out, 3, {1}});
  table.push_back({"et_copy::_d2h_copy.out", plain_copy_out, 3, {1}});
  table.push_back({"aten::lift_fresh_copy.out", plain_copy_out, 3, {1}});
  table.push_back({"aten::unsqueeze_copy.out", unsqueeze_copy_out, 4, {2}});
  table.push_back({"aten::squeeze_copy.dims_out", squeeze_copy_dims_out, 4, {2}});
  table.push_back({"aten::squeeze_copy.dim_out", squeeze_copy_dim_out, 4, {2}});
  table.push_back({"aten::squeeze_copy.out", squeeze_copy_out, 3, {1}});
}

}  // namespace etkit::rt::kernels
