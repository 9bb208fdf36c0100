// Non-constant padding of the last 1, 2 or 3 dims: reflection_pad{1,2,3}d
// (mirror without repeating the edge: [a b c] padded by 2 gives c b | a b c
// | b a) and replication_pad{1,2,3}d (repeat the edge: a a | a b c | c c).
// padding lists (before, after) pairs starting with the last dim, as
// torch.nn.functional.pad. Each out element copies the self element its
// coordinates map to; leading dims are copied through.
#include <algorithm>

#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// Maps an out coordinate of a padded dim back into [0, size).
int64_t reflect(int64_t i, int64_t before, int64_t size) {
  int64_t j = i - before;
  if (j < 0) j = -j;
  if (j >= size) j = 2 * (size - 1) - j;
  return j;
}

int64_t replicate(int64_t i, int64_t before, int64_t size) { return std::clamp<int64_t>(i - before, 0, size - 1); }

KernelFn pad_kernel(size_t dims, bool reflection) {
  return [dims, reflection](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> padding, ctx.int_list(*args[1], "padding"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    ETKIT_TRY(check_same_dtype(ctx, *self, *out));
    if (padding.size() != 2 * dims) {
      return ctx.fail("padding must have " + std::to_string(2 * dims) + " entries, got " + list_string(padding));
    }
    // ATen takes a batched or unbatched input: dims + 1 or dims + 2 dims.
    if (self->dim() != dims + 1 && self->dim() != dims + 2) {
      return ctx.fail("self must have " + std::to_string(dims + 1) + " or " + std::to_string(dims + 2) + " dims, got " +
                      self->shape_string());
    }
    const size_t rank = self->dim();
    Shape shape = shape_of(*self);
    int64_t before[3] = {}, sizes[3] = {};
    for (size_t k = 0; k < dims; ++k) {  // k = 0 is the last dim
      const size_t d = rank - 1 - k;
      const int64_t lo = padding[2 * k], hi = padding[2 * k + 1], n = shape[d];
      if (lo < 0 || hi < 0) return ctx.fail("padding " + list_string(padding) + " has a negative entry");
      if (reflection ? (lo >= n || hi >= n) : n == 0) {
        return ctx.fail("padding " + list_string(padding) + " is too large for dim " + std::to_string(d) + " of size " +
                        std::to_string(n) + (reflection ? " (reflection needs padding < size)" : ""));
      }
      before[k] = lo;
      sizes[k] = n;
      shape[d] = n + lo + hi;  // no overflow: each term is below 2^31
    }
    ETKIT_TRY(resize_out(ctx, *out, shape));
    const View src = View::of(*self), dst = View::of(*out);
    const size_t e = src.element_size;
    for_each_index(dst.sizes, [&](const int64_t* c) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t coord = c[d];
        if (d + dims >= rank) {
          const size_t k = rank - 1 - d;
          coord = reflection ? reflect(coord, before[k], sizes[k]) : replicate(coord, before[k], sizes[k]);
        }
        from += coord * src.strides[d];
      }
      std::memmove(dst.at(offset_at(c, dst.strides)), src.at(from), e);
    });
    return {};
  };
}

}  // namespace

void add_pad_mode_kernels(std::vector<KernelInfo>& table) {
  for (size_t dims = 1; dims <= 3; ++dims) {
    const std::string suffix = std::to_string(dims) + "d.out";
    table.push_back({"aten::reflection_pad" + suffix, pad_kernel(dims, true), 4, {2}});
    table.push_back({"aten::replication_pad" + suffix, pad_kernel(dims, false), 4, {2}});
  }
}

}  // namespace etkit::rt::kernels
