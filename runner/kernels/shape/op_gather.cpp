// Index-driven copies along one dim: gather, scatter (value and src),
// scatter_add, index_select, embedding. Index tensors are int64 or int32; as in
// PyTorch, these ops take no negative indices (index.Tensor does). Every
// index is checked before anything is written.
#include "runner/kernels/shape/accumulate.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// A view of at least rank 1 (a 0-dim tensor as [1]), as PyTorch's gather
// and scatter treat scalars.
View at_least_1d(const Tensor& t) {
  View v = View::of(t);
  if (v.rank() == 0) v = v.with_broadcast_dim(0, 1);
  return v;
}

Status index_out_of_range(KernelContext& ctx, int64_t index, size_t dim, int64_t size) {
  return ctx.fail("index " + std::to_string(index) + " is out of range for dimension " + std::to_string(dim) +
                  " of size " + std::to_string(size));
}

// Checks every value of `index` lies in [0, size).
Status check_indices(KernelContext& ctx, const Tensor& index, size_t dim, int64_t size) {
  if (index.dim() <= 1) {  // the usual index list: no view to build
    const int64_t stride = index.dim() == 1 ? index.strides()[0] : 0;
    for (int64_t i = 0; i < index.numel(); ++i) {
      const int64_t value = load_index(index, i * stride);
      if (value < 0 || value >= size) return index_out_of_range(ctx, value, dim, size);
    }
    return {};
  }
  Status status;
  const View v = View::of(index);
  for_each_index(v.sizes, [&](const int64_t* i) {
    if (!status) return;
    const int64_t value = load_index(index, offset_at(i, v.strides));
    if (value < 0 || value >= size) status = index_out_of_range(ctx, value, dim, size);
  });
  return status;
}

// Shared checks of gather and scatter: index has self's rank and fits
// inside `bound` (self, or src) in every dim but `dim` (or in every dim).
Status check_index_shape(KernelContext& ctx, const View& self, const View& index, const View& bound, size_t dim,
                         bool skip_dim, std::string_view bound_name) {
  if (index.rank() != self.rank()) {
    return ctx.fail("index has " + std::to_string(index.rank()) + " dims, self has " + std::to_string(self.rank()));
  }
  for (size_t d = 0; d < index.rank(); ++d) {
    if ((d != dim || !skip_dim) && index.sizes[d] > bound.sizes[d]) {
      return ctx.fail("index " + list_string(index.sizes) + " is larger than " + std::string(bound_name) + " " +
                      list_string(bound.sizes) + " in dimension " + std::to_string(d));
    }
  }
  return {};
}

// (self, dim, index, sparse_grad, out, ret): out[i][j] = self[index[i][j]][j] (dim 0).
Status gather_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(ctx, *args[2], "index"));
  ETKIT_ASSIGN_OR_RETURN(bool sparse_grad, bool_arg(ctx, *args[3], "sparse_grad"));
  (void)sparse_grad;  // only matters to autograd
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_TRY(check_index_dtype(ctx, *index, "index"));
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const View src = at_least_1d(*self), idx = at_least_1d(*index);
  ETKIT_TRY(check_index_shape(ctx, src, idx, src, dim, true, "self"));
  ETKIT_TRY(check_indices(ctx, *index, dim, src.sizes[dim]));
  ETKIT_TRY(resize_out(ctx, *out, index->sizes()));
  const View dst = at_least_1d(*out);
  const size_t e = src.element_size;
  const int64_t dim_stride = src.strides[dim];
  for_each_index(idx.sizes, [&](const int64_t* i) {
    const int64_t value = load_index(*index, offset_at(i, idx.strides));
    const int64_t from = offset_at(i, src.strides) + (value - i[dim]) * dim_stride;
    std::memmove(dst.at(offset_at(i, dst.strides)), src.at(from), e);
  });
  return {};
}

