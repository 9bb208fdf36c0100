// constant_pad_nd: pad = (left, right) pairs from the last dim backwards;
// negative amounts crop. out is filled with `value`, then the part of self
// that survives the crop is copied into its window.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// (self, pad, value, out, ret)
Status constant_pad_nd_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto pad, ctx.int_list(*args[1], "pad"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_ASSIGN_OR_RETURN(ElementBytes value, scalar_bytes(ctx, *args[2], out->dtype(), "value"));
  if (pad.size() % 2 != 0) return ctx.fail("pad " + list_string(pad) + " must have an even length");
  const size_t rank = self->dim();
  if (pad.size() / 2 > rank) {
    return ctx.fail("pad " + list_string(pad) + " pads " + std::to_string(pad.size() / 2) + " dims of a tensor of rank " +
                    std::to_string(rank));
  }
  Shape shape = shape_of(*self);
  View src = View::of(*self);
  int64_t dst_start[kMaxRank] = {};
  bool fill = false;
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const size_t d = rank - 1 - k;
    const int64_t left = pad[2 * k], right = pad[2 * k + 1];
    const int64_t size = self->size(d);
    shape[d] = size + left + right;
    if (shape[d] < 0) {
      return ctx.fail("pad " + list_string(pad) + " makes dimension " + std::to_string(d) + " of size " +
                      std::to_string(size) + " negative (" + std::to_string(shape[d]) + ")");
    }
    fill = fill || left > 0 || right > 0;
    const int64_t kept = std::max<int64_t>(0, size - std::max<int64_t>(0, -left) - std::max<int64_t>(0, -right));
    src = src.narrow(d, std::max<int64_t>(0, -left), kept);
    dst_start[d] = std::max<int64_t>(0, left);
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  View dst = View::of(*out);
  if (fill) fill_view(dst, value);
  for (size_t d = 0; d < rank; ++d) dst = dst.narrow(d, dst_start[d], src.sizes[d]);
  return copy_view(ctx, dst, src);
}

}  // namespace

void add_pad_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::constant_pad_nd.out", constant_pad_nd_out, 5, {3}});
}

}  // namespace etkit::rt::kernels
