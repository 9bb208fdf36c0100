// Multi-output splits along one dim, into a TensorList `out` (the trailing
// return slot repeats that list and is not read): split_with_sizes_copy,
// split_copy, unbind_copy. Every out is resized before any is written.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// Checks and resizes out[i] to self's shape with `dim` of size length(i)
// (or without `dim` when `drop`), then copies each window.
template <typename Length>
Status split_into(KernelContext& ctx, const Tensor& self, size_t dim, std::span<Tensor* const> outs, bool drop,
                  Length length) {
  const View view = View::of(self);
  for (size_t i = 0; i < outs.size(); ++i) {
    Tensor& out = *outs[i];
    if (out.dtype() != self.dtype()) {
      return ctx.fail("out[" + std::to_string(i) + "] has dtype " + dtype_name(out.dtype()) + ", expected " +
                      dtype_name(self.dtype()));
    }
    Shape shape = shape_of(self);
    shape[dim] = length(i);
    if (drop) shape = view.select(dim, 0).sizes;
    auto s = out.resize(shape);
    if (!s) return ctx.fail("out[" + std::to_string(i) + "]: " + s.error().message);
  }
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    const View window = drop ? view.select(dim, int64_t(i)) : view.narrow(dim, start, length(i));
    ETKIT_TRY(copy_view(ctx, View::of(*outs[i]), window));
    start += length(i);
  }
  return {};
}

// (self, split_sizes, dim, out[], ret[])
Status split_with_sizes_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto sizes, ctx.int_list(*args[1], "split_sizes"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(auto outs, tensor_list_arg(ctx, *args[3], "out"));
  if (self->dim() == 0) return ctx.fail("cannot split a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return ctx.fail("split_sizes " + list_string(sizes) + " must be non-negative");
    total += s;
  }
  if (total != self->size(dim)) {
    return ctx.fail("split_sizes " + list_string(sizes) + " sum to " + std::to_string(total) + ", but dimension " +
                    std::to_string(dim) + " has size " + std::to_string(self->size(dim)));
  }
  if (outs.size() != sizes.size()) {
    return ctx.fail("out has " + std::to_string(outs.size()) + " tensors for " + std::to_string(sizes.size()) + " splits");
  }
  return split_into(ctx, *self, dim, outs, false, [&](size_t i) { return sizes[i]; });
}

// (self, split_size, dim, out[], ret[]): chunks of split_size, the last
// one smaller when the size does not divide.
Status split_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t split_size, int_arg(ctx, *args[1], "split_size"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(auto outs, tensor_list_arg(ctx, *args[3], "out"));
  if (self->dim() == 0) return ctx.fail("cannot split a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t n = self->size(dim);
  if (split_size < 0 || (split_size == 0 && n != 0)) {
    return ctx.fail("split_size " + std::to_string(split_size) + " cannot split dimension " + std::to_string(dim) +
                    " of size " + std::to_string(n));
  }
  const int64_t chunks = n == 0 ? 1 : (n + split_size - 1) / split_size;
  if (int64_t(outs.size()) != chunks) {
    return ctx.fail("out has " + std::to_string(outs.size()) + " tensors for " + std::to_string(chunks) + " splits");
  }
  return split_into(ctx, *self, dim, outs, false,
                    [&](size_t i) { return std::min(split_size, n - int64_t(i) * split_size); });
}

// (self, dim, out[], ret[]): one out per index along dim, without dim.
Status unbind_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(auto outs, tensor_list_arg(ctx, *args[2], "out"));
  if (self->dim() == 0) return ctx.fail("cannot unbind a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  if (int64_t(outs.size()) != self->size(dim)) {
    return ctx.fail("out has " + std::to_string(outs.size()) + " tensors for dimension " + std::to_string(dim) +
                    " of size " + std::to_string(self->size(dim)));
  }
  return split_into(ctx, *self, dim, outs, true, [](size_t) { return int64_t{1}; });
}

}  // namespace

void add_split_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::split_with_sizes_copy.out", split_with_sizes_copy_out, 5, {3}});
  table.push_back({"aten::split_copy.Tensor_out", split_copy_out, 5, {3}});
  table.push_back({"aten::unbind_copy.int_out", unbind_copy_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