// scatter.value_out (self, dim, index, value, out, ret) and scatter.src_out
// (self, dim, index, src, out, ret): out = self, then out[index[i][j]][j] =
// value (or src[i][j]) for dim 0.
KernelFn scatter(bool from_tensor) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(ctx, *args[2], "index"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
    ETKIT_TRY(check_same_dtype(ctx, *self, *out));
    ETKIT_TRY(check_index_dtype(ctx, *index, "index"));
    ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
    const View base = at_least_1d(*self), idx = at_least_1d(*index);
    ETKIT_TRY(check_index_shape(ctx, base, idx, base, dim, true, "self"));
    ElementBytes value;
    View src;
    if (from_tensor) {
      ETKIT_ASSIGN_OR_RETURN(Tensor * src_tensor, tensor_arg(ctx, *args[3], "src"));
      if (src_tensor->dtype() != self->dtype()) {
        return ctx.fail("src has dtype " + dtype_name(src_tensor->dtype()) + ", expected " + dtype_name(self->dtype()));
      }
      src = at_least_1d(*src_tensor);
      if (src.rank() != idx.rank()) {
        return ctx.fail("src has " + std::to_string(src.rank()) + " dims, index has " + std::to_string(idx.rank()));
      }
      ETKIT_TRY(check_index_shape(ctx, base, idx, src, dim, false, "src"));
    } else {
      ETKIT_ASSIGN_OR_RETURN(value, scalar_bytes(ctx, *args[3], out->dtype(), "value"));
    }
    ETKIT_TRY(check_indices(ctx, *index, dim, base.sizes[dim]));
    ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
    const View dst = at_least_1d(*out);
    ETKIT_TRY(copy_view(ctx, dst, base));
    const size_t e = dst.element_size;
    for_each_index(idx.sizes, [&](const int64_t* i) {
      const int64_t target = load_index(*index, offset_at(i, idx.strides));
      uint8_t* to = dst.at(offset_at(i, dst.strides) + (target - i[dim]) * dst.strides[dim]);
      std::memcpy(to, from_tensor ? src.at(offset_at(i, src.strides)) : value.bytes, e);
    });
    return {};
  };
}

// (self, dim, index, src, out, ret): out = self, then
// out[index[i][j]][j] += src[i][j] for dim 0 (repeated targets add up).
Status scatter_add_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(ctx, *args[2], "index"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src_tensor, tensor_arg(ctx, *args[3], "src"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_TRY(check_can_accumulate(ctx, self->dtype()));
  ETKIT_TRY(check_index_dtype(ctx, *index, "index"));
  if (src_tensor->dtype() != self->dtype()) {
    return ctx.fail("src has dtype " + dtype_name(src_tensor->dtype()) + ", expected " + dtype_name(self->dtype()));
  }
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const View base = at_least_1d(*self), idx = at_least_1d(*index), src = at_least_1d(*src_tensor);
  ETKIT_TRY(check_index_shape(ctx, base, idx, base, dim, true, "self"));
  if (src.rank() != idx.rank()) {
    return ctx.fail("src has " + std::to_string(src.rank()) + " dims, index has " + std::to_string(idx.rank()));
  }
  ETKIT_TRY(check_index_shape(ctx, base, idx, src, dim, false, "src"));
  ETKIT_TRY(check_indices(ctx, *index, dim, base.sizes[dim]));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  const View dst = at_least_1d(*out);
  ETKIT_TRY(copy_view(ctx, dst, base));
  for_each_index(idx.sizes, [&](const int64_t* i) {
    const int64_t target = load_index(*index, offset_at(i, idx.strides));
    uint8_t* to = dst.at(offset_at(i, dst.strides) + (target - i[dim]) * dst.strides[dim]);
    accumulate_element(dst.dtype, to, src.at(offset_at(i, src.strides)));
  });
  return {};
}

// (self, dim, index, out, ret): out = self with dim replaced by the rows
// index (rank <= 1) names.
Status index_select_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(ctx, *args[2], "index"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_TRY(check_index_dtype(ctx, *index, "index"));
  if (index->dim() > 1) return ctx.fail("index must have at most 1 dim, got " + index->shape_string());
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t dim_size = self->dim() == 0 ? 1 : self->size(dim);
  ETKIT_TRY(check_indices(ctx, *index, dim, dim_size));
  if (self->dim() == 0 && index->numel() != 1) {
    return ctx.fail("index must have one element for a 0-dim self, got " + std::to_string(index->numel()));
  }
  Shape shape = shape_of(*self);
  if (self->dim() > 0) shape[dim] = index->numel();
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const int64_t index_stride = index->dim() == 1 ? index->strides()[0] : 0;
  if (self->dim() > 0 && self->is_contiguous() && out->is_contiguous()) {
    // Runs of the dims after `dim`, copied without building views (which
    // cost 3x ExecuTorch's whole call on stress_mlp's one 256-float row).
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < self->dim(); ++d) {
      if (d != dim) (d < dim ? outer : inner) *= self->size(d);
    }
    const int64_t k = index->numel();
    const size_t run = size_t(inner) * self->element_size();
    const auto* from = static_cast<const uint8_t*>(self->data());
    auto* to = static_cast<uint8_t*>(out->data());
    for (int64_t i = 0; i < k && run > 0; ++i) {
      const int64_t row = load_index(*index, i * index_stride);
      for (int64_t o = 0; o < outer; ++o) {
        std::memmove(to + size_t(o * k + i) * run, from + size_t(o * dim_size + row) * run, run);
      }
    }
    return {};
  }
  const View src = at_least_1d(*self);
  const View dst = at_least_1d(*out);
  for (int64_t i = 0; i < index->numel(); ++i) {
    const int64_t row = load_index(*index, i * index_stride);
    ETKIT_TRY(copy_view(ctx, dst.select(dim, i), src.select(dim, row)));
  }
  return {};
}

