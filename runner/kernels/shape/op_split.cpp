// Multi-output splits along one dim, into a TensorList `out` (the trailing
// return slot repeats that list and is not read): split_with_sizes_copy,
// split_copy, unbind_copy, and the Cadence flow's chunk and tensor_split
// (sections). Every out is resized before any is written.
#include <algorithm>

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

// (self, chunks, dim, out[], ret[]), torch.chunk: pieces of ceil(size /
// chunks), the last one smaller, so there may be fewer than `chunks` of them
// (size 6 in 4 chunks: 2, 2, 2); a dimension of size 0 gives `chunks` empty
// pieces. Registered by the Cadence AOT flow (ops_registrations.py).
Status chunk_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t chunks, int_arg(ctx, *args[1], "chunks"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(auto outs, tensor_list_arg(ctx, *args[3], "out"));
  if (self->dim() == 0) return ctx.fail("cannot chunk a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  if (chunks < 1) return ctx.fail("chunks must be positive, got " + std::to_string(chunks));
  const int64_t n = self->size(dim);
  const int64_t piece = n / chunks + (n % chunks != 0);
  const int64_t pieces = n == 0 ? chunks : (n + piece - 1) / piece;
  if (int64_t(outs.size()) != pieces) {
    return ctx.fail("out has " + std::to_string(outs.size()) + " tensors for " + std::to_string(pieces) +
                    " chunks of dimension " + std::to_string(dim) + " (size " + std::to_string(n) + ")");
  }
  return split_into(ctx, *self, dim, outs, false, [&](size_t i) { return std::min(piece, n - int64_t(i) * piece); });
}

// (self, sections, dim, out[], ret[]), torch.tensor_split with a number of
// sections: exactly `sections` pieces, the first size % sections of them
// one longer (size 2 in 4 sections: 1, 1, 0, 0). Registered by the Cadence
// AOT flow.
Status tensor_split_sections_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t sections, int_arg(ctx, *args[1], "sections"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(auto outs, tensor_list_arg(ctx, *args[3], "out"));
  if (self->dim() == 0) return ctx.fail("cannot split a 0-dim tensor");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  if (sections < 1) return ctx.fail("sections must be positive, got " + std::to_string(sections));
  if (int64_t(outs.size()) != sections) {
    return ctx.fail("out has " + std::to_string(outs.size()) + " tensors for " + std::to_string(sections) + " sections");
  }
  const int64_t n = self->size(dim), base = n / sections, longer = n % sections;
  return split_into(ctx, *self, dim, outs, false, [&](size_t i) { return base + (int64_t(i) < longer); });
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
  table.push_back({"aten::chunk.out", chunk_out, 5, {3}});
  table.push_back({"aten::tensor_split.sections_out", tensor_split_sections_out, 5, {3}});
}

}  // namespace etkit::rt::kernels