// (weight, indices, padding_idx, scale_grad_by_freq, sparse, out, ret):
// out[..., :] = weight[indices[...], :]; the last three only matter to
// training.
Status embedding_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[0], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[1], "indices"));
  ETKIT_ASSIGN_OR_RETURN(int64_t padding_idx, int_arg(ctx, *args[2], "padding_idx"));
  ETKIT_ASSIGN_OR_RETURN(bool scale_grad_by_freq, bool_arg(ctx, *args[3], "scale_grad_by_freq"));
  ETKIT_ASSIGN_OR_RETURN(bool sparse, bool_arg(ctx, *args[4], "sparse"));
  (void)padding_idx, (void)scale_grad_by_freq, (void)sparse;
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (weight->dim() != 2) return ctx.fail("weight must have 2 dims, got " + weight->shape_string());
  ETKIT_TRY(check_same_dtype(ctx, *weight, *out));
  ETKIT_TRY(check_index_dtype(ctx, *indices, "indices"));
  if (indices->dim() >= kMaxRank) return ctx.fail("indices of rank 16 make out exceed rank 16");
  ETKIT_TRY(check_indices(ctx, *indices, 0, weight->size(0)));
  Shape shape = shape_of(*indices);
  shape.push_back(weight->size(1));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View table = View::of(*weight), idx = View::of(*indices), dst = View::of(*out);
  Status status;
  for_each_index(idx.sizes, [&](const int64_t* i) {
    if (!status) return;
    View row_out = dst;  // out[i..., :]
    row_out.offset = 0;
    for (size_t d = 0; d < idx.rank(); ++d) row_out.offset += i[d] * dst.strides[d];
    row_out.sizes = Shape();
    row_out.strides = Shape();
    row_out.sizes.push_back(weight->size(1));
    row_out.strides.push_back(dst.strides[idx.rank()]);
    status = copy_view(ctx, row_out, table.select(0, load_index(*indices, offset_at(i, idx.strides))));
  });
  return status;
}

}  // namespace

void add_gather_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::gather.out", gather_out, 6, {4}});
  table.push_back({"aten::scatter.value_out", scatter(false), 6, {4}});
  table.push_back({"aten::scatter.src_out", scatter(true), 6, {4}});
  table.push_back({"aten::scatter_add.out", scatter_add_out, 6, {4}});
  table.push_back({"aten::index_select.out", index_select_out, 5, {3}});
  table.push_back({"aten::embedding.out", embedding_out, 7, {5}});
}

}  // namespace etkit::rt::kernels
